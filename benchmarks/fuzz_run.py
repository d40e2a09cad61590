"""Fuzz benchmark: random valid scenes through the public API, every applicable solver, a table.

Usage:
    python benchmarks/fuzz_run.py --n 10000 --seed 1 [--solvers newton lemke ...] [--time-limit 3]
                                  [--max-boxes 4] [--max-contacts 8] [--jsonl out.jsonl]
    python benchmarks/fuzz_run.py --summary out.jsonl

Scene i is drawn by ``tests/fuzz/scenes.py`` from ``numpy.random.default_rng([seed, i])`` (1-4 boxes
on the ground or stacked, 1-8 contacts each, every friction law or a mix, reduced or sparse form,
tilted ground, sliding or resting). Each applicable solver (LCP-only solvers on LCPs, cone solvers
on second-order-cone contacts, ``enumerate`` up to 12 variables) solves it; the outcome is one of
the named statuses, ``unhandled-exception`` (anything raised, ContactModelError included: these
scenes are valid) or ``solved-but-wrong`` (a solved or solved-inaccurate answer that fails the
independent check of ``scenes.check_answer``: 1e-6 for solved, 1e-2 for solved-inaccurate).
Prints a table by solver, then newton's not-solved counts by law and form.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
sys.path.insert(0, str(ROOT))

from scenes import NumpyDraw, applicable, check_answer, draw_scene  # noqa: E402

import contactmodel as cm  # noqa: E402

COLUMNS = (
    "solved",
    "solved-inaccurate",
    "iteration-limit",
    "time-limit",
    "failed",
    "infeasible-certified",
    "unhandled-exception",
    "solved-but-wrong",
)
CHECK_TOL = {cm.Status.SOLVED: 1e-6, cm.Status.SOLVED_INACCURATE: 1e-2}
TIMED = ("newton", "ipopt")  # solvers with a time_limit option


def law_label(scene) -> str:
    laws = scene.laws
    return next(iter(laws)) if len(laws) == 1 else "mix"


def run_one(scene, solver: str, time_limit: float) -> dict:
    row = {"solver": solver}
    t0 = time.perf_counter()
    try:
        options = {"time_limit": time_limit} if solver in TIMED else {}
        sol = cm.solve(scene.problem(), solver=solver, **options)
        row["outcome"] = sol.status.value
        row["iterations"] = sol.iterations
        if sol.status in CHECK_TOL:
            verdict = check_answer(scene, sol, CHECK_TOL[sol.status])
            if not verdict.ok:
                row["outcome"] = "solved-but-wrong"
                row["check"] = f"{verdict.worst}: {verdict.value:.2e}"
        elif not sol.message:
            row["outcome"] = "unhandled-exception"
            row["error"] = f"status {sol.status.value} without a message"
        else:
            row["message"] = sol.message[:200]
    except Exception as err:  # noqa: BLE001 - the point is to count them
        row["outcome"] = "unhandled-exception"
        row["error"] = "".join(traceback.format_exception_only(err)).strip()[:300]
    row["seconds"] = time.perf_counter() - t0
    return row


def summarize(rows: list[dict]) -> str:
    by_solver: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in rows:
        by_solver[r["solver"]][r["outcome"]] += 1
    width = max(len(c) for c in COLUMNS) + 2
    lines = [f"{'solver':<10}{'runs':>7}" + "".join(f"{c:>{width}}" for c in COLUMNS)]
    for solver, counts in sorted(by_solver.items()):
        total = sum(counts.values())
        lines.append(f"{solver:<10}{total:>7}" + "".join(f"{counts[c]:>{width}}" for c in COLUMNS))
    newton = [r for r in rows if r["solver"] == "newton"]
    if newton:
        lines.append("")
        lines.append(
            "newton by law and form: runs, not solved (iteration-limit / time-limit / failed / infeasible)"
        )
        groups: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
        for r in newton:
            groups[(r["law"], r["form"])][r["outcome"]] += 1
        for (law, form), counts in sorted(groups.items()):
            total = sum(counts.values())
            bad = total - counts["solved"] - counts["solved-inaccurate"]
            lines.append(
                f"  {law:<13}{form:<9}{total:>6}{bad:>6}   ({counts['iteration-limit']} / "
                f"{counts['time-limit']} / {counts['failed']} / {counts['infeasible-certified']})"
            )
    wrong = [r for r in rows if r["outcome"] in ("solved-but-wrong", "unhandled-exception")]
    for r in wrong[:20]:
        lines.append(f"  scene {r['scene']} {r['solver']}: {r.get('check') or r.get('error')}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="number of scenes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first scene index")
    ap.add_argument("--solvers", nargs="+", default=["newton", "lemke", "fip", "enumerate", "ipopt", "scipy"])
    ap.add_argument("--time-limit", type=float, default=3.0, help="seconds per newton/ipopt run")
    ap.add_argument("--max-boxes", type=int, default=4)
    ap.add_argument("--max-contacts", type=int, default=8)
    ap.add_argument("--jsonl", type=Path, help="write one JSON line per run")
    ap.add_argument("--summary", type=Path, help="print the table of an earlier --jsonl file")
    args = ap.parse_args(argv)
    if args.summary:
        print(summarize([json.loads(line) for line in args.summary.read_text().splitlines() if line]))
        return 0
    rows = []
    out = args.jsonl.open("w") if args.jsonl else None
    t0 = time.perf_counter()
    for i in range(args.start, args.start + args.n):
        scene = draw_scene(
            NumpyDraw([args.seed, i]), max_boxes=args.max_boxes, max_contacts=args.max_contacts
        )
        base = {"scene": i, "law": law_label(scene), "form": scene.form, "contacts": len(scene.contacts)}
        try:
            names = applicable(scene.problem(), args.solvers)
        except Exception as err:  # noqa: BLE001
            names = []
            rows.append(
                {**base, "solver": "formulate", "outcome": "unhandled-exception", "error": repr(err)[:300]}
            )
        for solver in names:
            rows.append({**base, **run_one(scene, solver, args.time_limit)})
            if out:
                out.write(json.dumps(rows[-1]) + "\n")
                out.flush()
    print(f"{args.n} scenes, seed {args.seed}, {time.perf_counter() - t0:.0f} s")
    print(summarize(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
