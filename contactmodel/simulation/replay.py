"""An interactive 3D replay of a :class:`~contactmodel.simulation.Trajectory` in one HTML page.

:func:`to_html` writes a self-contained page (plotly's JavaScript embedded, so it works
offline): the bodies (Box and Sphere shapes as meshes, others as markers), the planes, each
active contact's point coloured by its mode and its force arrow scaled to the largest force of
the run, with a time slider and play / pause buttons. Needs plotly (extra ``viz``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from contactmodel.errors import ContactModelError
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation.collision import box_vertices
from contactmodel.simulation.pictures import (
    COLOURS,
    Trajectory,
    frame_indices,
    mode_colour,
    rotation,
    world_forces,
)

#: triangles of a box mesh over ``box_vertices``' corner order (index = 4 sx + 2 sy + sz)
BOX_TRIANGLES = np.array(
    [
        [0, 1, 3],
        [0, 3, 2],
        [4, 6, 7],
        [4, 7, 5],
        [0, 4, 5],
        [0, 5, 1],
        [2, 3, 7],
        [2, 7, 6],
        [0, 2, 6],
        [0, 6, 4],
        [1, 5, 7],
        [1, 7, 3],
    ]
)


def _plotly():
    try:
        import plotly.graph_objects as go
    except ImportError:
        raise ContactModelError("the HTML replay needs plotly: pip install 'contactmodel[viz]'") from None
    return go


def _sphere_mesh(count: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """A unit UV sphere: (k, 3) points and (l, 3) triangles."""
    theta = np.linspace(0, np.pi, count)
    phi = np.linspace(0, 2 * np.pi, 2 * count, endpoint=False)
    pts = [[0.0, 0.0, 1.0]]
    for th in theta[1:-1]:
        pts += [[np.sin(th) * np.cos(p), np.sin(th) * np.sin(p), np.cos(th)] for p in phi]
    pts.append([0.0, 0.0, -1.0])
    ring, rings = len(phi), count - 2
    tris = [[0, 1 + j, 1 + (j + 1) % ring] for j in range(ring)]
    for r in range(rings - 1):
        a, b = 1 + r * ring, 1 + (r + 1) * ring
        for j in range(ring):
            jn = (j + 1) % ring
            tris += [[a + j, b + j, b + jn], [a + j, b + jn, a + jn]]
    last, base = len(pts) - 1, 1 + (rings - 1) * ring
    tris += [[last, base + (j + 1) % ring, base + j] for j in range(ring)]
    return np.array(pts), np.array(tris)


class _Bodies:
    """Mesh vertices of every body at state k."""

    def __init__(self, trajectory: Trajectory) -> None:
        self.traj = trajectory
        self.shapes = [trajectory.shapes.get(name) for name in trajectory.body_names]
        self.sphere = _sphere_mesh()

    def vertices(self, b: int, k: int) -> np.ndarray:
        shape = self.shapes[b]
        x, R = self.traj.positions[k, b], rotation(self.traj.quaternions[k, b])
        if isinstance(shape, Box):
            return box_vertices(shape.size, x, R)
        if isinstance(shape, Sphere):
            return x + shape.radius * self.sphere[0] @ R.T
        return x[None, :]

    def triangles(self, b: int) -> np.ndarray | None:
        shape = self.shapes[b]
        if isinstance(shape, Box):
            return BOX_TRIANGLES
        if isinstance(shape, Sphere):
            return self.sphere[1]
        return None


def _contacts(trajectory: Trajectory, k: int, scale: float):
    """State k's contact points (x, y, z, colours, names) and force segments (x, y, z with
    None between arrows)."""
    step = min(k, trajectory.n_steps - 1)
    px, py, pz, colours, names = [], [], [], [], []
    fx, fy, fz = [], [], []
    if step < 0:
        return (px, py, pz, colours, names), (fx, fy, fz)
    for name in trajectory.impulses:
        points = trajectory.contact_points.get(name)
        if points is None or not np.all(np.isfinite(points[step])):
            continue
        p = points[step]
        mode = str(trajectory.modes[name][step])
        px.append(p[0])
        py.append(p[1])
        pz.append(p[2])
        colours.append(mode_colour(mode))
        names.append(f"{name}: {mode or 'active'}")
        force = world_forces(trajectory, name)[step]
        if np.all(np.isfinite(force)) and scale > 0:
            tip = p + scale * force
            fx += [p[0], tip[0], None]
            fy += [p[1], tip[1], None]
            fz += [p[2], tip[2], None]
    return (px, py, pz, colours, names), (fx, fy, fz)


def figure(trajectory: Trajectory, fps: float = 20, speed: float = 1.0, max_frames: int = 150):
    """The plotly Figure of the replay (see :func:`to_html`): one frame per state index of
    :func:`~contactmodel.simulation.pictures.frame_indices`, the last at the final time."""
    go = _plotly()
    traj = trajectory
    frames_k = frame_indices(traj, fps, speed, max_frames)
    bodies = _Bodies(traj)
    P = traj.positions.reshape(-1, 3)
    pad = max(
        [
            0.1,
            *[
                float(np.max(getattr(s, "size", [2 * getattr(s, "radius", 0.05)])))
                for s in bodies.shapes
                if s is not None
            ],
        ]
    )
    lo, hi = P.min(axis=0) - pad, P.max(axis=0) + pad
    centre, half = (lo + hi) / 2, max(float(np.max(hi - lo)) / 2, 0.1)
    lo, hi = centre - half, centre + half
    peak = max(
        [float(np.nanmax(np.linalg.norm(world_forces(traj, n), axis=-1), initial=0.0)) for n in traj.impulses]
        + [0.0]
    )
    scale = 0.3 * 2 * half / peak if peak > 0 else 0.0

    def dynamic(k: int) -> list:
        data = []
        for b, name in enumerate(traj.body_names):
            v = bodies.vertices(b, k)
            tris = bodies.triangles(b)
            if tris is None:
                data.append(go.Scatter3d(x=v[:, 0], y=v[:, 1], z=v[:, 2], mode="markers", name=name))
            else:
                data.append(
                    go.Mesh3d(
                        x=v[:, 0],
                        y=v[:, 1],
                        z=v[:, 2],
                        i=tris[:, 0],
                        j=tris[:, 1],
                        k=tris[:, 2],
                        color="#9ecae1",
                        opacity=0.6,
                        flatshading=True,
                        name=name,
                        showlegend=True,
                    )
                )
        (px, py, pz, colours, names), (fx, fy, fz) = _contacts(traj, k, scale)
        data.append(
            go.Scatter3d(
                x=px,
                y=py,
                z=pz,
                mode="markers",
                marker={"size": 5, "color": colours, "line": {"color": "black", "width": 1}},
                text=names,
                hoverinfo="text",
                name="contacts (colour: mode)",
            )
        )
        data.append(
            go.Scatter3d(
                x=fx,
                y=fy,
                z=fz,
                mode="lines",
                line={"color": COLOURS["force"], "width": 5},
                name="contact forces",
            )
        )
        return data

    static = []
    for plane in traj.planes:
        frame = plane.frame
        c = centre - plane.distance(centre[None, :])[0] * frame[0]
        quad = np.array(
            [c + half * (a * frame[1] + b * frame[2]) for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        )
        static.append(
            go.Mesh3d(
                x=quad[:, 0],
                y=quad[:, 1],
                z=quad[:, 2],
                i=[0, 0],
                j=[1, 2],
                k=[2, 3],
                color=COLOURS["plane"],
                opacity=0.35,
                name=plane.name,
                hoverinfo="name",
            )
        )
    first = dynamic(int(frames_k[0]))
    moving = list(range(len(first)))
    fig = go.Figure(data=first + static)
    fig.frames = [
        go.Frame(data=dynamic(int(k)), traces=moving, name=f"{traj.times[k]:.3f}") for k in frames_k
    ]
    step_ms = 1000.0 / fps
    play = {
        "frame": {"duration": step_ms, "redraw": True},
        "fromcurrent": True,
        "transition": {"duration": 0},
    }
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    fig.update_layout(
        title=f"{', '.join(traj.body_names)}: {traj.n_steps} steps of {traj.dt:g} s ({traj.solver})",
        scene={
            "xaxis": {"range": [lo[0], hi[0]], "title": "x (m)"},
            "yaxis": {"range": [lo[1], hi[1]], "title": "y (m)"},
            "zaxis": {"range": [lo[2], hi[2]], "title": "z (m)"},
            "aspectmode": "cube",
        },
        updatemenus=[
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.0,
                "y": 0.0,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 40},
                "buttons": [
                    {"label": "play", "method": "animate", "args": [None, play]},
                    {"label": "pause", "method": "animate", "args": [[None], pause]},
                ],
            }
        ],
        sliders=[
            {
                "active": 0,
                "x": 0.15,
                "len": 0.85,
                "y": 0.0,
                "yanchor": "top",
                "currentvalue": {"prefix": "t = ", "suffix": " s"},
                "steps": [
                    {"label": f.name, "method": "animate", "args": [[f.name], pause]} for f in fig.frames
                ],
            }
        ],
        margin={"l": 0, "r": 0, "t": 40, "b": 80},
        legend={"x": 0.0, "y": 1.0},
    )
    return fig


def to_html(trajectory: Trajectory, path, fps: float = 20, speed: float = 1.0, max_frames: int = 150) -> Path:
    """Write the replay to ``path`` (.html): one self-contained page, plotly's JavaScript
    embedded (works offline; about 5 MB). ``fps`` / ``speed`` / ``max_frames`` as in
    :func:`~contactmodel.simulation.pictures.animate`. Returns the path."""
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ContactModelError(f"to_html writes an .html file (got '{path}')")
    fig = figure(trajectory, fps=fps, speed=speed, max_frames=max_frames)
    fig.write_html(path, include_plotlyjs=True, full_html=True, auto_play=False)
    return path


__all__ = ["figure", "to_html"]
