"""The solver registry: option presets (package data and a user directory), overrides, unknown names."""

from __future__ import annotations

import os
import tomllib

import pytest

from contactmodel import solvers
from contactmodel.errors import SolverError


def test_the_shipped_newton_preset_is_applied_and_overrides_win(tmp_path, monkeypatch):
    with (solvers.CONFIG_DIR / "newton.toml").open("rb") as fh:
        preset = tomllib.load(fh)
    opts = solvers.make_options("newton", {})
    for key, value in preset.items():
        assert getattr(opts, key) == value
    # the same through a preset folder that sets values, so the checks hold whatever is shipped
    monkeypatch.setattr(solvers, "CONFIG_DIR", tmp_path)
    (tmp_path / "newton.toml").write_text("tol = 1e-9\nmax_iter = 123\n")
    opts = solvers.make_options("newton", {})
    assert (opts.tol, opts.max_iter) == (1e-9, 123)
    assert solvers.make_options("newton", {"tol": 1e-7}).tol == 1e-7
    assert solvers.make_options("newton", {}).tol == 1e-9  # the override did not stick


def test_the_shipped_presets_repeat_no_default():
    """Defaults are stated once, in the options class: a shipped preset key must change one."""
    for path in sorted(solvers.CONFIG_DIR.glob("*.toml")):
        _, options_cls = solvers.load(path.stem)
        defaults = options_cls()
        with path.open("rb") as fh:
            for key, value in tomllib.load(fh).items():
                assert getattr(defaults, key) != value, f"{path.name}: {key} repeats the default"


def test_a_user_preset_directory_overrides_the_shipped_one_key_by_key(tmp_path, monkeypatch):
    shipped, user = tmp_path / "shipped", tmp_path / "user"
    shipped.mkdir()
    user.mkdir()
    (shipped / "newton.toml").write_text("tol = 1e-9\nmax_iter = 123\n")
    (user / "newton.toml").write_text("max_iter = 7\n")
    monkeypatch.setattr(solvers, "CONFIG_DIR", shipped)
    monkeypatch.setenv(solvers.USER_CONFIG_ENV, str(user))
    assert solvers.preset_files("newton") == [shipped / "newton.toml", user / "newton.toml"]
    opts = solvers.make_options("newton", {})
    assert (opts.tol, opts.max_iter) == (1e-9, 7)
    (user / "newton.toml").write_text("max_iter = [\n")
    os.utime(user / "newton.toml", ns=(1, 1))
    with pytest.raises(SolverError, match="not valid TOML"):
        solvers.make_options("newton", {})


def test_a_changed_preset_file_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setattr(solvers, "CONFIG_DIR", tmp_path)
    path = tmp_path / "lemke.toml"
    assert solvers.make_options("lemke", {}).max_restarts != 7  # no file: the class defaults
    path.write_text("max_restarts = 7\n")
    assert solvers.make_options("lemke", {}).max_restarts == 7
    path.write_text("max_restarts = 3\n")
    os.utime(path, ns=(1, 1))  # a different modification time, however fast the rewrite
    assert solvers.make_options("lemke", {}).max_restarts == 3
    path.write_text("no_such_option = 1\n")
    os.utime(path, ns=(2, 2))
    with pytest.raises(SolverError, match="no_such_option"):
        solvers.make_options("lemke", {})


def test_unknown_solver_and_loading_once():
    with pytest.raises(SolverError, match="unknown solver"):
        solvers.load("nope")
    assert solvers.load("newton") is solvers.load("newton")
