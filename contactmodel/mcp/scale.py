"""The scale of an MCP's own data, and the MCP restated at that scale.

The dispatcher (:mod:`contactmodel.solve`) judges every answer by its natural-map residual
relative to :func:`data_scale`, ``||F(0)||_inf`` (``||q||_inf`` of an LCP ``M x + q``): the
size of the loads that make the problem. That ratio does not change when the data is scaled:
x solves (M, q) if and only if c x solves (M, c q), and its residual is c times as large, so a
problem posed at 1e-12 N is held to the same relative accuracy as one posed at 1 N (the
convention of Siconos' fc3d error, relative to ||q||). When F(0) = 0 (or is not finite) the
data has no scale of its own; the scale is then 1 and the residual absolute (with F(0) = 0 and
0 within the bounds, x = 0 is an exact solution).

:func:`normalized` restates an MCP in y = x / p for a power of two p near that scale
(:func:`normalizer`), so that every solver, whose stopping tests are absolute, works on data of
size about 1: the solvers' tolerances then mean the same as the dispatcher's, and for an affine
MCP the solvers' paths do not depend on a scaling of the data by a power of two (dividing by one
is exact in floating point); any other factor leaves the normalized data within a factor sqrt(2)
of each other, where an iterative solver may take an iteration more or less.
"""

from __future__ import annotations

import math

import numpy as np

from contactmodel.mcp.types import MCP, QuadraticRows


def data_scale(mcp: MCP) -> float:
    """``||F(0)||_inf`` (``q`` of an affine MCP), or 1 when that is 0 or not finite."""
    F0 = mcp.q if mcp.q is not None and mcp.M is not None else mcp.F(np.zeros(mcp.n))
    size = float(np.max(np.abs(F0), initial=0.0))
    return size if math.isfinite(size) and size > 0.0 else 1.0


def power_of_two(scale: float) -> float:
    """The power of two nearest ``scale`` (> 0) on a log scale: dividing by it is exact."""
    return math.ldexp(1.0, round(math.log2(scale)))


def normalizer(mcp: MCP, scale: float) -> float:
    """The factor p the dispatcher runs ``mcp`` :func:`normalized` by, given its :func:`data_scale`:
    the power of two nearest ``scale`` for an affine MCP (with or without cone blocks: then the
    normalized problem is the same for every scale of the data, and so are the solvers' paths);
    for a nonlinear one, the same below 1 and 1 (as posed) above. A nonlinear F is not
    homogeneous (the MNCP's quadratic cone rows grow as force squared), so normalizing it changes
    the balance of its rows and the solvers' paths; below 1 it is needed all the same, since
    there an absolute stopping test passes points far from any solution."""
    p = power_of_two(scale)
    return p if mcp.M is not None or p < 1.0 else 1.0


def normalized(mcp: MCP, p: float) -> MCP:
    """``mcp`` in the variable y = x / p: F_y(y) = F(p y) / p, J_y(y) = J(p y), bounds and start
    divided by p, q / p for an affine MCP (M unchanged), the cone blocks unchanged (cone
    complementarity is positively homogeneous), the quadratic rows' parts kept with ``s = p``.
    y solves it if and only if p y solves ``mcp``, with a natural residual 1/p times as large.
    ``mcp`` itself when p = 1."""
    if p == 1.0:
        return mcp
    F, J, hess, quad = mcp.F, mcp.J, mcp.hess, mcp.quadratic
    return MCP(
        F=lambda y: F(p * y) / p,
        J=lambda y: J(p * y),
        lb=mcp.lb / p,
        ub=mcp.ub / p,
        x0=None if mcp.x0 is None else np.asarray(mcp.x0, dtype=float) / p,
        names=mcp.names,
        M=mcp.M,
        q=None if mcp.q is None else mcp.q / p,
        hess=None if hess is None else (lambda y, w: p * hess(p * y, w)),
        cones=mcp.cones,
        quadratic=None if quad is None or quad.s != 1.0 else QuadraticRows(quad.parts, p),
    )
