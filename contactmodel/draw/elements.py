"""Pictures of contact problems for teaching and checking (matplotlib).

:func:`draw` shows a system (bodies, manipulator links and joint axes, the ground, each
contact's frame (n, t, o) and friction set) and, given a solution, the contact forces, the
torsional moments, the body accelerations and each contact's mode. :func:`sweep_plot` shows
a scalar over one or two swept parameters, with the contact-mode boundaries.

Conventions: SI units, world frame. A contact's force (c_n, c_t, c_o) acts on ``body_a`` and
is drawn at the contact point as ``frame.T @ force[:3]``; its friction set is drawn at unit
normal force as a cone of height ``L`` along n with the set ``{friction : c_n = 1 N}`` at its
top, 1 N drawn as ``L`` metres, so its opening angle is the true one. Force arrows use
``scale["force"]`` m per N, acceleration arrows ``scale["acceleration"]`` m per m/s^2. A
torsional moment c_r is an arc about n (right-hand rule) sweeping 270 degrees times
|c_r| / (the law's torsional limit at this c_n); the limit itself is the dotted arc at the
top of the friction set, labelled with its value per newton of normal force.

Every arrow drawn is listed in ``arrows(fig)`` (:class:`Arrow`: its physical vector, tail and
scale, and its artists, whose gid is ``"KIND:NAME"``, e.g. ``"force:corner0"``), and every
friction set in ``friction_sets(fig)``, so tests can compare pictures with numbers.
Output is deterministic: fixed view, no timestamps (see :func:`save`).
"""

from __future__ import annotations

import textwrap
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from scipy.ndimage import distance_transform_edt

from contactmodel.errors import ArgumentKindError, DrawingError
from contactmodel.formulation import Problem
from contactmodel.friction import FrictionLaw
from contactmodel.friction.sets import Outline
from contactmodel.shapes import Box, Cylinder, Sphere, box_from_inertia
from contactmodel.solution import Solution
from contactmodel.system import Body, Contact, Ground, LinkRef, System

SIZE = (8.0, 6.0)
DPI = 100
VIEW_3D = (24.0, -60.0)
HASHSALT = "contactmodel"
COLOURS = {
    "n": "#1f77b4",
    "t": "#d62728",
    "o": "#2ca02c",
    "force": "#000000",
    "friction": "#ff7f0e",
    "moment": "#8c564b",
    "acceleration": "#9467bd",
    "velocity": "#7f7f7f",
    "applied": "#8b0000",
    "set": "#17becf",
    "ground": "#a0a0a0",
    "body": "#4d4d4d",
    "link": "#5f7f9f",
    "revolute": "#e377c2",
    "prismatic": "#bcbd22",
}
_TINY = 1e-12
NOISE = 1e-8


def friction_set(law: FrictionLaw | None) -> Outline | None:
    """The outline of ``law``'s friction set at unit normal force
    (:meth:`~contactmodel.friction.sets.FrictionSet.outline`), or None when there is no law or
    the law does not describe its set (it is then drawn as its class name)."""
    if law is None or not law.describes_set:
        return None
    return law.friction_set().outline()


@dataclass
class Arrow:
    """One drawn arrow: ``vector`` is the physical quantity (world frame; N, m/s^2, m/s, or the
    torsional moment (N m) as a 1-vector about n), drawn from ``tail`` (m, world) with length
    ``scale`` m per unit (for a moment, ``scale`` is the arc radius, m); ``artists[0]`` is the
    shaft (or arc) whose gid is ``gid``, ``artists[1]`` the head if the arrow is not empty."""

    gid: str
    kind: str
    name: str
    tail: np.ndarray
    vector: np.ndarray
    scale: float
    artists: list = field(default_factory=list)


@dataclass
class DrawnSet:
    """The friction set drawn at one contact: the set and the outline's artist."""

    contact: str
    set: Outline
    artist: Any


@dataclass
class Drawn:
    """What :func:`draw` put on one figure: its arrows in drawing order and its friction sets by
    contact name."""

    arrows: list[Arrow] = field(default_factory=list)
    sets: dict[str, DrawnSet] = field(default_factory=dict)


#: the figures :func:`draw` drew on -> what it put there (kept here, not on the matplotlib
#: objects; an entry goes with its figure)
DRAWN: weakref.WeakKeyDictionary[Figure, Drawn] = weakref.WeakKeyDictionary()


def arrows(fig: Figure) -> list[Arrow]:
    """Every arrow :func:`draw` put on ``fig``, in drawing order."""
    drawn = DRAWN.get(fig)
    return [] if drawn is None else list(drawn.arrows)


def friction_sets(fig: Figure) -> dict[str, DrawnSet]:
    """The friction sets :func:`draw` put on ``fig``, by contact name."""
    drawn = DRAWN.get(fig)
    return {} if drawn is None else dict(drawn.sets)


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > _TINY else np.zeros_like(v)


def _perpendicular(v: np.ndarray) -> np.ndarray:
    axis = np.eye(3)[int(np.argmin(np.abs(v)))]
    return _unit(axis - (axis @ v) * v)


@dataclass
class _Label:
    """A label to place: its artist, the world point (3,) it names, a preferred world direction
    (3,) (zero: away from the scene's centre) and its gap (points) from that point."""

    artist: Any
    anchor: np.ndarray
    direction: np.ndarray
    gap: float


