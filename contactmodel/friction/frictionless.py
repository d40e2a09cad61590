"""No friction: only 0 <= c_n _|_ a_n >= 0."""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted
from contactmodel.friction.rows import ContactRows, normal_rows
from contactmodel.friction.sets import FrictionSet


class Frictionless(FrictionLaw):
    """A frictionless contact: c_t = c_o (= c_r) = 0."""

    def rows(self, ctx: ContactContext) -> ContactRows:
        return self.cached_rows(normal_rows)

    def friction_set(self) -> FrictionSet:
        return FrictionSet([], "frictionless")

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        return {"c_n": float(force[0])}
