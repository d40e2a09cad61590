"""
6. The SCARA grasp: manipulators with contacts
==============================================

Andreani, Friedlander, Mello and Santos (2002) test their solver on a cube of mass 3 kg held
between the fingertips of two SCARA robots. Each arm is a chain of joints (two revolute
joints about vertical axes, a vertical prismatic quill, a wrist) described in
Denavit-Hartenberg form (``contactmodel.manipulator.scara``); its fingertip is a link, and a
contact joins it to the cube. The contact Jacobian then includes the arm's joints, and the
arm's joint efforts enter the problem.

Each arm squeezes with 200 N, through joint torques :math:`\\tau = J^T (200\\, n)`; the quills
are servoed (acceleration 0, effort unknown, reported by the solution). At rest the cube
needs :math:`m g / 2 = 14.7` N of friction per fingertip, and tip 1 (:math:`\\mu_1 = 0.1`)
allows :math:`0.1 \\cdot 200 = 20` N: the grasp holds. It holds as long as the squeeze is at
least :math:`m g / (2 \\mu_1) = 147` N.
"""

# %%
# The model ships with the package (``contactmodel.models.scara_grasp``, its docstring gives the
# geometry); ``build(sliding=False, squeeze=S)`` holds the cube at rest with a squeeze of S N.
import matplotlib.pyplot as plt
import numpy as np

import contactmodel as cm
from contactmodel.models import scara_grasp

MASS, MU, G = scara_grasp.CUBE_MASS, scara_grasp.MU, scara_grasp.G


def grasp(squeeze: float) -> cm.System:
    return scara_grasp.build(sliding=False, squeeze=squeeze)


problem = cm.formulate(grasp(200.0))
solution = cm.solve(problem)
print(solution.table())

# %%
# The picture: the links and joint axes of both arms, the contact frames, the cones and forces.
# drawn into a pyplot figure, so that notebooks and the docs show it
cm.draw(
    problem,
    solution,
    title="two SCARA arms holding the cube (200 N squeeze)",
    ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
)

# %%
# How hard must they squeeze?
# ---------------------------
squeezes = np.linspace(100.0, 220.0, 13)
drop = []
for s in squeezes:
    sol = cm.solve(cm.formulate(grasp(s)))
    assert sol.ok
    drop.append(sol.bodies[0].linear_acceleration[2])
threshold = MASS * G / (2 * MU[0])
for s, a in zip(squeezes[::3], drop[::3]):
    print(f"squeeze {s:5.0f} N: cube a_z = {a:8.4f} m/s^2 ({'holds' if abs(a) < 1e-9 else 'slips'})")
assert all(abs(a) < 1e-9 for s, a in zip(squeezes, drop) if s >= threshold + 1)
assert all(a < -1e-6 for s, a in zip(squeezes, drop) if s <= threshold - 1)

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(squeezes, drop, "o-")
ax.axvline(threshold, color="0.5", ls=":", label="m g / (2 mu_1) = 147 N")
ax.set_xlabel("squeeze per arm (N)")
ax.set_ylabel("cube's vertical acceleration (m/s²)")
ax.legend()
fig.tight_layout()
