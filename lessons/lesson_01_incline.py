"""
1. The incline: cone against pyramid, and why the pyramid's axes matter
========================================================================

A block rests on an incline of angle :math:`\\theta`. Its weight has a downhill part
:math:`m g \\sin\\theta` and a normal part :math:`m g \\cos\\theta`; Coulomb friction can hold at
most :math:`\\mu m g \\cos\\theta`. So the block sticks when :math:`\\tan\\theta \\le \\mu` and
otherwise slides with

.. math:: a = g (\\sin\\theta - \\mu \\cos\\theta).

Coulomb's law bounds the friction force by a round cone, :math:`\\|c_T\\| \\le \\mu c_n`. Linear
complementarity solvers (Lemke) need a polyhedral law instead; the simplest is the four-sided
pyramid :math:`|c_t|, |c_o| \\le \\mu c_n`, whose faces are aligned with the contact's tangent
axes *t* and *o*. Along an axis the pyramid and the cone agree; along a diagonal the pyramid
allows up to :math:`\\sqrt 2 \\mu c_n`. This lesson shows the consequence.
"""

# %%
# The block on a tilted world
# ---------------------------
# Instead of tilting the floor we tilt gravity: a floor in the x-y plane with gravity
# :math:`g (-\sin\theta, 0, -\cos\theta)` is an incline going down towards -x. The 1 kg cube of
# side 0.2 m stands on its four bottom corners; ``axes`` turns the contact frames' tangent t
# about the normal (0 degrees: t along the slope).
import numpy as np

import contactmodel as cm

G, SIDE, THETA = 9.81, 0.2, np.radians(30.0)


def block(law: cm.FrictionLaw, axes_deg: float = 0.0) -> cm.System:
    system = cm.System(gravity=(-G * np.sin(THETA), 0.0, -G * np.cos(THETA)))
    box = system.add_body(
        "block", mass=1.0, inertia=cm.inertia.box(1.0, (SIDE,) * 3), position=(0, 0, SIDE / 2)
    )
    turn = np.radians(axes_deg)
    h = SIDE / 2
    for i, (x, y) in enumerate([(h, h), (-h, h), (-h, -h), (h, -h)]):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0.0),
            normal=(0, 0, 1),
            tangent=(np.cos(turn), np.sin(turn), 0.0),
            friction=law,
            name=f"corner{i}",
        )
    return system


def downhill_acceleration(law: cm.FrictionLaw, axes_deg: float = 0.0) -> float:
    solver = "newton" if isinstance(law, cm.CoulombCone) else "lemke"
    solution = cm.solve(cm.formulate(block(law, axes_deg)), solver=solver)
    assert solution.ok, solution.status
    return -solution.bodies[0].linear_acceleration[0]


# %%
# Sticking and sliding, by hand and by the solvers
# ------------------------------------------------
# :math:`\tan 30^\circ = 0.577`: with :math:`\mu = 0.3` the block slides with
# :math:`a = 9.81 (0.5 - 0.3 \cdot 0.866) = 2.356` m/s², with :math:`\mu = 0.7` it sticks.
print(f"{'mu':>5} {'by hand':>10} {'cone':>10} {'pyramid':>10}   (m/s^2 downhill)")
for mu in (0.3, 0.7):
    hand = max(0.0, G * (np.sin(THETA) - mu * np.cos(THETA)))
    cone, pyramid = downhill_acceleration(cm.CoulombCone(mu)), downhill_acceleration(cm.Pyramid(mu))
    print(f"{mu:>5} {hand:>10.4f} {cone:>10.4f} {pyramid:>10.4f}")
    assert abs(cone - hand) < 1e-6 and abs(pyramid - hand) < 1e-6

# %%
# Turning the pyramid's axes
# --------------------------
# With :math:`\mu = 0.5` the cone lets the block slide (:math:`a = 0.657` m/s²) whatever the
# tangent axes. Turn the pyramid's axes by 45 degrees: the slope now runs along the pyramid's
# diagonal, where it holds :math:`\sqrt 2 \cdot 0.5 = 0.71 > \tan 30^\circ` times the normal
# force, and the same block sticks. The pyramid's answer depends on an arbitrary choice of
# axes; the cone's does not. (A polygon with more sides, ``cm.Polygonal``, shrinks the effect.)
angles = np.arange(0.0, 91.0, 15.0)
MU = 0.5
cone = [downhill_acceleration(cm.CoulombCone(MU), a) for a in angles]
pyramid = [downhill_acceleration(cm.Pyramid(MU), a) for a in angles]
octagon = [downhill_acceleration(cm.Polygonal(MU, k=8), a) for a in angles]
for a, c, p in zip(angles, cone, pyramid):
    print(f"axes turned {a:4.0f} deg: cone {c:.4f}   pyramid {p:.4f} m/s^2")
assert abs(pyramid[3]) < 1e-9 and pyramid[0] > 0.6  # 45 degrees: stuck; 0 degrees: slides

import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(angles, cone, "o-", label="Coulomb cone")
ax.plot(angles, pyramid, "s-", label="4-sided pyramid")
ax.plot(angles, octagon, "^-", label="8-sided polygon")
ax.axhline(G * (np.sin(THETA) - MU * np.cos(THETA)), color="0.5", ls=":", label="g (sin - mu cos)")
ax.set_xlabel("tangent axes turned about n (deg)")
ax.set_ylabel("downhill acceleration (m/s²)")
ax.set_title("30° incline, mu = 0.5")
ax.legend()
fig.tight_layout()

# %%
# The picture of one case: the pyramid turned by 30 degrees, its friction sets drawn at the
# corners, the forces and the block's acceleration.
law = cm.Pyramid(MU)
problem = cm.formulate(block(law, 30.0))
# drawn into a pyplot figure, so that notebooks and the docs show it
cm.draw(
    problem,
    cm.solve(problem, solver="lemke"),
    title="pyramid turned by 30 degrees",
    ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
)
