"""Benchmark the Newton solver on the shared seeded Coulomb-cone (fc3d) instances.

Usage:
    python benchmarks/newton_cone.py [--seeds 1 2 3] [--contacts 5 20 100 400] [--tool PATH]

Builds the instances with ``make_peer_instances.py`` (one temporary directory per seed), forms the
seed's MNCP with ``cm.formulate_from_matrices(W, q, mu=mu)`` (all contacts rolling) and prints one
JSON line per instance: seed, contacts, status, residual (the dispatcher's relative natural-map
residual), seconds (solve call), iterations and the solver's message.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import contactmodel as cm

DEFAULT_TOOL = "/work/shared/tools/make_peer_instances.py"


def run_instance(path: Path, seed: int) -> dict:
    """Solve one fc3d instance with ``newton`` and describe the result."""
    data = np.load(path)
    problem = cm.formulate_from_matrices(data["W"], data["q"], mu=data["mu"])
    sol = cm.solve(problem, solver="newton")
    return {
        "seed": seed,
        "contacts": int(data["mu"].size),
        "status": sol.status.value,
        "residual": sol.residual,
        "seconds": sol.timings.get("solve", sol.seconds),
        "iterations": sol.iterations,
        "message": sol.message,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1])
    ap.add_argument("--contacts", type=int, nargs="+", default=[5, 20, 100, 400])
    ap.add_argument("--tool", default=DEFAULT_TOOL)
    args = ap.parse_args()
    for seed in args.seeds:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, args.tool, tmp, "--seed", str(seed)],
                check=True,
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
            )
            for nc in args.contacts:
                print(json.dumps(run_instance(Path(tmp) / f"fc3d_c{nc}.npz", seed)), flush=True)


if __name__ == "__main__":
    main()
