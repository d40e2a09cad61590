"""The cost of the README's own style of declaration: a new friction law object per contact.

Scene: rows of 1 kg boxes of side 0.2 m resting on the ground on their four corners and pushed by
(1, 0.5, 0) N, every contact rolling (the geometry of ``scaling.boxes_on_ground``), each contact
declared as the README does, ``add_contact(..., friction=cm.CoulombCone(0.5))`` (law ``cone``:
the default form, which newton solves as the second-order cone) or ``friction=cm.Pyramid(0.5)``
(law ``pyramid``), a NEW law object per contact; ``cm.formulate(system)`` with no override,
reduced form, solver newton. Four measurements:

- ``call``: 100 and 400 contacts. A formulated, once-solved problem is re-solved ``--repeat`` (7)
  times; the median of the per-call ratio (``cm.solve`` wall time) / ``Solution.seconds`` (the
  solver's own wall time), and the medians of both times.
- ``first``: the same sizes and laws. In a fresh process, after one warm-up solve of a different
  small problem (``scaling.WARMUP`` contacts, same law: imports and numba's cached kernels are
  loaded before the clock), (``cm.formulate`` + first ``cm.solve``) wall time / ``Solution.seconds``
  of that first solve. Building the ``System`` is not timed.
- ``scale``: pyramid and cone at 1000, 2000, 4000 and 10,000 contacts, after the same warm-up:
  seconds of ``cm.formulate``, ``problem.compile()``, the ``cm.solve`` call (``solve``; the
  solver's own share is ``solver``) and their total, with the least-squares slope of
  log(seconds) on log(contacts) of each stage (``numpy.polyfit``, ``scaling.slope``).
- ``cold``: wall time of a fresh ``python -m contactmodel solve examples/box_push.py`` (the tree's
  own example), ``--cold-runs`` (5) timed runs after one untimed one: min and median.

Each (measurement, tree, size, law) runs in a fresh subprocess with PYTHONPATH set to the tree
and OPENBLAS_NUM_THREADS=1. ``--before PATH`` names another source tree of the package (e.g.
``git archive COMMIT | tar -x -C PATH``); the trees then alternate (the order flips every round),
so both see the same machine load, and the table puts before and after side by side. The
"after" tree is the one holding this file. Run one benchmark at a time on a small machine:

    python benchmarks/natural_declarations.py --before /tmp/before
    python benchmarks/natural_declarations.py --before /tmp/before --only call first --rounds 5
    python benchmarks/natural_declarations.py --before /tmp/before --json results.json   # + table
    python benchmarks/natural_declarations.py --json -                  # JSON only, on stdout

Every row also records the solution statuses; a row whose solves are not all ``solved`` is
flagged in the table.
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
LAWS = ("pyramid", "cone")
MEASURES = ("call", "first", "scale", "cold")
STAGES = ("formulate", "compile", "solve", "solver", "total")


def natural_boxes(n_contacts: int, law: str):
    """The scene of ``scaling.boxes_on_ground`` with a new law object declared on each contact."""
    from scaling import boxes_on_ground

    import contactmodel as cm

    return boxes_on_ground(n_contacts, lambda: cm.Pyramid(0.5) if law == "pyramid" else cm.CoulombCone(0.5))


def _warm_up(law: str) -> float:
    """One formulate + solve of a different, small problem: imports and kernels before the clock."""
    from scaling import WARMUP

    import contactmodel as cm

    t0 = time.perf_counter()
    cm.solve(cm.formulate(natural_boxes(WARMUP, law)), solver="newton")
    return time.perf_counter() - t0


def measure_call(size: int, law: str, repeat: int) -> dict:
    import contactmodel as cm

    problem = cm.formulate(natural_boxes(size, law))
    first = cm.solve(problem, solver="newton")
    pairs, statuses = [], [first.status.value]
    for _ in range(repeat):
        t0 = time.perf_counter()
        sol = cm.solve(problem, solver="newton")
        pairs.append((time.perf_counter() - t0, sol.seconds))
        statuses.append(sol.status.value)
    return {"contacts": len(problem.contact_names), "pairs": pairs, "statuses": statuses}


def measure_first(size: int, law: str) -> dict:
    import contactmodel as cm

    warm = _warm_up(law)
    system = natural_boxes(size, law)
    t0 = time.perf_counter()
    problem = cm.formulate(system)
    t1 = time.perf_counter()
    sol = cm.solve(problem, solver="newton")
    t2 = time.perf_counter()
    return {
        "contacts": len(system.contacts),
        "warmup": warm,
        "formulate": t1 - t0,
        "call": t2 - t1,
        "solver": sol.seconds,
        "ratio": (t2 - t0) / sol.seconds,
        "statuses": [sol.status.value],
    }


def measure_scale(size: int, law: str) -> dict:
    import contactmodel as cm

    warm = _warm_up(law)
    system = natural_boxes(size, law)
    t = [time.perf_counter()]
    problem = cm.formulate(system)
    t.append(time.perf_counter())
    compiled = problem.compile()
    t.append(time.perf_counter())
    sol = cm.solve(problem, solver="newton")
    t.append(time.perf_counter())
    return {
        "contacts": len(system.contacts),
        "n": int(compiled.mcp.n),
        "warmup": warm,
        "formulate": t[1] - t[0],
        "compile": t[2] - t[1],
        "solve": t[3] - t[2],
        "solver": sol.seconds,
        "total": t[3] - t[0],
        "iterations": sol.iterations,
        "statuses": [sol.status.value],
    }


def _worker(args) -> None:
    sys.path.insert(0, str(HERE))
    if args.measure == "call":
        out = measure_call(args.size, args.law, args.repeat)
    elif args.measure == "first":
        out = measure_first(args.size, args.law)
    else:
        out = measure_scale(args.size, args.law)
    import contactmodel

    out["package"] = str(Path(contactmodel.__file__).parent)
    print(json.dumps(out))


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree), "OPENBLAS_NUM_THREADS": "1"}


def _run(tree: Path, *argv: str) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), *argv]
    done = subprocess.run(cmd, env=_env(tree), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{cmd} with PYTHONPATH={tree} failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(out["package"]).resolve() != (tree / "contactmodel").resolve():
        raise RuntimeError(f"PYTHONPATH={tree} imported contactmodel from {out['package']}")
    return out


def _cold(tree: Path) -> float:
    """Wall seconds of one ``python -m contactmodel solve examples/box_push.py`` in ``tree``."""
    cmd = [sys.executable, "-m", "contactmodel", "solve", str(tree / "examples" / "box_push.py")]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=_env(tree), cwd=tree, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{cmd} in {tree} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall


def _orders(trees: dict[str, Path], rounds: int):
    for k in range(rounds):
        yield k, (list(trees) if k % 2 == 0 else list(reversed(list(trees))))


def collect(args, trees: dict[str, Path]) -> dict:
    """Raw per-process results: {measure: {"size|law|tree": [result, ...]}}."""
    raw: dict[str, dict[str, list]] = {m: {} for m in args.only}

    def add(measure: str, size: int, law: str, name: str, got) -> None:
        raw[measure].setdefault(f"{size}|{law}|{name}", []).append(got)

    for measure in ("call", "first"):
        if measure not in args.only:
            continue
        for k, order in _orders(trees, args.rounds):
            for size in args.sizes:
                for law in LAWS:
                    for name in order:
                        extra = ["--repeat", str(args.repeat)] if measure == "call" else []
                        got = _run(
                            trees[name], "--measure", measure, "--size", str(size), "--law", law, *extra
                        )
                        add(measure, size, law, name, got)
            print(f"# {measure}: round {k + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    if "scale" in args.only:
        for k, order in _orders(trees, args.scale_rounds):
            for size in args.scale_sizes:
                for law in LAWS:
                    for name in order:
                        got = _run(trees[name], "--measure", "scale", "--size", str(size), "--law", law)
                        add("scale", size, law, name, got)
            print(f"# scale: round {k + 1}/{args.scale_rounds} done", file=sys.stderr, flush=True)
    if "cold" in args.only:
        for name in trees:
            _cold(trees[name])  # untimed: bytecode and numba caches written once
        for k, order in _orders(trees, args.cold_runs):
            for name in order:
                add("cold", 0, "-", name, _cold(trees[name]))
            print(f"# cold: run {k + 1}/{args.cold_runs} done", file=sys.stderr, flush=True)
    return raw


def reduce(raw: dict, trees: dict[str, Path]) -> list[dict]:
    """One row per (measure, size, law, quantity) with each tree's value."""
    from scaling import slope

    rows: list[dict] = []

    def row(measure, size, law, quantity, values: dict, unit: str, ok: dict | None = None) -> None:
        rows.append(
            {
                "measure": measure,
                "contacts": size,
                "law": law,
                "quantity": quantity,
                "unit": unit,
                **values,
                **({"all_solved": ok} if ok is not None else {}),
            }
        )

    def groups(measure: str):
        keys = {(int(s), law) for s, law, _ in (k.split("|") for k in raw.get(measure, {}))}
        return sorted(keys, key=lambda sl: (LAWS.index(sl[1]) if sl[1] in LAWS else 0, sl[0]))

    def solved(got: list[dict]) -> bool:
        return all(s == "solved" for g in got for s in g["statuses"])

    for size, law in groups("call"):
        got = {n: raw["call"][f"{size}|{law}|{n}"] for n in trees}
        pairs = {n: [p for g in got[n] for p in g["pairs"]] for n in trees}
        ok = {n: solved(got[n]) for n in trees}
        row(
            "call",
            size,
            law,
            "call / solver",
            {n: statistics.median(c / s for c, s in pairs[n]) for n in trees},
            "x",
            ok,
        )
        row(
            "call",
            size,
            law,
            "call ms",
            {n: 1e3 * statistics.median(c for c, _ in pairs[n]) for n in trees},
            "ms",
        )
        row(
            "call",
            size,
            law,
            "solver ms",
            {n: 1e3 * statistics.median(s for _, s in pairs[n]) for n in trees},
            "ms",
        )
    for size, law in groups("first"):
        got = {n: raw["first"][f"{size}|{law}|{n}"] for n in trees}
        ok = {n: solved(got[n]) for n in trees}
        med = {
            q: {n: statistics.median(g[q] for g in got[n]) for n in trees} for q in got[next(iter(trees))][0]
        }
        row("first", size, law, "(formulate + solve) / solver", med["ratio"], "x", ok)
        row("first", size, law, "formulate ms", {n: 1e3 * v for n, v in med["formulate"].items()}, "ms")
        row("first", size, law, "solve call ms", {n: 1e3 * v for n, v in med["call"].items()}, "ms")
        row("first", size, law, "solver ms", {n: 1e3 * v for n, v in med["solver"].items()}, "ms")
    scale = groups("scale")
    for law in LAWS:
        sizes = [s for s, sl_law in scale if sl_law == law]
        if not sizes:
            continue
        med = {
            (s, n): {q: statistics.median(g[q] for g in raw["scale"][f"{s}|{law}|{n}"]) for q in STAGES}
            for s in sizes
            for n in trees
        }
        for s in sizes:
            ok = {n: solved(raw["scale"][f"{s}|{law}|{n}"]) for n in trees}
            for q in STAGES:
                row(
                    "scale",
                    s,
                    law,
                    f"{q} s",
                    {n: med[(s, n)][q] for n in trees},
                    "s",
                    ok if q == "total" else None,
                )
        for q in STAGES:
            fit = {n: slope(sizes, [med[(s, n)][q] for s in sizes]) for n in trees}
            row("scale", f"{min(sizes)}-{max(sizes)}", law, f"{q} slope", fit, "log-log")
    if raw.get("cold"):
        walls = {n: raw["cold"][f"0|-|{n}"] for n in trees}
        row("cold", "-", "box_push", "min s", {n: min(w) for n, w in walls.items()}, "s")
        row("cold", "-", "box_push", "median s", {n: statistics.median(w) for n, w in walls.items()}, "s")
    return rows


