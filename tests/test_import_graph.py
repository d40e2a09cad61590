"""The package's import graph flows one way: no module imports, directly or through others, a
module that imports it.

The graph is read from the source with ``ast``: every ``import`` and ``from ... import`` of a
``contactmodel`` module, at module level or inside a function (a deferred import still ties the
two modules together) or under ``if TYPE_CHECKING:`` (never executed, but an annotation that names
a module above is a dependency on it all the same: the modules below a Problem annotate it with
:class:`contactmodel.interfaces.ContactProblem`). ``from pkg import name`` is an edge to
``pkg.name`` when that is a module, else to ``pkg``; a package's ``__init__`` is the node of the
package itself. ``runtime_graph()`` leaves the ``TYPE_CHECKING`` imports out.
"""

from __future__ import annotations

import ast
from pathlib import Path

import contactmodel

PACKAGE = Path(contactmodel.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(
    tree: ast.AST, module: str, is_package: bool, modules: set[str], type_checking: bool = True
) -> set[str]:
    """The package modules imported anywhere in ``tree`` (under ``if TYPE_CHECKING:`` too unless
    ``type_checking`` is False).

    ``from pkg import name`` imports ``pkg.name`` when that is a module, else ``pkg``;
    ``import a.b.c`` imports the longest of a.b.c, a.b, a that is a module.
    """
    found: set[str] = set()

    def module_of(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    def visit(node: ast.AST) -> None:
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(module_of(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                found.add(full if full in modules else module_of(source))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(None)
    found.discard(module)
    return found


def import_graph(type_checking: bool = True) -> dict[str, set[str]]:
    """module -> the package modules it imports (see the module docstring)."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {
        module: _imports(
            ast.parse(path.read_text(encoding="utf-8")),
            module,
            path.name == "__init__.py",
            set(files),
            type_checking,
        )
        for module, path in files.items()
    }


def runtime_graph() -> dict[str, set[str]]:
    """:func:`import_graph` without the imports under ``if TYPE_CHECKING:``."""
    return import_graph(type_checking=False)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_package_import_graph_has_no_cycle():
    assert cycles(import_graph()) == []  # annotations included


def test_the_graph_sees_module_level_deferred_and_type_checking_imports():
    graph = import_graph()
    assert "contactmodel.errors" in graph["contactmodel.system"]  # module level
    assert "contactmodel.manipulator" in graph["contactmodel.system"]
    assert "contactmodel.interfaces" in graph["contactmodel.layout"]  # TYPE_CHECKING only
    assert "contactmodel.interfaces" not in runtime_graph()["contactmodel.layout"]
    # "from contactmodel.friction import X" (the package __init__ imports its public names lazily now)
    assert "contactmodel.friction" in graph["contactmodel.catalogue"]
    modules = {"contactmodel", "contactmodel.system", "contactmodel.x"}
    tree = ast.parse("def f():\n    from contactmodel import system, inertia\n")
    assert _imports(tree, "contactmodel.x", False, modules) == {"contactmodel.system", "contactmodel"}
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import system\n")
    assert _imports(tree, "contactmodel.x", False, modules) == {"contactmodel.system"}
    assert _imports(tree, "contactmodel.x", False, modules, type_checking=False) == set()
    tree = ast.parse("from . import system\nimport contactmodel.system.thing\n")
    assert _imports(tree, "contactmodel.x", False, modules) == {"contactmodel.system"}


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
