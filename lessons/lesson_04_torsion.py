"""
4. Soft fingers: torsional friction
===================================

A point contact transmits a force only. A soft fingertip pressed on a face touches it over a
small patch, and friction over the patch also resists a *twist* about the normal: the contact
transmits a torsional moment :math:`c_r`. The simplest such law bounds it independently,
:math:`|c_r| \\le e_r \\mu c_n`, with :math:`e_r` (m) a length of the order of the patch's
radius (``cm.EllipticTorsion(mu, e_t, e_o, e_r)``; its tangential part is an ellipse).

The case: a 3 kg box held in the air between two prismatic fingers squeezing with 40 N each
(``contactmodel.catalogue``'s ``two_finger_grip``), :math:`\\mu = 0.5`: friction carries the
weight, 14.7 N per finger, below :math:`\\mu c_n = 20` N. Now twist the box about the fingers'
axis with a moment T. With :math:`e_r = 0.1` m each finger resists up to
:math:`e_r \\mu c_n = 2` N m, so the grip holds the box up to T = 4 N m and it spins beyond,
with :math:`\\dot\\omega = (T - 4) / I_{xx}`. Point contacts (a Coulomb cone) cannot resist any
twist: the box spins at once with :math:`\\dot\\omega = T / I_{xx}`.
"""

# %%
import numpy as np

import contactmodel as cm
from contactmodel import catalogue

GRIP = catalogue.get("two_finger_grip")
E_R = 0.1


def spin(T: float, law: cm.FrictionLaw) -> float:
    """Angular acceleration (rad/s^2) of the gripped box about x under a twist T (N m)."""
    system = GRIP.build()
    system.bodies[0].wrench = (0.0, 0.0, 0.0, T, 0.0, 0.0)
    solution = cm.solve(cm.formulate(system, friction=law))
    assert solution.ok, solution.status
    return solution.bodies[0].angular_acceleration[0]


box = GRIP.build().bodies[0]
I_xx = box.inertia[0, 0]
limit = 2 * E_R * GRIP.mu * 40.0
print(f"I_xx = {I_xx:.4f} kg m^2, torsional limit of the grip 2 e_r mu c_n = {limit:.3f} N m")

# %%
twists = np.linspace(0.0, 8.0, 17)
soft = [spin(T, cm.EllipticTorsion(GRIP.mu, 1.0, 1.0, E_R)) for T in twists]
point = [spin(T, cm.CoulombCone(GRIP.mu)) for T in twists]
for T, s, p in zip(twists[::4], soft[::4], point[::4]):
    hand = max(0.0, T - limit) / I_xx
    print(f"T = {T:4.1f} N m: soft fingers {s:8.3f} (by hand {hand:8.3f}), point contacts {p:8.3f} rad/s^2")
np.testing.assert_allclose(soft, np.maximum(0.0, twists - limit) / I_xx, atol=1e-6)
np.testing.assert_allclose(point, twists / I_xx, atol=1e-6)

import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(twists, point, "o-", label="point contacts (CoulombCone)")
ax.plot(twists, soft, "s-", label=f"soft fingers (EllipticTorsion, e_r = {E_R} m)")
ax.axvline(limit, color="0.5", ls=":", label="2 e_r mu c_n")
ax.set_xlabel("twist T about the fingers' axis (N m)")
ax.set_ylabel("angular acceleration (rad/s²)")
ax.legend()
fig.tight_layout()

# %%
# The picture: the torsional moments are drawn as arcs about each contact's normal, the
# dotted arc at the top of each friction set is the torsional limit.
system = GRIP.build()
system.bodies[0].wrench = (0.0, 0.0, 0.0, 3.0, 0.0, 0.0)
problem = cm.formulate(system, friction=cm.EllipticTorsion(GRIP.mu, 1.0, 1.0, E_R))
solution = cm.solve(problem)
# drawn into a pyplot figure, so that notebooks and the docs show it
cm.draw(
    problem,
    solution,
    title="a 3 N m twist held by the soft fingers",
    ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
)

# %%
# How the 3 N m split between the two fingers is not determined by the mechanics: any split
# within the limits balances the box (see lesson 7). The solver returns one of them:
print([(c.name, round(c.force[3], 4)) for c in solution.contacts])
