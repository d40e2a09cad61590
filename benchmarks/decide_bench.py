"""``cm.decide`` on the hard LCPs: verdicts, certificates re-checked here, time per decision.

Usage:
    python benchmarks/decide_bench.py seed000 [--mus 0.7 0.8 0.9 1.0] [--time-limit 300]
    python benchmarks/decide_bench.py peer [--peer-seed 49] [--families slide] [--sizes 1000]
    python benchmarks/decide_bench.py npz FILE.npz [FILE.npz ...]
    python benchmarks/decide_bench.py agreement [--n 200] [--laws pyramid cone ...] [--enum-max 12]
                                                [--decide-all] [--resume]
    (common: [--time-limit S] [--tree-limit S] [--out FILE.jsonl];
    ``--summary FILE.jsonl`` prints the table only; ``--resume`` with ``--out`` keeps the agreement
    rows already in the file and runs the missing (law, problem) pairs only)

Instances. ``seed000``: the Trinkle et al. (1997) Table 1 problem of LCP size 170, generator seed 0, under the
friction pyramid at each mu (``contactmodel experiment trinkle1997-table1``; the four no solver
solves are mu = 0.7 .. 1.0). ``peer``: the friction-pyramid LCPs of
``tests/data/make_peer_instances.py OUTDIR --seed S`` (``lcp_{family}_n{size}.npz``; slide
n = 1000 seed 49 is the one no solver solves). ``agreement``: the problems of
``benchmarks/agreement.py`` (same seed, sizes and laws) its cone enumeration leaves
``undecided`` (LCPs above ``--enum-max``, round laws at rolling contacts); with ``--decide-all``
every problem, each enumerated one's verdict compared with decide's (``agrees``: unique for c
unique, multiple for c not unique, no-solution for infeasible).

Each verdict's evidence is re-checked here independently of :mod:`contactmodel.analysis.decide`:
a Farkas ray in floats with numpy (``M^T y <= 0`` up to 1e-12 relative, ``q . y < 0``) besides
decide's exact rational check; a branch-and-bound tree by ``tree_min_norm`` (exact integers) on
its block, which must prove at least the ``min_solution_norm`` the verdict states (inf for
``no-solution``: no solution at all; finite for ``no-solution-below-bound``: none with
``||z||_1`` below it, and the verdict must say which); every solution's residual
``||min(z, M z + q)||_inf``; for two solutions their inf-norm distance; a round-law verdict's
ray on its relaxation LCP, rebuilt here (``normal_relaxation``); a MILP "no solution" verdict
of ``seed000``/``peer``/``npz`` re-solved by a differently built MILP (``remilp``: unscaled q,
vertex big-M bounds, HiGHS presolve off; the same solver, so a consistency check, not a proof:
``remilp_agrees``; not for exactly checked trees). One JSON line per instance (verdict, exact,
seconds, n, the evidence's scalars, ``check`` = the re-check passed), then a table by instance
kind and size bucket: counts per verdict, how many verdicts rest on an exactly checked
certificate (``exact``: a Farkas ray, a branch-and-bound tree, a P-matrix proof), median and
max seconds.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.analysis.certificate import leaves, tree_min_norm
from contactmodel.analysis.decide import (
    Existence,
    Status,
    away_lcp,
    decide,
    mixed_to_lcp,
    pattern_milp,
)
from contactmodel.analysis.exact_geometry import exact_lcp
from contactmodel.analysis.round_laws import force_map, normal_relaxation
from contactmodel.solve import relative_residual

TOOL = str(Path(__file__).resolve().parents[1] / "tests" / "data" / "make_peer_instances.py")
BUCKETS = (12, 30, 60, 120, 250, 500, 1000, 10**9)
#: agreement.py's enumeration verdicts as decide's: c unique; c not unique (one motion or
#: several); no solution
ENUMERATED = {"forces": "unique", "motion": "multiple", "multiple": "multiple", "infeasible": "no-solution"}


def farkas_ok(M, q: np.ndarray, y: np.ndarray) -> bool:
    """y >= 0, M^T y <= 0 (up to 1e-12 of |M|^T y) and q . y < 0, in floats."""
    M = sp.csr_matrix(M)
    s = M.T @ y
    top = float((abs(M).T @ y).max(initial=0.0))
    return bool(y.min() >= 0 and s.max(initial=0.0) <= 1e-12 * max(top, 1.0) and q @ y < 0)


def remilp(M, q, block, time_limit: float) -> dict:
    """A MILP "no solution" verdict re-solved differently: the block's pattern MILP on the
    unscaled q (no 1-norm normalization), with the simplex's vertex big-M bounds instead of LP
    bounds, HiGHS's presolve off. Same solver (HiGHS), another model and search."""
    M = sp.csr_matrix(M)
    if block is not None:
        b = np.asarray(block)
        M, q = M[b][:, b], np.asarray(q)[b]
    big = np.maximum(abs(M).max(axis=1).toarray().ravel(), np.abs(q))
    d = np.where(big > 0, 1.0 / np.where(big > 0, big, 1.0), 1.0)
    res = pattern_milp(sp.diags(d) @ M, d * q, time_limit=time_limit, presolve=False)
    return {
        "remilp_optimal": res.optimal,
        "remilp_t": res.t,
        "remilp_t_bound": res.t_bound,
        "remilp_seconds": round(res.seconds, 1),
        "remilp_agrees": res.zero,
    }


