"""FIP potential-reduction method: convergence, the strictly feasible start, failure reports."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.errors import SolverError
from contactmodel.io.siconos_lcp import read_lcp
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.fip import FIPOptions, phase_one, solve

BENCH = Path(__file__).resolve().parents[1] / "data" / "lcp"


def lcp_residual(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    return float(np.abs(np.minimum(z, M @ z + q)).max())


@st.composite
def pd_plus_skew(draw) -> tuple[np.ndarray, np.ndarray]:
    """M = A A^T / n + I / 10 + (S - S^T) (positive definite, not symmetric), q random."""
    n = draw(st.integers(1, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    scale = draw(st.sampled_from([0.1, 1.0, 10.0]))
    rng = np.random.default_rng(seed)
    A, S = rng.standard_normal((2, n, n))
    M = A @ A.T / n + 0.1 * np.eye(n) + (S - S.T)
    return M, scale * rng.standard_normal(n)


@settings(max_examples=40, deadline=None)
@given(pd_plus_skew())
def test_fip_converges_on_pd_plus_skew(data: tuple[np.ndarray, np.ndarray]) -> None:
    M, q = data
    r = solve(MCP.from_lcp(M, q), FIPOptions(crossover=False))  # the interior point itself
    assert r.outcome is Outcome.CONVERGED, r.message
    z = r.x
    w = M @ z + q
    assert z.min() > 0.0
    assert w.min() > -1e-9
    assert z @ w <= 1e-6 + 1e-9
    assert lcp_residual(M, q, z) <= 1e-6
    assert r.iterations <= 300
    assert r.extras["start"] in ("scaled-ones", "phase-one")
    # with the crossover (the default): never worse, and exact on these nondegenerate LCPs
    v = solve(MCP.from_lcp(M, q))
    assert v.outcome is Outcome.CONVERGED and lcp_residual(M, q, v.x) <= lcp_residual(M, q, z)
    assert lcp_residual(M, q, v.x) <= 1e-9 * max(1.0, float(np.abs(q).max()))


def test_iterations_reported_and_psi_decreases() -> None:
    rng = np.random.default_rng(7)
    A = rng.standard_normal((20, 20))
    M = A @ A.T / 20 + np.eye(20)
    q = rng.standard_normal(20)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED and 5 <= r.iterations <= 100
    short = solve(MCP.from_lcp(M, q), FIPOptions(max_iter=3))
    assert short.outcome is Outcome.ITERATION_LIMIT and short.iterations == 3
    assert short.extras["gap"] > r.extras["gap"]


def test_given_strictly_feasible_start() -> None:
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-1.0, -1.0])
    r = solve(MCP.from_lcp(M, q), FIPOptions(z0=np.array([1.0, 1.0])))
    assert r.extras["start"] == "z0" and r.outcome is Outcome.CONVERGED
    np.testing.assert_allclose(r.x, [1 / 3, 1 / 3], atol=1e-6)
    r = solve(MCP.from_lcp(M, q), FIPOptions(z0=np.array([0.1, 0.1])))
    assert r.extras["start"] == "scaled-ones" and r.outcome is Outcome.CONVERGED


def test_phase_one_start() -> None:
    """w = (z1 - 2 z2 + 1/2, z2 - 1): no z = s e is strictly feasible, z = (3, 1.5) is."""
    M = np.array([[1.0, -2.0], [0.0, 1.0]])
    q = np.array([0.5, -1.0])
    t, z, _ = phase_one(M, q)
    assert 0.0 < t <= 1.0 and z.min() >= t - 1e-9 and (M @ z + q).min() >= t - 1e-9
    r = solve(MCP.from_lcp(M, q))
    assert r.extras["start"] == "phase-one" and r.extras["phase_one_t"] == pytest.approx(t)
    assert r.outcome is Outcome.CONVERGED
    np.testing.assert_allclose(r.x, [1.5, 1.0], atol=1e-5)


def test_no_strictly_feasible_point_fails_without_the_perturbation() -> None:
    """w_1 = 0 for every z: no strictly feasible point, though z = 0 solves the LCP."""
    M = np.zeros((2, 2))
    q = np.array([0.0, 1.0])
    t, z, _ = phase_one(M, q)
    assert t == pytest.approx(0.0, abs=1e-12)
    r = solve(MCP.from_lcp(M, q), FIPOptions(perturb=0.0))
    assert r.outcome is Outcome.FAILED and r.x is None
    assert "no strictly feasible point: FIP's assumption (b) fails" in r.message
    assert r.extras["phase_one_t"] <= 0.0
    # the perturbed LCP (q + delta e) has strictly feasible points; its pattern's vertex is z = 0
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED and r.extras["perturbation"] > 0.0
    assert lcp_residual(M, q, r.x) <= 1e-12


def test_infeasible_lcp_fails_at_phase_one() -> None:
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    r = solve(MCP.from_lcp(M, [-1.0, -1.0]))
    assert r.outcome is Outcome.FAILED and r.extras["phase_one_t"] < 0.0


@pytest.mark.parametrize(
    "name", ["lcp_mmc.dat", "lcp_tobenna.dat", "lcp_exp_murty2.dat", "lcp_ortiz_block.dat"]
)
def test_bench(name: str) -> None:
    if not (BENCH / name).is_file():
        pytest.skip(f"benchmark data {BENCH / name} not available")
    M, q = read_lcp(BENCH / name)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED
    assert lcp_residual(M, q, r.x) <= 1e-6


def test_bad_options_and_non_lcp() -> None:
    mcp = MCP.from_lcp(np.eye(2), [-1.0, 1.0])
    with pytest.raises(SolverError, match="eta"):
        solve(mcp, FIPOptions(eta=1.0))
    with pytest.raises(SolverError, match="beta0"):
        solve(mcp, FIPOptions(beta0=1.0))
    mcp.ub = np.array([1.0, np.inf])
    with pytest.raises(SolverError, match="only LCPs"):
        solve(mcp)


def test_box_at_rest_under_a_polygon_is_solved_exactly_by_the_crossover() -> None:
    """A unit box resting on four corners with an 8-sided polygon: the interior point stops at the
    gap 1e-6 (relative residual ~1e-8, solved-inaccurate); the vertex of its pattern is exact.
    At rest with no load the friction is 0 and the normal forces carry m g."""
    import contactmodel as cm

    s = cm.System()
    s.add_body("b", 1.0, cm.inertia.box(1.0, [1.0, 1.0, 1.0]), position=[0, 0, 0.5])
    for j, (dx, dy) in enumerate(((0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5))):
        s.add_contact("b", "ground", [dx, dy, 0], [0, 0, 1], friction=cm.Polygonal(0.5, 8), name=f"c{j}")
    problem = cm.formulate(s)
    sol = cm.solve(problem, solver="fip")
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["crossover"] and sol.residual <= 1e-12
    assert abs(sum(c.force[0] for c in sol.contacts) - 9.81) < 1e-9
    assert max(abs(f) for c in sol.contacts for f in c.force[1:]) < 1e-9
    loose = {"epsilon": 1e-6, "tol": 1e-6}  # the paper's gap
    assert cm.solve(problem, solver="fip", crossover=False, **loose).status is cm.Status.SOLVED_INACCURATE


def test_crossover_is_kept_only_when_it_is_better() -> None:
    # M = I, q = (-1, 1): solution z = (1, 0); a point whose pattern is wrong (z_2 > w_2) gives a
    # vertex with z_2 = -1 -> clipped to 0 but w_1 = -1: worse, so the solver keeps its own point
    from contactmodel.solvers.fip import crossover

    M, q = np.eye(2), np.array([-1.0, 1.0])
    assert np.allclose(crossover(M, q, np.array([1.0, 1e-9]), np.array([1e-9, 1.0])), [1.0, 0.0])
    assert crossover(np.zeros((2, 2)), q, np.array([1.0, 1.0]), np.zeros(2)) is None
