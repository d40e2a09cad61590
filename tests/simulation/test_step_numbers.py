"""The vectorized per-step numbers against independent formulas (scipy's rotations, numpy's
cross product, the sparse product for A)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.simulation import stepper
from contactmodel.simulation.kinematics import cross
from contactmodel.simulation.stepper import Simulator, quat_matrices, quat_step, quat_steps

from .scenes import sliding_box


def test_quaternion_matrices_match_scipy():
    rng = np.random.default_rng(3)
    Q = rng.normal(size=(20, 4))
    Q /= np.linalg.norm(Q, axis=1)[:, None]
    expected = Rotation.from_quat(Q[:, [1, 2, 3, 0]]).as_matrix()
    matrices = quat_matrices(Q)
    assert np.abs(matrices - expected).max() < 1e-14
    # one quaternion (Python floats): the same numbers as its row among many, bit for bit
    assert all(np.array_equal(quat_matrices(Q[k : k + 1])[0], matrices[k]) for k in range(len(Q)))


def test_quaternion_steps_turn_by_h_omega():
    """exp(h omega / 2) (x) q: the rotation of q+ is the rotation by the vector h omega (world
    axes) after the rotation of q; omega = 0 keeps q; each row as the single-quaternion step
    (Python floats), bit for bit."""
    rng = np.random.default_rng(4)
    Q = rng.normal(size=(6, 4))
    Q /= np.linalg.norm(Q, axis=1)[:, None]
    W = rng.normal(size=(6, 3)) * 3.0
    W[2] = 0.0
    h = 0.01
    out = quat_steps(Q, W, h)
    for k in range(6):
        turned = Rotation.from_rotvec(h * W[k]) * Rotation.from_quat(Q[k, [1, 2, 3, 0]])
        assert np.abs(quat_matrices(out[k : k + 1])[0] - turned.as_matrix()).max() < 1e-13
        assert np.array_equal(quat_step(Q[k], W[k], h), out[k])
    assert np.allclose(out[2], Q[2], atol=1e-15)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-15)


def test_cross_matches_numpy_with_broadcasting():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(7, 1, 3)), rng.normal(size=(7, 3, 3))
    assert np.array_equal(cross(a, b), np.cross(a, b))
    assert np.array_equal(cross(a[0, 0], b[0, 0]), np.cross(a[0, 0], b[0, 0]))


def test_dense_and_sparse_delassus_agree(monkeypatch):
    """A = G M^-1 G^T formed densely (small G) equals the sparse product, and is symmetric."""
    system, planes = sliding_box((0.3, 0.2, 0.0))
    system.bodies[0].angular_velocity = np.array([0.5, -0.2, 1.0])
    sim = Simulator(system, 1e-3, cm.CoulombCone(0.5, form="soc"), "newton", planes)
    contacts, gaps = sim.contacts()
    dense = sim.step_assembly(contacts, gaps).A_sparse
    monkeypatch.setattr(stepper, "DENSE_A", 0)
    sparse = sim.step_assembly(contacts, gaps).A_sparse
    assert dense.shape == sparse.shape == (12, 12)
    assert abs(dense - sparse).max() < 1e-13
    assert abs(dense - dense.T).max() == 0.0
    assert isinstance(dense, sp.csr_matrix)


def test_energy_of_all_bodies_at_once_equals_the_sum_body_by_body():
    """The kinetic energy sum of 1/2 m v.v + 1/2 w.(R I R^T) w and the potential -m g.x, over
    bodies at random poses and velocities, as summed body by body."""
    rng = np.random.default_rng(3)
    system = cm.System()
    for k in range(5):
        system.add_body(
            f"b{k}",
            rng.uniform(0.5, 2.0),
            cm.inertia.box(1.0, tuple(rng.uniform(0.1, 0.5, 3))),
            position=tuple(rng.standard_normal(3)),
            orientation=Rotation.random(random_state=k).as_matrix(),
            velocity=tuple(rng.standard_normal(3)),
            angular_velocity=tuple(rng.standard_normal(3)),
        )
    kinetic, potential = Simulator(system, 1e-3, friction=cm.Pyramid(0.5)).energy()
    g = np.asarray(system.gravity)
    k_sum = sum(
        0.5 * b.mass * b.velocity @ b.velocity + 0.5 * (w := b.angular_velocity) @ b.inertia_world @ w
        for b in system.bodies
    )
    p_sum = sum(-b.mass * g @ b.position for b in system.bodies)
    assert kinetic == pytest.approx(k_sum, rel=1e-13) and potential == pytest.approx(p_sum, rel=1e-13)


@pytest.mark.parametrize(
    "spin, law",
    [(0.0, cm.Pyramid(0.5)), (0.0, cm.CoulombCone(0.5, form="mncp")), (3.0, cm.Pyramid(0.5))],
    ids=["sliding", "sliding_mncp", "spinning"],
)
def test_a_step_keeps_the_last_formed_A_only_while_it_stands(monkeypatch, spin, law):
    """Every step's A (kept from an earlier step or formed) is its own G M^-1 G^T to 1e-12 of its
    largest entry; a cube sliding without turning keeps the A once formed, a spinning one (G
    turning with it) forms its own each step. Under the cone's MNCP the answers (within the
    tolerance) turn the cube ever faster, by 4e-11 rad/s a step: A is kept while G's change stays
    within A_RTOL, then formed anew."""
    steps = []
    adopt = Simulator.adopt_A

    def spy(self, step):
        adopt(self, step)
        steps.append(step)

    monkeypatch.setattr(Simulator, "adopt_A", spy)
    system, planes = sliding_box((0.5, 0.0, 0.0))
    system.bodies[0].angular_velocity = np.array([0.0, 0.0, spin])
    cm.simulate(system, 0.05, 1e-3, friction=law, planes=planes)
    kept = 0
    for before, step in zip(steps, steps[1:]):
        G = step.G.toarray()
        fresh = G @ step.Minv.toarray() @ G.T
        assert abs(step.A_sparse.toarray() - fresh).max() <= 1e-12 * abs(fresh).max()
        kept += step.A_sparse is before.A_sparse
    assert len(steps) == 50
    if spin:
        assert kept == 0
    elif isinstance(law, cm.Pyramid):
        assert kept > len(steps) // 2
    else:  # the MNCP's answers turn the cube by 1e-11 rad/s more each step: A kept for a while
        assert kept >= 10, kept