class _Canvas:
    """Draws world-frame (3,) points on a 3D axes, or projected onto a plane on a 2D axes."""

    def __init__(self, ax: Axes, planar: bool, origin: np.ndarray, basis: np.ndarray, look: np.ndarray):
        self.ax = ax
        self.planar = planar
        self.origin = origin
        self.basis = basis
        self.look = look
        self.labels: list[_Label] = []

    def project(self, points) -> np.ndarray:
        pts = np.atleast_2d(np.asarray(points, dtype=float))
        return (pts - self.origin) @ self.basis.T

    def line(self, points, **kw):
        pts = np.atleast_2d(np.asarray(points, dtype=float))
        if self.planar:
            uv = self.project(pts)
            return self.ax.plot(uv[:, 0], uv[:, 1], **kw)[0]
        return self.ax.plot(pts[:, 0], pts[:, 1], pts[:, 2], **kw)[0]

    def polygon(self, points, **kw):
        pts = np.atleast_2d(np.asarray(points, dtype=float))
        if self.planar:
            patch = Polygon(self.project(pts), closed=True, **kw)
            self.ax.add_patch(patch)
            return patch
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        coll = Poly3DCollection([pts], **kw)
        self.ax.add_collection3d(coll)
        return coll

    def faces(self, faces: Sequence[np.ndarray], **kw):
        if self.planar:
            from scipy.spatial import ConvexHull, QhullError

            pts = self.project(np.vstack(faces))
            try:
                hull = pts[ConvexHull(pts).vertices]
            except (QhullError, ValueError):
                return self.line(np.vstack(faces), color=kw.get("edgecolor", "k"), lw=1)
            patch = Polygon(hull, closed=True, **kw)
            self.ax.add_patch(patch)
            return patch
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        coll = Poly3DCollection([np.asarray(f) for f in faces], **kw)
        self.ax.add_collection3d(coll)
        return coll

    def text(self, point, s: str, direction=None, gap: float = 3.0, **kw):
        """A label for the world point ``point`` (3,), placed later by :func:`_place_labels`
        ``gap`` points away from it, preferably along the world ``direction`` (3,) (None: away
        from the scene's centre). Returns the :class:`~matplotlib.text.Annotation`."""
        kw.setdefault("annotation_clip", False)
        artist = self.ax.annotate(
            s.strip(),
            xy=(0.0, 0.0),
            xytext=(0.0, 0.0),
            textcoords="offset points",
            ha="center",
            va="center",
            **kw,
        )
        d = np.zeros(3) if direction is None else np.asarray(direction, dtype=float)
        self.labels.append(_Label(artist, np.asarray(point, dtype=float).copy(), d, gap))
        return artist

    def marker(self, point, **kw):
        p = np.atleast_2d(np.asarray(point, dtype=float))
        return self.line(p, linestyle="none", **kw)

    def arrow(
        self, tail, head, colour: str, head_size: float, lw: float = 1.5, gid: str | None = None, **kw
    ) -> list:
        tail = np.asarray(tail, dtype=float)
        head = np.asarray(head, dtype=float)
        shaft = self.line(np.vstack([tail, head]), color=colour, lw=lw, solid_capstyle="butt", **kw)
        shaft.set_gid(gid)
        artists = [shaft]
        d = head - tail
        length = float(np.linalg.norm(d))
        if length > _TINY:
            artists.append(self._head(head, d / length, min(head_size, 0.4 * length), colour, gid))
        return artists

    def _head(self, tip: np.ndarray, direction: np.ndarray, size: float, colour: str, gid: str | None):
        side = np.cross(direction, self.look)
        if np.linalg.norm(side) < 1e-6:
            side = np.cross(direction, _perpendicular(direction))
        side = _unit(side)
        base = tip - size * direction
        tri = np.vstack([tip, base + 0.35 * size * side, base - 0.35 * size * side])
        patch = self.polygon(tri, facecolor=colour, edgecolor=colour, linewidth=0.5)
        patch.set_gid(None if gid is None else f"{gid}:head")
        return patch


def _law_for(contact: Contact, friction) -> FrictionLaw | None:
    if isinstance(friction, Mapping):
        return friction.get(contact.name, contact.friction)
    return friction if friction is not None else contact.friction


def _body_point(body) -> np.ndarray | None:
    if isinstance(body, Body):
        return body.position
    if isinstance(body, LinkRef):
        return body.manipulator.link_frames()[body.index][1]
    return None


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


def _shape_points(body: Body, system: System | None) -> tuple[Any, list[np.ndarray]]:
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


@dataclass
class _Scene:
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


def _plane(system: System) -> tuple[bool, np.ndarray]:
    """(True if every contact's n and t lie in one plane, that plane's unit normal)."""
    rows = [c.frame[i] for c in system.contacts for i in (0, 1)]
    if not rows:
        return False, np.array([0.0, 1.0, 0.0])
    _, s, vt = np.linalg.svd(np.array(rows))
    flat = len(s) < 3 or s[2] <= 1e-9 * max(s[0], 1.0)
    return bool(flat), vt[-1]


def _plane_basis(system: System, normal: np.ndarray) -> np.ndarray:
    up = -np.asarray(system.gravity, dtype=float)
    up = up - (up @ normal) * normal
    if np.linalg.norm(up) < 1e-9:
        up = system.contacts[0].normal if system.contacts else _perpendicular(normal)
        up = up - (up @ normal) * normal
    up = _unit(up)
    right = np.cross(up, normal)
    ref = system.contacts[0].tangent if system.contacts else right
    if right @ ref < -1e-9 or (abs(right @ ref) <= 1e-9 and right @ np.ones(3) < 0):
        right = -right
    return np.vstack([right, up])


def _scene_points(system: System, guess_shapes: bool) -> np.ndarray:
    pts: list[np.ndarray] = []
    for body in system.bodies:
        _, parts = _shape_points(body, system if guess_shapes else None)
        pts.extend(np.atleast_2d(q) for q in parts)
        pts.append(body.position[None, :])
    for arm in system.manipulators:
        pts.append(arm.base[:3, 3][None, :])
        pts.extend(p[None, :] for _, p in arm.link_frames())
    pts.extend(c.point[None, :] for c in system.contacts)
    return np.vstack(pts) if pts else np.zeros((1, 3))


def _body_size(system: System, guess_shapes: bool, size: float) -> float:
    """The smallest body extent (m), or ``size`` when no body has a shape."""
    extents = []
    for body in system.bodies:
        shape, parts = _shape_points(body, system if guess_shapes else None)
        if shape is not None:
            pts = np.vstack(parts)
            extents.append(float(np.max(pts.max(axis=0) - pts.min(axis=0))))
    return min(extents, default=size)


