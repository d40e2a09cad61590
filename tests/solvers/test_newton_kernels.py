"""newton's compiled kernels give the numbers of its numpy code (the plain Python versions run
without numba; the compiled ones when numba is installed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.errors import SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.newton import NewtonOptions, _Box, solve
from contactmodel.solvers.newton import kernels as newton_kernels

needs_numba = pytest.mark.skipif(not newton_kernels.AVAILABLE, reason="numba not installed (extra 'fast')")


def numpy_point(x, lb, F, scale, lam):
    box = _Box(lb, np.full(lb.shape, np.inf), lam)
    with np.errstate(all="ignore"):
        phi, da, db = box.fb(x, F * scale)
    nat, at_bound = box.natural(x, F)
    return phi, da, db * scale, nat, at_bound, float(np.abs(nat).max(initial=0.0))


def random_point(seed: int, n: int):
    """Entries with a = x - lb and F zero, positive, negative and tiny, in every combination."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, 4, size=(2, n))
    values = np.stack([np.zeros(n), rng.exponential(size=n), -rng.exponential(size=n), np.full(n, 1e-200)])
    a = values[pick[0], np.arange(n)]
    F = values[pick[1], np.arange(n)] * rng.choice([1.0, 1e8], n)
    lb = rng.uniform(-2.0, 2.0, n)
    return lb + a, lb, F, rng.uniform(1e-3, 1.0, n)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), lam=st.sampled_from([1.0, 0.95, 0.5]))
def test_python_fb_kernel_matches_the_numpy_code(seed, n, lam):
    x, lb, F, scale = random_point(seed, n)
    want = numpy_point(x, lb, F, scale, lam)
    got = newton_kernels.fb_lower_py(x, lb, F, scale, lam)
    for g, w in zip(got[:4], want[:4]):  # the plain Python hypot may differ by a rounding
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-15 * max(1.0, float(np.abs(w).max())))
    assert np.array_equal(got[4], want[4])
    assert got[5] == pytest.approx(want[5], rel=1e-14, abs=1e-300)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 30))
def test_python_dense_block_matches_the_numpy_code(seed, n):
    rng = np.random.default_rng(seed)
    J = rng.standard_normal((n, n)) * (rng.random((n, n)) < 0.3)
    keep = np.flatnonzero(rng.random(n) < 0.6)
    da, db = rng.random(n), rng.random(n)
    want = np.diag(da[keep]) + db[keep][:, None] * J[np.ix_(keep, keep)]
    got = newton_kernels.dense_block_py(np.ascontiguousarray(J.T), keep, da, db)
    assert got.flags["F_CONTIGUOUS"] and got.shape == (keep.size, keep.size)
    np.testing.assert_array_equal(got, want)


def test_the_fb_kernel_keeps_a_nan_as_numpy_does():
    x, lb, scale = np.array([1.0, 2.0]), np.zeros(2), np.ones(2)
    F = np.array([np.nan, 1.0])
    got = newton_kernels.fb_lower_py(x, lb, F, scale, 1.0)
    want = numpy_point(x, lb, F, scale, 1.0)
    assert np.isnan(got[5]) and np.isnan(want[5])
    np.testing.assert_array_equal(np.isnan(got[3]), np.isnan(want[3]))


@needs_numba
@pytest.mark.parametrize("seed", range(5))
def test_compiled_kernels_match_the_numpy_code(seed):
    x, lb, F, scale = random_point(seed, 50)
    got = newton_kernels.fb_lower(x, lb, F, scale, 0.95)
    want = numpy_point(x, lb, F, scale, 0.95)
    for g, w in zip(got[:4], want[:4]):
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-15 * max(1.0, float(np.abs(w).max())))
    assert np.array_equal(got[4], want[4]) and got[5] == pytest.approx(want[5], rel=1e-14)
    rng = np.random.default_rng(seed)
    JT = np.ascontiguousarray(rng.standard_normal((50, 50)))
    keep = np.flatnonzero(rng.random(50) < 0.5)
    np.testing.assert_array_equal(
        newton_kernels.dense_block(JT, keep, scale, F), newton_kernels.dense_block_py(JT, keep, scale, F)
    )


