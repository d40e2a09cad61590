"""Contact modes for analysis: the names of :mod:`contactmodel.modes` (where the two views of a
mode, physical and LCP sign pattern, are explained) and :func:`pattern_label` for one pattern."""

from __future__ import annotations

from contactmodel.mode_labels import MODES, Mode, PatternLabel
from contactmodel.modes import ContactMode, classify, contact_modes

__all__ = ["MODES", "ContactMode", "Mode", "PatternLabel", "classify", "contact_modes", "pattern_label"]


def pattern_label(law, sliding: bool, keys: list[str], bits: str) -> PatternLabel:
    """Name the sign pattern ``bits`` (one ``"1"``/``"0"`` per pair in ``keys``) of a contact
    (:meth:`~contactmodel.friction.sets.FrictionSet.pattern_label` of the law's set)."""
    return law.friction_set().pattern_label(sliding, keys, bits)
