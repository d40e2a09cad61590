"""
Rigid against compliant contact: two boxes sliding side by side on one floor
============================================================================

Physics: two 1 kg cubes of side 0.2 m slide at v0 = 1 m/s on the floor z = 0 with Coulomb
friction mu = 0.5. The box ``rigid`` has rigid contacts (the complementarity step): it never
penetrates the floor and stops after t* = v0 / (mu g) = 0.2039 s at d* = v0^2 / (2 mu g) =
0.1019 m (within v0 dt of it). The box ``soft`` has compliant contacts (``cm.Compliant``): a
linear spring-damper of stiffness k = 1e5 N/m and damping c = 200 N s/m at each of its 4
corners, so it sinks to m g / (4 k) = 0.0245 mm, and friction regularized with the velocity
scale v_s = 1e-4 m/s: below v_s friction is a stiff damper, so the box creeps to rest
instead of stopping at once, within about v_s / (mu g) = 20 us of t*, and travels the same
distance to 1 % (the smaller v_s, the closer to the rigid law). Both start at their resting
heights. The total energy (kinetic, gravity and the springs' k d^2 / 2) never rises.

Run it:
    python examples/sim_compliant_box.py
    contactmodel simulate examples/sim_compliant_box.py --t-end 0.3
    contactmodel simulate examples/sim_compliant_box.py --t-end 0.3 --contact compliant:1e6:500
"""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel.shapes import Box

MU, V0, G, SIDE, MASS = 0.5, 1.0, 9.81, 0.2, 1.0
K, C, VS = 1e5, 200.0, 1e-4


def build(v0: float = V0) -> cm.System:
    """Two cubes 1 m apart on the plane z = 0, sliding at v0 (m/s) along +x; the soft one starts
    at its resting penetration m g / (4 K)."""
    system = cm.System(gravity=(0, 0, -G))
    for name, y, sink in (("rigid", 0.0, 0.0), ("soft", 1.0, MASS * G / (4 * K))):
        system.add_body(
            name,
            MASS,
            cm.inertia.box(MASS, (SIDE,) * 3),
            position=(0, y, SIDE / 2 - sink),
            velocity=(v0, 0, 0),
            shape=Box((SIDE,) * 3),
        )
    return system


def simulation() -> dict:
    """Keywords for cm.simulate: the floor, the cone, compliant contacts for the box 'soft'."""
    return {
        "planes": [cm.Plane(name="floor", tangent=(1, 0, 0))],
        "friction": cm.CoulombCone(MU),
        "contact": {"soft": cm.Compliant(K, C, friction_regularization=VS)},
    }


def stop(traj: cm.Trajectory, body: str, speed: float = 1e-3) -> tuple[float, float]:
    """(time s, distance m) at which ``body``'s speed first falls below ``speed`` (m/s)."""
    i = traj.body(body)
    v = np.linalg.norm(traj.velocities[:, i], axis=1)
    k = int(np.argmax(v < speed))
    return float(traj.times[k]), float(traj.positions[k, i, 0] - traj.positions[0, i, 0])


if __name__ == "__main__":
    traj = cm.simulate(build(), t_end=0.3, dt=1e-3, **simulation())
    print(f"closed form: stops at t = {V0 / (MU * G):.4f} s after {V0**2 / (2 * MU * G):.5f} m")
    for body in ("rigid", "soft"):
        t, x = stop(traj, body)
        sink = SIDE / 2 - traj.positions[-1, traj.body(body), 2]
        print(f"{body:>6}: stops at t = {t:.4f} s after {x:.5f} m; sinks {1e3 * sink:.4f} mm")
    print(f"soft: m g / (4 k) = {1e3 * MASS * G / (4 * K):.4f} mm")
    print(f"largest one-step energy rise: {np.max(np.diff(traj.energy)):.3g} J")
