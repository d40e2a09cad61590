"""Many solves of one compiled problem: :func:`solve_many` runs a Problem over a list of parameter
sets (each one :meth:`Problem.update <contactmodel.formulation.Problem.update>`'s keywords) with no
rebuild and no recompilation, in this process, in a forked process pool, or on a Dask cluster.

Every run is checked by the dispatcher exactly like :func:`contactmodel.solve` (residual, law
residual, status) and reported like the experiment runner reports a run: a status word
(``"solved"``, ``"failed"``... or ``"error"`` when the update or the solve raised), residuals,
iterations, the solver's own seconds and the run's wall seconds.
"""

from __future__ import annotations

import functools
import math
import os
import pickle
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactmodel import validate
from contactmodel.errors import ContactModelError, OptionError
from contactmodel.formulation import Problem
from contactmodel.solution import Solution
from contactmodel.update import FIELDS

#: status of a run whose update or solve raised (the runner's word for it)
ERROR = "error"
_RECORD = ("index", "status", "residual", "law_residual", "iterations", "seconds", "wall_seconds", "message")


@dataclass
class Run:
    """One run of a sweep: ``index`` of its parameter set in the updates, ``status`` (a
    :class:`~contactmodel.solvers.base.Status` value, or ``"error"``), the dispatcher's relative
    ``residual`` and ``law_residual`` (None without an answer), ``iterations``, ``seconds`` (the
    solver's own, :attr:`Solution.seconds`), ``wall_seconds`` (update + solve + checks), the
    ``message`` and the full ``solution`` (None after an error, or when not kept)."""

    index: int
    status: str
    residual: float | None = None
    law_residual: float | None = None
    iterations: int | None = None
    seconds: float | None = None
    wall_seconds: float = 0.0
    message: str = ""
    solution: Solution | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.status in ("solved", "solved-inaccurate")


@dataclass
class Sweep:
    """The runs of :func:`solve_many`, in the order of the updates; ``seconds`` the wall time of
    the whole sweep."""

    runs: list[Run]
    seconds: float

    @property
    def ok(self) -> bool:
        """Every run solved (accurately or not)."""
        return all(r.ok for r in self.runs)

    def counts(self) -> dict[str, int]:
        """Number of runs per status."""
        return dict(Counter(r.status for r in self.runs))

    @property
    def solutions(self) -> list[Solution | None]:
        return [r.solution for r in self.runs]

    def solver_seconds(self) -> float:
        """Sum of the solver's own seconds over the runs that reached the solver."""
        return float(sum(r.seconds for r in self.runs if r.seconds is not None))

    def records(self) -> list[dict]:
        """One plain dict per run (the experiment runner's columns that apply)."""
        keys = (
            "index",
            "status",
            "residual",
            "law_residual",
            "iterations",
            "seconds",
            "wall_seconds",
            "message",
        )
        return [{k: getattr(r, k) for k in keys} for r in self.runs]


def solve_many(
    problem: Problem,
    updates: Sequence[Mapping[str, Any]],
    solver: str = "newton",
    *,
    warm_start: bool = True,
    keep_solutions: bool = True,
    workers: int = 0,
    scheduler: Any = None,
    **options,
) -> Sweep:
    """Solve ``problem`` once per parameter set in ``updates`` (each a mapping of
    :meth:`Problem.update <contactmodel.formulation.Problem.update>` keywords: ``b``, ``f``,
    ``mu``), reusing its one compiled structure.

    Runs go in order; with ``warm_start`` each starts from the previous accepted answer.
    ``workers`` > 0 splits the updates into contiguous chunks run by a forked process pool (each
    worker works on its own copy of the problem, inherited, not pickled); ``scheduler`` (a Dask
    scheduler address or ``distributed.Client``) runs the chunks on a cluster instead (the
    problem is pickled once, with cloudpickle, and each chunk unpickles its own copy).
    ``keep_solutions=False`` drops each run's :class:`Solution` (its numbers stay in the
    :class:`Run`). Other keywords go to :func:`contactmodel.solve`. A run whose update or solve
    raises gets status ``"error"`` with the message; the sweep goes on. The problem's own
    numbers are restored at the end.
    """
    if not isinstance(problem, Problem):
        raise OptionError(
            f"solve_many needs a contact Problem (got {type(problem).__name__}); build one with cm.formulate"
        )
    updates = _checked_updates(updates)
    workers = validate.integer(workers, "solve_many: workers", low=0, error=OptionError)
    warm_start = validate.boolean(warm_start, "solve_many: warm_start", error=OptionError)
    keep = validate.boolean(keep_solutions, "solve_many: keep_solutions", error=OptionError)
    job = _Job(solver, warm_start, keep, options)
    items = list(enumerate(updates))
    t0 = time.perf_counter()
    if scheduler is None and workers == 0:
        runs = job.run(problem, items)
    else:
        runs = _distributed(problem, job, items, workers, scheduler)
    return Sweep(sorted(runs, key=lambda r: r.index), time.perf_counter() - t0)


