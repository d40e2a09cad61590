"""Anisotropic Coulomb friction: an elliptic cone with coefficients mu_t along t and mu_o along o.

Friction set {(c_t / mu_t)^2 + (c_o / mu_o)^2 <= c_n^2} (a textured or grooved surface, a brush,
a skate: Zmitrowicz, "A theoretical model of anisotropic dry friction", 1981; Walker and Leine,
"Set-valued anisotropic dry friction laws", 2019), with maximum dissipation: the friction
minimizes c_T . a_T over the set. The contact's ``tangent`` sets the t axis.

Rolling contact: the weighted-cone MNCP of :mod:`contactmodel.friction.ellipsoid` with weights
(mu_t, mu_o) and unit coefficient (variables c_n, lambda >= 0; c_alpha, a_alpha free):
    0 <= c_n    _|_ a_n >= 0
    0 <= lambda _|_ c_n^2 - (c_t / mu_t)^2 - (c_o / mu_o)^2 >= 0
    mu_alpha^2 c_n a_alpha + c_alpha lambda = 0,   alpha = t, o
Sliding contact (velocity v_T): c_alpha = -mu_alpha^2 v_alpha c_n / sqrt(mu_t^2 v_t^2 + mu_o^2 v_o^2),
which is on the ellipse but not opposite to v_T unless v_T lies along an axis or mu_t = mu_o.
With mu_t = mu_o = mu it is :class:`~contactmodel.friction.cone.CoulombCone` (mu).
"""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient
from contactmodel.friction.ellipsoid import lift_ellipse
from contactmodel.friction.rows import ContactRows, ellipse_rows, sliding_rows
from contactmodel.friction.sets import EllipsoidPart, FrictionSet


class AnisotropicCone(FrictionLaw):
    """Elliptic Coulomb cone |(c_t / mu_t, c_o / mu_o)| <= c_n (mu_t, mu_o > 0)."""

    def __init__(self, mu_t: float, mu_o: float):
        self.mu_t = check_coefficient(mu_t, "AnisotropicCone.mu_t", positive=True)
        self.mu_o = check_coefficient(mu_o, "AnisotropicCone.mu_o", positive=True)

    @property
    def mu(self) -> float:
        """The larger coefficient: the isotropic Coulomb cone that just contains this one."""
        return max(self.mu_t, self.mu_o)

    @property
    def _weights(self) -> dict[str, float]:
        return {"t": self.mu_t, "o": self.mu_o}

    def rows(self, ctx: ContactContext) -> ContactRows:
        weights = self._weights
        if ctx.sliding("to"):
            return sliding_rows(ctx.velocity, weights, 1.0)
        return self.cached_rows(
            lambda: ellipse_rows("to", weights, 1.0, {a: w**2 for a, w in weights.items()})
        )

    def friction_set(self) -> FrictionSet:
        from contactmodel.friction.pyramid import Pyramid

        part = EllipsoidPart("to", 1.0, (self.mu_t, self.mu_o))
        label = f"anisotropic cone mu_t={self.mu_t:g} mu_o={self.mu_o:g}"
        return FrictionSet([part], label, lcp_law=Pyramid(self.mu))

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values: Lifted = {"c_n": float(force[0])}
        if not ctx.sliding("to"):
            values.update(lift_ellipse("to", self._weights, force, accel))
        return values
