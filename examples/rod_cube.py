"""
A cube pushed and twisted by an active rod, on a hump (Trinkle and Pang (1997) §4, Examples 1 and 2)
====================================================================================================

The model ships with the package as ``contactmodel.models.rod_cube``, so the published experiments
run it from an installed copy; its docstring, printed first below, describes the cube, the rod and
the hump, the contacts, the masses, how this model compares with Trinkle and Pang's Table 1, and the
commands that run it. This example imports it and solves it.
"""

from __future__ import annotations

import sys

import numpy as np

import contactmodel as cm

# The model ships with the package (contactmodel.models.rod_cube): the published experiments use it from an
# installed copy. Every name of it is this example's too.
from contactmodel.models import rod_cube as models_rod_cube
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
    print(models_rod_cube.__doc__)
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
