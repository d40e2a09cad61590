"""Named reference problems with hand-derived answers.

Each :class:`Case` builds a System and states the physically known solution: the contact
forces (in each contact's (n, t, o[, r]) frame) and the body accelerations. Every friction
law in ``laws(mu)`` admits that solution, so substituting it into any model (any law, either
form) must give zero complementarity residual; tests and benchmarks run these over every
solver. Units: SI; gravity 9.81 m/s^2 along -z.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from contactmodel import inertia, shapes
from contactmodel.friction import (
    CoulombCone,
    Ellipsoid,
    EllipticTorsion,
    FrictionLaw,
    Planar,
    Polygonal,
    PolyhedralLimitSurface,
    Pyramid,
)
from contactmodel.friction.anisotropic import AnisotropicCone
from contactmodel.system import System

G = 9.81
SIDE = 0.4
MASS = 3.0
CORNERS = [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]


@dataclass
class Case:
    """A reference problem: ``build()`` -> System, the known forces and body accelerations."""

    name: str
    description: str
    build: Callable[[], System]
    forces: dict[str, list[float]]
    accelerations: dict[str, list[float]]  # body name -> (linear, angular) 6-vector, world frame
    mu: float
    torsion: bool = True

    def laws(self):
        """Friction laws (with this case's mu) that all admit the known solution."""
        mu = self.mu
        laws = [
            CoulombCone(mu),
            Pyramid(mu),
            Polygonal(mu, k=4),
            Polygonal(mu, k=6),
            Planar(mu),
            PolyhedralLimitSurface([[1, 0], [-1, 0], [0, 1], [0, -1]], mu),
            AnisotropicCone(mu, 2 * mu),  # every case slides (if at all) along t
        ]
        if self.torsion:
            laws += [Ellipsoid(mu, 1.0, 1.0, 0.5), EllipticTorsion(mu, 1.0, 1.0, 0.5)]
        return laws


def _box(system: System, name: str, z: float, velocity=(0.0, 0.0, 0.0), push=0.0, mass=MASS):
    return system.add_body(
        name,
        mass=mass,
        inertia=inertia.box(mass, (SIDE, SIDE, SIDE)),
        position=(0.0, 0.0, z),
        velocity=velocity,
        wrench=(push, 0.0, 0.0, 0.0, 0.0, 0.0),
    )


def _feet(system: System, body, other, z: float, prefix: str) -> None:
    for i, (x, y) in enumerate(CORNERS):
        system.add_contact(
            body,
            other,
            point=(x, y, z),
            normal=(0, 0, 1),
            tangent=(1, 0, 0),
            name=f"{prefix}{i}",
            torsion=True,
        )


def _sliding_forces(mu: float, push_x_sign: float = 1.0) -> dict[str, list[float]]:
    """Box moving/accelerating along +x with friction -mu c_n at each foot; the tipping moment
    mu m g h (h = SIDE/2) is carried by the front feet (x > 0): F_front - F_back = mu m g."""
    mg = MASS * G
    return {
        f"floor{i}": [mg / 4 + np.sign(x) * mu * mg / 4, -mu * (mg / 4 + np.sign(x) * mu * mg / 4), 0.0, 0.0]
        for i, (x, _y) in enumerate(CORNERS)
    }


def box_push_static() -> Case:
    """A box at rest pushed sideways below the friction limit: it stays at rest."""
    push, mu = 5.0, 0.5  # 5 N < mu m g = 14.7 N
    mg = MASS * G
    # friction carries the push (split equally: one of infinitely many force solutions);
    # moment balance about the centre: F_front - F_back = push * h / (SIDE/2) = push
    forces = {
        f"floor{i}": [mg / 4 + np.sign(x) * push / 4, -push / 4, 0.0, 0.0]
        for i, (x, _y) in enumerate(CORNERS)
    }

    def build() -> System:
        s = System(gravity=(0, 0, -G))
        box = _box(s, "box", SIDE / 2, push=push)
        _feet(s, box, s.ground, 0.0, "floor")
        return s

    return Case("box_push_static", box_push_static.__doc__, build, forces, {"box": [0.0] * 6}, mu)


def box_push_sliding() -> Case:
    """A box at rest pushed above the friction limit: it starts sliding, a = (P - mu m g)/m."""
    push, mu = 25.0, 0.5
    mg = MASS * G

    def build() -> System:
        s = System(gravity=(0, 0, -G))
        box = _box(s, "box", SIDE / 2, push=push)
        _feet(s, box, s.ground, 0.0, "floor")
        return s

    ax = (push - mu * mg) / MASS
    return Case(
        "box_push_sliding",
        box_push_sliding.__doc__,
        build,
        _sliding_forces(mu),
        {"box": [ax, 0, 0, 0, 0, 0]},
        mu,
    )


def box_sliding() -> Case:
    """A box sliding along +x at 1 m/s with no push: it decelerates at mu g."""
    mu = 0.3

    def build() -> System:
        s = System(gravity=(0, 0, -G))
        box = _box(s, "box", SIDE / 2, velocity=(1.0, 0.0, 0.0))
        _feet(s, box, s.ground, 0.0, "floor")
        return s

    return Case(
        "box_sliding", box_sliding.__doc__, build, _sliding_forces(mu), {"box": [-mu * G, 0, 0, 0, 0, 0]}, mu
    )


def frictionless_stack() -> Case:
    """Two boxes stacked on the ground, at rest under gravity; friction plays no part."""
    m_top = 1.0

    def build() -> System:
        s = System(gravity=(0, 0, -G))
        bottom = _box(s, "bottom", SIDE / 2)
        top = _box(s, "top", 1.5 * SIDE, mass=m_top)
        _feet(s, bottom, s.ground, 0.0, "floor")
        _feet(s, top, bottom, SIDE, "stack")
        return s

    forces = {f"floor{i}": [(MASS + m_top) * G / 4, 0.0, 0.0, 0.0] for i in range(4)}
    forces.update({f"stack{i}": [m_top * G / 4, 0.0, 0.0, 0.0] for i in range(4)})
    return Case(
        "frictionless_stack",
        frictionless_stack.__doc__,
        build,
        forces,
        {"bottom": [0.0] * 6, "top": [0.0] * 6},
        0.4,
    )


def two_finger_grip() -> Case:
    """A box held in the air between two prismatic fingers squeezing with 40 N each: friction
    carries the weight, m g / 2 per finger, and nothing accelerates."""
    from contactmodel.manipulator import Link, Prismatic

    squeeze, mu, z = 40.0, 0.5, 0.5  # squeeze > m g / (2 mu) = 29.4 N

    def build() -> System:
        s = System(gravity=(0, 0, -G))
        box = s.add_body("box", mass=MASS, inertia=inertia.box(MASS, (SIDE, SIDE, SIDE)), position=(0, 0, z))
        for name, side in (("left", -1.0), ("right", 1.0)):
            finger = s.add_manipulator(
                name,
                joints=[Prismatic(axis=(-side, 0, 0))],
                links=[Link(mass=0.5, inertia=inertia.box(0.5, (0.1, 0.1, 0.1)))],
                q=[0.1],
                qdot=[0.0],
                efforts=[squeeze],
                base=((side * (SIDE / 2 + 0.1), 0, z), np.eye(3)),
            )
            s.add_contact(
                box,
                finger.link(0),
                point=(side * SIDE / 2, 0, z),
                normal=(-side, 0, 0),
                tangent=(0, 0, 1),
                name=f"{name}_tip",
                torsion=True,
            )
        return s

    forces = {f"{name}_tip": [squeeze, MASS * G / 2, 0.0, 0.0] for name in ("left", "right")}
    return Case("two_finger_grip", two_finger_grip.__doc__, build, forces, {"box": [0.0] * 6}, mu)


def sliding_and_rolling_pair() -> System:
    """A slab sliding on the ground (contact 'S') with a block riding on it (contact 'R', rolling
    relative to the slab); off-centre points so every entry of A is nonzero."""
    s = System(gravity=(0, 0, -9.81))
    v = (0.7, -0.3, 0.0)
    slab = s.add_body(
        "slab",
        mass=2.0,
        inertia=inertia.box(2.0, (1.0, 0.6, 0.2)),
        position=(0, 0, 0.1),
        velocity=v,
        wrench=(1.0, 0.5, 0, 0.1, 0, 0.2),
    )
    block = s.add_body(
        "block",
        mass=1.0,
        inertia=inertia.box(1.0, (0.3, 0.2, 0.2)),
        position=(0.2, 0.1, 0.3),
        velocity=v,
        wrench=(-0.5, 2.0, 0, 0, 0.3, 0),
    )
    s.add_contact(slab, s.ground, point=(0.3, -0.2, 0.0), normal=(0, 0, 1), name="S")
    s.add_contact(
        block,
        slab,
        point=(0.25, 0.05, 0.2),
        normal=(0, 0, 1),
        name="R",
        tangent=(np.cos(0.3), np.sin(0.3), 0),
    )
    return s


def one_contact_box(law: FrictionLaw) -> System:
    """A 0.2 m cube of 1 kg on the floor touching it at one point, 5 cm off centre along x,
    with ``law`` there (torsion on, t along x): the scene of each law's picture."""
    s = System()
    box = s.add_body(
        "box",
        1.0,
        inertia.box(1.0, (0.2, 0.2, 0.2)),
        position=(0, 0, 0.1),
        shape=shapes.Box((0.2, 0.2, 0.2)),
    )
    s.add_contact(
        box, s.ground, (0.05, 0.0, 0.0), (0, 0, 1), tangent=(1, 0, 0), friction=law, name="c", torsion=True
    )
    return s


def pushed_boxes(n: int = 2, push: float = 0.0) -> System:
    """``n`` 1 kg cubes of side 0.2 m, 0.5 m apart along x, each resting on the ground on its
    four corners (contacts ``c{i}_{k}``) and pushed by (1 + ``push``, 0.5, 0) N: with no extra
    push that is below the friction limit for mu >= 0.2, so every box stays at rest."""
    s = System(gravity=(0, 0, -G))
    for i in range(n):
        box = s.add_body(
            f"box{i}",
            mass=1.0,
            inertia=inertia.box(1.0, (0.2, 0.2, 0.2)),
            position=(0.5 * i, 0, 0.1),
            wrench=(1.0 + push, 0.5, 0, 0, 0, 0),
        )
        for k, (x, y) in enumerate([(0.1, 0.1), (-0.1, 0.1), (-0.1, -0.1), (0.1, -0.1)]):
            s.add_contact(box, s.ground, point=(0.5 * i + x, y, 0), normal=(0, 0, 1), name=f"c{i}_{k}")
    return s


CASES: dict[str, Callable[[], Case]] = {
    f.__name__: f
    for f in (box_push_static, box_push_sliding, box_sliding, frictionless_stack, two_finger_grip)
}


def get(name: str) -> Case:
    return CASES[name]()
