"""Contact generation between steps: closed-form pair tests of body shapes against planes.

A :class:`Plane` is a fixed half-space boundary (the ground, an incline). Bodies declared with a
:class:`~contactmodel.shapes.Box` or :class:`~contactmodel.shapes.Sphere` shape get contacts with
every plane: a box one per vertex, a sphere one at its lowest point. A candidate becomes an
active contact when its gap g (m, signed distance along the plane normal, negative when
penetrating) satisfies ``g <= margin + h * max(0, -v_n)``: within ``margin`` of the plane, or
close enough to reach it during the coming step at its current approach speed v_n.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactmodel.errors import DeclarationError
from contactmodel.geometry import contact_frame, vector
from contactmodel.shapes import Box, Sphere


@dataclass(frozen=True)
class Plane:
    """The plane through ``point`` (m, world) with unit ``normal`` pointing out of the solid side.

    ``friction`` is the law of the contacts generated on it (default: ``simulate``'s
    ``friction``); ``tangent`` fixes the contact frames' t axis (default: the unit projection of
    the world axis least aligned with the normal), which matters for direction-dependent laws
    such as the pyramid.
    """

    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)
    point: tuple[float, float, float] = (0.0, 0.0, 0.0)
    name: str = "plane"
    friction: object | None = None
    tangent: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        n = vector(self.normal, 3, f"Plane '{self.name}'.normal")
        norm = float(np.linalg.norm(n))
        if norm < 1e-12:
            raise DeclarationError(f"Plane '{self.name}'.normal is zero: give the outward unit normal")
        object.__setattr__(self, "normal", tuple((n / norm).tolist()))
        object.__setattr__(self, "point", tuple(vector(self.point, 3, f"Plane '{self.name}'.point").tolist()))

    @property
    def frame(self) -> np.ndarray:
        """Rows (n, t, o) of the contacts generated on this plane."""
        return contact_frame(self.normal, self.tangent, f"Plane '{self.name}'")

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Signed distances (k,) of points (k, 3) from the plane, positive on the normal's side."""
        return (np.atleast_2d(points) - np.asarray(self.point)) @ np.asarray(self.normal)


def box_vertices(size, position: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """(8, 3) world vertices of a box of edge lengths ``size`` centred at ``position``."""
    half = 0.5 * np.asarray(size, dtype=float)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return position + (signs * half) @ rotation.T


def shape_points(
    shape, position: np.ndarray, rotation: np.ndarray, plane: Plane
) -> list[tuple[str, np.ndarray]]:
    """The candidate contact points (label, world point) of ``shape`` against ``plane``."""
    if isinstance(shape, Box):
        return [(f"v{k}", p) for k, p in enumerate(box_vertices(shape.size, position, rotation))]
    if isinstance(shape, Sphere):
        return [("s", position - shape.radius * np.asarray(plane.normal))]
    return []


def supported(shape) -> bool:
    """True for the shapes that get contacts generated (Box, Sphere)."""
    return isinstance(shape, (Box, Sphere))
