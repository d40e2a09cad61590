"""newton's compiled kernels give the numbers of its numpy code (the plain Python versions run
without numba; the compiled ones when numba is installed)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.errors import SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers import newton_kernels
from contactmodel.solvers.newton import NewtonOptions, _Box, solve

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
