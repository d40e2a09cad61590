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


def _results(solution) -> list:
    return [(c.name, c.mode, c.label, c.degenerate, c.decided_by) for c in solution.contacts]


def test_a_layout_remade_for_new_contexts_keeps_what_its_laws_made_and_the_same_modes() -> None:
    """A problem given new contexts (as a time step's reassemble does) gets a new layout that
    carries the old one's friction sets and mode verdicts over: its answers' modes are those of a
    twin problem whose layout is made afresh; another law object gets nothing carried."""
    from contactmodel.layout import Layout

    for name in ("box_push_sliding", "box_push_static", "box_sliding", "two_finger_grip"):
        case = catalogue.get(name)
        problem, twin = (cm.formulate(case.build(), friction=cm.Pyramid(0.5)) for _ in range(2))
        first = cm.solve(problem, solver="newton")
        old = problem.layout
        problem.contexts = dict(problem.contexts)  # new contexts, same contacts: a new layout
        again = cm.solve(problem, solver="newton")
        assert problem.layout is not old and problem.layout.verdicts is old.verdicts
        assert _results(again) == _results(first) == _results(cm.solve(twin, solver="newton"))
        assert not Layout.of(twin).same_laws_and_rows(old)  # the twin's laws are other objects
        assert Layout.of(twin).verdicts is not old.verdicts
