"""contactmodel: declare rigid bodies, manipulators and contacts; get the contact problem as a
Pyomo complementarity model; solve it with MCP/LCP solvers; verify every answer."""

from contactmodel import inertia, shapes
from contactmodel.assembly import Assembly, assemble
from contactmodel.errors import (
    ContactModelError,
    DeclarationError,
    FormulationError,
    FrictionLawError,
    SolverError,
    StateError,
)
from contactmodel.formulation import Problem, formulate, formulate_from_matrices
from contactmodel.friction import (
    CoulombCone,
    Ellipsoid,
    EllipticTorsion,
    FrictionLaw,
    Frictionless,
    Planar,
    Polygonal,
    PolyhedralLimitSurface,
    Pyramid,
)
from contactmodel.mcp import MCP
from contactmodel.mcp.compile import compile_model
from contactmodel.mcp.nlp import mncp_opt
from contactmodel.solvers.base import Status
from contactmodel.system import Body, Contact, Ground, System

__version__ = "0.1.0"

__all__ = [
    "MCP",
    "Assembly",
    "Body",
    "Contact",
    "ContactModelError",
    "CoulombCone",
    "DeclarationError",
    "Ellipsoid",
    "EllipticTorsion",
    "FormulationError",
    "FrictionLaw",
    "FrictionLawError",
    "Frictionless",
    "Ground",
    "Planar",
    "Polygonal",
    "PolyhedralLimitSurface",
    "Problem",
    "Pyramid",
    "SolverError",
    "StateError",
    "Status",
    "System",
    "assemble",
    "compile_model",
    "formulate",
    "formulate_from_matrices",
    "inertia",
    "shapes",
    "mncp_opt",
]

from contactmodel.analysis import all_solutions, decide, diagnose, verify  # noqa: E402
from contactmodel.draw import draw, sweep_plot  # noqa: E402
from contactmodel.solution import Solution  # noqa: E402
from contactmodel.solve import LCP, solve  # noqa: E402

__all__ += ["LCP", "Solution", "all_solutions", "decide", "diagnose", "draw", "solve", "sweep_plot", "verify"]
