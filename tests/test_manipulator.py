"""Tests of contactmodel.manipulator: kinematics and dynamics against finite differences,
hand-derived pendulum / two-link formulas, declaration errors, and the Andreani et al. (2002) SCARA grasp."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.errors import DeclarationError
from contactmodel.manipulator import (
    DHParams,
    Link,
    Manipulator,
    Prismatic,
    Revolute,
    rot,
    scara,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=25, deadline=None, database=None)
SLOW = settings(max_examples=10, deadline=None, database=None)


def random_link(rng: np.random.Generator, name: str) -> Link:
    A = rng.normal(size=(3, 3))
    inertia = 0.05 * (A @ A.T) + 0.01 * np.eye(3)
    return Link(
        mass=float(rng.uniform(0.5, 3.0)),
        inertia=inertia,
        com=rng.normal(scale=0.2, size=3),
        name=name,
    )


def random_base(rng: np.random.Generator) -> np.ndarray:
    T = np.eye(4)
    axis = rng.normal(size=3)
    T[:3, :3] = rot(axis / np.linalg.norm(axis), rng.uniform(-np.pi, np.pi))
    T[:3, 3] = rng.normal(size=3)
    return T


def random_axis_arm(rng: np.random.Generator, n: int = 5) -> Manipulator:
    """Mixed revolute / prismatic chain in axis form with random axes, origins and base."""
    joints = []
    for i in range(n):
        axis = rng.normal(size=3)
        origin = rng.normal(scale=0.3, size=3)
        cls = Prismatic if i % 3 == 2 else Revolute
        joints.append(cls(axis=axis, origin=origin, name=f"j{i}"))
    links = [random_link(rng, f"l{i}") for i in range(n)]
    return Manipulator(
        "axis-arm",
        joints,
        links,
        q=rng.uniform(-np.pi, np.pi, n),
        qdot=rng.normal(scale=1.5, size=n),
        base=random_base(rng),
    )


def random_dh_arm(rng: np.random.Generator) -> Manipulator:
    """PUMA-like DH chain (alpha = +-pi/2 twists, offsets) with a prismatic joint inside."""
    joints = [
        Revolute.dh(d=0.3, a=0.0, alpha=np.pi / 2, offset=0.2),
        Revolute.dh(d=0.1, a=0.43, alpha=0.0),
        Prismatic.dh(theta=0.4, a=0.05, alpha=-np.pi / 2, offset=0.1),
        Revolute.dh(d=0.43, a=0.0, alpha=np.pi / 2, offset=-0.3),
        Revolute.dh(d=0.0, a=0.1, alpha=-np.pi / 2),
    ]
    links = [random_link(rng, f"l{i}") for i in range(len(joints))]
    base = (rng.normal(size=3), rot(np.array([0.0, 1.0, 0.0]), rng.uniform(-1, 1)))
    n = len(joints)
    return Manipulator(
        "dh-arm",
        joints,
        links,
        q=rng.uniform(-np.pi, np.pi, n),
        qdot=rng.normal(scale=1.5, size=n),
        base=base,
    )


ARMS = [random_axis_arm, random_dh_arm]


def material_point(arm: Manipulator, k: int, x: np.ndarray):
    """Body coordinates of world point x on link k, and a function q -> its world position."""
    R, p = arm.link_frames()[k]
    body = R.T @ (x - p)

    def position(q: np.ndarray) -> np.ndarray:
        Rq, pq = arm.with_state(q=q).link_frames()[k]
        return pq + Rq @ body

    return body, position


def fd_link_velocities(arm: Manipulator, h: float = 1e-6):
    """(com velocity, omega) per link from central differences of the pose along q + qdot t."""
    plus = arm.with_state(q=arm.q + h * arm.qdot)
    minus = arm.with_state(q=arm.q - h * arm.qdot)
    out = []
    for (R, _), (Rp, pp), (Rm, pm), link in zip(
        arm.link_frames(), plus.link_frames(), minus.link_frames(), arm.links, strict=True
    ):
        vc = ((pp + Rp @ link.com) - (pm + Rm @ link.com)) / (2 * h)
        W = ((Rp - Rm) / (2 * h)) @ R.T
        out.append((vc, np.array([W[2, 1], W[0, 2], W[1, 0]])))
    return out


def kinetic_energy_fd(arm: Manipulator) -> float:
    T = 0.0
    for (R, _), (vc, w), link in zip(arm.link_frames(), fd_link_velocities(arm), arm.links, strict=True):
        T += 0.5 * link.mass * vc @ vc + 0.5 * w @ (R @ link.inertia @ R.T) @ w
    return T


def lagrangian(arm: Manipulator, q: np.ndarray, qdot: np.ndarray, g: np.ndarray) -> float:
    """L = T - V with T from the recursive link velocities and V = -sum m g . c."""
    state = arm.with_state(q=q, qdot=qdot)
    L = 0.0
    for (R, p), (v, w), link in zip(state.link_frames(), state.link_velocities(), state.links, strict=True):
        r = R @ link.com
        vc = v + np.cross(w, r)
        L += 0.5 * link.mass * vc @ vc + 0.5 * w @ (R @ link.inertia @ R.T) @ w
        L += link.mass * g @ (p + r)
    return L


@pytest.mark.parametrize("make", ARMS)
@FAST
@given(seed=SEEDS)
def test_point_and_angular_jacobians_match_finite_differences(make, seed):
    rng = np.random.default_rng(seed)
    arm = make(rng)
    h = 1e-6
    for k in range(arm.n):
        x = arm.link_frames()[k][1] + rng.normal(scale=0.5, size=3)
        _, position = material_point(arm, k, x)
        Jv = arm.point_jacobian(k, x)
        Jw = arm.angular_jacobian(k)
        R0 = arm.link_frames()[k][0]
        for j in range(arm.n):
            dq = np.zeros(arm.n)
            dq[j] = h
            col = (position(arm.q + dq) - position(arm.q - dq)) / (2 * h)
            np.testing.assert_allclose(Jv[:, j], col, atol=1e-6)
            Rp = arm.with_state(q=arm.q + dq).link_frames()[k][0]
            Rm = arm.with_state(q=arm.q - dq).link_frames()[k][0]
            W = ((Rp - Rm) / (2 * h)) @ R0.T
            np.testing.assert_allclose(Jw[:, j], [W[2, 1], W[0, 2], W[1, 0]], atol=1e-6)
        np.testing.assert_allclose(arm.point_velocity(k, x), Jv @ arm.qdot, atol=1e-12)


@pytest.mark.parametrize("make", ARMS)
@FAST
@given(seed=SEEDS)
def test_bias_accelerations_match_second_differences(make, seed):
    rng = np.random.default_rng(seed)
    arm = make(rng)
    h = 1e-4
    for k in range(arm.n):
        x = arm.link_frames()[k][1] + rng.normal(scale=0.5, size=3)
        _, position = material_point(arm, k, x)
        fd = (position(arm.q + h * arm.qdot) - 2 * position(arm.q) + position(arm.q - h * arm.qdot)) / h**2
        np.testing.assert_allclose(arm.point_bias_acceleration(k, x), fd, atol=2e-5)

        def omega(t: float, k: int = k) -> np.ndarray:
            return arm.with_state(q=arm.q + t * arm.qdot).angular_jacobian(k) @ arm.qdot

        fd_alpha = (omega(h) - omega(-h)) / (2 * h)
        np.testing.assert_allclose(arm.angular_bias_acceleration(k), fd_alpha, atol=2e-6)


@pytest.mark.parametrize("make", ARMS)
@FAST
@given(seed=SEEDS)
def test_link_velocities_match_finite_differences(make, seed):
    arm = make(np.random.default_rng(seed))
    for (R, _), (v, w), link, (vc_fd, w_fd) in zip(
        arm.link_frames(), arm.link_velocities(), arm.links, fd_link_velocities(arm), strict=True
    ):
        np.testing.assert_allclose(v + np.cross(w, R @ link.com), vc_fd, atol=1e-6)
        np.testing.assert_allclose(w, w_fd, atol=1e-6)


@pytest.mark.parametrize("make", ARMS)
@SLOW
@given(seed=SEEDS)
def test_mass_matrix_is_spd_and_gives_kinetic_energy(make, seed):
    rng = np.random.default_rng(seed)
    arm = make(rng)
    M = arm.mass_matrix()
    np.testing.assert_allclose(M, M.T, atol=1e-12)
    assert np.linalg.eigvalsh(M)[0] > 0
    for _ in range(3):
        moving = arm.with_state(qdot=rng.normal(size=arm.n))
        T = kinetic_energy_fd(moving)
        np.testing.assert_allclose(moving.qdot @ M @ moving.qdot, 2 * T, rtol=1e-7, atol=1e-9)
    H = np.empty((arm.n, arm.n))
    for i in range(arm.n):
        for j in range(arm.n):
            e_i, e_j = np.eye(arm.n)[i], np.eye(arm.n)[j]
            H[i, j] = 0.5 * (
                kinetic_energy_fd(arm.with_state(qdot=e_i + e_j))
                - kinetic_energy_fd(arm.with_state(qdot=e_i - e_j))
            )
    np.testing.assert_allclose(M, H, atol=1e-7)


@pytest.mark.parametrize("make", ARMS)
@SLOW
@given(seed=SEEDS)
def test_bias_forces_match_euler_lagrange(make, seed):
    rng = np.random.default_rng(seed)
    arm = make(rng)
    g = np.array([0.3, -1.0, -9.81])
    q, qd = arm.q, arm.qdot
    n = arm.n
    eps = 1e-4
    eye = np.eye(n)

    def momentum(qq: np.ndarray) -> np.ndarray:
        return np.array(
            [
                (lagrangian(arm, qq, qd + eps * eye[i], g) - lagrangian(arm, qq, qd - eps * eye[i], g))
                / (2 * eps)
                for i in range(n)
            ]
        )

    h = 1e-5
    dp_dt = (momentum(q + h * qd) - momentum(q - h * qd)) / (2 * h)
    dL_dq = np.array(
        [
            (lagrangian(arm, q + h * eye[i], qd, g) - lagrangian(arm, q - h * eye[i], qd, g)) / (2 * h)
            for i in range(n)
        ]
    )
    expected = dL_dq - dp_dt
    assert np.all(np.abs(arm.bias_forces(g) - expected) <= 2e-5 * (1 + np.abs(expected)))
    np.testing.assert_allclose(
        arm.gravity_forces(g) + arm.velocity_product_forces(), arm.bias_forces(g), atol=1e-12
    )
    np.testing.assert_allclose(momentum(q), arm.mass_matrix() @ qd, atol=1e-6)


@pytest.mark.parametrize("form", ["axis", "dh"])
@pytest.mark.parametrize("q", [0.0, 0.3, -1.2, 2.5, np.pi])
def test_pendulum_hand_derived(form, q):
    """Point-ish pendulum hanging from the origin, gravity -y, q = 0 hanging straight down.

    Sign convention: q is positive counter-clockwise about +z, so the gravity torque on the
    right-hand side is -m g l sin(q) and M = m l^2 + I_zz."""
    m, l, izz, g = 2.0, 0.7, 0.05, 9.81
    inertia = np.diag([0.01, 0.02, izz])
    if form == "axis":
        joint = Revolute(axis=(0, 0, 1))
        link = Link(m, inertia, com=(0.0, -l, 0.0))
    else:
        joint = Revolute.dh(d=0.0, a=l, alpha=0.0, offset=-np.pi / 2)
        link = Link(m, inertia)
    arm = Manipulator("pendulum", [joint], [link], q=[q], qdot=[1.7])
    np.testing.assert_allclose(arm.mass_matrix(), [[m * l**2 + izz]], rtol=1e-12)
    np.testing.assert_allclose(arm.bias_forces((0.0, -g, 0.0)), [-m * g * l * math.sin(q)], atol=1e-12)
    c = arm.com_positions()[0]
    np.testing.assert_allclose(c, [l * math.sin(q), -l * math.cos(q), 0.0], atol=1e-12)
    np.testing.assert_allclose(arm.velocity_product_forces(), [0.0], atol=1e-12)


@FAST
@given(
    q=st.tuples(st.floats(-3, 3), st.floats(-3, 3)),
    qd=st.tuples(st.floats(-3, 3), st.floats(-3, 3)),
)
def test_planar_two_link_textbook_formulas(q, qd):
    m1, m2, l1, lc1, lc2, i1, i2, g = 1.3, 0.8, 0.6, 0.25, 0.3, 0.04, 0.02, 9.81
    arm = Manipulator(
        "two-link",
        [Revolute(), Revolute(origin=(l1, 0.0, 0.0))],
        [
            Link(m1, np.diag([0.001, 0.001, i1]), com=(lc1, 0, 0)),
            Link(m2, np.diag([0.001, 0.001, i2]), com=(lc2, 0, 0)),
        ],
        q=q,
        qdot=qd,
    )
    c2, s2 = math.cos(q[1]), math.sin(q[1])
    M = np.array(
        [
            [
                m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2) + i1 + i2,
                m2 * (lc2**2 + l1 * lc2 * c2) + i2,
            ],
            [m2 * (lc2**2 + l1 * lc2 * c2) + i2, m2 * lc2**2 + i2],
        ]
    )
    hh = m2 * l1 * lc2 * s2
    Cqd = np.array([-hh * (2 * qd[0] * qd[1] + qd[1] ** 2), hh * qd[0] ** 2])
    grav = np.array(
        [
            (m1 * lc1 + m2 * l1) * g * math.cos(q[0]) + m2 * lc2 * g * math.cos(q[0] + q[1]),
            m2 * lc2 * g * math.cos(q[0] + q[1]),
        ]
    )
    np.testing.assert_allclose(arm.mass_matrix(), M, atol=1e-12)
    np.testing.assert_allclose(arm.velocity_product_forces(), -Cqd, atol=1e-11)
    np.testing.assert_allclose(arm.gravity_forces((0, -g, 0)), -grav, atol=1e-11)


def test_dh_transform_is_corke_standard():
    """Child frame = parent Rz(theta) Tz(d) Tx(a) Rx(alpha) with the offset added to q."""

    def T(theta, d, a, alpha):
        Rz, Rx = np.eye(4), np.eye(4)
        Rz[:3, :3] = rot(np.array([0.0, 0.0, 1.0]), theta)
        Rx[:3, :3] = rot(np.array([1.0, 0.0, 0.0]), alpha)
        Tz, Tx = np.eye(4), np.eye(4)
        Tz[2, 3] = d
        Tx[0, 3] = a
        return Rz @ Tz @ Tx @ Rx

    arm = Manipulator(
        "dh",
        [Revolute.dh(0.2, 0.3, 0.7, offset=0.1), Prismatic.dh(0.4, 0.5, -0.6, offset=0.05)],
        [Link(1.0, np.eye(3)), Link(1.0, np.eye(3))],
        q=[0.9, 0.25],
    )
    expected = T(0.9 + 0.1, 0.2, 0.3, 0.7) @ T(0.4, 0.25 + 0.05, 0.5, -0.6)
    R, p = arm.link_frames()[1]
    np.testing.assert_allclose(R, expected[:3, :3], atol=1e-12)
    np.testing.assert_allclose(p, expected[:3, 3], atol=1e-12)


def test_base_forms_agree_and_link_lookup_by_name():
    rng = np.random.default_rng(7)
    arm = random_axis_arm(rng)
    T = arm.base
    other = Manipulator("same", arm.joints, arm.links, arm.q, arm.qdot, base=(T[:3, 3], T[:3, :3]))
    for (R1, p1), (R2, p2) in zip(arm.link_frames(), other.link_frames(), strict=True):
        np.testing.assert_allclose(R1, R2, atol=1e-12)
        np.testing.assert_allclose(p1, p2, atol=1e-12)
    np.testing.assert_array_equal(arm.angular_jacobian("l2"), arm.angular_jacobian(2))


def test_unknown_efforts_and_prescribed_accelerations():
    joints = [Revolute(name="a"), Revolute(origin=(1, 0, 0), name="b")]
    links = [Link(1.0, np.eye(3) * 0.1), Link(1.0, np.eye(3) * 0.1)]
    arm = Manipulator(
        "arm",
        joints,
        links,
        [0, 0],
        [0, 0],
        efforts=[1.5, None],
        prescribed_accelerations={"b": 0.5},
    )
    assert arm.efforts == [1.5, None]
    assert arm.prescribed_accelerations == [None, 0.5]
    np.testing.assert_array_equal(arm.unknown_efforts, [False, True])
    same = Manipulator(
        "arm",
        joints,
        links,
        [0, 0],
        [0, 0],
        efforts=[1.5, None],
        prescribed_accelerations=[None, 0.5],
    )
    assert same.prescribed_accelerations == [None, 0.5]
    with pytest.raises(DeclarationError, match=r"joint 1 \('b'\): effort is unknown"):
        Manipulator("arm", joints, links, [0, 0], efforts=[1.5, None])
    with pytest.raises(DeclarationError, match="both an effort and a prescribed acceleration"):
        Manipulator("arm", joints, links, [0, 0], prescribed_accelerations=[0.1, None])
    with pytest.raises(DeclarationError, match="prescribed_accelerations must have length 2"):
        Manipulator("arm", joints, links, [0, 0], efforts=[1, None], prescribed_accelerations=[0.1])
    with pytest.raises(DeclarationError, match="prescribed_accelerations key 'c'"):
        Manipulator("arm", joints, links, [0, 0], efforts=[1, None], prescribed_accelerations={"c": 1})


GOOD_JOINTS = [Revolute(), Revolute(origin=(1, 0, 0))]
GOOD_LINKS = [Link(1.0, np.eye(3)), Link(1.0, np.eye(3))]


def two(q=(0, 0), **kwargs) -> Manipulator:
    return Manipulator("m", GOOD_JOINTS, GOOD_LINKS, q, **kwargs)


@pytest.mark.parametrize(
    ("build", "pattern"),
    [
        (lambda: Link(-1.0, np.eye(3), name="upper"), r"'upper': mass must be > 0 .*-1\.0.*kg"),
        (lambda: Link(0.0, np.eye(3)), "mass must be > 0"),
        (lambda: Link(float("nan"), np.eye(3)), "mass must be > 0 and finite"),
        (lambda: Link(1.0, np.triu(np.ones((3, 3))), name="f"), "'f': inertia must be symmetric"),
        (lambda: Link(1.0, np.diag([1.0, -0.1, 1.0])), "inertia must be positive semidefinite"),
        (lambda: Link(1.0, np.eye(2)), r"inertia must have shape \(3, 3\)"),
        (lambda: Link(1.0, np.diag([1.0, np.nan, 1.0])), "inertia must be finite"),
        (lambda: Link(1.0, np.eye(3), com=(0, np.inf, 0)), "com must be finite"),
        (lambda: Revolute(axis=(0, 0, 0), name="w"), "revolute joint 'w': axis must be nonzero"),
        (lambda: Prismatic(axis=(0, 1)), r"prismatic joint: axis must have shape \(3,\)"),
        (lambda: Revolute(origin=(np.nan, 0, 0)), "origin must be finite"),
        (lambda: Revolute.dh(d=np.nan, a=0, alpha=0), "DH d must be finite"),
        (
            lambda: Revolute(axis=(1, 0, 0), dh_params=DHParams(0, 0, 1, 0)),
            "give either axis/origin .* or dh_params",
        ),
        (lambda: Manipulator("m", GOOD_JOINTS, GOOD_LINKS[:1], [0, 0]), "links must have length 2"),
        (lambda: two([0, 0, 0]), r"'m': q must have shape \(2,\)"),
        (lambda: two(qdot=[0]), r"qdot must have shape \(2,\)"),
        (lambda: two([0, np.nan]), "q must be finite"),
        (lambda: two(efforts=[1.0]), "efforts must have length 2"),
        (lambda: two(efforts=[1.0, np.nan]), "effort must be finite"),
        (lambda: two(base=np.ones((4, 4))), "base must be finite with last row"),
        (lambda: two(base=([0, 0, 0], 2 * np.eye(3))), "base rotation is not a rotation"),
        (lambda: Manipulator("m", [], [], []), "joints must not be empty"),
        (lambda: Manipulator("m", GOOD_LINKS[:1], GOOD_LINKS[:1], [0]), r"joints\[0\] must be a"),
        (lambda: two().point_jacobian(2, (0, 0, 0)), "link_index must be an int in 0..1"),
        (lambda: two().point_jacobian(0, (0, 0)), r"point_world must have shape \(3,\)"),
        (lambda: two().bias_forces((0, 0, np.nan)), "gravity must be finite"),
    ],
)  # fmt: skip
def test_bad_declarations_name_the_field(build, pattern):
    with pytest.raises(DeclarationError, match=pattern):
        build()


# Seed 001 section 4: two SCARA fingers grasping a cube of half-side r.
R_CUBE, A_PALM, B_BASE, L1, L2, L3 = 0.2, 0.5, 0.8, 0.4, 0.25, 0.0
THETA1 = math.asin(L2 / (2 * L1))
THETA2 = -THETA1 - math.pi / 6
CONFIG_1 = (THETA1, THETA2, -math.pi / 6, 0.0)
CONFIG_2 = (THETA1 + math.pi, THETA2, -math.pi / 6, 0.0)
REACH = L1 * math.cos(THETA1) + L2 * math.cos(math.pi / 6)


def fingertip(q, base=None) -> np.ndarray:
    return scara("finger", L1, L2, L3, q=q, base=base).link_frames()[3][1]


def test_seed001_scara_fingertips_in_their_base_frames():
    """Each fingertip lies on its base's x axis (l1 sin(theta1) = l2/2 cancels l2 sin(-pi/6)),
    at distance REACH = l1 cos(theta1) + l2 cos(pi/6) = 0.59647 m, robot 2 on the -x side;
    the tool z is the prismatic value -pi/6 m; tool yaw theta1 + theta2 = -pi/6."""
    p1, p2 = fingertip(CONFIG_1), fingertip(CONFIG_2)
    np.testing.assert_allclose(p1, [REACH, 0.0, -math.pi / 6], atol=1e-12)
    np.testing.assert_allclose(p2, [-REACH, 0.0, -math.pi / 6], atol=1e-12)
    assert REACH == pytest.approx(0.596473, abs=1e-6)
    R1 = scara("finger", L1, L2, L3, q=CONFIG_1).link_frames()[3][0]
    np.testing.assert_allclose(R1, rot(np.array([0.0, 0.0, 1.0]), -math.pi / 6), atol=1e-12)


def test_seed001_scara_grasp_geometry_with_bases_at_plus_minus_b():
    """Bases at -b and +b on the palm x axis (both with the palm's orientation, robot 1 at -b
    reaching +x, robot 2 at +b reaching -x): the fingertips face each other on the line through
    the cube centre, but they are 2 (b - REACH) = 0.40705 m apart, not 2 r = 0.4 m; the printed
    parameters leave a 3.5 mm gap at each face. b = r + REACH = 0.79647 m would close it."""
    T1 = np.eye(4)
    T1[0, 3] = -B_BASE
    f1 = fingertip(CONFIG_1, base=T1)
    f2 = fingertip(CONFIG_2, base=([B_BASE, 0.0, 0.0], np.eye(3)))
    separation = float(np.linalg.norm(f2 - f1))
    np.testing.assert_allclose(f1 - f2, [-separation, 0.0, 0.0], atol=1e-12)
    assert separation == pytest.approx(2 * (B_BASE - REACH), abs=1e-12)
    assert separation == pytest.approx(0.407053, abs=1e-6)
    assert separation - 2 * R_CUBE == pytest.approx(0.007053, abs=1e-6)
    f1_exact = fingertip(CONFIG_1, base=([-(R_CUBE + REACH), 0.0, 0.0], np.eye(3)))
    f2_exact = fingertip(CONFIG_2, base=([R_CUBE + REACH, 0.0, 0.0], np.eye(3)))
    assert np.linalg.norm(f2_exact - f1_exact) == pytest.approx(2 * R_CUBE, abs=1e-12)


def test_seed001_scara_dynamics_are_consistent():
    arm = scara("finger", L1, L2, L3, q=CONFIG_1, qdot=(0.4, -0.3, 0.2, 1.0))
    M = arm.mass_matrix()
    assert np.linalg.eigvalsh(M)[0] > 0
    tip = arm.link_frames()[3][1]
    J = arm.point_jacobian(3, tip)
    np.testing.assert_allclose(J[:, 2], [0.0, 0.0, 1.0], atol=1e-12)
    np.testing.assert_allclose(J[:, 3], 0.0, atol=1e-12)
    g = arm.gravity_forces((0.0, 0.0, -9.81))
    np.testing.assert_allclose(g, [0.0, 0.0, -9.81 * 0.2, 0.0], atol=1e-12)


def test_joint_axes_and_potential_energy_by_hand() -> None:
    """SCARA (joints about and along the vertical): every axis is +z, on the vertical line through
    the previous frame's origin, joint 3 prismatic; only the quill and tool leave z = 0, at q3 and
    q3 + l3."""
    q = (0.3, -0.7, 0.05, 1.1)
    arm = scara("finger", 0.4, 0.3, 0.1, q=q, masses=(1.0, 2.0, 0.5, 0.25))
    points, axes, revolute = arm.joint_axes()
    assert revolute.tolist() == [True, True, False, True]
    np.testing.assert_allclose(axes, np.tile([0.0, 0.0, 1.0], (4, 1)), atol=1e-15)
    origins = [p for _, p in arm.link_frames()]
    np.testing.assert_allclose(points[0], [0.0, 0.0, 0.0], atol=1e-15)
    for i in (1, 2, 3):
        np.testing.assert_allclose(points[i][:2], origins[i - 1][:2], atol=1e-15)
    g = 9.81
    expected = g * (0.5 * 0.05 + 0.25 * (0.05 + 0.1))
    assert arm.potential_energy((0.0, 0.0, -g)) == pytest.approx(expected, rel=1e-12)
