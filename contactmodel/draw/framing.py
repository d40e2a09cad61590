"""The picture's frame: the axes' limits, labels and 3D view, the legend beside the axes, the
default title and the caption stating the scales."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from contactmodel.draw.canvas import COLOURS, TINY, VIEW_3D, Canvas, format_vector
from contactmodel.draw.scene import Scene


def finish_axes(canvas: Canvas, scene: Scene, pts: np.ndarray) -> None:
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
        ax.set_xlabel(f"along {format_vector(r)} [m]")
        ax.set_ylabel(f"along {format_vector(u)} [m] (up)")
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


def add_legend(ax: Axes, scene: Scene, renderer, own_figure: bool) -> None:
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
    if any(np.linalg.norm(b.wrench[:3]) > TINY for b in scene.system.bodies):
        items.append(("applied force (force scale)", COLOURS["applied"], "--"))
    if any(np.linalg.norm(b.velocity) > TINY for b in scene.system.bodies):
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


def default_title(scene: Scene) -> str:
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


def caption(scene: Scene) -> str:
    parts = [
        f"friction sets at c_n = 1 N: 1 N = {scene.set_height:.3g} m",
        f"force arrows: 1 N = {scene.force_scale:.3g} m",
    ]
    if scene.solution is not None:
        parts.append(f"acceleration arrows: 1 m/s² = {scene.accel_scale:.3g} m")
    parts.append(f"gravity {format_vector(scene.system.gravity)} m/s²")
    if any(np.linalg.norm(b.velocity) > TINY for b in scene.system.bodies):
        parts.append(f"velocity arrows (dashed): 1 m/s = {scene.velocity_scale:.3g} m")
    return "   ".join(parts)
