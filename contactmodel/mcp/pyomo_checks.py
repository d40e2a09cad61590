"""What a Pyomo model handed to a project solver as a plain ``pyomo.mpec`` MCP may hold.

:func:`refuse_unsupported` refuses what no MCP can state (an objective, integer variables);
:func:`compile_model <contactmodel.mcp.compile.compile_model>` itself refuses a plain Constraint.
:func:`dropped_pairs` finds the pairs whose variable is fixed: such a pair is left out with its
row, as GAMS and PATH treat a fixed variable of an MCP.
"""

from __future__ import annotations

from contactmodel._pyomo import (
    Complementarity,
    ComplementarityData,
    EqualityExpression,
    InequalityExpression,
    RangedExpression,
    VarData,
    pe,
)
from contactmodel.errors import FormulationError


def refuse_unsupported(model: pe.Block) -> None:
    """Raise :class:`FormulationError` for an active Objective or an unfixed integer (or binary)
    variable of ``model``."""
    for obj in model.component_data_objects(pe.Objective, active=True, descend_into=True):
        raise FormulationError(
            f"objective '{obj.name}': a complementarity (MCP) solver takes no objective; deactivate it "
            "(model.<name>.deactivate()) or write its optimality conditions as Complementarity pairs, "
            "or solve the MPEC with an NLP solver (e.g. Pyomo's 'mpec_nlp')"
        )
    for var in model.component_data_objects(pe.Var, descend_into=True):
        if not var.fixed and not var.is_continuous():
            raise FormulationError(
                f"variable '{var.name}' is integer ({var.domain}); an MCP solver takes continuous "
                "variables only: give it a continuous domain (e.g. Reals, NonNegativeReals) or fix it"
            )


def dropped_pairs(model: pe.Block) -> list:
    """The active Complementarity entries of ``model`` whose variable side is a fixed variable
    (``x >= L``, ``L <= x <= U`` or a bare ``x`` with x fixed): left out of the MCP with their row."""
    found = []
    for cdata in model.component_data_objects(Complementarity, active=True, descend_into=True):
        if isinstance(cdata, ComplementarityData) and any(map(_fixed_side, cdata._args)):
            found.append(cdata)
    return found


def _fixed_side(arg) -> bool:
    """Whether one argument of a pair is a bound on a fixed variable, or that variable alone."""
    if isinstance(arg, VarData):
        return arg.fixed
    if isinstance(arg, (InequalityExpression, RangedExpression, EqualityExpression)):
        vars_ = [a for a in arg.args if isinstance(a, VarData)]
        others = [a for a in arg.args if not isinstance(a, VarData)]
        constant = all(not getattr(a, "is_potentially_variable", lambda: False)() for a in others)
        return len(vars_) == 1 and vars_[0].fixed and constant
    return False
