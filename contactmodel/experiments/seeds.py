"""The seeds' experiments: task lists, reports, and one entry point per experiment.

``seed000-table1``  seed 000 §6 Table 1: random multi-box problems under the friction pyramid,
                    as many data sets per LCP size as the paper (185 of its 328), 10 mu values
                    per generated problem; Lemke (defaults; and "lemke-100": the paper's 100
                    pivots per start), FIP (the paper's 300 iterations) and newton.
``seed001-scara``   seed 001 §4: 200 SCARA data sets (b in [-5, 5]^6, seeds 0..199), all
                    sliding (LCP of size 2) and all rolling (Coulomb cone MNCP / pyramid LCP);
                    ipopt (MNCPOpt / LCPOpt), newton, and lemke on the LCPs.
``seed002-example1`` seed 002 §4.1: the 20 x 20 (mu1, mu2) grid at zeta = 2 and zeta = 0,
                    newton and ipopt; Figure 3 as heat maps of |a_t| at contact 2.

Each writes ``runs.sqlite`` (every run), ``summary.json`` (a list of row objects, the paper's
numbers beside ours under ``paper_*`` keys) and PNG figures into the output folder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contactmodel.errors import UnknownNameError
from contactmodel.experiments import reports
from contactmodel.experiments.generators import MU_GRID, rod_cube_grid, table1_instances
from contactmodel.experiments.runner import Store, Task, run

STORE = "runs.sqlite"
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


def seed000_tasks(limit: int | None, time_limit: float | None) -> list[Task]:
    instances = _seed000_instances()[:limit]
    return [
        Task(inst, solver, "pyramid", settings, time_limit, "seed000-table1", label)
        for inst in instances
        for label, solver, settings in SEED000_SOLVERS
    ]


def seed000_report(rows: list[dict], out: Path) -> list[dict]:
    summary = reports.table1(rows)
    reports.table1_figure(summary, out / "seed000_table1_solved.png")
    return summary


SEED001_VARIANTS = (
    (True, "cone", (("ipopt", "ipopt"), ("newton", "newton"), ("lemke", "lemke"))),
    (False, "cone", (("ipopt", "ipopt"), ("newton", "newton"))),
    (False, "pyramid", (("ipopt", "ipopt"), ("newton", "newton"), ("lemke", "lemke"))),
)


def seed001_tasks(limit: int | None, time_limit: float | None) -> list[Task]:
    seeds = range(200 if limit is None else min(limit, 200))
    return [
        Task(
            {"family": "scara", "seed": s, "sliding": sliding},
            solver,
            friction,
            {},
            time_limit,
            "seed001-scara",
            label,
        )
        for s in seeds
        for sliding, friction, solvers in SEED001_VARIANTS
        for label, solver in solvers
    ]


def seed001_report(rows: list[dict], out: Path) -> list[dict]:
    reports.residual_histogram(rows, out / "seed001_residuals.png")
    return reports.scara(rows)


def seed002_tasks(limit: int | None, time_limit: float | None) -> list[Task]:
    grids = [rod_cube_grid(2.0), rod_cube_grid(0.0)]
    if limit is not None:
        per = max(1, -(-limit // 2))
        grids = [g[:: max(1, len(g) // per)][:per] for g in grids]
    cells = _interleave(grids)[:limit]
    return [
        Task(cell, solver, "model", {}, time_limit, "seed002-example1", solver)
        for cell in cells
        for solver in ("newton", "ipopt")
    ]


def seed002_report(rows: list[dict], out: Path) -> list[dict]:
    return reports.example1(rows, out)


@dataclass(frozen=True)
class Experiment:
    name: str
    description: str
    tasks: Callable[[int | None, float | None], list[Task]]
    report: Callable[[list[dict], Path], list[dict]]


EXPERIMENTS: dict[str, Experiment] = {
    e.name: e
    for e in (
        Experiment(
            "seed000-table1",
            "seed 000 Table 1: Lemke, FIP, newton on random multi-box LCPs",
            seed000_tasks,
            seed000_report,
        ),
        Experiment(
            "seed001-scara",
            "seed 001 §4: SCARA grasp families, MNCPOpt / LCPOpt (ipopt), newton, lemke",
            seed001_tasks,
            seed001_report,
        ),
        Experiment(
            "seed002-example1",
            "seed 002 §4.1: (mu1, mu2) grid, |a_t| at contact 2, zeta = 2 and 0",
            seed002_tasks,
            seed002_report,
        ),
    )
}


def run_experiment(
    name: str,
    out: str | Path,
    workers: int | None = None,
    scheduler: Any = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    limit: int | None = None,
    progress: bool = True,
) -> list[dict]:
    """Run (or resume) experiment ``name`` into ``out``; write summary.json and figures; return the rows."""
    if name not in EXPERIMENTS:
        raise UnknownNameError(f"unknown experiment {name!r}; choose one of {sorted(EXPERIMENTS)}")
    experiment = EXPERIMENTS[name]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tasks = experiment.tasks(limit, time_limit)
    run(tasks, out / STORE, workers=workers, scheduler=scheduler, progress=progress, description=name)
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
    summary = experiment.report(rows, out)
    reports.performance_profile(
        rows, out / f"{name}_profile.png", title=f"{name}: performance profile (seconds)"
    )
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def profile_from_store(store: str | Path, out: str | Path, metric: str = "seconds") -> dict[str, list[float]]:
    """A Dolan-More profile PNG (``out``) from any run store."""
    with Store(store) as db:
        rows = db.rows()
    return reports.performance_profile(rows, Path(out), metric=metric)


__all__ = ["EXPERIMENTS", "MU_GRID", "profile_from_store", "run_experiment"]
