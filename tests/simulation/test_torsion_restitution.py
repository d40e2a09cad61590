"""Torsion laws (soft-finger contacts), Newton restitution and dissipation over random piles.

Spin: a uniform sphere (m, radius r, I = 2/5 m r^2) spinning at w0 about the vertical on the
floor, torsion contact. Both torsion laws allow a frictional moment |c_r| <= e_r mu c_n (e_r in
m): the spin decays at e_r mu m g / I and stops after t* = w0 I / (e_r mu m g); the angle turned
is w0^2 / (2 alpha). Sliding while spinning: the ellipsoid couples the two (on its surface,
(c_t^2 + c_o^2) / (mu c_n)^2 + c_r^2 / (e_r mu c_n)^2 = 1, so each is below its own limit), the
elliptic-torsion law does not (the full mu c_n and the full e_r mu c_n at once).

Restitution: a sphere touching the floor and moving down at v0 leaves the impact step at
e v0 upwards (Newton's law on the contact row), rises to (e v0)^2 / (2 g) and comes down at e v0.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation import Plane, simulate

from .scenes import G

MU, E_R, RADIUS, W0 = 0.5, 0.05, 0.1, 10.0
LAWS = {"ellipsoid": cm.Ellipsoid(MU, e_r=E_R), "elliptic-torsion": cm.EllipticTorsion(MU, e_r=E_R)}


def _ball(velocity=(0.0, 0.0, 0.0), omega=(0.0, 0.0, 0.0), height: float = RADIUS) -> cm.System:
    system = cm.System(gravity=(0, 0, -G))
    system.add_body(
        "ball",
        1.0,
        cm.inertia.sphere(1.0, RADIUS),
        position=(0, 0, height),
        velocity=velocity,
        angular_velocity=omega,
        shape=Sphere(RADIUS),
    )
    return system


@pytest.mark.parametrize("name", list(LAWS))
def test_spinning_sphere_stops_at_the_torsional_limit(name):
    inertia = 0.4 * RADIUS**2
    alpha = E_R * MU * G / inertia
    t_star = W0 / alpha
    dt = 2e-3
    traj = simulate(
        _ball(omega=(0, 0, W0)), t_star + 0.02, dt, friction=LAWS[name], torsion=True, planes=[Plane()]
    )
    assert traj.ok
    spin = traj.angular_velocities[:, 0, 2]
    k = int(np.argmax(spin < 1e-9))
    assert k > 0 and abs(traj.times[k] - t_star) <= dt + 1e-12, (traj.times[k], t_star)
    # each step removes alpha dt of spin: w_k = w0 - k alpha dt while spinning
    assert np.allclose(spin[1:k], W0 - alpha * dt * np.arange(1, k), atol=1e-6)
    assert np.max(np.abs(traj.velocities[:, 0])) < 1e-9, "a pure spin does not translate"
    assert np.max(np.diff(traj.energy)) <= 1e-9


def test_sliding_while_spinning_couples_only_on_the_ellipsoid():
    first = {}
    for name, law in LAWS.items():
        traj = simulate(
            _ball(velocity=(1.0, 0, 0), omega=(0, 0, W0)),
            0.002,
            1e-3,
            friction=law,
            torsion=True,
            planes=[Plane()],
        )
        assert traj.ok and np.max(np.diff(traj.energy)) <= 1e-9
        (name_c,) = traj.impulses
        first[name] = traj.impulses[name_c][0]
    p_n, p_t, p_o, p_r = first["elliptic-torsion"]
    assert np.hypot(p_t, p_o) == pytest.approx(MU * p_n, rel=1e-6), "the full sliding friction"
    assert abs(p_r) == pytest.approx(E_R * MU * p_n, rel=1e-6), "and the full torsional moment"
    p_n, p_t, p_o, p_r = first["ellipsoid"]
    assert np.hypot(p_t, p_o) < MU * p_n * (1 - 1e-3) and abs(p_r) < E_R * MU * p_n * (1 - 1e-3)
    surface = (p_t**2 + p_o**2) / (MU * p_n) ** 2 + p_r**2 / (E_R * MU * p_n) ** 2
    assert surface == pytest.approx(1.0, rel=1e-6), "sliding: on the ellipsoid's surface"


@pytest.mark.parametrize("e", [0.0, 0.5, 0.8])
def test_newton_restitution_bounces_at_e_v0(e):
    v0, dt = 1.0, 1e-3
    traj = simulate(
        _ball(velocity=(0, 0, -v0)),
        2 * e * v0 / G + 0.02,
        dt,
        friction=cm.Pyramid(MU),
        restitution=e,
        planes=[Plane()],
        solver="lemke",
    )
    assert traj.ok
    vz = traj.velocities[:, 0, 2]
    assert vz[1] == pytest.approx(e * v0, abs=1e-9), "Newton's law on the impact step"
    height = traj.positions[:, 0, 2] - RADIUS
    assert height.max() == pytest.approx((e * v0) ** 2 / (2 * G), abs=2 * v0 * dt)
    assert np.max(np.diff(traj.energy)) <= 1e-9, "restitution e <= 1 never adds energy"
    if e > 0:
        landing = np.flatnonzero((vz[:-1] < 0) & (vz[1:] > 0) & (np.arange(len(vz) - 1) > 0))
        assert landing.size, "it lands again and bounces"
        assert vz[landing[0]] == pytest.approx(-e * v0, abs=2 * G * dt)


def _random_pile(seed: int) -> cm.System:
    """1-3 columns of 1-3 boxes (random size, small tilt and turn, 1-3 mm gaps, small random
    velocities), a sphere on top of some columns."""
    rng = np.random.default_rng(seed)
    system = cm.System(gravity=(0, 0, -G))
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    for col in range(rng.integers(1, 4)):
        top = rng.uniform(1e-3, 3e-3)
        for level in range(rng.integers(1, 4)):
            size = rng.uniform(0.1, 0.2, size=3)
            R = Rotation.from_rotvec([*rng.normal(scale=0.01, size=2), rng.uniform(-0.3, 0.3)]).as_matrix()
            corners = (signs * size / 2) @ R.T
            z = top - corners[:, 2].min()
            top = z + corners[:, 2].max() + rng.uniform(1e-3, 3e-3)
            system.add_body(
                f"c{col}b{level}",
                float(rng.uniform(0.5, 2.0)),
                cm.inertia.box(1.0, size),
                position=(0.5 * col + rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01), z),
                orientation=R,
                velocity=rng.normal(scale=0.05, size=3),
                angular_velocity=rng.normal(scale=0.2, size=3),
                shape=Box(tuple(size)),
            )
        if rng.random() < 0.5:
            r = float(rng.uniform(0.03, 0.06))
            system.add_body(
                f"c{col}ball",
                0.5,
                cm.inertia.sphere(0.5, r),
                position=(0.5 * col, 0, top + r),
                shape=Sphere(r),
            )
    return system


@pytest.mark.parametrize("seed", range(4))
def test_energy_never_increases_over_random_piles(seed):
    traj = simulate(
        _random_pile(seed), 0.06, 2e-3, friction=cm.Pyramid(0.4), planes=[Plane()], keep_steps=False
    )
    assert traj.ok, traj.failed_solution
    assert np.max(np.diff(traj.energy)) <= 1e-8, np.max(np.diff(traj.energy))
