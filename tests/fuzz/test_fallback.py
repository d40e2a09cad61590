"""cm.solve's fallback (contactmodel.fallback): a problem newton did not solve as stated is solved in
another statement of the same physics, the answer carried back to the caller's variables and
checked independently; the Solution says which statement solved it.

The scenes are fuzz scenes of seed 1 (``benchmarks/fuzz_run.py``) newton did not solve as stated."""

from __future__ import annotations

import numpy as np
import pytest
from scenes import ALL_LAWS, NumpyDraw, check_answer, draw_scene

import contactmodel as cm
from contactmodel import fallback
from contactmodel.fallback import lcp_start, unloaded_contacts, with_friction_scaled
from contactmodel.reductions import Unloaded
from contactmodel.solve import NEWTON_LAST_TRY, relative_residual


def scene(i: int):
    return draw_scene(NumpyDraw([1, i]))


@pytest.mark.parametrize(
    ("index", "route", "cone_form"),
    [
        (1506, "in the sparse form", "soc"),  # cone, reduced form
        (540, "with the cone in the MNCP form", "mncp"),  # cone (automatic and SOC), sparse form
        (2026, "in the reduced form with the cone in the MNCP form", "mncp"),  # a mix, sparse form
    ],
)
def test_solved_in_another_statement(index: int, route: str, cone_form: str) -> None:
    sc = scene(index)
    problem = sc.problem()
    # newton's lift-off rounds (NewtonOptions.liftoff_rounds) solve scene 1506 as stated: off here
    first = cm.solve(problem, fallback=False, liftoff_rounds=0)
    assert first.status is not cm.Status.SOLVED  # the premise: newton does not solve it as stated
    sol = cm.solve(problem, liftoff_rounds=0)
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["fallback"]["solved_by"] == route
    assert route in sol.message and first.status.value in sol.message
    assert sol.cone_form == cone_form
    assert sol.iterations > first.iterations  # every run counted
    verdict = check_answer(sc, sol, 1e-6)  # the physics, from the declarations
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"
    # x is in the caller's variable order and solves the caller's MCP
    mcp = problem.compile().mcp
    assert sol.x.shape == (mcp.n,)
    assert relative_residual(mcp, sol.x) < 1e-6


def test_liftoff_rounds_solve_scene_1506_as_stated() -> None:
    """The cone scene solved above in another statement is solved as stated once newton's lift-off
    rounds run (the default), with no other statement tried."""
    sc = scene(1506)
    sol = cm.solve(sc.problem())
    assert sol.status is cm.Status.SOLVED, sol.message
    assert "lift-off" in sol.message and "fallback" not in sol.extras
    verdict = check_answer(sc, sol, 1e-6)
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"


def LEMKE(problem: cm.Problem) -> cm.Solution:
    return cm.solve(problem, "lemke", fallback=False)


def torsion_scene(i: int):
    """Scene i of ``benchmarks/fuzz_run.py --max-boxes 6 --torsion`` (seed 1)."""
    return draw_scene(NumpyDraw([1, i]), max_boxes=6, laws=ALL_LAWS)


@pytest.mark.parametrize(
    ("index", "unloaded"),
    [
        (2359, ["b0c2"]),  # 2 boxes, 5 contacts (an EllipticTorsion one separated), sparse form
        (1875, ["b0c1", "b0c5"]),  # 1 box, 14 contacts (Ellipsoid, EllipticTorsion), reduced form
    ],
)
def test_unloaded_soft_finger_contacts_are_solved_frictionless(index: int, unloaded: list[str]) -> None:
    """At a contact with c_n = 0 the soft-finger MNCP's quadratic slack is degenerate: newton meets
    the MCP's tolerance with friction forces there ~sqrt of its residual, which the laws' check
    finds (solved-inaccurate). Those contacts stated frictionless give a solution of the problem."""
    sc = torsion_scene(index)
    problem = sc.problem()
    first = cm.solve(problem, fallback=False)
    assert first.status is cm.Status.SOLVED_INACCURATE  # the premise
    assert first.residual <= 1e-8 < first.checks["law_residual"]  # by the laws' residual alone
    assert unloaded_contacts(problem, first, 1e-8) == unloaded
    sol = cm.solve(problem)
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["fallback"]["solved_by"] == Unloaded(unloaded).label
    assert sol.extras["fallback"]["first_status"] == "solved-inaccurate"
    assert sol.iterations > first.iterations  # every run counted
    verdict = check_answer(sc, sol, 1e-6)  # the physics, from the declarations
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"
    forces = {c.name: c.force for c in sol.contacts}
    for name in unloaded:  # no friction where the normal force is 0
        assert forces[name][0] == pytest.approx(0.0, abs=1e-9)
        assert np.max(np.abs(forces[name][1:])) <= 1e-9
    # x is in the caller's variable order and solves the caller's MCP and laws
    mcp = problem.compile().mcp
    assert sol.x.shape == (mcp.n,)
    assert relative_residual(mcp, sol.x) <= 1e-8 and sol.checks["law_residual"] <= 1e-8


