"""Every bad input of the random-input harness (damaged files, misplaced arguments, impossible
declarations and options) raises a ContactModelError subclass naming the field or file and the
fix; the inputs that are valid are documented, and their behaviour is tested here too.

Each case is one row of :data:`CASES`: (id, the call, the error class, words its message must hold).
"""

from __future__ import annotations

import json
import os
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.errors import (
    ArgumentKindError,
    ContactModelError,
    DataFileError,
    DeclarationError,
    FrictionLawError,
    NoContactsWarning,
    OptionError,
)
from contactmodel.io.fclib import read_fclib
from contactmodel.io.siconos_fc import read_siconos_fc
from contactmodel.io.siconos_lcp import read_lcp
from contactmodel.simulation.trajectory import load as load_trajectory


def _box(name: str = "box", x: float = 0.0, mu: float = 0.5, system: cm.System | None = None) -> cm.System:
    """A 1 kg box resting on the ground on one contact (a Painleve-free, well-posed problem)."""
    system = system or cm.System()
    body = system.add_body(name, mass=1.0, inertia=0.1 * np.eye(3), position=(x, 0.0, 0.5))
    system.add_contact(
        body, system.ground, point=(x, 0.0, 0.0), normal=(0.0, 0.0, 1.0), friction=cm.Pyramid(mu)
    )
    return system


@pytest.fixture(scope="module")
def solved() -> tuple[cm.Problem, cm.Solution, cm.Problem]:
    """A problem, its solution, and another problem (two boxes, other contact names)."""
    problem = cm.formulate(_box())
    other = cm.formulate(_box("b2", 2.0, system=_box("b1", 0.0)))
    return problem, cm.solve(problem), other


@pytest.fixture(scope="module")
def trajectory() -> cm.Trajectory:
    system = cm.System()
    system.add_body(
        "box",
        1.0,
        cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
        position=(0, 0, 0.1),
        shape=cm.shapes.Box((0.2,) * 3),
    )
    return cm.simulate(system, 0.01, 5e-3, planes=[cm.Plane()], friction=cm.Pyramid(0.5), solver="lemke")


# -- files ------------------------------------------------------------------------------------------


def _fclib_local(h5py, path: Path, drop: str | None = None) -> Path:
    """A valid FCLIB local problem (one contact), or one whose W group lacks dataset ``drop``."""
    with h5py.File(path, "w") as h5:
        g = h5.create_group("fclib_local")
        g.create_dataset("spacedim", data=np.array([3], dtype=np.int32))
        W = g.create_group("W")
        arrays = {"m": [3], "n": [3], "nz": [-1], "nzmax": [3], "p": [0, 1, 2, 3], "i": [0, 1, 2]}
        for key, value in arrays.items():
            if key != drop:
                W.create_dataset(key, data=np.array(value, dtype=np.int32))
        if drop != "x":
            W.create_dataset("x", data=np.ones(3))
        g.create_dataset("vectors/q", data=np.array([-1.0, 0.0, 0.0]))
        g.create_dataset("vectors/mu", data=np.array([0.5]))
    return path


FILE_CONTENT = {
    "text": b"this is a text file, not the format\n" * 20,
    "empty": b"",
    "random": np.random.default_rng(0).bytes(4096),
}


@pytest.mark.parametrize("content", sorted(FILE_CONTENT))
def test_fclib_file_that_is_not_hdf5(tmp_path: Path, content: str) -> None:
    pytest.importorskip("h5py")
    path = tmp_path / "problem.hdf5"
    path.write_bytes(FILE_CONTENT[content])
    with pytest.raises(DataFileError, match=r"problem\.hdf5 cannot be read as an FCLIB problem.*not HDF5"):
        read_fclib(path)


def test_fclib_missing_file(tmp_path: Path) -> None:
    pytest.importorskip("h5py")
    with pytest.raises(DataFileError, match=r"nope\.hdf5 does not exist"):
        read_fclib(tmp_path / "nope.hdf5")


def test_fclib_truncated_file(tmp_path: Path) -> None:
    h5py = pytest.importorskip("h5py")
    path = _fclib_local(h5py, tmp_path / "whole.hdf5")
    assert read_fclib(path).nc == 1  # the whole file reads
    data = path.read_bytes()
    cut = tmp_path / "cut.hdf5"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataFileError, match=r"cut\.hdf5 cannot be read.*truncated"):
        read_fclib(cut)


@pytest.mark.parametrize("dataset", ["p", "i", "x"])
def test_fclib_w_group_without_a_dataset(tmp_path: Path, dataset: str) -> None:
    h5py = pytest.importorskip("h5py")
    path = _fclib_local(h5py, tmp_path / "w.hdf5", drop=dataset)
    with pytest.raises(
        DeclarationError, match=rf"w\.hdf5: sparse matrix /fclib_local/W has no dataset '{dataset}'"
    ):
        read_fclib(path)


