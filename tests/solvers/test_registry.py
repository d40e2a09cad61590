"""The solver registry: option presets (package data and a user directory), overrides, unknown names."""

from __future__ import annotations

import dataclasses
import os
import tomllib

import pytest

from contactmodel import solvers
from contactmodel.analysis.multiple import Distinct, SearchMethod, all_solutions
from contactmodel.constants import Choice, Form
from contactmodel.errors import FormulationError, OptionError, SolverError
from contactmodel.solvers.enumerate import EnumerateOptions
from contactmodel.solvers.fip import FIPOptions
from contactmodel.solvers.ipopt import IpoptOptions
from contactmodel.solvers.lemke import LemkeOptions
from contactmodel.solvers.newton import Kernels, Merit, NewtonOptions, When
from contactmodel.solvers.newton import kernels as newton_kernels
from contactmodel.solvers.path import PathBackend, PathOptions
from contactmodel.solvers.reformulation import ComplementarityTerm
from contactmodel.solvers.scipy_opt import ScipyMethod, ScipyOptions


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


# -- every solver fact in its registry row --------------------------------------------------------

FACTS = ("lcp_only", "quadratic_only", "cones", "time_limit", "retry_statements", "fallback_rank", "requires")


@pytest.mark.parametrize("name", sorted(solvers.REGISTRY))
def test_every_solver_row_states_every_fact(name):
    info = solvers.REGISTRY[name]
    assert info.name == name and info.module and info.options and info.description
    for fact in FACTS:
        assert hasattr(info, fact), f"{name}: no {fact}"
    assert isinstance(info.lcp_only, bool) and isinstance(info.cones, bool)
    assert isinstance(info.time_limit, bool) and isinstance(info.retry_statements, bool)
    assert info.fallback_rank is None or isinstance(info.fallback_rank, int)
    assert not (info.lcp_only and info.cones), "a solver of LCPs only takes no cone blocks"


@pytest.mark.parametrize("name", sorted(solvers.REGISTRY))
def test_the_time_limit_fact_matches_the_options_class(name):
    info = solvers.REGISTRY[name]
    if not info.available()[0]:
        pytest.skip(info.available()[1])
    _, options_cls = solvers.load(name)
    assert info.time_limit == ("time_limit" in {f.name for f in dataclasses.fields(options_cls)})


def test_the_fallback_order_is_read_from_the_registry(monkeypatch):
    assert solvers.fallback_order(lcp=True) == ["lemke", "newton"]
    assert solvers.fallback_order(lcp=False) == ["newton"]
    assert solvers.fallback_order(lcp=False, cones=True) == ["newton"]
    ranks = {name: info.fallback_rank for name, info in solvers.REGISTRY.items() if info.fallback_rank}
    assert solvers.fallback_order(lcp=True) == sorted(ranks, key=ranks.get)
    # another rank in the table is another order, and a new ranked solver joins it
    table = dict(solvers.REGISTRY)
    table["lemke"] = dataclasses.replace(table["lemke"], fallback_rank=3)
    table["fip"] = dataclasses.replace(table["fip"], fallback_rank=0)
    monkeypatch.setattr(solvers, "REGISTRY", table)
    assert solvers.fallback_order(lcp=True) == ["fip", "newton", "lemke"]
    assert solvers.fallback_order(lcp=False) == ["newton"]


def test_which_solvers_retry_other_statements_is_read_from_the_registry(monkeypatch):
    from contactmodel import fallback
    from contactmodel.solution import Solution
    from contactmodel.solvers.base import Status

    assert not hasattr(fallback, "FALLBACK_SOLVERS")
    failed = Solution(status=Status.FAILED, solver="x", residual=1.0, iterations=1, seconds=0.0)
    retried = {name for name in solvers.REGISTRY if fallback.worth_retrying(failed, name)}
    assert retried == {name for name, info in solvers.REGISTRY.items() if info.retry_statements}
    assert "newton" in retried and not fallback.worth_retrying(failed, "no-such-solver")
    table = dict(solvers.REGISTRY)
    table["lemke"] = dataclasses.replace(table["lemke"], retry_statements=True)
    monkeypatch.setattr(solvers, "REGISTRY", table)
    assert fallback.worth_retrying(failed, "lemke")


def test_what_a_solver_accepts_is_read_from_the_registry():
    assert solvers.able(lcp=True) == list(solvers.REGISTRY)
    assert solvers.able(lcp=False, cones=True) == [n for n, i in solvers.REGISTRY.items() if i.cones]
    assert solvers.able(lcp=False, polynomial=False) == ["newton", "ipopt", "scipy"]
    assert "path" in solvers.able(lcp=False) and "lemke" not in solvers.able(lcp=False)


# -- the choices of solver options and public functions as StrEnums ------------------------------

