"""Matrix classes against brute force on small random matrices."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from contactmodel.analysis import (
    is_column_sufficient,
    is_copositive,
    is_copositive_plus,
    is_p0_matrix,
    is_p_matrix,
    is_row_sufficient,
    is_s_matrix,
)

entries = st.integers(-4, 4).map(float)


def square(n_max: int = 5):
    return st.integers(1, n_max).flatmap(lambda n: arrays(np.float64, (n, n), elements=entries))


def minors(M: np.ndarray):
    n = M.shape[0]
    for r in range(1, n + 1):
        for J in itertools.combinations(range(n), r):
            yield np.linalg.det(M[np.ix_(J, J)])


def copositive_brute(M: np.ndarray) -> bool:
    """Kaplan (2000): S = (M + M^T)/2 is copositive iff no principal block has a positive
    eigenvector with a negative eigenvalue (exact for simple spectra, the only ones tested)."""
    S = 0.5 * (M + M.T)
    n = S.shape[0]
    for r in range(1, n + 1):
        for J in itertools.combinations(range(n), r):
            w, V = np.linalg.eigh(S[np.ix_(J, J)])
            for lam, v in zip(w, V.T):
                if lam < -1e-9 and (np.all(v > 1e-12) or np.all(v < -1e-12)):
                    return False
    return True


@settings(max_examples=150, deadline=None)
@given(square(), st.integers(0, 6))
def test_p_matrix_agrees_with_all_principal_minors(M: np.ndarray, shift: int) -> None:
    M = M + shift * np.eye(M.shape[0])
    assert is_p_matrix(M).value == all(d > 1e-9 for d in minors(M))


@settings(max_examples=150, deadline=None)
@given(square(4))
def test_p0_matrix_agrees_with_all_principal_minors(M: np.ndarray) -> None:
    assert is_p0_matrix(M).value == all(d > -1e-9 for d in minors(M))


def _simple_spectra(M: np.ndarray) -> bool:
    S = 0.5 * (M + M.T)
    n = S.shape[0]
    for r in range(1, n + 1):
        for J in itertools.combinations(range(n), r):
            w = np.linalg.eigvalsh(S[np.ix_(J, J)])
            if r > 1 and np.min(np.diff(w)) < 1e-6:
                return False
    return True


@settings(max_examples=200, deadline=None)
@given(square(5), st.integers(0, 5))
def test_copositivity_agrees_with_eigenvector_enumeration(M: np.ndarray, shift: int) -> None:
    M = M + shift * np.eye(M.shape[0]) + 0.01 * np.arange(M.size).reshape(M.shape) / M.size
    if not _simple_spectra(M):
        return
    assert is_copositive(M).value == copositive_brute(M)


@settings(max_examples=100, deadline=None)
@given(square(4))
def test_copositive_violations_are_real(M: np.ndarray) -> None:
    v = is_copositive(M)
    if not v.value:
        x = np.asarray(v.witness)
        assert np.all(x >= 0) and x @ M @ x < 0


@settings(max_examples=60, deadline=None)
@given(square(3))
def test_sufficiency_witnesses_are_real(M: np.ndarray) -> None:
    for verdict, N in ((is_column_sufficient(M), M), (is_row_sufficient(M), M.T)):
        if not verdict.value and isinstance(verdict.witness, np.ndarray):
            x = np.asarray(verdict.witness)
            prod = x * (N @ x)
            assert np.all(prod <= 1e-9 * max(1.0, x @ x)) and prod.min() < 0


def test_known_classes() -> None:
    assert is_copositive_plus(np.eye(2)).value
    assert not is_copositive_plus(np.array([[0.0, 1.0], [1.0, 0.0]])).value
    assert is_copositive(np.array([[0.0, 1.0], [1.0, 0.0]])).value
    assert is_column_sufficient(np.array([[0.0, 1.0], [-1.0, 0.0]])).value
    assert not is_column_sufficient(np.array([[0.0, 1.0], [0.0, 0.0]])).value
    assert is_s_matrix(np.eye(3)).value and not is_s_matrix(-np.eye(3)).value
