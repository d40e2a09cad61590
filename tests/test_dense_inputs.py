"""Dense matrices given by the user (an LCP's M, a reduced problem's A) are taken as SciPy would
take them, faster: the same CSR matrix, the same names, the same checks."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.assembly import assemble_from_matrices
from contactmodel.sparse_product import DenseCSR, dense_csr


def _same_csr(a: sp.csr_matrix, b: sp.csr_matrix) -> None:
    assert a.shape == b.shape and b.has_canonical_format
    for name in ("indptr", "indices", "data"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype, name
        np.testing.assert_array_equal(x, y)


_RNG = np.random.default_rng(11)
_ARRAYS = {
    "zeros": np.zeros((3, 3)),
    "empty": np.zeros((0, 0)),
    "identity": np.eye(4),
    "wide_sparse": _RNG.standard_normal((5, 7)) * (_RNG.random((5, 7)) < 0.3),
    "tall_dense": _RNG.standard_normal((9, 2)),
    "signed_zeros": np.array([[0.0, -0.0], [-0.0, 1.0]]),
}


@pytest.mark.parametrize("A", _ARRAYS.values(), ids=_ARRAYS.keys())
def test_dense_csr_is_scipys_csr(A) -> None:
    _same_csr(sp.csr_matrix(A), dense_csr(A))


def test_dense_csr_of_one_pattern_after_another_is_scipys_csr() -> None:
    """A converter kept between calls gives SciPy's matrix each time: on a new pattern, on the
    same pattern with new entries (sharing the first's index arrays, read-only), and after a
    change of pattern or shape; the first matrix of a pattern stays the caller's to change."""
    to_csr = DenseCSR()
    rng = np.random.default_rng(3)
    mask = rng.random((6, 6)) < 0.5
    first = to_csr(rng.standard_normal((6, 6)) * mask)
    arrays = [rng.standard_normal((6, 6)) * mask for _ in range(2)]
    arrays += [rng.standard_normal((6, 6)) * (rng.random((6, 6)) < 0.5), np.eye(4), np.eye(4)]
    made = [to_csr(A) for A in arrays]
    for A, M in zip(arrays, made):
        _same_csr(sp.csr_matrix(A), M)
    assert made[1].indices is made[0].indices and not made[0].indices.flags.writeable
    assert made[2].indices is not made[1].indices and made[2].indices.flags.writeable  # a new pattern
    assert made[4].indptr is not made[3].indptr and not made[4].indptr.flags.writeable
    first.data[:] = 0.0
    first.eliminate_zeros()  # its own arrays
    _same_csr(sp.csr_matrix(arrays[0]), made[0])


def test_an_lcp_keeps_scipys_matrix_and_names_its_variables_when_asked() -> None:
    M = _ARRAYS["wide_sparse"][:5, :5] + 3.0 * np.eye(5)
    mcp = cm.LCP(M, -np.ones(5))
    _same_csr(sp.csr_matrix(M), mcp.M)
    names = mcp.names
    assert len(names) == 5 and list(names) == [f"z[{i}]" for i in range(5)]
    assert (names[0], names[-1], names[1:3], names.index("z[3]")) == ("z[0]", "z[4]", ["z[1]", "z[2]"], 3)
    with pytest.raises(IndexError):
        names[5]
    assert list(cm.LCP(M, -np.ones(5), names=list("abcde")).names) == list("abcde")


def test_matrix_assembly_rows_velocities_and_symmetry() -> None:
    """Rows (n, t, o) per contact, sliding by speed, contacts at the origin in the world frame
    (read-only: no geometry behind them), A as SciPy's CSR; A symmetric to 1e-9 relative, as
    before: exactly, within the tolerance, or refused."""
    rng = np.random.default_rng(3)
    G = rng.standard_normal((6, 8))
    A = G @ G.T
    vel = np.array([[0.0, 0.0], [0.3, -0.4]])
    asm = assemble_from_matrices(A, np.arange(6.0), velocities=vel, names=["p", "q"])
    _same_csr(sp.csr_matrix(A), asm.A_sparse)
    assert asm.rows == [("p", "n"), ("p", "t"), ("p", "o"), ("q", "n"), ("q", "t"), ("q", "o")]
    assert asm.contact_rows == {"p": {"n": 0, "t": 1, "o": 2}, "q": {"n": 3, "t": 4, "o": 5}}
    np.testing.assert_array_equal(asm.v, [0.0, 0.0, 0.0, 0.0, 0.3, -0.4])
    assert (asm.rolling, asm.sliding) == (["p"], ["q"])
    contact = asm.system.contacts[1]
    np.testing.assert_array_equal(contact.point, np.zeros(3))
    np.testing.assert_array_equal(contact.frame, np.eye(3))
    with pytest.raises(ValueError):
        contact.point[0] = 1.0
    near = A.copy()
    near[0, 1] += 1e-10 * np.abs(A).max()
    assemble_from_matrices(near, np.zeros(6))
    far = A.copy()
    far[0, 1] += 1e-8 * np.abs(A).max()
    with pytest.raises(cm.ContactModelError, match="symmetric"):
        assemble_from_matrices(far, np.zeros(6))
    assemble_from_matrices(far, np.zeros(6), check_symmetric=False)
