"""CoulombCone(mu, form="soc"): the cone complementarity with De Saxce's modified acceleration,
the same law as the seed's MNCP (27)-(29) at a rolling contact, solved by newton only."""

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.errors import FrictionLawError, SolverError
from contactmodel.friction.spec import parse_friction
from contactmodel.mcp import natural_residual
from contactmodel.solvers import REGISTRY

MU = 0.5
A1 = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.1], [-0.2, 0.1, 1.2]])  # one contact, SPD

# physical points (c, a) of one rolling contact, by mode; a_T/|a_T| = (0.6, -0.8) when sliding
MODES = {
    "separate": ([0.0, 0.0, 0.0], [1.3, 0.4, -0.7]),
    "roll": ([2.0, 0.3, -0.5], [0.0, 0.0, 0.0]),
    "roll on the cone boundary": ([2.0, 0.6, -0.8], [0.0, 0.0, 0.0]),
    "slide": ([2.0, -MU * 2.0 * 0.6, MU * 2.0 * 0.8], [0.0, 0.3, -0.4]),
    "grazing (c = 0, a_n = 0, sliding)": ([0.0, 0.0, 0.0], [0.0, 0.3, -0.4]),
}
WRONG = {
    "friction along the slip": ([2.0, MU * 2.0 * 0.6, -MU * 2.0 * 0.8], [0.0, 0.3, -0.4]),
    "friction below the limit while sliding": ([2.0, -0.3, 0.4], [0.0, 0.3, -0.4]),
    "friction outside the cone": ([2.0, 1.5, 0.0], [0.0, 0.0, 0.0]),
    "pulling normal force": ([-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    "separating with a force": ([1.0, 0.0, 0.0], [0.5, 0.0, 0.0]),
    "slip not opposed (perpendicular)": ([2.0, -MU * 2.0 * 0.8, -MU * 2.0 * 0.6], [0.0, 0.3, -0.4]),
}


def _residual(form: str, c, a) -> float:
    """Max natural residual of the point (c, a) substituted into the model with b = a - A c."""
    c, a = np.asarray(c, float), np.asarray(a, float)
    problem = cm.formulate_from_matrices(A1, a - A1 @ c, friction=cm.CoulombCone(MU, form=form))
    problem.load_forces(c)
    compiled = problem.compile()
    return float(np.abs(natural_residual(compiled.mcp, compiled.values())).max())


@pytest.mark.parametrize("mode", list(MODES))
def test_each_mode_solves_both_forms(mode):
    c, a = MODES[mode]
    assert _residual("soc", c, a) < 1e-12
    assert _residual("mncp", c, a) < 1e-12


@pytest.mark.parametrize("wrong", list(WRONG))
def test_wrong_forces_violate_both_forms(wrong):
    c, a = WRONG[wrong]
    assert _residual("soc", c, a) > 0.1
    assert _residual("mncp", c, a) > 0.1


def test_soc_block_in_the_model():
    problem = cm.formulate_from_matrices(A1, [-1.0, 0.2, 0.0], friction=cm.CoulombCone(MU, form="soc"))
    blk = problem.block("c0")
    assert blk.cone.mu.value == MU
    assert blk.c_n.lb is None  # free: the cone bounds it
    assert blk.component("pairs") is None
    mcp = problem.compile().mcp
    assert mcp.cones.k == 1 and [mcp.names[i] for i in mcp.cones.index[0]] == [
        "contact[c0].c_n",
        "contact[c0].c_t",
        "contact[c0].c_o",
    ]


def test_sliding_contacts_are_unchanged():
    law = cm.CoulombCone(MU, form="soc")
    problem = cm.formulate_from_matrices(A1, [-1.0, 0.2, 0.0], friction=law, sliding=[True])
    mcp = problem.compile().mcp
    assert mcp.cones is None and mcp.is_lcp
    other = cm.formulate_from_matrices(A1, [-1.0, 0.2, 0.0], friction=cm.CoulombCone(MU), sliding=[True])
    np.testing.assert_allclose(mcp.M.toarray(), other.compile().mcp.M.toarray())


CASES = [catalogue.get(name) for name in catalogue.CASES]


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_catalogue_soc_matches_known_answers_and_mncp(case, form):
    soc = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu, form="soc"), form=form)
    soc.load_forces(case.forces)
    compiled = soc.compile()
    assert np.abs(natural_residual(compiled.mcp, compiled.values())).max() < 1e-9
    got = cm.solve(soc, solver="newton")
    ref = cm.solve(soc.reformulate(friction=cm.CoulombCone(case.mu)), solver="newton")
    assert got.status is cm.Status.SOLVED
    # the MNCP's answer is only ~sqrt(residual) accurate (box_push_sliding sparse: 4e-6 off), and the
    # dispatcher's law residual says so
    assert ref.ok and (ref.status is cm.Status.SOLVED or ref.checks["law_residual"] > 1e-8)
    for body, other in zip(got.bodies, ref.bodies):
        expected = np.array(case.accelerations[body.name])
        lin = np.concatenate([body.linear_acceleration, body.angular_acceleration])
        np.testing.assert_allclose(lin, expected, atol=1e-7)
        # the MNCP's answer is only ~sqrt(residual) accurate (box_push_sliding sparse: 4e-6 off)
        np.testing.assert_allclose(
            lin, np.concatenate([other.linear_acceleration, other.angular_acceleration]), atol=1e-5
        )
    assert [c.mode for c in got.contacts] == [c.mode for c in ref.contacts]


