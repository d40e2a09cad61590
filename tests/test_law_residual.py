"""The law residual the dispatcher computes for every solver: friction-set projections checked by
their variational inequality, zero at the catalogue's known answers under every law, large at wrong
ones, and an MNCP answer whose MCP residual understates its error is not reported as solved."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.friction.sets import (
    project_box,
    project_ellipsoid,
    project_ellipsoids,
    project_polygon,
    project_polytope,
)
from contactmodel.solve import law_residual

floats = st.floats(-10, 10, allow_nan=False)


def _is_projection(y, p, boundary, inside) -> bool:
    """p = P_S(y) iff p in S and (y - p) . (s - p) <= 0 for every s in S (enough: the boundary)."""
    gap = (boundary - p) @ (y - p)
    return inside(p) and gap.max() <= 1e-9 * max(1.0, float(np.abs(y).max()) ** 2)


@settings(max_examples=200, deadline=None)
@given(st.lists(floats, min_size=3, max_size=3), st.lists(st.floats(0.05, 5), min_size=3, max_size=3))
def test_ellipsoid_projection(y, radii):
    y, r = np.array(y), np.array(radii)
    p = project_ellipsoid(y, r)
    u = np.random.default_rng(0).standard_normal((4000, 3))
    boundary = r * u / np.linalg.norm(u, axis=1)[:, None]
    assert _is_projection(y, p, boundary, lambda z: np.sum((z / r) ** 2) <= 1 + 1e-12)
    # and it is the nearest of the sampled points, up to the sampling
    assert np.linalg.norm(y - p) <= np.linalg.norm(boundary - y, axis=1).min() + 1e-12


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6), st.integers(1, 3))
def test_ellipsoid_projections_of_many_points_are_each_ones(seed, k, d):
    """The vectorized projection (Newton's method for the multiplier) is the one-point projection
    (Brent's) row by row, to rounding: points inside and outside, zero radii, balls, any scale."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(k, d)) * 10.0 ** rng.uniform(-6, 6, size=(k, 1))
    r = rng.uniform(0.0, 2.0, size=(k, d)) * 10.0 ** rng.uniform(-6, 3, size=(k, 1))
    r[rng.random((k, d)) < 0.15] = 0.0
    if rng.random() < 0.3:
        r[:] = r[:, :1]  # balls
    many = project_ellipsoids(y, r)
    for row, (yy, rr) in enumerate(zip(y, r)):
        one = project_ellipsoid(yy, rr)
        np.testing.assert_allclose(many[row], one, rtol=0, atol=1e-14 * np.abs(yy).max())


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 8), st.integers(1, 4))
def test_a_few_points_project_as_in_a_batch_bit_for_bit(seed, k, d):
    """At most eight points are projected one by one in Python floats, more in arrays: the same
    bits, in every case (inside, balls, zero radii, Newton's iterates, any scale)."""
    rng = np.random.default_rng(seed)
    y = rng.normal(size=(k, d)) * 10.0 ** rng.uniform(-8, 8, size=(k, 1))
    r = rng.uniform(0.0, 2.0, size=(k, d)) * 10.0 ** rng.uniform(-8, 4, size=(k, 1))
    r[rng.random((k, d)) < 0.15] = 0.0
    balls = rng.random(k) < 0.3
    r[balls] = r[balls, :1] * (1.0 + 1e-7 * rng.random((balls.sum(), d)))  # within np.allclose
    inside = rng.random(k) < 0.3
    largest = np.abs(y[inside]).max(axis=1, keepdims=True) + 1e-300
    y[inside] *= 1e-3 * r[inside].max(axis=1, keepdims=True) / largest
    others = rng.normal(size=(9, d))
    batch = project_ellipsoids(np.vstack([y, others]), np.vstack([r, np.ones((9, d))]))
    np.testing.assert_array_equal(project_ellipsoids(y, r), batch[:k])


@settings(max_examples=200, deadline=None)
@given(st.lists(floats, min_size=2, max_size=2), st.integers(3, 9), st.floats(0, 1), st.floats(0, 3))
def test_polygon_projection(y, k, offset, scale):
    y = np.array(y)
    th = offset + 2 * np.pi * np.arange(k) / k
    V = scale * np.column_stack([np.cos(th), np.sin(th)])
    p = project_polygon(y, V)
    t = np.linspace(0, 1, 200)[:, None]
    boundary = np.concatenate([V[i] + t * (V[(i + 1) % k] - V[i]) for i in range(k)])
    edges = np.roll(V, -1, axis=0) - V
    outward = np.column_stack([edges[:, 1], -edges[:, 0]])
    assert _is_projection(y, p, boundary, lambda z: np.all(np.einsum("ij,ij->i", outward, z - V) <= 1e-9))


