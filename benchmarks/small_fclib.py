"""The whole ``cm.solve`` call on small FCLIB files, CPU time: the fixed cost around the solver.

Each file of ``tests/data/fclib`` named on the command line (default: two of 4 and 31 contacts) is
read, scaled and formulated as ``benchmarks/fclib_bench.py`` does (``CoulombCone(mu, form="soc")``
contacts), solved once, then solved ``--calls`` times again with newton at ``accept_tol`` 1e-8:
the median CPU time of the whole call and of the solver inside it
(``Solution.extras["cpu_seconds"]``). Then the first call on ``--calls / 10`` problems formulated
afresh: its median CPU time, and the medians of its compile, solver and modes-and-results parts
(``Solution.timings["compile"]`` and ``["verify"]`` are wall times).

Run against another source tree of the package to compare (the same command, alternating):

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/small_fclib.py
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=/tmp/before python benchmarks/small_fclib.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DATA = HERE.parent / "tests" / "data" / "fclib"
FILES = ["Confeti-ex13-4contact-Fc3D-SBM.dat", "Box_Stacks-i0035-31-0.hdf5"]


def call_times(name: str, calls: int) -> dict:
    """Status, iterations and the median CPU ms of the whole call and of the solver."""
    import fclib_bench as fb

    import contactmodel as cm

    loc = fb.read_any(DATA / name).to_local()
    s_w, s_q = fb.scales(loc)
    scaled = replace(loc, W=loc.W / s_w, q=loc.q / s_q)
    problem = fb.to_problem(scaled, friction=fb.laws(loc.mu, "soc", "auto"))
    first = cm.solve(problem, accept_tol=1e-8)
    whole, solver = [], []
    for _ in range(calls):
        c0 = time.process_time()
        sol = cm.solve(problem, accept_tol=1e-8)
        whole.append(time.process_time() - c0)
        solver.append(sol.extras["cpu_seconds"])
    # first calls, each on a problem formulated afresh (as fclib_bench.py times them), split into
    # the compile, the solver and the verification (modes and results) inside them
    fresh = [
        fb.to_problem(scaled, friction=fb.laws(loc.mu, "soc", "auto")) for _ in range(max(1, calls // 10))
    ]
    parts: dict[str, list[float]] = {"first": [], "compile": [], "solver": [], "verify": []}
    for problem in fresh:
        c0 = time.process_time()
        sol = cm.solve(problem, accept_tol=1e-8)
        parts["first"].append(time.process_time() - c0)
        parts["compile"].append(sol.timings["compile"])  # wall time, as the dispatcher records it
        parts["solver"].append(sol.extras["cpu_seconds"])
        parts["verify"].append(sol.timings.get("verify", 0.0))  # wall time
    return {
        "contacts": loc.nc,
        "status": first.status.name,
        "iterations": first.iterations,
        "call_ms": 1e3 * statistics.median(whole),
        "solver_ms": 1e3 * statistics.median(solver),
        **{f"first_{k}_ms": 1e3 * statistics.median(v) for k, v in parts.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=FILES, help="file names in tests/data/fclib")
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    import contactmodel

    print(f"# contactmodel from {Path(contactmodel.__file__).parent}")
    for name in args.files:
        r = call_times(name, args.calls)
        print(
            f"{name} ({r['contacts']} contacts) {r['status']} in {r['iterations']} iterations: call "
            f"median {r['call_ms']:.3f} ms, solver median {r['solver_ms']:.3f} ms (CPU); first call "
            f"{r['first_first_ms']:.3f} ms: compile {r['first_compile_ms']:.3f}, solver "
            f"{r['first_solver_ms']:.3f}, modes and results {r['first_verify_ms']:.3f} ms"
        )


if __name__ == "__main__":
    main()
