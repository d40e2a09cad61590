"""Euclidean projections onto the friction sets of the laws (used by the law residual).

Each function projects the point(s) ``y`` onto a convex set scaled by a nonnegative radius; the
sets are given at unit normal force and scaled by ``mu c_n`` by the caller.
"""

from __future__ import annotations

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

    hi = float(np.max(rl * np.abs(yl)))  # excess(hi) <= 0 since each term is at most (r y / lam)^2
    lam = brentq(excess, 0.0, max(hi, 1e-300), xtol=1e-300, rtol=8.9e-16)
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
    t = np.clip(np.einsum("ij,ij->i", y - V, edges) / np.einsum("ij,ij->i", edges, edges), 0.0, 1.0)
    points = V + t[:, None] * edges
    return points[np.argmin(np.sum((points - y) ** 2, axis=1))]
