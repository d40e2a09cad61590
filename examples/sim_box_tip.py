"""
A tall box balanced on one bottom edge: it falls back or tips over (time stepping)
==================================================================================

Physics: a box of width w and height h standing on one bottom edge, tilted by phi from upright,
has its centre of mass over the edge when tan(phi) = w / h. With phi below that it rocks back
onto its base; above, gravity's moment about the edge tips it over. Defaults w = 0.1 m,
h = 0.4 m: the threshold is 14.04 degrees; ``build(phi)`` places the box at rest on its +x
bottom edge. Friction mu = 0.8 keeps the edge from slipping. With inelastic contact the energy
never increases; each landing of a face dissipates the normal impact.

Run it:
    python examples/sim_box_tip.py
    contactmodel simulate examples/sim_box_tip.py --t-end 1.0 --dt 2e-3 --out tip.gif
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.shapes import Box

W, H, MU, G = 0.1, 0.4, 0.8, 9.81
PHI = math.radians(20.0)


def build(phi: float = PHI) -> cm.System:
    R = Rotation.from_euler("y", phi).as_matrix()
    edge = R @ np.array([W / 2, 0.0, -H / 2])  # the lowest edge, relative to the centre
    system = cm.System(gravity=(0, 0, -G))
    system.add_body(
        "box", 1.0, cm.inertia.box(1.0, (W, W, H)), position=-edge, orientation=R, shape=Box((W, W, H))
    )
    return system


def simulation() -> dict:
    return {"planes": [cm.Plane(tangent=(1, 0, 0))], "friction": cm.Pyramid(MU), "solver": "lemke"}


def tipped(traj) -> bool:
    """True when the box ended lying on its side (centre of mass below w/2 + a margin)."""
    return bool(traj.positions[-1, 0, 2] < 0.5 * W + 0.02)


if __name__ == "__main__":
    print(f"threshold: {math.degrees(math.atan(W / H)):.2f} deg")
    for deg in (10.0, 20.0):
        traj = cm.simulate(build(math.radians(deg)), t_end=1.0, dt=2e-3, **simulation())
        print(
            f"phi = {deg:4.1f} deg: {'tipped over' if tipped(traj) else 'fell back'};"
            f" largest energy rise {np.max(np.diff(traj.energy)):.2e} J"
        )

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
