"""contactmodel: declare rigid bodies, manipulators and contacts; get the contact problem as a
Pyomo complementarity model; solve it with MCP/LCP solvers; verify every answer.

The public names below are imported when first used (PEP 562), so ``import contactmodel`` stays cheap:
Pyomo, SciPy and matplotlib are loaded by the first ``formulate``, ``solve`` or ``draw``.
"""

# ruff: noqa: F401  (the names imported under TYPE_CHECKING are the public ones, for type checkers)

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import TYPE_CHECKING, Any

from contactmodel.friction.registry import LAWS

#: public name -> module defining it (imported on first access)
_LAZY: dict[str, str] = {
    "Assembly": "contactmodel.assembly",
    "assemble": "contactmodel.assembly",
    "ContactModelError": "contactmodel.errors",
    "DeclarationError": "contactmodel.errors",
    "FormulationError": "contactmodel.errors",
    "FrictionLawError": "contactmodel.errors",
    "SolverError": "contactmodel.errors",
    "StateError": "contactmodel.errors",
    "Problem": "contactmodel.formulation",
    "formulate": "contactmodel.formulation",
    "formulate_from_matrices": "contactmodel.formulation",
    "FrictionLaw": "contactmodel.friction",
    # every friction law, from the one table of laws
    **{law.name: "contactmodel.friction" for law in LAWS},
    "MCP": "contactmodel.mcp",
    "compile_model": "contactmodel.mcp.compile",
    "mncp_opt": "contactmodel.mcp.nlp",
    "Status": "contactmodel.solvers.base",
    "Compliant": "contactmodel.simulation",
    "Plane": "contactmodel.simulation",
    "SimulationError": "contactmodel.simulation",
    "Trajectory": "contactmodel.simulation",
    "simulate": "contactmodel.simulation",
    "Link": "contactmodel.manipulator",
    "Manipulator": "contactmodel.manipulator",
    "Prismatic": "contactmodel.manipulator",
    "Revolute": "contactmodel.manipulator",
    "Body": "contactmodel.system",
    "Contact": "contactmodel.system",
    "Ground": "contactmodel.system",
    "System": "contactmodel.system",
    "all_solutions": "contactmodel.analysis",
    "compare": "contactmodel.compare",
    "Comparison": "contactmodel.compare",
    "Distinct": "contactmodel.analysis.multiple",
    "SearchMethod": "contactmodel.analysis.multiple",
    "decide": "contactmodel.analysis",
    "diagnose": "contactmodel.analysis",
    "verify": "contactmodel.analysis",
    "draw": "contactmodel.draw",
    "sweep_plot": "contactmodel.draw",
    "Solution": "contactmodel.solution",
    "LCP": "contactmodel.solve",
    "solve": "contactmodel.solve",
    "Sweep": "contactmodel.sweep",
    "solve_many": "contactmodel.sweep",
    "quasistatic": "contactmodel.quasistatic",
    "push": "contactmodel.quasistatic",
    "PushPath": "contactmodel.quasistatic",
}
#: public submodules
_SUBMODULES = ("inertia", "shapes")

__all__ = sorted([*_LAZY, *_SUBMODULES])

if TYPE_CHECKING:  # what type checkers and IDEs see; at run time __getattr__ provides these names
    # (the friction laws, from the table, reach type checkers through __getattr__; so do compare and
    # Comparison, whose module reaches the experiment machinery, which imports this package)
    from contactmodel import inertia, shapes, simulation
    from contactmodel.analysis import all_solutions, decide, diagnose, verify
    from contactmodel.assembly import Assembly, assemble
    from contactmodel.draw import draw, sweep_plot
    from contactmodel.errors import (
        ContactModelError,
        DeclarationError,
        FormulationError,
        FrictionLawError,
        SolverError,
        StateError,
    )
    from contactmodel.formulation import Problem, formulate, formulate_from_matrices
    from contactmodel.friction import FrictionLaw
    from contactmodel.manipulator import Link, Manipulator, Prismatic, Revolute
    from contactmodel.mcp import MCP
    from contactmodel.mcp.compile import compile_model
    from contactmodel.mcp.nlp import mncp_opt
    from contactmodel.quasistatic import PushPath, push, quasistatic
    from contactmodel.simulation import Compliant
    from contactmodel.solution import Solution
    from contactmodel.solve import LCP, solve
    from contactmodel.solvers.base import Status
    from contactmodel.sweep import Sweep, solve_many
    from contactmodel.system import Body, Contact, Ground, System

    __version__: str


def _version() -> str:
    """The installed distribution's version (pyproject.toml is the one place it is written)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("contactmodel")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name == "__version__":
        value = _version()
    elif name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is None:
        from contactmodel.errors import UnknownAttributeError, did_you_mean

        raise UnknownAttributeError(
            f"module {__name__!r} has no attribute {name!r}{did_you_mean(name, __all__)}; its public names "
            f"are listed in {__name__}.__all__"
        )
    else:
        value = importlib.import_module(f"{__name__}.{name}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "__version__"})


class _Package(types.ModuleType):
    """The package module: importing the submodule ``contactmodel.solve`` (or ``.draw``) must not
    replace the function ``contactmodel.solve`` (``contactmodel.draw``) of the same name."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            super().__setattr__(name, getattr(importlib.import_module(_LAZY[name]), name))
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

# SolverFactory("cm_newton") and the other cm_* solvers in Pyomo: registered when pyomo.opt is
# (or gets) imported, never importing Pyomo here (see contactmodel/pyomo_plugins.py)
importlib.import_module("contactmodel.pyomo_plugins").install()