def _scales(
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


def _resolve(target, solution, friction) -> tuple[System, dict[str, FrictionLaw | None], Solution | None]:
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


def draw(
    target: System | Problem | tuple[Problem, Solution],
    solution: Solution | None = None,
    *,
    friction: FrictionLaw | Mapping[str, FrictionLaw] | None = None,
    ax: Axes | None = None,
    view: str | None = None,
    scale: float | Mapping[str, float] | None = None,
    out: str | Path | None = None,
    title: str | None = None,
    guess_shapes: bool = True,
    figsize: tuple[float, float] = SIZE,
    dpi: int = DPI,
) -> Figure:
    """Draw a system, or a solved problem, and return the matplotlib Figure.

    ``target``: a :class:`System`, a formulated :class:`Problem` (its laws are drawn), or a
    ``(problem, solution)`` pair; ``solution``: a :class:`Solution` of that system (forces,
    torsional moments, body accelerations and modes are drawn). ``friction``: law(s) to draw
    instead of the contacts' own (one law, or contact name -> law), as in ``formulate``.
    ``view``: ``"3d"``, ``"planar"`` or ``"2d"`` (projection onto the plane of every contact's n and t),
    or None: planar when every law bounds the friction along t only (e.g. :class:`Planar`) and
    the contacts' n, t share a plane.
    ``scale``: m per N for force arrows, or a mapping with keys ``force`` (m/N),
    ``acceleration`` (m per m/s^2), ``velocity`` (m per m/s), ``friction`` (cone height, m, for
    1 N of normal force); unset ones fit the scene. ``ax``: draw into this axes (3D unless
    planar). ``out``: also save to this file (.png, .svg, .pdf) with :func:`save`. Bodies are
    drawn by their ``shape`` (:mod:`contactmodel.shapes`); without one, and with
    ``guess_shapes``, as the dashed uniform box of the same mass and inertia when every contact
    of the body lies on that box's surface, else as a marker with its name.
    """
    system, laws, solution = _resolve(target, solution, friction)
    flat, plane_normal = _plane(system)
    if view is None:
        all_planar = bool(laws) and all(
            law is not None and law.describes_set and law.friction_set().components == "t"
            for law in laws.values()
        )
        planar = flat and all_planar
    elif view in ("planar", "2d"):
        planar = True
    elif view == "3d":
        planar = False
    else:
        raise DrawingError(f"draw(view=...) must be '3d', 'planar', '2d' or None (got {view!r})")
    if ax is not None:
        planar = getattr(ax, "name", "") != "3d"

    pts = _scene_points(system, guess_shapes)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    size = max(float(np.max(hi - lo)), 0.2)
    results = {c.name: c for c in solution.contacts} if solution is not None else {}
    forces = [np.asarray(system.contact(n).frame).T @ np.asarray(r.force[:3]) for n, r in results.items()]
    forces += [v for b in system.bodies for v in _body_forces(system, b).values()]
    accels = [np.asarray(b.linear_acceleration) for b in (solution.bodies if solution else [])]
    vels = [b.velocity for b in system.bodies]
    sc = _scales(scale, forces, accels, vels, size, _body_size(system, guess_shapes, size))

    own_figure = ax is None
    if own_figure:
        fig = Figure(figsize=figsize, dpi=dpi)
        if planar:
            ax = fig.add_axes((0.09, 0.11, 0.66, 0.8))
        else:
            ax = fig.add_axes((0.0, 0.06, 0.74, 0.88), projection="3d")
    fig = ax.figure
    if fig not in DRAWN:
        DRAWN[fig] = Drawn()

    if planar:
        basis = _plane_basis(system, plane_normal)
        look = np.cross(basis[0], basis[1])
    else:
        basis = np.eye(3)
        elev, azim = np.radians(VIEW_3D)
        look = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    canvas = _Canvas(ax, planar, np.zeros(3), basis, look)
    scene = _Scene(
        system,
        laws,
        solution,
        planar,
        basis,
        size,
        sc["friction"],
        sc["force"],
        sc["acceleration"],
        sc["velocity"],
    )

    extra: list[np.ndarray] = []
    _draw_ground(canvas, scene)
    _draw_bodies(canvas, scene, guess_shapes)
    _draw_manipulators(canvas, scene)
    for contact in system.contacts:
        extra.extend(_draw_contact(canvas, scene, contact, fig))
    if solution is not None:
        extra.extend(_draw_accelerations(canvas, scene, fig))
    extra.extend(_draw_velocities(canvas, scene, fig))
    extra.extend(_draw_body_forces(canvas, scene, fig))

    allpts = np.vstack([pts, *[np.atleast_2d(e) for e in extra]])
    _finish_axes(canvas, scene, allpts)
    renderer = _renderer(fig)
    _prepare_transforms(canvas)
    _place_labels(canvas, renderer)
    _legend(ax, scene, renderer, own_figure)
    ax.set_title(title if title is not None else _default_title(scene), fontsize=10)
    fig.text(
        0.01,
        0.01,
        "\n".join(textwrap.wrap(_caption(scene), 150)),
        fontsize=7,
        color="0.3",
        ha="left",
        va="bottom",
    )
    if out is not None:
        save(fig, out)
    return fig


def _default_title(scene: _Scene) -> str:
    s = scene.system
    counts = (
        (len(s.bodies), "body", "bodies"),
        (len(s.manipulators), "manipulator", "manipulators"),
        (len(s.contacts), "contact", "contacts"),
    )
    head = ", ".join(f"{k} {one if k == 1 else many}" for k, one, many in counts if k or many == "contacts")
    if scene.solution is None:
        return head
    sol = scene.solution
    return f"{head} — solved by {sol.solver}: {sol.status.value}"


def _caption(scene: _Scene) -> str:
    parts = [
        f"friction sets at c_n = 1 N: 1 N = {scene.set_height:.3g} m",
        f"force arrows: 1 N = {scene.force_scale:.3g} m",
    ]
    if scene.solution is not None:
        parts.append(f"acceleration arrows: 1 m/s² = {scene.accel_scale:.3g} m")
    parts.append(f"gravity {_fmt(scene.system.gravity)} m/s²")
    if any(np.linalg.norm(b.velocity) > _TINY for b in scene.system.bodies):
        parts.append(f"velocity arrows (dashed): 1 m/s = {scene.velocity_scale:.3g} m")
    return "   ".join(parts)


def _record(fig: Figure, kind: str, name: str, tail, vector, scale: float, artists: list) -> Arrow:
    arrow = Arrow(
        f"{kind}:{name}",
        kind,
        name,
        np.asarray(tail, dtype=float).copy(),
        np.atleast_1d(np.asarray(vector, dtype=float)).copy(),
        float(scale),
        artists,
    )
    DRAWN[fig].arrows.append(arrow)
    return arrow


def _draw_ground(canvas: _Canvas, scene: _Scene) -> None:
    on_ground = [c for c in scene.system.contacts if isinstance(c.body_b, Ground)]
    if not on_ground:
        return
    n, t, o = on_ground[0].frame
    centre = np.mean([c.point for c in on_ground], axis=0)
    rel = np.array([c.point - centre for c in on_ground])
    pad = 0.35 * scene.size
    ts, os_ = rel @ t, rel @ o
    if canvas.planar:
        right = scene.basis[0]
        us = rel @ right
        a = centre + (us.min() - pad) * right
        b = centre + (us.max() + pad) * right
        depth = 0.04 * scene.size * n
        patch = canvas.polygon(
            np.vstack([a, b, b - depth, a - depth]), facecolor=COLOURS["ground"], alpha=0.35, edgecolor="none"
        )
        canvas.line(np.vstack([a, b]), color="0.35", lw=1.5)
    else:
        quad = [
            centre + tt * t + oo * o
            for tt, oo in (
                (ts.min() - pad, os_.min() - pad),
                (ts.max() + pad, os_.min() - pad),
                (ts.max() + pad, os_.max() + pad),
                (ts.min() - pad, os_.max() + pad),
            )
        ]
        patch = canvas.polygon(
            np.array(quad), facecolor=COLOURS["ground"], alpha=0.25, edgecolor="0.5", linewidth=0.5
        )
    patch.set_gid("ground")


def _draw_bodies(canvas: _Canvas, scene: _Scene, guess_shapes: bool) -> None:
    for body in scene.system.bodies:
        shape, parts = _shape_points(body, scene.system if guess_shapes else None)
        guessed = body.shape is None
        if isinstance(shape, Box):
            canvas.faces(
                parts,
                facecolor=(0.3, 0.3, 0.3, 0.05 if guessed else 0.1),
                edgecolor=(0.2, 0.2, 0.2, 0.8),
                linewidth=1.0,
                linestyle="--" if guessed else "-",
            ).set_gid(f"body:{body.name}")
        elif shape is not None:
            for k, ring in enumerate(parts):
                canvas.line(ring, color=COLOURS["body"], lw=0.8).set_gid(f"body:{body.name}:{k}")
            if isinstance(shape, Cylinder):
                for a in range(0, len(parts[0]) - 1, 12):
                    canvas.line(np.vstack([parts[0][a], parts[1][a]]), color=COLOURS["body"], lw=0.6)
        canvas.marker(body.position, marker="o", color=COLOURS["body"], markersize=4)
        canvas.text(body.position, body.name, fontsize=8, color=COLOURS["body"])


def _draw_manipulators(canvas: _Canvas, scene: _Scene) -> None:
    length = 0.12 * scene.size
    for arm in scene.system.manipulators:
        axis_points, axes, revolute = arm.joint_axes()
        origins = [p for _, p in arm.link_frames()]
        chain = [arm.base[:3, 3]]
        for i in range(arm.n):
            chain.extend([axis_points[i], origins[i]])
        chain = np.array(chain)
        canvas.line(chain, color=COLOURS["link"], lw=4, solid_capstyle="round").set_gid(f"links:{arm.name}")
        canvas.marker(arm.base[:3, 3], marker="s", color=COLOURS["link"], markersize=7)
        for i in range(arm.n):
            kind = "revolute" if revolute[i] else "prismatic"
            canvas.arrow(
                axis_points[i],
                axis_points[i] + length * axes[i],
                COLOURS[kind],
                0.3 * length,
                lw=2,
                gid=f"joint:{arm.name}.{arm.joint_name(i)}",
            )
            canvas.marker(origins[i], marker="o", color=COLOURS["link"], markersize=4)
            label = arm.links[i].name or str(i)
            canvas.text(origins[i], f"{arm.name}.{label}", fontsize=8, color=COLOURS["link"])


def _label_direction(scene: _Scene, contact: Contact) -> np.ndarray:
    ref = _body_point(contact.body_a)
    n = contact.normal
    d = np.zeros(3) if ref is None else contact.point - ref
    d = d - (d @ n) * n
    if np.linalg.norm(d) < 1e-9:
        d = -contact.tangent
    return _unit(d)


def _mode_text(result) -> str:
    if result is None:
        return ""
    if result.mode == "slide" and result.direction is not None:
        d = ", ".join(f"{0.0 if abs(x) < 1e-9 else x:.2g}" for x in result.direction[:2])
        return f"slide, dir (t,o)=({d})"
    return result.mode


def _draw_contact(canvas: _Canvas, scene: _Scene, contact: Contact, fig: Figure) -> list[np.ndarray]:
    p, (n, t, o) = contact.point, contact.frame
    axis_len = min(0.1 * scene.size, 0.6 * scene.set_height)
    head = 0.25 * axis_len
    for key, vec in zip("nto", (n, t, o)):
        arts = canvas.arrow(
            p, p + axis_len * vec, COLOURS[key], head, lw=1.2, gid=f"frame-{key}:{contact.name}"
        )
        _record(fig, f"frame-{key}", contact.name, p, vec, axis_len, arts)
    extra = [p + axis_len * v for v in (n, t, o)]
    law = scene.laws.get(contact.name)
    fset = friction_set(law)
    L = scene.set_height
    if fset is not None and np.max(np.abs(fset.outline), initial=0.0) > _TINY:
        top = p + L * n + L * (np.outer(fset.outline[:, 0], t) + np.outer(fset.outline[:, 1], o))
        closed = np.vstack([top, top[:1]]) if len(top) > 2 else top
        outline = canvas.line(closed, color=COLOURS["set"], lw=1.2)
        outline.set_gid(f"friction-set:{contact.name}")
        DRAWN[fig].sets[contact.name] = DrawnSet(contact.name, fset, outline)
        step = 1 if fset.vertices else max(1, len(top) // 8)
        for k in range(0, len(top), step):
            canvas.line(np.vstack([p, top[k]]), color=COLOURS["set"], lw=0.6, alpha=0.8)
        if len(top) > 2:
            fan = [np.vstack([p, top[k], top[(k + 1) % len(top)]]) for k in range(len(top))]
            canvas.faces(fan, facecolor=COLOURS["set"], alpha=0.08, edgecolor="none")
        else:
            canvas.polygon(np.vstack([p, top]), facecolor=COLOURS["set"], alpha=0.12, edgecolor="none")
        extra.append(top)
        if fset.torsion is not None and not canvas.planar:
            arc = _arc_points(
                p + L * n,
                t,
                o,
                L * min(fset.torsion, 1.5 * np.max(np.abs(fset.outline))),
                -0.75 * np.pi,
                0.75 * np.pi,
            )
            canvas.line(arc, color=COLOURS["moment"], lw=1.0, linestyle=":").set_gid(
                f"torsion-limit:{contact.name}"
            )
            canvas.text(
                arc[-1],
                f"|c_r| ≤ {fset.torsion:.3g} c_n",
                arc[-1] - (p + L * n),
                fontsize=6,
                color=COLOURS["moment"],
            )
    elif law is not None and fset is None:
        canvas.text(p + L * n, type(law).__name__, n, fontsize=6, color=COLOURS["set"])

    result = None
    if scene.solution is not None:
        try:
            result = scene.solution.contact(contact.name)
        except KeyError:
            result = None
    if result is not None:
        extra.extend(_draw_contact_forces(canvas, scene, contact, result, fig))
    away = _label_direction(scene, contact) - 0.3 * n
    label_at = p + 0.18 * scene.size * away
    text = contact.name if result is None else f"{contact.name}: {_mode_text(result)}"
    canvas.text(
        p,
        text,
        away,
        gap=6.0,
        fontsize=7,
        gid=f"label:{contact.name}",
        zorder=10,
        bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "0.7", "alpha": 0.85, "lw": 0.5},
    )
    extra.append(label_at)
    return extra


def _arc_points(centre, a, b, radius: float, start: float, stop: float, count: int = 40) -> np.ndarray:
    th = np.linspace(start, stop, count)
    return centre + radius * (np.outer(np.cos(th), a) + np.outer(np.sin(th), b))


def _draw_contact_forces(canvas: _Canvas, scene: _Scene, contact: Contact, result, fig: Figure) -> list:
    p, frame = contact.point, contact.frame
    force = np.asarray(result.force, dtype=float)
    world = frame.T @ force[:3]
    friction = frame[1:].T @ force[1:3]
    s = scene.force_scale
    head = 0.04 * scene.size
    arts = canvas.arrow(p, p + s * world, COLOURS["force"], head, lw=2.0, gid=f"force:{contact.name}")
    _record(fig, "force", contact.name, p, world, s, arts)
    arts = canvas.arrow(
        p, p + s * friction, COLOURS["friction"], head, lw=1.8, gid=f"friction:{contact.name}"
    )
    _record(fig, "friction", contact.name, p, friction, s, arts)
    extra = [p + s * world]
    if contact.torsion and len(force) > 3:
        fset = friction_set(scene.laws.get(contact.name))
        limit = fset.torsion if fset is not None and fset.torsion else None
        cn = max(force[0], _TINY)
        frac = abs(force[3]) / (limit * cn) if limit else min(1.0, abs(force[3]) / (abs(force[3]) + 1.0))
        sweep = np.sign(force[3]) * 1.5 * np.pi * min(frac, 1.0)
        radius = 0.45 * scene.set_height
        arc = _arc_points(p + 0.1 * scene.set_height * contact.normal, frame[1], frame[2], radius, 0.0, sweep)
        line = canvas.line(arc, color=COLOURS["moment"], lw=1.8)
        line.set_gid(f"moment:{contact.name}")
        arts = [line]
        if abs(sweep) > 1e-6:
            d = _unit(arc[-1] - arc[-2])
            arts.append(canvas._head(arc[-1], d, 0.3 * radius, COLOURS["moment"], f"moment:{contact.name}"))
        _record(fig, "moment", contact.name, p, [force[3]], radius, arts)
        extra.append(arc)
    return extra


def _draw_accelerations(canvas: _Canvas, scene: _Scene, fig: Figure) -> list:
    extra = []
    s = scene.accel_scale
    for res in scene.solution.bodies:
        try:
            body = scene.system.body(res.name)
        except Exception:
            continue
        p = _body_point(body)
        if p is None:
            continue
        a = np.asarray(res.linear_acceleration, dtype=float)
        arts = canvas.arrow(
            p, p + s * a, COLOURS["acceleration"], 0.05 * scene.size, lw=2.5, gid=f"acceleration:{res.name}"
        )
        _record(fig, "acceleration", res.name, p, a, s, arts)
        still = np.linalg.norm(a) <= NOISE
        text = "a = 0" if still else f"a = {_fmt(a)} m/s²"
        canvas.text(
            p if still else p + s * a,
            text,
            -_up(scene) if still else a,
            gap=4.0,
            fontsize=7,
            color=COLOURS["acceleration"],
            zorder=10,
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "alpha": 0.75, "lw": 0},
        )
        extra.append(p + s * a)
    return extra