def test_siconos_missing_files(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match=r"missing\.dat does not exist"):
        read_siconos_fc(tmp_path / "missing.dat")
    with pytest.raises(DataFileError, match="is a folder"):
        read_lcp(tmp_path)


@pytest.mark.parametrize("content", ["text", "random"])
def test_siconos_file_of_another_kind(tmp_path: Path, content: str) -> None:
    path = tmp_path / "fc.dat"
    path.write_bytes(FILE_CONTENT[content])
    with pytest.raises(DeclarationError, match=r"fc\.dat: line \d+"):
        read_siconos_fc(path)


def test_siconos_header_larger_than_the_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.dat"
    # a dense 3e9 x 3e9 W announced (1e9 contacts): refused, not allocated
    path.write_text("3 1000000000\n0 3000000000 3000000000\n3000000000 3000000000\n1 2 3\n")
    with pytest.raises(DeclarationError, match=r"huge\.dat: line .*numbers expected.*truncated"):
        read_siconos_fc(path)


def _npz_with_header(path: Path, header: str) -> Path:
    np.savez(path, header=np.array(header), times=np.zeros(1))
    return path


@pytest.mark.parametrize("suffix", [".npz", ".h5"])
@pytest.mark.parametrize("content", sorted(FILE_CONTENT))
def test_trajectory_file_that_is_not_one(tmp_path: Path, content: str, suffix: str) -> None:
    if suffix == ".h5":
        pytest.importorskip("h5py")
    path = tmp_path / f"run{suffix}"
    path.write_bytes(FILE_CONTENT[content])
    with pytest.raises(DataFileError, match=rf"run\{suffix}"):
        load_trajectory(path)


@pytest.mark.parametrize("suffix", [".npz", ".h5"])
def test_trajectory_truncated_file(tmp_path: Path, trajectory, suffix: str) -> None:
    if suffix == ".h5":
        pytest.importorskip("h5py")
    path = trajectory.save(tmp_path / f"whole{suffix}")
    assert load_trajectory(path).n_steps == trajectory.n_steps
    data = path.read_bytes()
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(DataFileError, match=rf"cut\{suffix}.*(truncated|not a)"):
        load_trajectory(cut)


def test_trajectory_header_that_is_not_json(tmp_path: Path) -> None:
    path = _npz_with_header(tmp_path / "bad.npz", "{not json")
    with pytest.raises(DataFileError, match=r"bad\.npz' cannot be read as a trajectory \(JSONDecodeError"):
        load_trajectory(path)
    path = _npz_with_header(tmp_path / "partial.npz", json.dumps({"dt": 0.1}))
    with pytest.raises(DataFileError, match=r"partial\.npz' cannot be read as a trajectory \(KeyError"):
        load_trajectory(path)
    with pytest.raises(DataFileError, match="does not exist"):
        load_trajectory(tmp_path / "missing.npz")


def test_trajectory_save_creates_folders_and_returns_the_file_written(tmp_path: Path, trajectory) -> None:
    path = trajectory.save(tmp_path / "new" / "folder" / "run.npz")
    assert path == tmp_path / "new" / "folder" / "run.npz" and zipfile.is_zipfile(path)
    bare = trajectory.save(tmp_path / "bare")
    assert bare == tmp_path / "bare.npz" and bare.is_file()
    upper = trajectory.save(tmp_path / "RUN.NPZ")
    assert upper.is_file() and not (tmp_path / "RUN.NPZ.npz").exists()
    assert np.array_equal(load_trajectory(upper).positions, trajectory.positions)


@pytest.mark.parametrize("name", ["t.xyz", "t.csv", "t.json"])
def test_trajectory_save_with_a_suffix_of_another_format(tmp_path: Path, trajectory, name: str) -> None:
    with pytest.raises(DataFileError, match=r"suffix .* names no format.*\.npz.*\.h5"):
        trajectory.save(tmp_path / name)
    assert os.listdir(tmp_path) == []  # nothing written, no other file made in its place
    (tmp_path / "folder.npz").mkdir()
    with pytest.raises(DataFileError, match="is a folder"):
        trajectory.save(tmp_path / "folder.npz")


# -- arguments and declarations ---------------------------------------------------------------------


