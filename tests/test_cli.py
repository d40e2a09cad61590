"""The ``contactmodel`` command line, run in-process through ``main``, and the friction specs."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import contactmodel as cm
from contactmodel.cli import main
from contactmodel.friction.spec import FORMS, parse_friction

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
BOX_PUSH = str(EXAMPLES / "box_push.py")
BOX_SLIDE = str(EXAMPLES / "box_slide.py")
G = 9.81


def _run_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["solve", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _check_keys(data: dict) -> None:
    keys = {"status", "solver", "residual", "iterations", "seconds", "contacts", "bodies", "joints"}
    assert keys <= set(data)
    for contact in data["contacts"]:
        assert {"name", "mode", "force", "acceleration"} <= set(contact)
    for body in data["bodies"]:
        assert {"name", "linear_acceleration", "angular_acceleration"} <= set(body)
    assert isinstance(data["joints"], list)


def test_box_push_json_stays_at_rest(capsys):
    code, data = _run_json(capsys, BOX_PUSH)
    assert code == 0
    _check_keys(data)
    assert data["status"] == "solved"
    assert data["solver"] == "newton"
    assert len(data["contacts"]) == 4
    assert all(c["mode"] == "roll" for c in data["contacts"])
    (box,) = data["bodies"]
    assert box["linear_acceleration"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-8)
    assert box["angular_acceleration"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-8)
    assert sum(c["force"][0] for c in data["contacts"]) == pytest.approx(3.0 * G, rel=1e-8)
    assert sum(c["force"][1] for c in data["contacts"]) == pytest.approx(-10.0, rel=1e-8)


def test_box_push_pyramid_lemke(capsys):
    code, data = _run_json(capsys, BOX_PUSH, "--friction", "pyramid:0.5", "--solver", "lemke")
    assert code == 0
    _check_keys(data)
    assert data["status"] == "solved"
    assert data["solver"] == "lemke"
    assert all(c["mode"].startswith("roll") for c in data["contacts"])
    assert data["bodies"][0]["linear_acceleration"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-8)


def test_box_push_table(capsys):
    assert main(["solve", BOX_PUSH, "--friction", "pyramid:0.5", "--solver", "lemke", "--tol", "1e-7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("status: solved")
    assert "solver: lemke" in out
    assert all(f"corner{i}" in out for i in range(4))


def test_box_push_sparse_form(capsys):
    code, data = _run_json(capsys, BOX_PUSH, "--form", "sparse")
    assert code == 0
    assert data["status"] == "solved"
    assert data["bodies"][0]["linear_acceleration"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-8)


def test_box_push_frictionless_accelerates(capsys):
    code, data = _run_json(capsys, BOX_PUSH, "--friction", "frictionless")
    assert code == 0
    assert data["bodies"][0]["linear_acceleration"] == pytest.approx([10.0 / 3.0, 0.0, 0.0], abs=1e-8)


def test_box_slide_decelerates_at_mu_g(capsys):
    code, data = _run_json(capsys, BOX_SLIDE)
    assert code == 0
    _check_keys(data)
    assert data["status"] == "solved"
    ax, ay, az = data["bodies"][0]["linear_acceleration"]
    assert ax == pytest.approx(-0.3 * G, abs=1e-6)
    assert (ay, az) == pytest.approx((0.0, 0.0), abs=1e-6)
    assert [c["mode"] for c in data["contacts"]] == ["slide"] * 4
    assert sum(c["force"][0] for c in data["contacts"]) == pytest.approx(3.0 * G, rel=1e-8)


def test_solvers_lists_registry(capsys):
    assert main(["solvers"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = {line.split()[0]: line.split()[1] for line in lines}
    assert names["newton"] == "yes"
    assert names["lemke"] == "yes"
    assert set(names) == set(cm.solvers.REGISTRY)


@pytest.mark.parametrize(
    "spec",
    [
        "cone",
        "cone:abc",
        "cone:-1",
        "banana:0.5",
        "polygon:0.5:2",
        "polygon:0.5:x",
        "ellipsoid:0.5:1",
        "ellipsoid:0.5:1:1:1:sideways",
        "frictionless:0.3",
        "pyramid:0.5:0.5",
        "",
    ],
)
def test_bad_friction_spec_exits_2(capsys, spec):
    assert main(["solve", BOX_PUSH, "--friction", spec]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ")
    assert all(form in captured.err for form in FORMS)


def test_model_without_build_exits_2(capsys, tmp_path):
    model = tmp_path / "nobuild.py"
    model.write_text("import contactmodel as cm\n\nSYSTEM = cm.System()\n")
    assert main(["solve", str(model)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ")
    assert "build()" in captured.err


def test_build_returning_other_exits_2(capsys, tmp_path):
    model = tmp_path / "notsystem.py"
    model.write_text("def build():\n    return 42\n")
    assert main(["solve", str(model)]) == 2
    assert "contactmodel.System" in capsys.readouterr().err


def test_missing_model_file_exits_2(capsys, tmp_path):
    assert main(["solve", str(tmp_path / "absent.py")]) == 2
    assert "not found" in capsys.readouterr().err


def test_contact_without_law_exits_2(capsys, tmp_path):
    model = tmp_path / "nolaw.py"
    model.write_text(
        "import contactmodel as cm\n\n"
        "def build():\n"
        "    s = cm.System()\n"
        "    b = s.add_body('b', mass=1.0, inertia=cm.inertia.sphere(1.0, 0.1), position=(0, 0, 0.1))\n"
        "    s.add_contact(b, s.ground, point=(0, 0, 0), normal=(0, 0, 1))\n"
        "    return s\n"
    )
    assert main(["solve", str(model)]) == 2
    assert "no friction law" in capsys.readouterr().err


def test_unknown_solver_exits_2(capsys):
    assert main(["solve", BOX_PUSH, "--solver", "nope"]) == 2
    assert "unknown solver" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [[], ["solve"], ["solve", BOX_PUSH, "--form", "dense"], ["solve", BOX_PUSH, "--tol", "-1"]],
)
def test_bad_arguments_exit_2(capsys, argv):
    assert main(argv) == 2
    assert "error" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("spec", "cls", "params"),
    [
        ("cone:0.5", cm.CoulombCone, {"mu": 0.5}),
        ("pyramid:0.5", cm.Pyramid, {"mu": 0.5}),
        ("polygon:0.5:8", cm.Polygonal, {"mu": 0.5, "k": 8}),
        ("polygon:0.4", cm.Polygonal, {"mu": 0.4, "k": 8}),
        ("frictionless", cm.Frictionless, {}),
        ("planar:0.5", cm.Planar, {"mu": 0.5}),
        ("ellipsoid:0.5", cm.Ellipsoid, {"mu": 0.5, "e_t": 1.0, "e_o": 1.0, "e_r": 1.0}),
        ("ellipsoid:0.5:1:2:0.1", cm.Ellipsoid, {"mu": 0.5, "e_t": 1.0, "e_o": 2.0, "e_r": 0.1}),
        ("ellipsoid:0.9:1:1:2:opposite", cm.Ellipsoid, {"e_r": 2.0, "direction": "opposite"}),
        ("ellipsoid:0.9", cm.Ellipsoid, {"direction": "max-work", "form": "soc", "auto": True}),
        ("ellipsoid:0.9:mncp", cm.Ellipsoid, {"form": "mncp", "auto": False}),
        ("ellipsoid:0.9:soc", cm.Ellipsoid, {"direction": "max-work", "form": "soc", "auto": False}),
        ("ellipsoid:0.9:1:1:2:opposite:soc", cm.Ellipsoid, {"direction": "opposite", "form": "soc"}),
        ("elliptic-torsion:0.5:1:2:0.1", cm.EllipticTorsion, {"mu": 0.5, "e_t": 1.0, "e_o": 2.0, "e_r": 0.1}),
        ("elliptic-torsion:0.5:soc", cm.EllipticTorsion, {"mu": 0.5, "form": "soc"}),
        ("elliptic-torsion:0.5:1:2:0.1:mncp", cm.EllipticTorsion, {"e_r": 0.1, "form": "mncp"}),
        ("anisotropic:0.2:0.6", cm.AnisotropicCone, {"mu_t": 0.2, "mu_o": 0.6, "form": "soc", "auto": True}),
        ("anisotropic:0.2:0.6:mncp", cm.AnisotropicCone, {"form": "mncp", "auto": False}),
        (" Cone : 0.25 ", cm.CoulombCone, {"mu": 0.25}),
    ],
)
def test_parse_friction(spec, cls, params):
    law = parse_friction(spec)
    assert type(law) is cls
    assert {k: getattr(law, k) for k in params} == params


def test_parse_friction_error_type():
    with pytest.raises(cm.FrictionLawError, match="accepted forms"):
        parse_friction("coulomb:0.5")


@pytest.mark.skipif(shutil.which("contactmodel") is None, reason="console script not installed")
def test_console_script_solvers():
    done = subprocess.run(
        [shutil.which("contactmodel"), "solvers"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert {"newton", "lemke"} <= {line.split()[0] for line in done.stdout.splitlines()}


def test_all_solutions_json(capsys):
    """The sliding box has one motion: every solution found is shaped like a single solve's."""
    code, data = _run_json(capsys, BOX_SLIDE, "--all-solutions")
    assert code == 0
    assert len(data["solutions"]) >= 1
    for solution in data["solutions"]:
        _check_keys(solution)
        assert solution["bodies"][0]["linear_acceleration"][0] == pytest.approx(-0.3 * 9.81, abs=1e-6)