@pytest.mark.parametrize(
    "index",
    [
        2633,  # 1 box, 6 Ellipsoid contacts, reduced form: newton stalls with contacts penetrating
    ],
)
def test_soft_finger_scene_solved_from_the_lcp_surrogate(index: int) -> None:
    """Newton's merit stalls at a local minimum from its default start in every statement; from
    the answer of the problem's LCP surrogate (the pyramid of each round law, solved by Lemke's
    method) it converges."""
    sc = torsion_scene(index)
    problem = sc.problem()
    first = cm.solve(problem, fallback=False)
    assert first.status is not cm.Status.SOLVED  # the premise
    x0 = lcp_start(problem, LEMKE)
    assert x0 is not None and x0.shape == (problem.compile().mcp.n,)
    sol = cm.solve(problem)
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["fallback"]["solved_by"] == "from the LCP surrogate's answer"
    assert sol.iterations > first.iterations
    verdict = check_answer(sc, sol, 1e-6)
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"


def test_an_elliptic_torsion_mncp_scene_is_solved_with_its_ellipse_as_a_cone_block() -> None:
    """Scene 828 (2 boxes, 8 contacts: Ellipsoid, EllipticTorsion, Polygonal, Pyramid; reduced
    form): newton stalls in the MNCP statement and in the sparse form; the retry in the other cone
    form (the EllipticTorsion contacts' ellipse as a cone block, ``FrictionLaw.restated``) solves
    it, before the LCP surrogate's start is tried (which solved it when that retry took only
    CoulombCone contacts)."""
    sc = torsion_scene(828)
    problem = sc.problem()
    first = cm.solve(problem, fallback=False)
    assert first.status is not cm.Status.SOLVED  # the premise
    sol = cm.solve(problem)
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["fallback"]["solved_by"] == "with the cone in the SOC form"
    verdict = check_answer(sc, sol, 1e-6)
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"
    mcp = problem.compile().mcp  # x in the caller's (MNCP) variable order
    assert sol.x.shape == (mcp.n,) and relative_residual(mcp, sol.x) <= 1e-6


@pytest.mark.parametrize(
    ("index", "rung", "also_tried"),
    [
        # 1 box, 19 Ellipsoid contacts, sparse form: from the LCP surrogate's answer newton stalls
        # with the default merit, converges with the penalized one
        (
            1958,
            f"from the LCP surrogate's answer with {NEWTON_LAST_TRY}",
            ["tried from the LCP surrogate's answer"],
        ),
        # 2 boxes, 7 contacts (EllipticTorsion, SOC cone, Pyramid), sparse form: the LCP surrogate
        # has no answer (Lemke ends on a secondary ray); mu raised from 0.2 mu in four stages
        (1598, "from a friction continuation", []),
    ],
)
def test_scenes_solved_by_the_last_rungs(index: int, rung: str, also_tried: list[str]) -> None:
    """Newton from every earlier start (the statements, the LCP surrogate's answer, the last-try
    options) ends unsolved; the later rungs of cm.solve's ladder solve them."""
    sc = torsion_scene(index)
    problem = sc.problem()
    sol = cm.solve(problem)
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["fallback"]["solved_by"] == rung
    for earlier in ("other statements tried", f"tried again with {NEWTON_LAST_TRY}", *also_tried):
        assert earlier in sol.message  # ... and did not solve it
    verdict = check_answer(sc, sol, 1e-6)  # the physics, from the declarations
    assert verdict.ok, f"{verdict.worst}: {verdict.value:.2e}"


