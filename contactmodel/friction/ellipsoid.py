"""Soft-finger ellipsoidal limit surface (seed 002 (1), Howe-Cutkosky) with maximum work.

Friction (c_t, c_o, c_r) in {c_t^2/e_t^2 + c_o^2/e_o^2 + c_r^2/e_r^2 <= mu^2 c_n^2}. Rolling
contact (v_t = v_o = v_r = 0), MNCP as the cone with e-weights (variables c_n, lambda >= 0;
c_alpha, a_alpha free):
    0 <= lambda _|_ s = mu^2 c_n^2 - sum_alpha c_alpha^2 / e_alpha^2 >= 0
    e_alpha^2 mu c_n a_alpha + c_alpha lambda = 0,   alpha = t, o, r
Sliding: c_alpha = -e_alpha^2 mu c_n v_alpha / sqrt(sum e^2 v^2) (seed 002's KKT system).
Needs contacts declared with torsion=True.
"""

from __future__ import annotations

import numpy as np
import pyomo.environ as pe

from contactmodel.friction.base import (
    ContactContext,
    ForceMap,
    FrictionLaw,
    check_coefficient,
    equation,
    nonneg_pair,
    normal_force,
    normal_pair,
    sliding_map,
)


def add_ellipse(blk, axes: str, weights: dict[str, float], mu: float) -> None:
    """The weighted-cone MNCP rows over ``axes`` (variables made by :func:`ellipse_variables`)."""
    blk.s = pe.Expression(
        expr=mu**2 * blk.c_n**2 - sum(getattr(blk, f"c_{a}") ** 2 / weights[a] ** 2 for a in axes)
    )
    nonneg_pair(blk, "ellipse", blk.lam, blk.s)
    for a in axes:
        c, acc = getattr(blk, f"c_{a}"), getattr(blk, f"a_{a}")
        equation(blk, f"max_work_{a}", weights[a] ** 2 * mu * blk.c_n * acc + c * blk.lam, c)
        equation(blk, f"accel_{a}", acc - blk.accel[a], acc)


def ellipse_variables(blk, axes: str) -> ForceMap:
    blk.lam = pe.Var(domain=pe.NonNegativeReals, initialize=0.0)
    fmap: ForceMap = {}
    for a in axes:
        blk.add_component(f"c_{a}", pe.Var(initialize=0.0))
        blk.add_component(f"a_{a}", pe.Var(initialize=0.0))
        fmap[a] = [(1.0, getattr(blk, f"c_{a}"))]
    return fmap


def lift_ellipse(axes: str, weights: dict[str, float], force, accel) -> dict[str, float]:
    idx = ["ntor".index(a) for a in axes]
    values = {f"c_{a}": float(force[i]) for a, i in zip(axes, idx)}
    values.update({f"a_{a}": float(accel[i]) for a, i in zip(axes, idx)})
    values["lam"] = float(np.sqrt(sum(weights[a] ** 2 * accel[i] ** 2 for a, i in zip(axes, idx))))
    return values


class Ellipsoid(FrictionLaw):
    """Soft-finger contact: ellipsoidal limit surface in (c_t, c_o, c_r)."""

    needs_torsion = True

    def __init__(self, mu: float, e_t: float = 1.0, e_o: float = 1.0, e_r: float = 1.0):
        self.mu = check_coefficient(mu, "Ellipsoid.mu")
        self.e_t = check_coefficient(e_t, "Ellipsoid.e_t", positive=True)
        self.e_o = check_coefficient(e_o, "Ellipsoid.e_o", positive=True)
        self.e_r = check_coefficient(e_r, "Ellipsoid.e_r", positive=True)

    @property
    def weights(self) -> dict[str, float]:
        return {"t": self.e_t, "o": self.e_o, "r": self.e_r}

    def build(self, blk, ctx: ContactContext) -> ForceMap:
        normal_force(blk)
        if ctx.sliding("tor"):
            return sliding_map(blk, ctx, self.weights, self.mu)
        fmap = ellipse_variables(blk, "tor")
        fmap["n"] = [(1.0, blk.c_n)]
        return fmap

    def add_conditions(self, blk, ctx: ContactContext) -> None:
        normal_pair(blk)
        if not ctx.sliding("tor"):
            add_ellipse(blk, "tor", self.weights, self.mu)

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> dict[str, float]:
        values = {"c_n": float(force[0])}
        if not ctx.sliding("tor"):
            values.update(lift_ellipse("tor", self.weights, force, accel))
        return values
