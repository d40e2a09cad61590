"""
Painlevé's sliding rod: with enough friction, rigid-body contact has no solution at all
=======================================================================================

The classical paradox from the related work of Trinkle et al. (1997) (Lötstedt, Baraff): a thin uniform rod
of length 2l and mass m leans at an angle theta above a horizontal table, one end on the table,
sliding. For large friction coefficients the instantaneous rigid-body problem (the one every
solver here solves) has no solution, or several; no contact force is consistent with Coulomb's
law and the rod staying out of the table.

Setup (SI units, gravity g = 9.81 m/s^2 along -z). The rod moves in the x-z plane. Its foot
is at the origin and its centre at l (cos theta, 0, sin theta): it leans towards +x. It is a
slender cylinder (radius 5 mm, axis along the rod), so its inertia about its centre is
I = m (3 rho^2 + 4 l^2) / 12, within 0.01 % of the thin rod's m l^2 / 3. The contact has
normal n = (0, 0, 1) (up, into the rod) and tangent t = (1, 0, 0). The foot slides at
v_t = ``speed`` (m/s) along t; when the rod also spins at omega (rad/s) about +y, its centre
moves at (speed + omega l sin theta, 0, -omega l cos theta) so that the foot stays on the
table (v_n = 0).

The reduced problem. Write k = m l^2 / I (k = 3 for a thin rod). The relative acceleration
of the foot is a = A c + b with, in the (n, t) rows (per unit mass),

    A_nn = (1 + k cos^2 theta) / m,     A_nt = -k sin(theta) cos(theta) / m,
    b_n  = -g + omega^2 l sin(theta)    (gravity and the centripetal lift of the foot).

Sliding, Coulomb's law fixes the friction: c_t = -mu sign(v_t) c_n. Substituting leaves one
scalar complementarity problem 0 <= c_n  _|_  A_nn_tilde c_n + b_n >= 0 with

    A_nn_tilde = A_nn - mu sign(v_t) A_nt = (1 + k cos theta (cos theta + mu sign(v_t) sin theta)) / m.

For v_t > 0 (the foot trailing: the rod slides towards the side it leans to) A_nn_tilde > 0
always. For v_t < 0 (the foot leading) A_nn_tilde < 0 exactly when

    mu > mu_c(theta) = (1 + k cos^2 theta) / (k sin theta cos theta),

which for a thin rod is (tan^2 theta + 4) / (3 tan theta): at least 4/3, reached at
tan theta = 2 (theta = 63.43 degrees, the default here). With A_nn_tilde < 0:

* b_n < 0 (no spin: b_n = -g): c_n = 0 gives a_n = b_n < 0 (the foot would sink) and
  a_n = 0 needs c_n = -b_n / A_nn_tilde < 0. No solution: Painlevé's inconsistency.
* b_n > 0 (fast spin, omega^2 l sin theta > g): both c_n = 0 (the foot lifts off) and
  c_n = -b_n / A_nn_tilde > 0 (the foot stays down) solve it: two solutions.

For mu < mu_c the solution is unique: c_n = max(0, -b_n / A_nn_tilde). With the defaults
(mu = 1, theta = arctan 2, no spin, foot sliding at -1 m/s): A_nn_tilde = 0.4 / kg, so
c_n = 9.81 / 0.4 = 24.52 N and c_t = +mu c_n = 24.52 N (friction against the sliding).

The ``__main__`` block sweeps mu through mu_c and prints what the solvers report: below mu_c
the normal force g / A_nn_tilde, above it a failure status (the dispatcher verifies every
answer, so no bogus force is passed on): Lemke certifies the nonexistence (status
``infeasible-certified``), Newton can only fail (``failed``), and the ``enumerate`` solver
lists every solution (none, or the two of the spinning rod).

Run it:
    python examples/painleve.py
    contactmodel solve examples/painleve.py --json              # mu = 1.0: solved
    contactmodel solve examples/painleve.py --friction cone:2.0  # no solution: exit code 1

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

import math

import numpy as np

import contactmodel as cm

G = 9.81  # m/s^2
MASS = 1.0  # kg
HALF_LENGTH = 0.5  # m, l; the rod is 2l = 1 m long
ROD_RADIUS = 0.005  # m
THETA = math.atan(2.0)  # rad, 63.43 degrees: the angle with the smallest mu_c
MU = 1.0  # below mu_c(THETA) = 4/3: a unique solution
SPEED = -1.0  # m/s, sliding velocity of the foot along t = +x (negative: the foot leads)


def inertia() -> np.ndarray:
    """Inertia of the rod about its centre, body z along the rod (kg m^2)."""
    return cm.inertia.cylinder(MASS, ROD_RADIUS, 2 * HALF_LENGTH)


def k_ratio() -> float:
    """k = m l^2 / I: 3 for a thin rod, slightly less for this slender cylinder."""
    return MASS * HALF_LENGTH**2 / inertia()[0, 0]


def critical_mu(theta: float = THETA) -> float:
    """mu_c(theta) = (1 + k cos^2 theta) / (k sin theta cos theta), the Painlevé threshold."""
    k = k_ratio()
    return (1 + k * math.cos(theta) ** 2) / (k * math.sin(theta) * math.cos(theta))


def a_nn_tilde(mu: float, theta: float = THETA, speed: float = SPEED) -> float:
    """The reduced normal coefficient A_nn - mu sign(v_t) A_nt (1/kg) from the formula."""
    k = k_ratio()
    c, s = math.cos(theta), math.sin(theta)
    return (1 + k * c * (c + mu * math.copysign(1.0, speed) * s)) / MASS


def build(mu: float = MU, theta: float = THETA, speed: float = SPEED, omega: float = 0.0) -> cm.System:
    """The rod leaning at ``theta`` rad, its foot sliding at ``speed`` m/s along +x, spinning
    at ``omega`` rad/s about +y, with Coulomb friction ``mu``."""
    axis = np.array([math.cos(theta), 0.0, math.sin(theta)])
    centre = HALF_LENGTH * axis
    tilt = math.pi / 2 - theta
    rotation = np.array(
        [[math.cos(tilt), 0.0, math.sin(tilt)], [0.0, 1.0, 0.0], [-math.sin(tilt), 0.0, math.cos(tilt)]]
    )
    foot_spin = omega * HALF_LENGTH
    system = cm.System(gravity=(0.0, 0.0, -G))
    rod = system.add_body(
        "rod",
        mass=MASS,
        inertia=inertia(),
        position=centre,
        orientation=rotation,
        velocity=(speed + foot_spin * math.sin(theta), 0.0, -foot_spin * math.cos(theta)),
        angular_velocity=(0.0, omega, 0.0),
    )
    system.add_contact(
        rod,
        system.ground,
        point=(0.0, 0.0, 0.0),
        normal=(0.0, 0.0, 1.0),
        tangent=(1.0, 0.0, 0.0),
        friction=cm.CoulombCone(mu),
        name="foot",
    )
    return system


def reduced_coefficient(system: cm.System, mu: float) -> float:
    """A_nn_tilde = A_nn - mu sign(v_t) A_nt read from the assembled A (1/kg)."""
    asm = cm.assemble(system)
    n, t = asm.row("foot", "n"), asm.row("foot", "t")
    return float(asm.A[n, n] - mu * np.sign(asm.v[t]) * asm.A[n, t])


if __name__ == "__main__":
    mu_c = critical_mu()
    print(f"theta = {math.degrees(THETA):.2f} deg, k = m l^2 / I = {k_ratio():.6f}, mu_c = {mu_c:.6f}")
    problem = cm.formulate(build())
    solution = cm.solve(problem)
    print(solution.table())
    import matplotlib.pyplot as plt

    # drawn into a pyplot figure, so that notebooks and the docs show it
    cm.draw(
        problem,
        solution,
        title=f"mu = {MU}: {solution.status.value}",
        ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
    )
    for omega, label in ((0.0, "no spin: b_n = -g < 0"), (6.0, "spinning at 6 rad/s: b_n > 0")):
        b_n = float(cm.assemble(build(omega=omega)).b[0])
        print(f"\n{label} (b_n = {b_n:.4f} m/s^2)")
        print(
            f"{'mu':>6} {'A_nn_tilde':>11}  {'theory':<24}{'newton':<10}{'c_n (newton)':>13}  "
            f"{'lemke':<22}{'enumerate: c_n of every solution'}"
        )
        for mu in (0.5, 1.0, 1.3, 1.33, 1.34, 1.4, 2.0, 3.0):
            system = build(mu, omega=omega)
            a = reduced_coefficient(system, mu)
            if a > 0:
                theory = f"one: c_n = {max(0.0, -b_n / a):.4f}"
            elif b_n < 0:
                theory = "none"
            else:
                theory = f"two: c_n = 0, {-b_n / a:.4f}"
            problem = cm.formulate(system)
            newton = cm.solve(problem, solver="newton")
            lemke = cm.solve(problem, solver="lemke")
            every = cm.solve(problem, solver="enumerate").extras.get("solutions", [])
            force = f"{newton.contact('foot').force[0]:.4f}" if newton.ok else "-"
            listed = ", ".join(f"{float(z[0]):.4f}" for z in every) or "none"
            print(
                f"{mu:>6.2f} {a:>11.4f}  {theory:<24}{newton.status.value:<10}{force:>13}  "
                f"{lemke.status.value:<22}{listed}"
            )
