"""Scale benchmark of cm.simulate: n boxes dropped onto the floor (4 contacts each once landed).

Boxes stand on a grid, tilted at random by about 0.02 rad and spinning slowly, their lowest
corner 0.5 mm above the floor, so contacts appear, the boxes land and settle. Reports steps per
second and the split of the time per step between contact generation, model update (assembly
of the step and, when the contact set and A are unchanged, the new b), model build (Pyomo
formulation, when rebuilt) and solve (compile + solver + verification, as cm.solve does them).
Box-box contact generation is not implemented, so the boxes are not stacked.

    python benchmarks/simulate_scale.py --boxes 100 --t-end 1.0 --dt 1e-3 --solver newton
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.shapes import Box
from contactmodel.simulation.collision import box_vertices


def scene(n: int, seed: int = 0) -> cm.System:
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    system = cm.System()
    for k in range(n):
        i, j = divmod(k, side)
        R = Rotation.from_rotvec(rng.normal(scale=0.02, size=3)).as_matrix()
        lowest = box_vertices((0.2, 0.2, 0.2), np.zeros(3), R)[:, 2].min()
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
            position=(0.3 * i, 0.3 * j, 5e-4 - lowest),
            orientation=R,
            angular_velocity=rng.normal(scale=0.2, size=3),
            shape=Box((0.2, 0.2, 0.2)),
        )
    return system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boxes", type=int, default=100)
    parser.add_argument("--t-end", type=float, default=1.0)
    parser.add_argument("--dt", type=float, default=1e-3)
    parser.add_argument("--solver", default="newton")
    parser.add_argument("--friction", default="pyramid:0.5")
    args = parser.parse_args()
    from contactmodel.friction.spec import parse_friction

    system = scene(args.boxes)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        traj = cm.simulate(
            system,
            args.t_end,
            args.dt,
            friction=parse_friction(args.friction),
            solver=args.solver,
            planes=[cm.Plane()],
            keep_steps=False,
        )
    wall = time.perf_counter() - t0
    n = traj.n_steps
    contacts = max(
        (int(np.sum([~np.isnan(v[k, 0]) for v in traj.impulses.values()])) for k in range(n)), default=0
    )
    print(
        f"{args.boxes} boxes, up to {contacts} contacts, {n} steps of {args.dt:g} s in {wall:.1f} s: "
        f"{n / wall:.2f} steps/s; all solved: {traj.ok}"
    )
    total = sum(np.sum(v) for v in traj.timings.values())
    for key, val in traj.timings.items():
        print(f"  {key:<9} {1e3 * np.mean(val):8.2f} ms/step  {100 * np.sum(val) / total:5.1f} %")
    print(
        f"  models reused {int(traj.reused.sum())}/{n}; "
        f"largest energy rise {np.max(np.diff(traj.energy)):.2e} J"
    )


if __name__ == "__main__":
    main()
