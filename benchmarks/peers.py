"""Our solvers and the peer scripts of ``--tools`` side by side, on the same instances, in one run.

Usage:
    python benchmarks/peers.py [--sizes 50 200 1000] [--families roll slide] [--fc3d 5 20 100 400]
                               [--ours newton lemke path] [--siconos lemke] [--siconos-fc3d nsn_ac]
                               [--repeats 3] [--seeds 0 1 2] [--tools DIR]
                               [--gamspy-python PYTHON] [--peer-tol T] [--out FILE.jsonl]

Set-up (peers only; not part of the project's install):
    apt-get update && apt-get install -y python3-siconos    # Siconos for /usr/bin/python3
    pip install gamspy          # or: pip install -e '.[path]'; PATH via GAMSPy, ours and the peer's
The GAMSPy peer runs with this interpreter when gamspy imports here, else with
``--gamspy-python`` (e.g. a venv made with ``python3 -m venv V && V/bin/pip install gamspy``);
without either it and our "path" are reported as skipped. Siconos is skipped when
``/usr/bin/python3`` cannot import it.

Instances: ``make_peer_instances.py`` writes them into a temporary directory, once per seed of
``--seeds``: friction-pyramid LCPs ``lcp_{roll,slide}_n{10,50,200,1000}`` and Coulomb-cone
``fc3d_c{5,20,100,400}``.
LCPs go to ``cm.solve(cm.LCP(M, q), solver=...)`` for each of ``--ours`` and to the peers;
fc3d instances go to ``cm.formulate_from_matrices(W, q, mu)`` (rows (n, t, o) per contact, as
fc3d's) solved by our newton and path, and to Siconos' fc3d solvers.

Output: one JSON line per (instance, solver): instance, seed, family (roll|slide|psdskew|fc3d),
kind (lcp|fc3d), n (LCP size or MCP size), contacts, solver, source (ours|siconos|gamspy), status
(ok|fail|skipped), detail, seconds (median over ``--repeats`` of the solve call's wall time:
``Solution.seconds`` for ours, i.e. the solver module on the compiled MCP, the tools' ``seconds``
for the peers), solver_seconds (PATH's own time as GAMS reports it: the number to compare
``seconds`` of ours with), call_seconds (ours: the whole ``cm.solve(cm.LCP(M, q))`` or
``cm.solve(cm.formulate_from_matrices(W, q, mu))`` call, dispatcher and verification included),
call_cpu_seconds (ours: the process time of that whole call, robust to other load),
formulate_seconds and compile_seconds (ours, fc3d: the wall time of formulate_from_matrices and
of the compile inside cm.solve),
cpu_seconds (ours, when the solver reports it, e.g. newton: the process time of the solver
call, robust to other load on the machine), kernels (newton: "numba" with the extra "fast"
installed, else "numpy"), solve_call_seconds (our "path": GAMSPy's
``Model.solve`` alone, as the peer's seconds),
iterations, residual. residual is computed the same way as the tools do: LCP
``||min(z, M z + q)||_inf``; fc3d the natural-map residual with De Saxce's modified velocity
(2-norm). Then one summary line per (kind, family, size, solver): median seconds,
solver_seconds, cpu_seconds, call_seconds, call_cpu_seconds and formulate_seconds,
solved/total. status ok means: LCP residual <= 1e-6 (ours: the dispatcher's SOLVED or
SOLVED_INACCURATE), peers: their own ok. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

import contactmodel as cm
from contactmodel.errors import SolverError
from contactmodel.io.fclib import fc3d_residual

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths  # noqa: E402

SYSTEM_PYTHON = "/usr/bin/python3"


def lcp_residual(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    return float(np.abs(np.minimum(z, M @ z + q)).max(initial=0.0))


def median_row(rows: list[dict]) -> dict:
    """The run with the median seconds (the first when all failed)."""
    done = sorted((r for r in rows if r.get("seconds") is not None), key=lambda r: r["seconds"])
    return done[len(done) // 2] if done else rows[0]


def run_ours_lcp(data: dict, solver: str, repeats: int) -> dict:
    M, q = data["M"], data["q"]
    rows = []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        try:
            sol = cm.solve(cm.LCP(M, q), solver=solver)
        except SolverError as exc:
            return {"status": "skipped", "detail": str(exc)}
        call, call_cpu = time.perf_counter() - t0, time.process_time() - c0
        res = lcp_residual(M, q, sol.x) if sol.x is not None else None
        rows.append(
            {
                "status": "ok" if sol.ok else "fail",
                "detail": sol.status.value,
                "seconds": sol.seconds,
                "solver_seconds": sol.extras.get("solver_seconds"),
                "cpu_seconds": sol.extras.get("cpu_seconds"),
                "kernels": sol.extras.get("kernels"),
                "call_seconds": call,
                "call_cpu_seconds": call_cpu,
                "solve_call_seconds": sol.extras.get("solve_call_seconds"),
                "iterations": sol.iterations,
                "residual": res,
                "relative_residual": sol.residual,
            }
        )
    return median_row(rows)


def run_ours_fc3d(data: dict, solver: str, repeats: int) -> dict:
    W, q, mu = data["W"], data["q"], data["mu"]
    rows = []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        problem = cm.formulate_from_matrices(W, q, mu)
        formulated = time.perf_counter()
        try:
            sol = cm.solve(problem, solver=solver)
        except SolverError as exc:
            return {"status": "skipped", "detail": str(exc)}
        call, call_cpu = time.perf_counter() - t0, time.process_time() - c0
        r = np.concatenate([c.force[:3] for c in sol.contacts]) if sol.contacts else None
        rows.append(
            {
                "status": "ok" if sol.ok else "fail",
                "detail": sol.status.value,
                "n": int(sol.x.size) if sol.x is not None else None,
                "seconds": sol.seconds,
                "solver_seconds": sol.extras.get("solver_seconds"),
                "cpu_seconds": sol.extras.get("cpu_seconds"),
                "call_seconds": call,
                "call_cpu_seconds": call_cpu,
                "formulate_seconds": formulated - t0,
                "compile_seconds": sol.timings.get("compile"),
                "solve_call_seconds": sol.extras.get("solve_call_seconds"),
                "iterations": sol.iterations,
                "residual": fc3d_residual(W, q, mu, r, normalization="none") if r is not None else None,
                "relative_residual": sol.residual,
            }
        )
    return median_row(rows)


def run_tool(cmd: list[str], repeats: int, timeout: float) -> dict[str, dict]:
    """Run a peer script ``repeats`` times; its JSON lines per solver, the median run of each."""
    runs: dict[str, list[dict]] = defaultdict(list)
    for _ in range(repeats):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"": {"status": "fail", "detail": f"timeout>{timeout}s"}}
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if not lines:
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {"": {"status": "fail", "detail": f"exit {proc.returncode}: {tail}"}}
        for ln in lines:
            out = json.loads(ln)
            runs[out["solver"]].append(out)
    result = {}
    for name, rows in runs.items():
        row = median_row(rows)
        result[name] = {
            "status": row.get("status"),
            "detail": row.get("reason", ""),
            "seconds": row.get("seconds"),
            "solver_seconds": row.get("solver_seconds"),
            "iterations": row.get("iterations"),
            "residual": row.get("residual"),
        }
    return result


def has_module(python: str, module: str) -> bool:
    if python == sys.executable:
        return importlib.util.find_spec(module) is not None
    try:
        return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0
    except OSError:
        return False


def summarize(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        if r["status"] != "skipped":
            groups[(r["kind"], r["family"], r["size"], r["solver"])].append(r)

    def median(rs: list[dict], key: str) -> float | None:
        vals = [r[key] for r in rs if r.get(key) is not None]
        return statistics.median(vals) if vals else None

    out = []
    for (kind, family, size, solver), rs in sorted(groups.items()):
        out.append(
            {
                "summary": True,
                "kind": kind,
                "family": family,
                "size": size,
                "solver": solver,
                "median_seconds": median(rs, "seconds"),
                "median_solver_seconds": median(rs, "solver_seconds"),
                "median_cpu_seconds": median(rs, "cpu_seconds"),
                "median_call_seconds": median(rs, "call_seconds"),
                "median_call_cpu_seconds": median(rs, "call_cpu_seconds"),
                "median_formulate_seconds": median(rs, "formulate_seconds"),
                "solved": sum(r["status"] == "ok" for r in rs),
                "total": len(rs),
            }
        )
    return out


def run_peers(
    path: Path,
    kind: str,
    solvers: list[str],
    siconos_ok: bool,
    gamspy_python: str | None,
    args,
    gamspy_missing: str = "gamspy not installed",
) -> list[tuple[str, str, dict]]:
    """(solver, source, result) of every peer run on one instance; ``gamspy_missing`` says why the
    GAMSPy peer is skipped when ``gamspy_python`` is None."""
    tools = Path(args.tools or ".")  # read only when a peer runs (main requires --tools then)
    out = []
    if solvers and not siconos_ok:
        why = "python3-siconos not importable by /usr/bin/python3"
        out += [(f"siconos_{s}", "siconos", {"status": "skipped", "detail": why}) for s in solvers]
    elif solvers:
        cmd = [SYSTEM_PYTHON, str(tools / "peer_siconos.py"), str(path), *solvers]
        cmd += ["--timeout", str(args.timeout)] + (["--tol", str(args.peer_tol)] if args.peer_tol else [])
        found = run_tool(cmd, args.repeats, args.timeout * len(solvers) + 60)
        out += [(f"siconos_{name}", "siconos", res) for name, res in found.items()]
    if kind != "lcp":
        return out
    if gamspy_python is None:
        return out + [("gamspy_path", "gamspy", {"status": "skipped", "detail": gamspy_missing})]
    cmd = [gamspy_python, str(tools / "peer_gamspy_path.py"), str(path)]
    cmd += ["--tol", str(args.peer_tol)] if args.peer_tol else []
    found = run_tool(cmd, args.repeats, args.timeout + 60)
    return out + [(name or "gamspy_path", "gamspy", res) for name, res in found.items()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200, 1000])
    ap.add_argument("--families", nargs="+", default=["roll", "slide"])
    ap.add_argument("--fc3d", type=int, nargs="*", default=[5, 20, 100, 400])
    ap.add_argument("--ours", nargs="+", default=["newton", "lemke", "path"])
    ap.add_argument("--ours-fc3d", nargs="*", default=["newton", "path"])
    ap.add_argument("--siconos", nargs="*", default=["lemke"])
    ap.add_argument("--siconos-fc3d", nargs="*", default=["nsn_ac", "nsn_fb", "prox"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seeds", "--seed", type=int, nargs="+", default=[0], help="instance seeds")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--tools", type=Path, default=_paths.default("--tools"), help=_paths.WHAT["--tools"])
    ap.add_argument("--gamspy-python", default=None)
    ap.add_argument("--peer-tol", type=float, default=None, help="--tol for the peer scripts")
    ap.add_argument("--out", default=None, help="also write the JSON lines to this file")
    args = ap.parse_args()

    siconos_ok = bool(args.siconos or args.siconos_fc3d) and has_module(SYSTEM_PYTHON, "siconos")
    gamspy_python = args.gamspy_python or (sys.executable if has_module(sys.executable, "gamspy") else None)
    gamspy_missing = "gamspy not installed"
    if gamspy_python == sys.executable:
        from contactmodel.solvers.path import gamspy_problem

        problem = gamspy_problem()  # e.g. an expired GAMS license: the peer would fail the same way
        if problem is not None:
            gamspy_python, gamspy_missing = None, f"GAMSPy cannot run: {problem}"
            print(f"skipping the GAMSPy peer: {problem}", file=sys.stderr)
    if siconos_ok or gamspy_python:
        args.tools = _paths.require(args.tools, "--tools")
    rows: list[dict] = []
    lines: list[str] = []

    def emit(row: dict) -> None:
        lines.append(json.dumps(row))
        print(lines[-1], flush=True)

    def record(base: dict, solver: str, source: str, result: dict) -> None:
        row = {**base, "solver": solver, "source": source, **result}
        rows.append(row)
        emit(row)

    for solver in sorted({*args.ours, *args.ours_fc3d}):  # warm-up; a solver that cannot run says why
        try:
            cm.solve(cm.LCP(np.eye(3), -np.ones(3)), solver=solver)
        except SolverError as exc:
            print(f"skipping solver {solver!r}: {exc}", file=sys.stderr)
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, str(_paths.MAKE_INSTANCES), tmp, "--seed", str(seed)], check=True)
            instances = [
                (Path(tmp) / f"lcp_{fam}_n{n}.npz", "lcp", fam) for n in args.sizes for fam in args.families
            ] + [(Path(tmp) / f"fc3d_c{c}.npz", "fc3d", "fc3d") for c in args.fc3d]
            for path, kind, family in instances:
                if not path.is_file():
                    emit(
                        {
                            "instance": path.name,
                            "seed": seed,
                            "status": "skipped",
                            "detail": "no such instance",
                        }
                    )
                    continue
                data = dict(np.load(path))
                base = {"instance": path.name, "seed": seed, "family": family, "kind": kind}
                if kind == "lcp":
                    n = int(data["q"].size)
                    base.update(n=n, size=n)
                    for solver in args.ours:
                        record(base, solver, "ours", run_ours_lcp(data, solver, args.repeats))
                    peer_solvers = args.siconos
                else:
                    nc = int(data["mu"].size)
                    base.update(contacts=nc, size=nc)
                    for solver in args.ours_fc3d:
                        record(base, solver, "ours", run_ours_fc3d(data, solver, args.repeats))
                    peer_solvers = args.siconos_fc3d
                for solver, source, res in run_peers(
                    path, kind, peer_solvers, siconos_ok, gamspy_python, args, gamspy_missing
                ):
                    record(base, solver, source, res)
    for row in summarize(rows):
        emit(row)
    if args.out:
        Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