def _draw_velocities(canvas: _Canvas, scene: _Scene, fig: Figure) -> list:
    extra = []
    s = scene.velocity_scale
    for body in scene.system.bodies:
        v = body.velocity
        if np.linalg.norm(v) <= _TINY:
            continue
        p = body.position
        arts = canvas.arrow(
            p,
            p + s * v,
            COLOURS["velocity"],
            0.04 * scene.size,
            lw=1.5,
            gid=f"velocity:{body.name}",
            linestyle="--",
        )
        _record(fig, "velocity", body.name, p, v, s, arts)
        canvas.text(p + s * v, "v", v, fontsize=7, color=COLOURS["velocity"])
        extra.append(p + s * v)
    return extra


def _body_forces(system: System, body: Body) -> dict[str, np.ndarray]:
    out = {}
    if np.linalg.norm(body.wrench[:3]) > _TINY:
        out["applied"] = body.wrench[:3].copy()
    return out


def _draw_body_forces(canvas: _Canvas, scene: _Scene, fig: Figure) -> list:
    extra = []
    s = scene.force_scale
    for body in scene.system.bodies:
        p = body.position
        for kind, f in _body_forces(scene.system, body).items():
            if np.linalg.norm(f) <= _TINY:
                continue
            arts = canvas.arrow(
                p,
                p + s * f,
                COLOURS[kind],
                0.04 * scene.size,
                lw=1.5,
                gid=f"{kind}:{body.name}",
                linestyle=(0, (4, 2)),
            )
            _record(fig, kind, body.name, p, f, s, arts)
            canvas.text(p + s * f, f"F = {np.linalg.norm(f):.3g} N", f, fontsize=7, color=COLOURS[kind])
            extra.append(p + s * f)
    return extra


