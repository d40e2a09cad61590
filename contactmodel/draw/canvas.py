"""The drawing surface: the figure's size and colours, :class:`Canvas` (world-frame (3,) points drawn
on a 3D axes, or projected onto a plane on a 2D axes) and its primitives, and :func:`save`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

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
TINY = 1e-12
NOISE = 1e-8


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > TINY else np.zeros_like(v)


def perpendicular(v: np.ndarray) -> np.ndarray:
    axis = np.eye(3)[int(np.argmin(np.abs(v)))]
    return unit(axis - (axis @ v) * v)


def format_vector(v) -> str:
    vals = [0.0 if abs(x) < NOISE else float(x) for x in np.asarray(v, dtype=float)]
    return "(" + ", ".join(f"{x:.3g}" for x in vals) + ")"


@dataclass
class _Label:
    """A label to place: its artist, the world point (3,) it names, a preferred world direction
    (3,) (zero: away from the scene's centre) and its gap (points) from that point."""

    artist: Any
    anchor: np.ndarray
    direction: np.ndarray
    gap: float


class Canvas:
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
        """A label for the world point ``point`` (3,), placed later by
        :func:`~contactmodel.draw.labels.place_labels`
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
        if length > TINY:
            artists.append(self.head(head, d / length, min(head_size, 0.4 * length), colour, gid))
        return artists

    def head(self, tip: np.ndarray, direction: np.ndarray, size: float, colour: str, gid: str | None):
        """An arrow head: a triangle of length ``size`` (m) with its tip at ``tip`` (3,), pointing
        along the unit ``direction`` (3,), facing the viewer; its gid is ``gid:head``."""
        side = np.cross(direction, self.look)
        if np.linalg.norm(side) < 1e-6:
            side = np.cross(direction, perpendicular(direction))
        side = unit(side)
        base = tip - size * direction
        tri = np.vstack([tip, base + 0.35 * size * side, base - 0.35 * size * side])
        patch = self.polygon(tri, facecolor=colour, edgecolor=colour, linewidth=0.5)
        patch.set_gid(None if gid is None else f"{gid}:head")
        return patch


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
