"""
A box sliding to rest on the floor (time stepping)
==================================================

Physics: a box of mass m slides on a horizontal floor at initial speed v0 with Coulomb friction
mu. While it slides the floor pushes up with m g and friction decelerates it at mu g, so it stops
after t* = v0 / (mu g) having travelled d* = v0^2 / (2 mu g) (defaults: v0 = 1 m/s, mu = 0.5:
t* = 0.2039 s, d* = 0.1019 m). The time-stepper is first order: the computed distance is
within v0 dt of d*.

Run it:
    python examples/sim_box_slide.py
    contactmodel simulate examples/sim_box_slide.py --t-end 0.3 --dt 1e-3 --friction cone:0.5:soc
    contactmodel simulate examples/sim_box_slide.py --t-end 0.3 --out slide.gif
"""

from __future__ import annotations

import contactmodel as cm
from contactmodel.shapes import Box

MU, V0, G, SIDE = 0.5, 1.0, 9.81, 0.2


def build(v0: float = V0) -> cm.System:
    """A 1 kg cube of side 0.2 m on the plane z = 0, sliding at v0 (m/s) along +x."""
    system = cm.System(gravity=(0, 0, -G))
    system.add_body(
        "box",
        1.0,
        cm.inertia.box(1.0, (SIDE,) * 3),
        position=(0, 0, SIDE / 2),
        velocity=(v0, 0, 0),
        shape=Box((SIDE,) * 3),
    )
    return system


def simulation() -> dict:
    """Keywords for cm.simulate: the floor, with the pyramid law (an LCP per step)."""
    return {"planes": [cm.Plane(tangent=(1, 0, 0))], "friction": cm.Pyramid(MU), "solver": "lemke"}


if __name__ == "__main__":
    for dt in (1e-2, 1e-3):
        traj = cm.simulate(build(), t_end=0.3, dt=dt, **simulation())
        x = traj.positions[-1, 0, 0]
        print(f"dt = {dt:g}: stopped at x = {x:.5f} m (closed form {V0**2 / (2 * MU * G):.5f} m)")

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
