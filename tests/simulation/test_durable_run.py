"""A run written as it goes survives kill -9: the file loads with every step up to the last
write, and resuming it finishes to the state of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.simulation import load

ROOT = Path(__file__).resolve().parents[2]
SCENE = ROOT / "examples" / "sim_stack.py"
T_END, DT, EVERY = 0.6, 1e-3, 20


def _build():
    sys.path.insert(0, str(SCENE.parent))
    try:
        from sim_stack import build
    finally:
        sys.path.remove(str(SCENE.parent))
    return build()


def _same_states(a, b, tol=1e-12):
    assert a.n_steps == b.n_steps
    for name in ("times", "positions", "quaternions", "velocities", "angular_velocities"):
        assert np.max(np.abs(getattr(a, name) - getattr(b, name)), initial=0.0) <= tol, name


def _killed_run(out: Path) -> int:
    """Start ``contactmodel simulate`` writing ``out``, kill -9 it once some steps are written;
    the number of steps the file held at the kill is read afterwards."""
    cmd = [
        sys.executable,
        "-m",
        "contactmodel",
        "simulate",
        str(SCENE),
        "--t-end",
        str(T_END),
        "--dt",
        str(DT),
    ]
    cmd += ["--out", str(out), "--save-every", str(EVERY), "--no-progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                if load(out).n_steps >= EVERY:  # some steps written: kill it between writes
                    time.sleep(0.15)
                    break
            except Exception:  # not created yet, or being written: try again
                pass
            time.sleep(0.05)
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read()!r}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    return proc.returncode


@pytest.mark.parametrize("suffix", [".h5", ".npz"])
def test_killed_run_loads_and_resumes_to_the_uninterrupted_state(tmp_path, suffix):
    if suffix == ".h5":
        pytest.importorskip("h5py")
    out = tmp_path / f"run{suffix}"
    assert _killed_run(out) == -signal.SIGKILL
    partial = load(out)
    assert 0 < partial.n_steps < round(T_END / DT)
    assert partial.n_steps % EVERY == 0  # every step up to the last write, nothing after
    # the same run uninterrupted, written to another file
    whole = cm.simulate(_build(), T_END, DT, out=tmp_path / f"whole{suffix}", save_every=EVERY)
    head = whole.n_steps  # compare the partial file with the same steps of the whole run
    assert head > partial.n_steps
    for name in ("positions", "velocities"):
        got, want = getattr(partial, name), getattr(whole, name)[: partial.n_steps + 1]
        assert np.max(np.abs(got - want)) <= 1e-12
    resumed = cm.simulate(_build(), T_END, DT, resume=out)
    _same_states(resumed, whole)
    _same_states(load(out), whole)
    np.testing.assert_allclose(resumed.impulses["s0.0"], whole.impulses["s0.0"], atol=1e-12)


@pytest.mark.parametrize("suffix", [".h5", ".npz"])
def test_resume_into_another_file_and_of_a_pile(tmp_path, suffix):
    if suffix == ".h5":
        pytest.importorskip("h5py")
    from .scenes import sliding_box

    def pile():
        system = cm.System(gravity=(0, 0, -9.81))
        for k in range(3):
            system.add_body(
                f"b{k}",
                1.0,
                cm.inertia.box(1.0, (0.2,) * 3),
                position=(0.03 * k, 0.02 * k, 0.1 + 0.205 * k),
                shape=cm.shapes.Box((0.2,) * 3),
            )
        return system, [cm.Plane()]

    for make in (pile, sliding_box):
        system, planes = make()
        kw = {"friction": cm.CoulombCone(0.5), "planes": planes}
        whole = cm.simulate(system, 0.2, 5e-3, out=tmp_path / f"whole{suffix}", save_every=4, **kw)
        first = tmp_path / f"first{suffix}"
        cm.simulate(make()[0], 0.1, 5e-3, out=first, save_every=4, **kw)
        second = tmp_path / f"second{suffix}"
        resumed = cm.simulate(make()[0], 0.2, 5e-3, resume=first, out=second, **kw)
        _same_states(resumed, whole)
        _same_states(load(second), whole)
        assert load(first).n_steps == 20


def test_resume_checks_the_system(tmp_path):
    from contactmodel.errors import ContactModelError

    from .scenes import sliding_box

    system, planes = sliding_box()
    out = tmp_path / "run.npz"
    cm.simulate(system, 0.05, 1e-2, friction=cm.Pyramid(0.5), planes=planes, out=out)
    with pytest.raises(ContactModelError, match="same dt"):
        cm.simulate(sliding_box()[0], 0.1, 5e-3, friction=cm.Pyramid(0.5), planes=planes, resume=out)
    with pytest.raises(ContactModelError, match="resume with the system"):
        cm.simulate(_build(), 0.1, 1e-2, resume=out)


def test_resume_past_a_half_written_part_hdf5_cannot_delete(tmp_path, monkeypatch):
    """A run killed while writing a part leaves a group that HDF5 may fail to delete; the next
    part goes under a free name, the journal names its parts, and the file loads and resumes as
    an uninterrupted run's."""
    h5py = pytest.importorskip("h5py")
    from .scenes import sliding_box

    system, planes = sliding_box()
    kw = {"friction": cm.CoulombCone(0.5), "planes": planes}
    whole = cm.simulate(system, 0.2, 5e-3, out=tmp_path / "whole.h5", save_every=4, **kw)
    out = tmp_path / "run.h5"
    cm.simulate(sliding_box()[0], 0.1, 5e-3, out=out, save_every=4, **kw)
    with h5py.File(out, "a") as fh:
        parts = int(fh.attrs["journal_parts"])
        fh.create_group(f"part{parts:06d}").create_dataset("positions", data=np.zeros(3))  # half written

    def refuse(group, name):
        raise OSError("Couldn't delete link")

    monkeypatch.setattr(h5py.Group, "__delitem__", refuse)
    resumed = cm.simulate(sliding_box()[0], 0.2, 5e-3, resume=out, **kw)
    _same_states(resumed, whole)
    _same_states(load(out), whole)
    with h5py.File(out, "r") as fh:
        names = [str(v) for v in fh.attrs["journal_names"]]
        assert len(names) == int(fh.attrs["journal_parts"])
    assert names[parts] == f"part{parts:06d}-1"