def trees_ok(result: Existence, M, q: np.ndarray, free: np.ndarray, problem=None) -> bool:
    """UNIQUE by exact trees (``uniqueness_trees``): each tree re-checked by ``tree_min_norm`` on
    its LCP rebuilt here (the block of (M, q) with the row ``sign L_i z >= bound`` added,
    ``away_lcp``; L the force map, split like (M, q) when the MCP has free variables), proving
    at least the stated norm; each bound beyond the solution's own value (by at most 1e-4 of
    max(1, ||L z||_inf), decide's default delta); both sides of every row with entries in each
    tree's block covered."""
    n = q.size
    L = force_map(problem) if problem is not None else sp.identity(result.n, format="csr")
    L = sp.hstack([L, -L[:, free]], format="csr") if free.size else sp.csr_matrix(L)
    x = np.array(result.solutions[0], dtype=float)
    z1 = np.concatenate([x, np.maximum(-x[free], 0.0)])
    z1[free] = np.maximum(x[free], 0.0)
    v = L @ z1
    d_max = 1.0001e-4 * max(1.0, float(np.abs(v).max(initial=0.0)))
    covered: dict[tuple, set] = defaultdict(set)
    for c in result.evidence["uniqueness_trees"]:
        b = np.asarray(c.get("block", np.arange(n)))
        row = c["sign"] * L[c["row"]][:, b]
        Ma, qa = away_lcp(sp.csr_matrix(M)[b][:, b], q[b], row, c["bound"])
        N, _ = tree_min_norm(Ma, qa, c["tree"])
        gap = c["bound"] - c["sign"] * v[c["row"]]
        if N is None or N < c["min_norm"] or not 0 < gap <= d_max:
            return False
        covered[tuple(b)].add((c["row"], c["sign"]))
    for b, sides in covered.items():
        rows = np.flatnonzero(np.diff(L[:, list(b)].tocsr().indptr) > 0)
        if sides != {(int(i), s) for i in rows for s in (1.0, -1.0)}:
            return False
    return True


def exact_geometry_ok(result: Existence, M, q: np.ndarray, problem) -> bool:
    """A verdict in exact geometry: the tree re-checked by ``tree_min_norm`` on the problem's
    rational LCP rebuilt here (``exact_lcp``; the block's rows exactly inside the block), proving
    at least the stated ``min_solution_norm`` (inf exactly for NO_SOLUTION); and every leaf that
    is an exact Farkas ray there, in floats, a ray of the compiled (rounded) block up to 1e-12 of
    ``|M|^T |y|`` and of ``|q| . |y|``: the certificate is about this problem."""
    block = result.evidence.get("block")
    lcp = exact_lcp(problem)
    sub = lcp if block is None else lcp.block(block)
    if sub is None:
        return False
    cert, exact = result.evidence["tree"], sub.exact()
    N, _ = tree_min_norm(exact, None, cert)
    bounded = result.status is Status.NO_SOLUTION_BELOW_BOUND
    if N is None or N < result.evidence["min_solution_norm"] or bounded != (N < np.inf):
        return False
    if block is not None:
        M, q = sp.csr_matrix(M)[block][:, block], q[block]
    for _, ray, zero_z, zero_w in leaves(cert):
        if not exact.ray_ok(ray, zero_z, zero_w):  # a norm-bound leaf, counted in N above
            continue
        y = np.array([float(v) for v in ray])
        free = np.array([j not in zero_z for j in range(q.size)])
        g, top = M.T @ y, float((abs(M).T @ np.abs(y)).max(initial=0.0))
        if g[free].max(initial=0.0) > 1e-12 * top or q @ y > 1e-12 * float(np.abs(q) @ np.abs(y)):
            return False
    return True


