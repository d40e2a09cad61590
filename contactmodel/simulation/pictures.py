"""Pictures of a :class:`~contactmodel.simulation.Trajectory`: an animation (GIF through pillow,
MP4 where ffmpeg exists) and time plots of energy, contact forces and modes. Needs matplotlib
(extra ``plot``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from contactmodel.errors import ContactModelError
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation.collision import box_vertices

#: the type of the runs drawn here: a :class:`~contactmodel.simulation.Trajectory` (not imported:
#: ``Trajectory.to_html`` imports the replay, which uses these pictures' pieces)
Trajectory = Any


def _pyplot():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ContactModelError("pictures need matplotlib: pip install 'contactmodel[plot]'") from None
    import matplotlib.pyplot as plt  # the session's backend: Agg without a display, inline in notebooks

    return plt


def rotation(q: np.ndarray) -> np.ndarray:
    """3x3 body-to-world rotation of a unit quaternion (w, x, y, z)."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_quat(np.asarray(q, dtype=float)[[1, 2, 3, 0]]).as_matrix()


#: the four corners of each face of a box, as indices into ``box_vertices`` (sx, sy, sz binary)
BOX_FACES = ((0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5))


def box_faces(size, position: np.ndarray, rotation: np.ndarray) -> list[np.ndarray]:
    """The six (4, 3) faces of a box in world coordinates (m)."""
    corners = box_vertices(size, position, rotation)
    return [corners[list(face)] for face in BOX_FACES]


#: one colour per contact mode (the first word of the mode label), shared by every picture
MODE_COLOURS = {"roll": "#2ca02c", "slide": "#d62728", "separate": "#7f7f7f", "approach": "#9467bd"}
OTHER_MODE = "#8c564b"
COLOURS = {"force": "#000000", "set": "#17becf", "velocity": "#1f77b4", "plane": "#b0b0b0", "body": "#4d4d4d"}
VIEWS = ("3d", "xz", "xy", "yz")


def mode_colour(mode: str) -> str:
    """The colour of a contact mode ('roll', 'slide +t', ...): one per mode, by its first word."""
    return MODE_COLOURS.get(mode.split(" ")[0] if mode else "", OTHER_MODE)


def frame_indices(
    trajectory: Trajectory, fps: float, speed: float = 1.0, max_frames: int = 300
) -> np.ndarray:
    """State indices of an animation at ``fps`` frames per second of film showing ``speed``
    simulated seconds per second: evenly spaced in time, the first at t = 0 and the last at the
    final time (at most ``max_frames``; every state when there are fewer)."""
    if not fps > 0 or not speed > 0:
        raise ContactModelError(f"fps and speed must be positive (got fps={fps}, speed={speed})")
    n = len(trajectory.times)
    if n <= 1:
        return np.zeros(min(n, 1), dtype=int)
    duration = float(trajectory.times[-1] - trajectory.times[0])
    count = int(min(max_frames, n, np.floor(duration * fps / speed + 1e-9) + 1))
    count = max(count, 2)
    targets = np.linspace(trajectory.times[0], trajectory.times[-1], count)
    return np.unique(np.clip(np.searchsorted(trajectory.times, targets - 1e-12), 0, n - 1))