@settings(max_examples=100, deadline=None)
@given(st.lists(floats, min_size=3, max_size=3), st.floats(0.1, 3))
def test_polytope_projection_matches_the_box(y, half):
    """The cube |p_i| <= half in face form: its projection is the clip."""
    G = np.vstack([np.eye(3), -np.eye(3)])
    p = project_polytope(np.array(y), G, np.full(6, half))
    np.testing.assert_allclose(p, np.clip(y, -half, half), atol=1e-12)


def test_box_and_degenerate_sets():
    np.testing.assert_array_equal(project_box(np.array([3.0, -0.2]), np.array([1.0, 1.0])), [1.0, -0.2])
    np.testing.assert_array_equal(project_ellipsoid(np.array([1.0, 2.0]), np.zeros(2)), [0.0, 0.0])
    np.testing.assert_allclose(project_ellipsoid(np.array([3.0, 4.0]), np.full(2, 2.0)), [1.2, 1.6])


CASES = [catalogue.get(name) for name in catalogue.CASES]
PAIRS = [(case, law) for case in CASES for law in case.laws()]
IDS = [f"{case.name}-{type(law).__name__}{getattr(law, 'k', '')}" for case, law in PAIRS]


def _law_residual(problem, forces) -> float:
    problem.load_forces(forces)
    c = problem.force_vector()
    return law_residual(problem, c, problem.assembly.contact_accelerations(c))


@pytest.mark.parametrize(("case", "law"), PAIRS, ids=IDS)
def test_zero_at_known_answers_and_large_at_wrong_ones(case, law):
    problem = cm.formulate(case.build(), friction=law)
    assert _law_residual(problem, case.forces) < 1e-9
    doubled_normal = {k: [2 * v[0], *v[1:]] for k, v in case.forces.items()}
    assert _law_residual(problem, doubled_normal) > 1e-2
    if not problem.assembly.sliding and any(abs(v[1]) > 0 for v in case.forces.values()):
        flipped_friction = {k: [v[0], -v[1], *v[2:]] for k, v in case.forces.items()}
        assert _law_residual(problem, flipped_friction) > 1e-2


def test_mncp_answer_outside_the_cone_is_not_solved():
    """box_push_sliding in the sparse form: newton stops at MCP residual ~1e-12 with one corner's
    force 4e-6 outside the cone (the MNCP squares the forces); the law residual catches it, and the
    SOC form of the same law solves the same problem."""
    case = catalogue.get("box_push_sliding")
    mncp = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu), form="sparse")
    sol = cm.solve(mncp, solver="newton")
    if sol.residual <= 1e-8 and sol.checks["law_residual"] > 1e-8:
        assert sol.status is not cm.Status.SOLVED and "contact laws hold only" in sol.message
    else:  # a newton that gets there is fine too, as long as the law holds
        assert sol.status is cm.Status.SOLVED and sol.checks["law_residual"] <= 1e-8
    soc = cm.solve(mncp.reformulate(friction=cm.CoulombCone(case.mu, form="soc")), solver="newton")
    assert soc.status is cm.Status.SOLVED and soc.checks["law_residual"] <= 1e-12


@settings(max_examples=300, deadline=None)
@given(st.lists(floats, min_size=3, max_size=3), st.lists(floats, min_size=3, max_size=3), st.booleans())
def test_cone_law_residual_is_the_fclib_natural_map(c, a, rolling):
    """The cone's scalar law residual equals the vectorized natural map of contactmodel.mcp.cones."""
    from contactmodel.friction.base import ContactContext
    from contactmodel.mcp.cones import residual

    c, a = np.array(c), np.array(a)
    if rolling:
        a[1:] = 0.0
    law = cm.CoulombCone(0.6)
    ctx = ContactContext(None, np.zeros(3), 1e-9)
    expected = float(np.abs(residual(c, a, np.array([0.6]))).max())
    assert law.law_residual(ctx, c, a) == pytest.approx(expected, rel=1e-12, abs=1e-12)
