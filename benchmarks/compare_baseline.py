"""Diff a run of newton_pyramid.py, newton_cone.py or fclib_bench.py against a stored baseline.

The baselines in ``benchmarks/baselines/`` (see its README.md) are the JSON lines those scripts
print, one per instance. This script matches the rows of a baseline and of a new run by instance
(pyramid: family, seed, n; cone: seed, form, slack, contacts; fclib: file, solver) and reports
every instance whose outcome, solved flag or iteration count changed, plus instances present in
only one of the two, then the solved counts, total iterations and summed solve seconds of both
(seconds are for information only: they vary with the machine's load). A change in a run that
hit its time limit (status TIME_LIMIT, fclib_bench's ipopt rows) in either file is listed but not
counted, as it depends on the load too. Exit status 1 when anything else differs.

    # run a benchmark again on the current tree (the command recorded in manifest.json) and diff
    python benchmarks/compare_baseline.py --run newton_pyramid
    python benchmarks/compare_baseline.py --run all          # every baseline of the manifest
    # or diff two files of JSON lines (the kind is recognised from the rows)
    python benchmarks/compare_baseline.py benchmarks/baselines/newton_cone.jsonl new.jsonl

``--run`` executes ``sys.executable benchmarks/<script> <args>`` with this file's source tree
first on PYTHONPATH and OPENBLAS_NUM_THREADS=1; fclib_bench needs ``--bench DIR`` (default: the
environment variable CONTACTMODEL_FCLIB).
``--keep FILE`` stores the new run's rows.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BASELINES = HERE / "baselines"

#: kind -> (fields naming an instance, fields that must not change)
KINDS = {
    "pyramid": (("family", "seed", "n"), ("outcome", "solved", "iterations", "factorizations", "pivots")),
    "cone": (("seed", "form", "slack", "contacts"), ("status", "solved", "iterations")),
    "fclib": (("file", "solver"), ("status", "solved", "iterations")),
}


def kind_of(rows: list[dict]) -> str:
    keys = set().union(*rows) if rows else set()
    if "family" in keys:
        return "pyramid"
    if "fc3d_residual" in keys:
        return "cone"
    if "file" in keys:
        return "fclib"
    raise SystemExit(f"unrecognised rows (fields {sorted(keys)})")


def solved(kind: str, r: dict) -> bool:
    """The scripts' own definitions of solved (see each one's --summary)."""
    if kind == "pyramid":
        return r["outcome"] == "converged" and r["residual"] <= 1e-10
    if kind == "cone":
        return r["status"] == "solved" and r["residual"] <= 1e-8 and r.get("fc3d_residual", 0.0) <= 1e-8
    return bool(r.get("solved", False))


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]


def _totals(ran: list[dict]) -> str:
    its = sum(r.get("iterations") or 0 for r in ran)
    secs = sum(r.get("seconds") or 0 for r in ran)
    return f"{len(ran)} runs, solved {sum(r['solved'] for r in ran)}, iterations {its}, seconds {secs:.2f}"


def compare(base: list[dict], new: list[dict]) -> tuple[list[str], list[str]]:
    """(differences, summary lines)."""
    kind = kind_of(base)
    if kind_of(new) != kind:
        raise SystemExit(f"baseline rows are {kind}, new rows are {kind_of(new)}")
    key_fields, fields = KINDS[kind]

    def index(rows: list[dict]) -> dict[tuple, dict]:
        out = {}
        for r in rows:
            r = {**r, "solved": solved(kind, r)}
            out[tuple(r.get(k) for k in key_fields)] = r
        return out

    b, n = index(base), index(new)
    diffs: list[str] = []
    notes: list[str] = []
    for key in sorted(set(b) | set(n), key=str):
        name = ", ".join(f"{k}={v}" for k, v in zip(key_fields, key))
        if key not in n:
            diffs.append(f"only in baseline: {name}")
        elif key not in b:
            diffs.append(f"only in new run: {name}")
        else:
            changed = [
                f"{f} {b[key].get(f)} -> {n[key].get(f)}" for f in fields if b[key].get(f) != n[key].get(f)
            ]
            timed = "TIME_LIMIT" in (b[key].get("status"), n[key].get("status"))
            if changed and timed:  # stopped by the wall clock: depends on the machine's load
                notes.append(f"{name} (time limit, not counted): " + "; ".join(changed))
            elif changed:
                diffs.append(f"{name}: " + "; ".join(changed))
    lines = []
    for label, rows in (("baseline", b), ("new run", n)):
        ran = [r for r in rows.values() if r.get("status") != "SKIPPED"]
        lines.append(f"{label:>8}: {kind}, {_totals(ran)}")
        for solver in sorted({r["solver"] for r in ran if "solver" in r}):
            lines.append(f"{'':>10}{solver}: {_totals([r for r in ran if r.get('solver') == solver])}")
    return diffs, notes + lines


def run(name: str, entry: dict, bench: Path | None) -> list[dict]:
    argv = list(entry["args"])
    if "--bench" in argv:
        if bench is None:
            raise SystemExit("fclib_bench needs --bench DIR (or CONTACTMODEL_FCLIB)")
        argv[argv.index("--bench") + 1] = str(bench)
    with tempfile.TemporaryDirectory() as tmp:
        if "--out" in argv:
            argv[argv.index("--out") + 1] = str(Path(tmp) / "out.jsonl")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]).rstrip(
                os.pathsep
            ),
            "OPENBLAS_NUM_THREADS": "1",
        }
        cmd = [sys.executable, str(HERE / entry["script"]), *argv]
        print(f"# {name}: {' '.join(cmd)}", file=sys.stderr, flush=True)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{cmd} failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="BASELINE.jsonl NEW.jsonl")
    ap.add_argument("--run", nargs="+", metavar="NAME", help="baselines of manifest.json to re-run, or all")
    ap.add_argument("--bench", type=Path, default=None, help="FCLIB folder for fclib_bench")
    ap.add_argument("--keep", type=Path, default=None, help="write the new run's rows here (one --run)")
    args = ap.parse_args()
    if args.files:
        if len(args.files) != 2 or args.run:
            ap.error("give BASELINE NEW, or --run NAME")
        pairs = [(str(args.files[1]), read_rows(args.files[0]), read_rows(args.files[1]))]
    elif args.run:
        manifest = json.loads((BASELINES / "manifest.json").read_text())
        names = list(manifest) if args.run == ["all"] else args.run
        unknown = [n for n in names if n not in manifest]
        if unknown:
            ap.error(f"unknown baselines {unknown}; manifest.json has {list(manifest)}")
        fclib = os.environ.get("CONTACTMODEL_FCLIB")
        bench = args.bench or (Path(fclib) if fclib else None)
        pairs = []
        for name in names:
            new = run(name, manifest[name], bench)
            if args.keep:
                args.keep.write_text("".join(json.dumps(r) + "\n" for r in new))
            pairs.append((name, read_rows(BASELINES / manifest[name]["file"]), new))
    else:
        ap.error("give BASELINE NEW, or --run NAME")
    status = 0
    for name, base, new in pairs:
        diffs, lines = compare(base, new)
        print(f"== {name}: {len(diffs)} differences")
        for d in diffs:
            print(f"  {d}")
        for line in lines:
            print(f"  {line}")
        status |= bool(diffs)
    return status


if __name__ == "__main__":
    sys.exit(main())
