"""cm.decide on round friction laws at rolling contacts: the continuum test (internal forces that
produce no motion) and strong monotonicity of De Saxcé's form for the cone, the ellipsoid and the
ellipse with a torsional interval; hand-derived cases, independent checks of each claim."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.analysis.decide import (
    Status,
    _force_map,
    continuum_solution,
    decide,
    monotone_matrix,
    monotone_uniqueness,
)
from contactmodel.solve import relative_residual, residual_scale, solve

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
E = (1.0, 0.7, 0.05)  # semi-axes (e_t, e_o, e_r) of the ellipsoid laws


def _box(law, push: float = 0.0, torsion: bool = False) -> cm.Problem:
    """A 2 kg box (0.4 m cube) at rest on four corner contacts, optionally pushed along x at its
    centre of mass (N): four contacts, six freedoms, statically indeterminate."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    box = system.add_body(
        "box",
        mass=2.0,
        inertia=cm.inertia.box(2.0, (0.4, 0.4, 0.4)),
        position=(0.0, 0.0, 0.2),
        wrench=(push, 0.0, 0.0, 0.0, 0.0, 0.0),
    )
    for i, (x, y) in enumerate([(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0.0),
            normal=(0.0, 0.0, 1.0),
            friction=law,
            name=f"c{i}",
            torsion=torsion,
        )
    return cm.formulate(system)


def _solves(problem: cm.Problem, c: np.ndarray, tol: float = 1e-8) -> bool:
    """Forces c (assembly rows) lifted by the laws solve the MCP and the laws (relative residuals)."""
    problem.load_forces(c)
    x = problem.compile().values()
    mcp = problem.compile().mcp
    a = problem.assembly.contact_accelerations(c)
    return relative_residual(mcp, x) <= tol and problem.law_residual(c, a) / residual_scale(mcp) <= tol


@pytest.mark.parametrize(
    ("law", "torsion"),
    [
        (cm.CoulombCone(0.5), False),
        (cm.Ellipsoid(0.5, *E), True),
        (cm.EllipticTorsion(0.5, *E), True),
    ],
)
def test_resting_box_is_a_continuum_of_forces_with_one_motion(law, torsion: bool) -> None:
    problem = _box(law, torsion=torsion)
    result = decide(problem)
    assert result.status is Status.MULTIPLE and result.evidence["continuum"]
    assert result.evidence["force_distance"] > 1e-3 and result.evidence["motion_distance"] < 1e-9
    C = _force_map(problem)
    c1, c2 = (C @ x for x in result.solutions[:2])
    rows = [problem.assembly.row(f"c{i}", "n") for i in range(4)]
    for lam in (0.0, 0.25, 0.5, 0.75, 1.0):  # the whole segment solves, with the weight carried
        c = (1 - lam) * c1 + lam * c2
        assert _solves(problem, c)
        assert c[rows].sum() == pytest.approx(2.0 * 9.81, rel=1e-8)
    # the same accelerations at both ends, the box at rest
    a1, a2 = (problem.assembly.contact_accelerations(c) for c in (c1, c2))
    assert np.abs(a1 - a2).max() < 1e-9 and np.abs(a1).max() < 1e-8


def test_pushed_sliding_box_is_a_continuum_along_the_friction_rays() -> None:
    # pushed with 20 N > mu m g = 5.9 N: every contact slips (a_T != 0), so each force keeps its
    # ray c_n (1, -mu u); the rays still leave one internal force pattern (+, -, +, -) of the corners
    problem = _box(cm.CoulombCone(0.3), push=20.0)
    x1 = solve(problem, solver="newton").x
    C = _force_map(problem)
    c1 = C @ x1
    a1 = problem.assembly.contact_accelerations(c1)
    found = continuum_solution(problem, x1)
    assert found is not None and set(found["moves"].values()) == {"ray"}
    c2 = C @ found["x2"]
    for name in problem.contact_names:
        idx = problem.assembly.indices(name)
        assert np.linalg.norm(a1[idx][1:]) > 1.0  # slipping
        # the force stays on its ray: c2 parallel to c1 at every contact
        assert np.linalg.norm(np.cross(c1[idx], c2[idx])) < 1e-9 * np.linalg.norm(c1[idx]) ** 2
    normals = [problem.assembly.row(f"c{i}", "n") for i in range(4)]
    d = (c2 - c1)[normals]
    assert np.abs(d).max() > 1e-3
    np.testing.assert_allclose(d, d[0] * np.array([1, -1, 1, -1]), atol=1e-9 * np.abs(d).max())
    for lam in (0.0, 0.5, 1.0):
        assert _solves(problem, (1 - lam) * c1 + lam * c2)


def _ball(law, torsion: bool, push: float = 3.0) -> cm.Problem:
    """A ball (m = 1, R = 1, I = 2/5) at rest on the ground, pushed sideways: one rolling contact."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    ball = system.add_body(
        "ball",
        mass=1.0,
        inertia=cm.inertia.sphere(1.0, 1.0),
        position=(0, 0, 1),
        wrench=(push, 0, 0, 0, 0, 0),
    )
    system.add_contact(ball, system.ground, point=(0, 0, 0), normal=(0, 0, 1), friction=law, torsion=torsion)
    return cm.formulate(system)


def test_no_continuum_where_a_is_positive_definite() -> None:
    problem = _ball(cm.CoulombCone(0.5), False)
    x1 = solve(problem, solver="newton").x
    assert continuum_solution(problem, x1) is None


def _one_contact(law, A: np.ndarray, b: np.ndarray) -> cm.Problem:
    return cm.formulate_from_matrices(A, b, friction=law, torsion=len(b) == 4)


@pytest.mark.parametrize("cls", [cm.Ellipsoid, cm.EllipticTorsion])
def test_monotone_q_equals_the_hand_formula(cls) -> None:
    # A = 10 I (n, t, o, r), one rolling contact: E = I, K = A. Ellipsoid: one norm mu ||e * v||,
    # Q = A - mu/2 (eps diag(0, e^2) 100 + e_n e_n^T / eps). EllipticTorsion: the ellipse's norm
    # (e_t, e_o) and the interval |c_r| <= e_r mu: w = e_r mu, one more e_n e_n^T / eps term.
    mu = 0.2
    problem = _one_contact(cls(mu, *E), 10.0 * np.eye(4), np.array([-1.0, 0.1, 0.2, 0.01]))
    e = np.array(E)
    for eps in (0.05, 0.3, 2.0):
        if cls is cm.Ellipsoid:
            Q = 10.0 * np.eye(4) - 0.5 * mu * eps * 100.0 * np.diag([0.0, *e**2])
            Q[0, 0] -= 0.5 * mu / eps
        else:
            w = E[2] * mu
            Q = 10.0 * np.eye(4) - 0.5 * eps * 100.0 * np.diag([0.0, mu * e[0] ** 2, mu * e[1] ** 2, w])
            Q[0, 0] -= 0.5 * (mu + w) / eps
        np.testing.assert_allclose(monotone_matrix(problem, eps), Q, rtol=1e-12, atol=1e-12)
    proof = monotone_uniqueness(problem)
    # PD iff 10 - (mu [+ w]) / (2 eps) > 0 and 10 - 10 eps mu e_t^2 ... > 0: the first grid value
    # 10^(-3 + k/4) above 0.01 (0.0105 with torsion) is 10^-1.75
    assert proof is not None and proof["eps"] == pytest.approx(10**-1.75)
    result = decide(problem)
    assert result.status is Status.UNIQUE and "strongly monotone" in result.evidence["proof"]


def _support(law, v: np.ndarray) -> float:
    """max of s . v over the law's friction set at unit normal force, by brute force over its
    boundary: the ellipsoid sampled (200,000 points), the ellipse x interval as the product."""
    rng = np.random.default_rng(0)
    e, mu = np.array([law.e_t, law.e_o, law.e_r]), law.mu
    if isinstance(law, cm.Ellipsoid):
        u = rng.normal(size=(200_000, 3))
        s = mu * e * u / np.linalg.norm(u, axis=1, keepdims=True)
        return float((s @ v).max())
    th = np.linspace(0.0, 2 * np.pi, 200_001)
    s = mu * e[:2] * np.column_stack([np.cos(th), np.sin(th)])
    return float((s @ v[:2]).max()) + e[2] * mu * abs(v[2])


@pytest.mark.parametrize("cls", [cm.Ellipsoid, cm.EllipticTorsion])
def test_de_saxce_map_is_bounded_below_by_q(cls) -> None:
    # (Phi(y1) - Phi(y2)) . d >= d^T Q d for points of the cone, Phi built here from the set's
    # support function computed by brute force (not the closed form the proof uses)
    law = cls(0.6, *E)
    rng = np.random.default_rng(1)
    G = rng.normal(size=(4, 4))
    A = G @ G.T + np.eye(4)
    b = rng.normal(size=4)
    problem = _one_contact(law, A, b)

    def phi(y: np.ndarray) -> np.ndarray:
        a = A @ y + b
        out = a.copy()
        out[0] += _support(law, -a[1:])
        return out

    for eps in (0.1, 1.0):
        Q = monotone_matrix(problem, eps)
        for _ in range(20):
            y1, y2 = rng.normal(size=4), rng.normal(size=4)
            d = y1 - y2
            assert (phi(y1) - phi(y2)) @ d >= d @ Q @ d - 1e-3 * (1 + d @ d)


def test_opposite_ellipsoid_is_not_claimed() -> None:
    # friction along -a, not maximum work over the ellipsoid: no VI of De Saxcé's form
    law = cm.Ellipsoid(0.2, *E, direction="opposite")
    problem = _one_contact(law, 10.0 * np.eye(4), np.array([-1.0, 0.1, 0.2, 0.01]))
    assert monotone_uniqueness(problem) is None


def _agreement(law: str, index: int) -> cm.Problem:
    spec = importlib.util.spec_from_file_location("_agreement_round", BENCH / "agreement.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module.make_instance(law, index, 0, (1, 12)).problem


@pytest.mark.parametrize(("law", "index"), [("ellipsoid", 6), ("elliptic_torsion", 3)])
def test_two_verified_solutions_are_never_called_unique(law: str, index: int) -> None:
    problem = _agreement(law, index)
    assert monotone_uniqueness(problem) is None
    result = decide(problem, time_limit=10)
    assert result.status is Status.MULTIPLE
    C = _force_map(problem)
    mcp = problem.compile().mcp
    for x in result.solutions:
        assert relative_residual(mcp, x) <= 1e-8
    assert np.abs(C @ (result.solutions[0] - result.solutions[1])).max() > 1e-3
