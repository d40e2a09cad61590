"""Our solutions against the peers' (Siconos, PATH through GAMSPy, lemkelcp) on the same instances.

Usage:
    python benchmarks/peer_agreement.py [--seeds 0 1 2 3 4] [--sizes 10 50 200]
                                        [--families roll slide psdskew] [--fc3d 5 20 100]
                                        [--peer-tol 1e-10] [--enum-max 12] [--tol 1e-8]
                                        [--tools DIR] [--peers-python PYTHON] [--bench-lcp DIR]
                                        [--out FILE.jsonl]

Instances: ``make_peer_instances.py`` (one temporary directory per seed): friction-pyramid LCPs
``lcp_{roll,slide}_n{size}`` with their contact data (A, b, mu, sliding directions), the PSD-plus-skew
control LCPs ``lcp_psdskew_n{size}``, and Coulomb-cone ``fc3d_c{contacts}``.
Solvers: ours ``newton`` and ``lemke`` on ``cm.LCP(M, q)``; ``newton`` on
``cm.formulate_from_matrices(W, q, mu)`` for fc3d (and ``newton_soc`` with ``CoulombCone(form="soc")``
where that form exists). Peers through :mod:`peer_dump` (the peer scripts unchanged, their solution
kept): Siconos ``lemke`` (LCP) and ``nsn_ac`` (fc3d) with ``/usr/bin/python3``; ``gamspy_path`` and
``lemkelcp`` with ``--peers-python``. ``--peer-tol`` is passed to Siconos (dparam TOL) and PATH
(convergence_tolerance); lemkelcp has none.

Compared quantities. Pyramid LCPs: the contact forces c = G z (the instance's layout
[c_Sn, c_Rn, s_Rt+, s_Ro+, a_Rt-, a_Ro-]) and accelerations a = A c + b, not z itself (a_R- is not
unique where a contact separates); control LCPs: z and w = M z + q. Uniqueness is decided by
``agreement.certify_lcp`` (every complementary cone) when n <= ``--enum-max``: ``forces`` (c unique,
compare c and a), ``motion`` (a unique only), ``multiple``; larger instances and fc3d are
``undecided``: their accelerations a (fc3d: velocities u = W r + q; control LCPs: w) are compared
with our lemke's (LCP) or newton's (fc3d), reported apart; ``multiple`` ones are not compared. diff is
max |x - ref| / max(1, |ref|). A peer counts as solved when its own status is ok and its residual
(computed by the peer script: LCP ||min(z, Mz+q)||_inf, fc3d De Saxce natural map) <= 1e-8 x
max(1, |q|); ours when the dispatcher says solved.

``--tools``: the folder of the peer scripts (default: $CONTACTMODEL_PEERS). ``--bench-lcp DIR``: also
the Siconos test LCPs (.dat) in DIR through the same solvers (z and w = M z + q compared).

Also listed: instances where Siconos' Lemke stops without a solution (info != 0: ray termination)
while our lemke solves them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

import contactmodel as cm
from contactmodel.errors import SolverError
from contactmodel.io.fclib import fc3d_residual
from contactmodel.io.siconos_lcp import read_lcp
from contactmodel.solvers.base import Status

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths  # noqa: E402
from agreement import Verdict, certify_lcp  # noqa: E402
from peers import SYSTEM_PYTHON, has_module, lcp_residual  # noqa: E402

DUMP = Path(__file__).resolve().parent / "peer_dump.py"


def pyramid_force_map(mu: np.ndarray, sliding: np.ndarray, vt: np.ndarray, vo: np.ndarray) -> np.ndarray:
    """(3 nc, n) G with c = [c_n; c_t; c_o] (blocks) = G z for ``make_peer_instances``' pyramid LCP."""
    nc = mu.size
    S, R = np.flatnonzero(sliding), np.flatnonzero(~sliding)
    nS, nR = S.size, R.size
    G = np.zeros((3 * nc, nS + 5 * nR))
    G[np.concatenate([S, R]), np.arange(nc)] = 1.0
    G[nc + S, np.arange(nS)] = -mu[S] * vt[S]
    G[2 * nc + S, np.arange(nS)] = -mu[S] * vo[S]
    G[nc + R, nS + np.arange(nR)] = -mu[R]
    G[2 * nc + R, nS + np.arange(nR)] = -mu[R]
    G[nc + R, nc + np.arange(nR)] = 1.0
    G[2 * nc + R, nc + nR + np.arange(nR)] = 1.0
    return G


