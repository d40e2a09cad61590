"""Names and numbers shared by the library and the command line, importable without NumPy, SciPy
or Pyomo: the command line declares its arguments from them, so ``contactmodel solve --fricton``
prints ``solve``'s usage at once."""

from __future__ import annotations

from enum import StrEnum

from contactmodel.errors import FormulationError

#: relative natural-map residual for Status.SOLVED, and the looser bound for SOLVED_INACCURATE
TOL = 1e-8
TOL_INACCURATE = 1e-5


class Form(StrEnum):
    """How the contact accelerations enter the model (see :mod:`contactmodel.formulation`). A
    member equals its string value, so ``form="sparse"`` is accepted wherever a Form is."""

    REDUCED = "reduced"
    SPARSE = "sparse"

    @classmethod
    def parse(cls, value: Form | str) -> Form:
        """The Form named by ``value`` (a Form or its string), or a FormulationError."""
        try:
            return cls(value)
        except ValueError:
            raise FormulationError(f"form must be one of {FORMS} (got {value!r})") from None


#: the formulation forms' names
FORMS = tuple(f.value for f in Form)
