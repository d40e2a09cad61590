"""A singular basis never escapes lemke as LinAlgError: a refactorization that is exactly or
numerically singular ends that run (the next covering vector is tried), and the answer is a
status; the same holds when lemke runs as newton's pivoting fallback on the 16-box pile."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.mcp import MCP
from contactmodel.solvers import lemke
from contactmodel.solvers.base import Outcome

DATA = Path(__file__).resolve().parents[1] / "data" / "lemke"


def murty(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Murty's (1978) LCP, indices reversed: Lemke needs many pivots, so every run reaches a
    refactorization check."""
    return np.triu(2.0 * np.ones((n, n)), 1) + np.eye(n), -(2.0 ** (n + 1) - 2.0 ** np.arange(1, n + 1))


def pile16(n: int) -> tuple[np.ndarray, np.ndarray]:
    """An LCP of a step of cm.simulate on a pile of 16 boxes (rank-deficient M)."""
    data = np.load(DATA / f"pile16_step_{n}.npz")
    M = sp.csr_matrix((data["data"], data["indices"], data["indptr"]), shape=(n, n)).toarray()
    return M, data["q"]


def test_a_numerically_singular_refactorization_ends_the_run(monkeypatch) -> None:
    """np.linalg.inv returning a non-finite inverse (no LAPACK error) counts as singular. Every
    check is made to find drift (so it refactors), and every inverse is made infinite."""
    inverse = np.linalg.inv
    monkeypatch.setattr(np.linalg, "inv", lambda B: np.full_like(inverse(B), np.inf))
    monkeypatch.setattr(lemke._Tableau, "residual", lambda self: np.full(self.n, 1e3))
    M, q = murty(6)
    r = lemke.solve(MCP.from_lcp(M, q), lemke.LemkeOptions(check_every=1, max_restarts=2))
    assert r.outcome is Outcome.FAILED and r.x is None
    assert r.extras["singular"] == r.extras["starts"] == 3
    assert "singular at a refactorization" in r.message


def test_a_run_after_a_singular_one_can_still_solve(monkeypatch) -> None:
    """The first refactorization is singular, the restart solves: a solution, one lost run."""
    check = lemke._Tableau.check
    calls = {"n": 0}

    def first_singular(self) -> None:
        calls["n"] += 1
        if calls["n"] == 1:
            raise np.linalg.LinAlgError("Singular matrix")
        check(self)

    monkeypatch.setattr(lemke._Tableau, "check", first_singular)
    M, q = murty(5)
    r = lemke.solve(MCP.from_lcp(M, q), lemke.LemkeOptions(check_every=1))
    assert r.outcome is Outcome.CONVERGED and r.extras["singular"] == 1 and r.extras["starts"] == 2
    assert np.abs(np.minimum(r.x, M @ r.x + q)).max() <= 1e-12


def test_an_eigenvalue_failure_in_the_ray_analysis_proves_nothing(monkeypatch) -> None:
    """LAPACK's symmetric eigensolver not converging (the PSD test after a ray) is no error:
    the ray is then certified by the Farkas vector alone."""

    def diverge(S):
        raise np.linalg.LinAlgError("Eigenvalues did not converge")

    monkeypatch.setattr(np.linalg, "eigvalsh", diverge)
    M, q = np.array([[-1.0, 0.0], [0.0, 1.0]]), np.array([-1.0, -1.0])  # w1 = -z1 - 1 >= 0: none
    r = lemke.solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.INFEASIBLE and "certificate" in r.extras


@pytest.mark.parametrize("n", [240, 320])
def test_newton_without_decoupling_on_the_16_box_pile(n: int) -> None:
    M, q = pile16(n)
    sol = cm.solve(cm.LCP(M, q), solver="newton", decouple=False)
    assert sol.status is cm.Status.SOLVED
    assert np.abs(np.minimum(sol.x, M @ sol.x + q)).max() <= 1e-8 * max(1.0, np.abs(q).max())


def test_newton_pivot_fallback_with_every_lemke_run_singular_reports_a_status(monkeypatch) -> None:
    """On the pile step where newton (decouple=False) stalls and calls Lemke, every Lemke run
    lost to a singular refactorization leaves newton's answer a status, never LinAlgError."""

    def singular(self) -> None:
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(lemke._Tableau, "check", singular)
    M, q = pile16(240)
    sol = cm.solve(cm.LCP(M, q), solver="newton", decouple=False, fallback=False)
    assert isinstance(sol.status, cm.Status)
    if sol.extras.get("pivot") == "lemke":  # the fallback ran: its runs were all lost
        assert sol.extras["pivot_outcome"] == Outcome.FAILED.value
