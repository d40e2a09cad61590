"""Friction sets of the laws: projections, membership, polyhedral rows, outlines, mode names.

Each ``project_*`` function projects the point(s) ``y`` onto a convex set scaled by a nonnegative radius; the
sets are given at unit normal force and scaled by ``mu c_n`` by the caller.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np

from contactmodel.errors import FrictionLawError
from contactmodel.mode_labels import Mode, PatternLabel


def project_box(y: np.ndarray, half_widths: np.ndarray) -> np.ndarray:
    """Projection of ``y`` onto the box ``|y_i| <= half_widths_i``."""
    return np.clip(y, -half_widths, half_widths)


def project_ellipsoid(y: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """Projection of ``y`` onto the axis-aligned ellipsoid ``sum (p_i / radii_i)^2 <= 1``.

    KKT: ``p_i = y_i r_i^2 / (r_i^2 + lam)`` with ``lam >= 0`` the root of the (decreasing)
    constraint ``sum (y_i r_i / (r_i^2 + lam))^2 = 1``. Zero radii give p_i = 0.
    """
    y = np.asarray(y, dtype=float)
    r = np.asarray(radii, dtype=float)
    if not np.any(r > 0):
        return np.zeros_like(y)
    live = r > 0
    yl, rl = y[live], r[live]
    out = np.zeros_like(y)
    if np.sum((yl / rl) ** 2) <= 1.0:
        out[live] = yl
        return out
    if np.allclose(rl, rl[0]):  # a ball: the closed form
        out[live] = yl * (rl[0] / np.linalg.norm(yl))
        return out

    def excess(lam: float) -> float:
        return float(np.sum((yl * rl / (rl**2 + lam)) ** 2)) - 1.0

    from scipy.optimize import brentq  # scipy.optimize costs ~0.1 s to import: only when needed

    hi = float(np.linalg.norm(rl * yl))  # excess(hi) <= sum (r y / hi)^2 - 1 = 0
    lam = brentq(excess, 0.0, hi, xtol=1e-300, rtol=8.9e-16)
    out[live] = yl * rl**2 / (rl**2 + lam)
    return out


#: at most this many points are projected one by one in Python floats (numpy's fixed cost per
#: operation is most of the time for a few points)
_FEW_POINTS = 8


def project_ellipsoids(y: np.ndarray, radii: np.ndarray) -> np.ndarray:
    """:func:`project_ellipsoid` of k points at once: ``y`` and ``radii`` (k, d), row by row; the
    same cases (zero radii, inside, a ball by ``np.allclose``), the multiplier found by Newton's
    method instead of Brent's: ``excess(lam)`` is convex and decreasing, so from a lower bound of
    its root, ``||r y|| - max r^2``, the iterates rise monotonically to it (to rounding, as Brent's
    method with its tolerances). A few points (at most :data:`_FEW_POINTS`, d < 8) are projected
    one by one with the same operations in the same order, so either way gives the same bits."""
    y = np.asarray(y, dtype=float)
    r = np.asarray(radii, dtype=float)
    if len(y) <= _FEW_POINTS and y.ndim == 2 and y.shape[1] < 8:
        try:
            return np.array([_project_point(a, b) for a, b in zip(y.tolist(), r.tolist())]).reshape(y.shape)
        except (ZeroDivisionError, OverflowError):
            pass  # squares that underflow or overflow: the arrays' inf and nan arithmetic below
    live = r > 0
    rl = np.where(live, r, 1.0)
    yl = np.where(live, y, 0.0)
    out = np.zeros_like(y)
    inside = np.sum((yl / rl) ** 2, axis=1) <= 1.0
    out[inside] = yl[inside]
    first = np.take_along_axis(r, np.argmax(live, axis=1)[:, None], axis=1)  # a live radius per row
    ball = np.all(~live | (np.abs(r - first) <= 1e-8 + 1e-5 * np.abs(first)), axis=1)
    ball &= ~inside & live.any(axis=1)
    if ball.any():
        norm = np.linalg.norm(yl[ball], axis=1, keepdims=True)
        out[ball] = yl[ball] * (first[ball] / norm)
    rest = ~inside & ~ball & live.any(axis=1)
    if rest.any():
        on = live[rest]
        yr, rr = yl[rest], np.where(on, r[rest], 0.0)
        ry2 = (rr * yr) ** 2  # 0 at a zero radius: those terms drop out
        r2 = np.where(on, rr**2, 1.0)
        lam = np.maximum(np.sqrt(ry2.sum(axis=1)) - np.where(on, r2, 0.0).max(axis=1), 0.0)
        idx = np.arange(lam.size)
        for _ in range(200):
            q = r2[idx] + lam[idx, None]
            w = ry2[idx] / q**2
            step = lam[idx] + (w.sum(axis=1) - 1.0) / (2.0 * np.sum(w / q, axis=1))
            moved = step > lam[idx]
            lam[idx[moved]] = step[moved]
            idx = idx[moved]
            if not idx.size:
                break
        out[rest] = np.where(on, yr * r2 / (r2 + lam[:, None]), 0.0)
    return out


def _project_point(y: list[float], r: list[float]) -> list[float]:
    """One row of :func:`project_ellipsoids` in Python floats: its operations in its order (numpy
    sums fewer than 8 entries of a row left to right, as the loops here do). The arrays' terms of
    zero radii are exact zeros in every sum and maximum, so only the live components are kept."""
    live = [i for i, ri in enumerate(r) if ri > 0]
    if len(live) == len(y):
        ys, rs = y, r
    elif live:
        ys, rs = [y[i] for i in live], [r[i] for i in live]
    else:
        return [0.0] * len(y)
    inside = 0.0
    for a, b in zip(ys, rs):
        inside += (a / b) * (a / b)
    first = rs[0]
    if inside <= 1.0:
        out = ys
    elif all(abs(b - first) <= 1e-8 + 1e-5 * abs(first) for b in rs):
        scale = first / math.sqrt(_add([a * a for a in ys]))
        out = [a * scale for a in ys]
    else:
        ry2 = [(b * a) * (b * a) for a, b in zip(ys, rs)]
        r2 = [b * b for b in rs]
        lam = max(math.sqrt(_add(ry2)) - max(r2), 0.0)
        for _ in range(200):
            total = slope = 0.0
            for a, b in zip(ry2, r2):
                q = b + lam
                w = a / (q * q)
                total += w
                slope += w / q
            step = lam + (total - 1.0) / (2.0 * slope)
            if not step > lam:
                break
            lam = step
        out = [a * b / (b + lam) for a, b in zip(ys, r2)]
    if len(live) == len(y):
        return out
    placed = [0.0] * len(y)  # the live components back among zeros
    for i, v in zip(live, out):
        placed[i] = v
    return placed


def _add(values: list[float]) -> float:
    """The sum left to right (``sum`` compensates its rounding from Python 3.12 on)."""
    total = 0.0
    for v in values:
        total += v
    return total


def project_polygon(y: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """Projection of the 2-vector ``y`` onto the convex polygon with counter-clockwise
    ``vertices`` (k, 2), which contains the origin (all zero: the point 0)."""
    y = np.asarray(y, dtype=float)
    V = np.asarray(vertices, dtype=float)
    if not np.any(V):
        return np.zeros(2)
    edges = np.roll(V, -1, axis=0) - V
    outward = np.column_stack([edges[:, 1], -edges[:, 0]])
    if np.all(np.einsum("ij,ij->i", outward, y - V) <= 0.0):
        return y
    # the nearest point of the boundary: the nearest over the edges (segments)
    lengths2 = np.maximum(np.einsum("ij,ij->i", edges, edges), np.finfo(float).tiny)
    t = np.clip(np.einsum("ij,ij->i", y - V, edges) / lengths2, 0.0, 1.0)
    points = V + t[:, None] * edges
    return points[np.argmin(np.sum((points - y) ** 2, axis=1))]


def project_polytope(y: np.ndarray, G: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Projection of ``y`` (d <= 3) onto the bounded polytope ``{p : G p <= h}``, exactly: the
    projection lies in the relative interior of one face, so it is the nearest feasible projection
    of ``y`` onto the affine hulls of at most d independent active facets."""
    y = np.asarray(y, dtype=float)
    G, h = np.asarray(G, dtype=float), np.asarray(h, dtype=float)
    tol = 1e-12 * max(1.0, float(np.abs(h).max()), float(np.abs(y).max()))
    if np.all(G @ y <= h + tol):
        return y
    best, best_d = np.zeros_like(y), np.inf
    for size in range(1, y.size + 1):
        for rows in combinations(range(len(G)), size):
            Gs = G[list(rows)]
            gram = Gs @ Gs.T
            if np.linalg.matrix_rank(gram) < size:
                continue
            p = y - Gs.T @ np.linalg.solve(gram, Gs @ y - h[list(rows)])
            d = float(np.sum((p - y) ** 2))
            if d < best_d and np.all(G @ p <= h + tol):
                best, best_d = p, d
    return best


