"""Quasistatic problems (``cm.quasistatic``): hand-checked pushes and grasps, for the cone and the
pyramid swapped by one declaration; the rotation of an off-centre push checked against an
independent minimization of frictional power over the instantaneous rotation centre."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

import contactmodel as cm
from contactmodel.errors import DeclarationError, FormulationError, StateError

M, MU, G, V = 2.0, 0.4, 9.81, 0.1  # box mass (kg), table friction, gravity, finger speed (m/s)
L, W, H = 0.2, 0.2, 0.1  # box size (m)
CORNERS = np.array([(-L / 2, -W / 2), (L / 2, -W / 2), (L / 2, W / 2), (-L / 2, W / 2)])
LAWS = [cm.Pyramid(MU), cm.CoulombCone(MU)]
PUSH = {"finger": [V, 0.0, 0.0, 0.0, 0.0, 0.0]}


def pushed_box(law: cm.FrictionLaw, offset: float = 0.0) -> cm.System:
    """A box on its four corners (t = +x, o = +y), a frictionless finger on its back face at
    centroid height, ``offset`` (m) left of the centre line."""
    s = cm.System()
    box = s.add_body("box", M, cm.inertia.box(M, (L, W, H)), position=(0, 0, H / 2))
    finger = s.add_body("finger", 0.1, np.diag([1e-5] * 3), position=(-L / 2 - 0.01, offset, H / 2))
    for k, (x, y) in enumerate(CORNERS):
        s.add_contact(box, s.ground, (x, y, 0), (0, 0, 1), (1, 0, 0), friction=law, name=f"c{k}")
    s.add_contact(
        finger, box, (-L / 2, offset, H / 2), (-1, 0, 0), (0, 1, 0), friction=cm.Frictionless(), name="finger"
    )
    return s


def body(solution: cm.Solution, name: str):
    return next(b for b in solution.bodies if b.name == name)


@pytest.mark.parametrize("law", LAWS, ids=lambda law: type(law).__name__)
def test_centred_push_moves_with_the_finger_at_mu_m_g(law):
    problem = cm.quasistatic(pushed_box(law), driven=PUSH)
    sol = cm.solve(problem)
    assert sol.ok, sol.message
    report = cm.verify(sol, problem)
    assert report.ok and {m.mode for m in report.modes.values()} == {"slide", "roll"}
    box = body(sol, "box")
    np.testing.assert_allclose(box.linear_velocity, [V, 0, 0], atol=1e-9)
    np.testing.assert_allclose(box.angular_velocity, [0, 0, 0], atol=1e-9)
    assert box.linear_acceleration == [0.0, 0.0, 0.0]  # inertia neglected
    assert sol.contact("finger").force[0] == pytest.approx(MU * M * G, rel=1e-9)
    # the finger's driver: mu m g along +x, and the finger's own weight (0.1 kg) up
    np.testing.assert_allclose(
        body(sol, "finger").driving_wrench, [MU * M * G, 0, 0.1 * G, 0, 0, 0], atol=1e-9
    )
    for k in range(4):
        c = sol.contact(f"c{k}")
        assert c.mode == "slide"
        np.testing.assert_allclose(c.velocity, [0, V, 0], atol=1e-9)  # the corner slips along +x
        assert c.force[1] == pytest.approx(-MU * c.force[0], rel=1e-7)  # friction mu c_n against it
    assert sum(sol.contact(f"c{k}").force[0] for k in range(4)) == pytest.approx(M * G, rel=1e-9)
    assert sol.extras["quasistatic"] and "not unique" in sol.table()


def test_centred_push_motion_unique_forces_not():
    """Four corners: the support is statically indeterminate; decide finds two answers with the
    same velocities and different forces (a continuum)."""
    verdict = cm.decide(cm.quasistatic(pushed_box(cm.Pyramid(MU)), driven=PUSH), time_limit=10)
    assert verdict.status.name == "MULTIPLE"
    assert verdict.evidence["force_distance"] > 0.1
    assert verdict.evidence["motion_distance"] < 1e-9
    assert verdict.evidence["continuum"] is True


def least_power_twist(normal_forces: np.ndarray, offset: float, norm: int) -> np.ndarray:
    """The box twist (vx, vy, wz) of least frictional power sum mu N_i |v_i| (the norm of the
    law's friction set: 2 for the cone, 1 for the pyramid with axes x, y) among the motions
    that move the finger's contact point along +x at V (Goyal, Ruina and Papadopoulos 1991;
    Mason 1986), found by scipy over the instantaneous rotation centre (cx, cy), plus the pure
    translation (the centre at infinity)."""
    finger_y = offset

    def twist(c):
        w = V / (c[1] - finger_y)  # the finger's point (-L/2, offset) moves at V along x
        return np.array([w * c[1], -w * c[0], w])

    def power(t):
        vel = np.stack([t[0] - t[2] * CORNERS[:, 1], t[1] + t[2] * CORNERS[:, 0]], axis=1)
        return MU * float(np.sum(normal_forces * np.linalg.norm(vel, ord=norm, axis=1)))

    candidates = [np.array([V, 0.0, 0.0])]
    side = -np.sign(offset)  # the centre lies on the far side of the centre line from the finger
    for start in [(0.0, 0.3 * side), (0.1, 0.2 * side), (-0.1, 0.5 * side)]:
        res = minimize(
            lambda c: power(twist(c)),
            start,
            method="Nelder-Mead",
            options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 4000},
        )
        candidates.append(twist(res.x))
    return min(candidates, key=power)


def planar_twist(sol: cm.Solution) -> np.ndarray:
    box = body(sol, "box")
    return np.array([box.linear_velocity[0], box.linear_velocity[1], box.angular_velocity[2]])


@pytest.mark.parametrize("offset", [0.05, 0.09, -0.07])
@pytest.mark.parametrize("law,norm", [(cm.CoulombCone(MU), 2), (cm.Pyramid(MU), 1)], ids=["cone", "pyramid"])
def test_off_centre_push_turns_the_way_least_power_says(law, norm, offset):
    sol = cm.solve(cm.quasistatic(pushed_box(law, offset), driven=PUSH))
    assert sol.ok, sol.message
    t = planar_twist(sol)
    normal = np.array([sol.contact(f"c{k}").force[0] for k in range(4)])
    expected = least_power_twist(normal, offset, norm)
    np.testing.assert_allclose(t, expected, atol=2e-6)
    # the sense of rotation: the push's moment about the centre of mass, -offset * F (voting theorem)
    assert t[2] * offset <= 1e-9
    if norm == 2:  # the round cone always turns; the pyramid's square limit surface may translate
        assert t[2] * offset < -1e-3
    assert body(sol, "box").linear_velocity[2] == pytest.approx(0.0, abs=1e-9)  # stays on the table


def test_every_answer_of_an_off_centre_push_turns_clockwise():
    """The cone's support indeterminacy makes the rotation rate non-unique; every answer turns the
    same way and is the least-power twist of its own support forces."""
    problem = cm.quasistatic(pushed_box(cm.CoulombCone(MU), 0.05), driven=PUSH)
    verdict = cm.decide(problem, time_limit=10)
    assert verdict.status.name == "MULTIPLE"
    found = cm.all_solutions(
        problem, method="multistart", starts=3, settings=(("newton", {}),), distinct="forces"
    )
    assert len(found) >= 2
    rates = []
    for sol in found:
        t = planar_twist(sol)
        normal = np.array([sol.contact(f"c{k}").force[0] for k in range(4)])
        np.testing.assert_allclose(t, least_power_twist(normal, 0.05, 2), atol=2e-6)
        rates.append(t[2])
    assert max(rates) < -1e-3


GRIP = {"left": [0, 0, 0.05, 0, 0, 0], "right": [0, 0, 0.05, 0, 0, 0]}  # both fingers lift at 5 cm/s


def gripped(law: cm.FrictionLaw, beta: float) -> cm.System:
    """A 1 kg block between two fingers; each contact normal tilted ``beta`` below the line of the
    contacts (a block wider at the bottom: the grip must hold it by friction). The grasp is inside
    the friction cones when beta < atan(mu)."""
    s = cm.System()
    block = s.add_body("block", 1.0, np.diag([1e-3] * 3))
    left = s.add_body("left", 0.1, np.diag([1e-5] * 3), position=(-0.06, 0, 0))
    right = s.add_body("right", 0.1, np.diag([1e-5] * 3), position=(0.06, 0, 0))
    cb, sb = np.cos(beta), np.sin(beta)
    s.add_contact(block, left, (-0.05, 0, 0), (cb, 0, -sb), (0, 1, 0), friction=law, name="left")
    s.add_contact(block, right, (0.05, 0, 0), (-cb, 0, -sb), (0, 1, 0), friction=law, name="right")
    return s


GRIP_MU = 0.5


@pytest.mark.parametrize(
    "law", [cm.Pyramid(GRIP_MU), cm.CoulombCone(GRIP_MU)], ids=lambda law: type(law).__name__
)
def test_grip_inside_the_cones_does_not_slip(law):
    sol = cm.solve(cm.quasistatic(gripped(law, 0.2), driven=GRIP))
    assert sol.ok, sol.message
    np.testing.assert_allclose(body(sol, "block").linear_velocity, [0, 0, 0.05], atol=1e-9)
    np.testing.assert_allclose(body(sol, "block").angular_velocity, [0, 0, 0], atol=1e-9)
    for name in ("left", "right"):
        c = sol.contact(name)
        assert c.mode == "roll"  # sticking: no relative velocity
        np.testing.assert_allclose(c.velocity, 0, atol=1e-9)
        assert c.force[0] > 0 and np.hypot(c.force[1], c.force[2]) <= GRIP_MU * c.force[0] * (1 + 1e-9)
    # the fingers carry the block's weight
    lift = body(sol, "left").driving_wrench[2] + body(sol, "right").driving_wrench[2]
    assert lift == pytest.approx((1.0 + 0.2) * G, rel=1e-9)


def test_grip_outside_the_cones_has_no_quasistatic_answer():
    """beta > atan(mu): no grip force holds the block (it would squirt out); decide proves it
    for the pyramid by an exact Farkas ray, and newton finds no answer for the cone."""
    beta = np.arctan(GRIP_MU) + 0.05
    verdict = cm.decide(cm.quasistatic(gripped(cm.Pyramid(GRIP_MU), beta), driven=GRIP), time_limit=10)
    assert verdict.status.name == "NO_SOLUTION" and verdict.exact
    assert not cm.solve(cm.quasistatic(gripped(cm.CoulombCone(GRIP_MU), beta), driven=GRIP)).ok


def test_parallel_grip_is_not_unique():
    """Straight sides (beta = 0): the grip force is free, so the block may slip down (grip force
    m g / (2 mu)) or stick (any larger force): decide finds answers with different motions."""
    verdict = cm.decide(cm.quasistatic(gripped(cm.Pyramid(GRIP_MU), 0.0), driven=GRIP), time_limit=10)
    assert verdict.status.name == "MULTIPLE"
    assert verdict.evidence["motion_distance"] > 1e-6


def test_sparse_rows_are_the_dynamic_rows_without_inertia():
    """The quasistatic MCP is the sparse form's with M = 0: its Newton-Euler rows are -G_F^T c - f_F,
    its contact rows G_F nu_F + G_P nu_P; the built Pyomo model compiles to the same MCP."""
    problem = cm.quasistatic(pushed_box(cm.Pyramid(MU), 0.05), driven=PUSH)
    direct = problem.compile().mcp
    x = np.random.default_rng(1).normal(size=direct.n)
    F_direct = direct.F(x)
    assert problem.model is not None  # build the Pyomo model, then compile it
    built = problem.compile(refresh=True).mcp
    np.testing.assert_array_equal(built.F(x), F_direct)
    nf = int((~problem.assembly.prescribed).sum())
    assert nf == 6 and np.all(direct.lb[:nf] == -np.inf)
    J = direct.J(x)
    J = J.toarray() if hasattr(J, "toarray") else np.asarray(J)
    assert np.all(J[:nf, :nf] == 0.0)  # no inertia: equilibrium rows do not read the velocities


def test_push_integrates_the_driven_motion():
    path = cm.push(pushed_box(cm.CoulombCone(MU)), PUSH, dt=0.1, steps=3)
    np.testing.assert_allclose(path.position("box")[:, 0], [0.0, 0.01, 0.02, 0.03], atol=1e-9)
    np.testing.assert_allclose(path.position("finger")[-1], [-L / 2 - 0.01 + 0.03, 0, H / 2], atol=1e-12)
    turning = cm.push(pushed_box(cm.CoulombCone(MU), 0.05), PUSH, dt=0.1, steps=3)
    yaw = turning.yaw("box")
    assert yaw[0] == 0.0 and np.all(np.diff(yaw) < 0)  # clockwise, step after step
    assert len(turning.solutions) == 3 and all(s.ok for s in turning.solutions)


def test_bad_declarations_name_the_field():
    system = pushed_box(cm.Pyramid(MU))
    with pytest.raises(DeclarationError, match="form must be 'sparse'"):
        cm.quasistatic(system, driven=PUSH, form="reduced")
    with pytest.raises(DeclarationError, match="no body or manipulator"):
        cm.quasistatic(system, driven={"pusher": [V, 0, 0, 0, 0, 0]})
    with pytest.raises(DeclarationError, match="twist of 6 numbers"):
        cm.quasistatic(system, driven={"finger": [V, 0, 0]})
    problem = cm.quasistatic(system, driven=PUSH)
    with pytest.raises(StateError, match="quasistatic problem has no"):
        _ = problem.assembly.A_sparse
    with pytest.raises(FormulationError, match="only the sparse form"):
        problem.reformulate(form="reduced")


EXAMPLE = str(Path(__file__).resolve().parents[1] / "examples" / "quasistatic_push.py")


def test_cli_solves_the_example_quasistatically(capsys):
    from contactmodel.cli import main

    assert main(["solve", EXAMPLE, "--quasistatic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    box = next(b for b in out["bodies"] if b["name"] == "box")
    assert box["angular_velocity"][2] < -1e-3  # the example's finger is left of the centre line
    # the pyramid's motion is unique here (a translation): twice the finger's speed, twice the box's
    pyramid = ["--friction", "pyramid:0.4", "--json"]
    assert main(["solve", EXAMPLE, "--quasistatic", *pyramid]) == 0
    slow = next(b for b in json.loads(capsys.readouterr().out)["bodies"] if b["name"] == "box")
    assert main(["solve", EXAMPLE, "--quasistatic", "--drive", "finger=0.2,0,0,0,0,0", *pyramid]) == 0
    fast = next(b for b in json.loads(capsys.readouterr().out)["bodies"] if b["name"] == "box")
    np.testing.assert_allclose(fast["linear_velocity"], 2 * np.array(slow["linear_velocity"]), atol=1e-9)
    assert slow["linear_velocity"][0] == pytest.approx(0.1, abs=1e-9)
    assert main(["solve", EXAMPLE, "--drive", "finger=0.2,0,0,0,0,0"]) == 2  # needs --quasistatic
    assert "--quasistatic" in capsys.readouterr().err
    assert main(["solve", EXAMPLE, "--quasistatic", "--drive", "finger=fast"]) == 2
    assert "NAME=V1,V2" in capsys.readouterr().err


def test_two_arms_lift_a_gripped_cube_by_their_quills():
    """The SCARA grasp of examples/scara_grasp.py at rest, quasistatic: shoulder and elbow keep
    their known torques (a 200 N squeeze), the quills (unknown efforts) are driven up at 0.1 m/s.
    The squeeze holds the cube inside both cones (mu 0.1 and 0.2: 20 N + 40 N >= m g = 29.43 N),
    so it rises with the fingers; the quills carry its weight and their links'."""
    from contactmodel.models.scara_grasp import build

    system = build(sliding=False)
    driven = {arm.name: [None, None, 0.1, None] for arm in system.manipulators}
    sol = cm.solve(cm.quasistatic(system, driven=driven))
    assert sol.ok, sol.message
    cube = body(sol, "cube")
    assert cube.linear_velocity[2] == pytest.approx(0.1, abs=1e-6)
    assert [c.mode for c in sol.contacts] == ["roll", "roll"]
    assert all(c.force[0] == pytest.approx(200.0, rel=1e-6) for c in sol.contacts)
    friction = sum(c.force[1] for c in sol.contacts)  # t = -z at both contacts: the weight's share
    assert -friction == pytest.approx(3.0 * G, rel=1e-6)
    quills = [j for j in sol.joints if j.name.endswith("vertical")]
    assert [j.velocity for j in quills] == [0.1, 0.1]
    assert sum(j.effort for j in quills) > 3.0 * G  # the cube's weight and the links'


def test_update_takes_new_loads():
    """problem.update(f=...) re-reads the loads without formulating again: a box twice as heavy
    needs twice the push."""
    problem = cm.quasistatic(pushed_box(cm.Pyramid(MU)), driven=PUSH)
    assert cm.solve(problem).contact("finger").force[0] == pytest.approx(MU * M * G, rel=1e-9)
    f = problem.assembly.f.copy()
    f[2] *= 2.0  # the box's weight (its z row)
    problem.update(f=f)
    sol = cm.solve(problem)
    assert sol.ok and sol.contact("finger").force[0] == pytest.approx(2 * MU * M * G, rel=1e-9)
