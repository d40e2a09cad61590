"""Resumable, parallel experiment runner with an SQLite store.

A task is one run: an instance description (see :func:`generators.build_problem`), a friction
law, a solver, its settings and a time limit. Its key is a hash of that description, so a
task list can be rerun any number of times: keys already in the store are skipped, and each
finished run is committed as one row (WAL mode) the moment it comes back. Killing the runner
(Ctrl-C, kill -9) loses only the runs in flight. A run that raised (status ``error``, e.g. a
module edited under a running experiment) is kept until a rerun replaces it.

Runs go to a ``concurrent.futures.ProcessPoolExecutor`` (fork) by default, or to a Dask
cluster when given a scheduler address. In the process pool every run with a time limit is
executed in a forked child that is killed when it overruns; solvers that accept
``time_limit`` (newton, ipopt, scipy) also get it. On Dask (worker threads) only the
solvers' own limits apply.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import math
import multiprocessing as mp
import os
import socket
import sqlite3
import threading
import time
import traceback
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from contactmodel.workers import dask_results, die_with_parent, pool_results

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    experiment TEXT,
    label TEXT,
    instance TEXT,
    friction TEXT,
    solver TEXT,
    settings TEXT,
    time_limit REAL,
    size INTEGER,
    status TEXT,
    residual REAL,
    iterations INTEGER,
    seconds REAL,
    wall_seconds REAL,
    extras TEXT,
    solution TEXT,
    message TEXT,
    host TEXT,
    finished_at REAL,
    code TEXT
);
CREATE INDEX IF NOT EXISTS runs_key ON runs (key);
"""
_COLUMNS = (
    "key experiment label instance friction solver settings time_limit size status residual iterations "
    "seconds wall_seconds extras solution message host finished_at code"
).split()
_JSON_COLUMNS = ("instance", "settings", "extras", "solution")
_MAX_LIST = 32
#: status of a run whose process died (signal, Ctrl-C): reported, not stored, so a rerun retries it
CRASHED = "crashed"


def _takes_time_limit(solver: str) -> bool:
    """Whether the solver's options have a time limit (its registry row says)."""
    from contactmodel import solvers

    return solver in solvers.REGISTRY and solvers.get(solver).time_limit


