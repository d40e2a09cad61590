"""Scale benchmark of cm.simulate: a pile of boxes (or a grid of single boxes) dropped on the floor.

``--scene pile`` (default): n cubes in columns of 4 (benchmarks/simulate_peer.py ``pile``),
dropped 1 cm: floor and box-box contacts appear, the columns land and settle (100 cubes: 400
contacts once settled). ``--scene boxes``: n single cubes on a grid, 4 floor contacts each.
Reports steps per second (wall and CPU time), the contacts, and the split of the time per step between contact
generation, model update (the step's assembly and, when the contact set is unchanged, the new b
and compiled matrix), model build (Pyomo formulation, when the contact set changed) and solve
(cm.solve: compile update + solver + verification), the solver's own share, and the largest
one-step energy rise. The same scene in Siconos: benchmarks/simulate_peer.py --scenes pile.

    python benchmarks/simulate_scale.py --boxes 100 --t-end 1.0 --dt 1e-3 --solver newton
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import contactmodel as cm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from simulate_peer import scenes, system_of  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, default=100)
    parser.add_argument("--scene", default="pile", choices=["pile", "boxes"])
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--solver", default="newton")
    parser.add_argument("--friction", default="pyramid:0.5")
    args = parser.parse_args()
    from contactmodel.friction.spec import parse_friction

    (scene,) = scenes([args.scene], args.boxes, args.t_end)
    system, planes = system_of(scene)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        traj = cm.simulate(
            system,
            args.t_end,
            args.dt,
            friction=parse_friction(args.friction),
            solver=args.solver,
            planes=planes,
            keep_steps=False,
        )
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n = traj.n_steps
    active = [int(sum(~np.isnan(v[k, 0]) for v in traj.impulses.values())) for k in range(n)]
    print(
        f"{scene['name']}: {n} steps of {args.dt:g} s in {wall:.1f} s: {n / wall:.2f} steps/s; "
        f"contacts at the end {active[-1] if active else 0} (most {max(active, default=0)}); "
        f"all solved: {traj.ok}; CPU {1e3 * cpu / max(n, 1):.1f} ms/step ({n / cpu:.2f} steps per CPU second)"
    )
    total = sum(np.sum(v) for v in traj.timings.values())
    for key, val in traj.timings.items():
        print(f"  {key:<9} {1e3 * np.mean(val):8.2f} ms/step  {100 * np.sum(val) / total:5.1f} %")
    print(
        f"  solver's own time {1e3 * np.mean(traj.seconds):.2f} ms/step; iterations mean "
        f"{np.mean(traj.iterations):.1f}; models reused {int(traj.reused.sum())}/{n}; "
        f"largest energy rise {np.max(np.diff(traj.energy), initial=0.0):.2e} J"
    )


if __name__ == "__main__":
    main()
