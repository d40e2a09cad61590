"""Euclidean projections onto the friction sets of the laws (used by the law residual).

Each function projects the point(s) ``y`` onto a convex set scaled by a nonnegative radius; the
sets are given at unit normal force and scaled by ``mu c_n`` by the caller.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from scipy.optimize import brentq


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

    hi = float(np.linalg.norm(rl * yl))  # excess(hi) <= sum (r y / hi)^2 - 1 = 0
    lam = brentq(excess, 0.0, hi, xtol=1e-300, rtol=8.9e-16)
    out[live] = yl * rl**2 / (rl**2 + lam)
    return out


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