@dataclass(frozen=True)
class Task:
    """One run. ``label`` names the solver variant in reports and is not part of the key."""

    instance: dict
    solver: str
    friction: str = "model"
    settings: dict = field(default_factory=dict)
    time_limit: float | None = None
    experiment: str = ""
    label: str = ""

    @property
    def key(self) -> str:
        description = {
            "instance": self.instance,
            "friction": self.friction,
            "solver": self.solver,
            "settings": self.settings,
            "time_limit": self.time_limit,
        }
        text = json.dumps(description, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def _plain(value: Any) -> Any:
    """JSON-safe copy: numpy to Python, long arrays and lists dropped, non-finite floats to None."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            v = _plain(v)
            if v is not _DROP:
                out[str(k)] = v
        return out
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) > _MAX_LIST:
            return _DROP
        items = [_plain(v) for v in value]
        return [v for v in items if v is not _DROP]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if value is None or isinstance(value, str):
        return value
    return str(value)


_DROP = object()


def pack(vector: np.ndarray) -> str:
    """A float vector as one string (base64 of its float64 bytes): stored whole, not dropped as long
    lists are (see ``_MAX_LIST``)."""
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f8").tobytes()).decode("ascii")


def unpack(text: str) -> np.ndarray:
    """The vector :func:`pack` stored."""
    return np.frombuffer(base64.b64decode(text), dtype="<f8").copy()


def _mcp_of(problem):
    """The MCP of a Problem (compiled) or a bare MCP (an LCP file's)."""
    return problem.compile().mcp if hasattr(problem, "compile") else problem


def run_task(task: Task) -> dict:
    """Build, solve and describe one task in this process; never raises."""
    import contactmodel as cm
    from contactmodel.experiments.generators import build_problem
    from contactmodel.experiments.sources import answer_vector

    t0 = time.perf_counter()
    record = _base_record(task)
    try:
        problem = build_problem(task.instance, task.friction)
        record["size"] = int(_mcp_of(problem).n)
        options = dict(task.settings)
        if task.time_limit is not None and _takes_time_limit(task.solver):
            options.setdefault("time_limit", float(task.time_limit))
        if task.solver == DECIDE:
            record.update(_decide_record(problem, options))
            record["wall_seconds"] = time.perf_counter() - t0
            record["finished_at"] = time.time()
            return record
        solution = cm.solve(problem, solver=task.solver, **options)
        record.update(
            status=solution.status.value,
            residual=_plain(solution.residual),
            iterations=int(solution.iterations),
            seconds=float(solution.seconds),
            extras=_plain(solution.extras),
            solution=_plain(solution.to_json()),
            message=solution.message[:500],
        )
        if solution.ok and solution.x is not None:  # compared across solvers (cm.compare)
            record["extras"]["answer"] = pack(answer_vector(problem, solution.x))
    except Exception as exc:
        record.update(status="error", message=f"{type(exc).__name__}: {exc}"[:500])
        record["extras"] = {"traceback": traceback.format_exc()[-2000:]}
    record["wall_seconds"] = time.perf_counter() - t0
    record["finished_at"] = time.time()
    return record


#: the pseudo-solver of a task that runs ``cm.decide`` (settings: its keyword arguments)
DECIDE = "decide"


def _decide_record(problem, options: dict) -> dict:
    """The record fields of one ``cm.decide`` run: status = the verdict (solved, no-solution,
    no-solution-below-bound, unique, multiple, undecided), residual = the relative natural
    residual of its first solution, extras = the evidence's scalars, ``exact`` and the steps tried."""
    import contactmodel as cm
    from contactmodel.experiments.sources import answer_vector
    from contactmodel.solve import relative_residual

    result = cm.decide(problem, **options)
    mcp = _mcp_of(problem)
    residual = relative_residual(mcp, result.solutions[0]) if result.solutions else None
    scalars = {k: v for k, v in result.evidence.items() if isinstance(v, (bool, int, float, str))}
    if result.solutions:
        scalars["answer"] = pack(answer_vector(problem, result.solutions[0]))
    return {
        "status": result.status.value,
        "residual": _plain(residual),
        "iterations": 0,
        "seconds": float(result.seconds),
        "extras": _plain({**scalars, "exact": result.exact, "tried": [t[:300] for t in result.tried]}),
        "message": result.evidence.get("certificate", result.evidence.get("reason", ""))[:500],
    }


def _base_record(task: Task) -> dict:
    return {
        "key": task.key,
        "experiment": task.experiment,
        "label": task.label or task.solver,
        "instance": task.instance,
        "friction": task.friction,
        "solver": task.solver,
        "settings": task.settings,
        "time_limit": task.time_limit,
        "size": None,
        "status": None,
        "residual": None,
        "iterations": None,
        "seconds": None,
        "wall_seconds": None,
        "extras": {},
        "solution": None,
        "message": "",
        "host": socket.gethostname(),
        "finished_at": None,
        "code": code_version(),
    }


@functools.cache
def code_version() -> str:
    """Short hash of the contactmodel sources this process runs (examples included); stored with
    every run, not part of its key, so a store that mixes code versions can be detected."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    files = sorted(root.rglob("*.py")) + sorted((root.parent / "examples").glob("*.py"))
    for file in files:
        if "experiments" in file.parts and file.name == "reports.py":
            continue
        digest.update(str(file.relative_to(root.parent)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:12]


def _child(task: Task, conn) -> None:
    die_with_parent()
    try:
        conn.send(run_task(task))
    finally:
        conn.close()


def run_task_guarded(task: Task) -> dict:
    """:func:`run_task` in a forked child killed after the time limit (inline without a limit,
    or where forking is unsafe: worker threads, daemonic processes)."""
    forkable = (
        task.time_limit is not None
        and threading.current_thread() is threading.main_thread()
        and not mp.current_process().daemon
        and "fork" in mp.get_all_start_methods()
    )
    if not forkable:
        return run_task(task)
    ctx = mp.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    child = ctx.Process(target=_child, args=(task, send))
    child.start()
    send.close()
    hard = 1.2 * float(task.time_limit) + 2.0
    record = None
    if receive.poll(hard):
        try:
            record = receive.recv()
        except EOFError:
            record = None
    if child.is_alive():
        child.kill()
    child.join()
    receive.close()
    if record is None:
        record = _base_record(task)
        killed = time.perf_counter() - t0 >= hard
        record.update(
            status="time-limit" if killed else CRASHED,
            message=f"killed after {hard:.1f} s" if killed else f"worker died (exit code {child.exitcode})",
            wall_seconds=time.perf_counter() - t0,
            finished_at=time.time(),
        )
    return record


class Store:
    """The on-disk run store: one SQLite file, one committed row per finished run."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, timeout=60)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(_SCHEMA)
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(runs)")}
        if "code" not in columns:
            self.conn.execute("ALTER TABLE runs ADD COLUMN code TEXT")
        self.conn.commit()

    def keys(self) -> set[str]:
        """Keys of finished runs; runs that raised (status "error") are retried, not kept."""
        return {row[0] for row in self.conn.execute("SELECT key FROM runs WHERE status != 'error'")}

    def add(self, record: dict) -> None:
        values = [
            json.dumps(_plain(record.get(c))) if c in _JSON_COLUMNS else record.get(c) for c in _COLUMNS
        ]
        with self.conn:
            self.conn.execute("DELETE FROM runs WHERE key = ? AND status = 'error'", (record["key"],))
            self.conn.execute(
                f"INSERT INTO runs ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})", values
            )

    def rows(self, experiment: str | None = None) -> list[dict]:
        query = f"SELECT {', '.join(_COLUMNS)} FROM runs"
        args: tuple = ()
        if experiment is not None:
            query += " WHERE experiment = ?"
            args = (experiment,)
        out = []
        for values in self.conn.execute(query + " ORDER BY id", args):
            row = dict(zip(_COLUMNS, values))
            for c in _JSON_COLUMNS:
                row[c] = json.loads(row[c]) if row[c] is not None else None
            out.append(row)
        return out

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass
class RunSummary:
    total: int
    skipped: int
    ran: int
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


def _unique(tasks: Iterable[Task]) -> list[Task]:
    seen: set[str] = set()
    out = []
    for t in tasks:
        if t.key not in seen:
            seen.add(t.key)
            out.append(t)
    return out


def run(
    tasks: Sequence[Task],
    store: str | os.PathLike,
    workers: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    description: str = "runs",
) -> RunSummary:
    """Run every task whose key is not yet in ``store``; commit each result as it finishes.

    ``workers``: processes of the local pool (default: CPU count; 0 runs inline in this
    process). ``scheduler``: a Dask scheduler address (or a ``distributed.Client``) to run on
    instead.
    """
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    tasks = _unique(tasks)
    with Store(store) as db:
        done = db.keys()
        todo = [t for t in tasks if t.key not in done]
        bar = tqdm(total=len(tasks), initial=len(tasks) - len(todo), desc=description, disable=not progress)
        try:
            if not todo:
                pass
            elif scheduler is not None:
                _run_dask(todo, db, scheduler, bar)
            elif workers == 0:
                for task in todo:
                    _record(db, run_task_guarded(task), bar)
            else:
                _run_pool(todo, db, workers or os.cpu_count() or 1, bar)
        finally:
            bar.close()
    return RunSummary(len(tasks), len(tasks) - len(todo), len(todo), time.perf_counter() - t0)


def _record(db: Store, record: dict, bar) -> None:
    if record["status"] == CRASHED:
        bar.write(f"run {record['key']} crashed ({record['message']}); it will be retried on the next run")
    else:
        db.add(record)
    bar.update()


def _run_pool(todo: list[Task], db: Store, workers: int, bar) -> None:
    for record in pool_results(run_task_guarded, todo, workers):
        _record(db, record, bar)


def _run_dask(todo: list[Task], db: Store, scheduler: Any, bar) -> None:
    for record in dask_results(run_task_guarded, todo, scheduler):
        _record(db, record, bar)
