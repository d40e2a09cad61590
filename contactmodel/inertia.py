"""Inertia tensors (kg m^2, about the centre of mass, in the body frame) of uniform solids."""

from __future__ import annotations

import numpy as np

from contactmodel.errors import DeclarationError


def _positive(value: float, field: str) -> float:
    value = float(value)
    if not np.isfinite(value) or value <= 0:
        raise DeclarationError(f"{field} must be a positive finite number (got {value})")
    return value


def box(mass: float, size) -> np.ndarray:
    """Uniform box of full side lengths ``size = (lx, ly, lz)`` in m."""
    m = _positive(mass, "inertia.box mass")
    lx, ly, lz = (_positive(s, "inertia.box size") for s in np.asarray(size, dtype=float).reshape(3))
    return m / 12.0 * np.diag([ly**2 + lz**2, lx**2 + lz**2, lx**2 + ly**2])


def sphere(mass: float, radius: float) -> np.ndarray:
    """Uniform solid sphere of the given radius (m)."""
    m = _positive(mass, "inertia.sphere mass")
    r = _positive(radius, "inertia.sphere radius")
    return 0.4 * m * r**2 * np.eye(3)


def cylinder(mass: float, radius: float, length: float) -> np.ndarray:
    """Uniform solid cylinder with its axis along the body z axis."""
    m = _positive(mass, "inertia.cylinder mass")
    r = _positive(radius, "inertia.cylinder radius")
    h = _positive(length, "inertia.cylinder length")
    side = m * (3 * r**2 + h**2) / 12.0
    return np.diag([side, side, 0.5 * m * r**2])
