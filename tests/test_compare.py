"""cm.compare: solvers over the user's own problems. Each row of the comparison is the answer
cm.solve gives one by one; the tables fit a terminal; the profiles are written; decide is a verdict,
not a solver; the store resumes; the CLI writes its files."""

from __future__ import annotations

import csv
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.cli import main
from contactmodel.compare import CompareError, Comparison, variants
from contactmodel.errors import SolverError
from contactmodel.experiments import sources
from contactmodel.experiments.runner import DECIDE, Store

FCLIB = Path(__file__).resolve().parent / "data" / "fclib"
#: Siconos text files always; an HDF5 one where h5py (the ``fclib`` extra) is installed
FILES = [FCLIB / "FC3D_Example1.dat", FCLIB / "Rover11035.dat"] + (
    [FCLIB / "LMGC_GFC3D-i00001-1-00000.hdf5"] if importlib.util.find_spec("h5py") else []
)
CASES = ["catalogue:box_sliding", "catalogue:two_finger_grip"]


def _one_by_one(comparison: Comparison, found: list[sources.Source], chosen, friction: str = "model") -> None:
    """Every record has the status and residuals cm.solve gives for its problem and solver alone."""
    by_name = {s.name: s for s in found}
    assert len(comparison.records) == len(found) * len(chosen)
    for record in comparison.records:
        variant = next(v for v in chosen if v.label == record["solver"])
        problem = sources.build(by_name[record["problem"]].instance, friction)
        try:
            solution = cm.solve(problem, solver=variant.solver, **variant.settings)
        except SolverError:
            assert record["status"] == "unsupported", record
            continue
        assert record["status"] == solution.status.value, record
        assert math.isclose(record["residual"], solution.residual, rel_tol=1e-3, abs_tol=1e-12), record
        law = solution.checks.get("law_residual")
        if law is not None:
            assert math.isclose(record["law_residual"], law, rel_tol=1e-3, abs_tol=1e-12), record


def test_catalogue_rows_agree_with_solve_one_by_one_and_decide_is_a_verdict(tmp_path):
    chosen = variants(["newton", "lemke", ("newton", {"tol": 1e-12})])
    comparison = cm.compare(CASES, chosen, friction="pyramid", decide_time_limit=30)
    assert comparison.problems == ["box_sliding", "two_finger_grip"]
    assert comparison.solvers == ["newton", "lemke", "newton(tol=1e-12)"]
    _one_by_one(comparison, sources.sources(CASES), chosen, "pyramid")
    # four feet: the forces are not unique; the grip's two contacts carry a unique load
    assert comparison.verdicts == {"box_sliding": "multiple", "two_finger_grip": "unique"}
    grip = [r for r in comparison.records if r["problem"] == "two_finger_grip"]
    assert all(r["agree"] is True for r in grip)
    assert all(r["agree"] is None for r in comparison.records if r["problem"] == "box_sliding")
    # decide is in the store, not among the solvers of the profiles
    assert any(r["solver"] == DECIDE for r in comparison.rows)
    curves = comparison.performance_profile(tmp_path / "profile.png")
    assert set(curves) == {"newton", "lemke", "newton(tol=1e-12)"}
    assert (tmp_path / "profile.png").stat().st_size > 1000
    data = comparison.data_profile(tmp_path / "data.png")
    assert [y for _, y in data["lemke"]] == [0.5, 1.0]  # both problems, each within its own time
    assert (tmp_path / "data.png").stat().st_size > 1000


def test_fclib_files_rows_agree_with_solve_one_by_one():
    chosen = variants(["newton", "scipy"])
    comparison = cm.compare([str(p) for p in FILES], chosen, decide=False, time_limit=30)
    assert comparison.problems == [p.name for p in FILES]
    assert set(comparison.verdicts.values()) == {None}
    _one_by_one(comparison, sources.sources([str(p) for p in FILES]), chosen)
    solved = [r for r in comparison.records if r["solver"] == "newton"]
    assert all(r["status"] == "solved" for r in solved)


