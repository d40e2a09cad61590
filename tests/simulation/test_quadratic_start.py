"""The starts of a simulation step under the laws whose MNCP rows are quadratic (the cone's MNCP, the
anisotropic cone, the soft-finger ellipsoids): the first step from the answer of its LCP surrogate
(``Simulator.cold_start``), the others from the last answer lifted by the laws
(``Simulator.lifted``: the slip multiplier of an unloaded contact at its slip speed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.simulation import simulate
from contactmodel.simulation.stepper import Simulator

from .scenes import QUADRATIC_LAWS, sliding_box

LAWS = QUADRATIC_LAWS


@pytest.mark.parametrize("law", list(LAWS))
def test_the_sliding_cube_steps_solved_in_few_iterations_without_the_ladder(law):
    """The cube sliding on four corners (the normal forces not unique: a corner unloaded in some
    steps): every step solved at its first try (or solved-inaccurate within ``step_tol``: the
    first step of the anisotropic cone and the ellipsoid, whose surrogate's answer unloads a
    corner, ends with friction 1e-8 there), the first in a few iterations (200 and three
    restarts from newton's own start, then the ladder, before), the others in at most two on
    average (one corner unloaded: 15-20 iterations from the unlifted answer, or the ladder)."""
    make, torsion = LAWS[law]
    system, planes = sliding_box(v0=(1.0, 0.0, 0.0))
    traj = simulate(system, 0.06, 1e-3, make(), planes=planes, torsion=torsion)
    assert traj.ok and not any(traj.fallback)
    assert set(traj.status[1:]) == {"solved"} and np.all(traj.residual <= traj.step_tol)
    assert traj.iterations[0] <= 10
    assert np.mean(traj.iterations[1:]) <= 2.0


def test_the_lifted_start_of_an_unloaded_corner():
    """At a corner of the cube with c_n = 0, from the answer with the slip multiplier at 0 and
    the friction 1e-6 (as newton's answer of the step before leaves them), newton takes many
    iterations, or ends solved-inaccurate; lifted (lambda = |(a_t, a_o)|, the slip speed), one or
    two, to the same forces. The steps by newton's iteration alone (no active-set step)."""
    system, planes = sliding_box(v0=(1.0, 0.0, 0.0))
    traj = simulate(system, 0.1, 1e-3, cm.CoulombCone(0.5, form="mncp"), planes=planes, active_set_steps=0)
    k = next(k for k in range(1, traj.n_steps) if min(traj.impulses[c][k, 0] for c in traj.impulses) == 0.0)
    problem = traj.step_model(k)
    sim = Simulator(cm.System(), 1e-3)
    options = {**sim.solver_options, "active_set_steps": 0}
    answer = cm.solve(problem, **options)
    assert answer.status is cm.Status.SOLVED
    names = list(problem.compile().mcp.names)
    forces = problem.interpret(answer.x).forces
    unloaded = [c for c in problem.contact_names if forces[problem.assembly.row(c, "n")] == 0.0]
    lam = names.index(f"contact['{unloaded[0]}'].lam")
    c_t = names.index(f"contact['{unloaded[0]}'].c_t")
    left = answer.x.copy()
    left[lam], left[c_t] = 0.0, 1e-6  # as newton's answer of the step before leaves them
    slow = cm.solve(problem, x0=left, fallback=False, **options)
    start = sim.lifted(problem, left)
    accel = problem.interpret(start).accelerations
    slip = math.hypot(*(accel[problem.assembly.row(unloaded[0], axis)] for axis in "to"))
    assert start[lam] == pytest.approx(slip, rel=1e-12) and slip > 0.1
    fast = cm.solve(problem, x0=start, fallback=False, **options)
    assert fast.status is cm.Status.SOLVED and fast.iterations <= 2
    assert slow.status is not cm.Status.SOLVED or slow.iterations >= 8
    np.testing.assert_allclose(problem.interpret(fast.x).forces, forces, atol=1e-9)
