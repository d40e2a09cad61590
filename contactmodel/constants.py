"""Names and numbers shared by the library and the command line, importable without NumPy, SciPy
or Pyomo: the command line declares its arguments from them, so ``contactmodel solve --fricton``
prints ``solve``'s usage at once."""

from __future__ import annotations

from enum import StrEnum

from contactmodel.errors import ContactModelError, FormulationError, OptionError

#: relative natural-map residual for Status.SOLVED, and the looser bound for SOLVED_INACCURATE
TOL = 1e-8
TOL_INACCURATE = 1e-5


class Choice(StrEnum):
    """Base of the fixed sets of strings a parameter chooses from (solver options, keywords of
    public functions). A member equals its string value, so users pass plain strings; each set
    is declared once, as a subclass, next to the code that owns it."""

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The accepted strings, in declaration order."""
        return tuple(member.value for member in cls)

    @classmethod
    def parse(cls, value, field: str, error: type[ContactModelError] = OptionError):
        """The member named by ``value`` (a member or its string), else ``error`` naming
        ``field`` and the accepted values."""
        if isinstance(value, cls):
            return value
        try:
            return cls(value)
        except (ValueError, TypeError):
            given = repr(value) if isinstance(value, str) else f"{value!r} ({type(value).__name__})"
            raise error(f"{field} must be one of {list(cls.values())}, got {given}") from None


class Form(Choice):
    """How the contact accelerations enter the model (see :mod:`contactmodel.formulation`). A
    member equals its string value, so ``form="sparse"`` is accepted wherever a Form is."""

    REDUCED = "reduced"
    SPARSE = "sparse"

    @classmethod
    def parse(cls, value: Form | str, field: str = "form", error=FormulationError) -> Form:
        """The Form named by ``value`` (a Form or its string), or a FormulationError."""
        try:
            return cls(value)
        except ValueError:
            raise error(f"{field} must be one of {FORMS} (got {value!r})") from None


#: the formulation forms' names
FORMS = tuple(f.value for f in Form)
