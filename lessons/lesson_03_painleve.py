"""
3. Painlevé's rod: no solution, or several, decided by ``cm.decide``
====================================================================

A uniform rod of length 2l leans at angle :math:`\\theta` with one end (the foot) on a table,
sliding. Writing :math:`k = m l^2 / I` (3 for a thin rod), Coulomb's law fixes the friction
once the foot slides, and the normal force solves one scalar complementarity problem

.. math:: 0 \\le c_n \\perp \\tilde A\\, c_n + b_n \\ge 0, \\qquad
   \\tilde A = \\bigl(1 + k \\cos\\theta (\\cos\\theta + \\mu\\, \\mathrm{sign}(v_t) \\sin\\theta)\\bigr) / m,

with :math:`b_n = -g + \\omega^2 l \\sin\\theta`. When the foot leads (:math:`v_t < 0`) and
:math:`\\mu > \\mu_c = (1 + k\\cos^2\\theta)/(k \\sin\\theta\\cos\\theta)` (at least 4/3),
:math:`\\tilde A < 0`: with :math:`b_n < 0` there is **no** solution (Painlevé's paradox), and
with :math:`b_n > 0` (a fast spin) there are **two**. Trinkle, Pang, Sudarsky and Lo, "On
dynamic multi-rigid-body contact problems with Coulomb friction" (ZAMM 1997) discuss it.

A solver that fails proves nothing; ``cm.decide`` returns a verdict with evidence: a Farkas
certificate of nonexistence, or two verified solutions.
"""

# %%
import math

import matplotlib.pyplot as plt
import numpy as np

import contactmodel as cm

G, MASS, L, THETA = 9.81, 1.0, 0.5, math.atan(2.0)


def rod(mu: float, omega: float = 0.0, speed: float = -1.0) -> cm.System:
    inertia = cm.inertia.cylinder(MASS, 0.005, 2 * L)
    axis = np.array([math.cos(THETA), 0.0, math.sin(THETA)])
    tilt = math.pi / 2 - THETA
    rotation = np.array(
        [[math.cos(tilt), 0.0, math.sin(tilt)], [0.0, 1.0, 0.0], [-math.sin(tilt), 0.0, math.cos(tilt)]]
    )
    system = cm.System(gravity=(0.0, 0.0, -G))
    body = system.add_body(
        "rod",
        mass=MASS,
        inertia=inertia,
        position=L * axis,
        orientation=rotation,
        velocity=(speed + omega * L * math.sin(THETA), 0.0, -omega * L * math.cos(THETA)),
        angular_velocity=(0.0, omega, 0.0),
    )
    system.add_contact(
        body,
        system.ground,
        point=(0.0, 0.0, 0.0),
        normal=(0.0, 0.0, 1.0),
        tangent=(1.0, 0.0, 0.0),
        friction=cm.CoulombCone(mu),
        name="foot",
    )
    return system


k = MASS * L**2 / cm.inertia.cylinder(MASS, 0.005, 2 * L)[0, 0]
mu_c = (1 + k * math.cos(THETA) ** 2) / (k * math.sin(THETA) * math.cos(THETA))
print(f"k = {k:.5f}, mu_c = {mu_c:.5f}")

# %%
# The verdicts
# ------------
# Below :math:`\mu_c` one solution; above it, none without spin and two with a spin of
# 6 rad/s (:math:`\omega^2 l \sin\theta = 16.1 > g`).
print(f"{'mu':>5} {'spin':>6} {'by hand':<10} {'decide':<14} {'newton':<22} evidence")
for mu, omega in ((1.0, 0.0), (2.0, 0.0), (2.0, 6.0)):
    a = (1 + k * math.cos(THETA) * (math.cos(THETA) - mu * math.sin(THETA))) / MASS
    b = -G + omega**2 * L * math.sin(THETA)
    hand = "one" if a > 0 else ("none" if b < 0 else "two")
    problem = cm.formulate(rod(mu, omega))
    verdict = cm.decide(problem)
    newton = cm.solve(problem, solver="newton")
    evidence = verdict.evidence.get("found_by") or ", ".join(sorted(verdict.evidence)[:2])
    print(f"{mu:>5} {omega:>6} {hand:<10} {verdict.status.value:<14} {newton.status.value:<22} {evidence}")

# %%
# ``summary()`` tells how the verdict was reached. The nonexistence is certified by a Farkas
# vector of the LCP (checked in exact arithmetic where it says ``exact=True``):
print(cm.decide(cm.formulate(rod(2.0))).summary())

# %%
# The two solutions of the spinning rod: the foot lifts off (:math:`c_n = 0`) or stays down
# with :math:`c_n = -b_n / \tilde A`.
verdict = cm.decide(cm.formulate(rod(2.0, 6.0)))
for i, x in enumerate(verdict.solutions):
    print(f"solution {i}: first entries {np.round(np.asarray(x, dtype=float)[:3], 4)}")

# %%
# A picture of the first case (mu = 1, one solution): the force leans against the sliding.
problem = cm.formulate(rod(1.0))
# drawn into a pyplot figure, so that notebooks and the docs show it
cm.draw(
    problem,
    cm.solve(problem),
    title="mu = 1 < mu_c: c_n = g / A~",
    ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
)
