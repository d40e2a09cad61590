"""
Contact modes of a disc at rest touching a small fixed disc (Berard et al. (2004), Fig. 2)
==========================================================================================

Berard, Egan and Trinkle (2004) illustrate contact modes with a disc at rest touching a small fixed disc,
friction coefficient 0.4, and asks which external wrenches keep the contact rolling, make it
slide one way or the other, or break it. This file builds that planar system and pushes the
disc with a given wrench; the ``__main__`` block turns the push around and prints the mode the
solver finds for each direction, next to the rule derived below.

Setup (SI units). Everything moves in the world x-y plane: think of an air table seen from
above, with the disc's weight carried by the table, so gravity is left out. The fixed disc
(the ground) has radius RHO = 0.1 m and its centre at the origin. The moving disc has radius
R = 0.3 m, mass m = 1 kg and thickness 0.05 m (a uniform cylinder whose axis is the world z
axis: inertia I = m R^2 / 2 about z). Its centre is at (0, RHO + R, 0), so the contact point
is (0, RHO, 0), the normal n = (0, 1, 0) points from the fixed disc into the moving one and
the tangent is t = (1, 0, 0) (o = n x t = (0, 0, -1)). The friction law is ``cm.Planar(0.4)``:
abs(c_t) <= 0.4 c_n along t, no force along o.

The push: a force (P_t, P_n) = (P . t, P . n) at the disc's centre and a moment T (N m) about
+z. At rest the contact equations are linear and decoupled: with contact force (c_n, c_t)
on the moving disc,

    a_n = (c_n + P_n) / m
    a_t = (c_t + P_t) / m + R (R c_t + T) / I = (3 c_t + P_t + 2 T / R) / m

(the friction force at the contact also spins the disc, which moves the contact point three
times as much as the force alone). Hence, with D = P_t + 2 T / R the tangential "drive":

* separate when P_n > 0 (pulled away): c = 0, a_n = P_n / m > 0;
* roll when P_n <= 0 and abs(D) <= 3 mu abs(P_n): c_n = -P_n, c_t = -D / 3, a = 0;
* slide when P_n < 0 and abs(D) > 3 mu abs(P_n): c_n = -P_n, c_t = -mu c_n sign(D) and
  a_t = (D - 3 mu c_n sign(D)) / m, of the sign of D (D > 0 slides towards +t).

So a pure push (T = 0) keeps the contact rolling up to abs(P_t) = 3 mu abs(P_n) = 1.2 abs(P_n), a
cone three times wider than the friction cone, because the disc rolls around the small one
instead of sliding over it. The default push P = (2, -1) N, T = 0 has abs(P_t) = 2 > 1.2, so the
contact slides: c = (1, -0.4) N, a_t = (2 - 1.2) / 1 = 0.8 m/s^2 (sliding towards +t).

Run it:
    python examples/disc_modes.py
    contactmodel solve examples/disc_modes.py --json
    contactmodel solve examples/disc_modes.py --friction pyramid:0.4 --solver lemke

References:

- S. Berard, K. Egan and J. C. Trinkle, "Contact modes and complementary cones", ICRA 2004.
"""

from __future__ import annotations

import math

import contactmodel as cm

MU = 0.4  # friction coefficient at the contact
RHO = 0.1  # m, radius of the fixed disc
RADIUS = 0.3  # m, radius of the moving disc
MASS = 1.0  # kg
THICKNESS = 0.05  # m
PUSH = (2.0, -1.0)  # N, (along t = +x, along n = +y) at the disc's centre
TORQUE = 0.0  # N m about +z


def build(push: tuple[float, float] = PUSH, torque: float = TORQUE, mu: float = MU) -> cm.System:
    """The disc touching the fixed disc, pushed by ``push`` = (P_t, P_n) N and ``torque`` N m."""
    system = cm.System(gravity=(0.0, 0.0, 0.0))
    p_t, p_n = push
    disc = system.add_body(
        "disc",
        mass=MASS,
        inertia=cm.inertia.cylinder(MASS, RADIUS, THICKNESS),
        position=(0.0, RHO + RADIUS, 0.0),
        wrench=(p_t, p_n, 0.0, 0.0, 0.0, torque),
    )
    system.add_contact(
        disc,
        system.ground,
        point=(0.0, RHO, 0.0),
        normal=(0.0, 1.0, 0.0),
        tangent=(1.0, 0.0, 0.0),
        friction=cm.Planar(mu),
        name="contact",
    )
    return system


def predicted_mode(push: tuple[float, float], torque: float = 0.0, mu: float = MU) -> str:
    """The mode the hand analysis of the module docstring predicts for this push."""
    p_t, p_n = push
    drive = p_t + 2.0 * torque / RADIUS
    if p_n > 0:
        return "separate"
    if abs(drive) <= 3.0 * mu * abs(p_n):
        return "roll"
    return "slide"


if __name__ == "__main__":
    problem = cm.formulate(build())
    solution = cm.solve(problem)
    print(solution.table())
    import matplotlib.pyplot as plt

    # drawn into a pyplot figure, so that notebooks and the docs show it
    cm.draw(
        problem,
        solution,
        title="the default push: the contact slides",
        ax=plt.figure(figsize=(8, 6)).add_subplot(),
    )
    print(f"\npush of 1 N turned around the disc (angle from +t, degrees), mu = {MU}:")
    header = ("angle", "P_t", "P_n", "predicted", "solver", "c_n", "c_t", "a_t")
    print("{:>6}  {:>7} {:>7}  {:<10}{:<10}{:>8} {:>8} {:>8}".format(*header))
    for angle in range(0, 360, 15):
        push = (round(math.cos(math.radians(angle)), 12), round(math.sin(math.radians(angle)), 12))
        solution = cm.solve(cm.formulate(build(push)))
        c = solution.contact("contact")
        mode = c.mode.split()[0] if solution.ok else solution.status.value
        print(
            f"{angle:>6}  {push[0]:>7.3f} {push[1]:>7.3f}  {predicted_mode(push):<10}{mode:<10}"
            f"{c.force[0]:>8.3f} {c.force[1]:>8.3f} {c.acceleration[1]:>8.3f}"
        )
    print(
        f"\nrolling cone of a pure push: |P_t| <= 3 mu |P_n|, i.e. within "
        f"{math.degrees(math.atan(3 * MU)):.1f} degrees of -n (friction cone: "
        f"{math.degrees(math.atan(MU)):.1f} degrees)"
    )
