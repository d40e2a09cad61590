"""newton's compiled small-problem loop for box MCPs (newton/small_box.py) takes the iterates of the
numpy path: the same iterations, counters, residual history and answer on random LCPs (regular,
rank-deficient, degenerate; every option of the loop) and on friction-pyramid contact problems."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

import contactmodel as cm
from contactmodel.experiments.generators import random_boxes
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.newton import NewtonOptions, box_matrix, small_box, solve
from contactmodel.solvers.newton import kernels as newton_kernels

pytestmark = pytest.mark.skipif(not newton_kernels.AVAILABLE, reason="numba not installed (extra 'fast')")

COUNTERS = (
    "factorizations", "lm_steps", "gradient_steps", "watchdog_restarts", "restarts", "f_evals",
    "refine_steps", "polish_steps", "polish_kept", "chord_steps", "regularized",
)  # fmt: skip


def both(mcp, **options):
    """The numpy path's result and the compiled loop's, with one BLAS thread as ``cm.solve`` runs
    them (a threaded BLAS sums the numpy path's products in another order)."""
    with threadpool_limits(limits=1, user_api="blas"):
        ref = solve(mcp, NewtonOptions(kernels="numpy", **options))
        fast = solve(mcp, NewtonOptions(kernels="numba", **options))
    return ref, fast


def assert_same(ref, fast):
    """Bit for bit: the compiled loop performs the numpy path's floating-point operations in the
    same order, on the same LAPACK routines."""
    if ref.extras.get("start_solved"):  # solved at the start: no attempt on either path
        assert fast.extras.get("start_solved") and np.array_equal(fast.x, ref.x)
        return
    assert ref.extras["compiled_attempts"] == 0
    assert fast.extras["compiled_attempts"] >= 1 or ref.iterations == 0  # solved at the start
    assert fast.outcome is ref.outcome and fast.iterations == ref.iterations
    assert {k: fast.extras[k] for k in COUNTERS} == {k: ref.extras[k] for k in COUNTERS}
    assert fast.extras["residual_history"] == ref.extras["residual_history"]
    assert np.array_equal(fast.x, ref.x)


def random_lcp(
    seed: int, n: int, rank: int, skew: float, zeros: int = 0, shift: float = 0.0, free: int = 0
) -> MCP:
    """The LCP of ``M = G G^T + skew (A - A^T) + shift I`` (``G`` of ``rank`` columns: singular
    below n; not monotone for ``shift < 0``) and ``q`` with ``zeros`` entries 0 (degenerate:
    x_i = F_i = 0 at the start); a mixed LCP when ``free`` rows (the first) have no bounds."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, rank))
    A = rng.standard_normal((n, n))
    M = G @ G.T + skew * (A - A.T) + shift * np.eye(n)
    q = rng.standard_normal(n)
    q[rng.permutation(n)[:zeros]] = 0.0
    lcp = MCP.from_lcp(sp.csr_matrix(M), q)
    return replace(lcp, lb=np.where(np.arange(n) < free, -np.inf, 0.0)) if free else lcp


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(1, 30),
    deficit=st.integers(0, 8),
    skew=st.sampled_from([0.0, 1e-3, 0.5]),
    zeros=st.integers(0, 4),
    shift=st.sampled_from([0.0, -0.3]),
    free=st.integers(0, 3),
    tol=st.sampled_from([1e-10, 1e-3]),
    regularize=st.sampled_from(["auto", "always", "never"]),
    polish=st.sampled_from(["auto", "always", "never"]),
    memory=st.sampled_from([1, 3, 8]),
    merit=st.sampled_from(["fb", "penalized_fb"]),
    feasible=st.booleans(),
    chord_steps=st.sampled_from([0, 2]),
    restarts=st.booleans(),
)
def test_random_lcps_take_the_same_iterates(
    seed, n, deficit, skew, zeros, shift, free, tol, regularize, polish, memory, merit, feasible, chord_steps,
    restarts,
):  # fmt: skip
    mcp = random_lcp(seed, n, max(1, n - deficit), skew, zeros, shift, free)
    opts = dict(
        tol=tol, regularize=regularize, polish=polish, nonmonotone_memory=memory, merit=merit,
        feasible=feasible, chord_steps=chord_steps, restarts=restarts, max_iter=60,
    )  # fmt: skip
    assert_same(*both(mcp, **opts))


@pytest.mark.parametrize(
    ("size", "form"), [(12, "reduced"), (40, "reduced"), (100, "reduced"), (40, "sparse")]
)
def test_pyramid_contact_problems_take_the_same_iterates(size, form):
    """The LCP of the pyramid law (reduced form) and its mixed LCP (sparse form: free rows)."""
    for seed in range(4):
        problem = cm.formulate(random_boxes(seed, size), friction=cm.Pyramid(0.5), form=form)
        mcp = problem.compile().mcp
        assert np.isneginf(mcp.lb).any() == (form == "sparse")
        assert mcp.n <= small_box.MAX_N
        ref, fast = both(mcp, tol=1e-10)
        assert ref.outcome is Outcome.CONVERGED
        assert_same(ref, fast)


def test_the_hard_rungs_run_and_agree():
    """Rank-deficient, skew and non-monotone LCPs with a short memory, some with a loose tolerance:
    LM, gradient, watchdog, polish, chord and refinement steps all occur, and the compiled loop
    takes them as the numpy path does."""
    keys = ("lm_steps", "gradient_steps", "watchdog_restarts", "polish_kept", "chord_steps", "refine_steps")
    seen = dict.fromkeys(keys, 0)
    for seed in range(40):
        shift = -0.3 * (seed % 2)
        mcp = random_lcp(seed, 16 - 4 * (seed % 2), 6 + seed % 8, 0.3 * (seed % 3), seed % 4, shift)
        opts = dict(nonmonotone_memory=1 + seed % 3, max_iter=40, restarts=False, pivot_fallback=False)
        opts.update(tol=1e-3 if seed % 4 == 3 else 1e-10, regularize="never" if seed % 5 == 4 else "auto")
        ref, fast = both(mcp, **opts)
        assert_same(ref, fast)
        for key in seen:
            seen[key] += ref.extras[key]
    assert all(v > 0 for v in seen.values()), seen


def test_limits_end_the_compiled_attempt_as_the_loop_does():
    mcp = random_lcp(3, 20, 12, 0.5)
    ref, fast = both(mcp, max_iter=2, restarts=False, pivot_fallback=False)
    assert ref.outcome is Outcome.ITERATION_LIMIT
    assert_same(ref, fast)
    fast = solve(mcp, NewtonOptions(kernels="numba", time_limit=1e-9))
    assert fast.outcome is Outcome.TIME_LIMIT and "time limit" in fast.message
    assert fast.extras["compiled_attempts"] == 1


def test_other_problems_keep_the_python_loop():
    mcp = random_lcp(1, 10, 10, 0.0)
    assert solve(mcp, NewtonOptions(kernels="numba")).extras["compiled_attempts"] == 1
    solved = solve(mcp, NewtonOptions(kernels="numba", x0=solve(mcp).x))  # a warm start
    assert solved.iterations == 0 and solved.extras["start_solved"]
    assert solve(mcp, NewtonOptions(kernels="numpy")).extras["compiled_attempts"] == 0
    nonaffine = replace(mcp, M=None, q=None)  # F given only as a function
    res = solve(nonaffine, NewtonOptions(kernels="numba"))
    assert res.outcome is Outcome.CONVERGED and res.extras["compiled_attempts"] == 0
    upper = replace(mcp, ub=np.full(10, 5.0))  # two-sided bounds
    assert solve(upper, NewtonOptions(kernels="numba")).extras["compiled_attempts"] == 0
    big = random_lcp(2, small_box.MAX_N + 1, small_box.MAX_N + 1, 0.0)
    res = solve(big, NewtonOptions(kernels="numba"))
    assert res.outcome is Outcome.CONVERGED and res.extras["compiled_attempts"] == 0


@pytest.mark.parametrize("n", [6, box_matrix.DENSE_N + 10], ids=["dense", "sparse"])
def test_lm_box_solves_the_levenberg_marquardt_system(n):
    """Both branches (dense up to DENSE_N rows, sparse products beyond) solve the LM equations,
    and the numpy loop's route (the Assembler's H^T) gives the same step."""
    rng = np.random.default_rng(0)
    density = 0.5 if n < 20 else 0.03
    J = sp.random(n, n, density=density, random_state=1, format="csr") + sp.eye(n, format="csr")
    J.sort_indices()
    da, db, phi = rng.uniform(0, 1, n), rng.uniform(0, 1, n), rng.standard_normal(n)
    d = box_matrix.lm_box(J.data, J.indices, J.indptr, da, db, phi, 1e-3)
    H = np.diag(da) + np.diag(db) @ J.toarray()
    mu = max(1e-3 * np.linalg.norm(phi), 1e-14 * max(1.0, np.abs(H).max()) ** 2)
    np.testing.assert_allclose((H.T @ H + mu * np.eye(n)) @ d, -H.T @ phi, atol=1e-10)
    same = box_matrix.lm_solve(box_matrix.Assembler(n)(J, da, db), phi, 1e-3)
    assert np.array_equal(same, d)


def test_the_newton_matrix_kept_for_a_pattern_follows_every_new_jacobian():
    """A Jacobian made anew with the same pattern (a nonlinear MCP's, at each iterate) reuses the
    kept pattern of H, and one with another pattern (an entry gone) makes a new one: either way
    the entries of H are those a fresh assembler gives."""
    rng = np.random.default_rng(5)
    n = 12
    dense = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.4)
    da, db = rng.random(n), rng.random(n)
    kept = box_matrix.Assembler(n)
    for step in range(4):
        values = dense * (1.0 + 0.1 * step)
        if step == 3:
            values[np.nonzero(values)[0][0], np.nonzero(values)[1][0]] = 0.0  # another pattern
        J = sp.csr_matrix(values)  # new arrays each time
        fresh = box_matrix.Assembler(n)(J, da, db)
        mine = kept(J, da, db)
        assert np.array_equal(mine.toarray(), fresh.toarray())
        assert np.array_equal(mine.indices, fresh.indices) and np.array_equal(mine.indptr, fresh.indptr)
