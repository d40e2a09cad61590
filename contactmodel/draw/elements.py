"""The scene's elements on a canvas: the ground, bodies, manipulator links and joint axes, each
contact's frame, friction set, force and torsional moment, and the bodies' accelerations,
velocities and applied forces. Every arrow is recorded (:mod:`contactmodel.draw.record`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from contactmodel.draw.canvas import COLOURS, NOISE, TINY, Canvas, format_vector, unit
from contactmodel.draw.record import DRAWN, DrawnSet, record
from contactmodel.draw.scene import Scene, body_forces, shape_points
from contactmodel.friction import FrictionLaw
from contactmodel.friction.sets import Outline
from contactmodel.shapes import Box, Cylinder
from contactmodel.system import Body, Contact, Ground, LinkRef


def friction_set(law: FrictionLaw | None) -> Outline | None:
    """The outline of ``law``'s friction set at unit normal force
    (:meth:`~contactmodel.friction.sets.FrictionSet.outline`), or None when there is no law or
    the law does not describe its set (it is then drawn as its class name)."""
    if law is None or not law.describes_set:
        return None
    return law.friction_set().outline()


def draw_ground(canvas: Canvas, scene: Scene) -> None:
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


def draw_bodies(canvas: Canvas, scene: Scene, guess_shapes: bool) -> None:
    for body in scene.system.bodies:
        shape, parts = shape_points(body, scene.system if guess_shapes else None)
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


def draw_manipulators(canvas: Canvas, scene: Scene) -> None:
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


def _body_point(body) -> np.ndarray | None:
    if isinstance(body, Body):
        return body.position
    if isinstance(body, LinkRef):
        return body.manipulator.link_frames()[body.index][1]
    return None


def _label_direction(scene: Scene, contact: Contact) -> np.ndarray:
    ref = _body_point(contact.body_a)
    n = contact.normal
    d = np.zeros(3) if ref is None else contact.point - ref
    d = d - (d @ n) * n
    if np.linalg.norm(d) < 1e-9:
        d = -contact.tangent
    return unit(d)


def _mode_text(result) -> str:
    if result is None:
        return ""
    if result.mode == "slide" and result.direction is not None:
        d = ", ".join(f"{0.0 if abs(x) < 1e-9 else x:.2g}" for x in result.direction[:2])
        return f"slide, dir (t,o)=({d})"
    return result.mode


def draw_contact(canvas: Canvas, scene: Scene, contact: Contact, fig: Figure) -> list[np.ndarray]:
    p, (n, t, o) = contact.point, contact.frame
    axis_len = min(0.1 * scene.size, 0.6 * scene.set_height)
    head = 0.25 * axis_len
    for key, vec in zip("nto", (n, t, o)):
        arts = canvas.arrow(
            p, p + axis_len * vec, COLOURS[key], head, lw=1.2, gid=f"frame-{key}:{contact.name}"
        )
        record(fig, f"frame-{key}", contact.name, p, vec, axis_len, arts)
    extra = [p + axis_len * v for v in (n, t, o)]
    law = scene.laws.get(contact.name)
    fset = friction_set(law)
    L = scene.set_height
    if fset is not None and np.max(np.abs(fset.outline), initial=0.0) > TINY:
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


def _draw_contact_forces(canvas: Canvas, scene: Scene, contact: Contact, result, fig: Figure) -> list:
    p, frame = contact.point, contact.frame
    force = np.asarray(result.force, dtype=float)
    world = frame.T @ force[:3]
    friction = frame[1:].T @ force[1:3]
    s = scene.force_scale
    head = 0.04 * scene.size
    arts = canvas.arrow(p, p + s * world, COLOURS["force"], head, lw=2.0, gid=f"force:{contact.name}")
    record(fig, "force", contact.name, p, world, s, arts)
    arts = canvas.arrow(
        p, p + s * friction, COLOURS["friction"], head, lw=1.8, gid=f"friction:{contact.name}"
    )
    record(fig, "friction", contact.name, p, friction, s, arts)
    extra = [p + s * world]
    if contact.torsion and len(force) > 3:
        fset = friction_set(scene.laws.get(contact.name))
        limit = fset.torsion if fset is not None and fset.torsion else None
        cn = max(force[0], TINY)
        frac = abs(force[3]) / (limit * cn) if limit else min(1.0, abs(force[3]) / (abs(force[3]) + 1.0))
        sweep = np.sign(force[3]) * 1.5 * np.pi * min(frac, 1.0)
        radius = 0.45 * scene.set_height
        arc = _arc_points(p + 0.1 * scene.set_height * contact.normal, frame[1], frame[2], radius, 0.0, sweep)
        line = canvas.line(arc, color=COLOURS["moment"], lw=1.8)
        line.set_gid(f"moment:{contact.name}")
        arts = [line]
        if abs(sweep) > 1e-6:
            d = unit(arc[-1] - arc[-2])
            arts.append(canvas.head(arc[-1], d, 0.3 * radius, COLOURS["moment"], f"moment:{contact.name}"))
        record(fig, "moment", contact.name, p, [force[3]], radius, arts)
        extra.append(arc)
    return extra


def draw_accelerations(canvas: Canvas, scene: Scene, fig: Figure) -> list:
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
        record(fig, "acceleration", res.name, p, a, s, arts)
        still = np.linalg.norm(a) <= NOISE
        text = "a = 0" if still else f"a = {format_vector(a)} m/s²"
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


def draw_velocities(canvas: Canvas, scene: Scene, fig: Figure) -> list:
    extra = []
    s = scene.velocity_scale
    for body in scene.system.bodies:
        v = body.velocity
        if np.linalg.norm(v) <= TINY:
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
        record(fig, "velocity", body.name, p, v, s, arts)
        canvas.text(p + s * v, "v", v, fontsize=7, color=COLOURS["velocity"])
        extra.append(p + s * v)
    return extra


def draw_body_forces(canvas: Canvas, scene: Scene, fig: Figure) -> list:
    extra = []
    s = scene.force_scale
    for body in scene.system.bodies:
        p = body.position
        for kind, f in body_forces(scene.system, body).items():
            if np.linalg.norm(f) <= TINY:
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
            record(fig, kind, body.name, p, f, s, arts)
            canvas.text(p + s * f, f"F = {np.linalg.norm(f):.3g} N", f, fontsize=7, color=COLOURS[kind])
            extra.append(p + s * f)
    return extra


def _up(scene: Scene) -> np.ndarray:
    g = np.asarray(scene.system.gravity, dtype=float)
    return -unit(g) if np.linalg.norm(g) > TINY else np.array([0.0, 0.0, 1.0])