def recheck(result: Existence, mcp, problem=None) -> bool:
    """The evidence re-checked with plain numpy (see the module docstring); True for UNDECIDED.
    A round-law verdict's Farkas ray is checked on its relaxation, rebuilt here from ``problem``;
    a linear MCP with free variables through its LCP (``mixed_to_lcp``, its entries the MCP's)."""
    lcp = mixed_to_lcp(mcp)
    if lcp is None:  # round laws: the MCP's own natural residual, relative as in cm.solve
        if "farkas_y" in result.evidence and problem is not None:
            MR, qR, _ = normal_relaxation(problem, result.evidence["relaxation_k"])
            return farkas_ok(MR, qR, np.asarray(result.evidence["farkas_y"]))
        ok = all(relative_residual(mcp, x) <= 1e-8 for x in result.solutions)
        if result.status is Status.MULTIPLE and problem is not None:  # distinct forces
            C = force_map(problem)
            ok = ok and float(np.abs(C @ (result.solutions[0] - result.solutions[1])).max()) > 0
        return ok
    M, q, free = lcp
    scale = max(1.0, float(np.abs(q).max(initial=0.0)))
    if "farkas_y" in result.evidence:
        return farkas_ok(M, q, np.asarray(result.evidence["farkas_y"]))
    if "uniqueness_trees" in result.evidence and not trees_ok(result, M, q, free, problem):
        return False
    if result.evidence.get("exact_geometry"):
        return exact_geometry_ok(result, M, q, problem)
    if "tree" in result.evidence:  # the block's tree, re-checked exactly
        block = result.evidence.get("block")
        if block is not None:
            M, q = M[block][:, block], q[block]
        N, _ = tree_min_norm(M, q, result.evidence["tree"])
        bounded = result.status is Status.NO_SOLUTION_BELOW_BOUND
        return N is not None and N >= result.evidence["min_solution_norm"] and bounded == (N < np.inf)
    if free.size:  # solutions are the MCP's points
        return all(relative_residual(mcp, x) <= 1e-8 for x in result.solutions)
    ok = all(
        float(np.abs(np.minimum(z, M @ z + q)).max(initial=0.0)) <= 1e-8 * scale for z in result.solutions
    )
    if result.status is Status.MULTIPLE:
        z1, z2 = result.solutions[:2]
        ok = ok and float(np.abs(z1 - z2).max()) > 0
    return ok


def form(mcp) -> str:
    """ "LCP", "MLCP" (linear with free variables: decided through ``mixed_to_lcp``) or "MCP"
    (nonlinear: round friction laws)."""
    return "LCP" if mcp.is_lcp else ("MLCP" if mixed_to_lcp(mcp) is not None else "MCP")


def row_of(result: Existence, mcp, problem=None, remilp_limit: float = 0.0, **info) -> dict:
    scalars = {
        k: v for k, v in result.evidence.items() if isinstance(v, (int, float, bool, str)) and k != "farkas_y"
    }
    return {
        **info,
        "n": result.n,
        "lcp": bool(mcp.is_lcp),
        "form": form(mcp),
        "verdict": result.status.value,
        "exact": result.exact,
        "seconds": round(result.seconds, 3),
        "check": recheck(result, mcp, problem),
        **scalars,
        **(
            remilp(mcp.M, mcp.q, result.evidence.get("block"), remilp_limit)
            if remilp_limit > 0
            and mcp.is_lcp
            and "milp_t_bound" in result.evidence
            and result.status in (Status.NO_SOLUTION, Status.NO_SOLUTION_BELOW_BOUND)
            and not result.exact
            else {}
        ),
        "tried": result.tried,
    }


