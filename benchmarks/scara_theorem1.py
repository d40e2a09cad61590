"""Andreani et al. (2002) §4.2.1, all-rolling SCARA grasp through MNCPOpt and Ipopt: the solved count per
starting rule, Theorem 1's hypotheses at every failure, and a multistart count reported apart.

Usage:
    python benchmarks/scara_theorem1.py [--starts origin interior ladder] [--seeds 0-199]
                                        [--multistart K] [--out FILE.jsonl]

Each data set is ``generators.scara_problem(seed, sliding=False, friction="cone")`` in the MNCP form
(the paper's u = (c_n, lambda), v = (c_t, c_o, a_t, a_o)), solved by ``cm.solve(..., solver="ipopt")``
from one start per ``--starts`` entry (single start; "solved" is the dispatcher's status ``solved``,
relative residual and law residual <= 1e-8):

- ``origin``: the model's own start x = 0 (c_n = lambda = 0 at both contacts), Ipopt's defaults;
- ``interior``: ``generators.SCARA_IPOPT_INTERIOR`` (Ipopt's bound_push = 1, so the start has
  c_n, lambda, z >= 1, and acceptable_iter = 0, so Ipopt does not stop at its "acceptable" level);
- ``ladder``: the solver's defaults, the origin then its restart ladder (``IpoptOptions.restarts``,
  ``random_starts``) until an attempt converges.

At each failure :func:`contactmodel.analysis.theorem1.theorem1` evaluates the theorem at the point
Ipopt returned: stationarity, g_v's smallest singular value, and (when g_v is nonsingular) whether
the Schur complement is a row-sufficient S-matrix, with the proof's witness w = f - z.
``--multistart K`` retries each failure from up to K further starts (u uniform in [0.5, 2], z from
u, v standard normal, seeded by (seed, k)) with the same options and counts those solved apart.
The paper (solver ``easy``, a bound-constrained trust-region method, start not stated) solved 183
of 200. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter

import numpy as np

import contactmodel as cm
from contactmodel.analysis.theorem1 import theorem1
from contactmodel.experiments.generators import SCARA_IPOPT_INTERIOR, scara_problem
from contactmodel.reductions import without_cone_blocks

SINGLE: dict = {"restarts": (), "random_starts": 0}  # one Ipopt run, without the solver's restart ladder
STARTS: dict[str, dict] = {
    "origin": SINGLE,
    "interior": {**SCARA_IPOPT_INTERIOR, **SINGLE},
    "ladder": {},
}


def seeds_arg(text: str) -> list[int]:
    """'0-199' or '6,7,11' -> a list of seeds."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def random_start(mcp, seed: int, k: int) -> np.ndarray:
    """Start k >= 1 of the multistart: u ~ U(0.5, 2), v ~ N(0, 1), seeded by (seed, k)."""
    rng = np.random.default_rng([seed, k])
    x = rng.standard_normal(mcp.n)
    u = np.isfinite(mcp.lb)
    x[u] = rng.uniform(0.5, 2.0, int(u.sum()))
    return x


def run(seed: int, start: str, multistart: int) -> dict:
    """One data set from one start: status, Theorem 1 at a failure, multistart outcome."""
    problem = without_cone_blocks(scara_problem(seed, sliding=False, friction="cone"))
    mcp = problem.compile().mcp
    options = STARTS[start]
    sol = cm.solve(problem, solver="ipopt", **options)
    row: dict = {
        "seed": seed,
        "start": start,
        "status": sol.status.value,
        "residual": sol.residual,
        "law_residual": sol.checks.get("law_residual"),
        "objective": sol.extras.get("objective"),
        "iterations": sol.iterations,
        "seconds": round(sol.seconds, 4),
    }
    if sol.status.value == "solved":
        return row
    t = theorem1(mcp, sol.x, sol.extras.get("z"))
    row.update(
        projected_gradient=t.projected_gradient,
        stationary=t.stationary,
        g_v_min_singular=t.g_v_min_singular,
        row_sufficient=None if t.row_sufficient is None else t.row_sufficient.value,
        s_matrix=None if t.s_matrix is None else t.s_matrix.value,
        failed=t.failed,
        witness=t.witness(),
        u=dict(zip([mcp.names[i] for i in np.flatnonzero(np.isfinite(mcp.lb))], sol.x[np.isfinite(mcp.lb)])),
    )
    for k in range(1, multistart + 1):
        again = cm.solve(problem, solver="ipopt", x0=random_start(mcp, seed, k), **options)
        if again.status.value == "solved":
            row["multistart_solved_at"] = k
            break
    return row


def explain(row: dict) -> str:
    """One line per failure: which hypothesis of Theorem 1 fails at Ipopt's point."""
    u = ", ".join(f"{k.replace('contact[', '').replace(']', '')}={v:.3g}" for k, v in row["u"].items())
    return (
        f"seed {row['seed']:3d} {row['status']:15s} phi {row['objective']:.2e} "
        f"pg {row['projected_gradient']:.1e} "
        f"smin(g_v) {row['g_v_min_singular']:.1e} | {'; '.join(row['failed']) or 'all hold'} | "
        f"{row['witness']} | {u}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", nargs="+", default=list(STARTS), choices=list(STARTS))
    ap.add_argument("--seeds", type=seeds_arg, default=list(range(200)), help="e.g. 0-199 or 6,7,11")
    ap.add_argument("--multistart", type=int, default=0, help="further random starts per failure")
    ap.add_argument("--out", default=None, help="also write the JSON lines to this file")
    args = ap.parse_args()
    sink = open(args.out, "a") if args.out else None  # noqa: SIM115
    for start in args.starts:
        t0 = time.perf_counter()
        rows = [run(s, start, args.multistart) for s in args.seeds]
        if sink:
            for r in rows:
                sink.write(json.dumps(r, default=float) + "\n")
        failures = [r for r in rows if r["status"] != "solved"]
        single = len(rows) - len(failures)
        seconds = time.perf_counter() - t0
        print(f"\n## start {start!r}: solved {single} / {len(rows)} single start ({seconds:.0f} s)")
        for r in failures:
            print(explain(r))
        causes = Counter(r["failed"][0].split(" (")[0] if r["failed"] else "all hold" for r in failures)
        print("first failing hypothesis:", dict(causes))
        if args.multistart:
            extra = sum("multistart_solved_at" in r for r in failures)
            more = f"up to {args.multistart} more starts per failure"
            print(f"multistart ({more}): {single + extra} / {len(rows)}")
    if sink:
        sink.close()


if __name__ == "__main__":
    main()