# -- the friction set of a law: one object owning projection, membership, rows and outline -----
AXES = "ntor"

#: rows r (over (n, t, o[, r]) of one contact) with r . f <= 0: a polyhedral version of a set
Rows = list[np.ndarray]


class SetPart(ABC):
    """One factor of a friction set over some of (t, o, r), scaled by the normal force c_n.

    A law's friction set is the product of its parts (components not in any part are zero).
    ``accel_weights`` are the weights ``k`` of the acceleration in the maximum-work problem
    ``min f . (k a)`` over this part (1 for maximum work over the set itself).
    ``lcp``: the law states this part as an LCP whose sign patterns :meth:`pattern_label` names.
    """

    components: str
    accel_weights: np.ndarray | float = 1.0
    lcp: bool = False
    round: bool = False

    @abstractmethod
    def project(self, cn: float, y: np.ndarray) -> np.ndarray:
        """Euclidean projection of ``y`` (over ``components``) onto the part at normal force ``cn``."""

    def project_many(self, cn: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`project` of k points at once: ``cn`` (k,), ``y`` (k, len(components))."""
        return np.array([self.project(c, row) for c, row in zip(cn, y)], dtype=float).reshape(y.shape)

    @abstractmethod
    def excess(self, cn: float, f: np.ndarray) -> float:
        """How far ``f`` lies outside the part at ``cn`` (<= 0: inside), in the law's own units."""

    @abstractmethod
    def halfspaces(self, outer: bool, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(G, h): the polyhedral version {G f <= h c_n} of the part; a round part is replaced by
        a circumscribed (``outer``) or inscribed polytope with about ``k`` faces per circle."""

    def section(self) -> tuple[np.ndarray, int] | None:
        """The part's (t, o) section at c_n = 1 (other components zero): (points (p, 2) in order,
        corner count, 0 for a smooth curve), or None when the part has no t or o component."""
        return None

    def torsion(self) -> float | None:
        """The limit of |c_r| at c_n = 1 (t = o = 0) when the part bounds c_r, else None."""
        return None

    def pattern_label(self, bits: dict[str, str], pattern: str) -> PatternLabel:
        """Name the sign pattern of this part's LCP pairs at a touching contact (``lcp`` parts)."""
        raise FrictionLawError(f"{type(self).__name__} has no sign patterns: it is not stated as an LCP")

    def slide_index(self, aT: np.ndarray, eps: float) -> tuple[str, list[str]] | None:
        """For a sliding acceleration ``aT`` (t[, o]): the index naming the slide (``"+t-o"``,
        ``"d3"``) and notes on degeneracy (non-empty: degenerate); None when not named."""
        return None

    def slide_indices(self, aT: np.ndarray, eps: np.ndarray) -> list[tuple[str, tuple[str, ...]] | None]:
        """:meth:`slide_index` of m slides at once (``aT`` (m, len(t[, o])), ``eps`` (m,)), its
        notes as tuples."""
        named = (self.slide_index(a, e) for a, e in zip(aT, np.asarray(eps, dtype=float).tolist()))
        return [None if n is None else (n[0], tuple(n[1])) for n in named]

    def spare_pairs(self, weak: list[str]) -> list[str]:
        """Of the weakly complementary pairs ``weak`` at a rolling contact, the ones that only mean
        the friction uses fewer generators (not impending slip)."""
        return []


def _per_axis(value, count: int) -> np.ndarray:
    """``value`` (a number, or ``count`` numbers) as a float array of length ``count``."""
    v = np.asarray(value, dtype=float)
    return np.full(count, float(v)) if v.ndim == 0 else v.copy()


def _padded(values: np.ndarray, axes: str) -> np.ndarray:
    """A (p, len(axes)) section laid out in (t, o) columns."""
    out = np.zeros((len(values), 2))
    for col, a in enumerate(axes):
        if a in "to":
            out[:, "to".index(a)] = values[:, col]
    return out


class BoxPart(SetPart):
    """|f_i| <= w_i c_n over ``components`` (pyramid, planar, torsional interval); the law states
    it with the interval pairs ``plus_a`` / ``minus_a`` of each axis a."""

    lcp = True

    def __init__(self, components: str, half_widths) -> None:
        self.components = components
        self.w = _per_axis(half_widths, len(components))

    def project(self, cn: float, y: np.ndarray) -> np.ndarray:
        return project_box(y, self.w * cn)

    def project_many(self, cn: np.ndarray, y: np.ndarray) -> np.ndarray:
        return project_box(y, self.w * np.asarray(cn, dtype=float)[:, None])

    def excess(self, cn: float, f: np.ndarray) -> float:
        return float(np.max(np.abs(f) - self.w * cn))

    def halfspaces(self, outer: bool, k: int) -> tuple[np.ndarray, np.ndarray]:
        d = len(self.components)
        eye = np.eye(d)
        return np.vstack([s * eye[i] for i in range(d) for s in (1, -1)]), np.repeat(self.w, 2)

    def section(self) -> tuple[np.ndarray, int] | None:
        axes = "".join(a for a in self.components if a in "to")
        if not axes:
            return None
        w = self.w[[self.components.index(a) for a in axes]]
        if len(axes) == 1:
            return _padded(np.array([[w[0]], [-w[0]]]), axes), 2
        corners = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]]) * w
        return _padded(corners, axes), 4

    def torsion(self) -> float | None:
        return float(self.w[self.components.index("r")]) if "r" in self.components else None

    def pattern_label(self, bits: dict[str, str], pattern: str) -> PatternLabel:
        axes = self.components
        states = {a: _AXIS_STATE[(bits[f"plus_{a}"], bits[f"minus_{a}"])] for a in axes}
        if bits["normal"] == "0":
            ok = all(bits[f"plus_{a}"] == "0" and bits[f"minus_{a}"] == "1" for a in axes)
            return PatternLabel(Mode.SEPARATE, "separate" if ok else f"separate?{pattern}", not ok, ok)
        if all(s == "?" for s in states.values()):
            return PatternLabel(Mode.SLIDE, "slide (no friction force)", True)
        if any(s == "?" for s in states.values()):
            return PatternLabel(Mode.SLIDE, f"slide?{pattern}", True, False)
        moving = [a for a in axes if states[a] != "0"]
        if not moving:
            return PatternLabel(Mode.ROLL, "roll")
        label = "slide " + "".join(f"{states[a]}{a}" for a in moving)
        return PatternLabel(Mode.SLIDE, label, len(moving) < len(axes))

    def slide_index(self, aT: np.ndarray, eps: float) -> tuple[str, list[str]] | None:
        signs = ["+" if s > eps else "-" if s < -eps else "0" for s in aT]
        index = "".join(f"{s}{ax}" for s, ax in zip(signs, self.components) if s != "0")
        notes = [_FACE_SLIDE] if "0" in signs else []
        return index, notes

    def slide_indices(self, aT: np.ndarray, eps: np.ndarray) -> list[tuple[str, tuple[str, ...]] | None]:
        e = np.asarray(eps, dtype=float)[:, None]
        signs = (aT > e).astype(np.int64) - (aT < -e)  # +1, -1, 0 as slide_index's "+", "-", "0"
        return _named(self, signs.tolist(), self._slide_name)

    def _slide_name(self, signs: list[int]) -> tuple[str, list[str]]:
        """:meth:`slide_index` of a slide whose acceleration has the ``signs`` (+1, -1, 0)."""
        index = "".join(f"{'+' if s > 0 else '-'}{ax}" for s, ax in zip(signs, self.components) if s)
        notes = [_FACE_SLIDE] if 0 in signs else []
        return index, notes


