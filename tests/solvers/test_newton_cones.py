"""Tests of the cone-block method of the newton solver (contactmodel.solvers.newton.cones): its
Newton matrix against one built here entry by entry with dense numpy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from contactmodel.mcp.types import MCP, CoulombBlocks
from contactmodel.solvers.newton import NewtonOptions
from contactmodel.solvers.newton import cones as newton_cones
from contactmodel.solvers.newton import kernels as newton_kernels


def cone_mcp(k: int, nbox: int, seed: int, shuffle: bool = False, density: float = 0.05) -> MCP:
    """An affine MCP with ``k`` cone blocks and ``nbox`` rows ``x >= 0``; with ``shuffle`` the
    blocks' positions are scattered and not ascending within a block."""
    rng = np.random.default_rng(seed)
    n = 3 * k + nbox
    M = (sp.random(n, n, density=density, random_state=seed) + 3.0 * sp.eye(n)).tocsr()
    M.sum_duplicates()
    q = rng.standard_normal(n)
    pos = rng.permutation(n) if shuffle else np.arange(n)
    index = pos[: 3 * k].reshape(k, 3)
    q[index[:, 0]] -= 4.0 * (rng.random(k) < 0.4)  # pressed into contact: some blocks stick
    lb = np.full(n, -np.inf)
    lb[pos[3 * k :]] = 0.0
    return MCP(
        F=lambda x: M @ x + q,
        J=lambda x: M,
        lb=lb,
        ub=np.full(n, np.inf),
        M=M,
        q=q,
        cones=CoulombBlocks(index, rng.uniform(0.2, 1.0, k)),
    )


def dense_newton_matrix(method: newton_cones.ConeMethod, pt, J: np.ndarray, eps: float) -> np.ndarray:
    """``Da + Db (J + eps I)`` from the point's blocks, one row block at a time."""
    H = np.zeros_like(J)
    for i, row in enumerate(method.box):
        H[row] = pt.db_box[i] * J[row]
        H[row, row] += pt.da_box[i] + eps * pt.db_box[i]
    for b, rows in enumerate(method.idx):
        H[rows] = pt.db_cone[b] @ J[rows]
        H[np.ix_(rows, rows)] += pt.da_cone[b] + eps * pt.db_cone[b]
    return H


@pytest.mark.parametrize(
    "k, nbox, shuffle",
    [(12, 3, False), (12, 3, True), (60, 30, False), (60, 30, True), (0, 200, False), (70, 0, True)],
)
@pytest.mark.parametrize("kernels", ["numpy", "auto"])
def test_newton_matrix_and_direction_match_a_dense_build(k, nbox, shuffle, kernels):
    mcp = cone_mcp(k, nbox, seed=k + nbox, shuffle=shuffle)
    method = newton_cones.ConeMethod(mcp, NewtonOptions(kernels=kernels))
    rng = np.random.default_rng(7)
    Jd = mcp.M.toarray()
    kinds = np.zeros(3, dtype=int)  # cone blocks met: separated, sticking, on the boundary
    at_bound = 0
    for trial in range(4):
        x = rng.standard_normal(mcp.n)
        x[method.idx[:, 0]] = rng.uniform(0.0, 1.5, k)  # c_n >= 0: every case of the projection
        x = method.project(x)
        pt = method.begin_attempt(x)
        J = method.J(x)
        eps = 0.0 if trial == 0 else 0.3 * trial
        H = dense_newton_matrix(method, pt, Jd, eps)
        got = method.matrix(pt, J, eps)
        assert isinstance(got, np.ndarray) == (mcp.n <= 150)
        got = got if isinstance(got, np.ndarray) else got.toarray()
        np.testing.assert_allclose(got, H, rtol=1e-14, atol=1e-14)
        d = method.newton_direction(pt, J, eps)
        assert d is not None
        np.testing.assert_allclose(H @ d, -pt.phi, atol=1e-9 * (1.0 + np.abs(pt.phi).max()))
        sep = np.all(pt.db_cone == 0.0, axis=(1, 2))
        stick = np.all(pt.da_cone == 0.0, axis=(1, 2))
        kinds += [np.sum(sep), np.sum(stick), np.sum(~sep & ~stick)]
        at_bound += int(np.sum(pt.db_box == 0.0))
    if k:  # every case met, the elimination of unit rows exercised
        assert np.all(kinds > 0), kinds
    if nbox:
        assert at_bound > 0


@pytest.mark.parametrize("kernels", ["numpy", "auto"])
def test_newton_matrix_follows_a_jacobian_whose_pattern_changes(kernels):
    """A nonlinear F's Jacobian may change its sparsity pattern: the cached pattern is rebuilt."""
    mcp = cone_mcp(60, 30, seed=3)
    method = newton_cones.ConeMethod(mcp, NewtonOptions(kernels=kernels))
    x = method.project(np.random.default_rng(1).standard_normal(mcp.n))
    pt = method.begin_attempt(x)
    for seed in (11, 12):
        J = (sp.random(mcp.n, mcp.n, density=0.04, random_state=seed) + sp.eye(mcp.n)).tocsr()
        J.sum_duplicates()
        got = method.matrix(pt, J, 0.1).toarray()
        want = dense_newton_matrix(method, pt, J.toarray(), 0.1)
        np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)


@pytest.mark.skipif(not newton_kernels.AVAILABLE, reason="numba not installed (extra 'fast')")
def test_compiled_kernels_give_the_numbers_of_the_numpy_code():
    """Points, Newton matrices and directions of the sparse path, numba against numpy: equal."""
    mcp = cone_mcp(60, 30, seed=5, shuffle=True)
    fast, plain = (newton_cones.ConeMethod(mcp, NewtonOptions(kernels=k)) for k in ("numba", "numpy"))
    rng = np.random.default_rng(2)
    for _ in range(4):
        x = rng.standard_normal(mcp.n)
        x[fast.idx[:, 0]] = rng.uniform(0.0, 1.5, 60)
        x = fast.project(x)
        p, q = fast.begin_attempt(x), plain.begin_attempt(x)
        for name in ("phi", "da_box", "db_box", "da_cone", "db_cone", "psi", "res", "sep"):
            np.testing.assert_array_equal(getattr(p, name), getattr(q, name))
        J = fast.J(x)
        np.testing.assert_array_equal(fast.values(p, J, 0.2), plain.values(q, J, 0.2))
        np.testing.assert_array_equal(fast.newton_direction(p, J, 0.2), plain.newton_direction(q, J, 0.2))
