"""Label placement: every label a :class:`~contactmodel.draw.canvas.Canvas` holds goes, once the
picture is drawn, where it overlaps no other label and covers as few drawn lines as it can."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from contactmodel.draw.canvas import TINY, Canvas, unit


def text_renderer(fig: Figure):
    """The figure canvas's renderer, or an Agg one of the figure's size (text extents only)."""
    get = getattr(fig.canvas, "get_renderer", None)
    if get is not None:
        return get()
    from matplotlib.backends.backend_agg import RendererAgg

    width, height = fig.bbox.size
    return RendererAgg(int(width), int(height), fig.dpi)


def prepare_transforms(canvas: Canvas) -> None:
    """Fix the axes' box (aspect) and, in 3D, the projection, as drawing will."""
    ax = canvas.ax
    ax.apply_aspect()
    if not canvas.planar:
        ax.M = ax.get_proj()
        ax.invM = np.linalg.inv(ax.M)


def _to_data2d(canvas: Canvas, points) -> np.ndarray:
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


def _obstacles(canvas: Canvas) -> tuple[np.ndarray, np.ndarray]:
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


def place_labels(canvas: Canvas, renderer, pad: float = 2.0) -> None:
    """Place every label of ``canvas`` (greedy, in drawing order; after
    :func:`prepare_transforms`): each goes where its box
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
        if np.linalg.norm(lab.direction) > TINY:
            tip = ax.transData.transform(_to_data2d(canvas, lab.anchor + 1e-3 * unit(lab.direction)))[0]
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
