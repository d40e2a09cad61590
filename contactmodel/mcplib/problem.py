"""One test problem of :mod:`contactmodel.mcplib` and the helpers on its models."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from contactmodel._pyomo import pe
from contactmodel.errors import UnknownNameError
from contactmodel.mcp.compile import compile_model
from contactmodel.mcp.types import natural_residual

#: a point: variable component name -> its values in index order (a scalar variable: one value)
Point = Mapping[str, Sequence[float]]


@dataclass(frozen=True)
class LibraryProblem:
    """One test problem: ``build()`` -> Pyomo model; ``starts`` its starting points, ``solutions``
    its known solutions (empty when none is published) to ``solution_tol`` (the absolute natural
    residual the published digits allow); ``linear``: F is affine."""

    name: str
    source: str
    description: str
    build: Callable[[], pe.ConcreteModel]
    starts: tuple[Point, ...]
    solutions: tuple[Point, ...] = ()
    solution_tol: float = 1e-8
    linear: bool = False
    notes: str = field(default="")

    def model(self, start: int = 0) -> pe.ConcreteModel:
        """A new model at starting point ``start`` (an index into ``starts``)."""
        model = self.build()
        load_point(model, self.starts[start])
        return model


def load_point(model: pe.Block, point: Point) -> None:
    """Set the model's variables named in ``point`` (values in index order)."""
    for name, values in point.items():
        var = model.find_component(name)
        if var is None:
            raise UnknownNameError(
                f"the model has no variable '{name}'; its variables are "
                f"{[v.name for v in model.component_objects(pe.Var)]}"
            )
        data = list(var.values())
        values = np.atleast_1d(np.asarray(values, dtype=float))
        if len(data) != values.size:
            raise UnknownNameError(
                f"variable '{name}' has {len(data)} entries, the point gives {values.size}"
            )
        for v, val in zip(data, values.tolist()):
            v.set_value(val, skip_validation=True)


def residual(model: pe.Block) -> float:
    """max_i |x_i - mid(lb_i, x_i - F_i(x), ub_i)| at the model's current values (absolute)."""
    compiled = compile_model(model)
    return float(np.max(np.abs(natural_residual(compiled.mcp, compiled.values())), initial=0.0))
