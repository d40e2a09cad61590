"""
Two SCARA arms hold a cube between their fingertips and lift it (time stepping, controllers)
============================================================================================

The grasp of ``contactmodel.models.scara_grasp``, which examples/scara_grasp.py solves once
(Andreani, Friedlander, Mello and Santos, 2002, §4: a 3 kg cube of side 0.4 m between the
fingertips of two SCARA arms, point contacts with mu = 0.1 and 0.2), at rest at t = 0, now
moved by joint controllers ``(t, state) -> efforts``:

* shoulder and elbow: the squeeze torques tau = J^T (200 N n_into_cube) of the instantaneous
  example plus a PD hold of the initial angles (K_P = 400 N m/rad, K_D = 20 N m s/rad);
* quill (prismatic, vertical): weight feed-forward (quill and tool 0.2 kg plus half the
  cube, 3 kg / 2) plus a PD on the lift profile z_ref(t) = LIFT s(t / T), s(u) = 3u^2 - 2u^3
  (LIFT = 5 cm, T = 0.5 s; K_P = 4000 N/m, K_D = 150 N s/m);
* wrist: no effort (a point contact does not turn it).

Physics: friction can carry at most mu1 c_n + mu2 c_n = 0.1 * 200 + 0.2 * 200 = 60 N, and the
lift needs m (g + z_ref'') <= 3 (9.81 + 1.2) = 33 N (the largest acceleration of the profile is
6 LIFT / T^2 = 1.2 m/s^2), so the contacts stick: the cube rises with the fingertips by LIFT
(within the PD's tracking error) without slipping and without turning. The normal impulses
per step stay near 200 N dt: the squeeze.

Run it:
    python examples/sim_scara_grasp.py
    contactmodel simulate examples/sim_scara_grasp.py --t-end 0.8 --dt 1e-3
"""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel.models.scara_grasp import CUBE_MASS, SQUEEZE, TIP, G
from contactmodel.models.scara_grasp import build as build_grasp

LIFT, T_LIFT = 0.05, 0.5  # m, s
KP_ARM, KD_ARM = 400.0, 20.0  # N m/rad, N m s/rad
KP_Z, KD_Z = 4000.0, 150.0  # N/m, N s/m
ARMS = ("scara1", "scara2")


def lift_profile(t: float) -> tuple[float, float]:
    """(z_ref - z0 in m, its rate in m/s) at time t (s): a smooth rise by LIFT over T_LIFT."""
    u = min(max(t / T_LIFT, 0.0), 1.0)
    return LIFT * (3 * u**2 - 2 * u**3), LIFT * 6 * u * (1 - u) / T_LIFT * (0.0 < t < T_LIFT)


def build() -> cm.System:
    """The grasp at rest with every joint effort known (the controllers replace them)."""
    system = build_grasp(sliding=False)
    for arm in system.manipulators:
        arm.prescribed_accelerations = [None] * arm.n
        arm.efforts = [0.0] * arm.n
    return system


def controller(system: cm.System, name: str):
    """The joint controller ``(t, state) -> 4 efforts`` of arm ``name`` (see the docstring)."""
    arm = next(a for a in system.manipulators if a.name == name)
    q0 = arm.q.copy()
    tip = arm.link_frames()[TIP][1]
    side = -1.0 if name == ARMS[0] else 1.0
    squeeze = arm.point_jacobian(TIP, tip).T @ (SQUEEZE * np.array([-side, 0.0, 0.0]))
    carried = sum(link.mass for link in arm.links[2:]) * G + 0.5 * CUBE_MASS * G

    def efforts(t: float, state) -> np.ndarray:
        q, qd = state.q[name], state.qdot[name]
        out = np.zeros(4)
        out[:2] = squeeze[:2] + KP_ARM * (q0[:2] - q[:2]) - KD_ARM * qd[:2]
        z, zd = lift_profile(t)
        out[2] = carried + KP_Z * (q0[2] + z - q[2]) + KD_Z * (zd - qd[2])
        return out

    return efforts


def simulation(system: cm.System | None = None) -> dict:
    """Keywords for cm.simulate: the two controllers, the contacts' own cone laws, newton."""
    system = build() if system is None else system
    return {"efforts": {name: controller(system, name) for name in ARMS}, "solver": "newton"}


if __name__ == "__main__":
    system = build()
    traj = cm.simulate(system, t_end=0.8, dt=1e-3, **simulation(system))
    print(traj.summary())
    k = traj.body("cube")
    rise = traj.positions[-1, k, 2] - traj.positions[0, k, 2]
    print(f"cube rose {1e3 * rise:.2f} mm (lift profile {1e3 * LIFT:.0f} mm)")
    for name in traj.impulses:
        force = np.nanmean(traj.contact_forces(name)[:, 0])
        print(f"{name}: mean normal force {force:.1f} N, modes {sorted(set(traj.modes[name]))}")

    # The last run's pictures: energy, contact forces and modes against time, and a 3D film of
    # 2 s (contact points coloured by mode, force arrows, friction sets, velocities).
    # traj.to_html("run.html") writes the interactive replay.
    cm.simulation.plot(traj)
    film = cm.simulation.animate(traj, out=None, fps=10, speed=traj.times[-1] / 2)