_FACE_SLIDE = "slides along one pyramid axis: force on a face, between two quadrants"

#: sliding sign along an interval axis from its (plus_, minus_) pattern bits
_AXIS_STATE = {("1", "0"): "0", ("0", "0"): "+", ("1", "1"): "-", ("0", "1"): "?"}


class EllipsoidPart(SetPart):
    """sum (f_i / e_i)^2 <= (mu c_n)^2 over ``components`` (cone, ellipsoid, ellipse)."""

    round = True

    def __init__(self, components: str, mu: float, e, accel_weights: np.ndarray | float = 1.0) -> None:
        self.components = components
        self.mu = float(mu)
        self.e = _per_axis(e, len(components))
        self.accel_weights = accel_weights

    def project(self, cn: float, y: np.ndarray) -> np.ndarray:
        return project_ellipsoid(y, self.mu * cn * self.e)

    def project_many(self, cn: np.ndarray, y: np.ndarray) -> np.ndarray:
        return project_ellipsoids(y, self.mu * np.asarray(cn, dtype=float)[:, None] * self.e)

    def excess(self, cn: float, f: np.ndarray) -> float:
        return float(np.linalg.norm(f / self.e)) - self.mu * cn

    def halfspaces(self, outer: bool, k: int) -> tuple[np.ndarray, np.ndarray]:
        d = len(self.components)
        if d == 1:
            return np.array([[1.0], [-1.0]]) / self.e, np.full(2, self.mu)
        if d == 2:
            th = 2 * np.pi * np.arange(k) / k
            u = np.column_stack([np.cos(th), np.sin(th)])
            shrink = 1.0 if outer else np.cos(np.pi / k)
        else:
            u = _sphere_points(k)
            shrink = 1.0 if outer else 0.8
        return u / self.e, np.full(len(u), self.mu * shrink)

    def section(self) -> tuple[np.ndarray, int] | None:
        if "t" not in self.components or "o" not in self.components:
            return None
        th = 2 * np.pi * np.arange(64) / 64
        r = self.mu * self.e[[self.components.index("t"), self.components.index("o")]]
        return np.column_stack([r[0] * np.cos(th), r[1] * np.sin(th)]), 0

    def torsion(self) -> float | None:
        return float(self.mu * self.e[self.components.index("r")]) if "r" in self.components else None


