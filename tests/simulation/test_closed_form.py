"""Time stepping against closed-form motions, at dt = 1e-2 and 1e-3 s.

The scheme is first order (semi-implicit Euler with impulses), so each error must shrink at
least about tenfold when dt does, and stay within a bound of the form C dt.
"""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.simulation import simulate

from .scenes import G, box_on_incline, sliding_box, sphere_on_incline

MU = 0.5
V0 = 0.5
LAWS = {"pyramid": (cm.Pyramid(MU), "lemke"), "cone-soc": (cm.CoulombCone(MU, form="soc"), "newton")}


def _stop(law, solver, dt):
    system, planes = sliding_box((V0, 0, 0))
    traj = simulate(system, t_end=V0 / (MU * G) + 0.03, dt=dt, friction=law, solver=solver, planes=planes)
    assert traj.ok
    speed = np.linalg.norm(traj.velocities[:, 0], axis=1)
    k = int(np.argmax(speed < 1e-9))
    assert k > 0 and np.all(speed[k:] < 1e-9), "the box comes to rest and stays there"
    return traj, traj.times[k], traj.positions[-1, 0, 0]


@pytest.mark.parametrize("name", list(LAWS))
def test_sliding_box_stopping_distance_and_time(name):
    law, solver = LAWS[name]
    d_exact, t_exact = V0**2 / (2 * MU * G), V0 / (MU * G)
    errors = []
    for dt in (1e-2, 1e-3):
        traj, t_stop, x_stop = _stop(law, solver, dt)
        e_x, e_t = abs(x_stop - d_exact), abs(t_stop - t_exact)
        # hand bound: each step removes mu g dt of speed; the sum of the new speeds misses the
        # exact area by at most v0 dt / 2 + rounding of the last step; the stopping time by dt
        assert e_x <= V0 * dt, (dt, x_stop, d_exact)
        assert e_t <= dt + 1e-12, (dt, t_stop, t_exact)
        assert np.max(np.diff(traj.energy)) <= 1e-9
        assert abs(traj.positions[-1, 0, 2] - 0.1) < 1e-6, "no sinking, no hopping"
        errors.append(e_x)
    assert errors[1] < errors[0] / 5, errors


@pytest.mark.parametrize("name", list(LAWS))
def test_incline_sticks_below_and_slides_above_tan_theta_mu(name):
    law, solver = LAWS[name]
    theta_c = np.arctan(MU)
    system, planes, down = box_on_incline(0.8 * theta_c)
    traj = simulate(system, t_end=0.2, dt=1e-2, friction=law, solver=solver, planes=planes)
    assert traj.ok
    assert np.max(np.abs(traj.positions[:, 0] - traj.positions[0, 0])) < 1e-6, "sticks below tan(theta) = mu"
    theta = 1.3 * theta_c
    a_exact = G * (np.sin(theta) - MU * np.cos(theta))
    errors = []
    for dt, t_end in ((1e-2, 0.2), (1e-3, 0.1)):
        system, planes, down = box_on_incline(theta)
        traj = simulate(system, t_end=t_end, dt=dt, friction=law, solver=solver, planes=planes)
        assert traj.ok
        s = (traj.positions[:, 0] - traj.positions[0, 0]) @ down
        t = traj.times
        # semi-implicit Euler under constant acceleration: s_k = a dt^2 k (k + 1) / 2 = a t (t + dt) / 2
        assert np.allclose(s, 0.5 * a_exact * t * (t + dt), atol=1e-9)
        errors.append(abs(s[-1] - 0.5 * a_exact * t[-1] ** 2) / t[-1])
    assert errors[1] < errors[0] / 5


@pytest.mark.parametrize("name", list(LAWS))
def test_sphere_rolls_without_slip_at_five_sevenths_g_sin_theta(name):
    law, solver = LAWS[name]
    theta = np.radians(20.0)  # rolling needs mu >= 2/7 tan(theta) = 0.104
    a_exact = 5.0 / 7.0 * G * np.sin(theta)
    for dt, t_end in ((1e-2, 0.2), (1e-3, 0.05)):
        system, planes, down = sphere_on_incline(theta)
        traj = simulate(system, t_end=t_end, dt=dt, friction=law, solver=solver, planes=planes)
        assert traj.ok
        v = traj.velocities[:, 0] @ down
        assert np.allclose(v, a_exact * traj.times, rtol=1e-6, atol=1e-9)
        # no slip: contact point speed v - omega r = 0
        w = traj.angular_velocities[:, 0]
        axis = np.cross(down, planes[0].normal)  # rolling downhill turns about n x down... sign below
        slip = v + 0.1 * (w @ axis)
        assert np.max(np.abs(slip)) < 1e-7
        assert np.max(np.diff(traj.energy)) <= 1e-9
