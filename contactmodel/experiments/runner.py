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
import contextlib
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
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from contactmodel.errors import StoreError
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
)
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


#: the tables and columns a store must have (older stores lack ``code`` and the claims table)
_REQUIRED = {"runs": set(_COLUMNS) - {"code"}}
_CLAIMS = """
CREATE TABLE IF NOT EXISTS claims (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT,
    heartbeat REAL NOT NULL
)
"""
#: a claim whose owner has not refreshed it for this many seconds is abandoned (owners refresh
#: every ``HEARTBEAT_SECONDS``); a claim of this host whose process is gone is abandoned at once
STALE_SECONDS = 120.0
HEARTBEAT_SECONDS = 10.0


def _process_start(pid: int) -> str | None:
    """When process ``pid`` started (Linux: clock ticks since boot), to tell a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[-1].split()[19]


def _alive(host: str, pid: int, started: str | None) -> bool | None:
    """Whether the process that made a claim still runs: True/False on this host, None elsewhere."""
    if host != socket.gethostname():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    now = _process_start(pid)
    return started is None or now is None or now == started


class Store:
    """The on-disk run store: one SQLite file, one committed row per finished run (``key`` is
    unique), and a ``claims`` table through which concurrent runners split the work.

    A runner claims a key in an immediate transaction before running it and releases the claim
    with the result; a claim left by a killed runner (its process gone, or no heartbeat for
    ``STALE_SECONDS``) is taken over. A file that is not a run store raises :class:`StoreError`.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        if self.path.is_dir():
            raise StoreError(f"run store '{self.path}' is a folder; give a file path (e.g. runs.sqlite)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        try:
            self.conn = sqlite3.connect(self.path, timeout=60, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open run store '{self.path}' ({exc}); check the path") from exc
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise self._corrupt(exc) from exc
        except StoreError:
            self.conn.close()
            raise

    def _corrupt(self, exc: Exception) -> StoreError:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            return StoreError(
                f"run store '{self.path}' stayed locked by another process for 60 s ({exc}); "
                "wait for it, or give another --out folder"
            )
        return StoreError(
            f"'{self.path}' is not a readable contactmodel run store ({exc}); it is damaged or another "
            "program's file: move or delete it (its runs are then rerun), or give another --out folder"
        )

    def _open(self) -> None:
        # two runners opening a new store together: the switch to WAL needs the database to
        # itself and SQLite answers "locked" at once instead of waiting, so it is tried again
        deadline = time.monotonic() + 60.0
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        self.conn.execute("PRAGMA synchronous=NORMAL")
        tables = {row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        tables.discard("sqlite_sequence")
        if tables:
            foreign = tables - {"runs", "claims"}
            columns = {row[1] for row in self.conn.execute("PRAGMA table_info(runs)")}
            missing = _REQUIRED["runs"] - columns
            if foreign or missing:
                what = f"tables {sorted(tables)}" if foreign else f"runs table lacks {sorted(missing)}"
                raise StoreError(
                    f"'{self.path}' is an SQLite file but not a contactmodel run store ({what}): "
                    "give another --out folder, or move the file away"
                )
        with self.transaction():
            self.conn.execute(_SCHEMA)
            self.conn.execute(_CLAIMS)
            columns = {row[1] for row in self.conn.execute("PRAGMA table_info(runs)")}
            if "code" not in columns:
                self.conn.execute("ALTER TABLE runs ADD COLUMN code TEXT")
            indexes = {row[1]: row[2] for row in self.conn.execute("PRAGMA index_list(runs)")}
            if not indexes.get("runs_key_unique"):
                # stores written by concurrent runners of older versions hold a key more than once:
                # keep one row per key (its first finished run), then forbid duplicates
                self.conn.execute(
                    "DELETE FROM runs WHERE id NOT IN (SELECT COALESCE(MIN(CASE WHEN status != 'error' "
                    "THEN id END), MIN(id)) FROM runs GROUP BY key)"
                )
                self.conn.execute("DROP INDEX IF EXISTS runs_key")
                self.conn.execute("CREATE UNIQUE INDEX runs_key_unique ON runs (key)")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rolled back on error): the write lock is taken at
        once, so a check and the write that depends on it see the same store."""
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            raise self._corrupt(exc) from exc
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.DatabaseError):
                raise self._corrupt(exc) from exc
            raise

    def _query(self, sql: str, args: tuple = ()) -> list[tuple]:
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._corrupt(exc) from exc

    def keys(self) -> set[str]:
        """Keys of finished runs; runs that raised (status "error") are retried, not kept."""
        return {row[0] for row in self._query("SELECT key FROM runs WHERE status != 'error'")}

    def claim(self, key: str) -> bool:
        """Claim ``key`` for this store object's owner: True unless the run is already stored or
        claimed by a live runner (a claim whose runner is gone is taken over)."""
        with self.transaction() as conn:
            if conn.execute("SELECT 1 FROM runs WHERE key = ? AND status != 'error'", (key,)).fetchone():
                return False
            held = conn.execute(
                "SELECT owner, host, pid, started, heartbeat FROM claims WHERE key = ?", (key,)
            ).fetchone()
            if held is not None and held[0] != self.owner:
                alive = _alive(held[1], held[2], held[3])
                if alive or (alive is None and time.time() - held[4] < STALE_SECONDS):
                    return False
            pid = os.getpid()
            conn.execute(
                "INSERT OR REPLACE INTO claims (key, owner, host, pid, started, heartbeat) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (key, self.owner, socket.gethostname(), pid, _process_start(pid), time.time()),
            )
        return True

    def release(self, keys: Iterable[str] | None = None) -> None:
        """Drop this owner's claims on ``keys`` (default: all of them)."""
        with self.transaction() as conn:
            if keys is None:
                conn.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))
            else:
                conn.executemany(
                    "DELETE FROM claims WHERE key = ? AND owner = ?", [(k, self.owner) for k in keys]
                )

    def add(self, record: dict) -> bool:
        """Store a finished run and release its claim; False (nothing written) when the key is
        already stored by another runner. A stored error is replaced."""
        values = [
            json.dumps(_plain(record.get(c))) if c in _JSON_COLUMNS else record.get(c) for c in _COLUMNS
        ]
        with self.transaction() as conn:
            conn.execute("DELETE FROM runs WHERE key = ? AND status = 'error'", (record["key"],))
            cursor = conn.execute(
                f"INSERT OR IGNORE INTO runs ({', '.join(_COLUMNS)}) "
                f"VALUES ({', '.join('?' * len(_COLUMNS))})",
                values,
            )
            conn.execute("DELETE FROM claims WHERE key = ? AND owner = ?", (record["key"], self.owner))
        return cursor.rowcount == 1

    def rows(self, experiment: str | None = None) -> list[dict]:
        """One dict per stored run (each key once), in the order they finished."""
        query = f"SELECT {', '.join(_COLUMNS)} FROM runs"
        args: tuple = ()
        if experiment is not None:
            query += " WHERE experiment = ?"
            args = (experiment,)
        out = []
        for values in self._query(query + " ORDER BY id", args):
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


