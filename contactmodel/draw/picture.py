""":func:`draw`: a system, or a solved problem, as one picture: the scene is resolved and scaled
(:mod:`~contactmodel.draw.scene`), its elements drawn (:mod:`~contactmodel.draw.elements`), the
labels placed (:mod:`~contactmodel.draw.labels`) and the axes framed
(:mod:`~contactmodel.draw.framing`)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from contactmodel.draw.canvas import DPI, SIZE, VIEW_3D, Canvas, save
from contactmodel.draw.elements import (
    draw_accelerations,
    draw_bodies,
    draw_body_forces,
    draw_contact,
    draw_ground,
    draw_manipulators,
    draw_velocities,
)
from contactmodel.draw.framing import add_legend, caption, default_title, finish_axes
from contactmodel.draw.labels import place_labels, prepare_transforms, text_renderer
from contactmodel.draw.record import DRAWN, Drawn
from contactmodel.draw.scene import (
    Scene,
    body_forces,
    body_size,
    plane,
    plane_basis,
    resolve,
    scales,
    scene_points,
)
from contactmodel.errors import DrawingError
from contactmodel.formulation import Problem
from contactmodel.friction import FrictionLaw
from contactmodel.solution import Solution
from contactmodel.system import System


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
    system, laws, solution = resolve(target, solution, friction)
    flat, plane_normal = plane(system)
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

    pts = scene_points(system, guess_shapes)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    size = max(float(np.max(hi - lo)), 0.2)
    results = {c.name: c for c in solution.contacts} if solution is not None else {}
    forces = [np.asarray(system.contact(n).frame).T @ np.asarray(r.force[:3]) for n, r in results.items()]
    forces += [v for b in system.bodies for v in body_forces(system, b).values()]
    accels = [np.asarray(b.linear_acceleration) for b in (solution.bodies if solution else [])]
    vels = [b.velocity for b in system.bodies]
    sc = scales(scale, forces, accels, vels, size, body_size(system, guess_shapes, size))

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
        basis = plane_basis(system, plane_normal)
        look = np.cross(basis[0], basis[1])
    else:
        basis = np.eye(3)
        elev, azim = np.radians(VIEW_3D)
        look = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    canvas = Canvas(ax, planar, np.zeros(3), basis, look)
    scene = Scene(
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
    draw_ground(canvas, scene)
    draw_bodies(canvas, scene, guess_shapes)
    draw_manipulators(canvas, scene)
    for contact in system.contacts:
        extra.extend(draw_contact(canvas, scene, contact, fig))
    if solution is not None:
        extra.extend(draw_accelerations(canvas, scene, fig))
    extra.extend(draw_velocities(canvas, scene, fig))
    extra.extend(draw_body_forces(canvas, scene, fig))

    allpts = np.vstack([pts, *[np.atleast_2d(e) for e in extra]])
    finish_axes(canvas, scene, allpts)
    renderer = text_renderer(fig)
    prepare_transforms(canvas)
    place_labels(canvas, renderer)
    add_legend(ax, scene, renderer, own_figure)
    ax.set_title(title if title is not None else default_title(scene), fontsize=10)
    fig.text(
        0.01,
        0.01,
        "\n".join(textwrap.wrap(caption(scene), 150)),
        fontsize=7,
        color="0.3",
        ha="left",
        va="bottom",
    )
    if out is not None:
        save(fig, out)
    return fig
