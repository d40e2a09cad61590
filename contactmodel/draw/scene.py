"""What is drawn: the system, laws and solution to draw (:func:`resolve`), the bodies' shapes, the
plane of a planar picture, the scene's extent and the arrows' scales (:class:`Scene`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from contactmodel.draw.canvas import NOISE, TINY, perpendicular, unit
from contactmodel.errors import ArgumentKindError, DrawingError
from contactmodel.formulation import Problem
from contactmodel.friction import FrictionLaw
from contactmodel.shapes import Box, Cylinder, Sphere, box_from_inertia
from contactmodel.solution import Solution
from contactmodel.system import Body, Contact, System


@dataclass
class Scene:
    """What one picture shows and at which scales: the system, each contact's law by name, the
    solution (or None); ``planar`` and the plane's ``basis`` (2, 3) (right, up; in 3D the
    identity (3, 3)); ``size`` the scene's extent (m); ``set_height`` m per N of normal force
    of the friction sets, ``force_scale`` m/N, ``accel_scale`` m per m/s², ``velocity_scale``
    m per m/s."""

    system: System
    laws: dict[str, FrictionLaw | None]
    solution: Solution | None
    planar: bool
    basis: np.ndarray
    size: float
    set_height: float
    force_scale: float
    accel_scale: float
    velocity_scale: float


def resolve(target, solution, friction) -> tuple[System, dict[str, FrictionLaw | None], Solution | None]:
    if isinstance(target, tuple) and len(target) == 2 and solution is None:
        target, solution = target
    if isinstance(target, Solution):
        raise ArgumentKindError(
            "draw needs the geometry: give draw(problem, solution) or draw(system, solution)"
        )
    if isinstance(target, Problem):
        system = getattr(target.assembly, "system", None)
        if not isinstance(system, System):
            raise ArgumentKindError(
                "this problem has no System (formulated from matrices): there is no geometry to draw"
            )
        laws: dict[str, FrictionLaw | None] = dict(target.laws)
        if friction is not None:
            laws.update(
                {
                    c.name: _law_for(c, friction)
                    for c in system.contacts
                    if not isinstance(friction, Mapping) or c.name in friction
                }
            )
    elif isinstance(target, System):
        system = target
        laws = {c.name: _law_for(c, friction) for c in system.contacts}
    else:
        raise ArgumentKindError(
            f"draw takes a System, a Problem or a (Problem, Solution) pair (got {type(target).__name__})"
        )
    if solution is not None and not isinstance(solution, Solution):
        raise ArgumentKindError(f"solution must be a contactmodel Solution (got {type(solution).__name__})")
    return system, laws, solution


def _law_for(contact: Contact, friction) -> FrictionLaw | None:
    if isinstance(friction, Mapping):
        return friction.get(contact.name, contact.friction)
    return friction if friction is not None else contact.friction


def _box_faces(centre: np.ndarray, R: np.ndarray, size: Sequence[float]) -> list[np.ndarray]:
    h = 0.5 * np.asarray(size, dtype=float)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    corners = centre + (signs * h) @ R.T
    quads = [(0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5)]
    return [corners[list(q)] for q in quads]


def _ring(centre: np.ndarray, a: np.ndarray, b: np.ndarray, radius: float, count: int = 48) -> np.ndarray:
    th = 2 * np.pi * np.arange(count + 1) / count
    return centre + radius * (np.outer(np.cos(th), a) + np.outer(np.sin(th), b))


def _guessed_box(system: System, body: Body) -> Box | None:
    """The uniform box of ``body``'s mass and inertia, if its surface holds all of its contacts."""
    inertia = body.inertia
    if np.max(np.abs(inertia - np.diag(np.diag(inertia)))) > 1e-9 * np.max(np.abs(inertia)):
        return None
    box = box_from_inertia(body.mass, inertia)
    half = 0.5 * np.asarray(box.size)
    for c in system.contacts:
        if c.body_a is body or c.body_b is body:
            q = np.abs(body.rotation.T @ (c.point - body.position)) / half
            if q.max() > 1.02 or q.max() < 0.98:
                return None
    return box


