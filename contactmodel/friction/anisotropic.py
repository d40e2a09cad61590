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

``form="soc"``: a rolling contact as a Coulomb cone block (newton only, as the cone's SOC form),
in the scaled friction u_alpha = c_alpha / mu_alpha: maximum dissipation over the ellipse,
min c_T . a_T = min u_T . (mu_t a_t, mu_o a_o) over |u_T| <= c_n, is Coulomb's law with mu = 1
for u and the scaled accelerations (a_n, mu_t a_t, mu_o a_o) (``ContactRows.cone_scale``). The
same solutions as the MNCP, without its slack row's degeneracy at c_n = 0. ``form=None``
(default, automatic, as :class:`~contactmodel.friction.cone.CoulombCone`'s): the SOC form, or
the MNCP for a solver without cone blocks.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient
from contactmodel.friction.cone import ConeForm, chosen_form, restated_copy
from contactmodel.friction.ellipsoid import lift_ellipse
from contactmodel.friction.rows import ContactRows, ellipse_rows, sliding_rows
from contactmodel.friction.sets import EllipsoidPart, FrictionSet


class AnisotropicCone(FrictionLaw):
    """Elliptic Coulomb cone |(c_t / mu_t, c_o / mu_o)| <= c_n (mu_t, mu_o > 0). ``form``: None
    (default, automatic: the SOC form, or the MNCP where the solver needs it), ``"mncp"`` or
    ``"soc"`` (see the module docstring); ``self.form`` is the form it formulates, ``self.auto``
    whether it was left to choose."""

    def __init__(self, mu_t: float, mu_o: float, form: ConeForm | str | None = None):
        self.mu_t = check_coefficient(mu_t, "AnisotropicCone.mu_t", positive=True)
        self.mu_o = check_coefficient(mu_o, "AnisotropicCone.mu_o", positive=True)
        self.auto, self.form = chosen_form(form, "AnisotropicCone.form")

    @property
    def mu(self) -> float:
        """The larger coefficient: the isotropic Coulomb cone that just contains this one."""
        return max(self.mu_t, self.mu_o)

    @property
    def _weights(self) -> dict[str, float]:
        return {"t": self.mu_t, "o": self.mu_o}

    def scaled(self, factor: float) -> AnisotropicCone:
        twin = copy.copy(self)  # its form and auto kept; a new key with the new coefficients
        twin.mu_t, twin.mu_o = self.mu_t * factor, self.mu_o * factor
        return twin

    def restated(self, form: str) -> AnisotropicCone | None:
        return restated_copy(self, form)

    def rows(self, ctx: ContactContext) -> ContactRows:
        weights = self._weights
        if ctx.sliding("to"):
            return sliding_rows(ctx.velocity, weights, 1.0)
        if self.form == ConeForm.SOC:
            return self.cached_rows(self._soc_rows)
        return self.cached_rows(
            lambda: ellipse_rows("to", weights, 1.0, {a: w**2 for a, w in weights.items()})
        )

    def _soc_rows(self) -> ContactRows:
        """Free c_n, u_t, u_o in one cone block (mu = 1) with c_alpha = mu_alpha u_alpha and rows
        (a_n, mu_t a_t, mu_o a_o) (see the module docstring)."""
        free = (-math.inf, math.inf)
        return ContactRows(
            (("c_n", None, *free), ("u_t", None, *free), ("u_o", None, *free)),
            {"n": [(1.0, 0)], "t": [(self.mu_t, 1)], "o": [(self.mu_o, 2)]},
            cone=(0, 1, 2),
            mu=1.0,
            cone_scale=(1.0, self.mu_t, self.mu_o),
        )

    def friction_set(self) -> FrictionSet:
        from contactmodel.friction.pyramid import Pyramid

        part = EllipsoidPart("to", 1.0, (self.mu_t, self.mu_o))
        label = f"anisotropic cone mu_t={self.mu_t:g} mu_o={self.mu_o:g}"
        return FrictionSet([part], label, lcp_law=Pyramid(self.mu))

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values: Lifted = {"c_n": float(force[0])}
        if ctx.sliding("to"):
            return values
        if self.form == ConeForm.SOC:
            values.update(u_t=float(force[1]) / self.mu_t, u_o=float(force[2]) / self.mu_o)
        else:
            values.update(lift_ellipse("to", self._weights, force, accel))
        return values
