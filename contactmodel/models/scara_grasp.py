"""Two SCARA robots grasp a cube between their fingertips (Andreani et al. (2002) §4).

The test problem of Andreani, Friedlander, Mello and Santos: a cube of side 2r = 0.4 m and
mass 3 kg is held between the fingertips of two SCARA arms, one on each side, the contact
points at the centres of two opposite vertical faces. Each arm is Andreani et al.'s (2002) SCARA in
standard Denavit-Hartenberg form (``contactmodel.manipulator.scara``): a shoulder and an
elbow turning about vertical axes (links of l1 = 0.4 m and l2 = 0.25 m), a vertical
prismatic quill, and a wrist (l3 = 0). The fingertip is the origin of link 4's frame.

Geometry (world = the palm frame P, z up, gravity 9.81 m/s^2 along -z):

* joint positions Theta1 = (theta1, theta2, -pi/6, 0) and Theta2 = (theta1 + pi, theta2,
  -pi/6, 0) (rad, rad, m, rad) with theta1 = arcsin(l2 / (2 l1)) = 0.31782 rad and
  theta2 = -theta1 - pi/6 = -0.84142 rad. The two planar links then end on the line through
  the base: the fingertip is d = l1 cos(theta1) + l2 cos(pi/6) = 0.596473 m from its base
  along +x (arm 1) or -x (arm 2), at height d1 - pi/6 above it (the quill is at -pi/6 m).
* arm 1's base at (-b, 0, 0), arm 2's at (+b, 0, 0): on the palm's x axis, b from P.
* the paper gives b = 0.8 m, but then the fingertips are 2 (b - d) = 0.40705 m apart, not
  2r = 0.4 m, and cannot touch both faces. We use b = r + d = 0.796473 m, which closes the
  grasp exactly.
* the paper's a = 0.5 m (distance from P to O) fixes the cube's height: O = (0, 0, a). The
  paper does not give the SCARA column height d1; we choose d1 = a + pi/6 so that the
  fingertips (at height d1 - pi/6 above their bases) are at the height of the cube's centre.

Contacts (point contacts, ``cm.CoulombCone``): ``tip1`` at (-r, 0, a) with mu1 = 0.1 and
``tip2`` at (r, 0, a) with mu2 = 0.2. The cube is each contact's first body, so the normals
(+1, 0, 0) and (-1, 0, 0) point into the cube and the forces (c_n, c_t, c_o) act on it. The
tangent t is (0, 0, -1) at both contacts (o = n x t).

Motion. The paper sets the relative velocities to v_i = (0, 1, 0) in each contact frame: the
cube slips down between the fingers at 1 m/s (``build(sliding=True)``, the default, Andreani et al. (2002)
§4.1). ``build(sliding=False)`` puts everything at rest, so both contacts roll (§4.2).

Efforts. Each arm squeezes with SQUEEZE = 200 N: the shoulder and elbow torques are
tau = J^T (SQUEEZE n_into_cube), J the fingertip's linear Jacobian (only the elbow carries
it: the fingertip lies on the line through the shoulder axis). The quill is servoed: its
effort is unknown (None) and its acceleration prescribed to 0 (Trinkle et al. (1997) §2.5), so the
solution reports the force it needs. The wrist effort is 0.

What to expect. At rest (rolling) friction can hold the weight: each tip needs
m g / 2 = 14.715 N of friction (the moment balance of the cube shares the weight equally)
and allows mu c_n = 0.1 * 200 = 20 N at tip 1, so the grasp holds and nothing accelerates.
Sliding, the friction forces are -mu_i c_n,i along t, i.e. 0.1 c_n1 and 0.2 c_n2 upward:
about 60 N against the 29.43 N weight, so the cube decelerates (accelerates upward), and
the unequal friction turns it about the y axis. The numbers (newton):

* sliding: c = (200, -20, 0) N at tip1 and (200, -40, 0) N at tip2 (friction -mu_i c_n,i along
  t = -z, i.e. upward on the cube); cube a = (0, 0, (60 - 29.43) / 3) = (0, 0, 10.19) m/s^2,
  angular acceleration r (20 - 40) / I_yy = -50 rad/s^2 about y (I_yy = 0.08 kg m^2); the
  quills need 21.962 N and 41.962 N (their weight 1.962 N plus the friction drag).
* rolling: c = (200, -14.715, 0) N at each tip, nothing accelerates, quills 16.677 N each.

Run it:
    python examples/scara_grasp.py
    contactmodel solve examples/scara_grasp.py --json
    contactmodel solve examples/scara_grasp.py --friction pyramid:0.2 --solver lemke

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

import math

import numpy as np

import contactmodel as cm
from contactmodel.manipulator import Manipulator, scara

R = 0.2  # m, half the cube's side
A = 0.5  # m, height of the cube's centre above the palm frame
L1, L2, L3 = 0.4, 0.25, 0.0  # m, SCARA link lengths
CUBE_MASS = 3.0  # kg
MU = (0.1, 0.2)  # friction at tip 1 and tip 2
SQUEEZE = 200.0  # N, the normal force each arm's joint torques would exert on a still cube
SPEED = 1.0  # m/s, the cube slipping down between the fingers (sliding variant)
G = 9.81  # m/s^2

THETA1 = math.asin(L2 / (2 * L1))  # rad
THETA2 = -THETA1 - math.pi / 6  # rad
QUILL = -math.pi / 6  # m, the prismatic joint's position in Theta
REACH = L1 * math.cos(THETA1) + L2 * math.cos(math.pi / 6)  # m, base to fingertip along x
B_SEED = 0.8  # m, the paper's base distance (fingertips 0.40705 m apart: no grasp)
B = R + REACH  # m, 0.796473: the base distance that closes the grasp
D1 = A - QUILL  # m, SCARA column height putting the fingertips at the cube's mid-height
TIP = 3  # index of the fingertip link (link 4, the wrist)


def _arm(system: cm.System, name: str, side: float, q: tuple[float, ...], squeeze: float) -> Manipulator:
    """One SCARA with its base at (side * B, 0, 0), squeezing towards the cube with ``squeeze`` N."""
    base = ((side * B, 0.0, 0.0), np.eye(3))
    dh = scara(name, L1, L2, L3, q=q, base=base, d1=D1)
    tip = dh.link_frames()[TIP][1]
    tau = dh.point_jacobian(TIP, tip).T @ (squeeze * np.array([-side, 0.0, 0.0]))
    return system.add_manipulator(
        name,
        joints=dh.joints,
        links=dh.links,
        q=q,
        base=base,
        efforts=[float(tau[0]), float(tau[1]), None, 0.0],
        prescribed_accelerations=[None, None, 0.0, None],
    )


def build(sliding: bool = True, squeeze: float = SQUEEZE) -> cm.System:
    """The grasp; ``sliding``: the cube slips down at 1 m/s (both contacts slide), else at rest;
    ``squeeze`` (N): the normal force each arm's joint torques would exert on a still cube."""
    system = cm.System(gravity=(0.0, 0.0, -G))
    cube = system.add_body(
        "cube",
        mass=CUBE_MASS,
        inertia=cm.inertia.box(CUBE_MASS, (2 * R, 2 * R, 2 * R)),
        position=(0.0, 0.0, A),
        velocity=(0.0, 0.0, -SPEED if sliding else 0.0),
    )
    arm1 = _arm(system, "scara1", -1.0, (THETA1, THETA2, QUILL, 0.0), squeeze)
    arm2 = _arm(system, "scara2", 1.0, (THETA1 + math.pi, THETA2, QUILL, 0.0), squeeze)
    for i, (arm, side, mu) in enumerate(((arm1, -1.0, MU[0]), (arm2, 1.0, MU[1])), start=1):
        system.add_contact(
            cube,
            arm.link(TIP),
            point=(side * R, 0.0, A),
            normal=(-side, 0.0, 0.0),
            tangent=(0.0, 0.0, -1.0),
            friction=cm.CoulombCone(mu),
            name=f"tip{i}",
        )
    return system


def fingertip_gaps(system: cm.System) -> dict[str, float]:
    """Signed distance (m) from each fingertip to its cube face along the contact normal."""
    cube = system.body("cube")
    gaps = {}
    for contact in system.contacts:
        arm, index = contact.body_b.manipulator, contact.body_b.index
        tip = arm.link_frames()[index][1]
        face = cube.position - R * contact.normal
        gaps[contact.name] = float(contact.normal @ (face - tip))
    return gaps


__all__ = [
    "A",
    "B",
    "B_SEED",
    "CUBE_MASS",
    "D1",
    "G",
    "L1",
    "L2",
    "L3",
    "MU",
    "QUILL",
    "R",
    "REACH",
    "SPEED",
    "SQUEEZE",
    "THETA1",
    "THETA2",
    "TIP",
    "build",
    "fingertip_gaps",
]
