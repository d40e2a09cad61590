"""Pictures of a :class:`~contactmodel.simulation.Trajectory`: an animation (GIF through pillow,
MP4 where ffmpeg exists) and time plots of energy, contact forces and modes. Needs matplotlib
(extra ``plot``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from contactmodel.errors import ContactModelError
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation.collision import box_vertices
from contactmodel.simulation.trajectory import Trajectory


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ContactModelError("pictures need matplotlib: pip install 'contactmodel[plot]'") from None
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _rotation(q: np.ndarray) -> np.ndarray:
    from contactmodel.simulation.stepper import quat_to_matrix

    return quat_to_matrix(q)


def _outline(shape, position: np.ndarray, q: np.ndarray, axes: tuple[int, int]) -> np.ndarray | None:
    """(k, 2) closed outline of a shape projected on the plane of world ``axes``."""
    i, j = axes
    if isinstance(shape, Box):
        pts = box_vertices(shape.size, position, _rotation(q))[:, [i, j]]
        from scipy.spatial import ConvexHull

        hull = ConvexHull(pts)
        ring = pts[hull.vertices]
        return np.vstack([ring, ring[:1]])
    if isinstance(shape, Sphere):
        a = np.linspace(0, 2 * np.pi, 41)
        return position[[i, j]] + shape.radius * np.c_[np.cos(a), np.sin(a)]
    return None


def animate(
    trajectory: Trajectory, out="trajectory.gif", fps: int = 30, view: str = "xz", max_frames: int = 300
):
    """Write an animation of the bodies (side view on the world plane ``view``, e.g. "xz") to
    ``out`` (.gif through pillow, .mp4 through ffmpeg); returns the path. Bodies without a Box or
    Sphere shape are drawn as their centre of mass."""
    plt = _pyplot()
    from matplotlib.animation import FFMpegWriter, FuncAnimation, PillowWriter

    out = Path(out)
    if len(view) != 2 or any(c not in "xyz" for c in view):
        raise ContactModelError(f"view must name two world axes such as 'xz' (got {view!r})")
    axes = ("xyz".index(view[0]), "xyz".index(view[1]))
    times = trajectory.times
    stride = max(1, int(np.ceil(len(times) / max_frames)), int(round(1.0 / (fps * trajectory.dt))))
    frames = list(range(0, len(times), stride))
    shapes = [trajectory.shapes.get(name) for name in trajectory.body_names]
    P = trajectory.positions[:, :, list(axes)]
    pad = max(
        [0.1] + [max(getattr(s, "size", [getattr(s, "radius", 0.05)])) for s in shapes if s is not None]
    )
    lo, hi = P.reshape(-1, 2).min(axis=0) - pad, P.reshape(-1, 2).max(axis=0) + pad
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.set_xlabel(f"{view[0]} (m)")
    ax.set_ylabel(f"{view[1]} (m)")
    for plane in trajectory.planes:
        n = np.asarray(plane.normal)[list(axes)]
        p0 = np.asarray(plane.point)[list(axes)]
        d = np.array([n[1], -n[0]])
        if np.linalg.norm(d) > 1e-12:
            span = 2 * np.linalg.norm(hi - lo)
            ax.plot(*np.c_[p0 - span * d, p0 + span * d], color="0.3", lw=1.5)
    lines = [ax.plot([], [], lw=1.5)[0] for _ in shapes]
    label = ax.set_title("")

    def draw(k: int):
        for b, (shape, line) in enumerate(zip(shapes, lines)):
            ring = _outline(shape, trajectory.positions[k, b], trajectory.quaternions[k, b], axes)
            if ring is None:
                ring = P[k, b][None, :]
                line.set_marker("o")
            line.set_data(ring[:, 0], ring[:, 1])
        label.set_text(f"t = {times[k]:.3f} s")
        return [*lines, label]

    anim = FuncAnimation(fig, draw, frames=frames, blit=False)
    if out.suffix.lower() == ".mp4":
        writer = FFMpegWriter(fps=fps)
    elif out.suffix.lower() == ".gif":
        writer = PillowWriter(fps=fps)
    else:
        plt.close(fig)
        raise ContactModelError(f"animate writes .gif or .mp4 (got '{out}')")
    anim.save(out, writer=writer)
    plt.close(fig)
    return out


def plot(trajectory: Trajectory, out=None):
    """Three panels against time: kinetic, potential and total energy (J); each contact's mean
    normal force p_n / dt (N); each contact's mode (rows per contact, a mark per step). Returns
    the figure, or writes it to ``out`` (.png/.svg) and returns the path."""
    plt = _pyplot()
    fig, (ax_e, ax_f, ax_m) = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    t = trajectory.times
    ax_e.plot(t, trajectory.kinetic, label="kinetic")
    ax_e.plot(t, trajectory.potential - trajectory.potential[0], label="potential - initial")
    ax_e.plot(t, trajectory.energy - trajectory.potential[0], label="total - initial potential")
    ax_e.set_ylabel("energy (J)")
    ax_e.legend(fontsize=7)
    ts = t[:-1] if len(t) > 1 else t[:0]
    modes = sorted({m for arr in trajectory.modes.values() for m in arr if m})
    for row, name in enumerate(trajectory.impulses):
        ax_f.plot(
            ts[: len(trajectory.impulses[name])], trajectory.contact_forces(name)[:, 0], lw=1, label=name
        )
        marks = trajectory.modes[name]
        for m in modes:
            sel = marks == m
            ax_m.scatter(ts[: len(marks)][sel], np.full(sel.sum(), row), s=4, label=m if row == 0 else None)
    ax_f.set_ylabel("normal force p_n/dt (N)")
    if len(trajectory.impulses) <= 8:
        ax_f.legend(fontsize=7)
    ax_m.set_yticks(range(len(trajectory.impulses)), list(trajectory.impulses), fontsize=6)
    ax_m.set_xlabel("t (s)")
    ax_m.set_ylabel("mode")
    if modes:
        ax_m.legend(fontsize=7, markerscale=3)
    fig.tight_layout()
    if out is None:
        return fig
    fig.savefig(out)
    plt.close(fig)
    return Path(out)
