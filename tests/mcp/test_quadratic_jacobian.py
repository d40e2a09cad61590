"""The Jacobian of linear plus quadratic terms filled on a kept pattern (``Functions.J``) is
SciPy's ``(L + Q).tocsr()`` bit for bit: entries, order and the entries that sum to 0 dropped."""

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.mcp.compiled import Functions, Terms


def _scipy_jacobian(t: Terms, x: np.ndarray, n: int) -> sp.csr_matrix:
    """The Jacobian as SciPy builds it: Q from COO (duplicates summed), then L + Q."""
    Q = sp.csr_matrix(
        (np.concatenate([t.qv * x[t.qb], t.qv * x[t.qa]]), (np.r_[t.qi, t.qi], np.r_[t.qa, t.qb])),
        shape=(n, n),
    )
    return (t.L + Q).tocsr()


def _same(A: sp.csr_matrix, B: sp.csr_matrix) -> bool:
    return (
        np.array_equal(A.indptr, B.indptr)
        and np.array_equal(A.indices, B.indices)
        and np.array_equal(A.data, B.data)
    )


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 9), k=st.integers(1, 10))
def test_filled_jacobian_is_scipys(seed, n, k):
    rng = np.random.default_rng(seed)
    L = sp.random(n, n, density=float(rng.uniform(0.0, 0.7)), random_state=seed, format="csr")
    L.data[rng.random(L.nnz) < 0.2] = 0.0  # stored zeros of L are dropped from the sum too
    L.sum_duplicates()
    qi, qa, qb = (rng.integers(0, n, k) for _ in range(3))
    qv = rng.choice([0.0, 1.0, -1.0, 0.25, 2.0], size=k)
    t = Terms(L, qi, qa, qb, qv, [])
    f = Functions(t, np.zeros(n))
    for _ in range(4):
        x = rng.choice([0.0, 1.0, -1.0, 0.5, 3.0], size=n) * rng.uniform(0.5, 2.0)
        J = f.J(x)
        assert _same(J, _scipy_jacobian(t, x, n))
        assert J.has_canonical_format


def test_cancelling_entries_are_dropped_and_patterns_reused():
    """An entry where L and the quadratic term cancel is absent, as in SciPy's sum; a pattern met
    again gives the same index arrays (read-only)."""
    L = sp.csr_matrix(np.array([[1.0, 2.0], [0.0, 1.0]]))
    t = Terms(L, np.array([0, 1]), np.array([1, 1]), np.array([0, 1]), np.array([1.0, -1.0]), [])
    f = Functions(t, np.zeros(2))
    for x in ([-2.0, 0.5], [1.0, 0.5], [-2.0, 0.5], [0.0, 0.0]):
        x = np.array(x)
        J = f.J(x)
        assert _same(J, _scipy_jacobian(t, x, 2))
    cancel = f.J(np.array([-2.0, 0.5]))  # J[0, 1] = 2 + x0 = 0
    assert cancel[0, 1] == 0.0 and cancel.nnz == _scipy_jacobian(t, np.array([-2.0, 0.5]), 2).nnz
    again = f.J(np.array([-2.0, 0.5]))
    assert again.indices is cancel.indices and not again.indices.flags.writeable