def rel(x: np.ndarray, ref: np.ndarray) -> float:
    return float(np.abs(x - ref).max(initial=0.0) / max(1.0, np.abs(ref).max(initial=0.0)))


def peer_rows(cmd: list[str], timeout: float) -> list[dict]:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return [{"status": "fail", "reason": f"timeout>{timeout}s"}]
    rows = [json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not rows:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return [{"status": "fail", "reason": f"exit {proc.returncode}: {tail[:200]}"}]
    return rows


def peer_result(row: dict, q: np.ndarray) -> dict:
    """Our record of one peer's answer: solved when it says ok and its residual is <= 1e-8 max(1, |q|)."""
    z = np.asarray(row["z"], dtype=float) if row.get("z") is not None else None
    res = row.get("residual")
    ok = row.get("status") == "ok" and z is not None and res is not None
    ok = ok and res <= 1e-8 * max(1.0, float(np.abs(q).max()))
    return {
        "source": "peer",
        "status": row.get("status"),
        "solved": ok,
        "residual": res,
        "z": z if ok else None,
        "detail": row.get("reason", ""),
        "info": row.get("info"),
        "iterations": row.get("iterations"),
    }


def lcp_solutions(path: Path, data: dict, args, peers: dict[str, bool]) -> dict[str, dict]:
    """solver -> {status, solved, residual, z, ...} on one LCP instance."""
    M, q = data["M"], data["q"]
    out: dict[str, dict] = {}
    for solver in ("newton", "lemke"):
        sol = cm.solve(cm.LCP(M, q), solver=solver)
        ok = sol.status is Status.SOLVED
        out[solver] = {
            "source": "ours",
            "status": sol.status.value,
            "solved": ok,
            "residual": lcp_residual(M, q, sol.x) if sol.x is not None else None,
            "z": sol.x if ok else None,
            "detail": "" if ok else sol.message[:120],
        }
    tol = ["--tol", str(args.peer_tol)] if args.peer_tol else []
    cmds = []
    if peers["siconos"]:
        cmds.append([SYSTEM_PYTHON, str(DUMP), "siconos", str(path), "lemke", "--tools", args.tools, *tol])
    if peers["gamspy"] and q.size <= 1000:
        cmds.append([args.peers_python, str(DUMP), "gamspy", str(path), "--tools", args.tools, *tol])
    if peers["lemkelcp"]:
        cmds.append([args.peers_python, str(DUMP), "lemkelcp", str(path), "--tools", args.tools])
    for cmd in cmds:
        for row in peer_rows(cmd, args.timeout):
            name = row.get("solver", cmd[2])
            name = name if name.startswith(("gamspy", "lemkelcp")) else f"siconos_{name}"
            out[name] = peer_result(row, q)
    return out


def fc3d_solutions(path: Path, data: dict, args, peers: dict[str, bool]) -> dict[str, dict]:
    W, q, mu = data["W"], data["q"], data["mu"]
    out: dict[str, dict] = {}
    laws = {"newton": [cm.CoulombCone(float(m)) for m in mu]}
    try:
        laws["newton_soc"] = [cm.CoulombCone(float(m), form="soc") for m in mu]
    except (TypeError, cm.errors.ContactModelError):
        pass
    for name, law in laws.items():
        try:
            sol = cm.solve(cm.formulate_from_matrices(W, q, friction=law), solver="newton")
        except SolverError as exc:
            out[name] = {"source": "ours", "status": "n/a", "solved": False, "detail": str(exc)[:120]}
            continue
        ok = sol.status is Status.SOLVED
        r = np.concatenate([c.force[:3] for c in sol.contacts]) if ok else None
        out[name] = {
            "source": "ours",
            "status": sol.status.value,
            "solved": ok,
            "residual": fc3d_residual(W, q, mu, r, normalization="none") if ok else None,
            "z": r,
            "detail": "" if ok else sol.message[:120],
        }
    if peers["siconos"]:
        tol = ["--tol", str(args.peer_tol)] if args.peer_tol else []
        cmd = [SYSTEM_PYTHON, str(DUMP), "siconos", str(path), "nsn_ac", "--tools", args.tools, *tol]
        for row in peer_rows(cmd, args.timeout):
            out["siconos_nsn_ac"] = peer_result(row, q)
    return out


def compare(kind: str, data: dict, sols: dict[str, dict], enum_max: int, seed: int) -> tuple[Verdict, dict]:
    """Uniqueness verdict and, per solver, the difference to the unique value or to the anchor."""
    if kind == "fc3d":
        W, q = data["W"], data["q"]
        C, L, l0 = np.eye(q.size), W, q  # forces r, velocities u = W r + q
        verdict = Verdict("undecided", "fc3d (nonlinear): no enumeration")
    else:
        M, q = data["M"], data["q"]
        if "A" in data:
            C = pyramid_force_map(data["mu"], data["sliding"].astype(bool), data["vt"], data["vo"])
            L, l0 = data["A"] @ C, data["b"]
        else:
            C, L, l0 = np.eye(q.size), M, q
        n = q.size
        verdict = (
            certify_lcp(M, q, C, L, l0, seed)
            if n <= enum_max
            else Verdict("undecided", f"LCP size {n} > --enum-max {enum_max}")
        )
    if verdict.kind == "forces":
        ref = {"forces": verdict.forces, "accel": L @ np.linalg.lstsq(C, verdict.forces, rcond=None)[0] + l0}
    elif verdict.kind == "motion":
        ref = {"accel": verdict.motion}
    elif verdict.kind == "undecided":  # accelerations only: forces are indeterminate where A is singular
        anchor = "lemke" if kind == "lcp" else "newton"
        z = sols.get(anchor, {}).get("z")
        ref = None if z is None else {"accel": L @ z + l0}
    else:
        ref = None
    diffs = {}
    for name, s in sols.items():
        if s.get("z") is None or ref is None:
            continue
        z = s["z"]
        got = {"forces": C @ z, "accel": L @ z + l0}
        diffs[name] = max(rel(got[k], v) for k, v in ref.items())
    return verdict, diffs


def result_rows(seed, instance: str, kind: str, family: str, n: int, verdict, sols: dict, diffs: dict):
    """One output row per solver of one instance (the solution vector left out)."""
    for name, sol in sols.items():
        row = {
            "seed": seed,
            "instance": instance,
            "kind": kind,
            "family": family,
            "n": int(n),
            "uniqueness": verdict.kind,
            "solver": name,
            **{k: v for k, v in sol.items() if k != "z"},
        }
        if name in diffs:
            row["diff_unique" if verdict.kind in ("forces", "motion") else "diff_anchor"] = diffs[name]
        yield row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1, 2, 3, 4])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10, 50, 200])
    ap.add_argument("--families", nargs="+", default=["roll", "slide", "psdskew"])
    ap.add_argument("--fc3d", type=int, nargs="*", default=[5, 20, 100])
    ap.add_argument("--peer-tol", type=float, default=1e-10)
    ap.add_argument("--enum-max", type=int, default=12)
    ap.add_argument("--tol", type=float, default=1e-8, help="agreement tolerance (relative)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--tools", type=Path, default=_paths.default("--tools"), help=_paths.WHAT["--tools"])
    ap.add_argument("--peers-python", default=sys.executable, help="interpreter with gamspy and lemkelcp")
    ap.add_argument("--bench-lcp", default=None, help="folder of Siconos .dat LCPs (default: skip)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    args.tools = str(_paths.require(args.tools, "--tools"))

    peers = {
        "siconos": has_module(SYSTEM_PYTHON, "siconos.numerics"),
        "gamspy": has_module(args.peers_python, "gamspy"),
        "lemkelcp": has_module(args.peers_python, "lemkelcp"),
    }
    if peers["gamspy"] and args.peers_python == sys.executable:
        from contactmodel.solvers.path import gamspy_problem

        problem = gamspy_problem()  # e.g. an expired GAMS license: every GAMSPy run would fail
        if problem is not None:
            peers["gamspy"] = False
            print(f"skipping the GAMSPy peer: {problem}", file=sys.stderr)
    out = open(args.out, "w") if args.out else None  # noqa: SIM115
    rows: list[dict] = []

    def emit(row: dict) -> None:
        line = json.dumps(row, default=float)
        print(line, flush=True)
        if out:
            out.write(line + "\n")

    emit({"peers_available": peers, "peer_tol": args.peer_tol})
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            make = [
                sys.executable,
                str(_paths.MAKE_INSTANCES),
                tmp,
                "--seed",
                str(seed),
            ]
            subprocess.run(make, check=True)
            work = [(Path(tmp) / f"lcp_{f}_n{n}.npz", "lcp", f) for n in args.sizes for f in args.families]
            work += [(Path(tmp) / f"fc3d_c{c}.npz", "fc3d", "fc3d") for c in args.fc3d]
            for path, kind, family in work:
                data = dict(np.load(path))
                get = lcp_solutions if kind == "lcp" else fc3d_solutions
                sols = get(path, data, args, peers)
                verdict, diffs = compare(kind, data, sols, args.enum_max, seed)
                for row in result_rows(seed, path.stem, kind, family, data["q"].size, verdict, sols, diffs):
                    rows.append(row)
                    emit(row)
    if args.bench_lcp:
        with tempfile.TemporaryDirectory() as tmp:
            for dat in sorted(Path(args.bench_lcp).glob("*.dat")):
                M, q = read_lcp(dat)
                path = Path(tmp) / f"{dat.stem}.npz"
                np.savez(path, M=M, q=q)
                data = {"M": M, "q": q}
                sols = lcp_solutions(path, data, args, peers)
                verdict, diffs = compare("lcp", data, sols, args.enum_max, 0)
                for row in result_rows(
                    None, dat.stem, "lcp", f"bench:{dat.stem}", q.size, verdict, sols, diffs
                ):
                    rows.append(row)
                    emit(row)
    summary = summarize(rows, args.tol)
    for s in summary:
        emit(s)
    text = table(summary)
    print(text)
    if out:
        out.close()
        Path(args.out).with_suffix(".txt").write_text(text + "\n")


def summarize(rows: list[dict], tol: float) -> list[dict]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["family"], r["n"], r["solver"])].append(r)
    out = []
    for (family, n, solver), rs in sorted(groups.items()):
        cmp_ = [r["diff_unique"] for r in rs if "diff_unique" in r]
        unc = [r["diff_anchor"] for r in rs if "diff_anchor" in r]
        multiple = sum(r["uniqueness"] == "multiple" for r in rs)
        out.append(
            {
                "summary": True,
                "family": family,
                "n": n,
                "solver": solver,
                "instances": len(rs),
                "solved": sum(r["solved"] for r in rs),
                "unique": sum(r["uniqueness"] in ("forces", "motion") for r in rs),
                "multiple": multiple,
                "compared": len(cmp_),
                "max_diff": max(cmp_, default=None),
                "disagree": sum(d > tol for d in cmp_),
                "uncertified_compared": len(unc),
                "uncertified_max_diff": max(unc, default=None),
                "uncertified_differ": sum(d > tol for d in unc),
            }
        )
    by_instance: dict[tuple, dict] = defaultdict(dict)
    for r in rows:
        by_instance[(r["seed"], r["instance"])][r["solver"]] = r
    rays = [
        {
            "seed": seed,
            "instance": inst,
            "siconos": {k: sol["siconos_lemke"].get(k) for k in ("status", "detail", "info", "iterations")},
            "ours_lemke": {k: sol["lemke"].get(k) for k in ("status", "residual")},
        }
        for (seed, inst), sol in by_instance.items()
        if "siconos_lemke" in sol
        and not sol["siconos_lemke"]["solved"]
        and sol.get("lemke", {}).get("solved")
    ]
    out.append({"summary": True, "siconos_lemke_unsolved_ours_solved": rays})
    return out


