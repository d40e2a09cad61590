"""Bad input to simulate gives named errors; a failing step stops the run and keeps its model."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.errors import ContactModelError, SolverError
from contactmodel.simulation import SimulationError, simulate

from .scenes import sliding_box


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"t_end": 1.0, "dt": 0.0}, "dt"),
        ({"t_end": 1.0, "dt": -1e-3}, "dt"),
        ({"t_end": -1.0, "dt": 1e-3}, "t_end"),
        ({"t_end": float("nan"), "dt": 1e-3}, "t_end"),
        ({"t_end": 0.1, "dt": 1e-2, "margin": -1.0}, "margin"),
        ({"t_end": 0.1, "dt": 1e-2, "restitution": 2.0}, "restitution"),
    ],
)
def test_bad_step_or_duration_is_a_named_error(kwargs, field):
    system, planes = sliding_box()
    with pytest.raises(SimulationError, match=field):
        simulate(system, friction=cm.Pyramid(0.5), planes=planes, solver="lemke", **kwargs)


def test_nan_state_is_a_named_error():
    system, planes = sliding_box()
    system.bodies[0].velocity = np.array([np.nan, 0.0, 0.0])
    with pytest.raises(ContactModelError, match="velocity"):
        simulate(system, t_end=0.1, dt=1e-2, friction=cm.Pyramid(0.5), planes=planes)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the rotation of inf
def test_a_step_to_a_non_finite_state_is_a_named_error_and_keeps_the_last_state():
    """The pose update checks the new state of every body before writing it: the first
    non-finite field is named, and the bodies keep their last (finite) state."""
    from contactmodel.simulation.stepper import Simulator

    system, planes = sliding_box()
    system.add_body("other", 1.0, cm.inertia.box(1.0, (0.1,) * 3), position=(2.0, 0.0, 1.0))
    sim = Simulator(system, 1e-2, friction=cm.Pyramid(0.5), planes=planes)
    before = [(b.position.copy(), b.velocity.copy()) for b in system.bodies]
    nu = np.zeros(12)
    nu[9] = np.inf  # the second body's angular velocity about y
    with pytest.raises(SimulationError, match="body 'other'.angular_velocity is not finite"):
        sim.advance(nu)
    for body, (x, v) in zip(system.bodies, before):
        assert np.array_equal(body.position, x) and np.array_equal(body.velocity, v)
    assert sim.t == 0.0


def test_controller_wrong_shape_or_raising_is_a_named_error():
    system, planes = sliding_box()
    with pytest.raises(SimulationError, match=r"wrenches\['box'\] returned 3 values"):
        simulate(
            system, 0.05, 1e-2, cm.Pyramid(0.5), "lemke", planes, wrenches={"box": lambda t, s: [0, 0, 1]}
        )

    def broken(t, state):
        raise RuntimeError("sensor offline")

    with pytest.raises(SimulationError, match="sensor offline"):
        simulate(system, 0.05, 1e-2, cm.Pyramid(0.5), "lemke", planes, wrenches={"box": broken})
    with pytest.raises(SimulationError, match="wrenches"):
        simulate(system, 0.05, 1e-2, cm.Pyramid(0.5), "lemke", planes, wrenches={"nobody": broken})


def test_controller_wrench_pushes_the_box():
    system, planes = sliding_box((0.0, 0.0, 0.0))
    force = 2 * 0.5 * 9.81  # twice the friction limit of a 1 kg box, mu = 0.5
    traj = simulate(
        system,
        0.1,
        1e-2,
        cm.Pyramid(0.5),
        "lemke",
        planes,
        wrenches={"box": lambda t, s: [force, 0, 0, 0, 0, 0]},
    )
    # net acceleration F/m - mu g = mu g; semi-implicit Euler: v_k = a k dt
    assert np.allclose(traj.velocities[:, 0, 0], 0.5 * 9.81 * traj.times, atol=1e-9)


def test_failing_step_stops_the_run_and_keeps_its_model():
    system, planes = sliding_box()
    with pytest.warns(RuntimeWarning, match="stops here"):
        traj = simulate(system, 0.1, 1e-2, cm.Pyramid(0.5), "lemke", planes, max_pivots=1)
    assert not traj.ok and traj.failed_step == 0 and traj.n_steps == 0
    assert traj.step_model(0) is traj.failed_problem
    assert cm.solve(traj.failed_problem, solver="lemke").ok, "the kept model is the real step"
    with pytest.raises(SolverError, match="step 0"):
        simulate(system, 0.1, 1e-2, cm.Pyramid(0.5), "lemke", planes, on_failure="raise", max_pivots=1)


def test_step_models_are_inspectable_and_reused():
    system, planes = sliding_box()
    traj = simulate(system, 0.05, 1e-2, cm.Pyramid(0.5), "lemke", planes)
    assert traj.ok and traj.reused[1:].all(), "contact set and A unchanged: the model is updated, not rebuilt"
    problem = traj.step_model(2)
    solution = cm.solve(problem, solver="lemke")
    p = np.concatenate([traj.impulses[name][2] for name in problem.contact_names])
    assert np.allclose(problem.force_vector(), p, atol=1e-10)
    assert solution.ok


def test_on_failure_is_a_choice_named_in_its_error():
    """``on_failure`` takes "stop" or "raise" (``OnFailure``); anything else names the field."""
    from contactmodel.simulation.stepper import OnFailure

    assert OnFailure.values() == ("stop", "raise")
    with pytest.raises(cm.SimulationError, match="on_failure must be one of"):
        simulate(cm.System(), 0.1, 1e-2, on_failure="ignore")
