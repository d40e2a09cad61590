"""Sphinx configuration of the contactmodel documentation.

Build from the repository root (``pip install -e ".[docs]"`` first):

    sphinx-build -W -b html docs docs/_build/html

The example pages (``docs/examples/*.rst``) are written from ``examples/*.py`` when the build
starts; the pictures come from ``docs/gallery`` (``python docs/make_gallery.py``).
"""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _installed_version
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))

project = "contactmodel"
author = "the contactmodel developers"
copyright = "the contactmodel developers (BSD-3-Clause)"
try:
    release = _installed_version("contactmodel")
except PackageNotFoundError:  # a checkout that is not installed
    release = "unreleased"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.mathjax"]
exclude_patterns = ["_build", "ARCHITECTURE.md", "gallery", "make_gallery.py"]
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


def _docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


def _example_page(path: Path) -> str:
    doc = _docstring(path)
    head, _, body = doc.partition("\n")
    title = f"{path.name}: {head.strip().rstrip('.')}"
    picture = DOCS / "gallery" / f"example_{path.stem}.png"
    parts = [title, "=" * len(title), ""]
    if body.strip():
        parts += [".. code-block:: text", ""]
        parts += [f"   {line}" if line.strip() else "" for line in body.strip("\n").splitlines()]
        parts.append("")
    if picture.exists():
        parts += [
            f".. figure:: ../gallery/{picture.name}",
            f"   :alt: {path.stem} solved",
            "",
            f"   ``contactmodel draw examples/{path.name}``: the example solved as declared.",
            "",
        ]
    parts += [
        "The code",
        "--------",
        "",
        f".. literalinclude:: ../../examples/{path.name}",
        "   :language: python",
        "   :linenos:",
        "",
    ]
    return "\n".join(parts)


def _write_example_pages(app) -> None:
    """docs/examples/<stem>.rst for every examples/*.py (rewritten only when it changes)."""
    folder = DOCS / "examples"
    folder.mkdir(exist_ok=True)
    stems = []
    for path in sorted((ROOT / "examples").glob("*.py")):
        page = folder / f"{path.stem}.rst"
        text = _example_page(path)
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")
        stems.append(path.stem)
    for page in folder.glob("*.rst"):
        if page.stem not in stems:
            page.unlink()


def _check_api_listing(app) -> None:
    """Warn (an error under -W) for a public name that api.rst does not list."""
    from sphinx.util import logging

    import contactmodel

    listed = set(re.findall(r"^   (\w+)$", (DOCS / "api.rst").read_text(encoding="utf-8"), re.M))
    for name in sorted(set(contactmodel.__all__) - listed):
        message = f"contactmodel.{name} is public but docs/api.rst does not list it"
        logging.getLogger(__name__).warning(message)


def setup(app) -> dict:
    app.connect("builder-inited", _write_example_pages)
    app.connect("builder-inited", _check_api_listing)
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("autodoc-process-docstring", _option_fields)
    return {"parallel_read_safe": True}
