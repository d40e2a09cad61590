"""
A cube pushed and twisted by an active rod, on a hump (Trinkle and Pang (1997) §4, Examples 1 and 2)
====================================================================================================

The system of Trinkle and Pang's distributed-contact paper: a uniform cube of side 2 (its
centre at the world origin, faces at x, y, z = +-1) and an active rod whose axis is parallel
to the world x axis. The rod's tip presses on the cube's front face x = +1; its two actuated
joints translate the rod along its axis with a force tau1 (N) and turn it about its axis with
a moment tau2 (N m). Every contact is a soft finger (``torsion=True``): besides the force
(c_n, c_t, c_o) it carries a moment c_r about its normal, and friction follows the
ellipsoidal limit surface c_t^2/e_t^2 + c_o^2/e_o^2 + c_r^2/e_r^2 <= mu^2 c_n^2 (Trinkle and Pang (1997)
(1), ``cm.Ellipsoid(mu, e_t, e_o, e_r)``) with maximum work.

Contacts (points relative to the cube's centre; normals point into the cube, which is the
first body of each contact; o = n x t):

==========  =================================  ===========  ===========  ===========
contact     point (m)                          n            t            o
==========  =================================  ===========  ===========  ===========
rod         (1, eta - 1, zeta - 1)             (-1, 0, 0)   (0, 1, 0)    (0, 0, -1)
hump        (-1, -1, -1) (Ex. 2), (0, 0, -1)   (0, 0, 1)    (0, 1, 0)    (-1, 0, 0)
fixed_rod   (1 - delta, 1, gamma - 1) (Ex. 2)  (0, -1, 0)   (0, 0, -1)   (1, 0, 0)
==========  =================================  ===========  ===========  ===========

The rod's axis passes through its contact point, so turning the rod twists the contact
(relative spin about n) without sliding it. The rod's joint axes both point along -x, into
the cube: a positive tau1 pushes the cube and a positive tau2 turns the rod with the
right-hand rule about n1 = -x. With these signs the jammed equilibrium has c_n1 = tau1 and
c_r1 = tau2, as in the paper's Table 1.

Masses. The paper gives the system mass matrix M = diag(1, 1, 1, 3, 3, 3, 4, 2): cube mass
1 kg and inertia 3 kg m^2 about each axis; rod translation inertia 4 kg (carriage 2 kg plus
rod 2 kg) and rod axial inertia 2 kg m^2. This file builds that M faithfully. Gravity is
g = 10 m/s^2 along -z (the cube weighs 10 N); the rod's joints carry no gravity load.

How this model compares with the paper's Table 1:

* The authors' matrices (``build_authors()``): G with -1 instead of +1 as the y-moment entry
  of the hump's o row (the corner geometry, and display (2) itself, give +1),
  diag(1, 1, 1, 3, 3, 3, 4, 2) used as the INVERSE mass matrix, and friction on the ellipsoid
  parallel to -(a_t, a_o, a_r) (``Ellipsoid(..., direction="opposite")``) rather than maximum
  work's -(e_t^2 a_t, e_o^2 a_o, e_r^2 a_r); the latter law is not the maximum-work law of
  any ellipsoid. ``cm.all_solutions(build_authors())`` finds exactly Table 1's two solutions.
  The sliding one agrees with every printed entry (12 forces, 12 accelerations, the cube's
  linear acceleration) to the printed 4 decimals (largest difference 4.8e-5). The jammed one has
  c_n1 = tau1 = 6 and c_r1 = tau2 = 3 and zero accelerations as in the table; its other 10
  force components differ (by up to 0.59) because the jammed cube is statically indeterminate:
  the jammed forces form a 4-dimensional set (12 unknowns, 8 equations G^T c + f = 0, inside
  the friction sets) of which Table 1's point is one member (``jammed_force_ranges``).
* With maximum work on the authors' matrices the sliding solution moves (c_n = 5.635, 3.911,
  1.860 instead of 5.640, 4.156, 1.702), and with the true M^-1 it moves more (4.874, 4.369,
  2.073), but it persists (``sliding_branch``). The sign of the o2 entry decides: moving it from
  -1 toward +1 the rod contact stops slipping at 23% of the way, and at 30% the hump's and the
  fixed rod's sliding accelerations reach zero as well: the motion dies out into the jam.
  With all three changes made together the same happens (29% and 41%).
* This faithful model only jams: rolling contacts and zero accelerations with c_n1 = tau1 = 6 N
  and c_r1 = tau2 = 3 N m. Table 1's jammed forces leave a y-moment of 2 c_o2 = -5.943 N m on
  the cube in this geometry (``jammed_residual``), but other jammed forces exist. Multistart
  (302 starting points, three Newton settings and IPOPT: 1144 converged solves) finds only the
  jam, and ``mode_search`` finds no solution in any of the 26 other roll/slide/separate
  patterns (4000 sampled sliding directions and 60 least-squares refinements per pattern;
  the same search finds Table 1's sliding solution, and only it, in the authors' matrices).

Example 2 (default): three contacts, eta = zeta = gamma = 1.5, delta = 0.5, mu = 0.9 and
Ellipsoid(0.9, 1, 1, 2) at every contact, tau = (6, 3), bodies at rest. The paper found two
solutions, the system jams or all contacts slide. Example 1: no fixed rod, the hump under the
middle of the bottom face, eta = 1.5, zeta = 2 (or 0: singular Jacobian), tau = (5, 3),
e_r = 1 at the rod and 0.25 at the hump, mu1 and mu2 varied over [0.1, 1.0] in the paper.

The contact Jacobian (8 x 12, Trinkle and Pang (1997) display (2)) is G^T here with its columns ordered
(n1, n2, n3, t1, t2, t3, o1, o2, o3, r1, r2, r3); its cube rows agree with the paper's. Its
two rod rows have the opposite sign: Trinkle et al. (1997) (3) writes the manipulator dynamics as
tau - J^T c = M qddot, while this library writes M qddot = tau + G^T c.

Run it:
    python examples/rod_cube.py            # faithful model, then the authors' matrices vs Table 1
    contactmodel solve examples/rod_cube.py:build_authors --all-solutions
    contactmodel solve examples/rod_cube.py --json
    contactmodel solve examples/rod_cube.py --friction elliptic-torsion:0.9:1:1:2

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import sys

import numpy as np

import contactmodel as cm

# The model ships with the package (contactmodel.models.rod_cube): the published experiments use it from an
# installed copy. Every name of it is this example's too.
from contactmodel.models.rod_cube import *  # noqa: F403
from contactmodel.models.rod_cube import (
    CONTACTS,
    TABLE1_SLIDING,
    authors_matrices,
    build,
    build_authors,
    classify,
    jammed_force_ranges,
    jammed_residual,
    mode_search,
    seed_jacobian,
    sliding_branch,
    table1_comparison,
)


def _print_comparison(solution: cm.Solution) -> None:
    print(f"\n{'contact':<11}{'':<7}{'this model (n, t, o, r)':<46}Table 1 sliding solution")
    for c in solution.contacts:
        paper = TABLE1_SLIDING[c.name]
        for label, ours, theirs in (
            ("force", c.force, paper["force"]),
            ("accel", c.acceleration, paper["accel"]),
        ):
            row = "(" + ", ".join(f"{v:8.4f}" for v in ours) + ")"
            print(f"{c.name:<11}{label:<7}{row:<46}{theirs}")


if __name__ == "__main__":
    np.set_printoptions(precision=3, suppress=True, linewidth=120)
    system = build()
    print("Example 2: G^T in the paper's column order (n1 n2 n3 t1 t2 t3 o1 o2 o3 r1 r2 r3)")
    print(seed_jacobian(system))

    print(f"\nTable 1 jammed forces: Newton-Euler residual G^T c + f = {jammed_residual(system)}")

    problem = cm.formulate(system)

    solution = cm.solve(problem)
    print("\nExample 2 (mu = 0.9, tau = (6, 3)), newton from zero:")
    print(solution.table())
    import matplotlib.pyplot as plt

    # drawn into a pyplot figure, so that notebooks and the docs show it
    cm.draw(
        problem,
        solution,
        title=f"Example 2, newton: {solution.status.value}",
        ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
    )
    if solution.ok:
        _print_comparison(solution)

    print("\nFaithful model, all_solutions (multistart):")
    print(cm.all_solutions(problem).summary())

    print("\nExample 2 with the authors' matrices (build_authors), all_solutions:")
    found = cm.all_solutions(build_authors())
    print(found.summary())
    G_auth, _, f_auth = authors_matrices()
    ranges = jammed_force_ranges(G_auth, f_auth)
    for sol in found:
        kind = classify(sol)
        rows = table1_comparison(sol, kind)
        worst = max(abs(ours - paper) for _, _, ours, paper in rows)
        print(f"\n{kind} solution: ours vs Table 1 (max |difference| {worst:.2e})")
        extra = "   jammed-set range" if kind == "jammed" else ""
        print(f"{'':<8}{'contact':<11}{'ours':>10}{'Table 1':>10}{'diff':>10}{extra}")
        for quantity, where, ours, paper in rows:
            line = f"{quantity:<8}{where:<11}{ours:>10.4f}{paper:>10.4f}{ours - paper:>10.1e}"
            if kind == "jammed" and quantity.startswith("c_"):
                j = 4 * CONTACTS.index(where) + "ntor".index(quantity[2])
                line += f"   [{ranges[j, 0]:.4f}, {ranges[j, 1]:.4f}]"
            print(line)

    print("\nTable 1's sliding solution followed from the authors' data toward the faithful model:")
    for label, options in (
        ("law -> maximum work, M^-1 -> true inverse", {"flip": False, "true_mass": True, "max_work": True}),
        ("hump o2 entry -1 -> +1", {"flip": True}),
        ("all three together", {"flip": True, "true_mass": True, "max_work": True}),
    ):
        branch = sliding_branch(**options)
        changes = [
            f"{m} from t = {t:.4f}"
            for k, (t, m, _, _) in enumerate(branch)
            if k == 0 or m != branch[k - 1][1]
        ]
        t, m, c, a = branch[-1]
        speeds = [float(np.linalg.norm(a[4 * i + 1 : 4 * i + 4])) for i in range(len(CONTACTS))]
        print(f"  {label}: {', '.join(changes)}; last point t = {t:.4f}, |a_f| = {np.round(speeds, 4)}")

    if "--modes" in sys.argv:  # slow: a few minutes
        asm = cm.assemble(system)
        Minv = np.linalg.inv(asm.M.toarray())
        G = asm.G.toarray()
        print(
            "\nFaithful model, mode_search (rod, hump, fixed_rod; R roll, S slide, X separate; RRR left out):"
        )
        for pattern, points in mode_search(G @ Minv @ G.T, G @ Minv @ asm.f).items():
            print(f"  {pattern}: {len(points)} solution(s)")

    print("\nExample 1 (zeta = 2): tangential acceleration of the hump contact over (mu1, mu2)")
    grid = (0.1, 0.4, 0.7, 1.0)
    print("mu1 \\ mu2 " + "".join(f"{m2:>10.1f}" for m2 in grid))
    for m1 in grid:
        cells = []
        for m2 in grid:
            sol = cm.solve(cm.formulate(build(example=1, mu=(m1, m2))))
            a = sol.contact("hump").acceleration if sol.ok else None
            cells.append(f"{np.hypot(a[1], a[2]):>10.4f}" if a is not None else f"{sol.status.value:>10}")
        print(f"{m1:<10.1f}" + "".join(cells))