def run_seed000(args, emit) -> None:
    from contactmodel.experiments.generators import build_problem

    for mu in args.mus:
        problem = build_problem({"family": "boxes", "size": 170, "seed": 0, "mu": mu}, "pyramid")
        result = decide(problem, time_limit=args.time_limit, tree_limit=args.tree_limit)
        mcp = problem.compile().mcp
        emit(row_of(result, mcp, problem, args.time_limit, kind="seed000 size 170 seed 0", mu=mu))


def run_npz(paths: list[Path], args, emit, **info) -> None:
    for path in paths:
        data = np.load(path)
        mcp = cm.LCP(sp.csr_matrix(data["M"]), np.asarray(data["q"], dtype=float))
        result = decide(mcp, time_limit=args.time_limit, tree_limit=args.tree_limit)
        kind = info.get("kind", "npz")
        emit(
            row_of(result, mcp, None, args.time_limit, kind=kind, instance=path.name, **info.get("extra", {}))
        )


def run_peer(args, emit) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, args.tool, tmp, "--seed", str(args.peer_seed)], check=True)
        paths = [Path(tmp) / f"lcp_{fam}_n{n}.npz" for fam in args.families for n in args.sizes]
        run_npz(paths, args, emit, kind="peer pyramid LCP", extra={"peer_seed": args.peer_seed})


def run_agreement(args, emit) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import agreement  # noqa: PLC0415

    done = getattr(args, "done", set())
    for i in range(args.n):  # problem by problem over the laws: a partial run covers every law
        for law in args.laws:
            if (f"agreement {law}", i) in done:  # --resume: in the --out file already
                continue
            inst = agreement.make_instance(law, i, args.seed, tuple(args.sizes))
            t0 = time.perf_counter()
            verdict = agreement.certify(inst.problem, args.enum_max, seed=inst.index)
            mcp = inst.problem.compile().mcp
            enumerated = verdict.kind != "undecided"
            if enumerated and args.decide_all:  # decide's verdict beside the enumeration's
                result = decide(inst.problem, time_limit=args.time_limit, tree_limit=args.tree_limit)
                row = row_of(result, mcp, inst.problem, kind=f"agreement {law}", index=i, mu=inst.mu)
                agrees = row["verdict"] == ENUMERATED[verdict.kind]
                row.update(by="decide", enumeration=verdict.kind, agrees=agrees)
                emit(row)
                continue
            if enumerated:  # decided by the cone enumeration: counted, not re-run
                emit(
                    {
                        "kind": f"agreement {law}",
                        "index": i,
                        "mu": inst.mu,
                        "n": mcp.n,
                        "lcp": bool(mcp.is_lcp),
                        "form": "LCP",
                        "by": "enumeration",
                        "verdict": ENUMERATED[verdict.kind],
                        "enumeration": verdict.kind,
                        "seconds": round(time.perf_counter() - t0, 3),
                        "check": True,
                    }
                )
                continue
            result = decide(inst.problem, time_limit=args.time_limit, tree_limit=args.tree_limit)
            emit(row_of(result, mcp, inst.problem, kind=f"agreement {law}", index=i, mu=inst.mu, by="decide"))


def bucket(n: int) -> str:
    lo = 0
    for hi in BUCKETS:
        if n <= hi:
            return f"{lo + 1}-{hi}" if hi < 10**9 else f">{lo}"
        lo = hi
    return "?"


