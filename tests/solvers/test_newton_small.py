"""newton's compiled small-problem loop (newton/small.py) takes the iterates of the numpy path:
the same iterations, counters, residual history and answer on FCLIB files and on random small cone
problems with and without box rows, regular and rank-deficient (LM, gradient, watchdog)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_limits

import contactmodel as cm
from contactmodel.io.fclib import read_fclib, to_problem
from contactmodel.io.siconos_fc import read_siconos
from contactmodel.mcp.types import MCP, CoulombBlocks
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.newton import NewtonOptions, small, solve
from contactmodel.solvers.newton import kernels as newton_kernels

pytestmark = pytest.mark.skipif(not newton_kernels.AVAILABLE, reason="numba not installed (extra 'fast')")

FCLIB = Path(__file__).resolve().parents[1] / "data" / "fclib"
COUNTERS = ("factorizations", "lm_steps", "gradient_steps", "watchdog_restarts", "restarts", "f_evals")
FILES = [
    "Confeti-ex13-4contact-Fc3D-SBM.dat",
    "FrictionContact3D_RR_1c.dat",
    "GFC3D_OneContact.dat",
    "NESpheres_10_1.dat",
    "OneObject-i100000-499.hdf5.dat",
    "OneObject-i1028-138.hdf5.dat",
    "Rover1039.dat",
    "BoxesStack1-i100000-32.hdf5.dat",
    "LMGC_GFC3D-i00501-4-00000.hdf5",
    "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5",  # dense at 180 rows
]


def both(mcp, **options):
    """The numpy path's result and the compiled loop's on the same MCP, with one BLAS thread as
    ``cm.solve`` runs them (a threaded BLAS sums the numpy path's products in another order)."""
    with threadpool_limits(limits=1, user_api="blas"):
        ref = solve(mcp, NewtonOptions(kernels="numpy", **options))
        fast = solve(mcp, NewtonOptions(kernels="numba", **options))
    return ref, fast


def assert_same(ref, fast, rtol=1e-12):
    if ref.extras.get("start_solved"):  # solved at the start: no attempt on either path
        assert fast.extras.get("start_solved") and np.array_equal(fast.x, ref.x)
        return
    assert ref.extras["compiled_attempts"] == 0
    assert fast.extras["compiled_attempts"] >= 1
    assert fast.outcome is ref.outcome and fast.iterations == ref.iterations
    assert {k: fast.extras[k] for k in COUNTERS} == {k: ref.extras[k] for k in COUNTERS}
    history = fast.extras["residual_history"], ref.extras["residual_history"]
    # residuals at the rounding level (a few 1e-16 of the problem's scale) agree only there
    floor = 8 * np.finfo(float).eps * max(1.0, max(history[1], default=0.0))
    np.testing.assert_allclose(*history, rtol=rtol, atol=floor)
    scale = max(1.0, float(np.abs(ref.x).max()))
    np.testing.assert_allclose(fast.x, ref.x, rtol=0, atol=rtol * scale)


def fclib_mcp(name: str):
    path = FCLIB / name
    if path.suffix == ".hdf5":
        pytest.importorskip("h5py")
        loc = read_fclib(path).to_local()
    else:
        loc = read_siconos(path).to_local()
    loc = replace(loc, q=loc.q / max(float(np.linalg.norm(loc.q)), 1e-300))
    laws = [cm.CoulombCone(float(m), form="soc") for m in loc.mu]
    return to_problem(loc, friction=laws).compile().mcp


def test_fclib_files_take_the_same_iterates():
    for name in FILES:
        ref, fast = both(fclib_mcp(name), tol=1e-8)
        assert ref.outcome is Outcome.CONVERGED, name
        assert_same(ref, fast)


def random_fc3d(seed: int, nc: int, rank: int, nbox: int = 0, d: int = 3):
    """The MCP of W = G G^T (+ a small skew part) of ``rank`` columns, q pressing in, mu in
    (0.1, 1), and ``nbox`` box rows (free, lower-bounded, two-sided) after the cone blocks of
    ``d`` rows each (3, or 4: a soft finger's)."""
    rng = np.random.default_rng(seed)
    n = d * nc + nbox
    G = rng.standard_normal((n, rank + nbox))
    W = G @ G.T + 1e-3 * (lambda A: A - A.T)(rng.standard_normal((n, n)))
    return _fc3d_mcp(sp.csr_matrix(W), rng, nc, nbox, d)


def _fc3d_mcp(M: sp.csr_matrix, rng: np.random.Generator, nc: int, nbox: int, d: int = 3) -> MCP:
    """The MCP of matrix ``M`` with nc cone blocks of ``d`` rows then ``nbox`` box rows (free,
    lower-bounded, two-sided): q pressing in, mu in (0.1, 1)."""
    q = rng.standard_normal(d * nc + nbox)
    q[: d * nc : d] -= rng.uniform(0.0, 2.0, nc)
    mu = rng.uniform(0.1, 1.0, nc)
    kind = rng.integers(0, 3, nbox)
    lb = np.concatenate([np.full(d * nc, -np.inf), np.where(kind == 0, -np.inf, 0.0)])
    ub = np.concatenate([np.full(d * nc, np.inf), np.where(kind == 2, 1.0, np.inf)])
    blocks = CoulombBlocks(np.arange(d * nc).reshape(nc, d), mu)
    return MCP(F=lambda x: M @ x + q, J=lambda x: M, lb=lb, ub=ub, M=M, q=q, cones=blocks)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    nc=st.integers(1, 12),
    nbox=st.integers(0, 6),
    deficit=st.integers(0, 6),
    regularize=st.sampled_from(["auto", "always", "never"]),
    memory=st.sampled_from([1, 3, 8]),
)
def test_random_cone_problems_take_the_same_iterates(seed, nc, nbox, deficit, regularize, memory):
    mcp = random_fc3d(seed, nc, max(1, 3 * nc - deficit), nbox)
    opts = dict(regularize=regularize, nonmonotone_memory=memory, max_iter=60)
    assert_same(*both(mcp, restarts=False, liftoff_rounds=0, **opts))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    nc=st.integers(1, 10),
    nbox=st.integers(0, 4),
    deficit=st.integers(0, 8),
    memory=st.sampled_from([1, 3, 8]),
)
def test_random_four_row_cone_problems_take_the_same_iterates(seed, nc, nbox, deficit, memory):
    """Blocks of four rows (n, t, o, r; a soft finger's): the same kernels, the same iterates."""
    mcp = random_fc3d(seed, nc, max(1, 4 * nc - deficit), nbox, d=4)
    opts = dict(nonmonotone_memory=memory, max_iter=60, restarts=False, liftoff_rounds=0)
    ref, fast = both(mcp, **opts)
    assert_same(ref, fast)
    if not ref.extras.get("start_solved"):
        assert_identical(python_loop(mcp, **opts), fast)


