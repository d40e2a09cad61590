"""Mixed elliptic/polyhedral limit surface (Trinkle and Pang (1997) example (c)).

Friction set {c_t^2/e_t^2 + c_o^2/e_o^2 <= (mu c_n)^2, |c_r| <= e_r mu c_n}. Maximum work over
this product set splits into two independent parts, each rolling or sliding by its own
relative velocity: the (t, o) ellipse as the weighted-cone MNCP, and the torsional interval as
the one-axis pyramid LCP. Needs contacts declared with torsion=True.

``form="soc"``: a rolling ellipse as a Coulomb cone block (newton only), as
:class:`~contactmodel.friction.anisotropic.AnisotropicCone`'s SOC form: in u_alpha = c_alpha /
(mu e_alpha) the ellipse is the unit cone |u_T| <= c_n and maximum work over it is Coulomb's
law with mu = 1 for u and the accelerations (a_n, mu e_t a_t, mu e_o a_o); the normal pair is
the cone block's, the torsional interval keeps its LCP rows (reading c_n). ``form=None`` (the
default) is automatic, as theirs: this form for newton, the MNCP for a solver without cone
blocks.

References:

- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import numpy as np

from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient, check_semi_axes
from contactmodel.friction.cone import ConeForm, chosen_form, restated_copy
from contactmodel.friction.ellipsoid import lift_ellipse
from contactmodel.friction.pyramid import Pyramid, lift_interval_axes
from contactmodel.friction.rows import (
    NORMAL_PAIR,
    ContactRows,
    RowsBuilder,
    add_ellipse,
    add_interval,
    ellipse_variables,
    normal_rows,
    sliding_coefficients,
)
from contactmodel.friction.sets import BoxPart, EllipsoidPart, FrictionSet


class EllipticTorsion(FrictionLaw):
    """Elliptic friction in (t, o) with an independent torsional limit |c_r| <= e_r mu c_n;
    ``form``: None (default, automatic), ``"mncp"`` or ``"soc"`` states a rolling ellipse (see
    the module docstring); ``self.auto`` whether it was left to choose."""

    needs_torsion = True

    def __init__(
        self,
        mu: float,
        e_t: float = 1.0,
        e_o: float = 1.0,
        e_r: float = 1.0,
        form: ConeForm | str | None = None,
    ):
        self.mu = check_coefficient(mu, "EllipticTorsion.mu")
        self.e_t, self.e_o, self.e_r = check_semi_axes("EllipticTorsion", e_t, e_o, e_r)
        self.auto, self.form = chosen_form(form, "EllipticTorsion.form")

    @property
    def _ellipse(self) -> dict[str, float]:
        return {"t": self.e_t, "o": self.e_o}

    @property
    def _torsion(self) -> dict[str, float]:
        return {"r": self.e_r * self.mu}

    def rows(self, ctx: ContactContext) -> ContactRows:
        """c_n >= 0 and its normal pair; in (t, o) the sliding force map or the rolling ellipse rows;
        in r the sliding moment -e_r mu sign(v_r) c_n or the rolling interval rows."""
        if self.mu == 0.0:  # the set is {0}: no friction; the MNCP rows would be degenerate there
            return self.cached_rows(normal_rows)
        slide_to, slide_r = ctx.sliding("to"), ctx.sliding("r")
        if not (slide_to or slide_r):
            return self.cached_rows(lambda: self._rows(ctx))
        return self._rows(ctx)

    def _rows(self, ctx: ContactContext) -> ContactRows:
        rows = RowsBuilder()
        rolling = not ctx.sliding("to")
        if rolling and self.form == ConeForm.SOC:
            return self._soc_rows(ctx, rows)
        cn = rows.var("c_n")
        if rolling:
            variables = ellipse_variables(rows, "to")
        rows.set_force("n", [(1.0, cn)])
        if not rolling:
            for a, k in sliding_coefficients(ctx.velocity, self._ellipse, self.mu).items():
                rows.set_force(a, [(k, cn)])
        torsion = []
        if ctx.sliding("r"):
            rows.set_force("r", [(-self.e_r * self.mu * float(np.sign(ctx.velocity[3])), cn)])
        else:
            torsion = add_interval(rows, "r", self._torsion, cn)
        rows.pairs.append(NORMAL_PAIR[0])
        if rolling:
            weights = self._ellipse
            add_ellipse(rows, "to", weights, self.mu, {a: w**2 for a, w in weights.items()}, cn, variables)
        rows.pairs.extend(torsion)
        return rows.rows()

    def _soc_rows(self, ctx: ContactContext, rows: RowsBuilder) -> ContactRows:
        """A rolling ellipse as a cone block of free c_n, u_t, u_o (c_alpha = mu e_alpha u_alpha,
        rows (a_n, mu e_t a_t, mu e_o a_o)); in r the sliding moment or the interval rows."""
        cn = rows.var("c_n", free=True)
        u = {a: rows.var(f"u_{a}", free=True) for a in "to"}
        rows.set_force("n", [(1.0, cn)])
        for a, e in self._ellipse.items():
            rows.set_force(a, [(self.mu * e, u[a])])
        if ctx.sliding("r"):
            rows.set_force("r", [(-self.e_r * self.mu * float(np.sign(ctx.velocity[3])), cn)])
        else:
            rows.pairs.extend(add_interval(rows, "r", self._torsion, cn))
        rows.cone, rows.mu = (cn, u["t"], u["o"]), 1.0
        rows.cone_scale = (1.0, self.mu * self.e_t, self.mu * self.e_o)
        return rows.rows()

    def restated(self, form: str) -> EllipticTorsion | None:
        return restated_copy(self, form)

    def friction_set(self) -> FrictionSet:
        parts = [EllipsoidPart("to", self.mu, (self.e_t, self.e_o)), BoxPart("r", self.e_r * self.mu)]
        label = f"ellipse+torsion mu={self.mu:g} e=({self.e_t:g}, {self.e_o:g}, {self.e_r:g})"
        return FrictionSet(parts, label, lcp_law=Pyramid(self.mu))

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if self.mu == 0.0:
            return values
        if not ctx.sliding("to") and self.form == ConeForm.SOC:
            values["u_t"] = float(force[1]) / (self.mu * self.e_t)
            values["u_o"] = float(force[2]) / (self.mu * self.e_o)
        elif not ctx.sliding("to"):
            values.update(lift_ellipse("to", self._ellipse, force, accel))
        if not ctx.sliding("r"):
            values.update(lift_interval_axes("r", self._torsion, force, accel))
        return values
