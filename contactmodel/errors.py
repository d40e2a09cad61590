"""One exception tree for caller mistakes.

Failure to *solve* is never an exception: it is a :class:`contactmodel.Status` on the
Solution. Everything here means the caller asked for something that cannot be built or
run, and each message names the offending field and how to fix it.
"""

from __future__ import annotations


class ContactModelError(ValueError):
    """Base class of every error raised for a caller mistake."""


class DeclarationError(ContactModelError):
    """A body, joint, manipulator or contact declaration is invalid (mass, inertia, normal, ...)."""


class StateError(ContactModelError):
    """The declared state is inconsistent (e.g. a contact with nonzero normal velocity)."""


class DataFileError(DeclarationError):
    """A data file (FCLIB, siconos text, a saved trajectory) is missing, unreadable, or not in the
    format it is read as; the message names the file."""


class FrictionLawError(ContactModelError):
    """A friction law has bad parameters or does not fit the contact or solver it is used with."""


class FormulationError(ContactModelError):
    """A formulation option is invalid (unknown form, unknown law name, ...)."""


class SolverError(ContactModelError):
    """A solver is unknown, not installed, incompatible with the problem, or given bad options."""


class OptionError(SolverError):
    """A solver option (or a keyword of ``cm.solve``) has the wrong type or an invalid value."""


class UnknownNameError(ContactModelError, KeyError):
    """A name looked up in a collection that holds no such entry (a contact of a Solution, an
    experiment, an instance family). Also a ``KeyError``, as mapping lookups raise."""

    def __str__(self) -> str:  # the message itself, not KeyError's quoted repr of it
        return ValueError.__str__(self)


class UnknownAttributeError(ContactModelError, AttributeError):
    """A name the package does not define (``contactmodel.nonexistent``). Also an ``AttributeError``,
    as attribute lookups raise (``hasattr`` and ``getattr(obj, name, default)`` rely on it)."""


class DrawingError(ContactModelError):
    """A picture cannot be drawn as asked: an unknown option value (scale key, view) or arrays of
    mismatched shapes (sweep plots)."""


class ArgumentKindError(ContactModelError, TypeError):
    """An argument of the wrong kind (e.g. a Solution where the geometry is needed, or a problem
    object that is neither a contact Problem nor an MCP). Also a ``TypeError``."""


class StoreError(ContactModelError):
    """A file given as an experiment run store is not one (damaged, or another program's file)."""


def did_you_mean(name: str, choices) -> str:
    """``" (did you mean 'x'?)"`` naming the choice closest to a misspelt ``name`` (difflib's
    similarity at least 0.6, case ignored), or ``""`` when none is close."""
    import difflib

    choices = [str(c) for c in choices]
    lowered = {c.lower(): c for c in choices}
    close = difflib.get_close_matches(str(name).lower(), list(lowered), n=1)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


class ContactModelWarning(UserWarning):
    """Base class of the package's warnings: a request that runs but is probably not what was meant."""


class NoContactsWarning(ContactModelWarning):
    """A problem without contacts was solved: the answer is the bodies' free motion (no contact
    forces), which is rarely what a contact model is built for."""
