"""The fixed cost of small problems: a 4-contact solve and a one-box simulation step, CPU time.

- ``solve``: re-solves of the box of ``examples/box_push.py`` (a 3 kg cube on four corner
  contacts, pushed sideways below the friction limit) with newton, friction
  ``CoulombCone(0.5, form="soc")`` (cone) and ``Pyramid(0.5)`` (pyramid): the CPU time of the
  whole ``cm.solve`` call and of the solver inside it (``Solution.extras["cpu_seconds"]``), per
  call, min and median of ``--calls`` calls after one warm-up solve.
- ``simulate``: ``cm.simulate`` of the sliding cube of ``benchmarks/simulate_peer.py`` (scene
  ``box_slide``: 1 m/s along x, mu = 0.5, dt = 1e-3, ``--t-end`` s, all steps with four contacts),
  CPU time per step of the whole run, min and median of ``--runs`` runs after a short warm-up run,
  and the run's mean split per step (contact generation, update, solve; wall time).

Run against another source tree of the package to compare (the same command, alternating):

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/small_problems.py
    OPENBLAS_NUM_THREADS=1 PYTHONPATH=/tmp/before python benchmarks/small_problems.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "examples"))


def _law(name: str):
    import contactmodel as cm

    return cm.CoulombCone(0.5, form="soc") if name == "cone" else cm.Pyramid(0.5)


def solve_times(law: str, calls: int) -> dict:
    """CPU ms of the whole call and of the solver, min and median over ``calls`` re-solves."""
    import box_push

    import contactmodel as cm

    problem = cm.formulate(box_push.build(), friction=_law(law))
    first = cm.solve(problem, solver="newton")
    whole, solver = [], []
    for _ in range(calls):
        c0 = time.process_time()
        sol = cm.solve(problem, solver="newton")
        whole.append(time.process_time() - c0)
        solver.append(sol.extras["cpu_seconds"])
    return {
        "status": first.status.name,
        "iterations": first.iterations,
        "call_ms": (1e3 * min(whole), 1e3 * statistics.median(whole)),
        "solver_ms": (1e3 * min(solver), 1e3 * statistics.median(solver)),
    }


def simulate_times(law: str, runs: int, t_end: float) -> dict:
    """CPU ms per step of a whole ``cm.simulate`` run, min and median over ``runs`` runs."""
    import simulate_peer

    scene = dict(simulate_peer.scenes(["box_slide"], 1, None)[0], t_end=t_end)
    simulate_peer.ours(dict(scene, t_end=0.01), 1e-3, law)  # imports and compiled kernels
    per_step, last = [], None
    for _ in range(runs):
        last = simulate_peer.ours(scene, 1e-3, law)
        per_step.append(1e3 * last["cpu"] / last["steps"])
    return {
        "steps": last["steps"],
        "failed_step": last["failed_step"],
        "residual_max": last["residual_max"],
        "step_ms": (min(per_step), statistics.median(per_step)),
        "split_ms": {k: round(1e3 * v, 3) for k, v in last["timings"].items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--laws", nargs="+", default=["cone", "pyramid"], choices=["cone", "pyramid"])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--t-end", type=float, default=0.1)
    parser.add_argument("--only", choices=["solve", "simulate"])
    args = parser.parse_args()
    import contactmodel

    print(f"# contactmodel from {Path(contactmodel.__file__).parent}")
    for law in args.laws:
        if args.only != "simulate":
            r = solve_times(law, args.calls)
            print(
                f"solve    {law:8s} {r['status']} in {r['iterations']} iterations: call min "
                f"{r['call_ms'][0]:.3f} median {r['call_ms'][1]:.3f} ms, solver min {r['solver_ms'][0]:.3f} "
                f"median {r['solver_ms'][1]:.3f} ms (CPU)"
            )
        if args.only != "solve":
            r = simulate_times(law, args.runs, args.t_end)
            print(
                f"simulate {law:8s} {r['steps']} steps (failed step {r['failed_step']}, largest residual "
                f"{r['residual_max']:.1e}): min {r['step_ms'][0]:.3f} median {r['step_ms'][1]:.3f} "
                f"ms CPU per step; split (wall ms) {r['split_ms']}"
            )


if __name__ == "__main__":
    main()
