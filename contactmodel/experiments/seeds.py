"""The reproduced experiments: task lists, reports, and one entry point per experiment.

``trinkle1997-table1``  Trinkle, Pang, Sudarsky, Lo, "On Dynamic Multi-Rigid-Body Contact Problems
                        with Coulomb Friction", ZAMM 77(4), 1997, §6 Table 1: random multi-box
                        problems under the friction pyramid, as many data sets per LCP size as the
                        paper (185 of its 328), 10 mu values per generated problem; Lemke (defaults;
                        and "lemke-100": the paper's 100 pivots per start), FIP (the paper's 300
                        iterations) and newton.
``andreani2002-scara``  Andreani, Friedlander, Mello, Santos, "Complementarity and equivalent
                        formulations via nonlinear programming: numerical results on multi-rigid-body
                        contact problems with Coulomb friction", 2002, §4: 200 SCARA data sets
                        (b in [-5, 5]^6, seeds 0..199), all sliding (LCP of size 2) and all rolling
                        (Coulomb cone MNCP / pyramid LCP); ipopt (MNCPOpt / LCPOpt), newton, and
                        lemke on the LCPs.
``trinkle1997-rod-cube`` Trinkle, Pang, "Dynamic Multi-Rigid-Body Systems with Concurrent Distributed
                        Contacts", IEEE ICRA 1997, §4.1 Example 1: the 20 x 20 (mu1, mu2) grid at
                        zeta = 2 and zeta = 0, newton and ipopt; Figure 3 as heat maps of |a_t| at
                        contact 2.

The former names ``seed000-table1``, ``seed001-scara`` and ``seed002-example1`` are accepted as
aliases. Each writes ``runs.sqlite`` (every run), ``summary.json`` and ``summary.csv`` (a list of row
objects, the paper's numbers beside ours under ``paper_*`` keys) and PNG figures into the output folder.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contactmodel.compare import Comparison, warm_up
from contactmodel.errors import ContactModelError, UnknownNameError, did_you_mean
from contactmodel.experiments import reports
from contactmodel.experiments.generators import MU_GRID, SCARA_IPOPT_INTERIOR, rod_cube_grid, table1_instances
from contactmodel.experiments.runner import DECIDE, Store, Task, run

STORE = "runs.sqlite"


class RunsFailedError(ContactModelError):
    """Every run of an experiment raised (e.g. a model file missing from an installed copy)."""


TABLE1 = "trinkle1997-table1"
SCARA = "andreani2002-scara"
ROD_CUBE = "trinkle1997-rod-cube"
#: the names the experiments had before they were named after their papers
ALIASES = {"seed000-table1": TABLE1, "seed001-scara": SCARA, "seed002-example1": ROD_CUBE}
DEFAULT_TIME_LIMIT = 60.0


def _interleave(groups: list[list[dict]]) -> list[dict]:
    out = []
    for i in range(max((len(g) for g in groups), default=0)):
        out.extend(g[i] for g in groups if i < len(g))
    return out


def _seed000_instances() -> list[dict]:
    by_size: dict[int, list[dict]] = {}
    for inst in table1_instances({size: row[0] for size, row in reports.PAPER_TABLE1.items()}):
        by_size.setdefault(inst["size"], []).append(inst)
    return _interleave(list(by_size.values()))


SEED000_SOLVERS = (
    ("lemke", "lemke", {}),
    ("lemke-100", "lemke", {"max_pivots": 100}),
    ("fip", "fip", {}),
    ("newton", "newton", {}),
)


#: seconds of a ``cm.decide`` run per data set (its MILP gets 40 %, the LP bounds 10 %)
DECIDE_TIME_LIMIT = 300.0


def seed000_tasks(limit: int | None, time_limit: float | None) -> list[Task]:
    instances = _seed000_instances()[:limit]
    decide_limit = max(DECIDE_TIME_LIMIT, time_limit or 0.0)
    decide = {"uniqueness": False, "time_limit": 0.4 * decide_limit}
    return [
        Task(inst, solver, "pyramid", settings, time_limit, TABLE1, label)
        for inst in instances
        for label, solver, settings in SEED000_SOLVERS
    ] + [Task(inst, DECIDE, "pyramid", decide, decide_limit, TABLE1, DECIDE) for inst in instances]


def seed000_report(rows: list[dict], out: Path) -> list[dict]:
    summary = reports.table1(rows)
    reports.table1_figure(summary, out / f"{TABLE1}_solved.png")
    return summary


#: (sliding, friction, ((label, solver, settings), ...)); "ipopt interior" starts Ipopt inside the
#: bounds (generators.SCARA_IPOPT_INTERIOR), "ipopt" from the model's x = 0
_PLAIN = (("newton", "newton", {}), ("lemke", "lemke", {}))
_IPOPT = (("ipopt", "ipopt", {}), ("ipopt interior", "ipopt", SCARA_IPOPT_INTERIOR))
SEED001_VARIANTS = (
    (True, "cone", (_IPOPT[0], *_PLAIN)),
    (False, "cone", (*_IPOPT, _PLAIN[0])),
    (False, "pyramid", (*_IPOPT, *_PLAIN)),
)


def seed001_tasks(limit: int | None, time_limit: float | None) -> list[Task]:
    seeds = range(200 if limit is None else min(limit, 200))
    return [
        Task(
            {"family": "scara", "seed": s, "sliding": sliding},
            solver,
            friction,
            settings,
            time_limit,
            SCARA,
            label,
        )
        for s in seeds
        for sliding, friction, solvers in SEED001_VARIANTS
        for label, solver, settings in solvers
    ]


def seed001_report(rows: list[dict], out: Path) -> list[dict]:
    reports.residual_histogram(rows, out / f"{SCARA}_residuals.png")
    return reports.scara(rows)


def seed002_tasks(limit: int | None, time_limit: float | None) -> list[Task]:
    grids = [rod_cube_grid(2.0), rod_cube_grid(0.0)]
    if limit is not None:
        per = max(1, -(-limit // 2))
        grids = [g[:: max(1, len(g) // per)][:per] for g in grids]
    cells = _interleave(grids)[:limit]
    return [
        Task(cell, solver, "model", {}, time_limit, ROD_CUBE, solver)
        for cell in cells
        for solver in ("newton", "ipopt")
    ]


def seed002_report(rows: list[dict], out: Path) -> list[dict]:
    return reports.example1(rows, out, prefix=ROD_CUBE)


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    tasks: Callable[[int | None, float | None], list[Task]]
    report: Callable[[list[dict], Path], list[dict]]
    columns: tuple[str, ...]  # the summary keys of the printed table (all are in summary.json/.csv)


EXPERIMENTS: dict[str, Experiment] = {
    e.name: e
    for e in (
        Experiment(
            TABLE1,
            "Trinkle, Pang, Sudarsky, Lo 1997, Table 1: Lemke, FIP, newton on random multi-box LCPs",
            seed000_tasks,
            seed000_report,
            (
                "size",
                "data_sets",
                "lemke_frac_solved",
                "lemke_ave_iter",
                "fip_frac_solved",
                "fip_ave_iter",
                "newton_frac_solved",
                "any_frac_solved",
                "proven_unsolvable",
                "no_solution_below_bound",
                "undecided",
            ),
        ),
        Experiment(
            SCARA,
            "Andreani, Friedlander, Mello, Santos 2002, §4: SCARA grasp; MNCPOpt/LCPOpt, newton, lemke",
            seed001_tasks,
            seed001_report,
            (
                "family",
                "friction",
                "solver",
                "data_sets",
                "solved",
                "cpu_avg",
                "colinear_cp1",
                "colinear_cp2",
                "comparison",
                "both_solved",
                "agree_cp1",
                "agree_cp2",
            ),
        ),
        Experiment(
            ROD_CUBE,
            "Trinkle, Pang 1997, §4.1 Example 1: (mu1, mu2) grid, |a_t| at contact 2, zeta = 2 and 0",
            seed002_tasks,
            seed002_report,
            ("zeta", "solver", "data_sets", "solved", "hump_at_min", "hump_at_max", "hump_sliding"),
        ),
    )
}


def resolve(name: str) -> Experiment:
    """The experiment called ``name`` (or by its former name, see :data:`ALIASES`)."""
    name = ALIASES.get(name, name)
    if name not in EXPERIMENTS:
        raise UnknownNameError(
            f"unknown experiment {name!r}{did_you_mean(name, [*EXPERIMENTS, 'profile'])}; choose one of "
            f"{sorted(EXPERIMENTS)} (or 'profile')"
        )
    return EXPERIMENTS[name]


def plan(tasks: Sequence[Task], limit: int | None) -> str:
    """What will run: instances x solver variants = runs, and what --limit counted."""
    instances = {json.dumps(t.instance, sort_keys=True) for t in tasks}
    variants = sorted({t.label or t.solver for t in tasks})
    text = (
        f"{len(instances)} instances x {len(variants)} solver variants ({', '.join(variants)}) "
        f"= {len(tasks)} runs"
    )
    if limit is not None:
        text += f"; --limit {limit} counts instances, each run by every solver variant"
    return text


def table(name: str, summary: Sequence[dict], width: int = 100) -> str:
    """The printed table of an experiment's summary: ours beside the paper's numbers, in blocks of
    columns at most ``width`` characters wide."""
    return reports.text_table(summary, resolve(name).columns, width=width)


def run_experiment(
    name: str,
    out: str | Path,
    workers: int | None = None,
    scheduler: Any = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    limit: int | None = None,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> list[dict]:
    """Run (or resume) experiment ``name`` into ``out``; write summary.json, summary.csv and figures;
    return the rows. ``log`` receives one line saying what runs (instances x solvers = runs)."""
    experiment = resolve(name)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = experiment.tasks(limit, time_limit)
    if log is not None:
        log(f"{experiment.name}: {plan(tasks, limit)}")
    if scheduler is None:  # the forked runs then time the solve, not numba's first load
        warm_up([t.solver for t in tasks if t.solver != DECIDE])
    done = run(
        tasks,
        out / STORE,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        description=experiment.name,
    )
    if log is not None:
        log(
            f"{experiment.name}: {done.ran} runs ran here, {done.skipped} were stored before, "
            f"{done.elsewhere} ran in another process on the same store"
        )
    keys = {t.key for t in tasks}
    with Store(out / STORE) as store:
        rows = [r for r in store.rows() if r["key"] in keys]
    versions = {r["code"] for r in rows}
    if len(versions) > 1:
        print(
            f"warning: {out / STORE} holds runs of {len(versions)} versions of the code; "
            "delete it to rerun everything with the current code",
            file=sys.stderr,
        )
    if rows and all(r["status"] == "error" for r in rows):
        raise RunsFailedError(
            f"every one of the {len(rows)} runs of {experiment.name} failed (they will be retried on the "
            f"next run); the first: {rows[0]['message']}"
        )
    summary = experiment.report(rows, out)
    comparison = Comparison.from_rows(rows)
    comparison.performance_profile(
        out / f"{experiment.name}_profile.png", title=f"{experiment.name}: performance profile (seconds)"
    )
    comparison.data_profile(
        out / f"{experiment.name}_data_profile.png", title=f"{experiment.name}: data profile (seconds)"
    )
    # written whole and then renamed: runners sharing the folder never leave a half-written file
    partial = out / f".summary.{os.getpid()}"
    comparison.to_csv(partial)
    os.replace(partial, out / "runs.csv")
    partial.write_text(json.dumps(summary, indent=1) + "\n")
    os.replace(partial, out / "summary.json")
    reports.write_csv(summary, partial)
    os.replace(partial, out / "summary.csv")
    return summary


def profile_from_store(store: str | Path, out: str | Path, metric: str = "seconds") -> dict[str, list[float]]:
    """A Dolan-More profile PNG (``out``) from any run store."""
    with Store(store) as db:
        rows = db.rows()
    return Comparison.from_rows(rows).performance_profile(out, metric=metric)


__all__ = [
    "ALIASES",
    "EXPERIMENTS",
    "MU_GRID",
    "plan",
    "profile_from_store",
    "resolve",
    "run_experiment",
    "table",
]