def test_all_solutions_none_for_painleve_beyond_the_threshold(capsys):
    code, data = _run_json(
        capsys, str(EXAMPLES / "painleve.py"), "--friction", "pyramid:2.0", "--all-solutions"
    )
    assert code == 1 and data["solutions"] == []


ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pyomo", "scipy", "matplotlib", "cdd", "h5py", "numba", "dask", "tqdm", "contactmodel.experiments")


def _python(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120, env=env, check=False
    )


@pytest.mark.parametrize(
    "code",
    [
        "import contactmodel",
        "import contactmodel.cli",
        "from contactmodel.cli import main; main(['--help'])",
    ],
)
def test_import_and_help_load_no_heavy_module(code):
    """``import contactmodel``, ``--help`` and argument errors stay fast: none of the heavy packages
    (Pyomo ~1 s, SciPy, matplotlib ~0.8 s, ...) is imported until a command needs it."""
    done = _python(f"{code}\nimport sys\nprint(sorted(sys.modules))")
    loaded = set(json.loads(done.stdout.splitlines()[-1].replace("'", '"')))
    assert not {m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)}, done.stderr


def test_solve_usage_error_loads_no_heavy_module():
    """``solve --fricton`` answers with ``solve``'s usage before anything heavy is imported."""
    done = _python(
        "import sys\nfrom contactmodel.cli import main\ncode = main(['solve', 'MODEL.py', '--fricton'])\n"
        "print(code, sorted(sys.modules))"
    )
    code, modules = done.stdout.splitlines()[-1].split(" ", 1)
    loaded = set(json.loads(modules.replace("'", '"')))
    assert code == "2" and "usage: contactmodel solve" in done.stderr
    assert not {m for m in loaded if m.split(".")[0] in (*HEAVY, "numpy")}, sorted(loaded)


