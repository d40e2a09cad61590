"""Benchmark the Newton solver on the shared seeded friction-pyramid LCP instances.

Usage:
    python benchmarks/newton_pyramid.py [--seeds 1 2 3] [--repeats 3] [--families roll slide]
                                        [--min-n 0] [--tool PATH]

Builds the instances with ``make_peer_instances.py`` (one temporary directory per seed) and prints
one JSON line per instance: family, seed, n, outcome, seconds (median wall time of the solve call
over the repeats), iterations, factorizations, residual ``||min(z, M z + q)||_inf`` computed here.
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

DEFAULT_TOOL = "/work/shared/tools/make_peer_instances.py"


def run_instance(path: Path, family: str, seed: int, repeats: int) -> dict:
    data = np.load(path)
    M = sp.csr_matrix(data["M"])
    q = np.asarray(data["q"], dtype=float)
    mcp = MCP.from_lcp(M, q)
    times = []
    result = None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = solve(mcp, NewtonOptions())
        times.append(time.perf_counter() - t0)
    z = result.x
    residual = float(np.max(np.abs(np.minimum(z, M @ z + q)), initial=0.0))
    return {
        "family": family,
        "seed": seed,
        "n": int(q.size),
        "outcome": result.outcome.value,
        "seconds": statistics.median(times),
        "iterations": result.iterations,
        "factorizations": result.extras["factorizations"],
        "residual": residual,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--families", nargs="+", default=["roll", "slide", "psdskew"])
    ap.add_argument("--min-n", type=int, default=0)
    ap.add_argument("--tool", default=DEFAULT_TOOL)
    args = ap.parse_args()
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
