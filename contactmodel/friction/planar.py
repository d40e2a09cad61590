"""Planar Coulomb friction |c_t| <= mu c_n along the contact's t axis only (c_o = 0).

Rolling: the one-axis pyramid LCP (s+ _|_ a+, a- _|_ s-); sliding: c_t = -mu c_n sign(v_t).
Use it for systems that move in the plane spanned by n and t.
"""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient
from contactmodel.friction.pyramid import lift_interval_axes
from contactmodel.friction.rows import ContactRows, interval_rows, sliding_rows
from contactmodel.friction.sets import BoxPart, FrictionSet


class Planar(FrictionLaw):
    """Two-dimensional Coulomb friction in the (n, t) plane."""

    def __init__(self, mu: float):
        self.mu = check_coefficient(mu, "Planar.mu")

    def rows(self, ctx: ContactContext) -> ContactRows:
        if ctx.sliding("t"):
            return sliding_rows(ctx.velocity, {"t": 1.0}, self.mu)
        return self.cached_rows(lambda: interval_rows("t", {"t": self.mu}))

    def friction_set(self) -> FrictionSet:
        return FrictionSet([BoxPart("t", self.mu)], f"planar mu={self.mu:g}")

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if not ctx.sliding("t"):
            values.update(lift_interval_axes("t", {"t": self.mu}, force, accel))
        return values
