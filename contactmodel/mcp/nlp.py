"""MNCPOpt / LCPOpt (Andreani, Friedlander, Mello and Santos, "Complementarity and equivalent
formulations via nonlinear programming: numerical results on multi-rigid-body contact problems
with Coulomb friction", 2002, §3) as a Pyomo transformation returning a new model.

For a model whose complementarity rows are ``x >= L _|_ F(x) >= 0`` ("u" rows) or
``g(x) = 0 _|_ x free`` ("v" rows), the new model has slack variables z >= 0 (one per u row)
and the objective

    min 1/2 ( ||F_u(x) - z||^2 + ||g(x)||^2 + T(u, z) ),   u = x_u - L,
    T = (u^T z)^2  ("product", the paper's term)  or  sum_i (u_i z_i)^2  ("componentwise"),

with every Complementarity deactivated. Any Pyomo NLP solver can then be applied; a global
minimum of value 0 is a solution of the complementarity problem. The input model is cloned,
never changed.
"""

from __future__ import annotations

import numpy as np

from contactmodel._pyomo import Complementarity, pe
from contactmodel.errors import FormulationError
from contactmodel.mcp.compile import split_pair
from contactmodel.mcp.soc_block import cone_blocks

TERMS = ("product", "componentwise")


def mncp_opt(model: pe.Block, complementarity_term: str = "product") -> pe.ConcreteModel:
    """A new model: the MNCPOpt reformulation of ``model`` (LCPOpt when every row is affine)."""
    if complementarity_term not in TERMS:
        raise FormulationError(f"complementarity_term must be one of {TERMS} (got {complementarity_term!r})")
    soc = cone_blocks(model)
    if soc:
        raise FormulationError(
            f"'{soc[0].name}' is a second-order-cone block (CoulombCone(form='soc')): MNCPOpt has no "
            "form for it; formulate with CoulombCone(mu, form='mncp') (the mixed NCP of Trinkle et al. 1997)"
        )
    new = model.clone()
    u_rows, g_rows = [], []
    for comp in list(new.component_data_objects(Complementarity, active=True, descend_into=True)):
        var, lb, ub, F = split_pair(comp)
        lb = max(lb, var.lb) if var.lb is not None else lb
        ub = min(ub, var.ub) if var.ub is not None else ub
        if np.isinf(lb) and np.isinf(ub):
            g_rows.append(F)
        elif np.isfinite(lb) and np.isinf(ub):
            u_rows.append((var - lb if lb else var, F))
        else:
            raise FormulationError(
                f"complementarity '{comp.name}': MNCPOpt needs x >= L or x free (got bounds [{lb}, {ub}])"
            )
        comp.deactivate()
    k = len(u_rows)
    new.mncp_f = pe.Expression(range(k), rule=lambda m, i: u_rows[i][1])
    new.mncp_z = pe.Var(range(k), domain=pe.NonNegativeReals, initialize=0.0)
    residual = sum((new.mncp_f[i] - new.mncp_z[i]) ** 2 for i in range(k))
    equations = sum(g**2 for g in g_rows)
    if complementarity_term == "product":
        comp_term = sum(u * new.mncp_z[i] for i, (u, _) in enumerate(u_rows)) ** 2
    else:
        comp_term = sum((u * new.mncp_z[i]) ** 2 for i, (u, _) in enumerate(u_rows))
    new.mncp_objective = pe.Objective(expr=0.5 * (residual + equations + comp_term), sense=pe.minimize)
    return new


def set_slacks(nlp: pe.ConcreteModel) -> None:
    """Set z = max(F_u(x), 0) at the current x (the best slacks for that x)."""
    for i, f in nlp.mncp_f.items():
        nlp.mncp_z[i].set_value(max(pe.value(f), 0.0))
