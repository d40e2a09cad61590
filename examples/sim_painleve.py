"""
Painlevé's rod past the critical mu: the time-stepper proceeds through an impulsive jam
=======================================================================================

Physics (see examples/painleve.py for the instantaneous problem): a thin rod leaning at
theta = arctan 2 with its foot sliding forwards (foot leading, v_t = -1 m/s) has no consistent
contact force when mu > mu_c = 4/3: the acceleration-level problem has no solution. The
velocity-level step has one (its A is positive semidefinite and the friction set bounded, so
the step's complementarity problem always has a solution): an impulse jams the foot, stopping
its sliding within one step (tangential impulse at most mu times the normal one), after which
the rod falls pivoting on the stuck foot. The instantaneous solver fails on the same state;
the stepper reports a finite jam impulse and energy that never increases.

Run it:
    python examples/sim_painleve.py
    contactmodel simulate examples/sim_painleve.py --t-end 0.2 --dt 1e-3
"""

from __future__ import annotations

import sys
from pathlib import Path

import contactmodel as cm

# the folder of this file (sphinx-gallery runs it from there, without __file__)
sys.path.insert(0, str(Path(globals().get("__file__", "sim_painleve.py")).resolve().parent))
import painleve  # noqa: E402  (examples/painleve.py: the rod and its closed forms)

MU = 2.0


def build() -> cm.System:
    return painleve.build(mu=MU)


def simulation() -> dict:
    return {"friction": cm.Pyramid(MU), "solver": "lemke"}


if __name__ == "__main__":
    import numpy as np

    print(f"mu_c = {painleve.critical_mu():.4f}; mu = {MU}")
    instant = cm.solve(cm.formulate(build(), friction=cm.Pyramid(MU)), solver="lemke")
    print(f"instantaneous problem: {instant.status.value}")
    traj = cm.simulate(build(), t_end=0.1, dt=1e-3, **simulation())
    name = next(iter(traj.impulses))
    p = traj.impulses[name][0]
    print(
        f"first step impulse (n, t, o): {np.round(p, 5)} N s; foot speed after: "
        f"{traj.contact_velocities[name][0, 1]:.2e} m/s"
    )
    print(f"largest energy rise {np.max(np.diff(traj.energy)):.2e} J; steps solved: {traj.ok}")

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
