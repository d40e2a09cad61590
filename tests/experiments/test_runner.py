"""The runner: resumable SQLite store (kill -9), Dask vs process pool, the CLI experiments."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contactmodel.cli import main
from contactmodel.experiments import reports, runner
from contactmodel.experiments.runner import Store, Task, run

SIZES = (10, 16, 20, 26, 30)
MUS = (0.2, 0.4, 0.6, 0.8)
SOLVERS = ("lemke", "newton")


def _tasks(count: int = 40) -> list[Task]:
    tasks = [
        Task({"family": "boxes", "size": size, "seed": 0, "mu": mu}, solver, "pyramid", {}, 30.0, "test")
        for size in SIZES
        for mu in MUS
        for solver in SOLVERS
    ]
    return tasks[:count]


_SCRIPT = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("runner_tasks", sys.argv[2])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
module.run(module._tasks(), sys.argv[1], workers=2, progress=False)
"""


def _count(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _deterministic(rows: list[dict]) -> dict[str, tuple]:
    return {
        r["key"]: (
            r["status"],
            r["iterations"],
            r["size"],
            r["residual"],
            json.dumps(r["solution"]["contacts"]),
        )
        for r in rows
    }


def _table(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if not k.endswith("_seconds")} for row in reports.table1(rows)]


def test_store_survives_kill_9_and_resumes_without_rerunning(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    store = tmp_path / "runs.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, str(store), __file__],
        cwd=root,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while _count(store) < 5 and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.02)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    before = Store(store).rows()
    assert 5 <= len(before) < 40, "the run should have been killed mid-way"

    summary = run(_tasks(), store, workers=2, progress=False)
    assert summary.skipped == len(before)
    assert summary.ran == 40 - len(before)
    with Store(store) as db:
        after = db.rows()
        keys = [r["key"] for r in after]
    assert len(keys) == len(set(keys)) == 40
    assert len({r["code"] for r in after}) == 1
    kept = {r["key"]: r["finished_at"] for r in before}
    assert {r["key"]: r["finished_at"] for r in after if r["key"] in kept} == kept

    clean = tmp_path / "clean.sqlite"
    run(_tasks(), clean, workers=2, progress=False)
    with Store(clean) as db:
        reference = db.rows()
    assert _deterministic(after) == _deterministic(reference)
    assert _table(after) == _table(reference)


