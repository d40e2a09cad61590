"""Classic mixed complementarity test problems as plain ``pyomo.mpec`` models.

Each :class:`LibraryProblem` restates a problem from its published mathematical definition (the
source is named in ``source``): ``build()`` makes a Pyomo ConcreteModel of Complementarity pairs
only (no contactmodel object), ``starts`` are its starting points and ``solutions`` its known
solutions (where published), each a mapping from a variable component's name to its values in
index order. :func:`residual` is the largest natural-map residual of a model at its current
values, the check that a stated solution solves the stated problem (``tests/test_mcplib.py``).
``benchmarks/mcplib.py`` runs the project's solvers on all of them through Pyomo's SolverFactory.

Problems (module: ``nonlinear`` or ``linear``): josephy, kojshin, billups, nash5, mathiesen_mod,
hs43 (Rosen-Suzuki), hs71 (nonlinear); munson1, murty, fathi, transmcp, hs35, hs76, bimatrix_rps,
torsion (affine F).
"""

from __future__ import annotations

from contactmodel.errors import UnknownNameError
from contactmodel.mcplib import linear, nonlinear
from contactmodel.mcplib.problem import LibraryProblem, Point, load_point, residual

__all__ = ["PROBLEMS", "LibraryProblem", "Point", "get", "load_point", "residual"]

#: every problem, by name
PROBLEMS: dict[str, LibraryProblem] = {p.name: p for p in (*nonlinear.PROBLEMS, *linear.PROBLEMS)}


def get(name: str) -> LibraryProblem:
    """The problem called ``name`` (see :data:`PROBLEMS`)."""
    try:
        return PROBLEMS[name]
    except KeyError:
        raise UnknownNameError(f"unknown test problem '{name}'; choose one of {sorted(PROBLEMS)}") from None
