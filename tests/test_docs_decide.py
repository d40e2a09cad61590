"""docs/decide.rst: its examples run as written and print what the page says (doctest)."""

from __future__ import annotations

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_decide_page_examples_print_what_the_page_shows(monkeypatch) -> None:
    monkeypatch.chdir(ROOT)  # the page loads examples/painleve.py from the repository root
    result = doctest.testfile(
        str(ROOT / "docs" / "decide.rst"), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 20
    assert result.failed == 0
