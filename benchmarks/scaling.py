"""Per-stage seconds and peak memory against the number of contacts, with fitted log-log slopes.

Scene: a row of boxes resting on the ground, four corner contacts each, pushed sideways below the
friction limit (every contact rolling). For each size (default 10, 100, 1000, 10,000 contacts),
friction law (pyramid, SOC cone, MNCP cone) and form (sparse, reduced) one fresh process runs:

- ``assemble``  ``cm.assemble(system)``
- ``formulate`` ``cm.formulate(assembly, friction=law, form=form)``
- ``compile``   ``problem.compile()``
- ``solve``     the solver's own seconds inside ``cm.solve(problem, solver)`` (``Solution.seconds``)
- ``modes``     contact modes and results of the accepted answer (``Solution.timings["verify"]``)
- ``assess``    the rest of the ``cm.solve`` call: MCP and law residuals, physical point, bookkeeping
- ``peak_mb``   the process's peak resident memory (``resource.getrusage``), and ``base_mb`` the
  same after ``import contactmodel`` (so ``peak_mb - base_mb`` is what the problem cost)

The friction law is declared and the formulation's and the solver's modules imported before the
clocks start: first imports (the laws' module, numba for newton's kernels; every module compiled
from source where PYTHONDONTWRITEBYTECODE is set) belong to ``import contactmodel``'s own issue,
not to any stage. So does the first call of newton's compiled kernels, which loads their cached
machine code (0.2-0.5 s once per process with numba installed): one solve of ``WARMUP`` contacts
precedes the clocks, and its seconds are the row's ``warmup``.

The slope of each stage is the least-squares slope of log(seconds) against log(contacts) over the
sizes >= ``--fit-from`` (default 100: at 10 contacts fixed costs dominate, which flatters the fit).

    python benchmarks/scaling.py                                  # all sizes, laws and forms
    python benchmarks/scaling.py --sizes 10 100 1000 --laws pyramid soc --forms sparse
    python benchmarks/scaling.py --plot scaling.png               # log-log plot, one panel per law/form
    python benchmarks/scaling.py --baseline /path/to/other/checkout   # old and new side by side

With ``--baseline`` every configuration runs twice, alternating, once with PYTHONPATH set to that
checkout and once with this one, and both are printed side by side (medians over ``--repeat``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

STAGES = ("assemble", "formulate", "compile", "solve", "assess", "modes")
LAWS = ("pyramid", "soc", "mncp")
FORMS = ("sparse", "reduced")
HERE = Path(__file__).resolve()
WARMUP = 60  #: contacts of the solve before the clocks (enough for newton's sparse path)


def boxes_on_ground(n_contacts: int, friction=None):
    """``n_contacts // 4`` (at least one) 1 kg boxes of side 0.2 m, 0.5 m apart along x, each
    resting on the ground on its four corners and pushed by (1, 0.5, 0) N: the scene of
    ``contactmodel.catalogue.pushed_boxes``, written out here so that ``--baseline`` can run
    checkouts older than that function. ``friction``: None (laws given to ``formulate``) or a
    callable making a new law for each contact, as the README declares them."""
    import contactmodel as cm

    s = cm.System(gravity=(0, 0, -9.81))
    for i in range(max(1, n_contacts // 4)):
        box = s.add_body(
            f"box{i}",
            mass=1.0,
            inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
            position=(0.5 * i, 0, 0.1),
            wrench=(1.0, 0.5, 0, 0, 0, 0),
        )
        for k, (x, y) in enumerate([(0.1, 0.1), (-0.1, 0.1), (-0.1, -0.1), (0.1, -0.1)]):
            law = None if friction is None else friction()
            s.add_contact(
                box, s.ground, point=(0.5 * i + x, y, 0), normal=(0, 0, 1), friction=law, name=f"c{i}_{k}"
            )
    return s


def _law(name: str):
    import contactmodel as cm

    return {
        "pyramid": cm.Pyramid(0.5),
        "soc": cm.CoulombCone(0.5, form="soc"),
        "mncp": cm.CoulombCone(0.5, form="mncp"),
    }[name]


def _rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def run_one(n: int, law: str, form: str, solver: str) -> dict:
    """One configuration in this process: stage seconds, MCP size, status, memory."""
    import contactmodel as cm
    from contactmodel import solvers

    base = _rss_mb()
    system = boxes_on_ground(n)
    friction = _law(law)  # a declaration (its first use imports the laws' module): timed by no stage
    solvers.load(solver)  # importing the solver's module (numba, ...) is no stage either
    formulate = cm.formulate  # nor the first import of contactmodel.formulation
    # nor the first call of newton's compiled kernels (numba loads their cached machine code once
    # per process): one solve of WARMUP contacts, large enough for the sparse path, reported apart
    t0 = time.perf_counter()
    cm.solve(formulate(cm.assemble(boxes_on_ground(WARMUP)), friction=friction, form=form), solver=solver)
    warmup = time.perf_counter() - t0
    wall, cpu = [time.perf_counter()], [time.process_time()]

    def tick() -> None:
        wall.append(time.perf_counter())
        cpu.append(time.process_time())

    asm = cm.assemble(system)
    tick()
    problem = formulate(asm, friction=friction, form=form)
    tick()
    compiled = problem.compile()
    tick()
    sol = cm.solve(problem, solver=solver)
    tick()
    row = {
        "contacts": len(system.contacts),
        "law": law,
        "form": form,
        "mcp_size": compiled.mcp.n,
        "status": sol.status.value,
        "residual": sol.residual,
        "warmup": warmup,
        "base_mb": base,
        "peak_mb": _rss_mb(),
    }
    # inside the cm.solve call, the solver's and the modes' own wall seconds; the rest of the call
    # is the assessment. CPU seconds (``cpu_*``) of the stages outside the call, which are less
    # disturbed by other processes on a shared machine.
    solve, modes, call = sol.seconds, sol.timings.get("verify", 0.0), wall[4] - wall[3]
    row.update(
        {
            "assemble": wall[1] - wall[0],
            "formulate": wall[2] - wall[1],
            "compile": wall[3] - wall[2],
            "solve": solve,
            "assess": call - sol.timings.get("compile", 0.0) - solve - modes,
            "modes": modes,
            "call": call,
            "cpu_assemble": cpu[1] - cpu[0],
            "cpu_formulate": cpu[2] - cpu[1],
            "cpu_compile": cpu[3] - cpu[2],
            "cpu_call": cpu[4] - cpu[3],
        }
    )
    return row


def _spawn(pythonpath: str, n: int, law: str, form: str, solver: str) -> dict:
    env = {**os.environ, "PYTHONPATH": pythonpath, "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, str(HERE), "--one", str(n), law, form, "--solver", solver]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(runs: list[dict]) -> dict:
    row = dict(runs[0])
    for key in runs[0]:
        if isinstance(runs[0][key], float) and key != "residual":
            row[key] = statistics.median(r[key] for r in runs)
    return row


def slope(sizes: list[float], seconds: list[float]) -> float:
    """Least-squares slope of log(seconds) on log(sizes) (nan with fewer than two points)."""
    import numpy as np

    x, y = np.log(np.asarray(sizes, float)), np.log(np.maximum(np.asarray(seconds, float), 1e-7))
    return float(np.polyfit(x, y, 1)[0]) if len(x) >= 2 else float("nan")


def _table(label: str, rows: list[dict], fit_from: int) -> None:
    print(f"\n== {label}")
    print(
        f"{'contacts':>8} {'n':>6} "
        + " ".join(f"{s:>9}" for s in STAGES)
        + f" {'f+c+s':>7} {'peak MB':>8} {'cpu f':>7} {'cpu c':>7}  status"
    )
    for r in rows:
        fcs = r["formulate"] + r["compile"] + r["solve"]
        print(
            f"{r['contacts']:>8} {r['mcp_size']:>6} "
            + " ".join(f"{r[s]:>9.4f}" for s in STAGES)
            + f" {fcs:>7.3f} {r['peak_mb']:>8.0f}"
            + f" {r['cpu_formulate']:>7.3f} {r['cpu_compile']:>7.3f}  {r['status']}"
        )
    fit = [r for r in rows if r["contacts"] >= fit_from]
    print(
        f"{'slope':>15} "
        + " ".join(f"{slope([r['contacts'] for r in fit], [r[s] for r in fit]):>9.2f}" for s in STAGES)
        + f"   (fit over contacts >= {fit_from})"
    )


def plot(results: dict[tuple[str, str, str], list[dict]], path: str, fit_from: int) -> None:
    """One log-log panel per (law, form): each stage's seconds against contacts, slope in the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted({(law, form) for (_who, law, form) in results})
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 4), squeeze=False, sharey=True)
    for ax, (law, form) in zip(axes[0], keys):
        for (who, lw, fm), rows in sorted(results.items()):
            if (lw, fm) != (law, form):
                continue
            style = "--" if who == "baseline" else "-"
            fit = [r for r in rows if r["contacts"] >= fit_from]
            for k, stage in enumerate(STAGES):
                k_slope = slope([r["contacts"] for r in fit], [r[stage] for r in fit])
                ax.loglog(
                    [r["contacts"] for r in rows],
                    [max(r[stage], 1e-6) for r in rows],
                    style,
                    marker="o",
                    color=f"C{k}",
                    label=f"{who} {stage} ({k_slope:.2f})",
                )
        ax.set_title(f"{law}, {form} form")
        ax.set_xlabel("contacts")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
    axes[0][0].set_ylabel("seconds")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"\nplot: {path}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--laws", nargs="+", choices=LAWS, default=list(LAWS))
    parser.add_argument("--forms", nargs="+", choices=FORMS, default=list(FORMS))
    parser.add_argument("--solver", default="newton")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (median)")
    parser.add_argument("--fit-from", type=int, default=100, help="smallest size in the slope fit")
    parser.add_argument("--baseline", help="another checkout to run side by side (alternating)")
    parser.add_argument("--plot", help="write a log-log PNG here")
    parser.add_argument("--json", help="write every result here (JSON lines)")
    parser.add_argument("--one", nargs=3, metavar=("N", "LAW", "FORM"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(int(args.one[0]), args.one[1], args.one[2], args.solver)))
        return
    this = str(HERE.parent.parent)
    checkouts = [("new", this)] if not args.baseline else [("baseline", args.baseline), ("new", this)]
    results: dict[tuple[str, str, str], list[dict]] = {}
    for law in args.laws:
        for form in args.forms:
            for n in args.sizes:
                runs: dict[str, list[dict]] = {who: [] for who, _ in checkouts}
                for _ in range(args.repeat):
                    for who, path in checkouts:  # alternating
                        runs[who].append(_spawn(path, n, law, form, args.solver))
                for who, _ in checkouts:
                    row = _median(runs[who])
                    results.setdefault((who, law, form), []).append(row)
                    print(json.dumps({"checkout": who, **row}), flush=True)
    for (who, law, form), rows in results.items():
        _table(f"{who}: {law}, {form} form, solver {args.solver}", rows, args.fit_from)
    if args.json:
        with open(args.json, "w") as fh:
            for (who, _law, _form), rows in results.items():
                for r in rows:
                    fh.write(json.dumps({"checkout": who, **r}) + "\n")
    if args.plot:
        plot(results, args.plot, args.fit_from)


if __name__ == "__main__":
    main()
