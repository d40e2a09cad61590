"""Scenes of the fuzz benchmark (``benchmarks/fuzz_run.py --seed 1``) that ipopt and fip did not
solve with a single attempt, newton did: ipopt's restart ladder and fip's perturbed start and
crossover solve them (ipopt's ladder as it is, whose first restart is the linearized start, and
with Ipopt's own starts only). Each answer is judged by the dispatcher's own residual and by the
independent Newton-Euler and friction-law check of ``scenes.check_answer``."""

from __future__ import annotations

import pytest
from scenes import LAWS, NumpyDraw, check_answer, draw_scene

import contactmodel as cm
from contactmodel.solvers.ipopt import IpoptOptions


def scene(i: int):
    """Scene i of ``fuzz_run.py --seed 1`` (its default sizes)."""
    return draw_scene(NumpyDraw([1, i]), max_boxes=4, max_contacts=8, laws=LAWS)


def assert_solved(sc, sol: cm.Solution) -> None:
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.residual <= 1e-8
    verdict = check_answer(sc, sol, 1e-6)
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"


@pytest.mark.parametrize(("i", "rung"), [(215, "interior"), (320, "interior"), (393, "feasible")])
def test_ipopt_ladder_solves_where_one_attempt_stops_at_a_stationary_point(i: int, rung: str) -> None:
    pytest.importorskip("cyipopt")
    sc = scene(i)
    problem = sc.problem()
    single = cm.solve(problem, solver="ipopt", restarts=(), random_starts=0, fallback=False)
    assert single.status is cm.Status.FAILED
    assert "non-global stationary point of MNCPOpt" in single.message
    own = tuple(r for r in IpoptOptions().restarts if r != "linearized")  # Ipopt's own starts only
    sol = cm.solve(problem, solver="ipopt", restarts=own, fallback=False)
    assert_solved(sc, sol)
    assert sol.extras["solved_by"] == rung
    assert [a["name"] for a in sol.extras["attempts"]][0] == "first"
    sol = cm.solve(problem, solver="ipopt", fallback=False)  # the default ladder
    assert_solved(sc, sol)
    assert [a["name"] for a in sol.extras["attempts"]] == ["first", "linearized"]


@pytest.mark.parametrize("i", [13, 17, 22])
def test_fip_solves_lcps_without_a_strictly_feasible_point(i: int) -> None:
    """FIP's assumption (b) fails (phase one's t* = 0); the perturbed LCP's pattern gives the vertex."""
    sc = scene(i)
    problem = sc.problem()
    plain = cm.solve(problem, solver="fip", perturb=0.0, fallback=False)
    assert plain.status is cm.Status.FAILED and "no strictly feasible point" in plain.message
    sol = cm.solve(problem, solver="fip", fallback=False)
    assert_solved(sc, sol)
    assert sol.extras["perturbation"] > 0.0 and sol.extras["crossover"]


@pytest.mark.parametrize("i", [100, 106, 135])
def test_fip_crossover_solves_degenerate_resting_scenes_exactly(i: int) -> None:
    """Stopped at the paper's gap 1e-6 the interior point is solved-inaccurate; the crossover's vertex
    is exact."""
    sc = scene(i)
    problem = sc.problem()
    loose = {"epsilon": 1e-6, "tol": 1e-6}  # the paper's gap
    assert cm.solve(problem, solver="fip", crossover=False, **loose).status is cm.Status.SOLVED_INACCURATE
    sol = cm.solve(problem, solver="fip", **loose)
    assert_solved(sc, sol)
    assert sol.extras["crossover"]


@pytest.mark.parametrize("i", [139, 209, 329])
def test_ipopt_polish_corrects_the_active_set_at_degenerate_resting_scenes(i: int) -> None:
    """Ipopt's barrier leaves u_i, F_i(x) ~ 1e-5 where the solution has u_i = 0 and a small F_i > 0:
    its point (natural residual above tol) is not accepted, and the first active-set Newton step,
    taking u_i > F_i as inactive, is worse; the steps after it correct the active set."""
    pytest.importorskip("cyipopt")
    sc = scene(i)
    sol = cm.solve(sc.problem(), solver="ipopt", restarts=(), random_starts=0, fallback=False)
    assert_solved(sc, sol)
    assert sol.extras["natural_residual_nlp"] > 1e-8 and sol.extras["polish_steps"] >= 2
