"""Contact modes: separate, roll, slide (with direction), approach; degenerate cases named.

Two views, as in Berard et al. (2004):

- physical: from a contact's force c = (n, t, o[, r]) and relative acceleration a (same frame)
  (:func:`classify`, used by the dispatcher for every Solution);
- LCP: a *sign pattern* chooses, for each complementarity pair ``contact[NAME].pairs[key]`` of a
  polyhedral law, which side may be positive: ``"1"`` the law's variable, ``"0"`` the
  expression (:func:`pattern_label` names each pattern; :func:`contact_modes` reads the pattern
  of a solved point and says which pairs decided the mode).

Pyramid directions are written ``+t-o`` (sign of the sliding acceleration along t and o); a
slide along one axis only (force on a face of the pyramid, not at a vertex) is degenerate: the
transition between two quadrants (Berard et al. (2004) §VI-A). Polygonal(k) directions are ``d3`` (force
along -a at friction direction 3, a non-degenerate slide) or ``d3|d4`` (between two directions:
degenerate).

References:

- S. Berard, K. Egan and J. C. Trinkle, "Contact modes and complementary cones", ICRA 2004.
"""

from __future__ import annotations

from contactmodel.modes import MODES, ContactMode, Mode, PatternLabel, classify, contact_modes

__all__ = ["MODES", "ContactMode", "Mode", "PatternLabel", "classify", "contact_modes", "pattern_label"]


def pattern_label(law, sliding: bool, keys: list[str], bits: str) -> PatternLabel:
    """Name the sign pattern ``bits`` (one ``"1"``/``"0"`` per pair in ``keys``) of a contact
    (:meth:`~contactmodel.friction.sets.FrictionSet.pattern_label` of the law's set)."""
    return law.friction_set().pattern_label(sliding, keys, bits)
