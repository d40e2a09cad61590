"""Benchmark the Newton solver on the shared seeded friction-pyramid LCP instances.

Usage:
    python benchmarks/newton_pyramid.py [--seeds 1 2 3] [--repeats 3] [--families roll slide]
                                        [--min-n 0] [--tool PATH]
    python benchmarks/newton_pyramid.py --summary RESULTS.jsonl

Builds the instances with ``make_peer_instances.py`` (one temporary directory per seed) and prints
one JSON line per instance: family, seed, n, outcome, seconds (median wall time of the solve call
over the repeats), cpu_seconds (median process time: robust to other load on the machine),
iterations, factorizations, pivots (of the Lemke fallback, 0 if unused), residual
``||min(z, M z + q)||_inf`` computed here. ``--summary`` reads such lines and prints a table by
family and n: solved (residual <= 1e-10), median and max times, median and max iterations.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from contactmodel.mcp.types import MCP
from contactmodel.solvers.newton import NewtonOptions, solve

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _paths  # noqa: E402


def run_instance(path: Path, family: str, seed: int, repeats: int) -> dict:
    data = np.load(path)
    M = sp.csr_matrix(data["M"])
    q = np.asarray(data["q"], dtype=float)
    mcp = MCP.from_lcp(M, q)
    times, cpu = [], []
    result = None
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        result = solve(mcp, NewtonOptions())
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    z = result.x
    residual = float(np.max(np.abs(np.minimum(z, M @ z + q)), initial=0.0))
    return {
        "family": family,
        "seed": seed,
        "n": int(q.size),
        "outcome": result.outcome.value,
        "seconds": statistics.median(times),
        "cpu_seconds": statistics.median(cpu),
        "iterations": result.iterations,
        "factorizations": result.extras["factorizations"],
        "pivots": result.extras.get("pivots", 0),
        "residual": residual,
    }


def summary(path: Path) -> None:
    """Print the table of a results file by family and n."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    groups: dict[tuple[str, int], list[dict]] = {}
    for r in rows:
        groups.setdefault((r["family"], r["n"]), []).append(r)
    print("family     n  solved  med ms  max ms  med cpu ms  max cpu ms  med it  max it  unsolved")
    for (family, n), rs in sorted(groups.items()):
        bad = [r["seed"] for r in rs if not (r["outcome"] == "converged" and r["residual"] <= 1e-10)]
        wall = [1e3 * r["seconds"] for r in rs]
        cpu = [1e3 * r.get("cpu_seconds", r["seconds"]) for r in rs]
        its = [r["iterations"] for r in rs]
        print(
            f"{family:6} {n:5d} {len(rs) - len(bad):3d}/{len(rs):<3d} {statistics.median(wall):7.2f} "
            f"{max(wall):7.1f} {statistics.median(cpu):11.2f} {max(cpu):11.1f} "
            f"{statistics.median(its):7.0f} {max(its):7d}  {bad}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--families", nargs="+", default=["roll", "slide", "psdskew"])
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--tool", default=str(_paths.MAKE_INSTANCES), help="the instance generator")
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
            for family in args.families:
                files = sorted(
                    Path(tmp).glob(f"lcp_{family}_n*.npz"),
                    key=lambda p: int(p.stem.rsplit("_n", 1)[1]),
                )
                for path in files:
                    if int(path.stem.rsplit("_n", 1)[1]) < args.min_n:
                        continue
                    print(json.dumps(run_instance(path, family, seed, args.repeats)), flush=True)


if __name__ == "__main__":
    main()
