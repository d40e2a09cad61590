"""What a user of an installed copy meets: the published experiments run from it (install marker),
a run whose every row failed says so and exits non-zero, misspelt names get a suggestion, and
solving a problem without contacts warns."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import contactmodel as cm
from contactmodel.cli import main
from contactmodel.errors import FrictionLawError, NoContactsWarning, SolverError, UnknownAttributeError
from contactmodel.experiments import generators, seeds
from contactmodel.friction.spec import parse_friction

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.install
def test_published_experiments_run_from_an_installed_copy(tmp_path):
    src = tmp_path / "src"  # a clean copy: the build writes build/ and *.egg-info next to its source
    shutil.copytree(ROOT / "contactmodel", src / "contactmodel", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CONTACTMODEL_PRESETS")}
    install = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q", str(src)],
        capture_output=True,
        text=True,
        env=env,
    )
    if install.returncode != 0:
        pytest.skip(f"could not install here: {install.stderr.strip()[-300:]}")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [python, "-c", "import contactmodel; print(contactmodel.__file__)"],
        capture_output=True,
        text=True,
        cwd=elsewhere,
        env=env,
    )
    assert where.stdout.strip().startswith(str(venv)), where.stdout + where.stderr
    for name in seeds.EXPERIMENTS:
        out = elsewhere / name
        run = subprocess.run(
            [venv / "bin" / "contactmodel", "experiment", name, "--out", str(out), "--limit", "1"]
            + ["--workers", "1", "--time-limit", "30", "-q"],
            capture_output=True,
            text=True,
            cwd=elsewhere,
            env=env,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        with sqlite3.connect(out / seeds.STORE) as db:
            statuses = [row[0] for row in db.execute("SELECT status FROM runs")]
        assert statuses and "error" not in statuses, (name, statuses)
        assert "solved" in statuses, (name, statuses)


def test_an_experiment_whose_every_run_fails_says_why_and_exits_non_zero(tmp_path, monkeypatch, capsys):
    def missing(*args, **kwargs):
        raise FileNotFoundError("no such model")

    monkeypatch.setattr(generators, "rod_cube_system", missing)  # inherited by the forked runs
    with pytest.raises(seeds.RunsFailedError, match="every one of the 2 runs.*FileNotFoundError"):
        seeds.run_experiment(seeds.ROD_CUBE, tmp_path / "a", workers=0, limit=1, progress=False)
    code = main(
        ["experiment", seeds.ROD_CUBE, "--out", str(tmp_path / "b"), "--limit", "1", "--workers", "0", "-q"]
    )
    assert code != 0
    assert "no such model" in capsys.readouterr().err


def test_misspelt_names_get_the_closest_one():
    with pytest.raises(SolverError, match=r"unknown solver 'lemkee' \(did you mean 'lemke'\?\)"):
        cm.solve(cm.LCP([[1.0]], [-1.0]), solver="lemkee")
    with pytest.raises(FrictionLawError, match=r"did you mean 'pyramid'\?"):
        parse_friction("pyramd:0.5")
    with pytest.raises(UnknownAttributeError, match=r"did you mean 'CoulombCone'\?"):
        cm.CoulombCon  # noqa: B018
    with pytest.raises(cm.ContactModelError, match=r"did you mean 'trinkle1997-rod-cube'\?"):
        seeds.resolve("trinkle1997-rodcube")
    with pytest.raises(SolverError) as unrelated:
        cm.solve(cm.LCP([[1.0]], [-1.0]), solver="xyz")
    assert "did you mean" not in str(unrelated.value)


def test_solving_a_problem_without_contacts_warns():
    system = cm.System()
    system.add_body("box", 1.0, cm.inertia.box(1.0, (0.2, 0.2, 0.2)))
    with pytest.warns(NoContactsWarning, match="no contacts"):
        solution = cm.solve(cm.formulate(system))
    assert solution.ok  # the free fall is still the answer


def test_pyproject_has_the_metadata_an_index_page_shows():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["authors"] and project["classifiers"] and project["keywords"]
    assert any(c.startswith("License ::") for c in project["classifiers"])
