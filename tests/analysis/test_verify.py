"""Verification reports: residuals per pair, friction sets, colinearity, Proposition 1."""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.analysis import contact_modes, verify
from contactmodel.analysis.cones import single_contact_problem


def _box(push: float, mu: float, law):
    case = catalogue.get("box_push_sliding" if push > 20 else "box_push_static")
    return cm.formulate(case.build(), friction=law)


def test_correct_solution_passes_and_wrong_one_fails() -> None:
    problem = _box(5.0, 0.5, cm.Pyramid(0.5))
    sol = cm.solve(problem, solver="lemke")
    report = verify(sol, problem)
    assert report.ok, report.summary()
    assert report.max_complementarity < 1e-9
    wrong = sol.x.copy()
    wrong[0] += 1.0
    bad = verify(wrong, problem)
    assert not bad.ok
    assert "violated" in bad.summary()


def test_friction_set_violation_is_caught() -> None:
    problem = single_contact_problem(cm.CoulombCone(0.5))
    problem.load_forces({"c": [1.0, 2.0, 0.0]})
    report = verify(problem.compile().values(), problem)
    assert not report.friction[0].inside and report.friction[0].excess > 1.0
    assert "OUTSIDE" in report.summary()


def test_colinearity_pyramid_versus_cone() -> None:
    """Seed 001 §4.2.3: the pyramid does not make friction oppose the sliding acceleration (up to 45
    degrees off), the cone does."""
    problem = single_contact_problem(cm.Pyramid(0.5))
    box = problem.system.bodies[0]
    box.wrench = np.array([10.0, 4.0, -1.0, 0.0, 0.0, 0.0])
    pyr = cm.formulate(problem.system, friction=cm.Pyramid(0.5))
    report = verify(cm.solve(pyr, solver="lemke"), pyr)
    (col,) = report.colinearity
    assert report.ok and 1.0 < col.angle <= 45.0 + 1e-9
    cone = cm.formulate(problem.system, friction=cm.CoulombCone(0.5))
    report = verify(cm.solve(cone, solver="newton"), cone)
    (col,) = report.colinearity
    assert report.ok and col.angle < 1e-3
    box.wrench = np.zeros(6)


def test_proposition1_pyramid_solution_inside_the_cone_is_a_cone_solution() -> None:
    system = cm.System(gravity=(0, 0, -9.81))
    ball = system.add_body("ball", mass=1.0, inertia=cm.inertia.sphere(1.0, 0.2), position=(0, 0, 0.2))
    system.add_contact(ball, system.ground, point=(0, 0, 0), normal=(0, 0, 1), tangent=(1, 0, 0), name="c")
    for push in (1.0, 30.0):
        ball.wrench = np.array([push, 0.0, 0.0, 0.0, 0.0, 0.0])
        p = cm.formulate(system, friction=cm.Pyramid(0.5))
        report = verify(cm.solve(p, solver="lemke"), p)
        p1 = report.proposition1
        assert p1.applicable and p1.holds and p1.cone_residual < 1e-10, report.summary()
    problem = single_contact_problem(cm.Pyramid(0.5))
    box = problem.system.bodies[0]
    box.wrench = np.array([10.0, 4.0, -1.0, 0.0, 0.0, 0.0])
    p = cm.formulate(problem.system, friction=cm.Pyramid(0.5))
    report = verify(cm.solve(p, solver="lemke"), p)
    assert not report.proposition1.applicable
    box.wrench = np.zeros(6)


def test_modes_name_pairs_and_directions() -> None:
    problem = single_contact_problem(cm.Polygonal(0.5, k=6))
    box = problem.system.bodies[0]
    box.wrench = np.array([10.0, 0.3, -1.0, 0.0, 0.0, 0.0])
    p = cm.formulate(problem.system, friction=cm.Polygonal(0.5, k=6))
    sol = cm.solve(p, solver="lemke")
    mode = contact_modes(p, sol)["c"]
    assert mode.mode == "slide" and mode.index == "d3" and not mode.degenerate
    assert mode.pairs["normal"] == "var>0" and mode.pairs["limit"] == "var>0"
    assert mode.pairs["direction_3"] == "var>0" and "direction_3" in mode.decided_by
    box.wrench = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    p = cm.formulate(problem.system, friction=cm.Pyramid(0.5))
    assert contact_modes(p, cm.solve(p, solver="lemke"))["c"].mode == "separate"
    box.wrench = np.zeros(6)
