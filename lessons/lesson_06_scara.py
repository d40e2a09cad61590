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
import math

import matplotlib.pyplot as plt
import numpy as np

import contactmodel as cm
from contactmodel.manipulator import scara

R, A, L1, L2, MASS, MU, G = 0.2, 0.5, 0.4, 0.25, 3.0, (0.1, 0.2), 9.81
THETA1 = math.asin(L2 / (2 * L1))
THETA2 = -THETA1 - math.pi / 6
QUILL = -math.pi / 6
B = R + L1 * math.cos(THETA1) + L2 * math.cos(math.pi / 6)
TIP = 3


def grasp(squeeze: float) -> cm.System:
    system = cm.System(gravity=(0.0, 0.0, -G))
    cube = system.add_body("cube", mass=MASS, inertia=cm.inertia.box(MASS, (2 * R,) * 3), position=(0, 0, A))
    for i, side in enumerate((-1.0, 1.0)):
        q = (THETA1 + (math.pi if side > 0 else 0.0), THETA2, QUILL, 0.0)
        base = ((side * B, 0.0, 0.0), np.eye(3))
        dh = scara(f"scara{i + 1}", L1, L2, 0.0, q=q, base=base, d1=A - QUILL)
        tau = dh.point_jacobian(TIP, dh.link_frames()[TIP][1]).T @ (squeeze * np.array([-side, 0.0, 0.0]))
        arm = system.add_manipulator(
            f"scara{i + 1}",
            joints=dh.joints,
            links=dh.links,
            q=q,
            base=base,
            efforts=[float(tau[0]), float(tau[1]), None, 0.0],
            prescribed_accelerations=[None, None, 0.0, None],
        )
        system.add_contact(
            cube,
            arm.link(TIP),
            point=(side * R, 0.0, A),
            normal=(-side, 0.0, 0.0),
            tangent=(0.0, 0.0, -1.0),
            friction=cm.CoulombCone(MU[i]),
            name=f"tip{i + 1}",
        )
    return system


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