class _Scene:
    """What every frame of a trajectory picture shares: the view, the limits and the scales."""

    def __init__(self, trajectory: Trajectory, view: str, scale: dict | None) -> None:
        if view not in VIEWS:
            raise ContactModelError(f"view must be one of {VIEWS} (got {view!r})")
        self.traj = trajectory
        self.view = view
        self.axes = None if view == "3d" else ("xyz".index(view[0]), "xyz".index(view[1]))
        self.shapes = [trajectory.shapes.get(name) for name in trajectory.body_names]
        size = [_size(s) for s in self.shapes if s is not None]
        pad = max([0.1, *size])
        P = trajectory.positions.reshape(-1, 3)
        self.lo, self.hi = P.min(axis=0) - pad, P.max(axis=0) + pad
        centre, half = (self.lo + self.hi) / 2, max(float(np.max(self.hi - self.lo)) / 2, 0.1)
        self.lo, self.hi = centre - half, centre + half
        self.span = 2 * half
        scale = dict(scale or {})
        forces = [f for f in (world_forces(trajectory, name) for name in trajectory.impulses) if f.size]
        peak = max([float(np.nanmax(np.linalg.norm(f, axis=-1), initial=0.0)) for f in forces] + [0.0])
        self.force = scale.get("force", 0.3 * self.span / peak if peak > 0 else 0.0)
        speed = float(np.max(np.linalg.norm(trajectory.velocities, axis=-1), initial=0.0))
        self.velocity = scale.get("velocity", 0.25 * self.span / speed if speed > 0 else 0.0)
        self.friction = scale.get("friction", 0.12 * self.span)
        self.outlines = {}
        for name, law in trajectory.laws.items():
            if getattr(law, "describes_set", False):
                self.outlines[name] = law.friction_set().outline().outline

    def setup(self, ax) -> None:
        if self.axes is None:
            ax.set_xlim(self.lo[0], self.hi[0])
            ax.set_ylim(self.lo[1], self.hi[1])
            ax.set_zlim(self.lo[2], self.hi[2])
            ax.set_box_aspect((1, 1, 1))
            ax.set_xlabel("x (m)")
            ax.set_ylabel("y (m)")
            ax.set_zlabel("z (m)")
        else:
            i, j = self.axes
            ax.set_xlim(self.lo[i], self.hi[i])
            ax.set_ylim(self.lo[j], self.hi[j])
            ax.set_aspect("equal")
            ax.set_xlabel(f"{self.view[0]} (m)")
            ax.set_ylabel(f"{self.view[1]} (m)")

    def flat(self, points: np.ndarray) -> np.ndarray:
        pts = np.atleast_2d(points)
        return pts if self.axes is None else pts[:, list(self.axes)]

    def line(self, ax, points, **kw):
        pts = self.flat(points)
        return ax.plot(*pts.T, **kw)[0]

    def arrow(self, ax, tail, vector, colour: str, lw: float = 1.8) -> None:
        if not np.all(np.isfinite(vector)) or np.linalg.norm(vector) < 1e-12:
            return
        tip = tail + vector
        self.line(ax, np.array([tail, tip]), color=colour, lw=lw)
        self.line(ax, tip, color=colour, marker="o", ms=3)

    def polygon(self, ax, points, colour: str, alpha: float) -> None:
        if self.axes is None:
            from mpl_toolkits.mplot3d.art3d import Poly3DCollection

            ax.add_collection3d(
                Poly3DCollection([points], facecolor=colour, edgecolor="0.2", alpha=alpha, lw=0.6)
            )
        else:
            from matplotlib.patches import Polygon

            ax.add_patch(Polygon(self.flat(points), closed=True, fc=colour, ec="0.2", alpha=alpha, lw=0.8))

    def draw(self, ax, k: int, forces: bool, friction: bool, velocities: bool) -> None:
        """State k: planes, bodies, velocity arrows; the contacts of the step from state k (the
        last state shows the last step's contacts)."""
        traj = self.traj
        for plane in traj.planes:
            self.polygon(ax, self.plane_patch(plane), COLOURS["plane"], 0.25)
        for b, shape in enumerate(self.shapes):
            x, q = traj.positions[k, b], traj.quaternions[k, b]
            if isinstance(shape, Box):
                for face in box_faces(shape.size, x, rotation(q)):
                    self.polygon(ax, face, "#9ecae1", 0.35 if self.axes is None else 0.15)
            elif isinstance(shape, Sphere):
                R = rotation(q)
                a = np.linspace(0, 2 * np.pi, 33)
                ring = np.c_[np.cos(a), np.sin(a), np.zeros_like(a)] * shape.radius
                for axes in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
                    self.line(ax, x + ring[:, axes] @ R.T, color=COLOURS["body"], lw=1)
            else:
                self.line(ax, x, color=COLOURS["body"], marker="o")
            if velocities and self.velocity > 0:
                self.arrow(ax, x, self.velocity * traj.velocities[k, b], COLOURS["velocity"])
        step = min(k, traj.n_steps - 1)
        if step < 0:
            return
        for name in traj.impulses:
            if name not in traj.contact_points:
                continue
            point, frame = traj.contact_points[name][step], traj.contact_frames[name][step]
            if not np.all(np.isfinite(point)):
                continue
            mode = str(traj.modes[name][step])
            self.line(ax, point, color=mode_colour(mode), marker="o", ms=6, mec="k", mew=0.5)
            if friction and name in self.outlines:
                n, t, o = frame
                outline = self.outlines[name]
                top = point + self.friction * (n + np.outer(outline[:, 0], t) + np.outer(outline[:, 1], o))
                ring = np.vstack([top, top[:1]])
                self.line(ax, ring, color=COLOURS["set"], lw=0.8)
                for corner in top[:: max(1, len(top) // 4)]:
                    self.line(ax, np.array([point, corner]), color=COLOURS["set"], lw=0.5)
            if forces and self.force > 0:
                c = traj.impulses[name][step, :3] / traj.dt
                self.arrow(ax, point, self.force * (frame.T @ c), COLOURS["force"])

    def plane_patch(self, plane) -> np.ndarray:
        frame = plane.frame
        centre = (self.lo + self.hi) / 2
        centre = centre - plane.distance(centre[None, :])[0] * frame[0]
        r = self.span / 2
        t, o = frame[1], frame[2]
        return np.array([centre + r * (a * t + b * o) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _size(shape) -> float:
    if isinstance(shape, Box):
        return float(max(shape.size))
    if isinstance(shape, Sphere):
        return float(2 * shape.radius)
    return 0.05


def world_forces(trajectory: Trajectory, name: str) -> np.ndarray:
    """(N, 3) mean contact forces of contact ``name`` in the world frame (N; NaN while inactive)."""
    if name not in trajectory.contact_frames:
        return np.zeros((0, 3))
    c = trajectory.impulses[name][:, :3] / trajectory.dt
    return np.einsum("kij,ki->kj", trajectory.contact_frames[name], c)


def _legend(ax, trajectory: Trajectory, forces: bool, velocities: bool) -> None:
    from matplotlib.lines import Line2D

    modes = sorted({m.split(" ")[0] for arr in trajectory.modes.values() for m in arr if m})
    handles = [
        Line2D([], [], ls="", marker="o", color=mode_colour(m), mec="k", mew=0.5, label=m) for m in modes
    ]
    if forces:
        handles.append(Line2D([], [], color=COLOURS["force"], label="contact force"))
    if velocities:
        handles.append(Line2D([], [], color=COLOURS["velocity"], label="velocity"))
    if trajectory.laws:
        handles.append(Line2D([], [], color=COLOURS["set"], label="friction set (1 N)"))
    if handles:
        ax.legend(handles=handles, fontsize=7, loc="upper left")


def _figure(scene: _Scene, figsize):
    plt = _pyplot()
    fig = plt.figure(figsize=figsize)
    ax = fig.add_subplot(projection="3d") if scene.axes is None else fig.add_subplot()
    return fig, ax


def snapshot(
    trajectory: Trajectory,
    k: int = -1,
    view: str = "3d",
    out=None,
    forces: bool = True,
    friction: bool = True,
    velocities: bool = True,
    scale: dict | None = None,
    figsize: tuple[float, float] = (6.5, 5.0),
):
    """One state of the run drawn as :func:`animate` draws its frames (state ``k``, default the
    last). Returns the Figure, or writes it to ``out`` (.png/.svg) and returns the path."""
    scene = _Scene(trajectory, view, scale)
    k = range(len(trajectory.times))[k]
    fig, ax = _figure(scene, figsize)
    scene.setup(ax)
    scene.draw(ax, k, forces, friction, velocities)
    _legend(ax, trajectory, forces, velocities)
    ax.set_title(f"t = {trajectory.times[k]:.3f} s")
    if out is None:
        return fig
    fig.savefig(out)
    _pyplot().close(fig)
    return Path(out)


def animate(
    trajectory: Trajectory,
    out="trajectory.gif",
    fps: float = 20,
    view: str = "3d",
    speed: float = 1.0,
    max_frames: int = 300,
    forces: bool = True,
    friction: bool = True,
    velocities: bool = True,
    scale: dict | None = None,
    figsize: tuple[float, float] = (6.5, 5.0),
):
    """Animate the run: bodies (Box and Sphere shapes; others as their centre of mass), the
    planes, each active contact's point coloured by its mode, its force arrow (scaled to the
    largest force of the run unless ``scale["force"]`` m/N is given), its friction set at 1 N
    of normal force (``scale["friction"]`` m per N, the cone's true opening angle) and each
    body's velocity arrow (``scale["velocity"]`` m per m/s).

    ``view``: "3d" (matplotlib 3D) or a side view on two world axes ("xz", "xy", "yz").
    ``fps``: frames per second of the film, ``speed``: simulated seconds per second of film;
    the first frame is t = 0 and the last the final time. ``out``: a .gif (pillow) or .mp4
    (ffmpeg) file, whose path is returned; None returns the matplotlib FuncAnimation (shown
    in a notebook by ``IPython.display.HTML(anim.to_jshtml())``). Manipulator links are not
    drawn."""
    plt = _pyplot()
    from matplotlib.animation import FFMpegWriter, FuncAnimation, PillowWriter

    suffix = None if out is None else Path(out).suffix.lower()
    if suffix not in (None, ".gif", ".mp4"):
        raise ContactModelError(
            f"animate writes .gif or .mp4, or returns the animation for out=None (got '{out}')"
        )
    scene = _Scene(trajectory, view, scale)
    frames = frame_indices(trajectory, fps, speed, max_frames)
    fig, ax = _figure(scene, figsize)
    view_angles = (ax.elev, ax.azim) if scene.axes is None else None

    def draw(k: int):
        ax.cla()
        scene.setup(ax)
        if view_angles is not None:
            ax.view_init(*view_angles)
        scene.draw(ax, int(k), forces, friction, velocities)
        _legend(ax, trajectory, forces, velocities)
        ax.set_title(f"t = {trajectory.times[k]:.3f} s")
        return []

    anim = FuncAnimation(fig, draw, frames=frames, interval=1000.0 / fps, blit=False)
    if out is None:
        fig.canvas.draw()  # the first frame, so the animation counts as shown where it is not played
        return anim
    out = Path(out)
    writer = FFMpegWriter(fps=fps) if suffix == ".mp4" else PillowWriter(fps=fps)
    anim.save(out, writer=writer)
    plt.close(fig)
    return out


def indeterminate_steps(trajectory: Trajectory, max_checks: int = 50) -> np.ndarray:
    """(N,) int: per step, the internal-force directions among the contacts that carry load
    (see :mod:`contactmodel.analysis.indeterminate`; > 0: the forces shown are one of many).
    Checked once per run of steps with the same loaded contacts in the same modes (at most
    ``max_checks`` runs, the later ones -1: not checked); -1 everywhere when the step models
    were not kept."""
    from contactmodel.analysis.indeterminate import internal_force_directions, loaded_block

    n = trajectory.n_steps
    out = np.full(max(n, 0), -1, dtype=int)
    names = list(trajectory.impulses)
    key_before, value, checks = None, -1, 0
    for k in range(n):
        forces = {name: trajectory.impulses[name][k] for name in names}
        modes = {name: str(trajectory.modes[name][k]) for name in names}
        loaded = tuple(
            (name, modes[name].split(" ")[0])
            for name in names
            if np.isfinite(forces[name][0])
            and forces[name][0] > 1e-12
            and not modes[name].startswith("separate")
        )
        if loaded != key_before:
            key_before, value = loaded, -1
            if len(loaded) > 1 and checks < max_checks:
                checks += 1
                try:
                    asm = trajectory.step_model(k).assembly
                except ContactModelError:
                    return out
                value = internal_force_directions(
                    loaded_block(asm.G, asm.contact_rows, forces, modes, load_tol=1e-12)
                )
            elif len(loaded) <= 1:
                value = 0
        out[k] = value
    return out


def plot(trajectory: Trajectory, out=None):
    """Three panels against time: kinetic, potential and total energy (J); each contact's mean
    normal force p_n / dt (N), shaded where the loaded contacts are statically
    indeterminate (the forces drawn are then one of many; see :func:`indeterminate_steps`);
    each contact's mode (a row per contact, one colour per mode). Returns the figure, or writes
    it to ``out`` (.png/.svg) and returns the path."""
    plt = _pyplot()
    from contactmodel.analysis.indeterminate import note

    fig, (ax_e, ax_f, ax_m) = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
    t = trajectory.times
    ax_e.plot(t, trajectory.kinetic, label="kinetic")
    ax_e.plot(t, trajectory.potential - trajectory.potential[0], label="potential - initial")
    ax_e.plot(t, trajectory.energy - trajectory.potential[0], label="total - initial potential")
    ax_e.set_ylabel("energy (J)")
    ax_e.legend(fontsize=7)
    ts = t[:-1] if len(t) > 1 else t[:0]
    for name in trajectory.impulses:
        ax_f.plot(
            ts[: len(trajectory.impulses[name])], trajectory.contact_forces(name)[:, 0], lw=1, label=name
        )
    loose = indeterminate_steps(trajectory)
    if np.any(loose > 0):
        ax_f.fill_between(
            ts[: len(loose)],
            0,
            1,
            where=loose > 0,
            step="post",
            color="#ffd8a8",
            alpha=0.6,
            transform=ax_f.get_xaxis_transform(),
            label="not unique",
        )
        ax_f.set_title(note(int(loose.max())), fontsize=7, wrap=True)
    ax_f.set_ylabel("normal force p_n/dt (N)")
    if len(trajectory.impulses) <= 8:
        ax_f.legend(fontsize=7)
    modes = sorted({m.split(" ")[0] for arr in trajectory.modes.values() for m in arr if m})
    for row, name in enumerate(trajectory.impulses):
        marks = np.array([m.split(" ")[0] for m in trajectory.modes[name]])
        for m in modes:
            sel = marks == m
            ax_m.scatter(ts[: len(marks)][sel], np.full(sel.sum(), row), s=4, color=mode_colour(m))
    for m in modes:
        ax_m.scatter([], [], s=4, color=mode_colour(m), label=m)
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
