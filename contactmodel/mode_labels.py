"""The words of contact modes: the kind of a mode (:class:`Mode`) and what one sign pattern of a
contact's complementarity pairs means (:class:`PatternLabel`). Friction sets name their patterns
with them; :mod:`contactmodel.modes` decides the modes of solved contacts."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Mode(StrEnum):
    """The kind of a contact's mode; its value is the word printed in tables and JSON."""

    SEPARATE = "separate"
    ROLL = "roll"
    SLIDE = "slide"
    APPROACH = "approach"


MODES = tuple(Mode)


@dataclass(frozen=True)
class PatternLabel:
    """What a sign pattern of one contact means.

    ``mode`` is a :class:`Mode`; ``label`` names it (``"slide +t-o"``, ``"slide d2|d3"``...);
    ``consistent`` is False when the pattern contradicts itself on its face (e.g. sliding both
    ways along one axis while rolling along the other) - such a pattern is always infeasible;
    ``degenerate`` marks the boundary cases of Berard et al. (2004) (single-axis pyramid slides,
    two-direction polygonal slides, and ``"slide (no friction force)"``, feasible only at
    mu = 0).
    """

    mode: Mode
    label: str
    degenerate: bool = False
    consistent: bool = True
