"""newton's compiled small-problem loop (newton/small_box.py) on MCPs of linear and quadratic rows
(``MCP.quadratic``: the cone's MNCP, the anisotropic cone, the soft-finger ellipsoids) takes the
iterates of the numpy path: the same iterations, counters, residual history and answer, on random
quadratic MCPs (every option of the loop) and on the laws' contact problems, as posed and
normalized as ``cm.solve`` runs them."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

import contactmodel as cm
from contactmodel.experiments.generators import random_boxes
from contactmodel.mcp.compiled import Functions, Terms
from contactmodel.mcp.scale import normalized
from contactmodel.mcp.types import MCP, QuadraticRows
from contactmodel.solvers.newton import NewtonOptions, small_box, solve
from contactmodel.solvers.newton import kernels as newton_kernels
from tests.simulation.scenes import QUADRATIC_LAWS

pytestmark = pytest.mark.skipif(not newton_kernels.AVAILABLE, reason="numba not installed (extra 'fast')")

COUNTERS = (
    "factorizations", "lm_steps", "gradient_steps", "watchdog_restarts", "restarts", "f_evals", "j_evals",
    "refine_steps", "polish_steps", "polish_kept", "chord_steps", "regularized",
)  # fmt: skip


def both(mcp, **options):
    """The numpy path's result and the compiled loop's, with one BLAS thread as ``cm.solve`` runs
    them."""
    with threadpool_limits(limits=1, user_api="blas"):
        ref = solve(mcp, NewtonOptions(kernels="numpy", **options))
        fast = solve(mcp, NewtonOptions(kernels="numba", **options))
    return ref, fast


def assert_same(ref, fast):
    """Bit for bit, the J evaluations (one an iteration) counted as the numpy path counts them."""
    if ref.extras.get("start_solved"):  # solved at the start: no attempt on either path
        assert fast.extras.get("start_solved") and np.array_equal(fast.x, ref.x)
        return
    assert ref.extras["compiled_attempts"] == 0
    assert fast.extras["compiled_attempts"] >= 1 or ref.iterations == 0
    assert fast.outcome is ref.outcome and fast.iterations == ref.iterations
    assert {k: fast.extras[k] for k in COUNTERS} == {k: ref.extras[k] for k in COUNTERS}
    assert fast.extras["residual_history"] == ref.extras["residual_history"]
    assert np.array_equal(fast.x, ref.x)


def random_quadratic(seed: int, n: int, terms: int, free: int, squares: bool, zeros: int = 0) -> MCP:
    """F(x) = M x + q + quadratic terms, ``M = G G^T + (A - A^T) / 2`` with a third of its entries
    dropped, ``terms`` random products (squares among them) of random rows, none repeated at a
    position more than twice, ``zeros`` entries of q 0 (degenerate at the start); the first
    ``free`` rows without bounds, the others x >= 0."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, n))
    A = rng.standard_normal((n, n))
    M = G @ G.T / n + 0.5 * (A - A.T)
    M[rng.random((n, n)) < 0.33] = 0.0
    qi = rng.integers(0, n, terms)
    qa = rng.integers(0, n, terms)
    qb = qa.copy() if squares else rng.integers(0, n, terms)
    if not squares:
        qb[: terms // 3] = qa[: terms // 3]
    # at most two terms at a position (the Jacobian's fill): drop the others
    seen: dict[int, int] = {}
    keep = []
    for k in range(terms):
        at = [qi[k] * n + qa[k], qi[k] * n + qb[k]]
        if all(seen.get(p, 0) + at.count(p) <= 2 for p in at):
            for p in at:
                seen[p] = seen.get(p, 0) + 1
            keep.append(k)
    keep = np.array(keep, dtype=int)
    qv = rng.uniform(-1.0, 1.0, terms)[keep]
    q = rng.standard_normal(n)
    q[rng.permutation(n)[:zeros]] = 0.0
    functions = Functions(Terms(sp.csr_matrix(M), qi[keep], qa[keep], qb[keep], qv, []), q)
    lb = np.where(np.arange(n) < free, -np.inf, 0.0)
    return MCP(
        F=functions.F,
        J=functions.J,
        lb=lb,
        ub=np.full(n, np.inf),
        x0=np.maximum(rng.standard_normal(n), lb),
        M=None,
        q=None,
        hess=functions.hess,
        quadratic=QuadraticRows(functions.quadratic_parts),
    )


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(1, 25),
    terms=st.integers(1, 40),
    free=st.integers(0, 4),
    squares=st.booleans(),
    scale=st.sampled_from([1.0, 2.0**-7]),
    tol=st.sampled_from([1e-10, 1e-4]),
    regularize=st.sampled_from(["auto", "always", "never"]),
    polish=st.sampled_from(["auto", "always", "never"]),
    memory=st.sampled_from([1, 3, 8]),
    merit=st.sampled_from(["fb", "penalized_fb"]),
    feasible=st.booleans(),
    restarts=st.booleans(),
)
def test_random_quadratic_mcps_take_the_same_iterates(
    seed, n, terms, free, squares, scale, tol, regularize, polish, memory, merit, feasible, restarts
):  # fmt: skip
    mcp = normalized(random_quadratic(seed, n, terms, min(free, n), squares), scale)
    assert mcp.quadratic is not None and mcp.quadratic.parts() is not None
    opts = dict(
        tol=tol, regularize=regularize, polish=polish, nonmonotone_memory=memory, merit=merit,
        feasible=feasible, restarts=restarts, max_iter=60,
    )  # fmt: skip
    assert_same(*both(mcp, **opts))


