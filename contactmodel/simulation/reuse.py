"""Reusing a step's compiled model when the contact set stays and A changes.

In the reduced form every contact's relative accelerations are the expressions
a = A T y + b of the laws' variables y (c = T y), and each law's rows are affine in its own
contact's a. So the compiled MCP of a step has

    F(x) = P (A T Q x + b) + (the laws' own terms),

with P (n, m) the coefficients of the accelerations in the MCP rows and Q the columns of y among
the MCP variables. :class:`CompiledAcceleration` finds P once per contact set by probing how the
compiled constants depend on ``model.b`` (one pass per component n, t, o[, r], each row reading only
its own contact's accelerations), checks the probe reproduces the compiled constants at the
model's real b, and then gives the next step's MCP matrix L_rest + P A' T Q for a new A' without
touching Pyomo. Laws whose rows are not affine in the accelerations (any compiled row not
affine) are not handled: the caller rebuilds.

The Pyomo model itself keeps the coefficients of the A it was built with (its ``b`` is
current): ``Trajectory.step_model(k)`` rebuilds the exact model of a step.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from contactmodel.assembly import COMPONENTS
from contactmodel.formulation import Form, Problem
from contactmodel.update import _write


def set_b(problem: Problem, b: np.ndarray) -> None:
    """Write b (m,) into the model's mutable ``model.b`` (directly, as :meth:`Problem.update`
    does: Pyomo's item assignment costs ~5 us per entry)."""
    _write(problem.model.b, b)


class CompiledAcceleration:
    """The map A -> compiled MCP matrix of one step model (see the module docstring)."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.ok = False
        if problem.form is not Form.REDUCED:
            return
        compiled = problem.compile()
        mcp = compiled.mcp
        functions = getattr(mcp.F, "__self__", None)
        terms = getattr(functions, "t", None)
        if mcp.M is None or terms is None or getattr(terms, "L", None) is not mcp.M:
            return
        self.functions = functions
        asm = problem.assembly
        model = problem.model
        owners = [_owner(var, model) for var in compiled.variables]
        if any(o is None for o in owners):
            return
        b_real = np.array([model.b[r].value for r in range(asm.m)], dtype=float)
        set_b(problem, np.zeros(asm.m))
        compiled.update()
        q0 = mcp.q.copy()
        pi, pj, pv = [], [], []
        for comp in COMPONENTS:
            probe = np.zeros(asm.m)
            rows = [r[comp] for r in asm.contact_rows.values() if comp in r]
            if not rows:
                continue
            probe[rows] = 1.0
            set_b(problem, probe)
            compiled.update()
            dq = mcp.q - q0
            for i in np.flatnonzero(dq):
                r = asm.contact_rows[owners[i]].get(comp)
                if r is not None:
                    pi.append(i)
                    pj.append(r)
                    pv.append(dq[i])
        set_b(problem, b_real)
        compiled.update()
        n = len(compiled.variables)
        self.P = sp.csr_matrix((pv, (pi, pj)), shape=(n, asm.m))
        atol = 1e-12 * max(1.0, float(np.abs(mcp.q).max(initial=0.0)))
        if not np.allclose(self.P @ b_real + q0, mcp.q, rtol=1e-12, atol=atol):
            return  # a row reads another contact's accelerations: not this map's shape
        column = {id(v): i for i, v in enumerate(compiled.variables)}
        try:
            cols = [column[id(v)] for v in problem.variables]
        except KeyError:
            return
        Q = sp.csr_matrix((np.ones(len(cols)), (np.arange(len(cols)), cols)), shape=(len(cols), n))
        self.TQ = (problem.T @ Q).tocsr()
        rest = (mcp.M - self.P @ (asm.A_sparse @ self.TQ)).tocsr()
        scale = max(1.0, float(abs(mcp.M).max()) if mcp.M.nnz else 1.0)
        rest.data[np.abs(rest.data) <= 1e-13 * scale] = 0.0
        rest.eliminate_zeros()
        self.rest = rest
        self.compiled = compiled
        self.ok = True

    def update(self, A: sp.csr_matrix) -> None:
        """Make the compiled MCP the one of the same model with A (m, m) instead of the build's."""
        L = (self.rest + self.P @ (A @ self.TQ)).tocsr()
        self.functions.t.L = L
        self.compiled.mcp.M = L


def _owner(var, model) -> str | None:
    """The name of the contact block holding ``var`` (None for a variable outside them)."""
    blk = var.parent_block()
    while blk is not None and blk.parent_block() is not model:
        blk = blk.parent_block()
    if blk is None or blk.parent_component() is not model.contact:
        return None
    return blk.index()
