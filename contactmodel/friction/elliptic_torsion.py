"""Mixed elliptic/polyhedral limit surface (Trinkle and Pang (1997) example (c)).

Friction set {c_t^2/e_t^2 + c_o^2/e_o^2 <= (mu c_n)^2, |c_r| <= e_r mu c_n}. Maximum work over
this product set splits into two independent parts, each rolling or sliding by its own
relative velocity: the (t, o) ellipse as the weighted-cone MNCP, and the torsional interval as
the one-axis pyramid LCP. Needs contacts declared with torsion=True.

References:

- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import numpy as np

from contactmodel._pyomo import add_expression, add_var, pe
from contactmodel.friction.base import (
    ContactContext,
    ForceMap,
    FrictionLaw,
    Lifted,
    axes_set,
    check_coefficient,
    nonneg_pair,
    normal_force,
    normal_pair,
    sliding_map,
)
from contactmodel.friction.ellipsoid import add_ellipse, ellipse_variables, lift_ellipse
from contactmodel.friction.pyramid import Pyramid, lift_interval_axes
from contactmodel.friction.sets import BoxPart, EllipsoidPart, FrictionSet


def add_interval_axes(blk, axes: str, bound: dict[str, float]) -> ForceMap:
    """Variables and forces of |c_alpha| <= bound_alpha c_n for each axis (the pyramid trick)."""
    index = axes_set(blk, axes)
    s_plus = add_var(blk, "s_plus", index, nonneg=True)
    add_var(blk, "a_minus", index, nonneg=True)
    fmap: ForceMap = {}
    for alpha in axes:
        k = bound[alpha]
        add_expression(blk, f"c_{alpha}", s_plus[alpha] - k * blk.c_n)
        fmap[alpha] = [(1.0, s_plus[alpha]), (-k, blk.c_n)]
    return fmap


def add_interval_pairs(blk, axes: str, bound: dict[str, float]) -> None:
    for alpha in axes:
        k = bound[alpha]
        nonneg_pair(blk, f"plus_{alpha}", blk.s_plus[alpha], blk.accel[alpha] + blk.a_minus[alpha])
        nonneg_pair(blk, f"minus_{alpha}", blk.a_minus[alpha], 2 * k * blk.c_n - blk.s_plus[alpha])


class EllipticTorsion(FrictionLaw):
    """Elliptic friction in (t, o) with an independent torsional limit |c_r| <= e_r mu c_n."""

    needs_torsion = True

    def __init__(self, mu: float, e_t: float = 1.0, e_o: float = 1.0, e_r: float = 1.0):
        self.mu = check_coefficient(mu, "EllipticTorsion.mu")
        self.e_t = check_coefficient(e_t, "EllipticTorsion.e_t", positive=True)
        self.e_o = check_coefficient(e_o, "EllipticTorsion.e_o", positive=True)
        self.e_r = check_coefficient(e_r, "EllipticTorsion.e_r", positive=True)

    @property
    def _ellipse(self) -> dict[str, float]:
        return {"t": self.e_t, "o": self.e_o}

    @property
    def _torsion(self) -> dict[str, float]:
        return {"r": self.e_r * self.mu}

    def build(self, blk, ctx: ContactContext) -> ForceMap:
        normal_force(blk)
        if ctx.sliding("to"):
            fmap = sliding_map(blk, ctx, self._ellipse, self.mu)
        else:
            fmap = ellipse_variables(blk, "to")
            fmap["n"] = [(1.0, blk.c_n)]
        if ctx.sliding("r"):
            k = -self.e_r * self.mu * float(np.sign(ctx.velocity[3]))
            blk.c_r = pe.Expression(expr=k * blk.c_n)
            fmap["r"] = [(k, blk.c_n)]
        else:
            fmap.update(add_interval_axes(blk, "r", self._torsion))
        return fmap

    def add_conditions(self, blk, ctx: ContactContext) -> None:
        normal_pair(blk)
        if not ctx.sliding("to"):
            add_ellipse(blk, "to", self._ellipse, self.mu)
        if not ctx.sliding("r"):
            add_interval_pairs(blk, "r", self._torsion)

    def friction_set(self) -> FrictionSet:
        parts = [EllipsoidPart("to", self.mu, (self.e_t, self.e_o)), BoxPart("r", self.e_r * self.mu)]
        label = f"ellipse+torsion mu={self.mu:g} e=({self.e_t:g}, {self.e_o:g}, {self.e_r:g})"
        return FrictionSet(parts, label, lcp_law=Pyramid(self.mu))

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if not ctx.sliding("to"):
            values.update(lift_ellipse("to", self._ellipse, force, accel))
        if not ctx.sliding("r"):
            values.update(lift_interval_axes("r", self._torsion, force, accel))
        return values