def _up(scene: _Scene) -> np.ndarray:
    g = np.asarray(scene.system.gravity, dtype=float)
    return -_unit(g) if np.linalg.norm(g) > _TINY else np.array([0.0, 0.0, 1.0])


def _fmt(v) -> str:
    vals = [0.0 if abs(x) < NOISE else float(x) for x in np.asarray(v, dtype=float)]
    return "(" + ", ".join(f"{x:.3g}" for x in vals) + ")"


def _finish_axes(canvas: _Canvas, scene: _Scene, pts: np.ndarray) -> None:
    ax = canvas.ax
    if canvas.planar:
        uv = canvas.project(pts)
        lo, hi = uv.min(axis=0), uv.max(axis=0)
        half = 0.55 * max(float(np.max(hi - lo)), 0.1)
        mid = 0.5 * (lo + hi)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlim(mid[0] - half * 1.2, mid[0] + half * 1.2)
        ax.set_ylim(mid[1] - half, mid[1] + half)
        r, u = scene.basis
        ax.set_xlabel(f"along {_fmt(r)} [m]")
        ax.set_ylabel(f"along {_fmt(u)} [m] (up)")
        ax.grid(True, lw=0.3, alpha=0.5)
        return
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    half = 0.5 * max(float(np.max(hi - lo)), 0.1)
    mid = 0.5 * (lo + hi)
    ax.set_xlim(mid[0] - half, mid[0] + half)
    ax.set_ylim(mid[1] - half, mid[1] + half)
    ax.set_zlim(mid[2] - half, mid[2] + half)
    ax.set_box_aspect((1, 1, 1))
    ax.set_proj_type("ortho")
    ax.view_init(*VIEW_3D)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("z [m]")
    ax.tick_params(labelsize=7)
    for axis in (ax.xaxis, ax.yaxis, ax.zaxis):
        axis.pane.set_facecolor((1.0, 1.0, 1.0, 0.0))
        axis.pane.set_edgecolor("0.85")
        axis._axinfo["grid"]["linewidth"] = 0.3