class _Heartbeat(threading.Thread):
    """Refreshes an owner's claims every ``HEARTBEAT_SECONDS`` (own connection) until stopped."""

    def __init__(self, path: Path, owner: str):
        super().__init__(daemon=True)
        self.path, self.owner, self.stopped = path, owner, threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(HEARTBEAT_SECONDS):
            try:
                with sqlite3.connect(self.path, timeout=60) as conn:
                    conn.execute("UPDATE claims SET heartbeat = ? WHERE owner = ?", (time.time(), self.owner))
                conn.close()
            except sqlite3.Error:
                pass  # the next beat retries; a store that stays locked makes the claims stale


@dataclass
class RunSummary:
    """``total`` distinct tasks: ``skipped`` were stored before, ``ran`` ran here, ``elsewhere``
    were run meanwhile by another runner on the same store."""

    total: int
    skipped: int
    ran: int
    seconds: float
    elsewhere: int = 0

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
    poll_seconds: float = 0.5,
) -> RunSummary:
    """Run every task whose key is not yet in ``store``; commit each result as it finishes.

    ``workers``: processes of the local pool (default: CPU count; 0 runs inline in this
    process). ``scheduler``: a Dask scheduler address (or a ``distributed.Client``) to run on
    instead. Several runners may share one store: each task is claimed before it runs, so they
    split the work; this one returns when every task is stored (it waits for the runs another
    runner holds, and takes over those whose runner died), or crashed here.
    """
    from tqdm.auto import tqdm

    t0 = time.perf_counter()
    tasks = _unique(tasks)
    with Store(store) as db:
        done = db.keys()
        skipped = sum(t.key in done for t in tasks)
        bar = tqdm(total=len(tasks), initial=skipped, desc=description, disable=not progress)
        attempted: set[str] = set()
        beat = _Heartbeat(db.path, db.owner)
        beat.start()
        try:
            while True:
                stored = db.keys()
                todo = [t for t in tasks if t.key not in stored and t.key not in attempted]
                if not todo:
                    break
                claimed = _claims(db, todo, attempted)
                if scheduler is not None:
                    records = dask_results(run_task_guarded, claimed, scheduler)
                elif workers == 0:
                    records = map(run_task_guarded, claimed)
                else:
                    records = pool_results(run_task_guarded, claimed, workers or os.cpu_count() or 1)
                for record in records:
                    _record(db, record, bar)
                if not attempted.issuperset(t.key for t in todo):
                    time.sleep(poll_seconds)  # the rest are held by other runners: wait for them
                    bar.n = len(tasks) - len([t for t in todo if t.key not in db.keys()])
                    bar.refresh()
        finally:
            beat.stopped.set()
            db.release()
            bar.close()
    ran = len(attempted)
    return RunSummary(len(tasks), skipped, ran, time.perf_counter() - t0, len(tasks) - skipped - ran)


def _claims(db: Store, todo: list[Task], attempted: set[str]) -> Iterator[Task]:
    """The tasks of ``todo`` this runner claims, each claimed only when it is about to run."""
    for task in todo:
        if db.claim(task.key):
            attempted.add(task.key)
            yield task


def _record(db: Store, record: dict, bar) -> None:
    if record["status"] == CRASHED:
        bar.write(f"run {record['key']} crashed ({record['message']}); it will be retried on the next run")
        db.release([record["key"]])
    else:
        db.add(record)
    bar.update()
