"""Seeded instance families for the experiments of the papers the model follows.

``random_boxes(seed, size, mu)``
    Trinkle, Pang, Sudarsky and Lo, "On dynamic multi-rigid-body contact problems with Coulomb friction",
    1997, §6: random "physically meaningful" problems: boxes of random size and mass (0.5 to 5 kg) resting
    on the ground in a row, stacked on each other (with random partial overlap), or pressed side by side,
    some flat (four corner contacts), some tilted onto an edge (two contacts) or a vertex (one contact);
    each box is pushed by a random horizontal force (up to about its weight) and a random moment about z.
    Initial motions are random: a box either moves with its support (rolling contacts) or slides over it in
    a random direction, ground boxes may also spin about z. Gravity 9.81 m/s^2 along -z. Every contact gets
    ``Pyramid(mu)`` (one mu for all contacts, as in the paper).

    The pyramid LCP has 5 rows per rolling contact (c_n, four pyramid multipliers) and one
    per sliding contact (c_n; friction eliminated), so its size is
    ``5 * rolling + sliding``. The generator hits ``size`` exactly (any size >= 1): it adds
    boxes while their contacts fit in the remaining budget and closes with sliding contacts.
    Deterministic in (seed, size).

``scara_problem(seed, sliding, friction)``
    Andreani, Friedlander, Mello and Santos, "Complementarity and equivalent formulations via nonlinear
    programming: numerical results on multi-rigid-body contact problems with Coulomb friction", 2002, §4:
    the fixed two-SCARA grasp of :mod:`contactmodel.models.scara_grasp`, A from its assembly, b drawn
    uniformly in [-5, 5]^6 by ``numpy.random.default_rng(seed)`` (the same b for the sliding and the
    rolling family, as in the paper), mu = (0.1, 0.2); sliding contacts have unit velocity along t
    (the paper's v_i = (0, 1, 0)). Built by ``cm.formulate_from_matrices``. Sizes: 2 (sliding), 10
    (rolling, pyramid LCP), 6 + slacks (rolling, Coulomb cone MNCP).

``rod_cube_system(mu1, mu2, zeta)``
    Trinkle and Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts", §4.1 (Example
    1) from :mod:`contactmodel.models.rod_cube`; ``MU_GRID`` is its 20 values in [0.1, 1.0] and
    ``rod_cube_grid(zeta)`` the 400 (mu1, mu2) cells.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np

import contactmodel as cm
from contactmodel.errors import DeclarationError, FrictionLawError, UnknownNameError
from contactmodel.friction import CoulombCone, FrictionLaw, Pyramid
from contactmodel.models import rod_cube, scara_grasp

G = 9.81
ROLLING_ROWS = 5
SLIDING_ROWS = 1
MUS = tuple(round(0.1 * k, 1) for k in range(1, 11))
MU_GRID = tuple(round(float(m), 6) for m in np.linspace(0.1, 1.0, 20))
SCARA_MU = (0.1, 0.2)


def pyramid_lcp_size(rolling: int, sliding: int) -> int:
    """Rows of the pyramid LCP with ``rolling`` rolling and ``sliding`` sliding contacts."""
    return ROLLING_ROWS * rolling + SLIDING_ROWS * sliding


@dataclass
class _Box:
    name: str
    center: np.ndarray
    half: np.ndarray
    rotation: np.ndarray = field(default_factory=lambda: np.eye(3))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    omega: float = 0.0
    tilted: bool = False
    covered: bool = False
    on_ground: bool = False
    side_taken: bool = False

    def top(self) -> float:
        return float(self.center[2] + self.half[2])

    def point_velocity(self, p: np.ndarray) -> np.ndarray:
        r = p - self.center
        return self.velocity + np.array([-self.omega * r[1], self.omega * r[0], 0.0])


@dataclass
class _Group:
    """Contacts of a new box with one support (``None`` = ground)."""

    support: _Box | None
    points: list[np.ndarray]
    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)


def _rot(axis: str, angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _corners(half: np.ndarray) -> np.ndarray:
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return signs * half


def _tilted(rng: np.random.Generator, k: int) -> np.ndarray:
    """A rotation leaving exactly ``k`` (1 or 2) corners lowest."""
    theta = rng.uniform(0.15, 0.5) * rng.choice([-1, 1])
    if k == 2:
        return _rot("y", theta)
    phi = rng.uniform(0.15, 0.5) * rng.choice([-1, 1])
    return _rot("x", phi) @ _rot("y", theta)


def _lowest(rotation: np.ndarray, half: np.ndarray) -> np.ndarray:
    world = _corners(half) @ rotation.T
    z = world[:, 2]
    return world[z <= z.min() + 1e-9]


class _Builder:
    def __init__(self, seed: int, size: int):
        self.rng = np.random.default_rng([seed, size])
        self.boxes: list[_Box] = []
        self.groups: list[tuple[_Box, _Group]] = []
        self.row_x = 0.0
        self.p_roll = float(self.rng.uniform(0.3, 0.9))
        self.p_spin = float(self.rng.uniform(0.0, 0.6))

    def half(self, cap: np.ndarray | None = None) -> np.ndarray:
        h = self.rng.uniform([0.1, 0.1, 0.05], [0.4, 0.4, 0.3])
        return np.minimum(h, cap) if cap is not None else h

    def slip(self) -> np.ndarray:
        angle = self.rng.uniform(0, 2 * math.pi)
        return self.rng.uniform(0.2, 2.0) * np.array([math.cos(angle), math.sin(angle), 0.0])

    def cost(self, plan: list[tuple[int, bool]]) -> int:
        return sum(k * (ROLLING_ROWS if rolling else SLIDING_ROWS) for k, rolling in plan)

    def pick_k(self) -> int:
        return int(self.rng.choice([1, 2, 4], p=[0.15, 0.25, 0.6]))

    def propose(self, remaining: int) -> None:
        """Add one box whose contacts fit in ``remaining`` rows."""
        rng = self.rng
        flat_tops = [b for b in self.boxes if not b.tilted and not b.covered]
        last = self.boxes_on_ground()
        kinds = ["ground"]
        if flat_tops:
            kinds.append("stack")
        if last is not None and not last.tilted and last.omega == 0.0 and not last.side_taken:
            kinds.append("side")
        kind = str(rng.choice(kinds))
        if kind == "stack":
            support = flat_tops[int(rng.integers(len(flat_tops)))]
            k, rolling = self.pick_k(), bool(rng.random() < self.p_roll)
            if self.cost([(k, rolling)]) <= remaining:
                self.stack(support, k, rolling)
                return
        if kind == "side":
            rolling = bool(rng.random() < self.p_roll)
            ground_rolling = rolling and not np.any(last.velocity)
            if self.cost([(4, rolling), (4, ground_rolling)]) <= remaining:
                self.side(last, rolling)
                return
        k, rolling = self.pick_k(), bool(rng.random() < self.p_roll)
        if self.cost([(k, rolling)]) > remaining:
            rolling = False
            k = max(c for c in (1, 2, 4) if c <= remaining)
        self.ground(k, rolling)

    def boxes_on_ground(self) -> _Box | None:
        ground = [b for b in self.boxes if b.on_ground]
        return ground[-1] if ground else None

    def new_box(self, half: np.ndarray, center: np.ndarray, rotation: np.ndarray, tilted: bool) -> _Box:
        box = _Box(f"box{len(self.boxes)}", center, half, rotation, tilted=tilted)
        self.boxes.append(box)
        return box

    def place(self, half: np.ndarray, k: int, xy: np.ndarray, z0: float) -> tuple[np.ndarray, np.ndarray]:
        """(center, rotation) of a box resting on k corners whose centroid is over ``xy`` at z0."""
        rotation = np.eye(3) if k == 4 else _tilted(self.rng, k)
        low = _lowest(rotation, half)
        offset = low.mean(axis=0)
        center = np.array([xy[0] - offset[0], xy[1] - offset[1], z0 - offset[2]])
        return center, rotation

    def ground(self, k: int, rolling: bool) -> None:
        half = self.half()
        x = self.row_x + 1.2
        self.row_x = x + 1.2
        center, rotation = self.place(half, k, np.array([x, self.rng.uniform(-0.3, 0.3)]), 0.0)
        box = self.new_box(half, center, rotation, tilted=k != 4)
        box.on_ground = True
        if not rolling:
            box.velocity = self.slip()
            if self.rng.random() < self.p_spin:
                reach = float(np.max(np.linalg.norm((_lowest(rotation, half))[:, :2], axis=1))) + 1e-3
                box.omega = float(0.5 * np.linalg.norm(box.velocity) / reach * self.rng.uniform(-1, 1))
        self.groups.append((box, _Group(None, self.contact_points(box))))

    def contact_points(self, box: _Box) -> list[np.ndarray]:
        return [box.center + p for p in _lowest(box.rotation, box.half)]

    def stack(self, support: _Box, k: int, rolling: bool) -> None:
        cap = np.array([support.half[0], 0.8 * support.half[1], 0.3])
        half = self.half(cap)
        if k == 4:
            dy = self.rng.uniform(-0.6, 0.6) * (support.half[1] + half[1])
            dx = self.rng.uniform(-1, 1) * (support.half[0] - half[0])
            center = support.center + np.array([dx, dy, support.half[2] + half[2]])
            box = self.new_box(half, center, np.eye(3), tilted=False)
            lo = np.maximum(center[:2] - half[:2], support.center[:2] - support.half[:2])
            hi = np.minimum(center[:2] + half[:2], support.center[:2] + support.half[:2])
            z = support.top()
            points = [np.array([x, y, z]) for x in (lo[0], hi[0]) for y in (lo[1], hi[1])]
        else:
            span = 0.5 * support.half[:2]
            xy = support.center[:2] + self.rng.uniform(-1, 1, 2) * span
            center, rotation = self.place(half, k, xy, support.top())
            box = self.new_box(half, center, rotation, tilted=True)
            points = self.contact_points(box)
        support.covered = True
        box.velocity = support.point_velocity(box.center) * np.array([1.0, 1.0, 0.0])
        box.omega = support.omega
        if not rolling:
            box.velocity = box.velocity + self.slip()
        self.groups.append((box, _Group(support, points)))

    def side(self, neighbour: _Box, rolling: bool) -> None:
        cap = np.array([0.4, 0.4, 0.3])
        half = self.half(cap)
        dy = self.rng.uniform(-0.5, 0.5) * (neighbour.half[1] + half[1])
        x_face = neighbour.center[0] + neighbour.half[0]
        center = np.array([x_face + half[0], neighbour.center[1] + dy, half[2]])
        box = self.new_box(half, center, np.eye(3), tilted=False)
        box.on_ground = True
        neighbour.side_taken = True
        self.row_x = max(self.row_x, center[0] + half[0] + 0.2)
        box.velocity = neighbour.velocity.copy()
        if not rolling:
            box.velocity = box.velocity + np.array(
                [0.0, self.rng.choice([-1.0, 1.0]) * self.rng.uniform(0.2, 2.0), 0]
            )
        lo_y = max(center[1] - half[1], neighbour.center[1] - neighbour.half[1])
        hi_y = min(center[1] + half[1], neighbour.center[1] + neighbour.half[1])
        top = min(2 * half[2], 2 * neighbour.half[2])
        side_points = [np.array([x_face, y, z]) for y in (lo_y, hi_y) for z in (0.15 * top, 0.85 * top)]
        self.groups.append((box, _Group(neighbour, side_points, normal=(1.0, 0.0, 0.0))))
        self.groups.append((box, _Group(None, self.contact_points(box))))


def _spend(builder: _Builder, size: int) -> None:
    remaining = size
    while remaining > 0:
        before = len(builder.groups)
        builder.propose(remaining)
        used = 0
        for box, group in builder.groups[before:]:
            rolling = _rolling(box, group)
            used += len(group.points) * (ROLLING_ROWS if rolling else SLIDING_ROWS)
        remaining -= used
    # propose() never spends more rows than it is offered, so the loop stops at exactly 0
    assert remaining == 0, f"random_boxes overshot the requested size by {-remaining}"


def _rolling(box: _Box, group: _Group) -> bool:
    n = np.asarray(group.normal)
    for p in group.points:
        rel = box.point_velocity(p) - (group.support.point_velocity(p) if group.support else np.zeros(3))
        tangential = rel - (rel @ n) * n
        if np.linalg.norm(tangential) > 1e-9:
            return False
    return True


def random_boxes(seed: int, size: int, mu: float = 0.5) -> cm.System:
    """A random multi-box contact problem whose pyramid LCP has exactly ``size`` rows."""
    if size < 1:
        raise DeclarationError(f"random_boxes: size must be >= 1 LCP row (got {size}); give a positive size")
    builder = _Builder(seed, size)
    _spend(builder, size)
    rng = builder.rng
    system = cm.System(gravity=(0.0, 0.0, -G))
    bodies = {}
    for box in builder.boxes:
        mass = float(rng.uniform(0.5, 5.0))
        push = rng.uniform(-1, 1, 2) * mass * G * 0.7
        twist = rng.uniform(-1, 1) * mass * 0.5
        bodies[box.name] = system.add_body(
            box.name,
            mass=mass,
            inertia=cm.inertia.box(mass, tuple(2 * box.half)),
            position=tuple(box.center),
            orientation=box.rotation,
            velocity=tuple(box.velocity),
            angular_velocity=(0.0, 0.0, box.omega),
            wrench=(float(push[0]), float(push[1]), 0.0, 0.0, 0.0, float(twist)),
        )
    law = Pyramid(mu)
    count = 0
    for box, group in builder.groups:
        other = system.ground if group.support is None else bodies[group.support.name]
        for p in group.points:
            system.add_contact(
                bodies[box.name], other, point=tuple(p), normal=group.normal, friction=law, name=f"c{count}"
            )
            count += 1
    return system


def table1_instances(counts: dict[int, int], per_problem: int = 10) -> list[dict]:
    """Table 1 data sets of Trinkle et al. (1997): for each size, ``counts[size]`` data sets,
    ``per_problem`` mu values each."""
    out = []
    for size, count in counts.items():
        for j in range(count):
            out.append(
                {"family": "boxes", "size": size, "seed": j // per_problem, "mu": MUS[j % per_problem]}
            )
    return out


@functools.cache
def scara_matrix() -> np.ndarray:
    """A (6 x 6) of the fixed two-SCARA grasp (rows n, t, o per fingertip)."""
    return np.array(cm.assemble(scara_grasp.build(sliding=False)).A, dtype=float)


#: Ipopt options for the SCARA MNCPs (Andreani et al. (2002) §4.2.1): bound_push = 1 starts every
#: bounded variable (c_n, lambda, z) at >= 1 instead of ~1e-2 above the model's x = 0, where
#: c_n = lambda = 0 makes g_v singular at both contacts (Theorem 1 cannot hold there, and 25 of the
#: 26 failures from that start end at such points); acceptable_iter = 0 keeps Ipopt from stopping at
#: its "acceptable" level (seed 180: objective 8e-12 with the cone law 5e-4 off).
#: ``benchmarks/scara_theorem1.py`` compares the two starts.
SCARA_IPOPT_INTERIOR: dict = {"native": {"bound_push": 1.0, "acceptable_iter": 0}}


def scara_b(seed: int) -> np.ndarray:
    """b drawn uniformly in [-5, 5]^6 with ``default_rng(seed)``."""
    return np.random.default_rng(seed).uniform(-5.0, 5.0, 6)


def _law(friction: str, mu: float) -> FrictionLaw:
    if friction == "pyramid":
        return Pyramid(mu)
    if friction == "cone":
        return CoulombCone(mu)
    raise FrictionLawError(f"unknown friction {friction!r}: use 'pyramid' or 'cone'")


def scara_problem(seed: int, sliding: bool, friction: str = "cone") -> cm.Problem:
    """One SCARA data set (Andreani et al. 2002, §4) as a reduced contact problem."""
    velocities = np.array([[1.0, 0.0], [1.0, 0.0]]) if sliding else None
    return cm.formulate_from_matrices(
        scara_matrix(),
        scara_b(seed),
        friction=[_law(friction, m) for m in SCARA_MU],
        velocities=velocities,
        names=["tip1", "tip2"],
    )


def rod_cube_system(mu1: float, mu2: float, zeta: float) -> cm.System:
    """Trinkle and Pang (1997) Example 1 with friction (mu1 at the rod, mu2 at the hump) and rod
    height zeta."""
    return rod_cube.build(example=1, mu=(mu1, mu2), zeta=zeta)


def rod_cube_grid(zeta: float) -> list[dict]:
    """The 20 x 20 (mu1, mu2) cells of Trinkle and Pang's Example 1 at this zeta."""
    return [{"family": "rod_cube", "mu1": m1, "mu2": m2, "zeta": zeta} for m1 in MU_GRID for m2 in MU_GRID]


def build_problem(instance: dict, friction: str = "model") -> cm.Problem:
    """The Problem an instance description stands for (``friction``: model, pyramid or cone); the
    families of :mod:`contactmodel.experiments.sources` (the user's own problems) are built there."""
    family = instance["family"]
    if family == "boxes":
        system = random_boxes(instance["seed"], instance["size"], instance["mu"])
        law = None if friction == "model" else _law(friction, instance["mu"])
        return cm.formulate(system, friction=law)
    if family == "scara":
        return scara_problem(
            instance["seed"], instance["sliding"], "cone" if friction == "model" else friction
        )
    if family == "rod_cube":
        system = rod_cube_system(instance["mu1"], instance["mu2"], instance["zeta"])
        return cm.formulate(system, friction=None if friction == "model" else _law(friction, instance["mu1"]))
    from contactmodel.experiments import sources

    if family in sources.FAMILIES:  # the user's own problems (cm.compare)
        return sources.build(instance, friction)
    raise UnknownNameError(
        f"unknown instance family {family!r}: use 'boxes', 'scara', 'rod_cube' or one of {sources.FAMILIES}"
    )
