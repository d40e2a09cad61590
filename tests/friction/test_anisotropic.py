"""The anisotropic Coulomb cone (mu_t != mu_o), added as one new law file: hand-derived cases
through formulate (both forms), every applicable solver, verify, diagnose, modes, all_solutions,
draw and the command line; its SOC form (a Coulomb cone block in scaled variables) against the
hand-derived cases and, on random problems, against the MNCP."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contactmodel as cm
from contactmodel import inertia
from contactmodel.analysis import all_solutions, contact_modes, diagnose, verify
from contactmodel.cli import main
from contactmodel.draw import draw, friction_sets
from contactmodel.errors import FrictionLawError
from contactmodel.friction.anisotropic import AnisotropicCone
from contactmodel.friction.spec import parse_friction
from contactmodel.solve import relative_residual

G = 9.81
MU_T, MU_O = 0.2, 0.6
LAW = AnisotropicCone(MU_T, MU_O)
BOX_PUSH = str(Path(__file__).resolve().parents[2] / "examples" / "box_push.py")


def sliding_sphere() -> cm.System:
    """A 1 kg ball (radius 0.1 m) sliding without spin at v = (1, 1, 0) m/s on the ground."""
    s = cm.System(gravity=(0.0, 0.0, -G))
    ball = s.add_body(
        "ball", mass=1.0, inertia=inertia.sphere(1.0, 0.1), position=(0, 0, 0.1), velocity=(1, 1, 0)
    )
    s.add_contact(
        ball, s.ground, point=(0, 0, 0), normal=(0, 0, 1), tangent=(1, 0, 0), name="c", friction=LAW
    )
    return s


def pushed_box(push) -> cm.System:
    """A 3 kg cube of side 0.4 m on four corners, at rest, pushed at its centre by ``push`` (N)."""
    s = cm.System(gravity=(0.0, 0.0, -G))
    box = s.add_body(
        "box",
        mass=3.0,
        inertia=inertia.box(3.0, (0.4, 0.4, 0.4)),
        position=(0, 0, 0.2),
        wrench=(*push, 0.0, 0.0, 0.0),
    )
    for i, (x, y) in enumerate([(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]):
        s.add_contact(
            box, s.ground, point=(x, y, 0), normal=(0, 0, 1), tangent=(1, 0, 0), name=f"f{i}", friction=LAW
        )
    return s


# By hand. Sliding ball: c_n = m g (a_n = a_z for a ball), friction on the ellipse boundary at
# -diag(mu^2) v / |diag(mu) v| c_n = -(0.04, 0.36) / sqrt(0.40) m g: not opposite to v.
SLIDE = -G * np.array([MU_T**2, MU_O**2, 0.0]) / np.hypot(MU_T, MU_O)
# Box pushed by 0.4 m g: along o (limit 0.6 m g) it stays; along t (limit 0.2 m g) it slides at 0.2 g.
STAY, GO = (0.0, 0.4 * 3 * G, 0.0), (0.4 * 3 * G, 0.0, 0.0)
CASES = [
    (sliding_sphere, "ball", SLIDE),
    (lambda: pushed_box(STAY), "box", [0, 0, 0]),
    (lambda: pushed_box(GO), "box", [0.2 * G, 0, 0]),
]


@pytest.mark.parametrize("solver", ["newton", "ipopt", "scipy"])
@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize(("build", "body", "expected"), CASES, ids=["ball", "box-o", "box-t"])
def test_hand_derived_accelerations(build, body, expected, form, solver) -> None:
    problem = cm.formulate(build(), form=form)
    solution = cm.solve(problem, solver=solver)
    assert solution.status is cm.Status.SOLVED, solution.message
    got = next(b for b in solution.bodies if b.name == body).linear_acceleration
    np.testing.assert_allclose(got, expected, atol=1e-6)
    report = verify(solution, problem)
    assert report.ok, report.summary()


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize(("build", "body", "expected"), CASES, ids=["ball", "box-o", "box-t"])
def test_the_soc_form_gives_the_hand_derived_accelerations(build, body, expected, form) -> None:
    """Rolling contacts as cone blocks of the scaled friction u = (c_t / mu_t, c_o / mu_o) (the
    sliding ball keeps its sliding rows): the same accelerations, the contact forces in physical
    units, the same modes as the MNCP's."""
    system = build()
    soc = cm.formulate(system, friction=AnisotropicCone(MU_T, MU_O, form="soc"), form=form)
    assert (soc.compile().mcp.cones is not None) == (body == "box")
    solution = cm.solve(soc, solver="newton")
    assert solution.status is cm.Status.SOLVED, solution.message
    got = next(b for b in solution.bodies if b.name == body).linear_acceleration
    np.testing.assert_allclose(got, expected, atol=1e-6)
    mncp = cm.solve(cm.formulate(system, friction=AnisotropicCone(MU_T, MU_O, form="mncp"), form=form))
    assert [c.mode for c in solution.contacts] == [c.mode for c in mncp.contacts]
    total = np.sum([c.force for c in solution.contacts], axis=0)
    np.testing.assert_allclose(total, np.sum([c.force for c in mncp.contacts], axis=0), atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_an_answer_of_the_soc_form_solves_the_mncp(seed) -> None:
    """Random reduced problems of 1-5 contacts (A positive definite): newton solves the SOC form,
    and its forces lifted into the MNCP form (each law's own lift) are a point where that form's
    natural residual is ~0: the two statements have the same solutions."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 6))
    G = rng.normal(size=(3 * k, 3 * k + 2))
    A = G @ G.T / (3 * k) + 0.05 * np.eye(3 * k)
    b = rng.normal(size=3 * k)
    mu_t, mu_o = rng.uniform(0.1, 1.0, 2)
    soc = cm.formulate_from_matrices(A, b, friction=AnisotropicCone(mu_t, mu_o, form="soc"))
    solution = cm.solve(soc, solver="newton")
    assert solution.status is cm.Status.SOLVED, solution.message
    assert solution.checks["law_residual"] <= 1e-8  # the friction set's own check
    mncp = cm.formulate_from_matrices(A, b, friction=AnisotropicCone(mu_t, mu_o, form="mncp"))
    point = mncp.point_at(np.concatenate([c.force for c in solution.contacts]))
    assert relative_residual(mncp.compile().mcp, point) <= 1e-8


def test_lcp_solvers_refuse_it() -> None:
    problem = cm.formulate(pushed_box(STAY), form="reduced")
    assert not problem.compile().mcp.is_lcp
    with pytest.raises(cm.ContactModelError):
        cm.solve(problem, solver="lemke")


def test_modes_diagnose_and_all_solutions() -> None:
    ball = cm.formulate(sliding_sphere())
    sol = cm.solve(ball)
    assert contact_modes(ball, sol)["c"].mode == "slide"
    box = cm.formulate(pushed_box(STAY))
    d = diagnose(box)
    assert d.condition("Trinkle et al. (1997) Theorem 1 (a) (existence)").holds
    assert "16-gons" in d.condition("Trinkle et al. (1997) Theorem 1 (a) (existence)").detail
    found = all_solutions(box, starts=2)
    assert len(found) >= 1 and all(s.ok for s in found)
    for s in found:
        np.testing.assert_allclose(s.bodies[0].linear_acceleration, 0.0, atol=1e-6)
        assert {c.mode for c in s.contacts} <= {"roll", "separate"}


def test_friction_set_and_drawing() -> None:
    fset = LAW.friction_set()
    assert fset.excess([1.0, MU_T, 0.0, 0.0]) == pytest.approx(0.0, abs=1e-15)
    assert fset.excess([1.0, 0.0, MU_O, 0.0]) == pytest.approx(0.0, abs=1e-15)
    assert fset.excess([1.0, 0.0, 2 * MU_O, 0.0]) == pytest.approx(1.0)  # |(0, 2)| - 1 in units of c_n
    drawn = friction_sets(draw(pushed_box(STAY)))["f0"].set
    assert drawn.vertices == 0 and drawn.torsion is None
    np.testing.assert_allclose(np.abs(drawn.outline).max(axis=0), [MU_T, MU_O])


def test_spec_and_command_line(capsys) -> None:
    made = parse_friction("anisotropic:0.2:0.6")
    assert repr(made) == "AnisotropicCone(mu_t=0.2, mu_o=0.6, auto=True, form=<ConeForm.SOC: 'soc'>)"
    with pytest.raises(FrictionLawError, match="mu_t"):
        parse_friction("anisotropic:0:0.6")
    assert parse_friction("anisotropic:0.2:0.6:mncp").form == "mncp"
    assert not parse_friction("anisotropic:0.2:0.6:soc").auto
    with pytest.raises(FrictionLawError, match="'mncp' or 'soc'"):
        parse_friction("anisotropic:0.2:0.6:cone")
    # examples/box_push.py: a 10 N push along t on 3 kg; mu_t m g = 5.886 N < 10 N: it slides
    assert main(["solve", BOX_PUSH, "--friction", "anisotropic:0.2:0.6", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bodies"][0]["linear_acceleration"][0] == pytest.approx((10 - 0.2 * 3 * G) / 3, abs=1e-6)
    assert main(["solve", BOX_PUSH, "--friction", "anisotropic:0.6:0.2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bodies"][0]["linear_acceleration"] == pytest.approx([0, 0, 0], abs=1e-8)
