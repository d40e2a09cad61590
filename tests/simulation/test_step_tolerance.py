"""The simulation tolerance ``step_tol``: solved-inaccurate steps within it are accepted as they
are, above it the step's other statements are tried; either way each step's record says so."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.simulation import SimulationError, load, simulate
from contactmodel.simulation.stepper import STEP_TOL

from .scenes import sliding_box

#: accept_tol so small that newton's answers (residual ~1e-16) are all solved-inaccurate
TINY = 1e-30


def _run(step_tol: float, **options):
    system, planes = sliding_box(v0=(0.4, 0.3, 0.0))
    return simulate(
        system, 0.03, 1e-2, cm.CoulombCone(0.5, form="soc"), planes=planes, step_tol=step_tol, **options
    )


def test_inaccurate_steps_within_step_tol_skip_the_fallback():
    accepted = _run(STEP_TOL, accept_tol=TINY)
    retried = _run(0.0, accept_tol=TINY)
    inaccurate = [k for k, s in enumerate(accepted.status) if s == "solved-inaccurate"]
    assert inaccurate, "the scene must give solved-inaccurate steps at this accept_tol"
    assert all(accepted.fallback[k] == "" for k in range(accepted.n_steps))
    assert np.all(accepted.residual[inaccurate] <= STEP_TOL)
    assert accepted.step_tol == STEP_TOL and retried.step_tol == 0.0
    # step_tol = 0: every solved-inaccurate step went through the other statements
    assert all(f != "" for f, s in zip(retried.fallback, retried.status) if s == "solved-inaccurate")
    assert any(f != "" for f in retried.fallback)
    # the answers are the same motion to far better than the tolerance
    assert np.abs(accepted.positions - retried.positions).max() < 1e-9
    assert "steps retried in other statements: 0" in accepted.summary()


def test_fallback_off_and_default_runs_record_no_retry():
    plain = _run(0.0, accept_tol=TINY, fallback=False)
    assert plain.ok and all(f == "" for f in plain.fallback)
    default = _run(STEP_TOL)
    assert set(default.status) == {"solved"} and all(f == "" for f in default.fallback)


def test_step_tol_round_trips_and_is_checked(tmp_path):
    traj = _run(0.0, accept_tol=TINY)
    back = load(traj.save(tmp_path / "run.npz"))
    assert back.fallback == traj.fallback and back.step_tol == 0.0
    for bad in (-1e-9, 1e-3, float("nan")):
        with pytest.raises(SimulationError, match="step_tol"):
            _run(bad)


def test_newton_steps_run_without_liftoff_rounds_unless_asked():
    """newton's lift-off rounds (a last resort for hard static problems) are off in the steps,
    where step_tol accepts what they would polish; an explicit value is kept, and solvers
    without the option get none."""
    from contactmodel.simulation.stepper import Simulator

    system, planes = sliding_box(v0=(0.4, 0.3, 0.0))
    law = cm.CoulombCone(0.5, form="soc")
    steps = {"liftoff_rounds": 0, "active_set_steps": 2}  # and the active-set start on
    assert Simulator(system, 1e-2, law, "newton", planes).solver_options == steps
    asked = Simulator(system, 1e-2, law, "newton", planes, solver_options={"liftoff_rounds": 5})
    assert asked.solver_options == {**steps, "liftoff_rounds": 5}
    assert Simulator(system, 1e-2, cm.Pyramid(0.5), "lemke", planes).solver_options == {}
