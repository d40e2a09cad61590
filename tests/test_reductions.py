"""contactmodel.reductions: other statements of one contact problem with a way back. A point carried
forward and inverted is the point it was (up to the lifting's rounding); cm.solve's answers come
back in the asked problem's variable order; the fallback's routes are chains."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.errors import ContactModelError
from contactmodel.fallback import alternatives
from contactmodel.mcp.types import MCP
from contactmodel.reductions import (
    Chain,
    ConeFormSwitch,
    FormSwitch,
    Reduction,
    Unloaded,
    without_cone_blocks,
)
from contactmodel.solve import relative_residual, statement

MU = 0.5


def _systems():
    """Catalogue systems with rolling contacts, sliding contacts, and both."""
    return {
        "static": catalogue.get("box_push_static").build(),  # rolling
        "sliding": catalogue.get("box_sliding").build(),  # sliding (declared velocity)
        "pair": catalogue.sliding_and_rolling_pair(),  # one of each
        "boxes": catalogue.pushed_boxes(3, push=1.0),  # a stack, some contacts pushed
    }


SYSTEMS = list(_systems())


def _problem(name: str, form: str = "reduced", law=None) -> cm.Problem:
    return cm.formulate(_systems()[name], friction=law or cm.CoulombCone(MU), form=form)


def _solved(problem: cm.Problem) -> np.ndarray:
    solution = cm.solve(problem, fallback=False)
    assert solution.status is cm.Status.SOLVED, solution.message
    return solution.x


def _forces(problem: cm.Problem, x: np.ndarray) -> np.ndarray:
    return problem.interpret(np.asarray(x, dtype=float)).forces


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize(
    "make",
    [
        lambda: ConeFormSwitch("mncp"),
        lambda: ConeFormSwitch("mncp", automatic_only=True),
        lambda: FormSwitch("sparse"),
        lambda: FormSwitch("reduced"),
        lambda: Chain([FormSwitch("sparse"), ConeFormSwitch("mncp")]),
        lambda: Chain([FormSwitch("reduced"), ConeFormSwitch("mncp")]),
    ],
    ids=["cone", "cone-auto", "to-sparse", "to-reduced", "chain-sparse", "chain-reduced"],
)
def test_forward_then_invert_gives_the_point_back(name: str, form: str, make) -> None:
    problem = _problem(name, form)
    x = _solved(problem)
    reduction = make()
    target = reduction.apply(problem)
    assert reduction.source is problem and reduction.target is target
    y = reduction.forward(x)
    assert y.shape == (target.compile().mcp.n,)
    # the answer's forces solve the other statement too: the carried point is one of its answers
    assert relative_residual(target.compile().mcp, y) < 1e-8
    np.testing.assert_allclose(_forces(target, y), _forces(problem, x), rtol=0, atol=1e-10)
    back = reduction.invert(y)
    assert back.shape == x.shape
    np.testing.assert_allclose(back, x, rtol=1e-9, atol=1e-10)
    if not reduction.changed:
        assert target is problem and y is x and back is x


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize(
    "law",
    [cm.CoulombCone(MU, form="mncp"), cm.AnisotropicCone(MU, 0.6 * MU, form="mncp")],
    ids=["cone", "anisotropic"],
)
def test_from_the_mncp_to_the_soc_and_back(name: str, law) -> None:
    """The fallback's retry in the other cone form (a route of ``fallback.alternatives``): both
    laws with two statements go to the SOC form and their answers come back."""
    problem = _problem(name, law=law)
    assert any(isinstance(r.reductions[-1], ConeFormSwitch) for r in alternatives(problem))
    x = _solved(problem)
    reduction = ConeFormSwitch("soc")
    target = reduction.apply(problem)
    assert reduction.changed and {law.form for law in target.laws.values()} == {"soc"}
    y = reduction.forward(x)
    assert relative_residual(target.compile().mcp, y) < 1e-8
    np.testing.assert_allclose(reduction.invert(y), x, rtol=1e-9, atol=1e-10)


def test_nothing_to_change_is_the_identity() -> None:
    problem = _problem("pair", law=cm.Pyramid(MU))
    x = _solved(problem)
    for reduction in (ConeFormSwitch("mncp"), ConeFormSwitch("soc"), FormSwitch("reduced"), Chain()):
        assert reduction.apply(problem) is problem and not reduction.changed
        assert reduction.forward(x) is x and reduction.invert(x) is x
    chain = Chain([ConeFormSwitch("mncp"), FormSwitch("reduced")])
    assert chain.apply(problem) is problem and chain.applied == []
    # automatic-only: an explicit SOC contact stays (only cm.solve's automatic ones change)
    soc = _problem("pair", law=cm.CoulombCone(MU, form="soc"))
    assert without_cone_blocks(soc) is soc
    # norm-slack MNCP contacts have no SOC statement
    norm = _problem("pair", law=cm.CoulombCone(MU, slack="norm"))
    assert ConeFormSwitch("soc").apply(norm) is norm


def test_a_chain_passes_over_a_bare_mcp() -> None:
    lcp = cm.LCP(np.eye(2), np.array([-1.0, 1.0]))
    chain = Chain([ConeFormSwitch("mncp", automatic_only=True), FormSwitch("sparse")])
    assert chain.apply(lcp) is lcp and chain.applied == []
    x = np.array([1.0, 0.0])
    assert chain.forward(x) is x and chain.invert(x) is x
    assert isinstance(lcp, MCP) and not ConeFormSwitch("mncp").accepts(lcp)
    with pytest.raises(ContactModelError, match="Problem"):
        ConeFormSwitch("mncp").apply(lcp)


def test_a_reduction_is_applied_before_it_carries() -> None:
    with pytest.raises(ContactModelError, match="apply"):
        FormSwitch("sparse").invert(np.zeros(3))
    with pytest.raises(ContactModelError, match="form"):
        ConeFormSwitch("socp")
    with pytest.raises(ContactModelError, match="automatic_only"):
        ConeFormSwitch("soc", automatic_only=True)
    assert isinstance(Chain(), Reduction)


def test_labels_name_the_fallback_routes() -> None:
    problem = _problem("pair", "sparse")
    labels = [route.label for route in alternatives(problem)]
    assert labels == [
        "in the reduced form",
        "with the cone in the MNCP form",
        "in the reduced form with the cone in the MNCP form",
    ]
    assert all(isinstance(route, Chain) for route in alternatives(problem))


def test_the_solvers_statement() -> None:
    assert statement("newton").reductions == ()
    (cone,) = statement("scipy").reductions
    assert isinstance(cone, ConeFormSwitch) and cone.form == "mncp" and cone.automatic_only


@pytest.mark.parametrize("solver", ["scipy", "ipopt"])
@pytest.mark.parametrize("name", ["sliding", "pair", "boxes"])
def test_a_solver_without_cone_blocks_answers_in_the_asked_order(solver: str, name: str) -> None:
    """The automatic-form cone problem runs in the MNCP form; the answer's x is a point of the asked
    (SOC) problem, solves its MCP, and has the forces of a direct MNCP solve."""
    if solver == "ipopt":
        pytest.importorskip("cyipopt")
    problem = _problem(name)
    mcp = problem.compile().mcp
    sol = cm.solve(problem, solver=solver)
    assert sol.ok, sol.message
    assert sol.cone_form == "mncp" and sol.extras["reductions"] == ["with the cone in the MNCP form"]
    assert sol.x.shape == (mcp.n,)
    assert relative_residual(mcp, sol.x) < 1e-6
    direct = _problem(name, law=cm.CoulombCone(MU, form="mncp"))
    ref = cm.solve(direct, solver=solver)
    assert ref.ok and "reductions" not in ref.extras
    np.testing.assert_allclose(_forces(problem, sol.x), _forces(direct, ref.x), rtol=0, atol=1e-9)
    # the answer is the MNCP answer carried back: the same forces, read back in the MNCP order
    chain = statement(solver)
    twin = chain.apply(problem)
    np.testing.assert_allclose(chain.forward(sol.x), ref.x, rtol=0, atol=1e-9)
    assert list(twin.compile().mcp.names) == list(direct.compile().mcp.names)
    # and it starts newton on the asked problem at its answer
    again = cm.solve(problem, x0=sol.x)
    assert again.status is cm.Status.SOLVED and again.iterations <= 3


def test_newton_runs_the_problem_as_asked() -> None:
    problem = _problem("pair")
    sol = cm.solve(problem)
    assert sol.cone_form == "soc" and "reductions" not in sol.extras


def _lifted_pair() -> cm.System:
    """A box pressed on the ground and a box pulled off it: contact "low" loaded, "high" separated."""
    system = cm.System()
    system.add_body("low", 1.0, np.eye(3), position=[0, 0, 0.5], wrench=[0.3, 0, -10, 0, 0, 0])
    system.add_body("high", 1.0, np.eye(3), position=[0, 0, 1.5], wrench=[0.2, 0.1, 10, 0, 0, 0])
    system.add_contact("low", "ground", [0, 0, 0], [0, 0, 1], name="low")
    system.add_contact("high", "low", [0, 0, 1], [0, 0, 1], name="high")
    return system


@pytest.mark.parametrize("form", ["reduced", "sparse"])
def test_unloaded_contacts_are_frictionless_and_carry_back(form: str) -> None:
    """Unloaded(names) states those contacts frictionless, the others as they were; a solution
    with c_n = 0 there, carried forward and back, stays a solution of both problems."""
    problem = cm.formulate(_lifted_pair(), friction=cm.CoulombCone(MU), form=form)
    x = _solved(problem)
    forces = {c.name: c.force for c in cm.solve(problem, fallback=False).contacts}
    assert forces["high"][0] == 0.0 and forces["low"][0] > 1.0  # the premise
    route = Unloaded(["high"])
    twin = route.apply(problem)
    assert isinstance(twin.laws["high"], cm.Frictionless) and twin.laws["low"] is problem.laws["low"]
    assert "high" in route.label
    y = route.forward(x)
    assert relative_residual(twin.compile().mcp, y) < 1e-9
    assert relative_residual(problem.compile().mcp, route.invert(y)) < 1e-9
    # a loaded contact made frictionless loses its friction: back in the source, the point is off
    loaded = Unloaded(["low"])
    loaded.apply(problem)
    assert relative_residual(problem.compile().mcp, loaded.invert(loaded.forward(x))) > 1e-3
