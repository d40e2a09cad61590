"""No friction: only 0 <= c_n _|_ a_n >= 0."""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import (
    NORMAL_PAIR,
    NORMAL_VARIABLE,
    ContactContext,
    DirectRows,
    ForceMap,
    FrictionLaw,
    Lifted,
    normal_force,
    normal_pair,
)
from contactmodel.friction.sets import FrictionSet


class Frictionless(FrictionLaw):
    """A frictionless contact: c_t = c_o (= c_r) = 0."""

    def build(self, blk, ctx: ContactContext) -> ForceMap:
        return {"n": [(1.0, normal_force(blk))]}

    def add_conditions(self, blk, ctx: ContactContext) -> None:
        normal_pair(blk)

    def direct_rows(self, ctx: ContactContext) -> DirectRows:
        return DirectRows(NORMAL_VARIABLE, {"n": [(1.0, 0)]}, NORMAL_PAIR)

    def friction_set(self) -> FrictionSet:
        return FrictionSet([], "frictionless")

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        return {"c_n": float(force[0])}
