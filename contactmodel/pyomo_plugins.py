"""Registration of the project's solvers with Pyomo (``SolverFactory("cm_newton")``), at no cost
to a user who never imports Pyomo.

Pyomo (6.x) finds solvers only in its ``SolverFactory`` registry, filled by modules that call
``SolverFactory.register`` when imported; it reads no entry points for solvers. So
``import contactmodel`` calls :func:`install`: when ``pyomo.opt`` (where ``SolverFactory`` lives)
is already imported, the solvers are registered at once; otherwise a one-shot import hook waits
for the first import of ``pyomo.opt``, by anyone, and registers them right after it (a post-import
hook: the finder wraps the module's loader and never changes what is imported). Nothing here
imports Pyomo.
"""

from __future__ import annotations

import importlib
import sys
import warnings

#: the module whose import triggers the registration
TRIGGER = "pyomo.opt"


def register() -> None:
    """Register the ``cm_*`` solvers with Pyomo's SolverFactory (imports ``pyomo.opt``)."""
    importlib.import_module("contactmodel.pyomo_solvers").register()


class _AfterPyomoOpt:
    """A meta path finder (``find_spec`` is all ``sys.meta_path`` asks; ``importlib.abc`` would
    cost 0.4 ms to import) that finds nothing itself: on the import of :data:`TRIGGER` it asks the
    other finders for the module and wraps its loader so that :func:`register` runs once the
    module is executed."""

    def find_spec(self, name, path, target=None):
        if name != TRIGGER:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module) -> None:
            run(module)
            uninstall()
            try:
                register()
            except Exception as exc:  # noqa: BLE001 -- never break the caller's import of Pyomo
                warnings.warn(f"contactmodel's Pyomo solvers were not registered: {exc!r}", stacklevel=2)

        loader.exec_module = exec_module
        return spec


_HOOK = _AfterPyomoOpt()


def install() -> None:
    """Register now when ``pyomo.opt`` is loaded, else when it is first imported."""
    if TRIGGER in sys.modules:
        register()
    elif _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)  # before the finders that would find it


def uninstall() -> None:
    """Remove the import hook (the solvers stay registered if they were)."""
    if _HOOK in sys.meta_path:
        sys.meta_path.remove(_HOOK)