@pytest.mark.parametrize("seed", range(8))
def test_random_unique_problems_agree_with_the_mncp(seed):
    """A = I + small symmetric part, mu <= 0.3: the Coulomb problem has one solution, so both forms
    give the same forces and accelerations."""
    rng = np.random.default_rng(seed)
    nc = 6
    B = rng.normal(size=(3 * nc, 3 * nc)) * 0.1
    A = np.eye(3 * nc) + B @ B.T
    b = rng.normal(size=3 * nc)
    mu = rng.uniform(0.1, 0.3, nc)
    soc = cm.formulate_from_matrices(A, b, friction=[cm.CoulombCone(m, form="soc") for m in mu])
    mncp = cm.formulate_from_matrices(A, b, friction=[cm.CoulombCone(m) for m in mu])
    s1, s2 = cm.solve(soc), cm.solve(mncp)
    assert s1.status is cm.Status.SOLVED and s2.status is cm.Status.SOLVED
    modes = {c.mode for c in s1.contacts}
    assert modes & {"slide", "roll"}  # not all separating: the test compares friction
    for c1, c2 in zip(s1.contacts, s2.contacts):
        np.testing.assert_allclose(c1.acceleration, c2.acceleration, atol=1e-5)
        np.testing.assert_allclose(c1.force, c2.force, atol=1e-5)
        assert c1.mode == c2.mode


@pytest.mark.parametrize("solver", [name for name, info in REGISTRY.items() if not info.cones])
def test_other_solvers_refuse_the_soc_form(solver):
    problem = cm.formulate_from_matrices(A1, [-1.0, 0.2, 0.0], friction=cm.CoulombCone(MU, form="soc"))
    wanted = r"cannot solve form='soc' contacts .*CoulombCone.*automatic .*CoulombCone\(mu\)"
    with pytest.raises(SolverError, match=wanted):
        cm.solve(problem, solver=solver)


def test_analysis_works_on_the_soc_form():
    case = catalogue.get("box_push_sliding")
    problem = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu, form="soc"))
    solution = cm.solve(problem)
    report = cm.verify(solution, problem)
    assert report.ok and report.max_complementarity < 1e-9
    assert {f.inside for f in report.friction} == {True}
    found = cm.all_solutions(problem)
    assert len(found) == 1 and {c.mode for c in found[0].contacts} == {"slide"}


def test_spec_and_arguments():
    assert parse_friction("cone:0.5:soc").form == "soc"
    assert parse_friction("cone:0.5:mncp").form == "mncp" and not parse_friction("cone:0.5:mncp").auto
    assert parse_friction("cone:0.5").auto and parse_friction("cone:0.5").form == "soc"
    with pytest.raises(FrictionLawError, match="form"):
        parse_friction("cone:0.5:socp")
    with pytest.raises(FrictionLawError, match="form"):
        cm.CoulombCone(0.5, form="second-order")
    with pytest.raises(FrictionLawError, match="slack"):
        cm.CoulombCone(0.5, form="soc", slack="norm")


def test_soc_cone_violation_is_of_the_order_of_the_residual():
    """The failure that motivated the form: box_push_sliding in the sparse form, where the MNCP's
    answer (residual < 1e-12) had a force ~1e-6 outside the cone."""
    case = catalogue.get("box_push_sliding")
    problem = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu, form="soc"), form="sparse")
    solution = cm.solve(problem)
    assert solution.status is cm.Status.SOLVED
    for c in solution.contacts:
        cn, ct, co = c.force[:3]
        # relative residual x scale max(1, |F(0)|) ~ 16 bounds the violation
        assert np.hypot(ct, co) - case.mu * cn <= 100 * solution.residual + 1e-14


def test_mncp_opt_refuses_the_soc_form():
    problem = cm.formulate_from_matrices(A1, [-1.0, 0.2, 0.0], friction=cm.CoulombCone(MU, form="soc"))
    with pytest.raises(
        cm.ContactModelError, match=r"second-order-cone block.*CoulombCone\(mu, form='mncp'\)"
    ):
        cm.mncp_opt(problem.model)


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("seed", [0, 1, 2, 11])
def test_random_boxes_solve_with_forces_in_the_cone(seed, form):
    """Seed 000's random boxes (stacks, rows, tilted boxes; rolling and sliding contacts) with the
    cone: newton solves the SOC form, and the forces are in the cone to the residual's accuracy."""
    from contactmodel.experiments.generators import random_boxes

    asm = cm.assemble(random_boxes(seed, 60, mu=0.5))
    problem = cm.formulate(asm, friction=cm.CoulombCone(0.5, form="soc"), form=form)
    solution = cm.solve(problem)
    assert solution.status is cm.Status.SOLVED, solution.message
    assert solution.extras["cone_blocks"] == len(asm.rolling)
    for c in solution.contacts:
        cn, ct, co = c.force[:3]
        assert np.hypot(ct, co) - 0.5 * cn <= 1e-9 * max(1.0, cn)


def test_limits_are_reported_not_hidden():
    case = catalogue.get("box_push_sliding")
    problem = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu, form="soc"), form="sparse")
    solution = cm.solve(problem, max_iter=1)
    assert solution.status is cm.Status.ITERATION_LIMIT
    assert "iteration limit" in solution.message
