"""
A block on an incline: it sticks below tan(theta) = mu and slides above (time stepping)
=======================================================================================

Physics: on an incline of angle theta the block's weight has a downhill part m g sin(theta) and a
normal part m g cos(theta). Static friction can hold at most mu m g cos(theta), so the block
stays put when tan(theta) <= mu and otherwise slides with acceleration
a = g (sin(theta) - mu cos(theta)) (mu = 0.5: critical angle 26.57 degrees; at 35 degrees
a = 1.608 m/s^2). Semi-implicit Euler gives s(t) = a t (t + dt) / 2 exactly.

Run it:
    python examples/sim_incline.py
    contactmodel simulate examples/sim_incline.py --t-end 0.5 --dt 1e-3
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.shapes import Box

MU, G, SIDE = 0.5, 9.81, 0.2
THETA = math.radians(35.0)


def incline(theta: float = THETA) -> cm.Plane:
    """The plane through the origin tilted by theta about y; t points uphill."""
    n = (-math.sin(theta), 0.0, math.cos(theta))
    return cm.Plane(normal=n, name="incline", tangent=(math.cos(theta), 0.0, math.sin(theta)))


def build(theta: float = THETA) -> cm.System:
    """A 1 kg cube of side 0.2 m at rest on the incline."""
    n = np.array([-math.sin(theta), 0.0, math.cos(theta)])
    system = cm.System(gravity=(0, 0, -G))
    system.add_body(
        "block",
        1.0,
        cm.inertia.box(1.0, (SIDE,) * 3),
        position=n * SIDE / 2,
        orientation=Rotation.from_euler("y", -theta).as_matrix(),
        shape=Box((SIDE,) * 3),
    )
    return system


def simulation(theta: float = THETA) -> dict:
    return {"planes": [incline(theta)], "friction": cm.CoulombCone(MU, form="soc")}


if __name__ == "__main__":
    down = np.array([-math.cos(THETA), 0.0, -math.sin(THETA)])
    for deg in (20.0, 35.0):
        th = math.radians(deg)
        down = np.array([-math.cos(th), 0.0, -math.sin(th)])
        traj = cm.simulate(build(th), t_end=0.5, dt=1e-3, **simulation(th))
        s = (traj.positions[-1, 0] - traj.positions[0, 0]) @ down
        a = max(0.0, G * (math.sin(th) - MU * math.cos(th)))
        print(f"theta = {deg:4.1f} deg: slid {s:.5f} m in 0.5 s (closed form {0.5 * a * 0.5 * 0.501:.5f} m)")

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
