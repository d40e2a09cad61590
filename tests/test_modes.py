"""Contact modes are an enum whose values are the printed words; the dispatcher gets them from
``contactmodel.modes``, below it, not from ``contactmodel.analysis``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.mode_labels import MODES, Mode


def test_modes_are_an_enum_printed_as_words() -> None:
    problem = cm.formulate(catalogue.get("box_push_sliding").build(), friction=cm.Pyramid(0.5))
    solution = cm.solve(problem, solver="lemke")
    modes = {c.mode for c in solution.contacts}
    assert modes == {Mode.SLIDE} and all(isinstance(m, Mode) for m in modes)
    assert modes == {"slide"} and f"{Mode.SLIDE}" == "slide" and MODES[0] is Mode.SEPARATE
    assert {c["mode"] for c in json.loads(json.dumps(solution.to_json()))["contacts"]} == {"slide"}
    assert "slide" in solution.table() and "Mode." not in solution.table()


def test_solve_does_not_import_the_analysis() -> None:
    tree = ast.parse(Path(cm.solve.__code__.co_filename).read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(m and m.startswith("contactmodel.analysis") for m in imported)
