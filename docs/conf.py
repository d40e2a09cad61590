"""Sphinx configuration of the contactmodel documentation.

Build from the repository root (``pip install -e ".[docs]"`` first):

    sphinx-build -W -b html docs docs/_build/html

The lessons (``lessons/*.py``) and the examples (``examples/*.py``) are executed by
sphinx-gallery when the build starts: their pages, figures and animations, and each one's
download as a Python script and a Jupyter notebook, are written to ``docs/lessons`` and
``docs/examples``. The other pictures come from ``docs/gallery`` (``python docs/make_gallery.py``).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _installed_version
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))  # gallery_setup, named below

project = "contactmodel"
author = "the contactmodel developers"
copyright = "the contactmodel developers (BSD-3-Clause)"
try:
    release = _installed_version("contactmodel")
except PackageNotFoundError:  # a checkout that is not installed
    release = "unreleased"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]
exclude_patterns = [
    "_build",
    "ARCHITECTURE.md",
    "gallery",
    "make_gallery.py",
    "gallery_setup.py",
    "**.ipynb",
    "**.py.md5",
]

# Lessons and examples run when the docs build; a failing one fails the build.
sphinx_gallery_conf = {
    "examples_dirs": ["../lessons", "../examples"],
    "gallery_dirs": ["lessons", "examples"],
    "filename_pattern": r".*\.py$",
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": (True, "jshtml"),
    "abort_on_example_error": True,
    "write_computation_times": False,
    "remove_config_comments": True,
    "download_all_examples": False,
    "reset_modules": ("matplotlib", "gallery_setup.tight_figures"),
    "capture_repr": (),
    "min_reported_time": 3600,
}
templates_path: list[str] = []
autosummary_generate = True
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": False}
html_theme = "furo" if importlib.util.find_spec("furo") else "alabaster"
html_title = f"contactmodel {release}"
html_static_path: list[str] = []

# Options dataclasses list their fields as "name: text" lines (continuations indented); show
# them as a definition list.
_OPTION_LINE = re.compile(r"^([A-Za-z_][\w]*(?:, [A-Za-z_][\w]*)*): (.*)$")


def _option_fields(app, what, name, obj, options, lines: list[str]) -> None:
    if what != "class" or not name.endswith("Options"):
        return
    out: list[str] = []
    in_field = False
    for line in lines:
        match = _OPTION_LINE.match(line)
        if match:
            if not in_field and out and out[-1].strip():
                out.append("")
            out.append(", ".join(f"``{field}``" for field in match.group(1).split(", ")))
            out.append("   " + match.group(2))
            in_field = True
        elif in_field and line.strip() and line[0] in " \t":
            out.append("   " + line.strip())
        elif not line.strip():
            out.append("")
        else:
            if in_field and out[-1].strip():
                out.append("")
            in_field = False
            out.append(line)
    lines[:] = out


_LITERAL = re.compile(r"(``.*?``|`[^`]*`_?)")


def _escape_bars(app, what, name, obj, options, lines: list[str]) -> None:
    """Docstrings write norms and bounds as |x|, which reST reads as substitutions: escape every
    bar outside literals, roles and literal blocks."""
    block_indent = None
    for i, line in enumerate(lines):
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if not line.strip() or indent > block_indent:
                continue
            block_indent = None
        if line.rstrip().endswith("::"):
            block_indent = indent
        parts = _LITERAL.split(line)
        lines[i] = "".join(part if k % 2 else part.replace("|", "\\|") for k, part in enumerate(parts))


def _check_api_listing(app) -> None:
    """Warn (an error under -W) for a public name that api.rst does not list."""
    from sphinx.util import logging

    import contactmodel

    listed = set(re.findall(r"^   (\w+)$", (DOCS / "api.rst").read_text(encoding="utf-8"), re.M))
    for name in sorted(set(contactmodel.__all__) - listed):
        message = f"contactmodel.{name} is public but docs/api.rst does not list it"
        logging.getLogger(__name__).warning(message)


def setup(app) -> dict:
    app.connect("builder-inited", _check_api_listing)
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("autodoc-process-docstring", _option_fields)
    return {"parallel_read_safe": True}
