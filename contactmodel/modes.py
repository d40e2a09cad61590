"""Contact modes of a solved contact: separate, roll, slide (with direction)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MODES = ("separate", "roll", "slide", "approach")


@dataclass(frozen=True)
class PatternLabel:
    """What a sign pattern of one contact means.

    ``mode`` is one of MODES; ``label`` names it (``"slide +t-o"``, ``"slide d2|d3"``...);
    ``consistent`` is False when the pattern contradicts itself on its face (e.g. sliding both
    ways along one axis while rolling along the other) - such a pattern is always infeasible;
    ``degenerate`` marks the boundary cases of seed 003 (single-axis pyramid slides,
    two-direction polygonal slides, and ``"slide (no friction force)"``, feasible only at
    mu = 0).
    """

    mode: str
    label: str
    degenerate: bool = False
    consistent: bool = True


def classify(force, accel, velocity, sliding: bool, tol: float) -> tuple[str, list[float] | None]:
    """(mode, unit sliding direction in (t, o) or None) of one contact.

    ``force``, ``accel``, ``velocity`` are (n, t, o[, r]) in the contact frame; ``sliding`` says
    whether the contact was sliding initially. Positive normal acceleration with zero normal
    force separates; an initially sliding contact, or one whose tangential (or twisting)
    acceleration is nonzero, slides; otherwise it rolls. Rolling with zero normal force is
    named as the degenerate case it is.
    """
    force, accel, velocity = (np.asarray(v, dtype=float) for v in (force, accel, velocity))
    eps = tol * max(1.0, float(np.max(np.abs(force))), float(np.max(np.abs(accel))))
    if accel[0] > eps and force[0] <= eps:
        return "separate", None
    if sliding or np.linalg.norm(accel[1:]) > eps:
        moving = velocity[1:3] if sliding else accel[1:3]
        norm = np.linalg.norm(moving)
        return "slide", ((moving / norm).tolist() if norm > 0 else None)
    if force[0] <= eps:
        return "roll (zero normal force)", None
    return "roll", None