def test_cli_solve_imports_only_what_it_needs():
    """``contactmodel solve MODEL.py`` loads no Pyomo (the model is never read), nor the SciPy
    subpackages Pyomo would import for its own optional features (``scipy.stats`` ~1 s; see
    ``contactmodel._pyomo``), nor ``scipy.optimize``, ``scipy.spatial`` or matplotlib; with SciPy
    imported before contactmodel as well."""
    unwanted = {"pyomo", "scipy.stats", "scipy.optimize", "scipy.spatial", "scipy.integrate"}
    unwanted.add("matplotlib")
    for first in ("", "import scipy.sparse\n"):
        done = _python(
            f"{first}import sys\nfrom contactmodel.cli import main\n"
            f"code = main(['solve', {BOX_PUSH!r}, '-q'])\nprint(code, sorted(sys.modules))"
        )
        code, modules = done.stdout.splitlines()[-1].split(" ", 1)
        loaded = set(json.loads(modules.replace("'", '"')))
        assert code == "0", done.stderr
        assert not unwanted & loaded, sorted(unwanted & loaded)


def test_lazy_names_resolve_to_the_objects():
    assert set(cm.__all__) <= set(dir(cm))
    for name in cm.__all__:
        assert getattr(cm, name) is not None
    importlib.import_module("contactmodel.draw")  # importing the submodules keeps the functions
    importlib.import_module("contactmodel.solve")
    assert callable(cm.solve) and cm.solve.__module__ == "contactmodel.solve"
    assert callable(cm.draw) and cm.draw.__module__ == "contactmodel.draw"
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        cm.nonexistent  # noqa: B018


def test_version_is_the_installed_distributions():
    metadata = pytest.importorskip("importlib.metadata")
    try:
        installed = metadata.version("contactmodel")
    except metadata.PackageNotFoundError:
        pytest.skip("contactmodel is not installed (pip install -e .)")
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cm.__version__ == installed == declared
    done = _python("import runpy; runpy.run_module('contactmodel', run_name='__main__')", "--version")
    assert done.returncode == 0 and done.stdout == f"contactmodel {declared}\n"


