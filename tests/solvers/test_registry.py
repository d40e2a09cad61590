"""The solver registry: option presets from solvers_config/, overrides, unknown names."""

from __future__ import annotations

import os
import tomllib

import pytest

from contactmodel import solvers
from contactmodel.errors import SolverError


def test_the_shipped_newton_preset_is_applied_and_overrides_win():
    with (solvers.CONFIG_DIR / "newton.toml").open("rb") as fh:
        preset = tomllib.load(fh)
    opts = solvers.make_options("newton", {})
    for key, value in preset.items():
        assert getattr(opts, key) == value
    assert solvers.make_options("newton", {"tol": 1e-7}).tol == 1e-7
    assert solvers.make_options("newton", {}).tol == preset["tol"]  # the override did not stick


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
