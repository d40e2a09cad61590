"""The fixed cost of small problems: a 4-contact solve and a one-body simulation step, CPU time.

- ``solve``: re-solves of the box of ``examples/box_push.py`` (a 3 kg cube on four corner
  contacts, pushed sideways below the friction limit) with newton, friction ``--laws`` (names of
  ``simulate_peer.LAWS``: ``cone`` = ``CoulombCone(0.5, form="soc")``, ``pyramid`` =
  ``Pyramid(0.5)``, ``polygon8``, ``cone_mncp``, ``aniso``, ``aniso_mncp``, ``ellipsoid``,
  ``ellipsoid_mncp``, ``elltor``, ``elltor_mncp``; the last four with torsion contacts): the CPU
  time of the whole ``cm.solve`` call and of the solver inside it
  (``Solution.extras["cpu_seconds"]``), per call, min and median of ``--calls`` calls after one
  warm-up solve.
- ``simulate``: ``cm.simulate`` of the one-body ``--scenes`` of ``benchmarks/simulate_peer.py``
  (default ``box_slide``: a cube sliding at 1 m/s along x, mu = 0.5, four contacts every step;
  also ``box_incline``, ``sphere_bowl``, ``sphere_incline``), dt = 1e-3, ``--t-end`` s: CPU time
  per step of the whole run, min and median of ``--runs`` runs after one unmeasured run, and the
  run's mean split per step (contact generation, update, solve; wall time) and its steps that
  went through the fallback ladder.

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

from simulate_peer import LAWS  # noqa: E402  (benchmarks/ on the path first)

#: the one-body scenes of benchmarks/simulate_peer.py
SCENES = ["box_slide", "box_incline", "sphere_bowl", "sphere_incline"]


def solve_times(law: str, calls: int) -> dict:
    """CPU ms of the whole call and of the solver, min and median over ``calls`` re-solves."""
    import box_push
    import simulate_peer

    import contactmodel as cm

    problem = cm.formulate(box_push.build(), friction=simulate_peer.our_law(law, 0.5))
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


def simulate_times(law: str, runs: int, t_end: float, scene_name: str = "box_slide") -> dict:
    """CPU ms per step of a whole ``cm.simulate`` run, min and median over ``runs`` runs after
    one run unmeasured (imports, and the compiled kernels the run calls)."""
    import simulate_peer

    scene = dict(simulate_peer.scenes([scene_name], 1, None)[0], t_end=t_end)
    simulate_peer.ours(scene, 1e-3, law)
    per_step, last = [], None
    for _ in range(runs):
        last = simulate_peer.ours(scene, 1e-3, law)
        per_step.append(1e3 * last["cpu"] / last["steps"])
    return {
        "steps": last["steps"],
        "failed_step": last["failed_step"],
        "residual_max": last["residual_max"],
        "retried": last["retried"],
        "step_ms": (min(per_step), statistics.median(per_step)),
        "split_ms": {k: round(1e3 * v, 3) for k, v in last["timings"].items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--laws", nargs="+", default=["cone", "pyramid"], choices=sorted(LAWS))
    parser.add_argument("--scenes", nargs="+", default=["box_slide"], choices=SCENES)
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
        for scene in args.scenes if args.only != "solve" else ():
            r = simulate_times(law, args.runs, args.t_end, scene)
            print(
                f"simulate {law:8s} {scene:14s} {r['steps']} steps (failed step {r['failed_step']}, largest "
                f"residual {r['residual_max']:.1e}, {r['retried']} through the fallback): min "
                f"{r['step_ms'][0]:.3f} median {r['step_ms'][1]:.3f} ms CPU per step; split (wall ms) "
                f"{r['split_ms']}"
            )


if __name__ == "__main__":
    main()