def test_friction_continuation_runs_only_up_to_its_row_cap(monkeypatch) -> None:
    """Scene 1598's continuation solves its stages; with the cap below the scene's rows nothing
    runs and there is no start (cm.solve then ends at the rung before, not solved)."""
    problem = torsion_scene(1598).problem()
    calls = []

    def solve_from(stage, x0):
        calls.append(stage)
        return cm.solve(stage, x0=x0, fallback=False)

    x0, runs = fallback.friction_continuation(problem, solve_from)
    assert x0 is not None and len(runs) == len(calls) == len(fallback.CONTINUATION)
    monkeypatch.setattr(fallback, "CONTINUATION_ROWS", problem.assembly.m - 1)
    calls.clear()
    assert fallback.friction_continuation(problem, solve_from) == (None, [])
    assert not calls
    sol = cm.solve(problem)
    assert sol.status is not cm.Status.SOLVED
    assert "friction continuation" not in sol.message


def test_friction_scaled_problem_scales_every_mu_and_leaves_the_problem_alone() -> None:
    problem = torsion_scene(1598).problem()
    before = {name: law.key for name, law in problem.laws.items()}
    twin = with_friction_scaled(problem, 0.25)
    assert {name: law.key for name, law in problem.laws.items()} == before
    for name, law in problem.laws.items():
        scaled = twin.laws[name]
        assert type(scaled) is type(law)
        assert scaled.mu == pytest.approx(0.25 * law.mu)
        if law.mu:
            assert scaled.key != law.key
    assert twin.form == problem.form and twin.assembly is problem.assembly


@pytest.mark.parametrize("form", ["mncp", "soc"])
def test_the_continuation_scales_both_coefficients_of_the_anisotropic_cone(form) -> None:
    """AnisotropicCone's mu is a property (the larger of mu_t, mu_o): its scaled copy scales both,
    keeps its form, and the continuation's stages run (a step of an anisotropic pile reached it
    and stopped with an AttributeError)."""
    rng = np.random.default_rng(4)
    G = rng.normal(size=(6, 8))
    problem = cm.formulate_from_matrices(
        G @ G.T + 0.1 * np.eye(6), rng.normal(size=6), friction=cm.AnisotropicCone(0.4, 0.2, form=form)
    )
    twin = with_friction_scaled(problem, 0.25)
    for law in twin.laws.values():
        assert (law.mu_t, law.mu_o, law.form) == (pytest.approx(0.1), pytest.approx(0.05), form)
    x0, runs = fallback.friction_continuation(problem, lambda stage, x: cm.solve(stage, x0=x))
    assert x0 is not None and all(run.ok for run in runs)
    assert cm.solve(problem, solver="newton", x0=x0).status is cm.Status.SOLVED


def test_lcp_start_of_a_polyhedral_problem_is_its_solution() -> None:
    """A scene whose laws are polyhedral is its own LCP surrogate: the start solves it (scene 9:
    Pyramid, Polygonal, frictionless contacts; scene 5: Planar ones in the sparse form)."""
    for sc in (scene(9), scene(5)):
        problem = sc.problem()
        assert sc.laws <= {"pyramid", "polygonal", "planar", "frictionless"}  # the premise
        x0 = lcp_start(problem, LEMKE)
        assert relative_residual(problem.compile().mcp, x0) < 1e-9


def test_unsolvable_problem_reports_every_statement_tried() -> None:
    """Scene 2027 (pyramid, sparse form) has no solution (cm.decide proves it): the answer stays
    not solved and names the statements tried."""
    problem = scene(2027).problem()
    first = cm.solve(problem, fallback=False)
    sol = cm.solve(problem)
    assert sol.status is not cm.Status.SOLVED and sol.status is not cm.Status.SOLVED_INACCURATE
    assert "other statements tried: in the reduced form" in sol.message
    assert sol.extras["fallback"]["solved_by"] is None
    assert sol.iterations > first.iterations
    assert np.all(np.isfinite(sol.x))


def test_fallback_option_is_checked() -> None:
    with pytest.raises(cm.ContactModelError, match="fallback"):
        cm.solve(scene(1).problem(), fallback="yes")
