"""Compliant contact (cm.Compliant): the forces against hand values and finite differences, and
the implicit step against closed forms: the resting penetration m g / (n k), the sliding stop
distance v0^2 / (2 mu g) as the friction regularization goes to zero, energy that never rises,
stability of a stiff contact at dt = 1e-3, and rigid and compliant contacts side by side."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.cli import main
from contactmodel.friction.sets import BoxPart, EllipsoidPart, PolygonPart, PolytopePart
from contactmodel.shapes import Box
from contactmodel.simulation.compliant import CompliantError, parse_contact, regularized_friction

G, SIDE, MASS, MU = 9.81, 0.2, 1.0, 0.5
ENERGY_TOL = 1e-10  # J: roundoff of energies of a few J


def _box(system: cm.System, name: str = "box", x=0.0, y=0.0, z=SIDE / 2, v0=0.0) -> None:
    system.add_body(
        name,
        MASS,
        cm.inertia.box(MASS, (SIDE,) * 3),
        position=(x, y, z),
        velocity=(v0, 0, 0),
        shape=Box((SIDE,) * 3),
    )


def _one_box(z=SIDE / 2, v0=0.0) -> cm.System:
    system = cm.System(gravity=(0, 0, -G))
    _box(system, z=z, v0=v0)
    return system


def _run(system, model, t_end, law=None, dt=1e-3):
    traj = cm.simulate(
        system,
        t_end=t_end,
        dt=dt,
        planes=[cm.Plane(tangent=(1, 0, 0))],
        friction=law or cm.CoulombCone(MU),
        contact=model,
    )
    assert traj.ok
    return traj


# -- the forces ---------------------------------------------------------------------------------
def test_linear_normal_force_is_the_spring_damper_and_never_pulls():
    model = cm.Compliant(1e4, 50.0)
    d = np.array([1e-3, 1e-3, -1e-3, 1e-3])
    ddot = np.array([0.1, -0.1, 0.5, -1.0])
    f, _ = model.normal(d, ddot, 1e-3)
    np.testing.assert_allclose(f, [10.0 + 5.0, 10.0 - 5.0, 0.0, 0.0])


def test_hunt_crossley_force_is_k_d_to_the_n_times_one_plus_c_d_dot():
    model = cm.Compliant(2e9, 0.3, model="hunt-crossley", exponent=1.5)
    f, _ = model.normal(np.array([1e-4]), np.array([0.5]), 1e-3)
    assert f[0] == pytest.approx(2e9 * 1e-6 * (1 + 0.15), rel=1e-12)
    assert model.energy(np.array([1e-4])) == pytest.approx(2e9 * 1e-4**2.5 / 2.5, rel=1e-12)


@pytest.mark.parametrize("kind", ["linear", "hunt-crossley"])
def test_normal_force_slope_is_its_derivative_in_the_new_normal_velocity(kind):
    model = cm.Compliant(1e5, 30.0 if kind == "linear" else 0.4, model=kind)
    h, d0 = 1e-3, 2e-4
    un = np.array([-0.05, 0.01, 0.03])

    def force(u):
        return model.normal(d0 - h * u, -u, h)[0]

    _, slope = model.normal(d0 - h * un, -un, h)
    eps = 1e-7
    np.testing.assert_allclose(slope, (force(un + eps) - force(un - eps)) / (2 * eps), rtol=1e-6)


PARTS = [
    EllipsoidPart("to", MU, 1.0),
    EllipsoidPart("tor", MU, np.array([1.0, 0.5, 0.1]), np.array([1.0, 2.0, 3.0])),
    BoxPart("to", MU),
    PolygonPart(MU, np.array([[np.cos(a), np.sin(a)] for a in 2 * np.pi * np.arange(6) / 6])),
    PolytopePart("to", [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1]], [MU, MU, MU, MU, 0.6]),
]


@pytest.mark.parametrize("part", PARTS, ids=lambda p: type(p).__name__)
def test_regularized_friction_dissipates_and_its_jacobian_matches_finite_differences(part):
    rng = np.random.default_rng(0)
    p = len(part.components)
    u = rng.normal(scale=2e-3, size=(20, p))
    f, jac = regularized_friction(part, u, 1e-3)
    assert np.all(np.sum(f * u, axis=1) <= 1e-15), "friction never does positive work"
    assert np.all([part.excess(1.0, row) <= 1e-12 for row in f]), "inside the friction set"
    eps = 1e-9
    for j in range(p):
        du = np.zeros(p)
        du[j] = eps
        fd = (regularized_friction(part, u + du, 1e-3)[0] - regularized_friction(part, u - du, 1e-3)[0]) / (
            2 * eps
        )
        np.testing.assert_allclose(jac[:, :, j], fd, rtol=1e-4, atol=1e-6 * np.abs(jac).max())


def test_regularized_cone_is_the_stated_formula_and_tends_to_coulomb():
    part = EllipsoidPart("to", MU, 1.0)
    u = np.array([[3e-3, -4e-3]])
    f, _ = regularized_friction(part, u, 1e-3)
    np.testing.assert_allclose(f[0], -MU * u[0] / np.sqrt(25e-6 + 1e-6), rtol=1e-13)
    fast, _ = regularized_friction(part, u, 1e-9)
    np.testing.assert_allclose(fast[0], -MU * u[0] / 5e-3, rtol=1e-12)


# -- the step -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (cm.Compliant(1e5, 100.0), MASS * G / (4 * 1e5)),
        (cm.Compliant(1e8, 0.5, model="hunt-crossley"), (MASS * G / (4 * 1e8)) ** (1 / 1.5)),
    ],
    ids=["linear", "hunt-crossley"],
)
def test_box_at_rest_settles_at_m_g_over_n_k(model, expected):
    traj = _run(_one_box(), model, 0.3)
    sink = SIDE / 2 - traj.positions[-1, 0, 2]
    assert sink == pytest.approx(expected, rel=0.01)
    for name, p in traj.impulses.items():
        assert p[-1, 0] / traj.dt == pytest.approx(MASS * G / 4, rel=0.01), name
    assert np.max(np.diff(traj.energy)) <= ENERGY_TOL


def test_sliding_box_stops_at_the_closed_form_as_the_regularization_goes_to_zero():
    k = 1e5
    expected = 1.0 / (2 * MU * G)
    errors = {}
    for vs in (1e-2, 1e-3, 1e-4):
        model = cm.Compliant(k, 200.0, friction_regularization=vs)
        traj = _run(_one_box(z=SIDE / 2 - MASS * G / (4 * k), v0=1.0), model, 0.3)
        assert np.linalg.norm(traj.velocities[-1, 0]) < 1e-6, "the box has stopped"
        errors[vs] = traj.positions[-1, 0, 0] / expected - 1.0
        assert np.max(np.diff(traj.energy)) <= ENERGY_TOL
    print("stop distance error against v_s:", {vs: f"{e:+.3%}" for vs, e in errors.items()})
    assert all(abs(e) < 0.01 for e in errors.values())
    # the regularization's share of the error (against the smallest v_s) shrinks with v_s
    assert abs(errors[1e-2] - errors[1e-4]) > abs(errors[1e-3] - errors[1e-4])
    assert abs(errors[1e-3] - errors[1e-4]) < 1e-3


@pytest.mark.parametrize(
    "model",
    [cm.Compliant(1e5, 50.0), cm.Compliant(1e7, 0.3, model="hunt-crossley")],
    ids=["linear", "hunt-crossley"],
)
def test_energy_never_rises_when_a_box_drops_bounces_and_slides(model):
    traj = _run(_one_box(z=SIDE / 2 + 0.01, v0=0.5), model, 0.25)
    rises = np.diff(traj.energy)
    assert np.max(rises) <= ENERGY_TOL, f"largest one-step rise {np.max(rises):.3g} J"
    assert traj.energy[-1] < traj.energy[0] - 0.1, "the drop and the slide dissipate"


def test_stiff_contact_is_stable_at_dt_1e_3():
    # k h^2 / m = 1e3: an explicit step would grow any oscillation a thousandfold per step
    k = 1e9
    traj = _run(_one_box(z=SIDE / 2 + 0.01), cm.Compliant(k, 0.0), 0.2, dt=1e-3)
    assert np.all(np.isfinite(traj.positions))
    assert np.max(np.diff(traj.energy)) <= ENERGY_TOL
    assert np.linalg.norm(traj.velocities[-1, 0]) < 1e-3
    assert SIDE / 2 - traj.positions[-1, 0, 2] == pytest.approx(MASS * G / (4 * k), rel=0.05)


@pytest.mark.parametrize(
    "law",
    [
        cm.Pyramid(MU),
        cm.Polygonal(MU, k=8),
        cm.PolyhedralLimitSurface([[1, 0], [-1, 0], [0, 1], [0, -1]], MU),
    ],
    ids=lambda law: type(law).__name__,
)
def test_every_law_slides_the_box_to_the_same_stop_along_an_axis(law):
    k = 1e5
    traj = _run(_one_box(z=SIDE / 2 - MASS * G / (4 * k), v0=1.0), cm.Compliant(k, 200.0), 0.22, law=law)
    assert traj.positions[-1, 0, 0] == pytest.approx(1.0 / (2 * MU * G), rel=0.01)


def test_rigid_and_compliant_boxes_run_side_by_side_on_one_floor():
    k = 1e5
    system = cm.System(gravity=(0, 0, -G))
    _box(system, "rigid", v0=1.0)
    _box(system, "soft", y=1.0, z=SIDE / 2 - MASS * G / (4 * k), v0=1.0)
    traj = _run(system, {"soft": cm.Compliant(k, 200.0)}, 0.22)
    alone = _run(_one_box(v0=1.0), None, 0.22)
    np.testing.assert_allclose(traj.positions[:, 0], alone.positions[:, 0], atol=1e-9)
    assert SIDE / 2 - traj.positions[-1, 1, 2] == pytest.approx(MASS * G / (4 * k), rel=0.01)
    assert traj.positions[-1, 1, 0] == pytest.approx(traj.positions[-1, 0, 0], rel=0.01)


def test_a_compliant_box_rests_on_a_rigid_one():
    k = 1e6
    system = cm.System(gravity=(0, 0, -G))
    _box(system, "bottom")
    _box(system, "top", z=1.5 * SIDE - MASS * G / (4 * k))
    traj = _run(system, {"top": cm.Compliant(k, 500.0)}, 0.05, law=cm.Pyramid(MU))
    top = [name for name in traj.impulses if "top" in name]  # the box-box contacts
    bottom = [name for name in traj.impulses if name.endswith("@plane")]
    assert len(top) == 4
    assert sum(traj.impulses[n][-1, 0] for n in top) / traj.dt == pytest.approx(MASS * G, rel=1e-6)
    assert sum(traj.impulses[n][-1, 0] for n in bottom) / traj.dt == pytest.approx(2 * MASS * G, rel=1e-6)
    assert np.max(np.abs(traj.velocities[-1])) < 1e-6


# -- input --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"stiffness": 0.0}, "stiffness"),
        ({"stiffness": 1.0, "damping": -1.0}, "damping"),
        ({"stiffness": 1.0, "model": "hertz"}, "model"),
        ({"stiffness": 1.0, "friction_regularization": 0.0}, "friction_regularization"),
    ],
)
def test_bad_parameters_name_the_field(kwargs, field):
    with pytest.raises(CompliantError, match=field):
        cm.Compliant(**kwargs)


def test_contact_must_be_a_model_or_a_mapping_of_models():
    with pytest.raises(CompliantError, match="contact"):
        cm.simulate(_one_box(), t_end=0.01, dt=1e-3, planes=[cm.Plane()], contact="soft")
    with pytest.raises(CompliantError, match="box"):
        cm.simulate(_one_box(), t_end=0.01, dt=1e-3, planes=[cm.Plane()], contact={"box": 1e5})


def test_contact_specs_of_the_command_line():
    assert parse_contact("compliant:1e5:100") == cm.Compliant(1e5, 100.0)
    assert parse_contact("compliant:1e8:0.3:hunt-crossley:1e-3") == cm.Compliant(
        1e8, 0.3, model="hunt-crossley", friction_regularization=1e-3
    )
    assert parse_contact("rigid") is None
    for bad in ("compliant:1e5", "soft:1:2", "compliant:a:b"):
        with pytest.raises(CompliantError, match="compliant:K:C"):
            parse_contact(bad)


def test_simulate_command_takes_a_compliant_contact(tmp_path):
    example = Path(__file__).resolve().parents[2] / "examples" / "sim_compliant_box.py"
    out = tmp_path / "run.npz"
    args = ["simulate", str(example), "--t-end", "0.1", "--no-progress", "--out", str(out)]
    assert main([*args, "--contact", "compliant:1e6:500"]) == 0
    traj = cm.simulation.load(out)
    sink = SIDE / 2 - traj.positions[-1, :, 2]
    np.testing.assert_allclose(sink, MASS * G / 4e6, rtol=0.01)  # both boxes compliant, k = 1e6


def test_linear_force_of_a_contact_closing_in_the_step_is_continuous_where_it_touches():
    # open at the start of the step (not touching): undamped, so no jump at d = 0
    model = cm.Compliant(1e5, 300.0)
    f, _ = model.normal(np.array([-1e-12, 1e-12]), np.array([0.5, 0.5]), 1e-3, np.array([False, False]))
    assert f[0] == 0.0 and f[1] == pytest.approx(1e5 * 1e-12)


def test_a_dropped_stack_of_compliant_boxes_lands_and_settles():
    k = 1e5
    system = cm.System(gravity=(0, 0, -G))
    _box(system, "bottom", z=SIDE / 2 + 0.005)
    _box(system, "top", x=0.02, z=1.5 * SIDE + 0.0105)
    traj = _run(system, cm.Compliant(k, 300.0), 0.15, law=cm.Pyramid(MU))
    assert np.max(np.diff(traj.energy)) <= ENERGY_TOL
    sink = SIDE / 2 - traj.positions[-1, 0, 2]
    assert sink == pytest.approx(2 * MASS * G / (4 * k), rel=0.05)


# -- the step models ----------------------------------------------------------------------------
def _resolved(traj, k):
    """Step k's model solved afresh: (its contacts' impulses by name, nu+ of its bodies). The
    split of a box's load over its four corners is one of many (statically indeterminate): the
    velocities and the total normal impulse are what a re-solve must reproduce."""
    problem = traj.step_model(k)
    assert cm.solve(problem, solver=traj.solver).ok
    p = problem.force_vector()
    rows = problem.assembly.contact_rows
    impulses = {name: p[list(rows[name].values())] for name in problem.contact_names}
    return impulses, problem.assembly.accelerations(p)


def _recorded_velocities(traj, k):
    n = len(traj.body_names)
    return np.hstack([traj.velocities[k + 1], traj.angular_velocities[k + 1]]).reshape(6 * n)


@pytest.mark.parametrize("coupled", [False, True])
def test_step_model_of_a_compliant_step_reproduces_its_impulses_and_velocities(coupled):
    """A step with rigid and compliant contacts: its model is the rigid contacts' problem with the
    compliant impulses as a load, and solving it again gives the recorded rigid impulses and the
    recorded post-step velocities of every body (coupled: the compliant box rests on the rigid
    one, so the bottom box touches both kinds)."""
    k_spring = 1e5
    system = cm.System(gravity=(0, 0, -G))
    if coupled:
        _box(system, "bottom")
        _box(system, "top", z=1.5 * SIDE - MASS * G / (4 * 1e6))
        model = {"top": cm.Compliant(1e6, 500.0)}
    else:
        _box(system, "rigid", v0=1.0)
        _box(system, "soft", y=1.0, z=SIDE / 2 - MASS * G / (4 * k_spring), v0=1.0)
        model = {"soft": cm.Compliant(k_spring, 200.0)}
    traj = _run(system, model, 0.02, law=cm.Pyramid(MU), dt=1e-2 if not coupled else 1e-3)
    for k in (0, traj.n_steps - 1):
        impulses, nu = _resolved(traj, k)
        soft = [n for n in traj.impulses if ("top" if coupled else "soft") in n]
        assert soft and not set(soft) & set(impulses), "the compliant contacts are a load, not unknowns"
        assert len(impulses) == 4
        # the coupled step's rigid solve was loaded with the compliant impulses of its last sweep,
        # within COUPLING_TOL (1e-10 N s here) of the recorded ones
        total = sum(traj.impulses[name][k, 0] for name in impulses)
        assert sum(p[0] for p in impulses.values()) == pytest.approx(total, rel=1e-8, abs=1e-9)
        np.testing.assert_allclose(nu, _recorded_velocities(traj, k), atol=1e-8)


def test_step_model_of_an_all_compliant_step_says_there_is_none():
    k = 1e5
    traj = _run(_one_box(z=SIDE / 2 - MASS * G / (4 * k)), cm.Compliant(k, 200.0), 0.003)
    with pytest.raises(cm.ContactModelError, match="all compliant"):
        traj.step_model(1)


def test_step_model_of_a_rigid_step_reproduces_its_impulses_and_velocities():
    system = _one_box(v0=1.0)
    traj = _run(system, None, 0.03, law=cm.Pyramid(MU), dt=1e-2)
    for k in range(traj.n_steps):
        impulses, nu = _resolved(traj, k)
        assert len(impulses) == 4
        total = sum(traj.impulses[name][k, 0] for name in impulses)
        assert sum(p[0] for p in impulses.values()) == pytest.approx(total, rel=1e-8)
        np.testing.assert_allclose(nu, _recorded_velocities(traj, k), atol=1e-9)