def test_python_m_contactmodel_runs_the_command():
    done = _python("import runpy; runpy.run_module('contactmodel', run_name='__main__')", "solvers")
    assert done.returncode == 0, done.stderr
    assert {"newton", "lemke"} <= {line.split()[0] for line in done.stdout.splitlines()}


def test_option_error_prints_the_commands_usage(capsys):
    assert main(["solve", BOX_PUSH, "--fricton", "cone:0.5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: contactmodel solve")
    assert "contactmodel solve: error: unrecognized arguments: --fricton" in err


def test_closed_stdout_ends_quietly():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(
        [sys.executable, "-m", "contactmodel", "solve", BOX_PUSH, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as proc:
        proc.stdout.close()  # the reader is gone before the command writes
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "Exception ignored" not in err


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_prints_the_status_line_only(capsys, where):
    argv = ["-q", "solve", BOX_PUSH] if where == "before" else ["solve", BOX_PUSH, "--quiet"]
    assert main(argv) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("status: solved")


def test_verbose_adds_the_checks_and_timings(capsys):
    assert main(["solve", BOX_PUSH]) == 0
    normal = capsys.readouterr().out
    assert main(["solve", BOX_PUSH, "-v"]) == 0
    verbose = capsys.readouterr().out
    assert len(verbose.splitlines()) > len(normal.splitlines())
    assert "check normal_complementarity" in verbose and "time solve" in verbose


def test_experiment_limit_must_be_positive(capsys, tmp_path):
    assert main(["experiment", "trinkle1997-rod-cube", "--out", str(tmp_path), "--limit", "0"]) == 2
    assert "--limit: must be at least 1" in capsys.readouterr().err


def _table_rows(out: str, first: str) -> list[list[str]]:
    """The whitespace-split rows of the table whose header starts with ``first``."""
    lines = out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith(first))
    rows = []
    for line in lines[start:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def test_table_prints_zero_where_zero_is_meant_and_units(capsys):
    """The pushed box stays at rest: every acceleration prints as 0 (the solve leaves ~1e-15 noise);
    the normal forces sum to the weight 3 g; columns are aligned and carry units."""
    assert main(["solve", BOX_PUSH]) == 0
    out = capsys.readouterr().out
    status = out.splitlines()[0]
    assert status.startswith("status: solved   residual (MCP, relative to ||F(0)||_inf = ")
    assert "law residual (relative): " in status
    header, *rows = _table_rows(out, "contact")
    assert header[2:4] == ["f_n", "[N]"] and "a_n" in header and "[m/s^2]" in header
    assert len(rows) == 4 and all(row[-3:] == ["0", "0", "0"] for row in rows)
    assert sum(float(row[2]) for row in rows) == pytest.approx(3.0 * G, rel=1e-5)
    body_header, body = _table_rows(out, "body")
    assert "alpha_x" in body_header and body[1:] == ["0"] * 6
    table = out[out.index("contact") :].split("\n\n")[0].splitlines()
    assert len({len(line) for line in table}) == 1  # right-aligned numbers end in one column


def test_table_keeps_values_above_the_accuracy():
    from contactmodel.solution import BodyResult, Solution

    solution = Solution(cm.Status.SOLVED, "test", 1e-9, 3, 0.001)
    solution.bodies = [BodyResult("b", [1e-12, 2e-6, -9.81], [5e-8, 0.0, -0.0])]
    row = _table_rows(solution.table(), "body")[1]
    # zero below 10 * 1e-9 * 9.81 ~ 1e-7 in the linear group, below 10 * 1e-9 * 1 in the angular one
    assert row == ["b", "0", "2e-06", "-9.81", "5e-08", "0", "0"]
    expected = "status: solved   residual (MCP, relative to ||F(0)||_inf = 1.0e+00): 1.0e-09"
    assert solution.status_line() == expected


def test_all_solutions_prints_each_solutions_table(capsys):
    assert main(["solve", BOX_SLIDE, "--all-solutions"]) == 0
    out = capsys.readouterr().out
    assert "solution 0:" in out
    rows = _table_rows(out[out.index("solution 0:") :], "body")
    assert float(rows[1][1]) == pytest.approx(-0.3 * G, rel=1e-6)
