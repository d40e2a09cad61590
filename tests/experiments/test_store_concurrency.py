"""The run store shared by several runners: claims split the work, abandoned claims are taken
over, each key is stored once, and a file that is not a run store is a named error."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contactmodel.errors import ContactModelError, StoreError
from contactmodel.experiments import runner
from contactmodel.experiments.runner import Store, Task, run

ROOT = Path(__file__).resolve().parents[2]


def _experiment(out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "contactmodel", "experiment", "trinkle1997-table1", "--out", str(out)]
        + ["--limit", "3", "--workers", "1"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _deterministic(summary: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if "seconds" not in k} for row in summary]


def test_two_concurrent_experiment_processes_split_the_runs(tmp_path: Path) -> None:
    both_runs, alone = tmp_path / "both", tmp_path / "alone"
    first, second = _experiment(both_runs), _experiment(both_runs)
    outputs = [p.communicate(timeout=600) for p in (first, second)]
    assert first.returncode == second.returncode == 0, outputs
    reference = _experiment(alone)
    reference.communicate(timeout=600)
    assert reference.returncode == 0

    with sqlite3.connect(both_runs / "runs.sqlite") as conn:
        rows, keys = conn.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM runs").fetchone()
        claims = conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0]
    assert rows == keys == 15  # 3 instances x 5 solver variants, each run once
    assert claims == 0
    ran = [int(re.search(r"(\d+) runs ran here", err).group(1)) for _, err in outputs]
    assert sum(ran) == 15, ran  # every run was done by exactly one of the two processes
    got = json.loads((both_runs / "summary.json").read_text())
    want = json.loads((alone / "summary.json").read_text())
    assert _deterministic(got) == _deterministic(want)
    # a third run on the finished store runs nothing and reports the same summary
    third = _experiment(both_runs)
    _, err = third.communicate(timeout=600)
    assert third.returncode == 0 and "0 runs ran here, 15 were stored before" in err
    assert _deterministic(json.loads((both_runs / "summary.json").read_text())) == _deterministic(want)


def _task(size: int = 2, mu: float = 0.5) -> Task:
    return Task({"family": "boxes", "size": size, "seed": 0, "mu": mu}, "lemke", "pyramid", {}, None, "t")


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _plant_claim(path: Path, key: str, host: str, pid: int, heartbeat: float) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO claims (key, owner, host, pid, started, heartbeat) VALUES (?, ?, ?, ?, NULL, ?)",
            (key, f"{host}:{pid}:planted", host, pid, heartbeat),
        )
    conn.close()


def test_a_claim_abandoned_by_a_killed_runner_is_taken_over(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    tasks = [_task(mu=mu) for mu in (0.2, 0.4, 0.6)]
    Store(store).close()
    here = socket.gethostname()
    _plant_claim(store, tasks[0].key, here, _dead_pid(), time.time())  # this host, process gone
    _plant_claim(store, tasks[1].key, "elsewhere", 1, time.time() - 10 * runner.STALE_SECONDS)  # silent
    summary = run(tasks, store, workers=0, progress=False)
    assert summary.ran == 3 and summary.elsewhere == 0
    with Store(store) as db:
        assert sorted(r["key"] for r in db.rows()) == sorted(t.key for t in tasks)
        assert db.conn.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_a_live_claim_is_left_to_its_runner(tmp_path: Path) -> None:
    store = tmp_path / "runs.sqlite"
    task = _task()
    with Store(store) as db:
        _plant_claim(store, task.key, socket.gethostname(), os.getpid(), time.time())  # a live process
        assert not db.claim(task.key)
        _plant_claim(store, "other", "elsewhere", 1, time.time())  # another host, fresh heartbeat
        assert not db.claim("other")
        assert db.claim("free") and db.claim("free")  # a claim of one's own is kept


def test_a_run_finished_twice_is_stored_once(tmp_path: Path) -> None:
    record = runner.run_task(_task())
    with Store(tmp_path / "runs.sqlite") as a, Store(tmp_path / "runs.sqlite") as b:
        assert a.add(record) is True
        assert b.add(record) is False
        assert len(a.rows()) == 1
        error = {**record, "key": "k", "status": "error"}
        assert a.add(error) and a.add({**record, "key": "k"})  # an error is replaced by a rerun
        assert [r["status"] for r in a.rows() if r["key"] == "k"] == [record["status"]]


def test_an_old_store_with_duplicated_runs_keeps_each_key_once(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with sqlite3.connect(path) as conn:
        columns = ", ".join(f"{c} TEXT" for c in runner._COLUMNS if c != "code")
        conn.execute(f"CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, {columns})")
        conn.execute("CREATE INDEX runs_key ON runs (key)")
        rows = [("a", "error"), ("a", "solved"), ("a", "solved"), ("b", "failed"), ("b", "solved")]
        conn.executemany("INSERT INTO runs (key, status) VALUES (?, ?)", rows)
    conn.close()
    with Store(path) as db:
        assert [(r["key"], r["status"]) for r in db.rows()] == [("a", "solved"), ("b", "failed")]


@pytest.mark.parametrize(
    "content",
    [b"this is not a database\n" * 100, os.urandom(8192), b"SQLite format 3\x00" + b"\x00" * 200],
    ids=["text", "random", "truncated-header"],
)
def test_a_damaged_store_is_a_named_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "runs.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="runs.sqlite.*move or delete it"):
        run([_task()], path, workers=0, progress=False)


def test_a_truncated_store_is_a_named_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    run([_task(mu=mu) for mu in (0.2, 0.4)], path, workers=0, progress=False)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2 + 100])
    with pytest.raises(StoreError, match="runs.sqlite"):
        with Store(path) as db:
            db.rows()


def test_another_programs_database_is_a_named_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE customers (name TEXT)")
    conn.close()
    with pytest.raises(StoreError, match="not a contactmodel run store.*customers"):
        Store(path)
    with pytest.raises(StoreError, match="folder"):
        Store(tmp_path)
    assert issubclass(StoreError, ContactModelError)


def _open_store(path: str, barrier, results) -> None:
    from contactmodel.experiments.runner import Store

    barrier.wait()
    try:
        Store(path).conn.close()
        results.put("ok")
    except Exception as exc:  # noqa: BLE001  (reported by the test)
        results.put(f"{type(exc).__name__}: {exc}")


def test_runners_opening_a_new_store_together_all_open_it(tmp_path: Path) -> None:
    """Six processes opening the same new store at once: the switch to WAL, which SQLite refuses at
    once while another connection holds the file, is tried again, so none fails (before: about one
    trial in five raised StoreError)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    for trial in range(5):
        path = str(tmp_path / f"runs{trial}.sqlite")
        barrier, results = ctx.Barrier(6), ctx.Queue()
        workers = [ctx.Process(target=_open_store, args=(path, barrier, results)) for _ in range(6)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=120)
        assert [results.get(timeout=10) for _ in workers] == ["ok"] * 6
