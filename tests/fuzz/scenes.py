"""Random valid contact scenes, built through the public API, and an independent check of answers.

A scene is 1-4 boxes, each on the ground or on the box before it (stacks), 1-8 contacts per box on
its bottom face, the whole scene possibly tilted (an inclined ground; gravity stays -9.81 e_z),
each box at rest or sliding with a horizontal velocity in the tilted frame, with an external
wrench or none. Every contact gets a friction law (one law for all, or a mix). Angular velocities
are zero, so a material point's acceleration is ``a + alpha x r`` exactly.

:func:`draw_scene` takes a :class:`Draw` (random numbers from numpy or from hypothesis), so the
test suite and ``benchmarks/fuzz_run.py`` draw from one generator. :func:`check_answer` verifies a
solved :class:`contactmodel.Solution` from the scene's declarations alone: Newton-Euler balance of
every body (masses, inertias, points, frames of the scene, not the package's assembly), normal
complementarity of accelerations computed from the body accelerations, the force inside the
law's set, friction opposing sliding (Coulomb) or, at rolling contacts, the maximum-work
principle ``c_f . a_T = min over the set of f . a_T``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

import contactmodel as cm

GRAVITY = np.array([0.0, 0.0, -9.81])
LAWS = ("frictionless", "pyramid", "cone", "cone-soc", "polygonal", "planar")
#: the cone in the MNCP form fixed (not drawn: the form a rerun of a scene's cones may be given)
CONE_NAMES = ("cone", "cone-soc", "cone-mncp")
#: laws of soft-finger contacts (declared with ``torsion=True``: a fourth row, the moment c_r
#: about the normal against the twisting acceleration a_r); kept out of LAWS so that the scenes
#: drawn from LAWS by a seed stay the same
TORSION_LAWS = ("ellipsoid", "elliptic-torsion")
ALL_LAWS = LAWS + TORSION_LAWS


class Draw(Protocol):
    """The random numbers a scene is made of."""

    def uniform(self, lo: float, hi: float) -> float: ...
    def integer(self, lo: int, hi: int) -> int: ...  # inclusive bounds
    def pick(self, options: tuple | list): ...


class NumpyDraw:
    """A :class:`Draw` from a seeded numpy Generator (the benchmark)."""

    def __init__(self, seed: int | list[int]) -> None:
        self.rng = np.random.default_rng(seed)

    def uniform(self, lo: float, hi: float) -> float:
        return float(self.rng.uniform(lo, hi))

    def integer(self, lo: int, hi: int) -> int:
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]


@dataclass
class LawSpec:
    """A friction law by name and parameters (``k``, ``offset`` for the polygon; the semi-axes
    ``e`` = (e_t, e_o, e_r) of the torsion laws, e_r a length in m; ``form`` of the torsion laws:
    the MNCP, as the fuzz sets were drawn with, ``"soc"``, or None for the automatic form)."""

    name: str
    mu: float = 0.0
    k: int = 8
    offset: float = 0.0
    e: tuple[float, float, float] = (1.0, 1.0, 1.0)
    form: str | None = "mncp"

    @property
    def torsion(self) -> bool:
        return self.name in TORSION_LAWS

    def make(self) -> cm.FrictionLaw:
        if self.name == "frictionless":
            return cm.Frictionless()
        if self.name == "pyramid":
            return cm.Pyramid(self.mu)
        if self.name == "cone":
            return cm.CoulombCone(self.mu)
        if self.name == "cone-soc":
            return cm.CoulombCone(self.mu, form="soc")
        if self.name == "cone-mncp":
            return cm.CoulombCone(self.mu, form="mncp")
        if self.name == "polygonal":
            return cm.Polygonal(self.mu, self.k, self.offset)
        if self.name == "planar":
            return cm.Planar(self.mu)
        if self.name == "ellipsoid":
            return cm.Ellipsoid(self.mu, *self.e, form=self.form)
        if self.name == "elliptic-torsion":
            return cm.EllipticTorsion(self.mu, *self.e, form=self.form)
        raise AssertionError(self.name)


@dataclass
class BoxSpec:
    name: str
    mass: float
    inertia: np.ndarray  # body frame
    position: np.ndarray  # world
    rotation: np.ndarray  # body to world
    velocity: np.ndarray  # world
    wrench: np.ndarray  # (force, torque about the centre of mass), world


@dataclass
class ContactSpec:
    name: str
    body_a: int  # index of the box the normal points into
    body_b: int  # index of the other box, -1 for the ground
    point: np.ndarray
    normal: np.ndarray
    tangent: np.ndarray
    law: LawSpec

    @property
    def frame(self) -> np.ndarray:
        """Rows (n, t, o = n x t)."""
        return np.vstack([self.normal, self.tangent, np.cross(self.normal, self.tangent)])


@dataclass
class Scene:
    boxes: list[BoxSpec] = field(default_factory=list)
    contacts: list[ContactSpec] = field(default_factory=list)
    form: str = "reduced"
    rolling_tol: float = 1e-9

    @property
    def laws(self) -> set[str]:
        return {c.law.name for c in self.contacts}

    def system(self) -> cm.System:
        """The scene declared through the public API."""
        s = cm.System(rolling_tol=self.rolling_tol)
        for b in self.boxes:
            s.add_body(
                b.name, b.mass, b.inertia, position=b.position, orientation=b.rotation, velocity=b.velocity,
                wrench=b.wrench,
            )  # fmt: skip
        for c in self.contacts:
            other = "ground" if c.body_b < 0 else self.boxes[c.body_b].name
            s.add_contact(
                self.boxes[c.body_a].name, other, c.point, c.normal, tangent=c.tangent, friction=c.law.make(),
                name=c.name, torsion=c.law.torsion,
            )  # fmt: skip
        return s

    def problem(self) -> cm.Problem:
        return cm.formulate(self.system(), form=self.form)


def _rotation(axis: np.ndarray, angle: float) -> np.ndarray:
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * k @ k


def _law(d: Draw, name: str) -> LawSpec:
    mu = 0.0 if name == "frictionless" else d.pick((0.0, d.uniform(0.05, 1.2)))
    if name == "polygonal":
        return LawSpec(name, mu, d.integer(3, 12), d.pick((0.0, d.uniform(0.0, math.pi))))
    if name in TORSION_LAWS:
        return LawSpec(name, mu, e=(d.uniform(0.3, 2.0), d.uniform(0.3, 2.0), d.uniform(0.01, 0.5)))
    return LawSpec(name, mu)


def draw_scene(d: Draw, *, max_boxes: int = 4, max_contacts: int = 8, laws: tuple[str, ...] = LAWS) -> Scene:
    """A random valid scene (see the module docstring)."""
    tilt = d.pick((0.0, d.uniform(0.0, 0.7)))
    R = _rotation(np.array([math.cos(a := d.uniform(0, 2 * math.pi)), math.sin(a), 0.0]), tilt)
    R = R @ _rotation(np.array([0.0, 0.0, 1.0]), d.uniform(0, 2 * math.pi))  # yaw, then tilt
    normal = R[:, 2]
    one_law = d.pick((None, d.pick(laws)))  # None: each contact draws its own law
    scene = Scene(form=d.pick(("reduced", "sparse")))
    # per box, in the tilted frame: (x offset, bottom height, size, velocity)
    local: list[tuple[float, float, np.ndarray, np.ndarray]] = []
    for i in range(d.integer(1, max_boxes)):
        size = np.array([d.uniform(0.1, 2.0), d.uniform(0.1, 2.0), d.uniform(0.1, 2.0)])
        mass = d.uniform(0.1, 10.0)
        on = -1 if i == 0 or d.pick((True, False)) else i - 1
        x = 10.0 * i if on < 0 else local[on][0]
        bottom = 0.0 if on < 0 else local[on][1] + local[on][2][2]
        base_v = np.zeros(3) if on < 0 else local[on][3]
        slide = d.pick((False, True))
        v = base_v + (np.array([d.uniform(-2, 2), d.uniform(-2, 2), 0.0]) if slide else 0.0)
        local.append((x, bottom, size, v))
        centre = np.array([x, 0.0, bottom + size[2] / 2])
        wrench = np.zeros(6)
        if d.pick((False, True)):
            scale = mass * 9.81
            wrench = np.array(
                [d.uniform(-scale, scale) for _ in range(3)]
                + [d.uniform(-scale, scale) * 0.1 for _ in range(3)]
            )
        scene.boxes.append(
            BoxSpec(f"box{i}", mass, cm.inertia.box(mass, size), R @ centre, R.copy(), R @ v, wrench)
        )
        foot = size if on < 0 else np.minimum(size, local[on][2])
        for j in range(d.integer(1, max_contacts)):
            p = np.array([x + d.uniform(-0.5, 0.5) * foot[0], d.uniform(-0.5, 0.5) * foot[1], bottom])
            angle = d.uniform(0, 2 * math.pi)
            t = R @ np.array([math.cos(angle), math.sin(angle), 0.0])
            law = _law(d, one_law or d.pick(laws))
            scene.contacts.append(ContactSpec(f"b{i}c{j}", i, on, R @ p, normal.copy(), t, law))
    return scene


# -- the independent check ------------------------------------------------------------------------


@dataclass
class Verdict:
    ok: bool
    worst: str = ""
    value: float = 0.0


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.cross(a, b)


def check_answer(scene: Scene, sol: cm.Solution, tol: float = 1e-6) -> Verdict:
    """Verify a solved answer from the declarations alone; ``tol`` is relative to the magnitude
    of the terms each test adds up. Returns the worst violated condition."""
    worst = Verdict(True)

    def report(name: str, violation: float, scale: float) -> None:
        nonlocal worst
        rel = violation / max(scale, 1e-300)
        if rel > tol and rel > worst.value:
            worst = Verdict(False, name, rel)

    bodies = {b.name: b for b in sol.bodies}
    forces = {c.name: np.asarray(c.force[:3], float) for c in sol.contacts}
    # the moment about the normal of a torsion contact (0 for the others)
    moments = {c.name: float(c.force[3]) if len(c.force) > 3 else 0.0 for c in sol.contacts}
    lin = [np.asarray(bodies[b.name].linear_acceleration) for b in scene.boxes]
    ang = [np.asarray(bodies[b.name].angular_acceleration) for b in scene.boxes]
    # Newton-Euler: m a = m g + f + sum of contact forces; I_w alpha = tau + sum r x f (omega = 0)
    net_f = [b.mass * GRAVITY + b.wrench[:3] for b in scene.boxes]
    net_t = [b.wrench[3:].copy() for b in scene.boxes]
    mag_f = [b.mass * 9.81 + np.abs(b.wrench[:3]).sum() for b in scene.boxes]
    mag_t = [np.abs(b.wrench[3:]).sum() for b in scene.boxes]
    for c in scene.contacts:
        f = c.frame.T @ forces[c.name]
        for k, sign in ((c.body_a, 1.0), (c.body_b, -1.0)):
            if k < 0:
                continue
            r = c.point - scene.boxes[k].position
            net_f[k] += sign * f
            net_t[k] += sign * (_cross(r, f) + moments[c.name] * c.normal)
            mag_f[k] += np.abs(f).sum()
            mag_t[k] += (
                np.abs(_cross(r, f)).sum() + np.linalg.norm(r) * np.abs(f).sum() + abs(moments[c.name])
            )
    for k, b in enumerate(scene.boxes):
        I_w = b.rotation @ b.inertia @ b.rotation.T
        report(f"force balance {b.name}", np.abs(b.mass * lin[k] - net_f[k]).max(), mag_f[k])
        report(f"torque balance {b.name}", np.abs(I_w @ ang[k] - net_t[k]).max(), mag_t[k] + 1e-12 * mag_f[k])
    # contact conditions from the accelerations computed here, relative to the scene's scales
    fs = max(sum(mag_f), 1e-300)
    a_scale = max(max((np.abs(x).sum() for x in lin), default=0.0), 9.81)
    a_scale += max((np.linalg.norm(x) for x in ang), default=0.0) * max(
        (np.linalg.norm(c.point - scene.boxes[c.body_a].position) for c in scene.contacts), default=0.0
    )
    for c in scene.contacts:
        fr = forces[c.name]
        acc = np.zeros(3)
        vel = np.zeros(3)
        a_r = 0.0  # twisting acceleration n . (alpha_a - alpha_b); the twisting speed is 0 (omega = 0)
        for k, sign in ((c.body_a, 1.0), (c.body_b, -1.0)):
            if k < 0:
                continue
            r = c.point - scene.boxes[k].position
            acc += sign * (lin[k] + _cross(ang[k], r))
            vel += sign * scene.boxes[k].velocity
            a_r += sign * float(c.normal @ ang[k])
        a = c.frame @ acc  # (a_n, a_t, a_o)
        v = c.frame @ vel
        cn = fr[0]
        report(f"{c.name} c_n >= 0", max(-cn, 0.0), fs)
        report(f"{c.name} a_n >= 0", max(-a[0], 0.0), a_scale)
        report(f"{c.name} c_n a_n = 0", abs(cn * a[0]), fs * a_scale)
        mu, law = c.law.mu, c.law.name
        ft = fr[1:3]
        aT = a[1:3]
        vT = v[1:3]
        cn_pos = max(cn, 0.0)
        if law == "frictionless":
            report(f"{c.name} frictionless", np.abs(ft).max(), fs)
            continue
        if law in TORSION_LAWS:
            sliding = float(np.linalg.norm(vT)) > scene.rolling_tol
            _check_torsion(report, c, cn_pos, (ft, moments[c.name]), (aT, a_r), sliding, vT, (fs, a_scale))
            continue
        if law == "planar":
            report(f"{c.name} planar c_o = 0", abs(ft[1]), fs)
            ft, aT, vT = ft[:1], aT[:1], vT[:1]
        speed = float(np.linalg.norm(vT))
        if speed > scene.rolling_tol:
            expect = -mu * cn_pos * vT / speed  # Coulomb: every law slides with the cone's force
            report(f"{c.name} sliding friction", np.abs(ft - expect).max(), fs)
            continue
        # the set, and the support value min over the set of f . a_T
        if law == "pyramid" or law == "planar":
            outside = np.abs(ft).max() - mu * cn_pos
            support = -mu * cn_pos * np.abs(aT).sum()
        elif law in CONE_NAMES:
            outside = np.linalg.norm(ft) - mu * cn_pos
            support = -mu * cn_pos * np.linalg.norm(aT)
        else:  # polygon with vertices mu c_n d_i: inside when every edge's inequality holds
            th = c.law.offset + 2 * math.pi * np.arange(c.law.k) / c.law.k
            D = np.column_stack([np.cos(th), np.sin(th)])
            normals = np.column_stack([np.cos(th + math.pi / c.law.k), np.sin(th + math.pi / c.law.k)])
            outside = (normals @ ft).max() - mu * cn_pos * math.cos(math.pi / c.law.k)
            support = mu * cn_pos * float((D @ aT).min())
        report(f"{c.name} inside the friction set", max(outside, 0.0), fs)
        report(f"{c.name} maximum work", max(float(ft @ aT) - support, 0.0), fs * a_scale)
    return worst


def _check_torsion(report, c: ContactSpec, cn: float, force, acc, sliding: bool, vT, scales) -> None:
    """The soft-finger laws with maximum work (c_n >= 0 given, the twisting speed 0); ``force``
    is ((c_t, c_o), c_r), ``acc`` ((a_t, a_o), a_r), ``scales`` the force and acceleration scales:

    * ``ellipsoid``: the set ``sum_alpha c_alpha^2 / e_alpha^2 <= (mu c_n)^2`` over (t, o, r);
      sliding: ``c_alpha = -mu c_n e_alpha^2 v_alpha / sqrt(sum_beta e_beta^2 v_beta^2)`` (c_r = 0
      since v_r = 0); rolling: ``c . a = min over the set = -mu c_n ||diag(e) a||``;
    * ``elliptic-torsion``: the (t, o) ellipse as above, by its own speed, and the interval
      ``|c_r| <= e_r mu c_n``, rolling (v_r = 0): ``c_r a_r = -e_r mu c_n |a_r|``.
    """
    mu, (e_t, e_o, e_r) = c.law.mu, c.law.e
    (ft, c_r), (aT, a_r), (fs, a_scale) = force, acc, scales
    e2 = np.array([e_t, e_o]) ** 2
    moment_scale = fs * e_r  # c_r / e_r is a force
    if sliding:
        expect = -mu * cn * e2 * vT / math.sqrt(float(e2 @ vT**2))
        report(f"{c.name} sliding friction", np.abs(ft - expect).max(), fs)
        if c.law.name == "ellipsoid":
            report(f"{c.name} sliding moment c_r = 0", abs(c_r), moment_scale)
            return
    if c.law.name == "ellipsoid":
        size = math.sqrt(ft[0] ** 2 / e_t**2 + ft[1] ** 2 / e_o**2 + c_r**2 / e_r**2)
        report(f"{c.name} inside the friction set", max(size - mu * cn, 0.0), fs)
        support = -mu * cn * math.sqrt(float(e2 @ aT**2) + e_r**2 * a_r**2)
        report(f"{c.name} maximum work", max(float(ft @ aT) + c_r * a_r - support, 0.0), fs * a_scale)
        return
    if not sliding:
        size = math.sqrt(ft[0] ** 2 / e_t**2 + ft[1] ** 2 / e_o**2)
        report(f"{c.name} inside the friction set", max(size - mu * cn, 0.0), fs)
        support = -mu * cn * math.sqrt(float(e2 @ aT**2))
        report(f"{c.name} maximum work", max(float(ft @ aT) - support, 0.0), fs * a_scale)
    report(f"{c.name} torsion |c_r| <= e_r mu c_n", max(abs(c_r) - e_r * mu * cn, 0.0), moment_scale)
    report(f"{c.name} torsion maximum work", max(c_r * a_r + e_r * mu * cn * abs(a_r), 0.0), fs * a_scale)


def applicable(problem, wanted) -> list[str]:
    """The solvers among ``wanted`` that are installed and take ``problem``'s numeric form (cone
    blocks, LCP only; enumerate up to size 12), in the order given."""
    from contactmodel import solvers

    mcp = problem.compile().mcp
    out = []
    for name in wanted:
        info = solvers.REGISTRY[name]
        if not info.available()[0]:
            continue
        if (mcp.cones is not None and not info.cones) or (info.lcp_only and not mcp.is_lcp):
            continue
        if name == "enumerate" and mcp.n > 12:
            continue
        out.append(name)
    return out
