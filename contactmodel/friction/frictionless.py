"""No friction: only 0 <= c_n _|_ a_n >= 0."""

from __future__ import annotations

import numpy as np

from contactmodel.errors import FrictionLawError
from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted
from contactmodel.friction.rows import ContactRows, normal_rows
from contactmodel.friction.sets import FrictionSet


class Frictionless(FrictionLaw):
    """A frictionless contact: c_t = c_o (= c_r) = 0. It takes no parameter."""

    def __init__(self, *args, **kwargs) -> None:
        if args or kwargs:
            given = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
            raise FrictionLawError(
                f"Frictionless takes no parameter (got {given}): write cm.Frictionless(), or a law with "
                "a friction coefficient such as cm.CoulombCone(mu) or cm.Pyramid(mu)"
            )

    def rows(self, ctx: ContactContext) -> ContactRows:
        return self.cached_rows(normal_rows)

    def friction_set(self) -> FrictionSet:
        return FrictionSet([], "frictionless")

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        return {"c_n": float(force[0])}