@needs_numba
@pytest.mark.parametrize("seed", range(4))
def test_a_solve_takes_the_same_steps_with_either_kernels(seed):
    rng = np.random.default_rng(seed)
    n = 60
    B = rng.standard_normal((n, n // 2))
    M = B @ B.T + 0.3 * (lambda S: S - S.T)(rng.standard_normal((n, n)))
    mcp = MCP.from_lcp(M, rng.uniform(-5.0, 5.0, n))
    fast = solve(mcp, NewtonOptions(kernels="numba"))
    plain = solve(mcp, NewtonOptions(kernels="numpy"))
    assert fast.extras["kernels"] == "numba" and plain.extras["kernels"] == "numpy"
    assert fast.outcome == plain.outcome and fast.iterations == plain.iterations
    assert fast.extras["residual_history"] == plain.extras["residual_history"]
    np.testing.assert_array_equal(fast.x, plain.x)


def test_kernel_option_is_checked(monkeypatch):
    mcp = MCP.from_lcp(np.eye(2), -np.ones(2))
    with pytest.raises(SolverError, match="kernels"):
        solve(mcp, NewtonOptions(kernels="fortran"))
    monkeypatch.setattr(newton_kernels, "AVAILABLE", False)
    with pytest.raises(SolverError, match="fast"):
        solve(mcp, NewtonOptions(kernels="numba"))
    r = solve(mcp, NewtonOptions())  # "auto" falls back to numpy
    assert r.extras["kernels"] == "numpy"
    np.testing.assert_allclose(r.x, [1.0, 1.0])


def cone_inputs(seed: int, k: int, d: int = 3):
    """Cone blocks of ``d`` rows in every case of the projection and on the borders between them:
    sticking, separating, sliding, a_T = 0, c = 0, mu = 0, z exactly on the cone and on its polar."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((k, d)) * rng.choice([1.0, 1e-3, 1e3], (k, 1))
    a = rng.standard_normal((k, d))
    mu = rng.uniform(0.0, 1.2, k)
    rho = rng.uniform(0.1, 2.0, k)
    pick = rng.integers(0, 6, k)
    a[pick == 0, 1:] = 0.0
    c[pick == 1] = 0.0
    mu[pick == 2] = 0.0
    edge = pick >= 4  # c - rho a_hat on the cone (4) or on its polar (5): a = 0, |c_T| = mu c_n
    a[edge] = 0.0
    c[edge, 1:] = [0.6, 0.8] if d == 3 else [0.48, 0.6, 0.64]  # unit tangential parts
    c[pick == 4, 0] = 1.0 / mu[pick == 4]
    c[pick == 5, 0] = -mu[pick == 5]
    return c, a, mu, rho


def numpy_cone_point(c, a, mu, rho):
    from contactmodel.mcp import cones

    R, Da, Db = cones.natural_map(c, a, mu, rho)
    return R, Da, Db, float(np.max(np.abs(cones.residual(c, a, mu)), initial=0.0))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(0, 30), d=st.sampled_from([3, 4]))
def test_python_cone_kernel_matches_the_numpy_code(seed, k, d):
    args = cone_inputs(seed, k, d)
    got = newton_kernels.cone_point_py(*args)
    want = numpy_cone_point(*args)
    for g, w in zip(got[:3], want[:3]):  # the plain Python hypot may differ by a rounding
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15 * max(1.0, float(np.abs(w).max(initial=0.0))))
    scale = max(1.0, float(np.abs(args[0]).max(initial=0.0)))
    assert got[3] == pytest.approx(want[3], rel=1e-13, abs=1e-15 * scale)


@needs_numba
@pytest.mark.parametrize("d", [3, 4])
@pytest.mark.parametrize("seed", range(5))
def test_compiled_cone_kernel_gives_the_numbers_of_the_numpy_code(seed, d):
    args = cone_inputs(seed, 200, d)
    got = newton_kernels.cone_point(*args)
    want = numpy_cone_point(*args)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def cone_jacobian(seed: int, n: int):
    """A canonical CSR J with random rows, a few empty, and a missing diagonal here and there."""
    import scipy.sparse as sp

    J = sp.random(n, n, density=0.08, random_state=seed, format="csr")
    J = J.tolil()
    J[np.random.default_rng(seed).integers(0, n, 3)] = 0.0  # empty rows
    J = J.tocsr()
    J.eliminate_zeros()
    J.sum_duplicates()
    return J


@pytest.mark.parametrize("d", [3, 4])  # rows a cone block
@pytest.mark.parametrize("shuffled", [True, False])  # False: each block's rows in a row, as FCLIB's
@pytest.mark.parametrize("seed", range(4))
def test_cone_pattern_kernel_matches_the_scipy_build(seed, shuffled, d):
    from contactmodel.mcp.types import CoulombBlocks
    from contactmodel.solvers.newton.cones import ConeMethod

    rng = np.random.default_rng(seed)
    k, nbox = 15, 7
    n = d * k + nbox
    perm = rng.permutation(n) if shuffled else np.arange(n)
    index = perm[: d * k].reshape(k, d)
    J = cone_jacobian(seed, n)
    lb = np.where(np.isin(np.arange(n), perm[d * k :]), 0.0, -np.inf)
    cones = CoulombBlocks(index, np.ones(k))
    mcp = MCP(F=lambda x: J @ x, J=lambda x: J, lb=lb, ub=np.full(n, np.inf), cones=cones)
    pats = [ConeMethod(mcp, NewtonOptions(kernels="numpy")).pattern(J)]
    src = pats[0].src
    got = newton_kernels.cone_pattern_py(J.indptr, J.indices, src)
    if newton_kernels.AVAILABLE:
        pats.append(ConeMethod(mcp, NewtonOptions(kernels="numba")).pattern(J))
    for pat in pats:
        for g, w in zip(got, (pat.indptr, pat.rows, pat.gather)):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(pat.dpos, pats[0].dpos)
    # the entries of H at a point, against the numpy code's, for both kernels
    plain = ConeMethod(mcp, NewtonOptions(kernels="numpy"))
    x = rng.standard_normal(n)
    pt = plain.begin_attempt(x)
    pt.db_cone = rng.standard_normal(pt.db_cone.shape)  # every coefficient in play
    want = plain.values(pt, J, 0.3)
    kernels = [newton_kernels.cone_values_py] + (
        [newton_kernels.cone_values] if newton_kernels.AVAILABLE else []
    )
    for kernel in kernels:
        got = kernel(
            J.data, pats[0].rows, pats[0].gather, pats[0].dpos, plain.block, pats[0].order,
            pt.da_box, pt.db_box, pt.da_cone, pt.db_cone, 0.3,
        )  # fmt: skip
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(3))
def test_cone_cut_kernel_matches_the_numpy_code(seed):
    """The kept block's CSC arrays and right-hand side (plain Python, and compiled when numba is
    installed) against numpy's masks and bincount."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n = 40
    H = sp.random(n, n, density=0.2, random_state=seed, format="csc")
    H.data[rng.random(H.nnz) < 0.1] = 0.0  # stored zeros are dropped
    H.sort_indices()
    keep = rng.random(n) < 0.7
    d = np.where(keep, 0.0, rng.standard_normal(n))
    phi = rng.standard_normal(n)
    Hd = H.toarray()
    want_rhs = -phi[keep] - Hd[keep][:, ~keep] @ d[~keep]
    want = sp.csc_matrix(Hd[np.ix_(keep, keep)])
    kernels = [newton_kernels.cone_cut_py] + ([newton_kernels.cone_cut] if newton_kernels.AVAILABLE else [])
    for kernel in kernels:
        indptr, indices, values, rhs = kernel(H.data, H.indices.astype(np.int64), H.indptr, keep, d, phi)
        np.testing.assert_allclose(rhs, want_rhs, rtol=1e-14, atol=1e-14)
        np.testing.assert_array_equal(indptr, want.indptr)
        np.testing.assert_array_equal(indices, want.indices)
        np.testing.assert_array_equal(values, want.data)
