"""Body shapes for drawing: pass one as ``System.add_body(..., shape=...)``.

Shapes are centred on the body's centre of mass and given in the body frame (m). They only
affect pictures (:mod:`contactmodel.draw`), never the dynamics: contacts are declared apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactmodel.errors import DeclarationError


def _positive(value: float, field: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise DeclarationError(f"{field} must be a length in m (got {value!r})") from None
    if not np.isfinite(x) or x <= 0:
        raise DeclarationError(f"{field} must be a positive finite length in m (got {x})")
    return x


@dataclass(frozen=True)
class Box:
    """A box with edge lengths ``size`` = (lx, ly, lz) along the body x, y, z axes (m)."""

    size: tuple[float, float, float]

    def __post_init__(self) -> None:
        size = tuple(np.asarray(self.size, dtype=float).reshape(-1).tolist())
        if len(size) != 3:
            raise DeclarationError(f"Box.size must be 3 lengths (lx, ly, lz) in m (got {self.size!r})")
        object.__setattr__(self, "size", tuple(_positive(s, "Box.size") for s in size))


@dataclass(frozen=True)
class Sphere:
    """A sphere of radius ``radius`` (m)."""

    radius: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "Sphere.radius"))


@dataclass(frozen=True)
class Cylinder:
    """A cylinder of radius ``radius`` and height ``height`` (m), its axis along the body z."""

    radius: float
    height: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "Cylinder.radius"))
        object.__setattr__(self, "height", _positive(self.height, "Cylinder.height"))


Shape = Box | Sphere | Cylinder


def box_from_inertia(mass: float, inertia: np.ndarray) -> Box:
    """The uniform box with this ``mass`` (kg) and principal ``inertia`` (kg m^2, body frame,
    assumed diagonal): l_x = sqrt(6 (I_yy + I_zz - I_xx) / m) and so on."""
    d = np.diag(np.asarray(inertia, dtype=float))
    total = d.sum()
    sides = [np.sqrt(max(6.0 * (total - 2.0 * d[i]) / mass, 1e-12)) for i in range(3)]
    return Box((sides[0], sides[1], sides[2]))
