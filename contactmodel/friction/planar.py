"""Planar Coulomb friction |c_t| <= mu c_n along the contact's t axis only (c_o = 0).

Rolling: the one-axis pyramid LCP (s+ _|_ a+, a- _|_ s-); sliding: c_t = -mu c_n sign(v_t).
Use it for systems that move in the plane spanned by n and t.
"""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import (
    ContactContext,
    ForceMap,
    FrictionLaw,
    Lifted,
    check_coefficient,
    normal_force,
    normal_pair,
    sliding_map,
)
from contactmodel.friction.pyramid import add_interval_axes, add_interval_pairs, lift_interval_axes
from contactmodel.friction.sets import BoxPart, FrictionSet


class Planar(FrictionLaw):
    """Two-dimensional Coulomb friction in the (n, t) plane."""

    def __init__(self, mu: float):
        self.mu = check_coefficient(mu, "Planar.mu")

    def build(self, blk, ctx: ContactContext) -> ForceMap:
        normal_force(blk)
        if ctx.sliding("t"):
            return sliding_map(blk, ctx, {"t": 1.0}, self.mu)
        fmap = add_interval_axes(blk, "t", {"t": self.mu})
        fmap["n"] = [(1.0, blk.c_n)]
        return fmap

    def add_conditions(self, blk, ctx: ContactContext) -> None:
        normal_pair(blk)
        if not ctx.sliding("t"):
            add_interval_pairs(blk, "t", {"t": self.mu})

    def friction_set(self) -> FrictionSet:
        return FrictionSet([BoxPart("t", self.mu)], f"planar mu={self.mu:g}")

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if not ctx.sliding("t"):
            values.update(lift_interval_axes("t", {"t": self.mu}, force, accel))
        return values