def _legend(ax: Axes, scene: _Scene, renderer, own_figure: bool) -> None:
    items = [
        ("n (normal, into body a)", COLOURS["n"], "-"),
        ("t", COLOURS["t"], "-"),
        *([] if scene.planar else [("o = n × t", COLOURS["o"], "-")]),
        ("friction set at c_n = 1 N", COLOURS["set"], "-"),
    ]
    kinds = {
        kind
        for arm in scene.system.manipulators
        for kind in ("revolute", "prismatic")
        if any(j.kind == kind for j in arm.joints)
    }
    items += [
        (f"{kind} joint axis", COLOURS[kind], "-") for kind in ("revolute", "prismatic") if kind in kinds
    ]
    if scene.solution is not None:
        items += [
            ("contact force on body a", COLOURS["force"], "-"),
            ("friction part", COLOURS["friction"], "-"),
            ("body acceleration", COLOURS["acceleration"], "-"),
        ]
        if not scene.planar and any(c.torsion for c in scene.system.contacts):
            items.append(("torsional moment c_r", COLOURS["moment"], "-"))
    if any(np.linalg.norm(b.wrench[:3]) > _TINY for b in scene.system.bodies):
        items.append(("applied force (force scale)", COLOURS["applied"], "--"))
    if any(np.linalg.norm(b.velocity) > _TINY for b in scene.system.bodies):
        items.append(("body velocity", COLOURS["velocity"], "--"))
    handles = [Line2D([], [], color=c, ls=ls, lw=2) for _, c, ls in items]
    labels = [label for label, _, _ in items]
    # Outside the axes, top-aligned with them: at the right edge of a figure draw made (its 3D
    # axes leave that strip free), else right of the axes (of their tick and axis labels in 3D,
    # which reach past the axes' box).
    fig = ax.figure
    if own_figure and not scene.planar:
        # The strip's top, middle or bottom: 3D tick labels can still reach into the strip.
        x = 1.0 - 4.0 / fig.bbox.width
        pos = ax.get_position()
        candidates = [
            ((x, pos.y1), "upper right"),
            ((x, 0.5 * (pos.y0 + pos.y1)), "center right"),
            ((x, pos.y0), "lower right"),
        ]
    else:
        right = ax.bbox.x1 if scene.planar else max(ax.bbox.x1, ax.get_tightbbox(renderer).x1)
        anchor = tuple(fig.transFigure.inverted().transform((right + 4.0, ax.bbox.y1)))
        candidates = [(anchor, "upper left")]
    fig.draw_without_rendering()  # 3D tick labels are placed only when the figure is drawn
    texts = [t for t in _axes_texts(ax) if t.get_visible() and t.get_text()]
    boxes = [t.get_window_extent(renderer) for t in texts]
    for anchor, loc in candidates:
        legend = ax.legend(
            handles,
            labels,
            loc=loc,
            bbox_to_anchor=anchor,
            bbox_transform=fig.transFigure,
            borderaxespad=0.0,
            fontsize=7,
            framealpha=0.85,
        )
        extent = legend.get_window_extent(renderer)
        if not any(extent.overlaps(box) for box in boxes):
            return


def _axes_texts(ax: Axes) -> list:
    """The texts an axes draws: its labels and annotations, axis labels and tick labels."""
    axes = [ax.xaxis, ax.yaxis, *([ax.zaxis] if ax.name == "3d" else [])]
    return [*ax.texts, *(t for axis in axes for t in [axis.label, *axis.get_ticklabels()])]


def _renderer(fig: Figure):
    """The figure canvas's renderer, or an Agg one of the figure's size (text extents only)."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is not None:
        return get()
    from matplotlib.backends.backend_agg import RendererAgg

    width, height = fig.bbox.size
    return RendererAgg(int(width), int(height), fig.dpi)


def _prepare_transforms(canvas: _Canvas) -> None:
    """Fix the axes' box (aspect) and, in 3D, the projection, as drawing will."""
    ax = canvas.ax
    ax.apply_aspect()
    if not canvas.planar:
        ax.M = ax.get_proj()
        ax.invM = np.linalg.inv(ax.M)


