"""Our solvers and Siconos' on the FCLIB and Siconos frictional contact files of bench/fclib, next to
the published fractions solved (Acary, Brémond, Huber 2018; bench/PUBLISHED_RESULTS.md).

Usage:
    python benchmarks/fclib_bench.py --bench DIR [--solvers newton ipopt scipy] [--tools DIR]
                                     [--forms mncp soc] [--siconos nsn_ac nsgs prox]
                                     [--tol 1e-8] [--time-limit 20] [--nlp-max-contacts 60]
                                     [--slack quadratic|norm] [--scale q|both|none] [--max-iter N]
                                     [--siconos-maxiter N] [--only SUBSTRING ...] [--out FILE.jsonl]
    python benchmarks/fclib_bench.py --summarize FILE.jsonl

Every 3D local problem (FCLIB ``/fclib_local``, siconos FrictionContact ``.dat``) and every 3D
global one whose v can be eliminated (W = H^T M^-1 H, q = H^T M^-1 f + w) is formulated with
``contactmodel.io.fclib.to_problem`` (A = W exactly as read, symmetric or not; b = q; all contacts
rolling) and solved by each of ``--solvers`` with each cone form of ``--forms`` that it accepts:
``mncp`` is ``CoulombCone(mu_a, slack=..., form="mncp")`` (the MNCP of Trinkle et al. 1997), ``soc``
is ``CoulombCone(mu_a, form="soc")`` (newton only). ipopt and scipy run only up to
``--nlp-max-contacts`` contacts. The runs go one after the other to a worker process forked after
a warm-up solve (see ``warm_up`` and ``Worker``), with the solver's own time limit (scipy has none)
and a hard limit of time limit + 10 s (then the worker is killed and forked again). ``--scale q``
(the default) builds the model from (W, q / ||q||), ``--scale both`` from (W / max|W|, q / ||q||),
``--scale none`` from (W, q); the reactions are scaled back (the cone conditions are positively
homogeneous). Some files have ||q|| ~ 1e-12, where an unscaled answer r = 0 passed the
dispatcher's former tolerance (relative to max(1, ||F(0)||_inf)); it is relative to ||F(0)||_inf
now (``Solution.residual_scale``), and ``--scale none`` solves every file that ``--scale q`` does.
Dividing W by max|W| (6.6e5 in spheres-in-a-box) made newton stall there at 3.8e-6, which
(W, q / ||q||) solves to 2e-12.
``--siconos`` runs Siconos' fc3d solvers through ``--tools``' peer_siconos.py with /usr/bin/python3
on the same (W, q, mu), written to a temporary .npz, with ``--tol`` as Siconos' own tolerance (its
error is normalized by max(||q||, ||r||, ||u||), not ||q||) and ``--time-limit`` as its per-solver
timeout; skipped when /usr/bin/python3 cannot import siconos.

Output: one JSON line per file that is skipped (with the reason) and per (file, solver): contacts,
kind, asymmetry (max|W - W^T| / max|W|), seconds (the solver's time, ``Solution.seconds``),
call_cpu_seconds (ours: the process time of the whole ``cm.solve`` call), status, iterations,
residual (the dispatcher's relative natural-map residual of the MCP; for Siconos its own error),
fc3d (||F_nat(r)||_2 / ||q||_2 on the file's W, q, the paper's measure), solved (fc3d <= tol).
Then markdown tables: per file and solver (status, fc3d, dispatcher residual, seconds); per solver
the fraction solved and median times; the files of at most 100 contacts, our whole call next to
the fastest Siconos solver that solved each (``small_files``); per test set ours next to the
published fractions at 1e-8.
Not part of the test suite.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

import contactmodel as cm
from contactmodel import solvers
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths  # noqa: E402

SYSTEM_PYTHON = "/usr/bin/python3"

#: our solvers and the cone forms each accepts
OURS = {"newton": ("mncp", "soc"), "ipopt": ("mncp",), "scipy": ("mncp",)}
#: PUBLISHED_RESULTS.md, fraction solved at tol 1e-8, solvers S1..S13 (S1 NSGS-AC, S2 NSN-AC-GP,
#: S3 NSN-AC)
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


def label(solver: str, form: str) -> str:
    return f"{solver}/{form}"


def soc_available() -> str | None:
    """None when ``CoulombCone(mu, form="soc")`` exists, else why not."""
    try:
        cm.CoulombCone(0.5, form="soc")
    except (TypeError, ContactModelError) as exc:
        return f"CoulombCone(mu, form='soc') is not available: {exc}"
    return None


def laws(mu: np.ndarray, form: str, slack: str) -> list:
    if form == "soc":
        return [cm.CoulombCone(float(m), form="soc") for m in mu]
    return [cm.CoulombCone(float(m), slack=slack, form="mncp") for m in mu]


def run_one(
    path: Path, solver: str, form: str, tol: float, time_limit: float, slack: str, scale: str, options: dict
) -> dict:
    """Read, formulate and solve one file with one of our solvers; the row of the JSON output."""
    fp = read_any(path)
    loc = fp.to_local()
    s_w, s_q = scales(loc)
    s_w, s_q = {"both": (s_w, s_q), "q": (1.0, s_q), "none": (1.0, 1.0)}[scale]
    scaled = replace(loc, W=loc.W / s_w, q=loc.q / s_q)
    t0 = time.perf_counter()
    problem = to_problem(scaled, friction=laws(loc.mu, form, slack))
    formulate_seconds = time.perf_counter() - t0
    if solvers.get(solver).time_limit:
        options = {**options, "time_limit": time_limit}
    c0 = time.process_time()
    sol = cm.solve(problem, solver=solver, accept_tol=tol, **options)
    call_cpu = time.process_time() - c0
    r = reactions(problem, sol.x) * (s_q / s_w) if sol.x is not None else np.zeros(loc.m)
    fc3d = fc3d_residual(loc.W, loc.q, loc.mu, r)
    return {
        "file": path.name,
        "solver": label(solver, form),
        "contacts": loc.nc,
        "kind": fp.kind if fp.kind == "local" else "global->local",
        "scaling": [s_w, s_q],
        "asymmetry": loc.asymmetry(),
        "formulate_seconds": round(formulate_seconds, 4),
        "seconds": round(sol.seconds, 4),
        "call_cpu_seconds": round(call_cpu, 5),
        "status": sol.status.name,
        "iterations": sol.iterations,
        "residual": sol.residual,
        "law_residual": sol.checks.get("law_residual"),
        "fc3d": fc3d,
        "fc3d_siconos": fc3d_residual(loc.W, loc.q, loc.mu, r, normalization="siconos"),
        "solved": bool(fc3d <= tol),
    }


def warm_up(solvers: list[str]) -> float:
    """Solve a one-contact and a 60-contact cone problem with newton in this process before the runs'
    worker is forked from it (seconds taken; 0 without newton): their ``seconds`` then exclude
    what only a process's first solve pays, the start of numba's compiled kernels (their cached machine code
    loaded, 0.5-1.5 s on a loaded 2-core machine), as a warm process of a user's sweep does."""
    if "newton" not in solvers:
        return 0.0
    t0 = time.perf_counter()
    problem = cm.formulate_from_matrices(
        np.eye(3), np.array([-1.0, 0.2, 0.0]), friction=laws(np.array([0.5]), "soc", "quadratic")
    )
    cm.solve(problem, solver="newton")
    # a singular one with a time limit and no regularization: Levenberg-Marquardt steps and the
    # deadline test of newton's compiled small-problem loop, whose interpreter blocks numba compiles
    # at their first call in a process (~0.1 s, not cached on disk)
    problem = cm.formulate_from_matrices(
        np.diag([1.0, 0.0, 0.0]),
        np.array([-1.0, 0.0, 0.0]),
        friction=laws(np.array([0.5]), "soc", "quadratic"),
    )
    cm.solve(problem, solver="newton", time_limit=10.0, regularize="never")
    # and 60 coupled contacts (180 rows: newton's sparse path, whose kernels the first problem
    # does not start)
    n = 180
    W = 2.0 * np.eye(n) - 0.5 * (np.eye(n, k=1) + np.eye(n, k=-1))
    q = np.tile([-1.0, 0.2, 0.0], n // 3)
    problem = cm.formulate_from_matrices(W, q, friction=laws(np.full(n // 3, 0.5), "soc", "quadratic"))
    cm.solve(problem, solver="newton")
    # and a singular one on the sparse path: its compiled loop's Levenberg-Marquardt block
    W, q = np.diag(np.tile([1.0, 0.0, 0.0], n // 3)), np.tile([-1.0, 0.0, 0.0], n // 3)
    problem = cm.formulate_from_matrices(W, q, friction=laws(np.full(n // 3, 0.5), "soc", "quadratic"))
    cm.solve(problem, solver="newton", time_limit=10.0, regularize="never")
    return time.perf_counter() - t0


class Worker:
    """A child process forked from this one after the warm-up that runs the runs one after another
    (:func:`run_one`), as a warm process of a user's sweep solves one file after the other; killed
    and forked again when a run gives no answer within its hard limit. It repeats the warm-up
    first: a fresh fork's first solves pay copy-on-write page faults on the parent's memory they
    touch (about 1,700 on a one-contact file: ~1 ms of a 0.5 ms solve), a cost of this
    benchmark's processes, not of the solver."""

    def __init__(self, solvers: list[str]) -> None:
        self.solvers = solvers
        self.proc = None
        self.conn = None

    def _start(self) -> None:
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.solvers), daemon=True)
        self.proc.start()
        child.close()

    def run(self, args: tuple, timeout: float) -> tuple[dict | None, int | None]:
        """(the row of :func:`run_one` on ``args``, or None after ``timeout`` s; the exit code of
        a killed worker)."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        self.conn.send(args)
        if self.conn.poll(timeout):
            try:
                return self.conn.recv(), None
            except EOFError:
                pass
        return None, self.stop()

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        self.conn.close()
        self.proc.join(1)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        code, self.proc = self.proc.exitcode, None
        return code


def _serve(conn, solvers: list[str]) -> None:
    warm_up(solvers)
    while True:
        try:
            args = conn.recv()
        except EOFError:
            return
        try:
            conn.send(run_one(*args))
        except Exception as exc:
            conn.send({"error": f"{type(exc).__name__}: {exc}"})


def run_guarded(
    worker: Worker,
    path: Path,
    solver: str,
    form: str,
    tol: float,
    time_limit: float,
    slack: str,
    scale: str,
    options: dict,
    nc: int,
) -> dict:
    """:func:`run_one` in ``worker``, killed after time_limit + 10 s."""
    t0 = time.perf_counter()
    row, exitcode = worker.run((path, solver, form, tol, time_limit, slack, scale, options), time_limit + 10)
    wall = time.perf_counter() - t0
    base = {"file": path.name, "solver": label(solver, form), "contacts": nc}
    if row is None:
        return {
            **base,
            "status": "KILLED",
            "seconds": round(wall, 2),
            "solved": False,
            "detail": f"no answer within {time_limit + 10:.0f} s (exit code {exitcode})",
        }
    if "error" in row:
        return {**base, "status": "ERROR", "seconds": round(wall, 2), "solved": False, "detail": row["error"]}
    return row


def siconos_available(tools: Path | None) -> str | None:
    """None when the Siconos peer can run from the folder ``tools``, else why not."""
    problem = _paths.missing(tools, "--tools")
    if problem:
        return problem
    if not (tools / "peer_siconos.py").is_file():
        return f"{tools / 'peer_siconos.py'} not found: pass --tools DIR, the folder holding it"
    try:
        ok = subprocess.run([SYSTEM_PYTHON, "-c", "import siconos.numerics"], capture_output=True).returncode
    except OSError as exc:
        return f"{SYSTEM_PYTHON}: {exc}"
    return (
        None
        if ok == 0
        else f"{SYSTEM_PYTHON} cannot import siconos.numerics (apt-get install python3-siconos)"
    )


def run_siconos(
    path: Path,
    loc: FrictionProblem,
    names: list[str],
    tol: float,
    time_limit: float,
    maxiter: int | None,
    tools: Path,
) -> list[dict]:
    """Siconos' fc3d solvers ``names`` on the file's (W, q, mu) through peer_siconos.py: one row each.

    fc3d is the peer's unnormalized natural-map residual divided by ||q|| (as :func:`fc3d_residual`).
    """
    base = {"file": path.name, "contacts": loc.nc, "kind": "local", "asymmetry": loc.asymmetry()}
    q_norm = float(np.linalg.norm(loc.q))
    with tempfile.TemporaryDirectory() as tmp:
        inst = Path(tmp) / f"{path.stem}.npz"
        np.savez(inst, W=loc.W.toarray(), q=loc.q, mu=loc.mu)
        cmd = [SYSTEM_PYTHON, str(tools / "peer_siconos.py"), str(inst), *names, "--tol", f"{tol:g}"]
        cmd += ["--timeout", f"{time_limit:g}"]
        if maxiter is not None:
            cmd += ["--maxiter", str(maxiter)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=len(names) * (time_limit + 20))
            lines = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
            detail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        except subprocess.TimeoutExpired:
            lines, detail = [], "peer script timed out"
    found = {row["solver"]: row for row in lines}
    rows = []
    for name in names:
        out = found.get(name)
        if out is None:
            rows.append(
                {**base, "solver": f"siconos/{name}", "status": "ERROR", "solved": False, "detail": detail}
            )
            continue
        res = out.get("residual")
        fc3d = None if res is None else (res / q_norm if q_norm > np.finfo(float).eps else res)
        timeout = str(out.get("reason", "")).startswith("timeout")
        status = "SOLVED" if out["status"] == "ok" else ("TIME_LIMIT" if timeout else "FAILED")
        rows.append(
            {
                **base,
                "solver": f"siconos/{name}",
                # a run stopped at the time limit counts with that time
                "seconds": time_limit if timeout else out.get("seconds"),
                "status": status,
                "detail": out.get("reason", ""),
                "iterations": out.get("iterations"),
                "residual": out.get("solver_error"),
                "fc3d": fc3d,
                "solved": bool(fc3d is not None and fc3d <= tol),
            }
        )
    return rows


# -- tables ----------------------------------------------------------------------------------------

_SHORT = {
    "SOLVED": "S",
    "SOLVED_INACCURATE": "I",
    "ITERATION_LIMIT": "L",
    "TIME_LIMIT": "T",
    "FAILED": "F",
    "KILLED": "K",
    "ERROR": "E",
    "SKIPPED": "-",
}


def _g(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.0e}"


def _secs(x) -> str:
    return "-" if x is None else f"{x:.2g}"


def cell(row: dict | None) -> str:
    """status letter, fc3d, dispatcher residual (ours) or own error (Siconos), seconds; bold when solved."""
    if row is None:
        return ""
    if row.get("status") == "SKIPPED":
        return "-"
    text = f"{_SHORT.get(row['status'], row['status'])} {_g(row.get('fc3d'))} ({_g(row.get('residual'))}) "
    text += _secs(row.get("seconds"))
    return f"**{text}**" if row.get("solved") else text


def file_table(rows: list[dict], solvers: list[str]) -> str:
    by_file: dict[str, dict[str, dict]] = defaultdict(dict)
    info: dict[str, dict] = {}
    for r in rows:
        if "solver" in r:
            by_file[r["file"]][r["solver"]] = r
            if "kind" in r:
                info.setdefault(r["file"], r)
        else:
            info[r["file"]] = r
    lines = [
        "| file | nc | kind | asym. | " + " | ".join(solvers) + " |",
        "|---|---|---|---|" + "---|" * len(solvers),
    ]
    order = sorted(info, key=lambda f: (info[f].get("contacts") or 0, f))
    for f in order:
        r = info[f]
        if r.get("status") == "SKIPPED" and "solver" not in r:
            reason = r["detail"].split(": ", 1)[-1] if r["detail"].startswith("/") else r["detail"]
            lines.append(f"| {f} | - | skipped | - | {reason} |" + " |" * (len(solvers) - 1))
            continue
        asym = r.get("asymmetry")
        asym_cell = "-" if asym is None else ("sym" if asym <= SYMMETRY_TOL else f"{asym:.0e}")
        kind = "global" if r.get("kind") == "global->local" else "local"
        cells = [cell(by_file[f].get(s)) for s in solvers]
        lines.append(f"| {f} | {r.get('contacts', '-')} | {kind} | {asym_cell} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


SMALL_CONTACTS = 100


def small_files(rows: list[dict], ours: str = "newton/soc") -> str:
    """Files of at most ``SMALL_CONTACTS`` contacts: our whole ``cm.solve`` call (CPU) next to
    the fastest Siconos solver that solved the file (its wall time around the driver call), per
    file the ratio; the medians of both and of the ratios."""
    by_file: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in rows:
        if "solver" in r and (r.get("contacts") or 0) <= SMALL_CONTACTS:
            by_file[r["file"]][r["solver"]] = r
    mine, best, ratios, solved, n = [], [], [], 0, 0
    for runs in by_file.values():
        row = runs.get(ours)
        if row is None or row.get("status") == "SKIPPED":
            continue
        n += 1
        solved += bool(row.get("solved"))
        peers = [r["seconds"] for k, r in runs.items() if k.startswith("siconos/") and r.get("solved")]
        if row.get("solved") and row.get("call_cpu_seconds") is not None and peers:
            mine.append(row["call_cpu_seconds"])
            best.append(min(peers))
            ratios.append(mine[-1] / max(best[-1], 1e-9))
    if not ratios:
        return f"files of <= {SMALL_CONTACTS} contacts: no file solved by {ours} and a Siconos solver"
    return (
        f"files of <= {SMALL_CONTACTS} contacts: {ours} solved {solved} / {n}; on the {len(ratios)} "
        f"also solved by Siconos: median whole call {1e3 * statistics.median(mine):.3f} ms (CPU), "
        f"median fastest Siconos solver {1e3 * statistics.median(best):.3f} ms, median ratio per "
        f"file {statistics.median(ratios):.1f}x"
    )


def summary(rows: list[dict], solvers: list[str]) -> str:
    """Markdown tables: per file, per solver, then per test set next to the published fractions."""
    attempted = [r for r in rows if "solver" in r and r.get("status") != "SKIPPED"]
    lines = [
        file_table(rows, solvers),
        "",
        "| solver | solved / attempted | fraction | local files | global files | non-symmetric W | "
        "our status SOLVED | median s | median s (solved) | max s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in solvers:
        mine = [r for r in attempted if r["solver"] == s]
        if not mine:
            continue
        secs = [r["seconds"] for r in mine if r.get("seconds") is not None]
        solved = [r for r in mine if r["solved"]]
        loc = [r for r in mine if r.get("kind") == "local"]
        glob = [r for r in mine if r.get("kind") == "global->local"]
        asym = [r for r in mine if (r.get("asymmetry") or 0) > SYMMETRY_TOL]
        n_ok = sum(r.get("status") == "SOLVED" for r in mine)
        med_ok = f"{statistics.median(r['seconds'] for r in solved):.3g}" if solved else "-"

        def frac(group: list[dict]) -> str:
            return f"{sum(r['solved'] for r in group)} / {len(group)}"

        lines.append(
            f"| {s} | {frac(mine)} | {len(solved) / len(mine):.2f} | {frac(loc)} | {frac(glob)} | "
            f"{frac(asym)} | {n_ok} / {len(mine)} | "
            f"{statistics.median(secs) if secs else float('nan'):.3g} | {med_ok} | "
            f"{max(secs) if secs else float('nan'):.3g} |"
        )
    lines += ["", small_files(rows)]
    lines += [
        "",
        "| test set (paper) | files here | "
        + " | ".join(solvers)
        + " | published NSGS-AC (S1) | NSN-AC-GP (S2) | NSN-AC (S3) | best published |",
        "|---|---|" + "---|" * len(solvers) + "---|---|---|---|",
    ]
    by_family: dict[str | None, list[dict]] = defaultdict(list)
    for r in attempted:
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
        pub_cells = (
            [f"{pub[0]:.2f}", f"{pub[1]:.2f}", f"{pub[2]:.2f}", f"{max(pub):.2f}"] if pub else ["-"] * 4
        )
        lines.append(
            f"| {fam or 'siconos test data (no published set)'} | {len(files)} | "
            + " | ".join(cells + pub_cells)
            + " |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", type=Path, default=_paths.default("--bench"), help=_paths.WHAT["--bench"])
    ap.add_argument("--tools", type=Path, default=_paths.default("--tools"), help=_paths.WHAT["--tools"])
    ap.add_argument("--solvers", nargs="*", default=["newton", "ipopt", "scipy"], choices=sorted(OURS))
    ap.add_argument("--forms", nargs="+", default=["mncp", "soc"], choices=["mncp", "soc"])
    ap.add_argument("--siconos", nargs="*", default=["nsn_ac", "nsgs", "prox"])
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--time-limit", type=float, default=20.0)
    ap.add_argument("--nlp-max-contacts", type=int, default=60, help="ipopt and scipy only up to this")
    ap.add_argument("--slack", choices=["quadratic", "norm"], default="quadratic")
    ap.add_argument("--scale", choices=["q", "both", "none"], default="q")
    ap.add_argument("--max-iter", type=int, default=None, help="newton's max_iter (default: its preset)")
    ap.add_argument("--siconos-maxiter", type=int, default=None, help="Siconos' max iterations")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument(
        "--summarize", type=Path, default=None, help="only print the tables of a stored --out file"
    )
    args = ap.parse_args(argv)
    columns = [label(s, f) for s in args.solvers for f in args.forms if f in OURS[s]]
    columns += [f"siconos/{n}" for n in args.siconos]
    if args.summarize:
        rows = [json.loads(line) for line in args.summarize.read_text().splitlines() if line.strip()]
        present = {r["solver"] for r in rows if "solver" in r}
        print(summary(rows, [c for c in columns if c in present]))
        return 0
    if _paths.missing(args.bench, "--bench"):
        print(_paths.missing(args.bench, "--bench"), file=sys.stderr)
        return 2
    no_soc = soc_available() if "soc" in args.forms else None
    no_siconos = siconos_available(args.tools) if args.siconos else None
    out = args.out.open("a") if args.out else None

    def emit(row: dict) -> None:
        line = json.dumps(row)
        print(line, flush=True)
        rows.append(row)
        if out:
            out.write(line + "\n")
            out.flush()

    rows: list[dict] = []
    t_start = time.perf_counter()
    warm = warm_up(args.solvers)
    worker = Worker(args.solvers)
    for path in bench_files(args.bench):
        if args.only and not any(s in path.name for s in args.only):
            continue
        try:
            fp = read_any(path)
            if fp.spacedim != 3:
                raise ContactModelError(f"spacedim {fp.spacedim}: not a 3D problem")
            loc = fp.to_local()
        except (ContactModelError, ImportError) as exc:
            emit({"file": path.name, "status": "SKIPPED", "detail": str(exc)})
            continue
        nc = loc.nc
        for solver in args.solvers:
            for form in (f for f in args.forms if f in OURS[solver]):
                skip = None
                if form == "soc" and no_soc:
                    skip = no_soc
                elif solver in ("ipopt", "scipy") and nc > args.nlp_max_contacts:
                    skip = f"{solver} only up to {args.nlp_max_contacts} contacts"
                if skip:
                    emit(
                        {
                            "file": path.name,
                            "solver": label(solver, form),
                            "contacts": nc,
                            "status": "SKIPPED",
                            "detail": skip,
                        }
                    )
                    continue
                options = {"max_iter": args.max_iter} if solver == "newton" and args.max_iter else {}
                emit(
                    run_guarded(
                        worker,
                        path,
                        solver,
                        form,
                        args.tol,
                        args.time_limit,
                        args.slack,
                        args.scale,
                        options,
                        nc,
                    )
                )
        if args.siconos:
            if no_siconos:
                for name in args.siconos:
                    emit(
                        {
                            "file": path.name,
                            "solver": f"siconos/{name}",
                            "contacts": nc,
                            "status": "SKIPPED",
                            "detail": no_siconos,
                        }
                    )
            else:
                for row in run_siconos(
                    path, loc, args.siconos, args.tol, args.time_limit, args.siconos_maxiter, args.tools
                ):
                    row["kind"] = fp.kind if fp.kind == "local" else "global->local"
                    emit(row)
    worker.stop()
    print(summary(rows, columns))
    print(
        f"\ntotal wall time {time.perf_counter() - t_start:.0f} s; tol {args.tol:g} on fc3d "
        f"(||F_nat(r)||_2 / ||q||_2), per-run time limit {args.time_limit:g} s, slack {args.slack}; "
        f"warm-up before the runs {warm:.2f} s (see warm_up)"
    )
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
