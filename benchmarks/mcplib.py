"""The project's solvers on the classic MCP test set (``contactmodel.mcplib``), through Pyomo.

Every problem and starting point of :data:`contactmodel.mcplib.PROBLEMS` is solved with every
project solver that takes it, each through its Pyomo plugin (``SolverFactory("cm_<name>")``, the
answer verified by ``contactmodel.solve``): newton on all; ipopt and scipy (MNCPOpt / LCPOpt) on
those whose variables are nonnegative or free; lemke, fip and enumerate on the LCPs. PATH runs
too (``cm.solve(..., solver="path")``) when a working PATH is installed; otherwise the reason is
printed (e.g. the GAMS demo license in GAMSPy, expired on 2026-11-26).

Per run: the verified status, iterations, the wall time of the Pyomo ``solve`` call (compile,
solver, verification, loading) and the solver's own seconds. Where newton fails, the failure is
classified at its final point from the Fischer-Burmeister reformulation Phi of the MCP (its
Jacobian H by finite differences): *iteration limit* (the status), *singular Jacobian* (H's
smallest singular value below 1e-10 of its largest), *local minimum of the merit function* (the
projected gradient of 1/2 ||Phi||^2 over the box vanishes at a non-solution), else *other*.

    python benchmarks/mcplib.py [--solvers newton ipopt ...] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
import pyomo.environ as pe

import contactmodel as cm
from contactmodel import mcplib
from contactmodel.errors import ContactModelError
from contactmodel.mcp.compile import compile_model

SOLVERS = ("newton", "ipopt", "scipy", "lemke", "fip", "enumerate")
NEWTON_FAILURES = ("iteration limit", "singular Jacobian", "local minimum of the merit function", "other")


def takes(solver: str, mcp) -> bool:
    """Whether ``solver`` applies to ``mcp``: LCP solvers to LCPs, MNCPOpt to nonnegative or free
    variables, newton to all."""
    if solver in ("lemke", "fip", "enumerate"):
        return mcp.is_lcp
    if solver in ("ipopt", "scipy"):
        lower_ok = np.all((mcp.lb == 0) | np.isneginf(mcp.lb))
        upper_ok = np.all(np.isposinf(mcp.ub))
        return bool(lower_ok and upper_ok)
    return True


def run(problem, k: int, solver: str, repeat: int) -> dict:
    """The best of ``repeat`` solves of start ``k`` through ``SolverFactory("cm_<solver>")``."""
    walls, out = [], {}
    for _ in range(repeat):
        model = problem.model(k)
        opt = pe.SolverFactory(f"cm_{solver}")
        t0 = time.perf_counter()
        results = opt.solve(model)
        walls.append(time.perf_counter() - t0)
        sol = opt.solution
        out = {
            "status": sol.status.value,
            "termination": str(results.solver.termination_condition),
            "iterations": sol.iterations,
            "residual": sol.residual,
            "solver_seconds": sol.seconds,
            "message": sol.message,
            "x": None if sol.x is None else sol.x.tolist(),
        }
    out["wall_seconds"] = min(walls)
    return out


def fb_phi(mcp, x: np.ndarray) -> np.ndarray:
    """The Fischer-Burmeister reformulation of the box MCP at x (one row per variable)."""
    F = mcp.F(x)

    def phi(a, b):
        return a + b - np.hypot(a, b)

    out = np.empty_like(x)
    for i in range(x.size):
        lo, hi = np.isfinite(mcp.lb[i]), np.isfinite(mcp.ub[i])
        if lo and hi:
            out[i] = phi(x[i] - mcp.lb[i], -phi(mcp.ub[i] - x[i], -F[i]))
        elif lo:
            out[i] = phi(x[i] - mcp.lb[i], F[i])
        elif hi:
            out[i] = -phi(mcp.ub[i] - x[i], -F[i])
        else:
            out[i] = F[i]
    return out


def classify(mcp, result: dict) -> str:
    """Why newton failed at its final point (see the module docstring)."""
    if result["status"] == "iteration-limit":
        return "iteration limit"
    if result["x"] is None:
        return "other"
    x = np.asarray(result["x"], dtype=float)
    P = fb_phi(mcp, x)
    n, h = x.size, 1e-7
    H = np.empty((n, n))
    for j in range(n):  # one-sided differences, into the box
        step = h if x[j] + h <= mcp.ub[j] else -h
        e = np.zeros(n)
        e[j] = step
        H[:, j] = (fb_phi(mcp, x + e) - P) / step
    s = np.linalg.svd(H, compute_uv=False)
    if s[-1] <= 1e-10 * max(s[0], 1e-300):
        return "singular Jacobian"
    g = H.T @ P
    projected = x - np.clip(x - g, mcp.lb, mcp.ub)
    if np.max(np.abs(projected)) <= 1e-6 * max(1.0, float(P @ P)):
        return "local minimum of the merit function"
    return "other"


def path_available(problem) -> tuple[bool, str]:
    """Whether PATH runs here (tried once on ``problem``), with the reason when it does not."""
    try:
        sol = cm.solve(compile_model(problem.model(0)).mcp, solver="path")
    except Exception as exc:  # noqa: BLE001 -- any refusal (a GAMS license error is a FatalError) names why
        return False, f"{type(exc).__name__}: {exc}"
    return sol.ok, sol.message


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solvers", nargs="+", default=list(SOLVERS), choices=SOLVERS)
    parser.add_argument("--repeat", type=int, default=3, help="solves per run; the fastest is reported")
    parser.add_argument("--json", help="write every run here")
    args = parser.parse_args(argv)
    solvers = [s for s in args.solvers if cm.solvers.get(s).available()[0]]
    mcplib.get("josephy").model()  # warm-up: numba kernels compiled before any timing
    pe.SolverFactory("cm_newton").solve(mcplib.get("josephy").model())
    path_ok, path_why = path_available(mcplib.get("munson1"))
    rows, record = [], []
    for name, problem in mcplib.PROBLEMS.items():
        mcp = compile_model(problem.build()).mcp
        for k in range(len(problem.starts)):
            row = {"problem": name, "start": k, "n": mcp.n}
            for solver in solvers + (["path"] if path_ok else []):
                if solver == "path":
                    try:
                        sol = cm.solve(compile_model(problem.model(k)).mcp, solver="path")
                        row["path"] = {
                            "status": sol.status.value,
                            "iterations": sol.iterations,
                            "wall_seconds": sol.seconds,
                            "solver_seconds": sol.seconds,
                        }
                    except ContactModelError as exc:
                        row["path"] = {"status": "refused", "message": str(exc)}
                    continue
                if not takes(solver, mcp):
                    continue
                row[solver] = run(problem, k, solver, args.repeat)
                if solver == "newton" and row[solver]["status"] not in ("solved",):
                    row[solver]["failure"] = classify(mcp, row[solver])
            rows.append(row)
    for row in rows:
        record.append(
            {
                k: ({kk: vv for kk, vv in v.items() if kk != "x"} if isinstance(v, dict) else v)
                for k, v in row.items()
            }
        )
    print_table(rows, solvers, path_ok, path_why)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"runs": record, "path": {"available": path_ok, "reason": path_why}}, fh, indent=1)


def print_table(rows: list[dict], solvers: list[str], path_ok: bool, path_why: str) -> None:
    cols = solvers + (["path"] if path_ok else [])
    print("| problem | start | n | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for row in rows:
        cells = []
        for s in cols:
            r = row.get(s)
            if r is None:
                cells.append("-")
            elif r["status"] == "solved":
                cells.append(f"solved {r['iterations']} it {1e3 * r['wall_seconds']:.1f} ms")
            else:
                why = f" ({r['failure']})" if "failure" in r else ""
                cells.append(f"{r['status']}{why}")
        print(f"| {row['problem']} | {row['start']} | {row['n']} | " + " | ".join(cells) + " |")
    print()
    for s in cols:
        ran = [row[s] for row in rows if s in row]
        solved = [r for r in ran if r["status"] == "solved"]
        med = statistics.median(r["wall_seconds"] for r in solved) * 1e3 if solved else float("nan")
        print(f"{s}: solved {len(solved)} of {len(ran)} runs it takes; median wall time {med:.1f} ms")
    fails = [
        (row["problem"], row["start"], row["newton"]["failure"])
        for row in rows
        if "failure" in row.get("newton", {})
    ]
    print("newton failures:", ", ".join(f"{p}/{k}: {why}" for p, k, why in fails) or "none")
    if not path_ok:
        print(f"PATH: not run here ({path_why})")


if __name__ == "__main__":
    main()
