"""The time-stepping examples: the facts their docstrings state, on short runs, and energy that
never increases from one step to the next (inelastic contact, no actuation)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ENERGY_TOL = 1e-8  # J: solver tolerance times the impulses involved


def _load(name: str):
    module_name = f"_sim_example_{name}"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def _no_energy_gain(traj) -> None:
    assert traj.ok
    assert np.max(np.diff(traj.energy)) <= ENERGY_TOL


def test_painleve_rod_jams_where_the_instantaneous_problem_has_no_solution():
    ex = _load("sim_painleve")
    instant = cm.solve(cm.formulate(ex.build(), friction=cm.Pyramid(ex.MU)), solver="lemke")
    assert instant.status is cm.Status.INFEASIBLE_CERTIFIED
    traj = cm.simulate(ex.build(), t_end=0.02, dt=1e-3, **ex.simulation())
    _no_energy_gain(traj)
    name = next(iter(traj.impulses))
    p = traj.impulses[name][0]
    assert p[0] > 0 and abs(p[1]) <= ex.MU * p[0] + 1e-12, "a finite impulse inside the friction set"
    assert abs(traj.contact_velocities[name][0, 1]) < 1e-9, "the foot stops sliding in one step"


def test_stack_settles_with_the_weights_on_each_interface():
    ex = _load("sim_stack")
    traj = cm.simulate(ex.build(0.5), t_end=0.05, dt=1e-2, **ex.simulation())
    _no_energy_gain(traj)
    assert np.allclose(traj.velocities[-1], 0.0, atol=1e-8)
    for k in range(ex.N):
        total = sum(traj.impulses[f"s{k}.{j}"][-1, 0] for j in range(4))
        assert total / traj.dt == pytest.approx((ex.N - k) * ex.G, rel=1e-7)
    assert traj.energy[0] - traj.energy[-1] >= 0.5 * 0.5**2 - 1e-6, "the drop's kinetic energy is gone"


@pytest.mark.parametrize(("degrees", "tips"), [(10.0, False), (20.0, True)])
def test_box_on_an_edge_tips_only_past_tan_phi_w_over_h(degrees, tips):
    ex = _load("sim_box_tip")
    assert (math.radians(degrees) > math.atan(ex.W / ex.H)) is tips
    traj = cm.simulate(ex.build(math.radians(degrees)), t_end=0.6, dt=5e-3, **ex.simulation())
    _no_energy_gain(traj)
    assert ex.tipped(traj) is tips


@pytest.mark.parametrize("name", ["sim_box_slide", "sim_incline", "sim_sphere_roll"])
def test_closed_form_examples_run_and_dissipate(name):
    ex = _load(name)
    traj = cm.simulate(ex.build(), t_end=0.05, dt=1e-2, **ex.simulation())
    _no_energy_gain(traj)


def test_scara_grasp_lifts_the_cube_without_slipping():
    ex = _load("sim_scara_grasp")
    system = ex.build()
    t_end, dt = 0.1, 2e-3
    traj = cm.simulate(system, t_end=t_end, dt=dt, **ex.simulation(system))
    assert traj.ok
    k = traj.body("cube")
    rise = traj.positions[-1, k, 2] - traj.positions[0, k, 2]
    z_ref, _ = ex.lift_profile(t_end)
    # the fingertips follow the profile within the PD's tracking error, and the cube with them
    assert rise == pytest.approx(z_ref, abs=0.1 * z_ref), (rise, z_ref)
    for name in ("tip1", "tip2"):
        assert set(traj.modes[name]) == {"roll"}, "the contacts stick"
        assert np.allclose(traj.contact_forces(name)[:, 0], ex.SQUEEZE, rtol=0.05)
    assert np.abs(traj.angular_velocities[:, k]).max() < 1e-3, "the cube does not turn"


def test_compliant_box_sinks_m_g_over_4k_and_stops_with_the_rigid_one():
    ex = _load("sim_compliant_box")
    traj = cm.simulate(ex.build(), t_end=0.25, dt=1e-3, **ex.simulation())
    _no_energy_gain(traj)
    closed = ex.V0**2 / (2 * ex.MU * ex.G)
    t_rigid, x_rigid = ex.stop(traj, "rigid")
    t_soft, x_soft = ex.stop(traj, "soft")
    assert abs(x_rigid - closed) <= ex.V0 * traj.dt
    assert x_soft == pytest.approx(closed, rel=0.01)
    assert abs(t_soft - ex.V0 / (ex.MU * ex.G)) <= 2 * traj.dt
    sink = ex.SIDE / 2 - traj.positions[-1, traj.body("soft"), 2]
    assert sink == pytest.approx(ex.MASS * ex.G / (4 * ex.K), rel=0.01)
    assert ex.SIDE / 2 - traj.positions[-1, traj.body("rigid"), 2] <= 1e-9