CHOICES = [
    (Merit, NewtonOptions, "merit"),
    (When, NewtonOptions, "polish"),
    (When, NewtonOptions, "regularize"),
    (Kernels, NewtonOptions, "kernels"),
    (ScipyMethod, ScipyOptions, "method"),
    (ComplementarityTerm, ScipyOptions, "complementarity_term"),
    (ComplementarityTerm, IpoptOptions, "complementarity_term"),
    (PathBackend, PathOptions, "backend"),
]


@pytest.mark.parametrize(
    "enum, options_cls, field", CHOICES, ids=[f"{c[1].__name__}.{c[2]}" for c in CHOICES]
)
def test_an_option_choice_takes_its_strings_and_names_the_field_when_wrong(enum, options_cls, field):
    assert issubclass(enum, Choice) and issubclass(enum, str)
    for value in enum.values():
        if enum is Kernels and value == "numba" and not newton_kernels.AVAILABLE:
            continue
        opts = options_cls(**{field: value})  # the plain string, as users and presets give it
        assert getattr(opts, field) is enum(value) and getattr(opts, field) == value
        setattr(opts, field, enum(value))  # or the member
        assert getattr(opts, field) is enum(value)
    label = f"{options_cls.__name__}.{field}"
    with pytest.raises(
        OptionError, match=rf"{label} must be one of \[.*'{enum.values()[0]}'.*\], got 'nope'"
    ):
        options_cls(**{field: "nope"})
    opts = options_cls()
    with pytest.raises(OptionError, match=label):
        setattr(opts, field, 3)
    assert getattr(opts, field) == getattr(options_cls(), field)  # the refused value was not kept


def test_make_options_parses_choice_strings_from_keywords_and_presets(tmp_path, monkeypatch):
    monkeypatch.setattr(solvers, "CONFIG_DIR", tmp_path)
    (tmp_path / "newton.toml").write_text('merit = "penalized_fb"\n')
    opts = solvers.make_options("newton", {"polish": "never"})
    assert opts.merit is Merit.PENALIZED_FB and opts.polish is When.NEVER
    with pytest.raises(
        OptionError, match=r"NewtonOptions\.regularize must be one of \['auto', 'always', 'never'\]"
    ):
        solvers.make_options("newton", {"regularize": "sometimes"})
    (tmp_path / "newton.toml").write_text('merit = "fischer"\n')
    os.utime(tmp_path / "newton.toml", ns=(1, 1))
    with pytest.raises(OptionError, match="NewtonOptions.merit"):
        solvers.make_options("newton", {})


@pytest.mark.parametrize(
    "options_cls, field, value",
    [
        (NewtonOptions, "backtrack", 1.5),
        (NewtonOptions, "tol", 0.0),
        (LemkeOptions, "check_every", 0),
        (LemkeOptions, "max_pivots", 0),
        (FIPOptions, "sigma", 1.0),
        (FIPOptions, "zeta", -1.0),
        (EnumerateOptions, "max_n", -1),
        (ScipyOptions, "max_iter", 0),
        (IpoptOptions, "time_limit", -1.0),
        (PathOptions, "tol", 0.0),
    ],
)
def test_options_validate_when_made(options_cls, field, value):
    with pytest.raises(OptionError, match=rf"{options_cls.__name__}\.{field} must"):
        options_cls(**{field: value})
    options_cls()  # the defaults are valid


def test_cross_field_checks_run_in_make_options():
    with pytest.raises(OptionError, match="FIPOptions.beta0"):
        solvers.make_options("fip", {"beta0": 1.0})


def test_all_solutions_method_and_distinct_take_strings_and_name_the_keyword():
    import numpy as np

    from contactmodel.solve import LCP

    lcp = LCP(np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([-1.0, -1.0]))
    assert SearchMethod.values() == ("auto", "enumerate", "multistart")
    assert Distinct.values() == ("motion", "forces")
    found = all_solutions(lcp, method="enumerate", distinct="forces")
    assert len(found) == 3 and found.exhaustive
    assert len(all_solutions(lcp, method=SearchMethod.ENUMERATE, distinct=Distinct.MOTION)) == 3
    with pytest.raises(
        OptionError, match=r"all_solutions: method must be one of \['auto', 'enumerate', 'multistart'\]"
    ):
        all_solutions(lcp, method="exhaustive")
    with pytest.raises(
        OptionError, match=r"all_solutions: distinct must be one of \['motion', 'forces'\], got 'force'"
    ):
        all_solutions(lcp, distinct="force")


def test_form_is_a_choice_with_its_own_error():
    assert issubclass(Form, Choice) and Form.parse("sparse") is Form.SPARSE
    with pytest.raises(FormulationError, match="form must be one of"):
        Form.parse("dense")
