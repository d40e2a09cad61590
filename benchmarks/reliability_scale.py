"""Scale cases of the reliability issue: many independent boxes, and the pyramid at 1000 contacts.

Usage:
    python benchmarks/reliability_scale.py [--boxes 1000] [--seed 1] [--cases cone-soc cone-mncp ...]
                                           [--repeat 1] [--time-limit 600]

Cases (each box a random size and mass on four corner contacts, at rest or sliding with a random
horizontal velocity, with a random external wrench or none; boxes 10 m apart, so every box is an
independent block of the MCP):

* ``cone-soc``: ``--boxes`` boxes, ``CoulombCone(0.5, form="soc")``, reduced form;
* ``cone-mncp``: the same with the MNCP form (``form="mncp"``);
* ``polygon-sparse``: ``--boxes`` boxes, ``Polygonal(0.5, 8)``, sparse form;
* ``pyramid-1000``: 250 boxes (1000 contacts), ``Pyramid(0.5)``, reduced form.

Each case is solved by ``newton`` with the blocks solved separately (``decouple=True``, the
default) and as one system (``decouple=False``), alternating, ``--repeat`` times; the table has
the status, the residual, the number of blocks and the median seconds of formulate (with
compile) and solve.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contactmodel as cm  # noqa: E402

CASES = {
    "cone-soc": (lambda: cm.CoulombCone(0.5, form="soc"), "reduced", None),
    "cone-mncp": (lambda: cm.CoulombCone(0.5, form="mncp"), "reduced", None),
    "polygon-sparse": (lambda: cm.Polygonal(0.5, 8), "sparse", None),
    "pyramid-1000": (lambda: cm.Pyramid(0.5), "reduced", 250),
}
CORNERS = ((0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5))


def boxes(n: int, law, seed: int) -> cm.System:
    """``n`` independent random boxes on four corner contacts each (see the module docstring)."""
    rng = np.random.default_rng(seed)
    s = cm.System()
    for i in range(n):
        size = rng.uniform(0.2, 2.0, 3)
        mass = float(rng.uniform(0.5, 5.0))
        v = np.zeros(3) if rng.random() < 0.5 else np.append(rng.uniform(-2, 2, 2), 0.0)
        wrench = np.zeros(6) if rng.random() < 0.5 else rng.uniform(-1, 1, 6) * mass * 9.81 * 0.3
        x = 10.0 * i
        s.add_body(
            f"b{i}", mass, cm.inertia.box(mass, size), position=[x, 0, size[2] / 2], velocity=v, wrench=wrench
        )
        for j, (dx, dy) in enumerate(CORNERS):
            point = [x + dx * size[0], dy * size[1], 0.0]
            s.add_contact(f"b{i}", "ground", point, [0, 0, 1], friction=law(), name=f"b{i}c{j}")
    return s


def run_case(name: str, n_boxes: int, seed: int, repeat: int, time_limit: float) -> list[str]:
    make, form, fixed = CASES[name]
    n = fixed or n_boxes
    rows = {True: [], False: []}
    facts: dict[bool, tuple] = {}
    for _ in range(repeat):
        for decouple in (True, False):
            t0 = time.perf_counter()
            problem = cm.formulate(boxes(n, make, seed), form=form)
            problem.compile()
            t1 = time.perf_counter()
            sol = cm.solve(problem, solver="newton", decouple=decouple, time_limit=time_limit)
            t2 = time.perf_counter()
            rows[decouple].append((t1 - t0, t2 - t1))
            facts[decouple] = (sol.status.value, sol.residual, sol.extras.get("blocks", 1), sol.iterations)
    out = []
    for decouple in (True, False):
        status, residual, blocks, its = facts[decouple]
        form_s = statistics.median(r[0] for r in rows[decouple])
        solve_s = statistics.median(r[1] for r in rows[decouple])
        out.append(
            f"{name:<15}{n:>6}{4 * n:>9}  {'blocks' if decouple else 'joint':<7}{status:<19}{residual:>9.1e}"
            f"{blocks:>7}{its:>6}{form_s:>10.2f}{solve_s:>10.2f}"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boxes", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per newton run")
    args = ap.parse_args(argv)
    print(
        f"{'case':<15}{'boxes':>6}{'contacts':>9}  {'newton':<7}{'status':<19}{'residual':>9}"
        f"{'blocks':>7}{'iter':>6}{'form (s)':>10}{'solve (s)':>10}"
    )
    for name in args.cases:
        for line in run_case(name, args.boxes, args.seed, args.repeat, args.time_limit):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
