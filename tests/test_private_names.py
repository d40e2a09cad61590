"""No module of the package reaches into another's private names.

The package's source is read with ``ast`` and every module is checked for

(a) a private name taken from another package module: ``from contactmodel.x import _name``, or
    ``import contactmodel.x`` (``from contactmodel import x``) then ``x._name``;
(b) a write to a private attribute of an object other than ``self`` / ``cls``: ``obj._attr = ...``
    (also augmented, annotated and ``del``), ``obj._attr[k] = ...`` (a write into it),
    ``obj.__dict__["_attr"] = ...`` and ``setattr(obj, "_attr", ...)``.

Names with two leading and trailing underscores (``__name__``, ``__dict__``) are not private.
Some modules write a third-party library's internals on purpose (Pyomo's stored slots, for
speed; matplotlib's 3D axis settings): :data:`ALLOWED` lists those (file, attribute) pairs, each
with its reason. A module may read and write its own module's private names freely.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import contactmodel

PACKAGE = Path(contactmodel.__file__).parent

#: (file relative to the package, attribute) -> why it is written there
_PYOMO_BUILD = (
    "stamped components: Pyomo's component and data slots filled directly (documented in "
    "_pyomo.py; tests/test_stamped_components.py checks them against Pyomo's own construction)"
)
ALLOWED: dict[tuple[str, str], str] = {
    **{
        ("_pyomo.py", attr): _PYOMO_BUILD
        for attr in (
            "_args_",
            "_component",
            "_ctypes",
            "_data",
            "_decl",
            "_domain",
            "_fixed",
            "_index",
            "_index_set",
            "_lb",
            "_rule",
            "_source",
            "_stale",
            "_ub",
        )
    },
    ("_pyomo.py", "_value"): "Pyomo Param/Var stored values written when stamping components",
    (
        "mcp/compiled.py",
        "_value",
    ): (
        "CompiledMCP.load and the Param writers write Pyomo variables' and Params' stored values "
        "(set_value and item assignment cost 5-10x)"
    ),
    ("draw/framing.py", "_axinfo"): "matplotlib's 3D axes have no public setter for the grid line width",
}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _written(target: ast.expr):
    """The (object expression, private attribute) pairs a write to ``target`` writes."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            yield from _written(elt)
    elif isinstance(target, ast.Starred):
        yield from _written(target.value)
    elif isinstance(target, ast.Attribute):
        if _is_private(target.attr):
            yield target.value, target.attr
    elif isinstance(target, ast.Subscript):
        inner = target.value
        key = target.slice
        if (
            isinstance(inner, ast.Attribute)
            and inner.attr == "__dict__"
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            if _is_private(key.value):
                yield inner.value, key.value
            return
        # a write into a private container, obj._attr[k] = ..., obj._attr["a"]["b"] = ...
        while isinstance(inner, ast.Subscript):
            inner = inner.value
        if isinstance(inner, ast.Attribute) and _is_private(inner.attr):
            yield inner.value, inner.attr


def _own(obj: ast.expr) -> bool:
    return isinstance(obj, ast.Name) and obj.id in ("self", "cls")


def violations(source: str, module: str, is_package: bool = False, modules: frozenset = frozenset()) -> list:
    """(line, kind, text) of every reach into another module's private names in ``source`` (the
    module ``module``); ``modules`` the package's module names (to tell ``x._name`` of an
    imported module)."""
    tree = ast.parse(source)
    found = []
    imported: dict[str, str] = {}  # local name -> package module it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source_module = _absolute(module, is_package, node)
            if source_module.split(".")[0] != "contactmodel" or source_module == module:
                continue
            for alias in node.names:
                full = f"{source_module}.{alias.name}"
                if full in modules or alias.name in ("*",):
                    imported[alias.asname or alias.name] = full
                elif _is_private(alias.name):
                    found.append((node.lineno, "import", f"from {source_module} import {alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "contactmodel" and alias.name != module:
                    imported[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = ast.unparse(node.value)
            if base in imported and imported[base] != module:
                found.append((node.lineno, "module attribute", f"{base}.{node.attr} of {imported[base]}"))
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for obj, attr in _written(target):
                if not _own(obj):
                    found.append((node.lineno, "write", f"{ast.unparse(obj)}.{attr}"))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _is_private(node.args[1].value)
            and not _own(node.args[0])
        ):
            found.append((node.lineno, "write", f"{ast.unparse(node.args[0])}.{node.args[1].value}"))
    return found


def _package_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _attribute(text: str) -> str:
    return text.rsplit(".", 1)[-1] if "." in text else text


def test_no_module_reaches_into_another_modules_private_names() -> None:
    files = _package_files()
    modules = frozenset(_module_of(p) for p in files)
    bad = []
    used = set()
    for path in files:
        rel = path.relative_to(PACKAGE).as_posix()
        for line, kind, text in violations(
            path.read_text(encoding="utf-8"), _module_of(path), path.name == "__init__.py", modules
        ):
            key = (rel, _attribute(text))
            if kind == "write" and key in ALLOWED:
                used.add(key)
                continue
            bad.append(f"{rel}:{line}: {kind} {text}")
    assert bad == [], "private names reached across modules:\n" + "\n".join(bad)
    assert set(ALLOWED) - used == set(), "allow-list entries no longer needed: remove them"


@pytest.mark.parametrize(
    ("snippet", "kind"),
    [
        ("from contactmodel.update import _write\n", "import"),
        ("from .update import _write\n", "import"),
        ("from contactmodel import update\nupdate._write(p, v)\n", "module attribute"),
        ("import contactmodel.update as u\nu._read(p)\n", "module attribute"),
        ("def f(problem):\n    problem._layout = None\n", "write"),
        ("def f(problem):\n    problem._seen += 1\n", "write"),
        ("def f(a, b):\n    a.x, b._y = 1, 2\n", "write"),
        ("def f(fig):\n    fig._mine['k'] = 1\n", "write"),
        ("def f(step, A):\n    step.__dict__['_cache'] = A\n", "write"),
        ("def f(obj):\n    setattr(obj, '_hidden', 1)\n", "write"),
        ("def f(obj):\n    del obj._hidden\n", "write"),
    ],
)
def test_the_scan_finds_a_violation(snippet: str, kind: str) -> None:
    found = violations(snippet, "contactmodel.simulation.stepper", modules=frozenset({"contactmodel.update"}))
    assert [k for _, k, _ in found] == [kind], found


@pytest.mark.parametrize(
    "snippet",
    [
        "from contactmodel.update import write_param_vector\n",
        "class A:\n    def f(self):\n        self._x = 1\n        self.__dict__['_y'] = 2\n",
        "class A:\n    @classmethod\n    def f(cls):\n        cls._registry = {}\n",
        "def f(step, b):\n    step.__dict__['b'] = b\n    step.x = 1\n",
        "import numpy as np\nx = np._core\n",  # not a package module
        "from contactmodel import update\nupdate.__name__\n",
    ],
)
def test_the_scan_passes_what_is_allowed(snippet: str) -> None:
    assert (
        violations(snippet, "contactmodel.simulation.stepper", modules=frozenset({"contactmodel.update"}))
        == []
    )