def test_the_hard_rungs_run_and_agree():
    """Rank-deficient problems with a short memory: LM, gradient steps and watchdog returns occur
    and the compiled loop takes them as the numpy path does."""
    seen = dict.fromkeys(("lm_steps", "gradient_steps", "watchdog_restarts"), 0)
    for seed in range(30):
        mcp = random_fc3d(seed, 6, 8, nbox=seed % 3)
        ref, fast = both(mcp, nonmonotone_memory=2, max_iter=40, restarts=False, liftoff_rounds=0)
        assert_same(ref, fast)
        for key in seen:
            seen[key] += ref.extras[key]
    assert all(v > 0 for v in seen.values()), seen


def test_limits_end_the_compiled_attempt_as_the_loop_does():
    mcp = random_fc3d(3, 8, 24)
    ref, fast = both(mcp, max_iter=2, restarts=False, liftoff_rounds=0)
    assert ref.outcome is Outcome.ITERATION_LIMIT
    assert_same(ref, fast)
    fast = solve(mcp, NewtonOptions(kernels="numba", time_limit=1e-9))
    assert fast.outcome is Outcome.TIME_LIMIT and "time limit" in fast.message


def test_the_numpy_option_and_a_non_affine_problem_keep_the_python_loop():
    mcp = random_fc3d(1, 3, 9)
    assert solve(mcp, NewtonOptions(kernels="numpy")).extras["compiled_attempts"] == 0
    nonaffine = replace(mcp, M=None, q=None)  # F given only as a function
    res = solve(nonaffine, NewtonOptions(kernels="numba"))
    assert res.outcome is Outcome.CONVERGED and res.extras["compiled_attempts"] == 0