def _declaration_cases(solved) -> list[tuple[str, Callable[[], object], type, str]]:
    problem, solution, other = solved
    failed = cm.Solution(cm.Status.FAILED, "newton", float("nan"), 10, 0.0, None)
    system = _box()
    return [
        ("verify-none", lambda: cm.verify(None, problem), ArgumentKindError, "solution=None"),
        ("verify-swapped", lambda: cm.verify(problem, solution), ArgumentKindError, "arguments are swapped"),
        ("verify-other-problem", lambda: cm.verify(solution, other), ArgumentKindError, "of another problem"),
        ("verify-other-size", lambda: cm.verify(np.zeros(99), problem), ArgumentKindError, "has 99 entries"),
        ("verify-no-point", lambda: cm.verify(failed, problem), ArgumentKindError, "has no point"),
        ("verify-no-problem", lambda: cm.verify(solution, "p"), ArgumentKindError, "needs a contact Problem"),
        ("diagnose-none", lambda: cm.diagnose(None), ArgumentKindError, "needs a contact Problem"),
        ("diagnose-solution", lambda: cm.diagnose(solution), ArgumentKindError, "Solution where the Problem"),
        ("frictionless-mu", lambda: cm.Frictionless(0.5), FrictionLawError, "takes no parameter"),
        ("polygonal-huge-k", lambda: cm.Polygonal(0.5, k=10**9), FrictionLawError, "<= 1024"),
        (
            "add-body-shape-text",
            lambda: cm.System().add_body("b", mass=1.0, inertia=np.eye(3), shape="box"),
            DeclarationError,
            "body 'b'.shape must be a shape such as cm.shapes.Box",
        ),
        ("formulate-empty-system", lambda: cm.formulate(cm.System()), DeclarationError, "System is empty"),
        ("fip-negative-tol", lambda: cm.solve(problem, solver="fip", tol=-1), OptionError, "tol must be > 0"),
        ("decide-negative-time", lambda: cm.decide(problem, time_limit=-1), OptionError, "time_limit"),
        ("decide-nan-time", lambda: cm.decide(problem, time_limit=float("nan")), OptionError, "time_limit"),
        ("decide-zero-solutions", lambda: cm.decide(problem, max_solutions=0), OptionError, "max_solutions"),
        (
            "plane-normal-not-unit",
            lambda: cm.Plane(normal=(0, 0, 2)),
            DeclarationError,
            "must be a unit vector",
        ),
        (
            "contact-normal-not-unit",
            lambda: system.add_contact(system.body("box"), system.ground, point=(0, 0, 0), normal=(0, 0, 2)),
            DeclarationError,
            "must be a unit vector",
        ),
        (
            "plane-friction-text",
            lambda: cm.Plane(friction="cone"),  # a spec needs its mu ("cone:0.5")
            FrictionLawError,
            "friction spec 'cone'",
        ),
    ]


CASE_IDS = [case[0] for case in _declaration_cases((None, None, None))]


@pytest.mark.parametrize("case", CASE_IDS)
def test_bad_argument_is_a_named_error(solved, case: str) -> None:
    _, call, error, words = next(c for c in _declaration_cases(solved) if c[0] == case)
    assert issubclass(error, ContactModelError)
    with pytest.raises(error, match=words):
        call()


def test_plane_and_contact_normals_follow_one_rule() -> None:
    """Both refuse (0, 0, 2) with the same words, both accept a unit normal within the tolerance."""
    system = _box()
    messages = []
    for declare in (
        lambda n: cm.Plane(normal=n),
        lambda n: system.add_contact(system.body("box"), system.ground, point=(0, 0, 0), normal=n),
    ):
        with pytest.raises(DeclarationError) as err:
            declare((0.0, 0.0, 2.0))
        messages.append(str(err.value).split(".normal ", 1)[1])
    assert messages[0] == messages[1] == "must be a unit vector (its norm is 2); divide it by its norm"
    plane = cm.Plane(normal=(0.0, 0.6, 0.8 + 1e-12))
    assert np.linalg.norm(plane.normal) == pytest.approx(1.0, abs=1e-15)


def test_formulate_without_contacts_warns_and_gives_the_free_motion() -> None:
    """Documented as valid: a System with bodies and no contacts is the free motion under the
    bodies' wrenches; formulate says so with a UserWarning (a forgotten add_contact looks the same)."""
    system = cm.System()
    system.add_body("falling", mass=2.0, inertia=np.eye(3), wrench=(2.0, 0.0, 0.0, 0.0, 0.0, 0.0))
    with pytest.warns(NoContactsWarning, match="has no contacts"):
        problem = cm.formulate(system)
    solution = cm.solve(problem)
    assert solution.ok
    np.testing.assert_allclose(solution.bodies[0].linear_acceleration, [1.0, 0.0, -9.81], atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cm.formulate(_box())  # with contacts: no warning


def test_good_values_next_to_the_bad_ones_are_accepted() -> None:
    assert cm.Polygonal(0.5, k=1024).k == 1024
    assert isinstance(cm.Frictionless(), cm.Frictionless)
    plane = cm.Plane(friction=cm.CoulombCone(0.5))
    assert isinstance(plane.friction, cm.CoulombCone)
    system = cm.System()
    system.add_body("b", mass=1.0, inertia=np.eye(3), shape=cm.shapes.Sphere(0.1))
