"""Hypothesis side of the fuzz suite: the profiles, a :class:`scenes.Draw` over hypothesis data,
and bad values for any field.

Profiles, chosen by the environment variable ``CONTACTMODEL_FUZZ``: ``ci`` (the default: derandomized,
a minute or two in all), ``large`` (fifty times the examples, random, for a long run). Only the fuzz
tests use them (:func:`fuzz_settings`); the rest of the suite keeps hypothesis' defaults.
"""

from __future__ import annotations

import math
import os

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

_COMMON = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("ci", max_examples=20, derandomize=True, **_COMMON)
settings.register_profile("large", max_examples=1000, **_COMMON)


def fuzz_settings(scale: float = 1.0) -> settings:
    """The chosen profile with ``scale`` times its number of examples."""
    base = settings.get_profile(os.environ.get("CONTACTMODEL_FUZZ", "ci"))
    return settings(base, max_examples=max(1, int(base.max_examples * scale)))


class HypothesisDraw:
    """A :class:`scenes.Draw` drawing from hypothesis' ``data`` (so failures shrink)."""

    def __init__(self, data) -> None:
        self.data = data

    def uniform(self, lo: float, hi: float) -> float:
        return self.data.draw(st.floats(lo, hi, allow_nan=False, allow_infinity=False))

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def pick(self, options):
        return self.data.draw(st.sampled_from(list(options)))


#: values wrong for most fields: other types, non-finite, complex, ragged, wrong rank, extreme
BAD_VALUES = st.sampled_from(
    [
        "x",
        "",
        None,
        True,
        math.nan,
        math.inf,
        -math.inf,
        -1,
        -1.5,
        0,
        10.5,
        1e308,
        1e-300,
        1j,
        [1, [2, 3]],
        [[1, 2], [3]],
        [],
        np.ones((2, 2, 2)),
        np.array([math.nan, 1.0, 1.0]),
        np.array(["a", "b", "c"]),
        (1 + 1j) * np.eye(3),
        {"a": 1},
        object(),
        ("arm", 0),
    ]
)