def shape_points(body: Body, system: System | None) -> tuple[Any, list[np.ndarray]]:
    shape = body.shape
    if shape is None and system is not None:
        shape = _guessed_box(system, body)
    R, p = body.rotation, body.position
    if isinstance(shape, Box):
        return shape, _box_faces(p, R, shape.size)
    if isinstance(shape, Sphere):
        rings = [_ring(p, R[:, i], R[:, (i + 1) % 3], shape.radius) for i in range(3)]
        return shape, rings
    if isinstance(shape, Cylinder):
        a, b, z = R[:, 0], R[:, 1], R[:, 2]
        top = _ring(p + 0.5 * shape.height * z, a, b, shape.radius)
        bottom = _ring(p - 0.5 * shape.height * z, a, b, shape.radius)
        return shape, [top, bottom]
    return None, [p[None, :]]


def plane(system: System) -> tuple[bool, np.ndarray]:
    """(True if every contact's n and t lie in one plane, that plane's unit normal)."""
    rows = [c.frame[i] for c in system.contacts for i in (0, 1)]
    if not rows:
        return False, np.array([0.0, 1.0, 0.0])
    _, s, vt = np.linalg.svd(np.array(rows))
    flat = len(s) < 3 or s[2] <= 1e-9 * max(s[0], 1.0)
    return bool(flat), vt[-1]


def plane_basis(system: System, normal: np.ndarray) -> np.ndarray:
    up = -np.asarray(system.gravity, dtype=float)
    up = up - (up @ normal) * normal
    if np.linalg.norm(up) < 1e-9:
        up = system.contacts[0].normal if system.contacts else perpendicular(normal)
        up = up - (up @ normal) * normal
    up = unit(up)
    right = np.cross(up, normal)
    ref = system.contacts[0].tangent if system.contacts else right
    if right @ ref < -1e-9 or (abs(right @ ref) <= 1e-9 and right @ np.ones(3) < 0):
        right = -right
    return np.vstack([right, up])


def scene_points(system: System, guess_shapes: bool) -> np.ndarray:
    pts: list[np.ndarray] = []
    for body in system.bodies:
        _, parts = shape_points(body, system if guess_shapes else None)
        pts.extend(np.atleast_2d(q) for q in parts)
        pts.append(body.position[None, :])
    for arm in system.manipulators:
        pts.append(arm.base[:3, 3][None, :])
        pts.extend(p[None, :] for _, p in arm.link_frames())
    pts.extend(c.point[None, :] for c in system.contacts)
    return np.vstack(pts) if pts else np.zeros((1, 3))


def body_size(system: System, guess_shapes: bool, size: float) -> float:
    """The smallest body extent (m), or ``size`` when no body has a shape."""
    extents = []
    for body in system.bodies:
        shape, parts = shape_points(body, system if guess_shapes else None)
        if shape is not None:
            pts = np.vstack(parts)
            extents.append(float(np.max(pts.max(axis=0) - pts.min(axis=0))))
    return min(extents, default=size)


def scales(
    scale,
    forces: list[np.ndarray],
    accels: list[np.ndarray],
    vels: list[np.ndarray],
    size: float,
    local: float,
) -> dict[str, float]:
    def fit(vectors: list[np.ndarray], fraction: float) -> float:
        big = max((float(np.linalg.norm(v)) for v in vectors), default=0.0)
        return fraction * size / big if big > NOISE else fraction * size

    out = {
        "force": fit(forces, 0.55),
        "acceleration": fit(accels, 0.45),
        "velocity": fit(vels, 0.35),
        "friction": min(0.22 * size, 0.3 * local),
    }
    if isinstance(scale, Mapping):
        unknown = set(scale) - set(out)
        if unknown:
            raise DrawingError(f"draw(scale=...): unknown keys {sorted(unknown)}; use {sorted(out)}")
        out.update({k: float(v) for k, v in scale.items()})
    elif scale is not None:
        out["force"] = float(scale)
    return out


def body_forces(system: System, body: Body) -> dict[str, np.ndarray]:
    out = {}
    if np.linalg.norm(body.wrench[:3]) > TINY:
        out["applied"] = body.wrench[:3].copy()
    return out
