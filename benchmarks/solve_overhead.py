"""The cost of ``cm.solve`` around the solver, and of a parameter sweep, before and after a change.

Two measurements, on rows of boxes resting on the ground, four corner contacts each, pushed
sideways below the friction limit (``scaling.boxes_on_ground``), reduced form, solver
newton, friction ``Pyramid(0.5)`` (an LCP) and ``CoulombCone(0.5, form="soc")``:

- ``call``: a re-solve of a formulated, once-solved problem. *call* is the caller's wall time of
  ``cm.solve(problem)``; *solver* is ``Solution.seconds``, the wall time of the solver's own
  ``solve(mcp, options)`` inside the dispatcher (its setup from the MCP included; the structure
  check, compilation cache, option parsing, residuals, law residual, modes and results
  excluded). Reported: medians of both, the median of the per-call ratio call / solver and of
  the difference call - solver.
- ``sweep``: ``--sweep`` solves of one 100-contact problem whose b changes from run to run
  (b_k = b_0 (1 + 0.25 sin(2 pi k / 100))), each warm-started from the previous answer: the
  total wall time against the sum of the solver seconds. Trees without ``cm.solve_many`` get
  the documented route: writing ``model.b`` then ``cm.solve(problem, x0=previous.x)``.

``--before PATH`` names another source tree of the package (e.g. ``git archive COMMIT | tar -x
-C PATH``); each measurement then runs in a fresh process per tree, the trees alternating, so
both see the same machine load. Run:

    python benchmarks/solve_overhead.py --before /tmp/before [--sizes 10 100 1000] [--rounds 3]
        [--repeat 7] [--sweep 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAWS = ("pyramid", "soc")


def _law(name: str):
    import contactmodel as cm

    return cm.Pyramid(0.5) if name == "pyramid" else cm.CoulombCone(0.5, form="soc")


def measure_calls(size: int, law: str, repeat: int) -> dict:
    """(call s, solver s) of ``repeat`` re-solves of one problem."""
    from scaling import boxes_on_ground

    import contactmodel as cm

    problem = cm.formulate(boxes_on_ground(size), friction=_law(law))
    first = cm.solve(problem, solver="newton")
    pairs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sol = cm.solve(problem, solver="newton")
        pairs.append((time.perf_counter() - t0, sol.seconds))
    return {
        "contacts": len(problem.contact_names),
        "n": int(problem.compile().mcp.n),
        "status": [first.status.value, sol.status.value],
        "law_residual": sol.checks.get("law_residual"),
        "pairs": pairs,
    }


def measure_sweep(law: str, runs: int) -> dict:
    """Total wall and summed solver seconds of ``runs`` solves with changing b (100 contacts)."""
    import numpy as np
    from scaling import boxes_on_ground

    import contactmodel as cm

    problem = cm.formulate(boxes_on_ground(100), friction=_law(law))
    cm.solve(problem, solver="newton")
    b0 = problem.assembly.b.copy()
    bs = [b0 * (1.0 + 0.25 * np.sin(2 * np.pi * k / 100)) for k in range(runs)]
    if hasattr(cm, "solve_many"):
        t0 = time.perf_counter()
        sweep = cm.solve_many(problem, [{"b": b} for b in bs], solver="newton", keep_solutions=False)
        wall = time.perf_counter() - t0
        statuses = sweep.counts()
        solver = sweep.solver_seconds()
        checked = sum(r.law_residual is not None for r in sweep.runs)
        route = "solve_many"
    else:
        statuses: dict[str, int] = {}
        solver, checked, previous = 0.0, 0, None
        t0 = time.perf_counter()
        for b in bs:
            for r, value in enumerate(b):
                problem.model.b[r] = float(value)
            sol = cm.solve(problem, solver="newton", x0=None if previous is None else previous.x)
            previous = sol if sol.ok else None
            solver += sol.seconds
            checked += "law_residual" in sol.checks
            statuses[sol.status.value] = statuses.get(sol.status.value, 0) + 1
        wall = time.perf_counter() - t0
        route = "model.b + solve(x0=previous)"
    return {"wall": wall, "solver": solver, "statuses": statuses, "checked": checked, "route": route}


def _worker(args) -> None:
    sys.path.insert(0, str(HERE))
    if args.measure == "call":
        out = measure_calls(args.size, args.law, args.repeat)
    else:
        out = measure_sweep(args.law, args.runs)
    print(json.dumps(out))


def _run(tree: Path, *argv: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *argv],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, help="source tree of the package to compare with")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sweep", type=int, default=1000, help="solves in the sweep (0: none)")
    parser.add_argument("--measure", choices=("call", "sweep"), help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--law", choices=LAWS, help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _worker(args)
        return
    trees = {"after": HERE.parent}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    calls: dict[tuple, list] = {}
    for k in range(args.rounds):
        for size in args.sizes:
            for law in LAWS:
                for name in trees if k % 2 == 0 else reversed(list(trees)):
                    got = _run(
                        trees[name],
                        "--measure",
                        "call",
                        "--size",
                        str(size),
                        "--law",
                        law,
                        "--repeat",
                        str(args.repeat),
                    )
                    calls.setdefault((size, law, name), []).append(got)
    head = ("contacts", "law", "tree", "call ms", "solver ms", "ratio", "call-solver ms")
    print(" ".join(f"{h:>{w}}" for h, w in zip(head, (8, 8, 6, 9, 9, 6, 14))))
    for (_size, law, name), got in calls.items():
        pairs = [p for g in got for p in g["pairs"]]
        call = statistics.median(c for c, _ in pairs) * 1e3
        solver = statistics.median(s for _, s in pairs) * 1e3
        ratio = statistics.median(c / s for c, s in pairs)
        extra = statistics.median(c - s for c, s in pairs) * 1e3
        row = {
            "contacts": got[0]["contacts"],
            "n": got[0]["n"],
            "law": law,
            "tree": name,
            "call_ms": call,
            "solver_ms": solver,
            "ratio": ratio,
            "extra_ms": extra,
            "samples": len(pairs),
            "statuses": sorted({s for g in got for s in g["status"]}),
        }
        cells = f"{row['contacts']:>8} {law:>8} {name:>6} {call:>9.2f} {solver:>9.2f} {ratio:>6.2f}"
        print(f"{cells} {extra:>14.2f}   {json.dumps(row)}")
    if args.sweep:
        for law in LAWS:
            for name in trees:
                got = _run(trees[name], "--measure", "sweep", "--law", law, "--runs", str(args.sweep))
                print(
                    f"sweep {args.sweep} x 100 contacts {law:>8} {name:>6}: wall {got['wall']:.2f} s, solver "
                    f"{got['solver']:.2f} s, ratio {got['wall'] / got['solver']:.2f}   " + json.dumps(got)
                )


if __name__ == "__main__":
    main()