def _to_data2d(canvas: _Canvas, points) -> np.ndarray:
    """(k, 3) world points -> (k, 2) in the axes' 2D data coordinates (3D: projected)."""
    pts = np.atleast_2d(np.asarray(points, dtype=float))
    if canvas.planar:
        return canvas.project(pts)
    from mpl_toolkits.mplot3d import proj3d

    xs, ys, _ = proj3d.proj_transform(pts[:, 0], pts[:, 1], pts[:, 2], canvas.ax.M)
    return np.column_stack([xs, ys])


def _dense(xy: np.ndarray, step: float) -> np.ndarray:
    """Points along the polyline ``xy`` (k, 2), at most ``step`` apart."""
    xy = xy[np.all(np.isfinite(xy), axis=1)]
    if len(xy) < 2:
        return xy
    seg = np.diff(xy, axis=0)
    count = np.maximum(1, np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / step)).astype(int)
    idx = np.repeat(np.arange(len(seg)), count)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    frac = (np.arange(idx.size) - start[idx]) / count[idx]
    return np.vstack([xy[idx] + seg[idx] * frac[:, None], xy[-1:]])


def _obstacles(canvas: _Canvas) -> tuple[np.ndarray, np.ndarray]:
    """Display points (k, 2) of the drawn lines a label should not cover, and their weights
    (k,): markers weigh more than line samples; body outlines are left out."""
    ax = canvas.ax
    points, weights = [], []
    for line in ax.lines:
        if not line.get_visible() or str(line.get_gid() or "").startswith("body"):
            continue
        if hasattr(line, "get_data_3d"):
            xy = _to_data2d(canvas, np.column_stack(line.get_data_3d()))
        else:
            xy = np.asarray(line.get_xydata(), dtype=float)
        xy = ax.transData.transform(xy)
        marker = line.get_linestyle() in ("None", "none", "", " ")
        xy = xy[np.all(np.isfinite(xy), axis=1)] if marker else _dense(xy, 2.0)
        points.append(xy)
        weights.append(np.full(len(xy), 20.0 if marker else 1.0))
    if not points:
        return np.zeros((0, 2)), np.zeros(0)
    return np.vstack(points), np.concatenate(weights)


_ANGLES = np.radians([0, 30, -30, 60, -60, 90, -90, 120, -120, 150, -150, 180])
_RADII = np.array([0.0, 6.0, 14.0, 26.0, 42.0, 64.0])  # points beyond a label's gap


