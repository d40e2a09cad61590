"""Per-stage times (assemble, formulate, compile, solve) for 10, 100, 1000 contacts.

A row of boxes resting on the ground, four corner contacts each, pushed sideways below the
friction limit. Prints one JSON line per (contacts, form, law). Run:

    python benchmarks/formulate_scaling.py [--sizes 10 100 1000] [--solver newton]
"""

from __future__ import annotations

import argparse
import json
import time

import contactmodel as cm


def boxes_on_ground(n_contacts: int) -> cm.System:
    s = cm.System(gravity=(0, 0, -9.81))
    for i in range(max(1, n_contacts // 4)):
        box = s.add_body(
            f"box{i}",
            mass=1.0,
            inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
            position=(0.5 * i, 0, 0.1),
            wrench=(1.0, 0.5, 0, 0, 0, 0),
        )
        for k, (x, y) in enumerate([(0.1, 0.1), (-0.1, 0.1), (-0.1, -0.1), (0.1, -0.1)]):
            s.add_contact(box, s.ground, point=(0.5 * i + x, y, 0), normal=(0, 0, 1), name=f"c{i}_{k}")
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--solver", default="newton")
    args = parser.parse_args()
    for n in args.sizes:
        system = boxes_on_ground(n)
        laws = [cm.Pyramid(0.5), cm.CoulombCone(0.5)]
        if args.solver == "newton":  # the cone's second-order-cone form: newton only
            laws.append(cm.CoulombCone(0.5, form="soc"))
        for law in laws:
            for form in ("reduced", "sparse"):
                t0 = time.perf_counter()
                asm = cm.assemble(system)
                t1 = time.perf_counter()
                problem = cm.formulate(asm, friction=law, form=form)
                t2 = time.perf_counter()
                problem.compile()
                t3 = time.perf_counter()
                sol = cm.solve(problem, solver=args.solver)
                print(
                    json.dumps(
                        {
                            "contacts": len(system.contacts),
                            "form": form,
                            "law": type(law).__name__,
                            "cone_form": getattr(law, "form", None),
                            "mcp_size": problem.compile().mcp.n,
                            "assemble_s": round(t1 - t0, 4),
                            "formulate_s": round(t2 - t1, 4),
                            "compile_s": round(t3 - t2, 4),
                            "solve_s": round(sol.seconds, 4),
                            "status": sol.status.value,
                            "residual": sol.residual,
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
