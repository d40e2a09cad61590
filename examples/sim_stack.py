"""
A stack of boxes settling after the top one is dropped on it (time stepping, hand contacts)
===========================================================================================

Physics: three 1 kg cubes (side 0.2 m) stand on the floor, one on another; in the run below the
top one arrives at 0.5 m/s downwards (``build(0.5)``; ``build()`` is the stack at rest). The
contacts are declared by hand at the four corners of each interface (fixed material points,
followed as the boxes move), the floor ones too. With inelastic contact
the impact stops the top box within one step: momentum is shared by the stack and the floor
absorbs it; the kinetic energy m v^2 / 2 = 0.125 J is dissipated and the total energy never
rises. At rest the contact impulses per step carry the weights: the interface under box k holds
(3 - k) m g dt in total (k = 0 bottom).

Run it:
    python examples/sim_stack.py
    contactmodel simulate examples/sim_stack.py --t-end 0.2 --dt 1e-3
"""

from __future__ import annotations

import contactmodel as cm
from contactmodel.shapes import Box

SIDE, MU, G, N = 0.2, 0.6, 9.81, 3
CORNERS = [(1, 1), (-1, 1), (-1, -1), (1, -1)]


def build(drop_speed: float = 0.0) -> cm.System:
    """The stack at rest; ``drop_speed`` (m/s) sends the top box down (the instantaneous
    problem of ``contactmodel solve`` needs it at rest: its contacts must persist)."""
    system = cm.System(gravity=(0, 0, -G))
    below = system.ground
    for k in range(N):
        v = (0, 0, -drop_speed) if k == N - 1 else (0, 0, 0)
        box = system.add_body(
            f"box{k}",
            1.0,
            cm.inertia.box(1.0, (SIDE,) * 3),
            position=(0, 0, SIDE * (k + 0.5)),
            velocity=v,
            shape=Box((SIDE,) * 3),
        )
        for j, (sx, sy) in enumerate(CORNERS):
            point = (sx * SIDE / 2, sy * SIDE / 2, SIDE * k)
            system.add_contact(
                box,
                below,
                point=point,
                normal=(0, 0, 1),
                tangent=(1, 0, 0),
                name=f"s{k}.{j}",
                friction=cm.Pyramid(MU),
            )
        below = box
    return system


def simulation() -> dict:
    """The pyramid law solved by newton (Lemke's pivoting cycles on this degenerate LCP: the four
    corners of each face carry the same load in infinitely many ways)."""
    return {"friction": cm.Pyramid(MU), "solver": "newton"}


if __name__ == "__main__":
    import numpy as np

    traj = cm.simulate(build(0.5), t_end=0.2, dt=1e-3, **simulation())
    print(traj.summary())
    for k in range(N):
        total = sum(traj.impulses[f"s{k}.{j}"][-1, 0] for j in range(4))
        print(f"interface under box{k}: {total / traj.dt:.4f} N (weight above {(N - k) * G:.4f} N)")
    print(f"largest energy rise {np.max(np.diff(traj.energy)):.2e} J")

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