def _overlap(boxes: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Intersection areas of boxes (c, 4) (x0, y0, x1, y1) with one box (4,)."""
    w = np.minimum(boxes[:, 2], box[2]) - np.maximum(boxes[:, 0], box[0])
    h = np.minimum(boxes[:, 3], box[3]) - np.maximum(boxes[:, 1], box[1])
    return np.clip(w, 0.0, None) * np.clip(h, 0.0, None)


def _place_labels(canvas: _Canvas, renderer, pad: float = 2.0) -> None:
    """Place every label of ``canvas`` (greedy, in drawing order; after
    :func:`_prepare_transforms`): each goes where its box
    overlaps no label placed before it and stays inside the axes, covering as few drawn lines
    and other labels' points as it can, preferring its own direction and a short offset."""
    labels = canvas.labels
    if not labels:
        return
    ax = canvas.ax
    data = _to_data2d(canvas, np.array([lab.anchor for lab in labels]))
    anchors = ax.transData.transform(data)
    centre = anchors.mean(axis=0)
    obstacles, weights = _obstacles(canvas)
    region = ax.bbox
    px = renderer.points_to_pixels(1.0)
    placed = np.zeros((0, 4))
    for k, lab in enumerate(labels):
        art = lab.artist
        art.xy = tuple(data[k])
        art.xyann = (0.0, 0.0)
        ext = art.get_window_extent(renderer)
        hw, hh = 0.5 * ext.width + pad, 0.5 * ext.height + pad
        base = None
        if np.linalg.norm(lab.direction) > _TINY:
            tip = ax.transData.transform(_to_data2d(canvas, lab.anchor + 1e-3 * _unit(lab.direction)))[0]
            if np.linalg.norm(tip - anchors[k]) > 1e-6:
                base = tip - anchors[k]
        if base is None:
            away = anchors[k] - centre
            base = away if np.linalg.norm(away) > 1.0 else np.array([1.0, 0.0])
        theta = np.arctan2(base[1], base[0]) + _ANGLES
        u = np.column_stack([np.cos(theta), np.sin(theta)])
        with np.errstate(divide="ignore"):
            reach = np.minimum(hw / np.abs(u[:, 0]), hh / np.abs(u[:, 1]))
        r = (lab.gap + _RADII) * px
        dist = (r[None, :] + reach[:, None])[..., None] * u[:, None, :]
        centres = (anchors[k] + dist).reshape(-1, 2)
        boxes = np.column_stack([centres - (hw, hh), centres + (hw, hh)])
        inside = _overlap(boxes, np.array([region.x0, region.y0, region.x1, region.y1]))
        score = 1e5 * (1.0 - inside / (4 * hw * hh))
        for box in placed:
            area = _overlap(boxes, box)
            score += np.where(area > 0, 1e6 + area, 0.0)
        for points, w in ((obstacles, weights), (np.delete(anchors, k, axis=0), None)):
            if len(points) == 0:
                continue
            within = (
                (points[None, :, 0] >= boxes[:, None, 0])
                & (points[None, :, 0] <= boxes[:, None, 2])
                & (points[None, :, 1] >= boxes[:, None, 1])
                & (points[None, :, 1] <= boxes[:, None, 3])
            )
            score += within @ w if w is not None else 30.0 * within.sum(axis=1)
        score += 0.4 * np.tile(_RADII, len(_ANGLES)) + 8.0 * np.repeat(np.abs(_ANGLES), len(_RADII))
        best = int(np.argmin(score))
        art.xyann = tuple((centres[best] - anchors[k]) / px)
        placed = np.vstack([placed, boxes[best]])


def save(fig: Figure, out: str | Path, dpi: int | None = None) -> Path:
    """Save ``fig`` reproducibly (fixed SVG hash salt, no dates in the metadata); format from the
    suffix (.png, .svg, .pdf)."""
    path = Path(out)
    fmt = path.suffix.lower().lstrip(".") or "png"
    metadata: dict[str, Any] = {
        "png": {"Software": "contactmodel"},
        "svg": {"Date": None, "Creator": "contactmodel"},
        "pdf": {"CreationDate": None, "ModDate": None, "Creator": "contactmodel"},
    }.get(fmt, {})
    with rc_context({"svg.hashsalt": HASHSALT, "svg.fonttype": "path"}):
        fig.savefig(path, format=fmt, dpi=dpi or fig.dpi, metadata=metadata or None)
    return path


def _mode_indices(modes) -> tuple[np.ndarray, list[str]]:
    arr = np.asarray(modes)
    if arr.dtype.kind in "iub":
        names = [str(v) for v in sorted(np.unique(arr).tolist())]
        lookup = {v: i for i, v in enumerate(sorted(np.unique(arr).tolist()))}
        return np.vectorize(lookup.get)(arr).astype(float), names
    names: list[str] = []
    for v in arr.ravel().tolist():
        if str(v) not in names:
            names.append(str(v))
    index = {name: i for i, name in enumerate(names)}
    return np.array([index[str(v)] for v in arr.ravel().tolist()], dtype=float).reshape(arr.shape), names


def sweep_plot(
    values_x: Sequence[float] | np.ndarray,
    z: Sequence | np.ndarray,
    values_y: Sequence[float] | np.ndarray | None = None,
    *,
    modes: Sequence | np.ndarray | None = None,
    ax: Axes | None = None,
    xlabel: str = "",
    ylabel: str = "",
    zlabel: str = "",
    title: str = "",
    label: str | None = None,
    cmap: str = "viridis",
    out: str | Path | None = None,
    figsize: tuple[float, float] = (6.4, 4.8),
    dpi: int = DPI,
) -> Axes:
    """Plot a solution scalar ``z`` over a parameter sweep and return the Axes.

    One swept parameter (``values_y`` None): ``z`` has shape (nx,), a line over ``values_x``;
    ``modes`` (nx,) (strings or integers) shades each run of equal mode and names it. Two:
    ``z`` has shape (ny, nx) (row j is ``values_y[j]``), a heat map (``ax.images[0]``, cells
    centred on a uniform grid) with a colour bar, and ``modes`` (ny, nx) adds the mode
    boundaries as contour lines of the mode index, each region labelled. Call again with the
    same ``ax`` to overlay lines (``label`` names each in the legend). ``out`` saves the figure.
    """
    x = np.asarray(values_x, dtype=float)
    zz = np.asarray(z, dtype=float)
    own_figure = ax is None
    if own_figure:
        fig = Figure(figsize=figsize, dpi=dpi)
        ax = fig.add_subplot(1, 1, 1)
    fig = ax.figure
    if values_y is None:
        if zz.shape != x.shape:
            raise DrawingError(f"z must have the shape of values_x {x.shape} (got {zz.shape})")
        line = ax.plot(x, zz, marker=".", lw=1.5, label=label)[0]
        if modes is not None:
            idx, names = _mode_indices(modes)
            if idx.shape != x.shape:
                raise DrawingError(f"modes must have the shape of values_x {x.shape} (got {idx.shape})")
            edges = np.concatenate([[x[0]], 0.5 * (x[1:] + x[:-1]), [x[-1]]])
            cmap_modes = _mode_colours(len(names))
            shown: set[int] = set()
            start = 0
            for k in range(1, len(x) + 1):
                if k == len(x) or idx[k] != idx[start]:
                    m = int(idx[start])
                    ax.axvspan(
                        edges[start],
                        edges[k],
                        color=cmap_modes[m],
                        alpha=0.25,
                        lw=0,
                        label=None if m in shown else names[m],
                    )
                    shown.add(m)
                    start = k
            ax.legend(fontsize=8)
        elif label is not None:
            ax.legend(fontsize=8)
        line.set_gid("sweep")
        ax.set_ylabel(zlabel)
    else:
        y = np.asarray(values_y, dtype=float)
        if zz.shape != (len(y), len(x)):
            raise DrawingError(
                f"z must have shape (len(values_y), len(values_x)) = {(len(y), len(x))} (got {zz.shape})"
            )
        dx = (x[-1] - x[0]) / max(len(x) - 1, 1) if len(x) > 1 else 1.0
        dy = (y[-1] - y[0]) / max(len(y) - 1, 1) if len(y) > 1 else 1.0
        extent = (x[0] - dx / 2, x[-1] + dx / 2, y[0] - dy / 2, y[-1] + dy / 2)
        image = ax.imshow(
            zz, origin="lower", extent=extent, aspect="auto", cmap=cmap, interpolation="nearest"
        )
        image.set_gid("sweep")
        fig.colorbar(image, ax=ax, label=zlabel)
        if modes is not None:
            idx, names = _mode_indices(modes)
            if idx.shape != zz.shape:
                raise DrawingError(f"modes must have the shape of z {zz.shape} (got {idx.shape})")
            if len(names) > 1 and min(len(x), len(y)) > 1:
                X, Y = np.meshgrid(x, y)
                cs = ax.contour(
                    X, Y, idx, levels=np.arange(len(names) - 1) + 0.5, colors="white", linewidths=1.5
                )
                cs.set_gid("mode-boundaries")
            for m, name in enumerate(names):
                inside = np.pad(idx == m, 1)
                if not inside.any():
                    continue
                depth = distance_transform_edt(inside)[1:-1, 1:-1]
                jj, ii = np.unravel_index(int(np.argmax(depth)), depth.shape)
                ax.text(
                    float(x[ii]),
                    float(y[jj]),
                    name,
                    ha="center",
                    va="center",
                    fontsize=8,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "alpha": 0.8, "lw": 0},
                )
        ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title, fontsize=10)
    if out is not None:
        save(fig, out)
    return ax


def _mode_colours(count: int) -> list:
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
    return [palette[i % len(palette)] for i in range(count)]
