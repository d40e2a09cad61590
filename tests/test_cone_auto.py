"""CoulombCone(mu) without a form: the second-order-cone form where the solver takes cone blocks
(newton), the MNCP where it does not; the Solution says which form ran."""

import json

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.analysis import contact_modes
from contactmodel.cli import main
from contactmodel.friction.cone import cone_form
from contactmodel.reductions import without_cone_blocks
from contactmodel.solvers import REGISTRY

A1 = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.1], [-0.2, 0.1, 1.2]])  # one contact, SPD
CASE = catalogue.get("box_push_sliding")  # at rest, pushed above the limit: a_x = (P - mu m g) / m


def _box_acceleration(solution: cm.Solution) -> np.ndarray:
    return np.array(solution.bodies[0].linear_acceleration)


def test_default_form_follows_the_solver():
    law = cm.CoulombCone(CASE.mu)
    assert law.auto and law.form == "soc"
    problem = cm.formulate(CASE.build(), friction=law)
    assert problem.block("floor0").component("cone") is not None  # formulated with cone blocks
    expected = CASE.accelerations["box"][:3]
    newton = cm.solve(problem)
    assert newton.status is cm.Status.SOLVED and newton.cone_form == "soc"
    np.testing.assert_allclose(_box_acceleration(newton), expected, atol=1e-9)
    scipy = cm.solve(problem, solver="scipy")
    assert scipy.ok and scipy.cone_form == "mncp"
    np.testing.assert_allclose(_box_acceleration(scipy), expected, atol=1e-6)
    # the caller's problem keeps its cone blocks
    assert problem.block("floor0").component("cone") is not None


def test_an_explicit_form_is_kept():
    problem = cm.formulate(CASE.build(), friction=cm.CoulombCone(CASE.mu, form="mncp"))
    solution = cm.solve(problem)
    assert solution.ok and solution.cone_form == "mncp"
    soc = cm.formulate(CASE.build(), friction=cm.CoulombCone(CASE.mu, form="soc"))
    with pytest.raises(cm.SolverError, match="cone"):
        cm.solve(soc, solver="scipy")


def test_norm_slack_means_the_mncp():
    law = cm.CoulombCone(0.5, slack="norm")
    assert law.auto and law.form == "mncp"


def test_mixed_forms_are_named():
    laws = {"a": cm.CoulombCone(0.5), "b": cm.CoulombCone(0.5, form="mncp"), "c": cm.Pyramid(0.5)}
    assert cone_form(laws) == "soc+mncp"
    assert cone_form({"c": cm.Pyramid(0.5)}) is None


def test_the_weighted_cones_report_the_form_that_ran():
    problem = cm.formulate(CASE.build(), friction=cm.AnisotropicCone(0.5, 0.3))
    newton = cm.solve(problem)
    assert newton.status is cm.Status.SOLVED and newton.cone_form == "soc"
    scipy = cm.solve(problem, solver="scipy")
    assert scipy.ok and scipy.cone_form == "mncp"
    np.testing.assert_allclose(_box_acceleration(scipy), _box_acceleration(newton), atol=1e-6)
    laws = {
        "a": cm.EllipticTorsion(0.5, form="mncp"),
        "b": cm.AnisotropicCone(0.5, 0.3),
        "c": cm.Ellipsoid(0.5),
    }
    assert cone_form(laws) == "soc+mncp"
    assert cone_form({"c": cm.Ellipsoid(0.5), "d": cm.Polygonal(0.5, 6)}) == "soc"  # automatic
    assert cone_form({"c": cm.Pyramid(0.5), "d": cm.Polygonal(0.5, 6)}) is None


def test_every_solver_without_cone_support_gets_the_mncp():
    problem = cm.formulate_from_matrices(A1, [-1.0, 0.2, 0.0], friction=cm.CoulombCone(0.5))
    twin = without_cone_blocks(problem)
    assert twin is not problem and twin.laws["c0"].form == "mncp" and twin.laws["c0"].auto
    assert without_cone_blocks(twin) is twin  # nothing left to change
    assert [name for name, info in REGISTRY.items() if info.cones] == ["newton"]


def test_parameters_changed_in_place_are_carried_over():
    """Re-solving code (e.g. the time stepper) writes the mutable ``b`` in place; the MNCP problem
    formulated for a solver without cone blocks must start from those values."""
    problem = cm.formulate_from_matrices(A1, [1.0, 0.2, 0.0], friction=cm.CoulombCone(0.5))
    problem.model.b[0] = -1.0
    twin = without_cone_blocks(problem)
    assert [twin.model.b[i].value for i in range(3)] == [-1.0, 0.2, 0.0]


def test_table_and_json_say_the_form():
    solution = cm.solve(cm.formulate(CASE.build(), friction=cm.CoulombCone(CASE.mu)))
    assert "cone form: soc" in solution.table().splitlines()[1]
    assert solution.to_json()["cone_form"] == "soc"
    pyramid = cm.solve(cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu)))
    assert "cone form" not in pyramid.table() and pyramid.to_json()["cone_form"] is None


@pytest.mark.parametrize(
    ("spec", "solver", "form"),
    [("cone:0.5", "newton", "soc"), ("cone:0.5", "scipy", "mncp"), ("cone:0.5:mncp", "newton", "mncp")],
)
def test_cli_specs(capsys, spec: str, solver: str, form: str):
    code = main(["solve", "examples/box_push.py", "--friction", spec, "--solver", solver, "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["cone_form"] == form


def test_x_and_x0_stay_in_the_callers_variable_order():
    """A solver without cone blocks solves the MNCP problem, but the answer's x is a point of the
    problem given (its SOC variables), usable by contact_modes and verify and as a warm start."""
    problem = cm.formulate(CASE.build(), friction=cm.CoulombCone(CASE.mu))
    n = problem.compile().mcp.n
    scipy = cm.solve(problem, solver="scipy")
    assert scipy.ok and scipy.cone_form == "mncp" and scipy.x.shape == (n,)
    modes = contact_modes(problem, scipy)
    assert [modes[c.name].mode for c in scipy.contacts] == [c.mode for c in scipy.contacts]
    assert cm.verify(scipy, problem).ok
    newton = cm.solve(problem, x0=scipy.x)  # the SOC problem, warm started at scipy's answer
    assert newton.ok and newton.iterations <= 2
    again = cm.solve(problem, solver="scipy", x0=newton.x)
    assert again.ok and again.x.shape == (n,)
    np.testing.assert_allclose(_box_acceleration(again), CASE.accelerations["box"][:3], atol=1e-6)