def _sphere_points(k: int) -> np.ndarray:
    """About 2k^2/pi roughly uniform unit vectors (Fibonacci sphere), dense enough for k = 16."""
    n = max(20, int(2 * k * k / np.pi))
    i = np.arange(n) + 0.5
    phi = np.arccos(1 - 2 * i / n)
    th = np.pi * (1 + 5**0.5) * i
    return np.column_stack([np.cos(th) * np.sin(phi), np.sin(th) * np.sin(phi), np.cos(phi)])


class PolytopePart(SetPart):
    """{f : G f <= h c_n} over ``components`` (bounded, containing the origin), in face form."""

    def __init__(self, components: str, G, h) -> None:
        self.components = components
        self.G = np.asarray(G, dtype=float)
        self.h = _per_axis(h, len(self.G))

    def project(self, cn: float, y: np.ndarray) -> np.ndarray:
        return project_polytope(y, self.G, self.h * cn)

    def excess(self, cn: float, f: np.ndarray) -> float:
        return float(np.max(self.G @ f - self.h * cn))

    def halfspaces(self, outer: bool, k: int) -> tuple[np.ndarray, np.ndarray]:
        return self.G, self.h

    def section(self) -> tuple[np.ndarray, int] | None:
        from scipy.spatial import HalfspaceIntersection

        cols = [self.components.index(a) for a in "to" if a in self.components]
        if len(cols) < 2:
            return None
        G2 = self.G[:, cols]
        keep = np.linalg.norm(G2, axis=1) > _TINY
        if np.max(self.h, initial=0.0) <= 0:
            return np.zeros((1, 2)), 1
        pts = HalfspaceIntersection(np.column_stack([G2[keep], -self.h[keep]]), np.zeros(2)).intersections
        pts = pts[np.argsort(np.arctan2(pts[:, 1], pts[:, 0]))]
        unique = [pts[0]]
        scale = float(np.max(self.h))
        for p in pts[1:]:
            if min(np.linalg.norm(p - q) for q in unique) > 1e-9 * scale:
                unique.append(p)
        return np.array(unique), len(unique)

    def torsion(self) -> float | None:
        if "r" not in self.components:
            return None
        g = self.G[:, self.components.index("r")]
        up, down = g > _TINY, g < -_TINY
        return float(
            min(np.min(self.h[up] / g[up], initial=np.inf), np.min(-self.h[down] / g[down], initial=np.inf))
        )


