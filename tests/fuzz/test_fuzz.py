"""Fuzzing the public API: random valid scenes are solved or honestly not, random bad inputs raise
only errors of the ContactModelError tree.

Valid scenes (:mod:`scenes`): any exception fails the test; a solved answer must pass the
independent check written in :func:`scenes.check_answer`; a status that is not solved must be one
of the named :class:`contactmodel.Status` values and come with a message.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scenes import ALL_LAWS, applicable, check_answer, draw_scene
from strategies import BAD_VALUES, HypothesisDraw, fuzz_settings

import contactmodel as cm
from contactmodel import solvers

#: solver options that keep one run short (a time-limited run ends as a named status)
LIMITS = {
    "newton": {"time_limit": 3.0},
    "ipopt": {"time_limit": 3.0},
    "scipy": {"max_iter": 2000},
    "fip": {},
    "lemke": {},
    "enumerate": {},
}
#: the solvers fuzzed, in the registry's order
FUZZED = [name for name in solvers.REGISTRY if name in LIMITS]
#: independent-check tolerance by status (relative to the scene's force and acceleration scales)
CHECK_TOL = {cm.Status.SOLVED: 1e-6, cm.Status.SOLVED_INACCURATE: 1e-2}


def solve_and_check(scene, solver: str) -> cm.Solution:
    """Solve ``scene`` with ``solver`` and assert the outcome is honest."""
    sol = cm.solve(scene.problem(), solver=solver, **LIMITS[solver])
    assert isinstance(sol.status, cm.Status)
    if sol.status in CHECK_TOL:
        verdict = check_answer(scene, sol, CHECK_TOL[sol.status])
        assert verdict.ok, f"{solver} {sol.status.value} but {verdict.worst} is off by {verdict.value:.2e}"
    else:
        assert sol.message, f"{solver} ended {sol.status.value} without a message"
    return sol


@fuzz_settings()
@given(st.data())
def test_valid_scene(data) -> None:
    scene = draw_scene(HypothesisDraw(data), max_boxes=3, max_contacts=5, laws=ALL_LAWS)
    solver = data.draw(st.sampled_from(applicable(scene.problem(), FUZZED)), label="solver")
    solve_and_check(scene, solver)


@fuzz_settings(0.5)
@given(st.data(), st.sampled_from(ALL_LAWS))
def test_valid_scene_one_law_every_solver(data, law) -> None:
    """One law for every contact, every applicable solver on the same scene."""
    scene = draw_scene(HypothesisDraw(data), max_boxes=2, max_contacts=4, laws=(law,))
    assert scene.laws == {law}
    for solver in applicable(scene.problem(), FUZZED):
        solve_and_check(scene, solver)


# -- bad input ------------------------------------------------------------------------------------

I3 = np.eye(3)
BODY = dict(
    mass=1.0, inertia=I3, position=(0, 0, 0.5), orientation=None, velocity=(0, 0, 0), wrench=np.zeros(6)
)
CONTACT = dict(point=(0, 0, 0), normal=(0, 0, 1), tangent=None, torsion=False, name="c")
LAW_ARGS = {
    cm.Pyramid: dict(mu=0.5),
    cm.CoulombCone: dict(mu=0.5, slack="quadratic", norm_eps=1e-12, form="mncp"),
    cm.Polygonal: dict(mu=0.5, k=8, offset=0.0),
    cm.Planar: dict(mu=0.5),
    cm.Ellipsoid: dict(mu=0.5, e_t=1.0, e_o=1.0, e_r=1.0, direction="max-work"),
}
MATRICES = dict(A=np.eye(6), b=-np.ones(6), mu=0.5, sliding=None, velocities=None, torsion=False, names=None)
LCP_ARGS = dict(M=np.eye(3), q=np.array([-1.0, 0.5, 1.0]), names=None)
SOLVE_ARGS = dict(accept_tol=1e-8, x0=None, blas_threads=1)


def _body_call(field: str, value) -> None:
    s = cm.System()
    s.add_body("b", **{**BODY, field: value})


def _contact_call(field: str, value) -> cm.Problem:
    s = cm.System()
    s.add_body("b", **BODY)
    args = {**CONTACT, field: value}
    s.add_contact("b", "ground", friction=cm.Pyramid(0.5), **args)
    return cm.formulate(s)


def _law_call(law, field: str, value) -> cm.FrictionLaw:
    return law(**{**LAW_ARGS[law], field: value})


def _system_call(field: str, value) -> cm.Problem:
    s = cm.System(**{field: value})
    s.add_body("b", **BODY)
    s.add_contact("b", "ground", (0, 0, 0), (0, 0, 1), friction=cm.Pyramid(0.5))
    return cm.formulate(s)


def _matrices_call(field: str, value) -> cm.Problem:
    args = {**MATRICES, field: value}
    return cm.formulate_from_matrices(args.pop("A"), args.pop("b"), args.pop("mu"), **args)


def _lcp_call(field: str, value) -> cm.MCP:
    return cm.LCP(**{**LCP_ARGS, field: value})


def _assert_named(thunk) -> object | None:
    """Run ``thunk``; a ContactModelError must name something (non-empty message); any other
    exception fails the test. Returns the result, or None after an error."""
    try:
        return thunk()
    except cm.ContactModelError as err:
        assert str(err), "a ContactModelError without a message"
        return None


@fuzz_settings(3)
@given(st.data(), BAD_VALUES)
def test_bad_declaration(data, value) -> None:
    kind = data.draw(st.sampled_from(["body", "contact", "law", "system", "matrices", "lcp"]), label="kind")
    if kind == "body":
        _assert_named(lambda: _body_call(data.draw(st.sampled_from(sorted(BODY))), value))
        return
    if kind == "law":
        law = data.draw(st.sampled_from(sorted(LAW_ARGS, key=lambda k: k.__name__)))
        _assert_named(lambda: _law_call(law, data.draw(st.sampled_from(sorted(LAW_ARGS[law]))), value))
        return
    call, fields = {
        "contact": (_contact_call, CONTACT),
        "system": (_system_call, {"gravity": 0, "rolling_tol": 0, "normal_velocity_tol": 0}),
        "matrices": (_matrices_call, MATRICES),
        "lcp": (_lcp_call, LCP_ARGS),
    }[kind]
    field = data.draw(st.sampled_from(sorted(fields)), label="field")
    problem = _assert_named(lambda: call(field, value))
    if problem is not None:  # accepted: it must then solve or fail honestly
        solution = _assert_named(lambda: cm.solve(problem, solver="newton", time_limit=3.0))
        assert solution is None or isinstance(solution.status, cm.Status)


@fuzz_settings(3)
@given(st.data(), BAD_VALUES)
def test_bad_solver_option(data, value) -> None:
    names = [n for n, info in solvers.REGISTRY.items() if info.available()[0]]
    solver = data.draw(st.sampled_from(names), label="solver")
    _, options_cls = solvers.load(solver)
    fields = sorted(f.name for f in dataclasses.fields(options_cls)) + sorted(SOLVE_ARGS)
    field = data.draw(st.sampled_from(fields), label="field")
    problem = cm.LCP(np.eye(3), [-1.0, 0.5, 1.0])
    limit = {"time_limit": 3.0} if solver in ("newton", "ipopt") and field != "time_limit" else {}
    solution = _assert_named(lambda: cm.solve(problem, solver=solver, **{**limit, field: value}))
    assert solution is None or isinstance(solution.status, cm.Status)
    if solution is not None and not solution.ok:
        assert solution.message


@pytest.mark.parametrize("seed", [0])
def test_scene_generator_is_valid_and_declared(seed) -> None:
    """The generator itself: every drawn scene declares (no error), and a hand-made scene of one
    box at rest on level ground passes the check with the textbook answer (c_n = m g in sum)."""
    from scenes import NumpyDraw

    for s in range(seed, seed + 5):
        draw_scene(NumpyDraw(s)).system()
    scene = draw_scene(NumpyDraw(3), max_boxes=1, max_contacts=1)
    box = scene.boxes[0]
    box.position = np.array([0.0, 0.0, 0.5])
    box.rotation = np.eye(3)
    box.velocity = np.zeros(3)
    box.wrench = np.zeros(6)
    c = scene.contacts[0]
    c.point, c.normal, c.tangent = np.zeros(3), np.array([0.0, 0, 1]), np.array([1.0, 0, 0])
    sol = cm.solve(scene.problem())
    assert sol.status is cm.Status.SOLVED
    assert check_answer(scene, sol).ok
    assert sol.contacts[0].force[0] == pytest.approx(box.mass * 9.81)
    # and the check catches a wrong answer: halve the normal force
    sol.contacts[0].force[0] *= 0.5
    verdict = check_answer(scene, sol)
    assert not verdict.ok and "balance" in verdict.worst
