"""
Two SCARA robots grasp a cube between their fingertips (Andreani et al. (2002) §4)
==================================================================================

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

import contactmodel as cm

# The model ships with the package (contactmodel.models.scara_grasp): the published experiments use it from an
# installed copy. Every name of it is this example's too.
from contactmodel.models.scara_grasp import *  # noqa: F403
from contactmodel.models.scara_grasp import B_SEED, REACH, THETA1, THETA2, B, build, fingertip_gaps

if __name__ == "__main__":
    print(f"theta1 = {THETA1:.6f} rad, theta2 = {THETA2:.6f} rad, reach = {REACH:.6f} m")
    print(f"fingertips {2 * (B_SEED - REACH):.5f} m apart with paper's b = {B_SEED} m; b = {B:.6f} m used")
    print(f"fingertip-to-face gaps: {fingertip_gaps(build())}")
    for sliding in (True, False):
        print(f"\n{'all sliding (cube slipping down at 1 m/s)' if sliding else 'all rolling (at rest)'}:")
        problem = cm.formulate(build(sliding))
        solution = cm.solve(problem)
        print(solution.table())
        import matplotlib.pyplot as plt

        # drawn into a pyplot figure, so that notebooks and the docs show it
        cm.draw(
            problem,
            solution,
            title=f"{'sliding' if sliding else 'at rest'}: {solution.status.value}",
            ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
        )
