"""Polyhedral limit surface in face form (Trinkle and Pang (1997) example (b)).

Friction f = (c_t, c_o) or (c_t, c_o, c_r) in {f : G f <= mu c_n} with G (m x 2 or m x 3); the
rows of G are outward facet normals scaled so that the set at mu c_n = 1 is {G f <= 1}.
Maximum work at a rolling contact, with KKT multipliers nu (m) >= 0 (f free):
    a_F + G^T nu = 0,    0 <= nu _|_ mu c_n - G f >= 0,    0 <= c_n _|_ a_n >= 0.
At a sliding contact f = mu c_n f*, f* = argmin {v . f : G f <= 1} (a linear program solved
once when the model is built). A 3-column G needs contacts declared with torsion=True.

References:

- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import math

import numpy as np

from contactmodel import validate
from contactmodel.errors import FrictionLawError
from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted, check_coefficient
from contactmodel.friction.rows import NORMAL_PAIR, NORMAL_VARIABLE, ContactRows
from contactmodel.friction.sets import FrictionSet, PolytopePart


class PolyhedralLimitSurface(FrictionLaw):
    """Any bounded polyhedral friction set containing the origin, given by its facets."""

    def __init__(self, G, mu: float = 1.0):
        from scipy.optimize import linprog  # scipy.optimize costs ~0.1 s to import: only when needed

        G = validate.real_array(
            G, "PolyhedralLimitSurface.G (an m x 2 or m x 3 matrix)", finite=False, error=FrictionLawError
        )
        if G.ndim != 2 or G.shape[1] not in (2, 3) or G.shape[0] < G.shape[1] + 1:
            raise FrictionLawError(
                "PolyhedralLimitSurface.G must be an (m x 2) or (m x 3) matrix of facet normals "
                f"with m > columns (got shape {G.shape})"
            )
        if not np.all(np.isfinite(G)):
            raise FrictionLawError("PolyhedralLimitSurface.G contains NaN or infinity")
        d = G.shape[1]
        for direction in np.vstack([np.eye(d), -np.eye(d)]):
            res = linprog(-direction, A_ub=G, b_ub=np.ones(len(G)), bounds=[(None, None)] * d)
            if res.status == 3:
                raise FrictionLawError(
                    "PolyhedralLimitSurface.G does not bound the friction set (unbounded along "
                    f"{direction.tolist()}): its rows must positively span the friction space"
                )
        self.G = G
        self.mu = check_coefficient(mu, "PolyhedralLimitSurface.mu")
        self.needs_torsion = d == 3

    @property
    def axes(self) -> str:
        return "tor"[: self.G.shape[1]]

    def vertex(self, velocity: np.ndarray) -> np.ndarray:
        """f* = argmin {v . f : G f <= 1}: the unit-load friction opposing ``velocity``.

        When v is normal to a face the minimizers form that face; the one of least norm is
        taken (the face's point nearest the origin, symmetric where the set is).
        """
        from scipy.optimize import linprog, minimize

        d = self.G.shape[1]
        ones = np.ones(len(self.G))
        best = linprog(velocity, A_ub=self.G, b_ub=ones, bounds=[(None, None)] * d).fun
        A = np.vstack([self.G, velocity])
        b = np.append(ones, best + 1e-12 * max(1.0, abs(best)))
        res = minimize(
            lambda f: f @ f,
            np.zeros(d),
            jac=lambda f: 2 * f,
            constraints=[{"type": "ineq", "fun": lambda f: b - A @ f, "jac": lambda f: -A}],
            method="SLSQP",
            options={"ftol": 1e-15, "maxiter": 200},
        )
        return res.x

    def rows(self, ctx: ContactContext) -> ContactRows:
        """Sliding: c_alpha = mu f*_alpha c_n with f* = :meth:`vertex` of the velocity. Rolling: c_n,
        nu[i] >= 0 and free c_alpha with ``a_alpha + sum_i G[i, alpha] nu[i] == 0`` matched with
        c_alpha and ``0 <= nu[i] _|_ mu c_n - G[i] . c_T >= 0`` (the KKT conditions of maximum work
        over G c_T <= mu c_n)."""
        axes = self.axes
        if ctx.sliding(axes):
            v = np.array([ctx.velocity["ntor".index(a)] for a in axes])
            force = {"n": [(1.0, 0)]}
            force.update({a: [(float(k), 0)] for a, k in zip(axes, self.mu * self.vertex(v))})
            return ContactRows(NORMAL_VARIABLE, force, NORMAL_PAIR)
        return self.cached_rows(self._rolling_rows)

    def _rolling_rows(self) -> ContactRows:
        axes, G, inf = self.axes, self.G, math.inf
        faces = range(len(G))
        nu = [1 + i for i in faces]
        c = {a: 1 + len(G) + k for k, a in enumerate(axes)}
        variables = (
            ("c_n", None, 0.0, inf),
            *(("nu", i, 0.0, inf) for i in faces),
            *((f"c_{a}", None, -inf, inf) for a in axes),
        )
        force = {"n": [(1.0, 0)]}
        force.update({a: [(1.0, c[a])] for a in axes})
        pairs = [NORMAL_PAIR[0]]
        for col, a in enumerate(axes):
            group = tuple((float(G[i, col]), nu[i]) for i in faces if G[i, col] != 0)
            pairs.append((f"max_work_{a}", c[a], ((1.0, a), (1.0, group))))
        for i in faces:
            group = tuple((float(G[i, col]), c[a]) for col, a in enumerate(axes) if G[i, col] != 0)
            pairs.append((f"face_{i}", nu[i], ((self.mu, 0), (-1.0, group))))
        return ContactRows(variables, force, tuple(pairs))

    def friction_set(self) -> FrictionSet:
        label = f"polyhedral ({len(self.G)} faces) mu={self.mu:g}"
        return FrictionSet([PolytopePart(self.axes, self.G, self.mu)], label)

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        axes = self.axes
        if ctx.sliding(axes):
            return values
        idx = ["ntor".index(a) for a in axes]
        f = np.asarray(force)[idx]
        a = np.asarray(accel)[idx]
        values.update({f"c_{ax}": float(x) for ax, x in zip(axes, f)})
        slack = self.mu * force[0] - self.G @ f
        active = np.abs(slack) <= 1e-9 * max(1.0, abs(force[0]))
        nu = np.zeros(len(self.G))
        if np.any(a != 0) and np.any(active):
            from scipy.optimize import nnls

            nu[active], _ = nnls(self.G[active].T, -a)
        values["nu"] = {i: float(x) for i, x in enumerate(nu)}
        return values