def rolling_scenes(law, torsion: bool, count: int) -> list[MCP]:
    """The MCPs of the first ``count`` scenes of ``random_boxes`` (24 pyramid rows) with a rolling
    contact under ``law`` (a sliding contact's rows are linear)."""
    found = []
    for seed in range(40):
        system = random_boxes(seed, 24)
        for contact in system.contacts:
            contact.torsion = torsion
        mcp = cm.formulate(system, friction=law).compile().mcp
        if mcp.M is None:
            found.append(mcp)
        if len(found) == count:
            return found
    raise AssertionError("too few scenes with a rolling contact")


LAWS = QUADRATIC_LAWS


@pytest.mark.parametrize("law", list(LAWS))
def test_the_quadratic_laws_contact_problems_take_the_same_iterates(law):
    """The laws' reduced-form MCPs (random boxes), as posed and normalized by the power of two
    ``cm.solve`` takes; the loop's steps (LM, gradient, watchdog, polish, refinement) occur."""
    make, torsion = LAWS[law]
    seen = dict.fromkeys(("lm_steps", "polish_kept", "refine_steps", "restarts"), 0)
    for mcp in rolling_scenes(make(), torsion, 4):
        assert mcp.M is None and mcp.quadratic.parts() is not None and mcp.n <= small_box.MAX_N
        for scale in (1.0, 2.0**-4):
            ref, fast = both(normalized(mcp, scale), max_iter=80)
            assert_same(ref, fast)
            for key in seen:
                seen[key] += ref.extras[key]
    assert seen["polish_kept"] > 0 and seen["lm_steps"] + seen["refine_steps"] > 0, seen
    if law == "cone_mncp":  # the slack at c_n = 0: linear convergence, refinement steps
        assert seen["refine_steps"] > 0, seen


def test_the_hard_rungs_run_and_agree():
    """Random quadratic MCPs with a short memory, some with a loose tolerance: LM, gradient,
    watchdog and polish steps all occur, and the compiled loop takes them as the numpy path does
    (the refinement steps: the laws' problems above)."""
    keys = ("lm_steps", "gradient_steps", "watchdog_restarts", "polish_kept")
    seen = dict.fromkeys(keys, 0)
    for seed in range(40):
        mcp = random_quadratic(seed, 6 + seed % 10, 3 + seed % 20, seed % 4, seed % 3 == 0, seed % 5)
        opts = dict(nonmonotone_memory=1 + seed % 3, max_iter=40, restarts=False)
        opts.update(tol=1e-4 if seed % 4 == 3 else 1e-10, regularize="never" if seed % 5 == 4 else "auto")
        ref, fast = both(normalized(mcp, 2.0 ** -(seed % 3)), **opts)
        assert_same(ref, fast)
        for key in seen:
            seen[key] += ref.extras[key]
    assert all(v > 0 for v in seen.values()), seen


def test_other_nonlinear_problems_keep_the_python_loop():
    """A nonlinear remainder (the smoothed norm of ``slack="norm"``), three terms at a position,
    or no ``quadratic``: the numpy loop, with the same answer as before."""
    mcp = random_quadratic(3, 8, 12, 2, False)
    assert solve(mcp, NewtonOptions(kernels="numba")).extras["compiled_attempts"] >= 1
    bare = MCP(F=mcp.F, J=mcp.J, lb=mcp.lb, ub=mcp.ub, x0=mcp.x0)
    assert solve(bare, NewtonOptions(kernels="numba")).extras["compiled_attempts"] == 0
    L, q, qi, qa, qb, qv = mcp.quadratic.parts()
    more = Terms(L, np.r_[qi, 0, 0, 0], np.r_[qa, 1, 1, 1], np.r_[qb, 2, 2, 2], np.r_[qv, 1.0, 1.0, 1.0], [])
    three = Functions(more, q)
    assert three.quadratic_parts() is None
    (norm,) = rolling_scenes(cm.CoulombCone(0.5, form="mncp", slack="norm"), False, 1)
    assert norm.quadratic is None
    assert solve(norm, NewtonOptions(kernels="numba")).extras["compiled_attempts"] == 0
