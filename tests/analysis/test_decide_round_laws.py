"""cm.decide on round friction laws at rolling contacts: the continuum test (internal forces that
produce no motion) and strong monotonicity of De Saxcé's form for the cone, the ellipsoid and the
ellipse with a torsional interval; hand-derived cases, independent checks of each claim."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
from boxes import TRIANGLE, box_on_corners

import contactmodel as cm
from contactmodel.analysis.decide import Status, decide
from contactmodel.analysis.round_laws import (
    continuum_solution,
    force_map,
    internal_uniqueness,
    monotone_matrix,
    monotone_uniqueness,
)
from contactmodel.analysis.single_contact import cone_contact_modes, single_contact_modes
from contactmodel.solve import relative_residual, residual_scale, solve

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
E = (1.0, 0.7, 0.05)  # semi-axes (e_t, e_o, e_r) of the ellipsoid laws


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
    problem = box_on_corners(law, torsion=torsion)
    result = decide(problem)
    assert result.status is Status.MULTIPLE and result.evidence["continuum"]
    assert result.evidence["force_distance"] > 1e-3 and result.evidence["motion_distance"] < 1e-9
    C = force_map(problem)
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
    problem = box_on_corners(cm.CoulombCone(0.3), push=20.0)
    x1 = solve(problem, solver="newton").x
    C = force_map(problem)
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
    C = force_map(problem)
    mcp = problem.compile().mcp
    for x in result.solutions:
        assert relative_residual(mcp, x) <= 1e-8
    assert np.abs(C @ (result.solutions[0] - result.solutions[1])).max() > 1e-3


def _cone_contact(A, b, mu: float) -> cm.Problem:
    return cm.formulate_from_matrices(
        np.array(A, dtype=float), np.array(b, dtype=float), friction=cm.CoulombCone(mu)
    )


def test_one_rolling_contact_with_three_solutions() -> None:
    # W = [[1, 2, 0], [2, 5, 0], [0, 0, 5]], b = (1, 4, 0), mu = 1, by hand: separate (b_n = 1 >= 0);
    # stick c = -W^-1 b = (3, -2, 0), |c_T| = 2 <= 3; slide along +t: c = c_n (1, -1, 0),
    # a_n = -c_n + 1 = 0 -> c_n = 1, a_t = 2 - 5 + 4 = 1 > 0
    problem = _cone_contact([[1, 2, 0], [2, 5, 0], [0, 0, 5]], [1, 4, 0], 1.0)
    modes = single_contact_modes(problem)
    assert modes["count"] == 3 == _brute_force_count(problem)
    forces = {kind: c for kind, c in modes["forces"]}
    np.testing.assert_allclose(forces["separate"], 0.0)
    np.testing.assert_allclose(forces["stick"], [3.0, -2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(forces["slide"], [1.0, -1.0, 0.0], atol=1e-12)
    result = decide(problem)
    assert result.status is Status.MULTIPLE and result.evidence["complete"] and result.evidence["count"] == 3
    mcp = problem.compile().mcp
    assert len(result.solutions) == 3 and all(relative_residual(mcp, x) <= 1e-8 for x in result.solutions)


def test_one_rolling_contact_past_the_monotonicity_test_is_unique_by_its_modes() -> None:
    # W = I, mu = 2.5 (Q = diag(1 - mu / (2 eps), 1 - mu eps / 2, ...) is never positive definite
    # for mu >= 2), b = (-1, 6, 0): stick c = (1, -6, 0) is outside the cone, c = 0 needs b_n >= 0;
    # slide: c_n = 1, a_T = 6 e_t - 2.5 u = s u -> u = e_t, s = 3.5, the only direction
    problem = _cone_contact(np.eye(3), [-1, 6, 0], 2.5)
    assert monotone_uniqueness(problem) is None
    modes = single_contact_modes(problem)
    assert modes["count"] == 1 == _brute_force_count(problem)
    np.testing.assert_allclose(modes["forces"][0][1], [1.0, -2.5, 0.0], atol=1e-12)
    result = decide(problem)
    assert (
        result.status is Status.UNIQUE and result.exact and "enumerated exactly" in result.evidence["proof"]
    )


def _brute_force_count(problem: cm.Problem) -> int:
    """The solutions of one rolling Coulomb contact counted in floats, independently: separate,
    stick by a linear solve, slide by the sign changes of the slip condition over 20,000 angles
    (each refined by brentq, then c_n > 0 and s > 0 checked)."""
    from scipy.optimize import brentq

    A, b = problem.assembly.A, problem.assembly.b
    mu = problem.laws[problem.contact_names[0]].mu
    count = int(b[0] >= 0)
    c = -np.linalg.solve(A, b)
    count += int(c[0] > 0 and np.hypot(c[1], c[2]) <= mu * c[0])

    def parts(th: float) -> tuple[float, float, float]:
        u = np.array([np.cos(th), np.sin(th)])
        g = np.array([1.0, -mu * u[0], -mu * u[1]])
        Ag = A @ g
        cn = -b[0] / Ag[0]
        w = cn * Ag[1:] + b[1:]
        return w[0] * u[1] - w[1] * u[0], cn, w @ u  # cross (0 at a slide), c_n, s

    th = np.linspace(-np.pi, np.pi, 20_001) + 1e-4 * np.sqrt(2)  # the full circle, no grid point at 0
    f = np.array([parts(t)[0] for t in th])
    for i in np.flatnonzero(np.sign(f[:-1]) != np.sign(f[1:])):
        root = brentq(lambda t: parts(t)[0], th[i], th[i + 1])
        _, cn, s = parts(root)
        count += int(cn > 0 and s > 0)
    return count


def test_one_rolling_contact_modes_agree_with_a_brute_force_count() -> None:
    # W = G G^T with a strong normal-tangential coupling (Painlevé-like: several modes may solve)
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(40):
        G = rng.normal(size=(3, 3)) * [[0.3], [1.0], [1.0]] + [
            [0.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
        ]
        A = G @ G.T + 0.01 * np.eye(3)
        b = rng.normal(size=3) * 3
        mu = float(rng.uniform(0.3, 2.5))
        problem = _cone_contact(A, b, mu)
        modes = single_contact_modes(problem)
        assert modes is not None
        assert modes["count"] == _brute_force_count(problem)
        seen.add(modes["count"])
    assert len(seen) >= 2, seen  # the draw covers more than one count


def test_agreement_single_cone_contact_is_unique_by_its_modes() -> None:
    # agreement problem 32 (cone, mu = 1.0): one rolling contact, past the monotonicity test
    problem = _agreement("cone", 32)
    assert monotone_uniqueness(problem) is None
    result = decide(problem, time_limit=10)
    assert result.status is Status.UNIQUE and "enumerated exactly" in result.evidence["proof"]


def test_one_rolling_contact_without_solution_is_decided_by_its_modes() -> None:
    # W = -diag(1, 2, 3) (symmetric, not positive semidefinite), b = (-1, 0.5, 0.3): c = 0 needs
    # b_n >= 0; stick c = -W^-1 b = (-1, 0.25, 0.1) has c_n < 0; slide c = c_n g, g_n = 1: a_n =
    # -c_n - 1 = 0 needs c_n = -1 < 0 at every angle
    problem = _cone_contact(-np.diag([1.0, 2.0, 3.0]), [-1, 0.5, 0.3], 0.5)
    assert single_contact_modes(problem)["count"] == 0 == _brute_force_count(problem)
    result = decide(problem)
    assert result.status is Status.NO_SOLUTION and result.exact and not result.solutions
    assert "no mode solves" in result.evidence["certificate"]


def test_sliding_tripod_is_unique_up_to_internal_forces_excluded_by_the_faces() -> None:
    # pushed with 20 N > mu m g = 5.9 N: the box translates, every contact slips along +x, so each
    # force lies on its ray c_n (1, -mu, 0); the three in-plane internal forces (A d = 0, d_n = 0)
    # are Q's null directions and have no component along those rays: the forces are unique
    problem = box_on_corners(cm.CoulombCone(0.3), push=20.0, corners=TRIANGLE)
    assert monotone_uniqueness(problem) is None  # A is singular: no eps makes Q positive definite
    x1 = solve(problem, solver="newton").x
    proof = internal_uniqueness(problem, x1)
    assert proof is not None and proof["null_dimension"] == 3 and proof["face_singular_value"] > 1e-3
    Q = monotone_matrix(problem, proof["eps"])
    assert np.linalg.eigvalsh(Q).min() > -1e-9
    result = decide(problem)
    assert result.status is Status.UNIQUE and "internal forces" in result.evidence["proof"]


def test_resting_tripod_is_a_continuum_not_unique() -> None:
    # at rest every contact sticks inside its cone: the faces leave the internal forces free, so
    # the proof above must not apply, and they are a continuum of solutions
    problem = box_on_corners(cm.CoulombCone(0.3), corners=TRIANGLE)
    x1 = solve(problem, solver="newton").x
    assert internal_uniqueness(problem, x1) is None
    result = decide(problem)
    assert result.status is Status.MULTIPLE and result.evidence["continuum"]
    assert result.evidence["motion_distance"] < 1e-9


def test_monotonicity_between_the_grid_points_is_found() -> None:
    # the ball: W = diag(1, 7/2, 7/2), Q = diag(1 - mu / (2 eps), 7/2 - 49 mu eps / 8, ...) is
    # positive definite iff mu / 2 < eps < 4 / (7 mu); at mu = 1.06 that is (0.530, 0.539), between
    # the grid points 10^-0.5 and 10^-0.25: found by maximizing the smallest eigenvalue over eps
    problem = _ball(cm.CoulombCone(1.06), False)
    np.testing.assert_allclose(problem.assembly.A_sparse.toarray(), np.diag([1.0, 3.5, 3.5]), atol=1e-12)
    proof = monotone_uniqueness(problem)
    assert proof is not None and 0.53 < proof["eps"] < 4 / (7 * 1.06)
    assert proof["min_eig"] > 0
    assert monotone_uniqueness(_ball(cm.CoulombCone(1.07), False)) is None  # past sqrt(8/7) = 1.0690


def test_one_eps_per_norm_where_no_common_eps_works() -> None:
    # two independent balls, W = diag(1, 7/2, 7/2) and 100 times it, mu = 1: Q is positive
    # definite iff mu / (2 k) < eps_k < 4 / (7 mu k) for each (k = 1, 100): (0.5, 0.571) and
    # (0.005, 0.00571) do not meet, so no common eps works; one eps per contact does
    W = np.diag([1.0, 3.5, 3.5])
    A = np.block([[W, np.zeros((3, 3))], [np.zeros((3, 3)), 100.0 * W]])
    problem = _cone_contact(A, [-1.0, 0.1, 0.0, -1.0, 0.1, 0.0], 1.0)
    for eps in np.logspace(-3, 3, 241):  # no common eps
        assert np.linalg.eigvalsh(monotone_matrix(problem, eps))[0] < 0
    proof = monotone_uniqueness(problem)
    assert proof is not None and len(proof["eps"]) == 2
    e1, e2 = proof["eps"]
    assert 0.5 < e1 < 4 / 7 and 0.005 < e2 < 0.04 / 7
    result = decide(problem)
    assert result.status is Status.UNIQUE and "per norm" in result.evidence["proof"]


def test_internal_forces_proof_searches_eps_off_the_internal_forces() -> None:
    # agreement problem 17 (cone, mu = 0.9, three rolling contacts, A singular): no eps of the
    # 49-point grid makes Q positive semidefinite with a gap; maximizing the smallest eigenvalue
    # of Q off the tangential internal forces finds one
    from contactmodel.analysis.round_laws import _monotone_q, monotone_terms

    problem = _agreement("cone", 17)
    assert monotone_uniqueness(problem) is None
    mono = monotone_terms(problem)
    for eps in np.logspace(-3, 3, 49):
        Q = _monotone_q(mono.S, mono.terms, eps)
        w = np.linalg.eigvalsh(Q)
        t = 1e-9 * max(1.0, np.abs(Q).max())
        assert w[0] < -t or w[w > t].min(initial=np.inf) <= 10 * t or not (w <= t).any()
    result = decide(problem, time_limit=10)
    assert result.status is Status.UNIQUE and "internal forces" in result.evidence["proof"]
    x1 = result.solutions[0]
    proof = internal_uniqueness(problem, x1)
    Q = monotone_matrix(problem, proof["eps"])
    assert np.linalg.eigvalsh(Q)[0] > -1e-8 and proof["null_dimension"] >= 1


def test_a_degenerate_single_contact_claims_nothing() -> None:
    # b_n = 0: the separating mode c = 0 and sliding modes with c_n = -b_n / (W g)_n = 0 meet, so
    # the enumeration states no count; a singular W (no unique sticking force) neither
    assert cone_contact_modes(np.eye(3), np.array([0.0, 1.0, 0.0]), 0.5) is None
    assert cone_contact_modes(np.diag([1.0, 1.0, 0.0]), np.array([-1.0, 1.0, 0.0]), 0.5) is None