def table(rows: list[dict]) -> str:
    """Per instance kind (an agreement law), problem form (LCP, MLCP: linear with free variables,
    MCP: nonlinear) and size bucket of the MCP's n: the count, the verdicts, how many rest on an
    exactly checked certificate, how many the cone enumeration decided (agreement), median and
    max seconds per decision; a total per kind; then the rows not decided (solved: uniqueness
    open; undecided) per form."""
    groups: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for r in rows:
        kind = r["kind"].split(" ")[0] + (
            " " + r["kind"].split(" ")[1] if r["kind"].startswith("agreement") else ""
        )
        shape = r.get("form", "LCP" if r.get("lcp", True) else "MCP")
        groups[(kind, shape, bucket(r["n"]))].append(r)
        groups[(kind, "all", "all")].append(r)
    verdicts = [s.value for s in Status]
    width = [max(13, len(v) + 2) for v in verdicts]
    head = (
        f"{'kind':<26}{'form':>5}{'n':>8}{'count':>6}"
        + "".join(f"{v:>{w}}" for v, w in zip(verdicts, width))
        + f"{'exact':>6}{'enum':>5}{'med s':>8}{'max s':>8}"
    )
    lines = [head]

    def order(kv):
        (kind, shape, b), _ = kv
        return kind, shape == "all", shape, int(b.lstrip(">").split("-")[0]) if b != "all" else 0

    for (kind, shape, b), rs in sorted(groups.items(), key=order):
        counts = [sum(r["verdict"] == v for r in rs) for v in verdicts]
        secs = [r["seconds"] for r in rs]
        lines.append(
            f"{kind:<26}{shape:>5}{b:>8}{len(rs):>6}"
            + "".join(f"{c:>{w}}" for c, w in zip(counts, width))
            + f"{sum(bool(r.get('exact')) for r in rs):>6}{sum(r.get('by') == 'enumeration' for r in rs):>5}"
            + f"{statistics.median(secs):>8.2f}{max(secs):>8.2f}"
        )
    open_rows: dict[str, int] = defaultdict(int)
    for r in rows:
        if r["verdict"] in ("solved", "undecided", "no-solution-below-bound"):
            open_rows[r.get("form", "LCP" if r.get("lcp", True) else "MCP")] += 1
    lines.append(
        f"not decided (solved: uniqueness open; no solution below a bound; undecided) of {len(rows)}: "
        + (", ".join(f"{k} {v}" for k, v in sorted(open_rows.items())) or "none")
    )
    compared = [r for r in rows if "agrees" in r]
    if compared:
        lines.append(
            f"decide vs the cone enumeration (--decide-all): {sum(r['agrees'] for r in compared)} of "
            f"{len(compared)} agree"
            + "".join(
                f"; {r['kind']} {r['index']}: enumeration {r['enumeration']}, decide {r['verdict']}"
                for r in compared
                if not r["agrees"]
            )
        )
    failed = [r for r in rows if not r["check"]]
    lines.append(f"re-check failed: {len(failed)} of {len(rows)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", choices=("seed000", "peer", "npz", "agreement"))
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per MILP")
    ap.add_argument(
        "--tree-limit", type=float, default=None, help="seconds of the exact tree (default --time-limit)"
    )
    ap.add_argument("--mus", type=float, nargs="+", default=[0.7, 0.8, 0.9, 1.0])
    ap.add_argument("--peer-seed", type=int, default=49)
    ap.add_argument("--families", nargs="+", default=["slide"])
    ap.add_argument("--sizes", type=int, nargs="+", default=None)
    ap.add_argument("--tool", default=TOOL)
    ap.add_argument("--n", type=int, default=200, help="agreement: problems per law")
    ap.add_argument("--laws", nargs="+", default=None, help="agreement: default every law")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--enum-max", type=int, default=12)
    ap.add_argument("--out", default=None)
    ap.add_argument("--summary", default=None, metavar="FILE.jsonl")
    ap.add_argument(
        "--decide-all",
        action="store_true",
        help="agreement: run decide on the problems the cone enumeration decides too, and compare",
    )
    ap.add_argument(
        "--resume", action="store_true", help="agreement: keep the rows of --out, run only the missing ones"
    )
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.summary:
        rows = [json.loads(line) for line in Path(args.summary).read_text().splitlines() if line.strip()]
        print(table(rows))
        return
    rows: list[dict] = []
    if args.resume and args.out and Path(args.out).exists():  # keep the rows already computed
        rows = [json.loads(line) for line in Path(args.out).read_text().splitlines() if line.strip()]
        args.done = {(r["kind"], r.get("index")) for r in rows}
    out = open(args.out, "a" if args.resume else "w") if args.out else None  # noqa: SIM115

    def emit(row: dict) -> None:
        rows.append(row)
        line = json.dumps(row, default=float)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    t0 = time.perf_counter()
    if args.what == "seed000":
        run_seed000(args, emit)
    elif args.what == "peer":
        args.sizes = args.sizes or [1000]
        run_peer(args, emit)
    elif args.what == "npz":
        run_npz(args.files, args, emit)
    elif args.what == "agreement":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import agreement  # noqa: PLC0415

        args.laws = args.laws or list(agreement.LAWS)
        args.sizes = args.sizes or [1, 12]
        run_agreement(args, emit)
    else:
        ap.error("say what to run: seed000, peer, npz or agreement")
    print(table(rows))
    print(f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
