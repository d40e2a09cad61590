"""Soft-finger ellipsoidal limit surface (Trinkle and Pang (1997) (1), Howe-Cutkosky).

Friction (c_t, c_o, c_r) in {c_t^2/e_t^2 + c_o^2/e_o^2 + c_r^2/e_r^2 <= mu^2 c_n^2}. Rolling
contact (v_t = v_o = v_r = 0), MNCP as the cone with e-weights (variables c_n, lambda >= 0;
c_alpha, a_alpha free):
    0 <= lambda _|_ s = mu^2 c_n^2 - sum_alpha c_alpha^2 / e_alpha^2 >= 0
    k_alpha mu c_n a_alpha + c_alpha lambda = 0,   alpha = t, o, r
Sliding: c_alpha = -k_alpha mu c_n v_alpha / sqrt(sum_beta k_beta^2 v_beta^2 / e_beta^2).

``direction="max-work"`` (default): k_alpha = e_alpha^2, the maximum-work law of Trinkle and Pang (1997) and
its KKT system; the friction opposes the sliding in the metric of the ellipsoid, parallel to
-(e_t^2 a_t, e_o^2 a_o, e_r^2 a_r). ``direction="opposite"``: k_alpha = 1, the friction is
parallel to -(a_t, a_o, a_r) (force and moment components treated alike) and has the largest
magnitude the ellipsoid allows in that direction. The two coincide when e_t = e_o = e_r. The
"opposite" law is not the maximum-work law of any ellipsoid: maximum work over an ellipsoid
with semi-axes e' gives c parallel to -diag(e')^2 a, which is parallel to -a for every a only
for a sphere, while the set here is the e-ellipsoid. It is a non-associated law (like
Coulomb's with an anisotropic set); it is the law under which Trinkle and Pang's (1997) Table 1 sliding
solution holds (its (c_t, c_o, c_r) / (a_t, a_o, a_r) ratios agree over t, o and r).
Needs contacts declared with torsion=True.

``form="soc"``: a rolling contact as a cone block of four scaled variables (newton only), as
:class:`~contactmodel.friction.anisotropic.AnisotropicCone`'s SOC form does in three: with
c_alpha = mu e_alpha u_alpha the ellipsoid is the unit cone |(u_t, u_o, u_r)| <= c_n, and Coulomb's
law (mu = 1) for u against the rows (a_n, s_t a_t, s_o a_o, s_r a_r) gives u_T parallel to
-(s_alpha a_alpha), so c_alpha parallel to -e_alpha s_alpha a_alpha: s_alpha = mu e_alpha is the
maximum-work law, s_alpha = mu / e_alpha the "opposite" one. No square of the forces, so no
degeneracy at c_n = 0, where the MNCP's rows are flat. ``form=None`` (the default) chooses as
``CoulombCone(mu)`` does: this form for newton, the MNCP for a solver without cone blocks;
``form="mncp"`` is the MNCP above, for every solver. A problem's cone blocks are all of three rows
or all of four: beside the three-row blocks of the other laws' SOC forms an automatic Ellipsoid
contact takes its MNCP (:func:`~contactmodel.mcp.direct.one_block_size`), and ``form="soc"`` is
refused there unless those laws are automatic (then they take their MNCP).

References:

- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import math

import numpy as np

from contactmodel.errors import FrictionLawError
from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient, check_semi_axes
from contactmodel.friction.cone import ConeForm, chosen_form, restated_copy
from contactmodel.friction.rows import (
    NORMAL_PAIR,
    NORMAL_VARIABLE,
    ContactRows,
    RowsBuilder,
    ellipse_rows,
    normal_rows,
    sliding_rows,
)
from contactmodel.friction.sets import EllipsoidPart, FrictionSet

#: accepted values of ``Ellipsoid(direction=...)``
DIRECTIONS = ("max-work", "opposite")


def lift_ellipse(
    axes: str, weights: dict[str, float], force, accel, k: dict[str, float] | None = None
) -> Lifted:
    """Values of the rolling-contact variables at (force, accel); ``k`` as in
    :func:`~contactmodel.friction.rows.add_ellipse` (default ``weights[alpha]**2``)."""
    f, acc = np.asarray(force, dtype=float).tolist(), np.asarray(accel, dtype=float).tolist()
    idx = ["ntor".index(a) for a in axes]
    values: Lifted = {"c_" + a: f[i] for a, i in zip(axes, idx)}
    squares = 0.0  # lambda = |(k_alpha a_alpha / w_alpha)|, summed in axis order
    for a, i in zip(axes, idx):
        w = weights[a]
        squares += ((w**2 if k is None else k[a]) * acc[i] / w) ** 2
        values["a_" + a] = acc[i]
    values["lam"] = math.sqrt(squares)
    return values


class Ellipsoid(FrictionLaw):
    """Soft-finger contact: ellipsoidal limit surface in (c_t, c_o, c_r).

    ``direction``: ``"max-work"`` (Trinkle and Pang's (1997) law) or ``"opposite"`` (friction parallel to
    -(a_t, a_o, a_r), see the module docstring). ``form``: None (default, automatic), ``"soc"`` (a
    cone block of four rows, newton only) or ``"mncp"``, see the module docstring; ``self.auto``
    whether it was left to choose.
    """

    needs_torsion = True

    def __init__(
        self,
        mu: float,
        e_t: float = 1.0,
        e_o: float = 1.0,
        e_r: float = 1.0,
        direction: str = "max-work",
        form: ConeForm | str | None = None,
    ):
        self.mu = check_coefficient(mu, "Ellipsoid.mu")
        self.e_t, self.e_o, self.e_r = check_semi_axes("Ellipsoid", e_t, e_o, e_r)
        if direction not in DIRECTIONS:
            raise FrictionLawError(
                f"Ellipsoid.direction must be one of {DIRECTIONS} (got {direction!r}): 'max-work' for "
                "the maximum-work law of Trinkle and Pang (1997), 'opposite' for friction parallel to "
                "-(a_t, a_o, a_r)"
            )
        self.direction = direction
        self.auto, self.form = chosen_form(form, "Ellipsoid.form")

    @property
    def weights(self) -> dict[str, float]:
        return {"t": self.e_t, "o": self.e_o, "r": self.e_r}

    @property
    def direction_weights(self) -> dict[str, float]:
        """k_alpha of the module docstring: e_alpha^2 (maximum work) or 1 (opposite)."""
        if self.direction == "opposite":
            return {a: 1.0 for a in "tor"}
        return {a: e**2 for a, e in self.weights.items()}

    def rows(self, ctx: ContactContext) -> ContactRows:
        if self.mu == 0.0:  # the set is {0}: no friction; the MNCP rows would be degenerate there
            return self.cached_rows(normal_rows)
        if ctx.sliding("tor"):
            if self.direction == "max-work":
                return sliding_rows(ctx.velocity, self.weights, self.mu)
            return self._opposite_sliding_rows(ctx)
        if self.form == ConeForm.SOC:
            return self.cached_rows(self._soc_rows)
        return self.cached_rows(lambda: ellipse_rows("tor", self.weights, self.mu, self.direction_weights))

    @property
    def cone_scale(self) -> tuple[float, float, float, float]:
        """The rows' scales (1, s_t, s_o, s_r) of the SOC form: mu e_alpha (maximum work) or
        mu / e_alpha ("opposite"), see the module docstring."""
        e = self.weights.values()
        if self.direction == "opposite":
            return (1.0, *(self.mu / w for w in e))
        return (1.0, *(self.mu * w for w in e))

    def _soc_rows(self) -> ContactRows:
        """A rolling contact as a cone block of free c_n, u_t, u_o, u_r (c_alpha = mu e_alpha
        u_alpha), rows (a_n, s_t a_t, s_o a_o, s_r a_r)."""
        rows = RowsBuilder()
        cn = rows.var("c_n", free=True)
        u = {a: rows.var(f"u_{a}", free=True) for a in "tor"}
        rows.set_force("n", [(1.0, cn)])
        for a, e in self.weights.items():
            rows.set_force(a, [(self.mu * e, u[a])])
        rows.cone, rows.mu, rows.cone_scale = (cn, u["t"], u["o"], u["r"]), 1.0, self.cone_scale
        return rows.rows()

    def restated(self, form: str) -> Ellipsoid | None:
        """In the MNCP form, from the SOC form; None otherwise: a problem's cone blocks have one
        size, so the fallback's retry in the SOC form leaves this law's contacts as they are."""
        return restated_copy(self, form) if form == ConeForm.MNCP else None

    def _opposite_sliding_rows(self, ctx: ContactContext) -> ContactRows:
        """c_alpha = -mu c_n v_alpha / sqrt(sum v_beta^2 / e_beta^2): on the ellipsoid, along -v."""
        v = {a: float(ctx.velocity["ntor".index(a)]) for a in "tor"}
        norm = math.sqrt(sum((v[a] / e) ** 2 for a, e in self.weights.items()))
        force = {"n": [(1.0, 0)]}
        force.update({a: [(-self.mu * v[a] / norm, 0)] for a in "tor"})
        return ContactRows(NORMAL_VARIABLE, force, NORMAL_PAIR)

    def friction_set(self) -> FrictionSet:
        from contactmodel.friction.pyramid import Pyramid

        e = np.array([self.e_t, self.e_o, self.e_r])
        k = np.array([self.direction_weights[a] for a in "tor"]) / e**2  # "opposite": a / e^2
        label = f"ellipsoid mu={self.mu:g} e=({self.e_t:g}, {self.e_o:g}, {self.e_r:g})"
        return FrictionSet([EllipsoidPart("tor", self.mu, e, k)], label, lcp_law=Pyramid(self.mu))

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if self.mu == 0.0 or ctx.sliding("tor"):
            return values
        if self.form == ConeForm.SOC:
            for a, e in self.weights.items():
                values[f"u_{a}"] = float(force["ntor".index(a)]) / (self.mu * e)
        else:
            values.update(lift_ellipse("tor", self.weights, force, accel, self.direction_weights))
        return values
