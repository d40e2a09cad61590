"""k-sided polygonal friction cone (Berard et al. (2004) (33)-(39)).

Friction force c_f = D beta with D = [d_1 ... d_k], d_i = (cos th_i, sin th_i) in the (t, o)
plane, th_i = offset + 2 pi i / k. Rolling contact, variables c_n, beta (k), lambda >= 0:
    0 <= c_n    _|_ a_n >= 0
    0 <= beta   _|_ lambda e + D^T a_T >= 0
    0 <= lambda _|_ mu c_n - e^T beta >= 0
The friction set is the polygon with vertices mu c_n d_i (inscribed in the Coulomb cone).
Sliding contacts use Coulomb's law.

References:

- S. Berard, K. Egan and J. C. Trinkle, "Contact modes and complementary cones", ICRA 2004.
"""

from __future__ import annotations

import numpy as np

from contactmodel import validate
from contactmodel._pyomo import pe
from contactmodel.errors import FrictionLawError
from contactmodel.friction.base import (
    ContactContext,
    ForceMap,
    FrictionLaw,
    Lifted,
    check_coefficient,
    nonneg_pair,
    normal_force,
    normal_pair,
    sliding_map,
)
from contactmodel.friction.sets import FrictionSet, PolygonPart


class Polygonal(FrictionLaw):
    """k-sided polygonal approximation of the Coulomb cone (k >= 3)."""

    def __init__(self, mu: float, k: int = 8, offset: float = 0.0):
        self.mu = check_coefficient(mu, "Polygonal.mu")
        if not isinstance(k, (int, float, np.integer)) or not np.isfinite(k) or int(k) != k or k < 3:
            raise FrictionLawError(f"Polygonal.k must be an integer >= 3 (got {k})")
        self.k = int(k)
        self.offset = validate.real(offset, "Polygonal.offset (rad)", error=FrictionLawError)

    @property
    def directions(self) -> np.ndarray:
        """(k, 2) unit friction directions d_i in the (t, o) plane."""
        th = self.offset + 2 * np.pi * np.arange(self.k) / self.k
        return np.column_stack([np.cos(th), np.sin(th)])

    def build(self, blk, ctx: ContactContext) -> ForceMap:
        c_n = normal_force(blk)
        if ctx.sliding("to"):
            return sliding_map(blk, ctx, {"t": 1.0, "o": 1.0}, self.mu)
        D = self.directions
        blk.beta = pe.Var(range(self.k), domain=pe.NonNegativeReals, initialize=0.0)
        blk.lam = pe.Var(domain=pe.NonNegativeReals, initialize=0.0)
        fmap: ForceMap = {"n": [(1.0, c_n)]}
        for col, alpha in enumerate("to"):
            terms = [(float(D[i, col]), blk.beta[i]) for i in range(self.k) if D[i, col] != 0.0]
            blk.add_component(f"c_{alpha}", pe.Expression(expr=sum(c * v for c, v in terms)))
            fmap[alpha] = terms
        return fmap

    def add_conditions(self, blk, ctx: ContactContext) -> None:
        normal_pair(blk)
        if ctx.sliding("to"):
            return
        D = self.directions
        for i in range(self.k):
            expr = blk.lam + D[i, 0] * blk.accel["t"] + D[i, 1] * blk.accel["o"]
            nonneg_pair(blk, f"direction_{i}", blk.beta[i], expr)
        nonneg_pair(blk, "limit", blk.lam, self.mu * blk.c_n - sum(blk.beta[i] for i in range(self.k)))

    def decompose(self, friction: np.ndarray) -> np.ndarray:
        """beta >= 0 with D beta = friction using the two directions adjacent to it (minimal sum)."""
        beta = np.zeros(self.k)
        if np.linalg.norm(friction) == 0.0:
            return beta
        step = 2 * np.pi / self.k
        angle = (np.arctan2(friction[1], friction[0]) - self.offset) % (2 * np.pi)
        i = int(angle // step) % self.k
        j = (i + 1) % self.k
        D = self.directions
        beta[[i, j]] = np.linalg.solve(np.column_stack([D[i], D[j]]), friction)
        return np.maximum(beta, 0.0)

    def friction_set(self) -> FrictionSet:
        return FrictionSet([PolygonPart(self.mu, self.directions)], f"{self.k}-gon mu={self.mu:g}")

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if ctx.sliding("to"):
            return values
        beta = self.decompose(np.asarray(force[1:3], dtype=float))
        values["beta"] = {i: float(b) for i, b in enumerate(beta)}
        values["lam"] = float(max(0.0, np.max(-(self.directions @ np.asarray(accel[1:3])))))
        return values