def test_dask_local_cluster_matches_the_process_pool(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    tasks = _tasks(6)
    run(tasks, tmp_path / "pool.sqlite", workers=2, progress=False)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        summary = run(tasks, tmp_path / "dask.sqlite", scheduler=cluster.scheduler_address, progress=False)
    assert summary.ran == 6
    with Store(tmp_path / "pool.sqlite") as a, Store(tmp_path / "dask.sqlite") as b:
        assert _deterministic(a.rows()) == _deterministic(b.rows())


def test_time_limit_kills_an_overrunning_run(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(runner, "run_task", lambda task: time.sleep(60))
    task = Task({"family": "boxes", "size": 2, "seed": 0, "mu": 0.5}, "lemke", "pyramid", {}, 0.5, "test")
    t0 = time.perf_counter()
    run([task], tmp_path / "t.sqlite", workers=0, progress=False)
    assert time.perf_counter() - t0 < 10
    with Store(tmp_path / "t.sqlite") as db:
        (row,) = db.rows()
    assert row["status"] == "time-limit"
    assert "killed" in row["message"]


def test_experiment_command_writes_summary_and_figures(tmp_path: Path, capsys) -> None:
    out = tmp_path / "t1"
    assert main(["experiment", "seed000-table1", "--out", str(out), "--limit", "3", "--workers", "2"]) == 0
    rows = json.loads((out / "summary.json").read_text())
    assert [r["size"] for r in rows] == [2, 10, 16, "all"]
    expected = {
        "size",
        "data_sets",
        "paper_data_sets",
        "lemke_frac_solved",
        "lemke_ave_starts",
        "lemke_ave_iter",
        "fip_frac_solved",
        "fip_ave_iter",
        "newton_frac_solved",
        "newton_ave_iter",
        "any_frac_solved",
        "paper_lemke_frac_solved",
        "paper_lemke_ave_restarts",
        "paper_lemke_ave_iter",
        "paper_fip_frac_solved",
        "paper_fip_ave_iter",
    }
    assert expected <= set(rows[0])
    assert rows[-1]["any_frac_solved"] == 1.0
    # cm.decide per data set: every one decided solved here, none proven unsolvable or undecided
    assert rows[-1]["decide_frac_solved"] == 1.0
    assert rows[-1]["proven_unsolvable"] == 0 and rows[-1]["undecided"] == 0
    assert rows[-1]["no_solution_below_bound"] == 0
    assert (out / "runs.sqlite").is_file()
    assert (out / "trinkle1997-table1_solved.png").stat().st_size > 0
    assert (out / "trinkle1997-table1_profile.png").stat().st_size > 0
    printed = capsys.readouterr()
    # the former name is an alias; what ran is said before running: 3 instances x 5 solver
    # variants (lemke, lemke-100, fip, newton and cm.decide)
    assert "trinkle1997-table1: 3 instances x 5 solver variants" in printed.err
    assert "= 15 runs; --limit 3 counts instances" in printed.err
    lines = printed.out.splitlines()
    assert lines[0].split()[:4] == ["size", "data_sets", "ours", "/"]
    assert lines[2].split()[:4] == ["2", str(rows[0]["data_sets"]), "/", str(rows[0]["paper_data_sets"])]
    assert lines[5].split()[0] == "all"
    for name in ("runs.sqlite", "summary.json", "summary.csv", "trinkle1997-table1_solved.png"):
        assert any(line.strip().removeprefix("wrote ").strip() == str(out / name) for line in lines)
    csv_rows = (out / "summary.csv").read_text().splitlines()
    assert csv_rows[0].startswith("size,data_sets,paper_data_sets,") and len(csv_rows) == len(rows) + 1
    assert main(["experiment", "profile", "--out", str(out)]) == 0
    assert (out / "profile.png").is_file()
    capsys.readouterr()


def test_scara_and_example1_experiments_on_a_few_instances(tmp_path: Path, capsys) -> None:
    scara = tmp_path / "scara"
    assert (
        main(["experiment", "andreani2002-scara", "--out", str(scara), "--limit", "1", "--workers", "2"]) == 0
    )
    rows = json.loads((scara / "summary.json").read_text())
    mncp = next(
        r
        for r in rows
        if r.get("friction") == "cone" and r.get("family") == "rolling" and r["solver"] == "ipopt"
    )
    assert mncp["paper_solved"] == 183 and mncp["data_sets"] == 1
    assert any("agree_cp1" in r for r in rows)
    grid = tmp_path / "grid"
    assert (
        main(["experiment", "trinkle1997-rod-cube", "--out", str(grid), "--limit", "2", "--workers", "2"])
        == 0
    )
    rows = json.loads((grid / "summary.json").read_text())
    assert {r["zeta"] for r in rows} == {2.0, 0.0}
    assert all(r["paper_solved"] == 400 for r in rows)
    assert list(grid.glob("trinkle1997-rod-cube_fig3_*.png"))
    assert "2 instances x 2 solver variants (ipopt, newton) = 4 runs" in capsys.readouterr().err


def test_decide_record_keeps_the_verdict_and_its_evidence() -> None:
    import importlib.util

    from contactmodel.experiments.runner import _decide_record

    path = Path(__file__).resolve().parents[2] / "examples" / "painleve.py"
    spec = importlib.util.spec_from_file_location("_runner_painleve", path)
    painleve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(painleve)
    import contactmodel as cm

    record = _decide_record(cm.formulate(painleve.build(2.0), friction=cm.Pyramid(2.0)), {})
    assert record["status"] == "no-solution" and record["residual"] is None
    assert record["extras"]["exact"] is True and "Farkas" in record["message"]
    assert record["extras"]["q_dot_y"] < 0
    record = _decide_record(cm.formulate(painleve.build(1.0), friction=cm.Pyramid(1.0)), {})
    assert record["status"] == "unique" and record["residual"] <= 1e-8
    assert reports.ok(record)


def test_table1_counts_each_decide_verdict_in_its_own_column() -> None:
    # one size-170 problem at four mu: proven unsolvable, unsolvable below a norm bound only
    # (existence open, so neither proven unsolvable nor solved), undecided, solved
    statuses = ["no-solution", "no-solution-below-bound", "undecided", "solved"]
    rows = [
        {
            "instance": {"family": "boxes", "size": 170, "seed": 0, "mu": mu},
            "friction": "pyramid",
            "solver": "decide",
            "label": "decide",
            "status": status,
            "iterations": 0,
            "seconds": 1.0,
            "extras": {},
        }
        for mu, status in zip((1.0, 0.9, 0.8, 0.7), statuses)
    ]
    for entry in (reports.table1(rows)[0], reports.table1(rows)[-1]):
        assert entry["data_sets"] == 4 and entry["decide_frac_solved"] == 0.25
        assert entry["proven_unsolvable"] == 1
        assert entry["no_solution_below_bound"] == 1
        assert entry["undecided"] == 1
