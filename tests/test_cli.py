"""The ``contactmodel`` command line, run in-process through ``main``, and the friction specs."""

from __future__ import annotations

import json
import shutil
import subprocess
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
        ("ellipsoid:0.9", cm.Ellipsoid, {"direction": "max-work"}),
        ("elliptic-torsion:0.5:1:2:0.1", cm.EllipticTorsion, {"mu": 0.5, "e_t": 1.0, "e_o": 2.0, "e_r": 0.1}),
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
