"""Benchmark the Newton solver on the shared seeded Coulomb-cone (fc3d) instances.

Usage:
    python benchmarks/newton_cone.py [--seeds 1 2 3] [--contacts 5 20 100 400] [--form soc|mncp]
                                     [--slack quadratic] [--tool PATH]

Builds the instances with ``make_peer_instances.py`` (one temporary directory per seed), forms the
seed's MNCP with ``cm.formulate_from_matrices(W, q, mu=mu)`` (all contacts rolling) and prints one
JSON line per instance: seed, contacts, status, residual (the dispatcher's relative natural-map
residual), fc3d_residual (FCLIB's ||r - P_K(r - u_hat)||_2 / ||q||_2 at the reactions, De Saxce's
modified velocity, rho = 1), seconds (solve call), iterations and the solver's message.
``--form soc`` states the law as the cone complementarity (``CoulombCone(mu, form="soc")``)
instead of the seed's MNCP; ``--slack norm`` uses the MNCP's ``slack="norm"`` option instead of
the seed's quadratic slack (for comparison).
``--summary RESULTS.jsonl`` prints a table by contacts: solved (status solved, residual and
fc3d_residual <= 1e-8),
median and max seconds, median iterations, and the unsolved seeds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import contactmodel as cm
from contactmodel.io.fclib import fc3d_residual, reactions

DEFAULT_TOOL = str(Path(__file__).resolve().parents[1] / "tests" / "data" / "make_peer_instances.py")


def run_instance(path: Path, seed: int, slack: str = "quadratic", form: str = "mncp") -> dict:
    """Solve one fc3d instance with ``newton`` and describe the result."""
    data = np.load(path)
    laws = [cm.CoulombCone(float(m), slack=slack, form=form) for m in data["mu"]]
    problem = cm.formulate_from_matrices(data["W"], data["q"], friction=laws)
    sol = cm.solve(problem, solver="newton")
    fc3d = float("inf")
    if sol.x is not None:
        fc3d = fc3d_residual(data["W"], data["q"], data["mu"], reactions(problem, sol.x))
    return {
        "seed": seed,
        "form": form,
        "slack": slack,
        "contacts": int(data["mu"].size),
        "status": sol.status.value,
        "residual": sol.residual,
        "fc3d_residual": fc3d,
        "seconds": sol.timings.get("solve", sol.seconds),
        "iterations": sol.iterations,
        "message": sol.message,
    }


def _g(v: float) -> float:
    return float(f"{v:.2g}")


def summary(path: Path) -> None:
    """Print the table of a results file by number of contacts."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.startswith("{")]
    groups: dict[int, list[dict]] = {}
    for r in rows:
        groups.setdefault(r["contacts"], []).append(r)
    print("contacts  solved  med s  max s  med it  unsolved (seed, status, residual, fc3d_residual)")
    for nc, rs in sorted(groups.items()):
        bad = [
            r
            for r in rs
            if not (r["status"] == "solved" and r["residual"] <= 1e-8 and r.get("fc3d_residual", 0.0) <= 1e-8)
        ]
        secs = [r["seconds"] for r in rs]
        print(
            f"{nc:8d} {len(rs) - len(bad):3d}/{len(rs):<3d} {statistics.median(secs):6.3f} {max(secs):6.2f} "
            f"{statistics.median([r['iterations'] for r in rs]):7.0f}  "
            f"{[(r['seed'], r['status'], _g(r['residual']), _g(r.get('fc3d_residual', 0.0))) for r in bad]}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--contacts", type=int, nargs="+", default=[5, 20, 100, 400])
    ap.add_argument("--form", choices=["mncp", "soc"], default="mncp")
    ap.add_argument("--slack", choices=["quadratic", "norm"], default="quadratic")
    ap.add_argument("--tool", default=DEFAULT_TOOL)
    ap.add_argument("--summary", type=Path, default=None)
    args = ap.parse_args()
    if args.summary is not None:
        summary(args.summary)
        return
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, args.tool, tmp, "--seed", str(seed)],
                check=True,
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
            )
            for nc in args.contacts:
                print(
                    json.dumps(run_instance(Path(tmp) / f"fc3d_c{nc}.npz", seed, args.slack, args.form)),
                    flush=True,
                )


if __name__ == "__main__":
    main()