def _checked_updates(updates) -> list[dict]:
    if isinstance(updates, Mapping) or not isinstance(updates, Sequence):
        raise OptionError(
            "solve_many: updates must be a list of parameter sets, e.g. [{'b': b1}, {'b': b2}] "
            f"(got {type(updates).__name__})"
        )
    out = []
    for k, upd in enumerate(updates):
        if not isinstance(upd, Mapping):
            raise OptionError(f"solve_many: updates[{k}] must be a mapping such as {{'b': b}} (got {upd!r})")
        unknown = sorted(set(upd) - set(FIELDS))
        if unknown:
            raise OptionError(
                f"solve_many: updates[{k}] has unknown keys {unknown}; Problem.update takes {FIELDS}"
            )
        out.append(dict(upd))
    return out


@dataclass
class _Job:
    """What each run does (picklable: sent to pool and Dask workers with the chunks)."""

    solver: str
    warm_start: bool
    keep: bool
    options: dict

    def run(self, problem: Problem, items: list[tuple[int, dict]]) -> list[Run]:
        """The runs of ``items`` (index, update) in order on ``problem``, whose numbers are
        restored afterwards."""
        from contactmodel.solve import solve

        restore = _restorers(problem, {key for _, upd in items for key in upd})
        runs = []
        try:
            for index, upd in items:
                t0 = time.perf_counter()
                try:
                    problem.update(**upd)
                    solution = solve(problem, solver=self.solver, warm_start=self.warm_start, **self.options)
                except ContactModelError as exc:
                    wall = time.perf_counter() - t0
                    runs.append(Run(index, ERROR, wall_seconds=wall, message=f"{type(exc).__name__}: {exc}"))
                    continue
                runs.append(_run_of(index, solution, time.perf_counter() - t0, self.keep))
        finally:
            for upd in restore:
                problem.update(**upd)
        return runs


def _run_of(index: int, solution: Solution, wall: float, keep: bool) -> Run:
    return Run(
        index,
        solution.status.value,
        residual=solution.residual if math.isfinite(solution.residual) else None,
        law_residual=solution.checks.get("law_residual"),
        iterations=solution.iterations,
        seconds=solution.seconds,
        wall_seconds=wall,
        message=solution.message,
        solution=solution if keep else None,
    )


def _restorers(problem: Problem, keys: set[str]) -> list[dict]:
    """The updates that put back the problem's current values of the keywords in ``keys``:
    f then b for a problem with bodies (b's change lives beside f's), b alone for one given by
    A and b; every law's mu."""
    out: list[dict] = []
    asm = problem.assembly
    if keys & {"b", "f"}:
        if asm.has_dynamics:
            out.append({"f": asm.f.copy()})
        out.append({"b": asm.b.copy()})
    if "mu" in keys:
        out.append({"mu": {name: law.mu for name, law in problem.laws.items() if hasattr(law, "mu")}})
    return out


# -- pools ---------------------------------------------------------------------------------------
#: the problem a forked pool's workers inherit, by sweep id
_INHERITED: dict[int, tuple[Problem, _Job]] = {}


def _chunks(items: list, parts: int) -> list[list]:
    parts = max(1, min(parts, len(items)))
    bounds = np.linspace(0, len(items), parts + 1).astype(int)
    return [items[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]


def _inherited_chunk(sweep_id: int, chunk: list) -> list[Run]:
    problem, job = _INHERITED[sweep_id]
    return job.run(problem, chunk)


def _pickled_chunk(blob: bytes, job: _Job, chunk: list) -> list[Run]:
    return job.run(pickle.loads(blob), chunk)


def _distributed(problem: Problem, job: _Job, items: list, workers: int, scheduler: Any) -> list[Run]:
    from contactmodel.workers import dask_results, pool_results

    problem.compile()  # compiled once here: every worker inherits or unpickles the compilation
    runs: list[Run] = []
    if scheduler is not None:
        import cloudpickle  # a dependency of distributed; the model's Pyomo rules are lambdas

        blob = cloudpickle.dumps(problem)
        fn = functools.partial(_pickled_chunk, blob, job)
        for part in dask_results(fn, _chunks(items, 4 * max(1, workers or os.cpu_count() or 1)), scheduler):
            runs.extend(part)
        return runs
    key = id(problem)
    _INHERITED[key] = (problem, job)
    try:
        for part in pool_results(
            functools.partial(_inherited_chunk, key), _chunks(items, 4 * workers), workers
        ):
            runs.extend(part)
    finally:
        del _INHERITED[key]
    return runs