def test_a_folder_and_lcp_files_and_objects_are_problems(tmp_path):
    for name in ("lcp_CPS_1.dat", "lcp_exp_murty.dat"):
        (tmp_path / name).write_bytes((FCLIB.parent / "lcp" / name).read_bytes())
    found = sources.sources(tmp_path)
    assert [s.instance["family"] for s in found] == ["lcp", "lcp"]
    problem = cm.formulate(cm.catalogue.get("box_push_static").build(), friction=cm.Pyramid(0.5))
    given = {"folder": tmp_path, "box": problem, "lcp": cm.LCP(np.eye(2), [-1.0, 1.0])}
    comparison = cm.compare(given, "lemke")
    assert comparison.problems == ["lcp_CPS_1.dat", "lcp_exp_murty.dat", "box", "lcp"]
    assert comparison.verdicts["lcp"] == "unique"  # M = I is a P-matrix
    assert next(r for r in comparison.records if r["problem"] == "lcp")["agree"] is True


def test_tables_fit_the_terminal_and_csv_keeps_every_record(tmp_path):
    comparison = cm.compare(CASES, ["newton", "lemke"], friction=["cone", "pyramid"], decide=False)
    for width in (80, 100):
        assert max(len(line) for line in comparison.table(width).splitlines()) <= width
    assert max(len(line) for line in comparison.to_markdown(100).splitlines()) <= 100
    assert "…" in comparison.table(80)  # the names gave way
    assert comparison.to_latex().startswith("\\begin{tabular}")
    with comparison.to_csv(tmp_path / "c.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 8 and {r["problem"] for r in rows} == {
        "box_sliding [cone]",
        "box_sliding [pyramid]",
        "two_finger_grip [cone]",
        "two_finger_grip [pyramid]",
    }
    lemke = {r["problem"]: r["status"] for r in rows if r["solver"] == "lemke"}
    assert lemke["two_finger_grip [cone]"] == "unsupported"  # rolling cone contacts: not an LCP
    assert lemke["box_sliding [cone]"] == "solved"  # sliding contacts: friction is a function of c_n


def test_the_store_resumes_and_a_pool_gives_the_same_answers(tmp_path):
    store = tmp_path / "runs.sqlite"
    first = cm.compare(CASES, ["lemke"], friction="pyramid", decide=False, store=store)
    with Store(store) as db:
        count = len(db.rows())
    again = cm.compare(CASES, ["lemke"], friction="pyramid", decide=False, store=store, workers=2)
    with Store(store) as db:
        assert len(db.rows()) == count  # nothing ran twice
    assert [r["residual"] for r in again.records] == [r["residual"] for r in first.records]
    pooled = cm.compare(CASES, ["lemke"], friction="pyramid", decide=False, workers=2)
    assert [r["status"] for r in pooled.records] == [r["status"] for r in first.records]


def test_bad_requests_name_the_fix():
    with pytest.raises(SolverError, match="did you mean 'newton'"):
        variants(["newtn"])
    with pytest.raises(CompareError, match="repeat"):
        variants(["newton", ("newton", "lemke", {})])
    with pytest.raises(cm.ContactModelError, match="did you mean 'box_sliding'"):
        sources.sources("catalogue:box_slidng")
    with pytest.raises(cm.ContactModelError, match="no file or folder"):
        sources.sources("no/such/file.hdf5")


def test_the_command_writes_its_tables_and_profiles(tmp_path, capsys):
    code = main(
        ["compare", *CASES, "--solvers", "lemke", 'tight=lemke:{"max_pivots": 500}']
        + ["--friction", "pyramid", "--no-decide", "--out", str(tmp_path), "--width", "90", "-q"]
    )
    assert code == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"compare.csv", "compare.md", "compare.tex", "compare_profile.png"} <= names
    assert "compare_data_profile.png" in names
    assert "| tight |" in (tmp_path / "compare.md").read_text()


def test_experiment_tables_come_in_blocks_that_fit_and_profiles_leave_decide_out(tmp_path):
    from contactmodel.experiments import reports

    columns = [f"column_number_{k}" for k in range(12)]
    summary = [{c: 0.125 * k for k, c in enumerate(columns)}, {c: 7 for c in columns}]
    text = reports.text_table(summary, columns, width=100)
    assert max(len(line) for line in text.splitlines()) <= 100
    assert text.count("column_number_0") == len(text.split("\n\n")) > 1  # each block repeats the first
    row = {"instance": {"family": "lcp", "path": "x"}, "friction": "model", "iterations": 1, "residual": 0.0}
    rows = [
        {**row, "solver": "lemke", "label": "lemke", "status": "solved", "seconds": 0.5},
        {**row, "solver": DECIDE, "label": DECIDE, "status": "unique", "seconds": 0.1},
    ]
    assert set(reports.performance_profile(rows, tmp_path / "p.png")) == {"lemke"}
    assert set(reports.data_profile(rows, tmp_path / "d.png")) == {"lemke"}