def table(rows: list[dict], trees: dict[str, Path]) -> str:
    names = list(trees)
    head = ["measure", "contacts", "law", "quantity", *names]
    if len(names) == 2:
        head.append(f"{names[1]} / {names[0]}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r["measure"], str(r["contacts"]), r["law"], r["quantity"]]
        for n in names:
            v = r[n]
            flag = "" if r.get("all_solved", {}).get(n, True) else " (not all solved)"
            cells.append((f"{v:.2f}" if r["unit"] == "log-log" else f"{v:.4g}") + flag)
        if len(names) == 2:
            a, b = r[names[0]], r[names[1]]
            cells.append("-" if r["unit"] == "log-log" or a == 0 else f"{b / a:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", type=Path, help="source tree of the package to compare with")
    parser.add_argument("--only", nargs="+", choices=MEASURES, default=list(MEASURES))
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 400], help="contacts of call, first")
    parser.add_argument("--rounds", type=int, default=3, help="processes per tree, size, law of call, first")
    parser.add_argument("--repeat", type=int, default=7, help="re-solves per call process")
    parser.add_argument("--scale-sizes", type=int, nargs="+", default=[1000, 2000, 4000, 10000])
    parser.add_argument("--scale-rounds", type=int, default=1)
    parser.add_argument("--cold-runs", type=int, default=5)
    parser.add_argument(
        "--json", metavar="PATH", help="write the rows and raw results as JSON (- : stdout only)"
    )
    parser.add_argument("--measure", choices=MEASURES[:3], help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--law", choices=LAWS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        _worker(args)
        return
    sys.path.insert(0, str(HERE))
    trees = {"after": HERE.parent}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    t0 = time.perf_counter()
    raw = collect(args, trees)
    rows = reduce(raw, trees)
    doc = {
        "trees": {n: str(p) for n, p in trees.items()},
        "python": sys.version.split()[0],
        "argv": sys.argv[1:],
        "wall_s": time.perf_counter() - t0,
        "rows": rows,
        "raw": raw,
    }
    if args.json == "-":
        print(json.dumps(doc, indent=1))
        return
    print(table(rows, trees))
    print(f"\n{' '.join(f'{n}={p}' for n, p in trees.items())}; wall {doc['wall_s']:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
