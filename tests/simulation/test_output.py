"""Trajectory output: npz round trip, CSV, summary, pictures and the ``simulate`` command."""

from __future__ import annotations

import csv

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.cli import main
from contactmodel.simulation import animate, load, plot, simulate

from .scenes import sliding_box


@pytest.fixture(scope="module")
def traj():
    system, planes = sliding_box()
    return simulate(system, 0.05, 1e-2, cm.Pyramid(0.5), "lemke", planes)


@pytest.mark.parametrize("suffix", [".npz", ".h5"])
def test_save_load_round_trip(traj, tmp_path, suffix):
    if suffix == ".h5":
        pytest.importorskip("h5py", reason="HDF5 trajectories need h5py (extra fclib)")
    back = load(traj.save(tmp_path / f"run{suffix}"))
    for name in ("times", "positions", "quaternions", "velocities", "kinetic", "potential", "residual"):
        assert np.array_equal(getattr(back, name), getattr(traj, name))
    assert back.status == traj.status and back.body_names == traj.body_names
    for name in traj.impulses:
        assert np.array_equal(back.impulses[name], traj.impulses[name], equal_nan=True)
        assert list(back.modes[name]) == list(traj.modes[name])
    with pytest.raises(cm.ContactModelError, match="does not exist"):
        load(tmp_path / f"missing{suffix}")
    assert np.array_equal(back.timings["solve"], traj.timings["solve"])


def test_csv_has_one_row_per_time(traj, tmp_path):
    path = traj.to_csv(tmp_path / "run.csv")
    rows = list(csv.reader(path.open()))
    assert len(rows) == len(traj.times) + 1
    header = rows[0]
    assert header[:4] == ["t", "box.x", "box.y", "box.z"]
    col = header.index("box.x")
    assert np.allclose([float(r[col]) for r in rows[1:]], traj.positions[:, 0, 0])
    mode_col = header.index("box.v0@plane.mode")
    assert rows[1][mode_col] == traj.modes["box.v0@plane"][0] != ""


def test_summary_and_pictures(traj, tmp_path):
    text = traj.summary()
    assert "steps: 5" in text and "box" in text
    gif = animate(traj, out=tmp_path / "run.gif")
    assert gif.stat().st_size > 1000 and gif.read_bytes()[:3] == b"GIF"
    png = plot(traj, out=tmp_path / "run.png")
    assert png.read_bytes()[:4] == b"\x89PNG"


MODEL = """
import contactmodel as cm
from contactmodel.shapes import Box

def build():
    s = cm.System()
    s.add_body("box", 1.0, cm.inertia.box(1.0, (0.2, 0.2, 0.2)), position=(0, 0, 0.1),
               velocity=(0.5, 0, 0), shape=Box((0.2, 0.2, 0.2)))
    return s

def simulation():
    return {"planes": [cm.Plane()]}
"""


def test_command_line(tmp_path, capsys):
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    out = tmp_path / "run.npz"
    argv = ["simulate", str(model), "--t-end", "0.03", "--dt", "0.01", "--friction", "pyramid:0.5"]
    code = main([*argv, "--solver", "lemke", "--out", str(out), "--no-progress"])
    assert code == 0
    text = capsys.readouterr().out
    assert "steps: 3" in text and "wrote" in text
    assert load(out).n_steps == 3
    assert main([*argv, "--solver", "lemke", "--step-tol", "0", "--out", str(out), "--no-progress"]) == 0
    assert load(out).step_tol == 0.0
    assert main([*argv, "--step-tol", "-1", "--no-progress"]) == 2
    assert main([*argv, "--out", str(tmp_path / "run.txt")]) == 2
    assert main(["simulate", str(tmp_path / "nothing.py")]) == 2
