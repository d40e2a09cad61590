"""Our solvers on the FCLIB and Siconos frictional contact files of bench/fclib, next to the published
fractions solved (Acary, Brémond, Huber 2018; bench/PUBLISHED_RESULTS.md).

Usage:
    python benchmarks/fclib_bench.py [--bench /work/shared/bench/fclib] [--solvers newton ipopt]
                                     [--tol 1e-8] [--time-limit 60] [--ipopt-max-contacts 60]
                                     [--slack quadratic|norm] [--no-scale] [--max-iter N]
                                     [--only SUBSTRING ...] [--out FILE.jsonl]
    python benchmarks/fclib_bench.py --summarize FILE.jsonl

Every 3D local problem (FCLIB ``/fclib_local``, siconos FrictionContact ``.dat``) and every 3D global one
whose v can be eliminated (W = H^T M^-1 H, q = H^T M^-1 f + w) is formulated with
``contactmodel.io.fclib.to_problem`` (A = W, b = q, all contacts rolling, CoulombCone(mu_a)) and solved
by each solver (ipopt only up to ``--ipopt-max-contacts`` contacts) in a child process, with the
solver's own time limit and a hard limit of time limit + 30 s. W that are not symmetric to 1e-9
(relative) are symmetrized, and the row says so: the fc3d residual is still measured on the file's W.
Unless ``--no-scale``, the model is built from (W / max|W|, q / ||q||) and its reactions scaled back
(the cone conditions are positively homogeneous), since some files have ||q|| ~ 1e-12.

Output: one JSON line per file that is skipped (with the reason) and per (file, solver): contacts,
kind, symmetrized, asymmetry, formulate_seconds, seconds (solve call), status, iterations, residual
(ours: relative natural-map residual of the MCP), fc3d (||F_nat(r)||_2 / ||q||_2 on the file's W, q,
as the paper), fc3d_siconos (siconos' normalization), fc3d_symmetrized (the same on (W + W^T) / 2,
for symmetrized rows), solved (fc3d <= tol). Then a table: per solver
the fraction solved (also among files whose W is symmetric, and by our own status) and times; per test
set ours next to the published fractions at 1e-8.
Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

import contactmodel as cm
from contactmodel.errors import ContactModelError
from contactmodel.io.fclib import (
    SYMMETRY_TOL,
    FrictionProblem,
    fc3d_residual,
    reactions,
    read_fclib,
    to_problem,
)
from contactmodel.io.siconos_fc import read_siconos

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench" / "fclib"

#: PUBLISHED_RESULTS.md, fraction solved at tol 1e-8, solvers S1..S13 (S2 NSN-AC-GP, S3 NSN-AC)
PUBLISHED_1E8 = {
    "Capsules": [0.72, 0.06, 0.00, 0.46, 0.53, 0.98, 0.69, 0.37, 0.41, 0.98, 0.98, 0.37, 0.54],
    "BoxesStack1": [0.18, 0.00, 0.00, 0.16, 0.06, 0.98, 0.09, 0.04, 0.05, 1.00, 1.00, 0.09, 0.11],
    "LMGC_100_PR_PerioBox": [0.16, 0.00, 0.00, 0.10, 0.09, 0.00, 0.02, 0.10, 0.11, 0.22, 0.04, 0.11, 0.16],
    "LMGC_Cubes_H8": [0.56, 0.99, 0.99, 0.56, 0.57, 0.00, 0.00, 0.30, 0.57, 0.81, 0.00, 0.74, 0.76],
    "KaplasTower": [1.00, 0.00, 0.00, 0.13, 1.00, 0.96, 1.00, 0.00, 0.52, 0.99, 0.69, 1.00, 1.00],
}

#: file-name prefix -> FCLIB test set of the paper (the LMGC global files are Cubes_H8 problems)
FAMILIES = {
    "Capsules": "Capsules",
    "BoxesStack1": "BoxesStack1",
    "LMGC_100_PR_PerioBox": "LMGC_100_PR_PerioBox",
    "KaplasTower": "KaplasTower",
    "CubeH8": "LMGC_Cubes_H8",
    "LMGC_GFC3D": "LMGC_Cubes_H8",
    "LMGC_GlobalFrictionContactProblem": "LMGC_Cubes_H8",
}


def family(name: str) -> str | None:
    return next((fam for prefix, fam in FAMILIES.items() if name.startswith(prefix)), None)


def read_any(path: Path) -> FrictionProblem:
    return read_fclib(path) if path.suffix == ".hdf5" else read_siconos(path)


def bench_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix in (".hdf5", ".dat"))


def scales(loc: FrictionProblem) -> tuple[float, float]:
    """(s_W, s_q) = (max|W|, ||q||_2), each 1 when zero: the problem (W / s_W, q / s_q) has the
    reactions r' = r s_W / s_q (the cone conditions are positively homogeneous)."""
    s_w = float(abs(loc.W).max()) if loc.W.nnz else 0.0
    s_q = float(np.linalg.norm(loc.q))
    return (s_w if s_w > 0 else 1.0), (s_q if s_q > 0 else 1.0)