def test_lm_dense_solves_the_levenberg_marquardt_system():
    rng = np.random.default_rng(0)
    H, phi = rng.standard_normal((5, 5)), rng.standard_normal(5)
    d = small.lm_dense(H, phi, 1e-3)
    mu = 1e-3 * np.linalg.norm(phi)
    N = H.T @ H + mu * np.eye(5)
    np.testing.assert_allclose(N @ d, -H.T @ phi, atol=1e-12)
    # LAPACK called directly: SciPy's Cholesky wrappers give the same numbers
    assert np.array_equal(d, sla.cho_solve(sla.cho_factor(N), -H.T @ phi))
    assert small.lm_dense(np.zeros((3, 3)), np.zeros(3), 1e-3) is not None  # mu >= 1e-14
    assert small.lm_dense(np.full((2, 2), np.nan), np.ones(2), 1e-3) is None


def test_clear_setup_cache_empties_the_methods_tables():
    from contactmodel.solvers.newton import core

    table = core.kept_table()
    table["key"] = "kept"
    core.clear_setup_cache()
    assert table == {}


@pytest.mark.parametrize("seed", range(6))
def test_compiled_row_scales_match_the_numpy_code(seed):
    from contactmodel.solvers.newton.cones import ConeMethod

    mcp = random_fc3d(seed, 5, 15, nbox=3, d=3 + seed % 2)
    rng = np.random.default_rng(seed)
    J = sp.random(mcp.n, mcp.n, density=0.3, random_state=seed, format="csr") * 10.0 ** rng.integers(-3, 4)
    J = J.tolil()
    J[rng.integers(mcp.n), :] = 0.0  # an empty row
    J[rng.integers(mcp.n), rng.integers(mcp.n)] = [np.inf, np.nan][seed % 2]  # not finite
    J = J.tocsr()
    got = []
    for kernels in ("numba", "numpy"):
        method = ConeMethod(mcp, NewtonOptions(kernels=kernels))
        method.set_scaling(J, True)
        got.append((method.j_scale, method.s_box, method.rho))
    assert got[0][0] == got[1][0] and type(got[0][0]) is float
    np.testing.assert_array_equal(got[0][1], got[1][1])
    np.testing.assert_array_equal(got[0][2], got[1][2])
    plain = newton_kernels.cone_scales_py(J.data, J.indptr, method.box, method.idx)
    assert plain[0] == got[1][0]
    np.testing.assert_array_equal(plain[2], got[1][2])


@pytest.mark.parametrize("seed", range(4))
def test_sparse_product_kernels_give_scipys_numbers(seed):
    rng = np.random.default_rng(seed)
    A = sp.random(40, 30, density=0.2, random_state=seed, format="csr")
    A = sp.csr_matrix(A.multiply(10.0 ** rng.uniform(-3, 3, (40, 1))))
    x, v = rng.standard_normal(30), rng.standard_normal(40)
    for kernel in (newton_kernels.csr_matvec, newton_kernels.csr_matvec_py):
        assert np.array_equal(kernel(A.data, A.indices, A.indptr, x), A @ x)
    for kernel in (newton_kernels.csr_rmatvec, newton_kernels.csr_rmatvec_py):
        assert np.array_equal(kernel(A.data, A.indices, A.indptr, v, 30), A.T @ v)


