"""Small scenes with closed-form motions, shared by the simulation tests."""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation import Plane

G = 9.81
SIDE = 0.2

#: the laws whose MNCP rows are quadratic: name -> (a maker of the law at mu 0.5, torsion needed)
QUADRATIC_LAWS = {
    "cone_mncp": (lambda: cm.CoulombCone(0.5, form="mncp"), False),
    "aniso": (lambda: cm.AnisotropicCone(0.5, 0.4, form="mncp"), False),
    "ellipsoid": (lambda: cm.Ellipsoid(0.5, form="mncp"), True),
    "elltor": (lambda: cm.EllipticTorsion(0.5, form="mncp"), True),
}


def sliding_box(v0=(0.5, 0.0, 0.0), mass: float = 1.0) -> tuple[cm.System, list[Plane]]:
    """A cube of side 0.2 m resting on the plane z = 0, sliding at v0 (m/s)."""
    system = cm.System(gravity=(0, 0, -G))
    system.add_body(
        "box",
        mass,
        cm.inertia.box(mass, (SIDE,) * 3),
        position=(0, 0, SIDE / 2),
        velocity=v0,
        shape=Box((SIDE,) * 3),
    )
    return system, [Plane(tangent=(1.0, 0.0, 0.0))]


def incline(theta: float) -> tuple[Plane, np.ndarray, np.ndarray]:
    """The plane through the origin tilted by theta (rad) about y; its normal, and the unit
    downhill direction."""
    n = np.array([-np.sin(theta), 0.0, np.cos(theta)])
    down = np.array([-np.cos(theta), 0.0, -np.sin(theta)])
    return Plane(normal=n, name="incline", tangent=-down), n, down


def box_on_incline(theta: float) -> tuple[cm.System, list[Plane], np.ndarray]:
    """A cube at rest on an incline of angle theta; returns the downhill direction too."""
    plane, n, down = incline(theta)
    system = cm.System(gravity=(0, 0, -G))
    R = Rotation.from_euler("y", -theta).as_matrix()
    system.add_body(
        "box",
        1.0,
        cm.inertia.box(1.0, (SIDE,) * 3),
        position=n * SIDE / 2,
        orientation=R,
        shape=Box((SIDE,) * 3),
    )
    return system, [plane], down


def sphere_on_incline(theta: float, radius: float = 0.1) -> tuple[cm.System, list[Plane], np.ndarray]:
    """A uniform sphere at rest on an incline of angle theta."""
    plane, n, down = incline(theta)
    system = cm.System(gravity=(0, 0, -G))
    system.add_body("ball", 1.0, cm.inertia.sphere(1.0, radius), position=n * radius, shape=Sphere(radius))
    return system, [plane], down


def balls_on_floor(starts: list[tuple[float, tuple[float, float, float]]], r: float = 0.1) -> cm.System:
    """Balls of 1 kg and radius ``r`` (m) resting on z = 0, ball k at x = ``starts[k][0]`` with
    velocity ``starts[k][1]`` (m/s), spinning at 2 k rad/s about z."""
    system = cm.System()
    for k, (x, v) in enumerate(starts):
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.sphere(1.0, r),
            position=(x, 0.0, r),
            velocity=v,
            angular_velocity=(0.0, 0.0, 2.0 * k),
            shape=Sphere(r),
        )
    return system


def random_pile(rng: np.random.Generator, n: int) -> cm.System:
    """n unit-mass cubes in columns of up to 3, each shifted and turned from the one below and
    dropped from a few mm above it."""
    system = cm.System(gravity=(0, 0, -9.81))
    top = 0.0
    for k in range(n):
        column, level = divmod(k, 3)
        if level == 0:
            top = 0.0
        rot = Rotation.from_rotvec([*rng.normal(scale=0.01, size=2), rng.uniform(-0.1, 0.1)])
        corners = (np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]) * SIDE / 2) @ (
            rot.as_matrix().T
        )
        z = top + rng.uniform(1e-3, 5e-3) - corners[:, 2].min()
        top = z + corners[:, 2].max()
        shift = rng.uniform(-0.03, 0.03, size=2) if level else np.zeros(2)
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (SIDE,) * 3),
            position=(0.35 * column + shift[0], shift[1], z),
            orientation=rot.as_matrix(),
            velocity=rng.normal(scale=0.1, size=3),
            shape=Box((SIDE,) * 3),
        )
    return system
