"""
A sphere rolling down an incline without slipping (time stepping)
=================================================================

Physics: a uniform sphere (I = 2/5 m r^2) on an incline of angle theta rolls without slipping
when mu >= (2/7) tan(theta). Then the friction force is (2/7) m g sin(theta) uphill and the
centre accelerates at a = (5/7) g sin(theta) (theta = 20 degrees: a = 2.396 m/s^2), the angular
velocity staying omega = v / r. Its total energy is conserved (rolling does no work); the
time-stepper reproduces v(t) = a t to rounding.

Run it:
    python examples/sim_sphere_roll.py
    contactmodel simulate examples/sim_sphere_roll.py --t-end 0.5 --dt 1e-3 --out roll.gif
"""

from __future__ import annotations

import math

import numpy as np

import contactmodel as cm
from contactmodel.shapes import Sphere

MU, G, RADIUS = 0.5, 9.81, 0.1
THETA = math.radians(20.0)


def build(theta: float = THETA) -> cm.System:
    n = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    system = cm.System(gravity=(0, 0, -G))
    system.add_body("ball", 1.0, cm.inertia.sphere(1.0, RADIUS), position=n * RADIUS, shape=Sphere(RADIUS))
    return system


def simulation(theta: float = THETA) -> dict:
    n = (-math.sin(theta), 0.0, math.cos(theta))
    return {"planes": [cm.Plane(normal=n, name="incline")], "friction": cm.CoulombCone(MU, form="soc")}


if __name__ == "__main__":
    traj = cm.simulate(build(), t_end=0.5, dt=1e-3, **simulation())
    down = np.array([-math.cos(THETA), 0.0, -math.sin(THETA)])
    v = traj.velocities[-1, 0] @ down
    print(f"speed after 0.5 s: {v:.6f} m/s (closed form {5 / 7 * G * math.sin(THETA) * 0.5:.6f} m/s)")
    print(f"energy drift: {traj.energy[-1] - traj.energy[0]:.3e} J")

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