def random_sparse_fc3d(seed: int, nc: int, deficit: int = 0, nbox: int = 0, d: int = 3):
    """:func:`random_fc3d`'s kind of problem with a sparse W (each row a few bodies' worth of
    entries), large enough for newton's sparse path (n > 150, J below 15 % full): its kept block
    is factored by SuperLU."""
    rng = np.random.default_rng(seed)
    n = d * nc + nbox
    G = sp.random(n, max(1, n - deficit), density=4.0 / n, random_state=seed, format="csr")
    S = sp.random(n, n, density=0.01, random_state=seed + 1, format="csr")
    W = (G @ G.T + 1e-3 * (S - S.T) + 1e-6 * sp.eye(n)).tocsr()
    W.sum_duplicates()
    return _fc3d_mcp(W, rng, nc, nbox, d)


def python_loop(mcp, **options):
    """newton with the compiled kernels but the attempts in the interpreter (``core.iterate``): the
    loop the compiled attempt replaces."""
    from contactmodel.solvers.newton.cones import ConeMethod

    keep = ConeMethod.compiled_attempt
    ConeMethod.compiled_attempt = lambda *args, **kwargs: None
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            return solve(mcp, NewtonOptions(kernels="numba", **options))
    finally:
        ConeMethod.compiled_attempt = keep


def assert_identical(loop, fast):
    """The same run bit for bit: outcome, iterations, counters, residual history and answer."""
    assert loop.extras["compiled_attempts"] == 0 and fast.extras["compiled_attempts"] >= 1
    assert fast.outcome is loop.outcome and fast.iterations == loop.iterations
    assert {k: fast.extras[k] for k in (*COUNTERS, "regularized")} == {
        k: loop.extras[k] for k in (*COUNTERS, "regularized")
    }
    assert fast.extras["residual_history"] == loop.extras["residual_history"]
    assert fast.x.tobytes() == loop.x.tobytes()


@pytest.mark.parametrize(
    "seed, nc, deficit, nbox, memory, d",
    [
        (0, 60, 0, 0, 8, 3),
        (1, 70, 0, 5, 8, 3),
        (2, 55, 30, 3, 3, 3),
        (3, 80, 60, 0, 2, 3),
        (4, 60, 40, 6, 1, 3),
        (5, 45, 0, 3, 8, 4),
        (6, 50, 40, 0, 2, 4),
    ],
)
def test_the_sparse_path_compiled_takes_the_loop_s_iterates(seed, nc, deficit, nbox, memory, d):
    """On the sparse path (SuperLU) the compiled attempt takes the interpreter loop's steps bit for
    bit, and the numpy path's to rounding (blocks of 3 rows and of 4)."""
    from contactmodel.solvers.newton.cones import ConeMethod

    mcp = random_sparse_fc3d(seed, nc, deficit, nbox, d)
    method = ConeMethod(mcp, NewtonOptions())
    assert method.dense_J(mcp.M) is None  # the sparse path
    opts = dict(nonmonotone_memory=memory, max_iter=60, restarts=False, liftoff_rounds=0)
    loop = python_loop(mcp, **opts)
    ref, fast = both(mcp, **opts)
    assert_identical(loop, fast)
    assert_same(ref, fast)


def test_the_sparse_path_s_hard_rungs_run_and_agree():
    """Rank-deficient sparse problems with a short memory: the compiled attempt's LM (by SuperLU),
    gradient steps and watchdog returns are the interpreter loop's."""
    seen = dict.fromkeys(("lm_steps", "gradient_steps", "watchdog_restarts"), 0)
    for seed, deficit, memory in [(s, 120, 2) for s in range(4)] + [(0, 150, 1)]:
        mcp = random_sparse_fc3d(seed, 55, deficit, nbox=seed % 3)
        opts = dict(nonmonotone_memory=memory, max_iter=20, restarts=False, liftoff_rounds=0)
        loop = python_loop(mcp, **opts)
        fast = solve(mcp, NewtonOptions(kernels="numba", **opts))
        assert_identical(loop, fast)
        for key in seen:
            seen[key] += loop.extras[key]
    assert all(v > 0 for v in seen.values()), seen
