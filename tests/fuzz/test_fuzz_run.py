"""The fuzz benchmark (``benchmarks/fuzz_run.py``): runs bounded by iterations, not the wall clock
(so an outcome does not depend on the machine's load), resumable chunks, and the classification
of scenes newton did not solve."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_run.py"


@pytest.fixture(scope="module")
def fr():
    spec = importlib.util.spec_from_file_location("_fuzz_run_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runs_bounded_by_iterations_not_wall_time(fr, monkeypatch) -> None:
    """By default no solver gets a wall-clock limit; --max-iter reaches newton and ipopt only."""
    assert fr.solver_options("newton", None, None) == {}
    assert fr.solver_options("ipopt", 50, None) == {"max_iter": 50}
    assert fr.solver_options("lemke", 50, None) == {}
    seen = []

    def fake_solve(problem, solver, **options):
        seen.append(options)
        raise fr.cm.SolverError("stop here")

    monkeypatch.setattr(fr.cm, "solve", fake_solve)
    scene = fr._scene(_args(fr), 1)
    row = fr.run_one(scene, "newton")
    assert seen == [{}] and row["outcome"] == "unhandled-exception"
    assert row["cpu_seconds"] >= 0


def _args(fr):
    """The scene options of the benchmark's defaults, seed 1."""
    return fr.argparse.Namespace(
        seed=1, torsion=False, max_boxes=4, max_contacts=8, torsion_form="mncp", ellipsoid_form="mncp"
    )


def test_chunks_resume_and_reproduce(fr, tmp_path, capsys) -> None:
    """A chunk run twice with --resume adds nothing; a fresh run of the same scenes gives the same
    outcomes and iteration counts (the work does not depend on time)."""
    out = tmp_path / "a.jsonl"
    argv = ["--seed", "1", "--start", "3", "--n", "3", "--solvers", "newton", "--jsonl", str(out)]
    assert fr.main(argv) == 0
    first = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["scene"] for r in first] == [3, 4, 5]
    assert fr.main([*argv, "--resume"]) == 0
    assert len(out.read_text().splitlines()) == 3
    again = tmp_path / "b.jsonl"
    assert fr.main([*argv[:-1], str(again)]) == 0
    second = [json.loads(line) for line in again.read_text().splitlines()]
    key = [(r["scene"], r["outcome"], r.get("iterations")) for r in first]
    assert key == [(r["scene"], r["outcome"], r.get("iterations")) for r in second]
    capsys.readouterr()


def test_rerun_runs_only_the_scenes_not_solved(fr, tmp_path, capsys) -> None:
    """--rerun runs again the scenes an earlier file's runs did not solve and keeps its other rows."""
    before = tmp_path / "before.jsonl"
    rows = [
        {"scene": i, "law": "pyramid", "form": "reduced", "contacts": 1, "solver": solver, "outcome": outcome}
        for i, solver, outcome in (
            (3, "newton", "solved"),
            (4, "newton", "failed"),
            (4, "lemke", "failed"),
            (5, "newton", "solved-inaccurate"),
        )
    ]
    before.write_text("".join(json.dumps(r) + "\n" for r in rows))
    after = tmp_path / "after.jsonl"
    argv = ["--seed", "1", "--solvers", "newton", "--rerun", str(before), "--jsonl", str(after)]
    assert fr.main(argv) == 0
    got = [json.loads(line) for line in after.read_text().splitlines()]
    assert got[:2] == [rows[0], rows[2]]  # kept as they were
    assert [(r["scene"], r["solver"]) for r in got[2:]] == [(4, "newton"), (5, "newton")]
    assert all("cpu_seconds" in r for r in got[2:])  # run again
    capsys.readouterr()


def test_classify_decides_a_scene_without_solution(fr, tmp_path) -> None:
    """Scene 2027 of seed 1 (pyramid, sparse form: newton reaches its iteration limit) has no
    solution: cm.decide proves it on the reduced form."""
    verdict = fr.classify_scene(fr._scene(_args(fr), 2027))
    assert verdict["class"] == "no-solution", verdict


def test_summary_counts_solved_inaccurate_as_not_solved(fr) -> None:
    rows = [
        {"scene": 0, "solver": "newton", "outcome": "solved", "law": "cone", "form": "reduced"},
        {"scene": 1, "solver": "newton", "outcome": "solved-inaccurate", "law": "cone", "form": "reduced"},
        {"scene": 2, "solver": "newton", "outcome": "failed", "law": "cone", "form": "reduced"},
    ]
    classes = [
        {"scene": 1, "solver": "newton", "class": "solution-exists"},
        {"scene": 2, "solver": "newton", "class": "no-solution"},
    ]
    text = fr.summarize(rows, classes)
    assert "newton not solved: 2 of 3" in text
    assert "not decided to have no solution: 1 (33.33%)" in text