def table(summary: list[dict]) -> str:
    def fmt(v):
        return "-" if v is None else f"{v:.1e}"

    w = max([len(s["family"]) for s in summary if "family" in s] + [9]) + 1
    head = (
        f"{'family':<{w}}{'n':>6} {'solver':<16}{'inst':>5}{'solved':>7}{'uniq':>5}{'mult':>5}{'cmp':>5}"
        f"{'max diff':>10}{'>tol':>5}{'unc cmp':>8}{'unc max':>10}{'>tol':>5}"
    )
    lines = [head, "-" * len(head)]
    for s in summary:
        if "family" not in s:
            lines.append(
                f"Siconos Lemke without a solution where our lemke solved: "
                f"{len(s['siconos_lemke_unsolved_ours_solved'])}"
            )
            for r in s["siconos_lemke_unsolved_ours_solved"]:
                lines.append(
                    f"  seed {r['seed']} {r['instance']}: siconos {r['siconos']}, ours {r['ours_lemke']}"
                )
            continue
        lines.append(
            f"{s['family']:<{w}}{s['n']:>6} {s['solver']:<16}{s['instances']:>5}{s['solved']:>7}"
            f"{s['unique']:>5}{s['multiple']:>5}"
            f"{s['compared']:>5}{fmt(s['max_diff']):>10}{s['disagree']:>5}{s['uncertified_compared']:>8}"
            f"{fmt(s['uncertified_max_diff']):>10}{s['uncertified_differ']:>5}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
