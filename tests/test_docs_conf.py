"""The documentation's docstring transforms (docs/conf.py): bars escaped outside literals,
options listed as a definition list."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_conf():
    spec = importlib.util.spec_from_file_location("docs_conf", ROOT / "docs" / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bars_escaped_outside_literals_and_literal_blocks() -> None:
    conf = load_conf()
    lines = [
        "Cone |c_T| <= mu c_n, see ``|x|_inf`` and :func:`norm`.",
        "Example::",
        "",
        "    |a| stays",
        "Back |b|.",
    ]
    conf._escape_bars(None, "class", "X", None, {}, lines)
    assert lines == [
        "Cone \\|c_T\\| <= mu c_n, see ``|x|_inf`` and :func:`norm`.",
        "Example::",
        "",
        "    |a| stays",
        "Back \\|b\\|.",
    ]


def test_options_become_a_definition_list() -> None:
    conf = load_conf()
    lines = [
        "Options of :func:`solve`.",
        "",
        "tol: stop when small (default 1e-10).",
        "descent_rho, descent_p: the test",
        "    continued here (defaults 1e-10, 2.1).",
        "Closing words.",
    ]
    conf._option_fields(None, "class", "pkg.NewtonOptions", None, {}, lines)
    assert lines == [
        "Options of :func:`solve`.",
        "",
        "``tol``",
        "   stop when small (default 1e-10).",
        "``descent_rho``, ``descent_p``",
        "   the test",
        "   continued here (defaults 1e-10, 2.1).",
        "",
        "Closing words.",
    ]
    untouched = ["tol: not an options class"]
    conf._option_fields(None, "class", "pkg.Solution", None, {}, untouched)
    assert untouched == ["tol: not an options class"]
