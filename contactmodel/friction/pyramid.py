"""The 4-sided friction pyramid |c_t| <= mu c_n, |c_o| <= mu c_n (Trinkle et al. (1997) (15)-(18), (30)-(35)).

Rolling contact, variables c_n, s+_t, s+_o, a-_t, a-_o >= 0 (c_alpha = s+_alpha - mu c_n):
    0 <= c_n       _|_ a_n >= 0
    0 <= s+_alpha  _|_ a+_alpha = a_alpha + a-_alpha >= 0
    0 <= a-_alpha  _|_ s-_alpha = 2 mu c_n - s+_alpha >= 0
The pyramid's faces are normal to the contact's t and o axes (the ``tangent`` of the contact
sets its orientation). Sliding contacts use Coulomb's law (Andreani et al. (2002) footnote 1).

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient
from contactmodel.friction.rows import ContactRows, interval_rows, sliding_rows
from contactmodel.friction.sets import BoxPart, FrictionSet


def lift_interval_axes(axes: str, bound: dict[str, float], force, accel) -> Lifted:
    """Values of ``s_plus[alpha]`` and ``a_minus[alpha]`` at (force, accel)."""
    idx = {alpha: "ntor".index(alpha) for alpha in axes}
    return {
        "s_plus": {a: float(bound[a] * force[0] + force[i]) for a, i in idx.items()},
        "a_minus": {a: float(max(-accel[i], 0.0)) for a, i in idx.items()},
    }


class Pyramid(FrictionLaw):
    """Four-sided friction pyramid (an LCP at rolling contacts)."""

    def __init__(self, mu: float):
        self.mu = check_coefficient(mu, "Pyramid.mu")

    def rows(self, ctx: ContactContext) -> ContactRows:
        if ctx.sliding("to"):
            return sliding_rows(ctx.velocity, {"t": 1.0, "o": 1.0}, self.mu)
        return self.cached_rows(lambda: interval_rows("to", {"t": self.mu, "o": self.mu}))

    def friction_set(self) -> FrictionSet:
        return FrictionSet([BoxPart("to", self.mu)], f"pyramid mu={self.mu:g}", relaxes_cone=self.mu)

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if not ctx.sliding("to"):
            values.update(lift_interval_axes("to", {"t": self.mu, "o": self.mu}, force, accel))
        return values
