"""
2. Contact modes as complementary cones
=======================================

A contact at rest can **separate** (the bodies accelerate apart, no force), **roll** (stick:
no relative acceleration, the force anywhere in the friction set) or **slide** one way or the
other (the force on the friction set's boundary, against the sliding). Which one happens
depends on the applied wrench, and the wrenches that give one mode form a convex cone: the
*complementary cones* of Berard, Egan and Trinkle, "Contact modes and complementary cones"
(ICRA 2004).

The disc of their Fig. 2: a disc of radius R = 0.3 m and mass 1 kg at rest on a small fixed
disc, friction :math:`\\mu = 0.4`, pushed at its centre by a force :math:`(P_t, P_n)` (no
gravity). With the contact force :math:`(c_n, c_t)` on the disc the contact accelerations are

.. math:: a_n = (c_n + P_n) / m, \\qquad a_t = (3 c_t + P_t) / m

(friction also spins the disc, tripling its effect on the contact point). So the contact

* separates when :math:`P_n > 0`;
* rolls when :math:`P_n \\le 0` and :math:`|P_t| \\le 3 \\mu |P_n|`: a cone three times wider
  than the friction cone;
* slides towards :math:`\\pm t` otherwise.
"""

# %%
import numpy as np

import contactmodel as cm

MU, RHO, RADIUS, MASS = 0.4, 0.1, 0.3, 1.0


def disc(push) -> cm.System:
    system = cm.System(gravity=(0.0, 0.0, 0.0))
    body = system.add_body(
        "disc",
        mass=MASS,
        inertia=cm.inertia.cylinder(MASS, RADIUS, 0.05),
        position=(0.0, RHO + RADIUS, 0.0),
        wrench=(push[0], push[1], 0.0, 0.0, 0.0, 0.0),
    )
    system.add_contact(
        body,
        system.ground,
        point=(0.0, RHO, 0.0),
        normal=(0.0, 1.0, 0.0),
        tangent=(1.0, 0.0, 0.0),
        friction=cm.Planar(MU),
        name="contact",
    )
    return system


def predicted(push) -> str:
    p_t, p_n = push
    if p_n > 0:
        return "separate"
    return "roll" if abs(p_t) <= 3 * MU * abs(p_n) else "slide"


# %%
# Turn a 1 N push around the disc and ask the solver for the mode
# ----------------------------------------------------------------
angles = np.radians(np.arange(0.0, 360.0, 5.0))
modes = []
for a in angles:
    push = (round(np.cos(a), 12), round(np.sin(a), 12))
    solution = cm.solve(cm.formulate(disc(push)))
    assert solution.ok
    mode = solution.contact("contact").mode.split()[0]
    assert mode == predicted(push), (np.degrees(a), mode)
    modes.append(mode)
print(
    {m: modes.count(m) for m in sorted(set(modes))}, "of", len(modes), "push directions agree with the rule"
)

# %%
# The three cones in the plane of the push. The rolling cone's half-angle is
# :math:`\arctan(3\mu) = 50.2^\circ` about :math:`-n`; the friction cone's is only
# :math:`\arctan\mu = 21.8^\circ`.
import matplotlib.pyplot as plt  # noqa: E402

from contactmodel.simulation.pictures import mode_colour  # noqa: E402

fig, ax = plt.subplots(figsize=(5, 5))
for m in sorted(set(modes)):
    sel = np.array(modes) == m
    ax.scatter(np.cos(angles[sel]), np.sin(angles[sel]), color=mode_colour(m), label=m, s=30)
half = np.arctan(3 * MU)
for s in (-1, 1):
    ax.plot([0, 1.2 * np.sin(s * half)], [0, -1.2 * np.cos(half)], "k--", lw=1)
ax.plot([-1.2, 1.2], [0, 0], "k:", lw=1)
ax.set_aspect("equal")
ax.set_xlabel("P_t (N)")
ax.set_ylabel("P_n (N)")
ax.set_title("mode of the contact for each push direction")
ax.legend(loc="upper right")

# %%
# The same cones from the library's mode analysis
# -----------------------------------------------
# ``contactmodel.analysis.disc_cones`` computes, for the two-contact disc of the paper's
# Fig. 2, every mode assignment's cone of wrenches (its generators and its faces, through
# cddlib); the feasible ones tile the wrench space.
from contactmodel.analysis import disc_cones  # noqa: E402

for cone in disc_cones(MU):
    if cone.feasible:
        print(f"{str(cone.assignment):55} {len(cone.rays)} rays, {len(cone.lineality)} lineality directions")