_TINY = 1e-12


class PolygonPart(PolytopePart):
    """The polygon with vertices ``mu c_n d_i`` in (t, o) (unit directions d_i, counter-clockwise,
    regular), stated by the law as the LCP of ``beta_i`` (pairs ``direction_i``) and ``lambda``
    (pair ``limit``). Its faces (``G``, ``h``) are computed when first needed: the law residual
    only projects onto the vertices."""

    lcp = True

    def __init__(self, mu: float, directions: np.ndarray) -> None:
        self.components = "to"
        self.mu = float(mu)
        self.directions = np.asarray(directions, dtype=float)

    @cached_property
    def G(self) -> np.ndarray:  # noqa: N802 - the face matrix, as in PolytopePart
        D = self.directions
        normals = D + np.roll(D, -1, axis=0)
        return normals / np.linalg.norm(normals, axis=1, keepdims=True)

    @cached_property
    def h(self) -> np.ndarray:
        return np.full(len(self.directions), self.mu * np.cos(np.pi / len(self.directions)))

    def project(self, cn: float, y: np.ndarray) -> np.ndarray:
        return project_polygon(y, self.mu * cn * self.directions)

    def project_many(self, cn: np.ndarray, y: np.ndarray) -> np.ndarray:
        """:meth:`project` of m points at once (``cn`` (m,), ``y`` (m, 2)), by the polygon's
        regularity: a point outside lies beyond the side whose normal is nearest its own
        direction (largest ``G y``), and its projection is the nearest point of that side (a
        corner when beyond its ends). Agrees with :meth:`project` to rounding."""
        y = np.asarray(y, dtype=float).reshape(-1, 2)
        cn = np.asarray(cn, dtype=float).reshape(-1)
        r = self.mu * cn
        flat = r <= 0.0  # the polygon is the point 0
        D, E, E2 = self._sides
        reach = y @ self.G.T  # (m, k): each side's normal . y
        side = np.argmax(reach, axis=1)
        beyond = reach.max(axis=1) > self.h[0] * cn
        rc = r[:, None]
        start, edge = rc * D[side], rc * E[side]
        safe = r + flat  # no division by 0 where flat
        t = np.einsum("ij,ij->i", y - start, edge) / (safe * safe * E2[side])
        t = np.minimum(np.maximum(t, 0.0), 1.0)[:, None]
        out = np.where(beyond[:, None], start + t * edge, y)
        if flat.any():
            out[flat] = 0.0
        return out

    @cached_property
    def _sides(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(corners d_i (k, 2), sides d_{i+1} - d_i (k, 2), their squared lengths (k,)) at unit radius."""
        D = self.directions
        E = np.roll(D, -1, axis=0) - D
        return D, E, np.sum(E * E, axis=1)

    def section(self) -> tuple[np.ndarray, int] | None:
        return self.mu * self.directions, len(self.directions)

    def pattern_label(self, bits: dict[str, str], pattern: str) -> PatternLabel:
        k = len(self.directions)
        beta = [bits[f"direction_{i}"] == "1" for i in range(k)]
        lam = bits["limit"] == "1"
        if bits["normal"] == "0":
            ok = lam and not any(beta)
            return PatternLabel(Mode.SEPARATE, "separate" if ok else f"separate?{pattern}", not ok, ok)
        support = [i for i in range(k) if beta[i]]
        if not lam:
            ok = all(beta)
            return PatternLabel(Mode.ROLL, "roll" if ok else f"roll?{pattern}", not ok, True)
        if not support:
            return PatternLabel(Mode.SLIDE, "slide (no friction force)", True)
        if len(support) == 1:
            return PatternLabel(Mode.SLIDE, f"slide d{support[0]}")
        if len(support) == 2 and (support[1] - support[0]) % k in (1, k - 1):
            i, j = support if support[1] - support[0] == 1 else support[::-1]
            return PatternLabel(Mode.SLIDE, f"slide d{i}|d{j}", True)
        return PatternLabel(Mode.SLIDE, f"slide?{pattern}", True, True)

    def slide_index(self, aT: np.ndarray, eps: float) -> tuple[str, list[str]] | None:
        proj = self.directions @ aT
        lo = proj.min()
        idx = [i for i in range(len(proj)) if proj[i] <= lo + 1e-6 * np.abs(proj).max()]
        notes = ["slides between two friction directions"] if len(idx) > 1 else []
        return "|".join(f"d{i}" for i in idx), notes

    def slide_indices(self, aT: np.ndarray, eps: np.ndarray) -> list[tuple[str, tuple[str, ...]] | None]:
        proj = np.asarray(aT, dtype=float) @ self.directions.T  # row j: directions @ aT[j]
        lo = proj.min(axis=1, keepdims=True)
        lowest = proj <= lo + 1e-6 * np.abs(proj).max(axis=1, keepdims=True)
        return _named(self, lowest.tolist(), self._slide_name)

    @staticmethod
    def _slide_name(lowest: list[bool]) -> tuple[str, list[str]]:
        """:meth:`slide_index` of a slide whose lowest projections are ``lowest`` (a mask)."""
        idx = [i for i, low in enumerate(lowest) if low]
        notes = ["slides between two friction directions"] if len(idx) > 1 else []
        return "|".join(f"d{i}" for i in idx), notes

    def spare_pairs(self, weak: list[str]) -> list[str]:
        return [k for k in weak if k.startswith("direction_")]


#: the most slide names a part keeps (see :func:`_named`)
_NAMES_KEPT = 256


def _named(part: SetPart, keys: list[list], name) -> list[tuple[str, tuple[str, ...]]]:
    """The slide name ``name(key)`` (index, notes) of each of ``keys`` (each a list of what
    decides the name), the notes as a tuple; the names of at most :data:`_NAMES_KEPT` keys are
    kept with ``part`` (a run meets a few)."""
    kept = part.__dict__.setdefault("_slide_names", {})
    out = []
    for key in map(tuple, keys):
        found = kept.get(key)
        if found is None:
            index, notes = name(list(key))
            found = (index, tuple(notes))
            if len(kept) < _NAMES_KEPT:
                kept[key] = found
        out.append(found)
    return out


@dataclass
class Outline:
    """A friction set at unit normal force, in the contact's (t, o) plane, for drawing.

    ``outline`` (k, 2): the boundary (c_t, c_o) in N at c_n = 1 N, in order, not repeated at
    the end; ``vertices``: its corner count (0 for a smooth curve); ``torsion``: the limit of
    |c_r| at c_n = 1 N (N m) when the law bounds the torsional moment, else None.
    """

    outline: np.ndarray
    vertices: int
    torsion: float | None = None
    label: str = ""


class FrictionSet:
    """The friction set of a law: the product of its ``parts`` (components in no part are zero).

    Owns everything about the set: projection (per part, for the law residual), membership
    (:meth:`excess`), polyhedral rows (:meth:`rows`, for mode cones and existence LPs), the
    outline to draw (:meth:`outline`), the LCP surrogate of the law (``lcp_law``, used to seed
    ``all_solutions``; None: the law itself), the friction coefficient of the Coulomb cone the set
    circumscribes when Trinkle et al.'s (1997) Proposition 1 applies to it (``relaxes_cone``: a solution whose
    forces lie in that cone solves the cone model), and, for LCP laws, the names of sign patterns
    and slides.
    """

    def __init__(
        self,
        parts: list[SetPart],
        label: str,
        lcp_law: object | None = None,
        relaxes_cone: float | None = None,
    ) -> None:
        self.parts = parts
        self.label = label
        self.lcp_law = lcp_law
        self.relaxes_cone = relaxes_cone

    @property
    def components(self) -> str:
        """The friction components the set bounds (others are zero), in (t, o, r) order."""
        own = "".join(p.components for p in self.parts)
        return "".join(a for a in "tor" if a in own)

    @property
    def lcp(self) -> bool:
        """Every part is stated as an LCP (the law has sign patterns)."""
        return all(p.lcp for p in self.parts)

    @property
    def round(self) -> bool:
        """Some part is curved: its polyhedral rows only approximate it."""
        return any(p.round for p in self.parts)

    @property
    def tangential(self) -> list[int]:
        """Indices in (n, t, o[, r]) of the tangential components the law's friction may use."""
        return [1] if "o" not in self.components and "t" in self.components else [1, 2]

    def excess(self, force: np.ndarray) -> float:
        """How far the contact force (n, t, o[, r]) lies outside the set (<= 0: inside), N."""
        f = np.asarray(force, dtype=float)
        cn = float(f[0])
        out = -cn
        for part in self.parts:
            out = max(out, part.excess(cn, f[[AXES.index(a) for a in part.components]]))
        rest = [i for i in range(1, len(f)) if AXES[i] not in self.components]
        return max(out, float(np.abs(f[rest]).max())) if rest else out

    def rows(self, dim: int, outer: bool, k: int = 16) -> Rows:
        """Rows r with r . f <= 0 (f = (n, t, o[, r]) of one contact, ``dim`` 3 or 4) describing a
        polyhedral version of the set; round parts circumscribed (``outer``) or inscribed."""
        rows: Rows = [-np.eye(dim)[0]]
        for part in self.parts:
            G, h = part.halfspaces(outer, k)
            idx = [AXES.index(a) for a in part.components]
            for g, hi in zip(G, h):
                r = np.zeros(dim)
                r[0] = -hi
                r[idx] = g
                rows.append(r)
        for i in range(1, dim):
            if AXES[i] not in self.components:
                rows += [s * np.eye(dim)[i] for s in (1, -1)]
        return rows

    def outline(self) -> Outline:
        """The set at c_n = 1 N in the (t, o) plane and its torsional limit, for drawing."""
        sections = [s for s in (p.section() for p in self.parts) if s is not None]
        points, vertices = sections[0] if sections else (np.zeros((1, 2)), 1)
        torsion = next((t for t in (p.torsion() for p in self.parts) if t is not None), None)
        return Outline(points, vertices, torsion, self.label)

    def pattern_label(self, sliding: bool, keys: list[str], bits: str) -> PatternLabel:
        """Name the sign pattern ``bits`` (one ``"1"``/``"0"`` per pair in ``keys``) of a contact."""
        b = dict(zip(keys, bits))
        if sliding or not self.parts:
            if b["normal"] == "0":
                return PatternLabel(Mode.SEPARATE, "separate")
            return PatternLabel(Mode.SLIDE, "slide") if sliding else PatternLabel(Mode.ROLL, "maintain")
        if len(self.parts) != 1 or not self.lcp:
            raise FrictionLawError(
                f"{self.label} has no sign patterns: only laws stated as an LCP (pyramid, planar, "
                "polygon, frictionless) have them; use a polyhedral law for mode cones"
            )
        return self.parts[0].pattern_label(b, bits)

    def slide_index(self, aT: np.ndarray, eps: float) -> tuple[str, list[str]] | None:
        """The name of a slide with tangential acceleration ``aT`` (see :meth:`SetPart.slide_index`)."""
        if len(self.parts) != 1 or not self.lcp:
            return None
        return self.parts[0].slide_index(aT, eps)

    def slide_indices(self, aT: np.ndarray, eps: np.ndarray) -> list[tuple[str, tuple[str, ...]] | None]:
        """:meth:`slide_index` of m slides at once: ``aT`` (m, len(:attr:`tangential`)), ``eps``
        (m,); the notes as tuples."""
        if len(self.parts) != 1 or not self.lcp:
            return [None] * len(aT)
        return self.parts[0].slide_indices(aT, eps)

    def spare_pairs(self, weak: list[str]) -> list[str]:
        """Weak pairs at a rolling contact that do not mean impending slip."""
        return [k for p in self.parts for k in p.spare_pairs(weak)]