def run_one(
    path: Path, solver: str, tol: float, time_limit: float, slack: str, scale: bool, options: dict
) -> dict:
    """Read, formulate and solve one file with one solver; the row of the JSON output."""
    fp = read_any(path)
    loc = fp.to_local()
    asym = loc.asymmetry()
    s_w, s_q = scales(loc) if scale else (1.0, 1.0)
    scaled = replace(loc, W=loc.W / s_w, q=loc.q / s_q)
    t0 = time.perf_counter()
    laws = [cm.CoulombCone(float(m), slack=slack) for m in loc.mu]
    problem = to_problem(scaled, friction=laws, symmetrize=asym > SYMMETRY_TOL)
    formulate_seconds = time.perf_counter() - t0
    sol = cm.solve(problem, solver=solver, accept_tol=tol, time_limit=time_limit, **options)
    r = reactions(problem, sol.x) * (s_q / s_w) if sol.x is not None else np.zeros(loc.m)
    fc3d = fc3d_residual(loc.W, loc.q, loc.mu, r)
    return {
        "file": path.name,
        "solver": solver,
        "contacts": loc.nc,
        "kind": fp.kind if fp.kind == "local" else "global->local",
        "symmetrized": bool(asym > SYMMETRY_TOL),
        "scaling": [s_w, s_q],
        "asymmetry": asym,
        "formulate_seconds": round(formulate_seconds, 4),
        "seconds": round(sol.seconds, 4),
        "status": sol.status.name,
        "iterations": sol.iterations,
        "residual": sol.residual,
        "fc3d": fc3d,
        "fc3d_siconos": fc3d_residual(loc.W, loc.q, loc.mu, r, normalization="siconos"),
        "fc3d_symmetrized": fc3d_residual((loc.W + loc.W.T) * 0.5, loc.q, loc.mu, r)
        if asym > SYMMETRY_TOL
        else None,
        "solved": bool(fc3d <= tol),
    }


def _child(conn, *args) -> None:
    try:
        conn.send(run_one(*args))
    except Exception as exc:
        conn.send({"error": f"{type(exc).__name__}: {exc}"})
    conn.close()


