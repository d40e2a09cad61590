"""What every solver returns to the dispatcher.

A solver only reports what it did (its point, iteration counts, its own view of success);
the dispatcher in :mod:`contactmodel.solve` computes the residuals and sets the final
:class:`Status` the same way for every solver.
"""

from __future__ import annotations

import enum
import functools
import typing
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

import numpy as np

from contactmodel.constants import Choice
from contactmodel.errors import OptionError
from contactmodel.validate import check_field


class Status(enum.Enum):
    """Outcome of a solve, decided by the dispatcher from its own residuals."""

    SOLVED = "solved"
    SOLVED_INACCURATE = "solved-inaccurate"
    INFEASIBLE_CERTIFIED = "infeasible-certified"
    ITERATION_LIMIT = "iteration-limit"
    TIME_LIMIT = "time-limit"
    FAILED = "failed"


class Outcome(enum.Enum):
    """A solver's own account of how it stopped (before verification)."""

    CONVERGED = "converged"
    INFEASIBLE = "infeasible"  # the solver holds a certificate (e.g. Lemke ray on copositive-plus M)
    ITERATION_LIMIT = "iteration-limit"
    TIME_LIMIT = "time-limit"
    FAILED = "failed"


#: the keys of :attr:`SolverResult.extras` holding points in the MCP's variables or values of F
#: (an array, or a list of arrays: enumerate's ``solutions``, the MNCPOpt slacks ``z`` of ipopt and
#: scipy), which :func:`contactmodel.solve` scales back with ``x`` when it ran the MCP normalized
POINT_EXTRAS = ("solutions", "z")


@dataclass
class SolverResult:
    """Raw result of one solver run on an MCP.

    ``x``: the final point (length n, in the MCP's variable order), or None if there is none.
    ``extras``: solver-specific facts (e.g. Lemke restarts, ray certificate text).
    """

    x: np.ndarray | None
    outcome: Outcome
    iterations: int = 0
    message: str = ""
    extras: dict[str, Any] = field(default_factory=dict)


class Options:
    """Base of every solver's options dataclass: each assignment (construction included) is
    checked against the field's annotation (:func:`contactmodel.validate.check_field`), so a
    wrong type (``tol="tight"``, ``max_iter=10.5``, ``x0="zero"``) raises :class:`OptionError`
    naming the field; a field annotated with a :class:`~contactmodel.constants.Choice` takes the
    member or its string and refuses any other value, naming the accepted ones. Each solver's
    ``validate()`` holds the range and cross-field checks; it runs when the options are made
    (``__post_init__``) and again when a solver starts (fields may be assigned in between)."""

    #: the fields holding a point in the MCP's variables (a start), which :func:`contactmodel.solve`
    #: divides by the scale it normalizes the MCP by, as it does the MCP's x0
    point_fields: tuple[str, ...] = ()

    def __setattr__(self, name: str, value: Any) -> None:
        if value is not _defaults(type(self)).get(name, _NO_DEFAULT):  # declared defaults are trusted
            choice = _choices(type(self)).get(name)
            if choice is not None:
                value = choice.parse(value, f"{type(self).__name__}.{name}", OptionError)
            else:
                value = check_field(self, name, value, OptionError)
        object.__setattr__(self, name, value)

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first invalid field (here: none to check)."""


_NO_DEFAULT = object()


@functools.cache
def _choices(cls: type) -> dict[str, type[Choice]]:
    """Field name -> its Choice enum, for the fields of an options dataclass annotated with one."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: hints[f.name]
        for f in fields(cls)
        if isinstance(hints.get(f.name), type) and issubclass(hints[f.name], Choice)
    }


@functools.cache
def _defaults(cls: type) -> dict[str, Any]:
    """Field name -> declared default object of an options dataclass (fields with one only)."""
    return {f.name: f.default for f in fields(cls) if f.default is not MISSING}
