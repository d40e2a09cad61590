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

import math

import numpy as np

from contactmodel import validate
from contactmodel.errors import FrictionLawError
from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient
from contactmodel.friction.rows import NORMAL_PAIR, ContactRows, sliding_rows
from contactmodel.friction.sets import FrictionSet, PolygonPart

#: the most sides a polygonal cone may have (each side is one variable and one row per contact;
#: 1024 sides are within 5e-6 of the round cone, whose own law is CoulombCone)
MAX_SIDES = 1024


class Polygonal(FrictionLaw):
    """k-sided polygonal approximation of the Coulomb cone (k >= 3)."""

    def __init__(self, mu: float, k: int = 8, offset: float = 0.0):
        self.mu = check_coefficient(mu, "Polygonal.mu")
        if (
            isinstance(k, bool)
            or not isinstance(k, (int, float, np.integer))
            or not np.isfinite(k)
            or int(k) != k
            or not 3 <= k <= MAX_SIDES
        ):
            raise FrictionLawError(
                f"Polygonal.k must be an integer >= 3 and <= {MAX_SIDES} (got {k!r}); each side is a "
                "variable and a row per contact: for a round cone use cm.CoulombCone(mu)"
            )
        self.k = int(k)
        self.offset = validate.real(offset, "Polygonal.offset (rad)", error=FrictionLawError)

    @property
    def directions(self) -> np.ndarray:
        """(k, 2) unit friction directions d_i in the (t, o) plane."""
        th = self.offset + 2 * np.pi * np.arange(self.k) / self.k
        return np.column_stack([np.cos(th), np.sin(th)])

    def rows(self, ctx: ContactContext) -> ContactRows:
        """The contact's rows: sliding, the Coulomb force map; rolling, c_n, beta[i], lam >= 0.

        At a rolling contact c_T = D beta with the pairs ``0 <= beta[i] _|_ lam + d_i . a_T >= 0``
        and ``0 <= lam _|_ mu c_n - sum(beta) >= 0`` (Berard et al. (2004) (33)-(39))."""
        if ctx.sliding("to"):
            return sliding_rows(ctx.velocity, {"t": 1.0, "o": 1.0}, self.mu)
        return self.cached_rows(self._rolling_rows)

    def _rolling_rows(self) -> ContactRows:
        D = self.directions.tolist()
        k, inf = self.k, math.inf
        beta = list(range(1, k + 1))
        lam = k + 1
        betas = tuple(("beta", i, 0.0, inf) for i in range(k))
        variables = (("c_n", None, 0.0, inf), *betas, ("lam", None, 0.0, inf))
        force = {"n": [(1.0, 0)]}
        for col, alpha in enumerate("to"):
            force[alpha] = [(D[i][col], beta[i]) for i in range(k) if D[i][col] != 0.0]
        pairs = [NORMAL_PAIR[0]]
        pairs += [(f"direction_{i}", beta[i], ((1.0, lam), (D[i][0], "t"), (D[i][1], "o"))) for i in range(k)]
        pairs.append(("limit", lam, ((self.mu, 0), (-1.0, tuple((1.0, b) for b in beta)))))
        return ContactRows(variables, force, tuple(pairs))

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