def run_guarded(
    path: Path, solver: str, tol: float, time_limit: float, slack: str, scale: bool, options: dict, nc: int
) -> dict:
    """:func:`run_one` in a child process killed after time_limit + 30 s."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, path, solver, tol, time_limit, slack, scale, options))
    t0 = time.perf_counter()
    proc.start()
    child.close()
    row = None
    if parent.poll(time_limit + 30):
        try:
            row = parent.recv()
        except EOFError:
            row = None
    proc.join(5)
    if proc.is_alive():
        proc.kill()
        proc.join()
    wall = time.perf_counter() - t0
    base = {"file": path.name, "solver": solver, "contacts": nc}
    if row is None:
        return {
            **base,
            "status": "KILLED",
            "seconds": round(wall, 2),
            "solved": False,
            "detail": f"no answer within {time_limit + 30:.0f} s (exit code {proc.exitcode})",
        }
    if "error" in row:
        return {**base, "status": "ERROR", "seconds": round(wall, 2), "solved": False, "detail": row["error"]}
    return row


def summary(rows: list[dict], solvers: list[str]) -> str:
    """Markdown tables: per solver, then per test set next to the published fractions at 1e-8."""
    lines = [
        "",
        "| solver | solved / attempted | fraction | on symmetric W | our status SOLVED | median s | "
        "median s (solved) | max s | total s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in solvers:
        mine = [r for r in rows if r["solver"] == s]
        if not mine:
            continue
        secs = [r["seconds"] for r in mine]
        solved = [r for r in mine if r["solved"]]
        sym = [r for r in mine if not r.get("symmetrized")]
        n_ok = sum(r.get("status") == "SOLVED" for r in mine)
        med_ok = f"{statistics.median(r['seconds'] for r in solved):.3g}" if solved else "-"
        lines.append(
            f"| {s} | {len(solved)} / {len(mine)} | {len(solved) / len(mine):.2f} | "
            f"{sum(r['solved'] for r in sym)} / {len(sym)} | {n_ok} / {len(mine)} | "
            f"{statistics.median(secs):.3g} | {med_ok} | {max(secs):.3g} | {sum(secs):.3g} |"
        )
    lines += [
        "",
        "| test set (paper) | files here | "
        + " | ".join(f"ours {s}" for s in solvers)
        + " | published NSN-AC-GP (S2) | NSN-AC (S3) | best published | all S1..S13 |",
        "|---|---|" + "---|" * len(solvers) + "---|---|---|---|",
    ]
    by_family: dict[str | None, list[dict]] = defaultdict(list)
    for r in rows:
        by_family[family(r["file"])].append(r)
    for fam in [*PUBLISHED_1E8, None]:
        group = by_family.get(fam, [])
        files = sorted({r["file"] for r in group})
        if not files:
            continue
        cells = []
        for s in solvers:
            mine = [r for r in group if r["solver"] == s]
            cells.append(f"{sum(r['solved'] for r in mine)}/{len(mine)}" if mine else "-")
        pub = PUBLISHED_1E8.get(fam)
        if pub:
            pub_cells = [
                f"{pub[1]:.2f}",
                f"{pub[2]:.2f}",
                f"{max(pub):.2f}",
                " ".join(f"{v:.2f}" for v in pub),
            ]
        else:
            pub_cells = ["-", "-", "-", "-"]
        lines.append(
            f"| {fam or 'siconos test data (no published set)'} | {len(files)} | "
            + " | ".join(cells + pub_cells)
            + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=BENCH)
    ap.add_argument("--solvers", nargs="+", default=["newton", "ipopt"])
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--ipopt-max-contacts", type=int, default=60)
    ap.add_argument("--slack", choices=["quadratic", "norm"], default="quadratic")
    ap.add_argument("--no-scale", action="store_true")
    ap.add_argument("--max-iter", type=int, default=None, help="newton's max_iter (default: its preset)")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument(
        "--summarize", type=Path, default=None, help="only print the tables of a stored --out file"
    )
    args = ap.parse_args(argv)
    if args.summarize:
        rows = [json.loads(line) for line in args.summarize.read_text().splitlines() if line.strip()]
        print(summary([r for r in rows if "solver" in r and r.get("status") != "SKIPPED"], args.solvers))
        return 0
    if not args.bench.is_dir():
        print(f"benchmark folder {args.bench} not found", file=sys.stderr)
        return 2
    out = args.out.open("a") if args.out else None

    def emit(row: dict) -> None:
        line = json.dumps(row)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    rows: list[dict] = []
    t_start = time.perf_counter()
    for path in bench_files(args.bench):
        if args.only and not any(s in path.name for s in args.only):
            continue
        try:
            fp = read_any(path)
            if fp.spacedim != 3:
                raise ContactModelError(f"spacedim {fp.spacedim}: not a 3D problem")
            nc = fp.to_local().nc
        except (ContactModelError, ImportError) as exc:
            emit({"file": path.name, "status": "SKIPPED", "detail": str(exc)})
            continue
        for solver in args.solvers:
            if solver == "ipopt" and nc > args.ipopt_max_contacts:
                emit(
                    {
                        "file": path.name,
                        "solver": solver,
                        "contacts": nc,
                        "status": "SKIPPED",
                        "detail": f"ipopt only up to {args.ipopt_max_contacts} contacts",
                    }
                )
                continue
            options = {}
            if solver == "newton":
                options = {"max_iter": args.max_iter} if args.max_iter else {}
            row = run_guarded(
                path, solver, args.tol, args.time_limit, args.slack, not args.no_scale, options, nc
            )
            rows.append(row)
            emit(row)
    print(summary(rows, args.solvers))
    print(
        f"\ntotal wall time {time.perf_counter() - t_start:.0f} s; tol {args.tol:g} on fc3d "
        f"(||F_nat(r)||_2 / ||q||_2), per-run time limit {args.time_limit:g} s, slack {args.slack}"
    )
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
