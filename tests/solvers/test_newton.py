"""Tests of the nonsmooth Newton MCP solver against independently computed facts."""

from __future__ import annotations

import importlib.util
import itertools
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from contactmodel.errors import SolverError
from contactmodel.mcp.types import MCP, CoulombBlocks
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.newton import NewtonOptions, solve

TOL = 1e-10
#: the generator of the LCP instances the peer comparisons use, shipped with the tests
PEER_TOOL = Path(__file__).resolve().parents[1] / "data" / "make_peer_instances.py"


def nat_res(F, lb, ub, x) -> float:
    """Natural residual inf-norm ||x - clip(x - F(x), lb, ub)||, computed here with numpy."""
    x = np.asarray(x, dtype=float)
    return float(np.max(np.abs(x - np.minimum(np.maximum(x - F(x), lb), ub)), initial=0.0))


def affine_mcp(M, q, lb, ub, x0=None) -> MCP:
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float)
    Ms = sp.csr_matrix(M)
    return MCP(
        F=lambda x: M @ x + q,
        J=lambda x: Ms,
        lb=np.asarray(lb, dtype=float),
        ub=np.asarray(ub, dtype=float),
        x0=x0,
        M=Ms,
        q=q,
    )


def nonlinear_mcp(F, Jdense, n, x0) -> MCP:
    return MCP(
        F=F,
        J=lambda x: sp.csr_matrix(Jdense(x)),
        lb=np.zeros(n),
        ub=np.full(n, np.inf),
        x0=np.asarray(x0, dtype=float),
    )


def kojima_shindo() -> tuple:
    def F(x):
        x1, x2, x3, x4 = x
        return np.array(
            [
                3 * x1**2 + 2 * x1 * x2 + 2 * x2**2 + x3 + 3 * x4 - 6,
                2 * x1**2 + x1 + x2**2 + 10 * x3 + 2 * x4 - 2,
                3 * x1**2 + x1 * x2 + 2 * x2**2 + 2 * x3 + 9 * x4 - 9,
                x1**2 + 3 * x2**2 + 2 * x3 + 3 * x4 - 3,
            ]
        )

    def J(x):
        x1, x2, _, _ = x
        return np.array(
            [
                [6 * x1 + 2 * x2, 2 * x1 + 4 * x2, 1, 3],
                [4 * x1 + 1, 2 * x2, 10, 2],
                [6 * x1 + x2, x1 + 4 * x2, 2, 9],
                [2 * x1, 6 * x2, 2, 3],
            ],
            dtype=float,
        )

    return F, J


def josephy() -> tuple:
    def F(x):
        x1, x2, x3, x4 = x
        return np.array(
            [
                3 * x1**2 + 2 * x1 * x2 + 2 * x2**2 + x3 + 3 * x4 - 6,
                2 * x1**2 + x1 + x2**2 + 3 * x3 + 2 * x4 - 2,
                3 * x1**2 + x1 * x2 + 2 * x2**2 + 2 * x3 + 3 * x4 - 1,
                x1**2 + 3 * x2**2 + 2 * x3 + 3 * x4 - 3,
            ]
        )

    def J(x):
        x1, x2, _, _ = x
        return np.array(
            [
                [6 * x1 + 2 * x2, 2 * x1 + 4 * x2, 1, 3],
                [4 * x1 + 1, 2 * x2, 3, 2],
                [6 * x1 + x2, x1 + 4 * x2, 2, 3],
                [2 * x1, 6 * x2, 2, 3],
            ],
            dtype=float,
        )

    return F, J


def mathiesen() -> tuple:
    def F(x):
        x1, x2, x3, x4 = x
        return np.array(
            [
                -x2 + x3 + x4,
                x1 - (4.5 * x3 + 2.7 * x4) / (x2 + 1),
                5 - x1 - (0.5 * x3 + 0.3 * x4) / (x3 + 1),
                3 - x1,
            ]
        )

    def J(x):
        x1, x2, x3, x4 = x
        s = (4.5 * x3 + 2.7 * x4) / (x2 + 1) ** 2
        return np.array(
            [
                [0, -1, 1, 1],
                [1, s, -4.5 / (x2 + 1), -2.7 / (x2 + 1)],
                [-1, 0, -(0.5 - 0.3 * x4) / (x3 + 1) ** 2, -0.3 / (x3 + 1)],
                [-1, 0, 0, 0],
            ],
            dtype=float,
        )

    return F, J


def fd_jacobian(F, x, h=1e-7):
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((F(x + e) - F(x - e)) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize("problem", [kojima_shindo, josephy, mathiesen])
def test_hand_jacobians_match_finite_differences(problem):
    F, J = problem()
    x = np.array([0.7, 0.3, 1.1, 0.4])
    np.testing.assert_allclose(J(x), fd_jacobian(F, x), atol=1e-6)


@pytest.mark.parametrize("lam", [1.0, 0.8])
def test_reformulation_jacobian_matches_finite_differences(lam):
    from contactmodel.solvers.newton import _Box

    rng = np.random.default_rng(11)
    n = 40
    lb = np.where(rng.random(n) < 0.7, rng.uniform(-1, 0, n), -np.inf)
    ub = np.where(rng.random(n) < 0.6, rng.uniform(0.1, 1, n), np.inf)
    M = rng.standard_normal((n, n))
    q = rng.standard_normal(n)
    box = _Box(lb, ub, lam)
    x = rng.uniform(-1.5, 1.5, n)
    v = rng.standard_normal(n)
    h = 1e-6
    phi_p = box.fb(x + h * v, M @ (x + h * v) + q)[0]
    phi_m = box.fb(x - h * v, M @ (x - h * v) + q)[0]
    _, da, db = box.fb(x, M @ x + q)
    np.testing.assert_allclose(da * v + db * (M @ v), (phi_p - phi_m) / (2 * h), atol=1e-6)


def test_reformulation_zero_exactly_at_solutions_of_each_row_type():
    from contactmodel.solvers.newton import _Box

    lb = np.array([-np.inf, 0.0, -np.inf, 0.0, 0.0, 0.0])
    ub = np.array([np.inf, np.inf, 1.0, 1.0, 1.0, 1.0])
    x = np.array([0.3, 0.0, 1.0, 0.0, 1.0, 0.5])
    F = np.array([0.0, 2.0, -3.0, 4.0, -5.0, 0.0])
    for lam in (1.0, 0.9):
        phi, _, _ = _Box(lb, ub, lam).fb(x, F)
        np.testing.assert_allclose(phi, 0.0, atol=1e-15)
        bad, _, _ = _Box(lb, ub, lam).fb(x, -F + np.array([1.0, 0, 0, 0, 0, 1.0]))
        assert np.all(np.abs(bad) > 1e-3)


KS_SOLUTIONS = [np.array([np.sqrt(6) / 2, 0, 0, 0.5]), np.array([1.0, 0, 3, 0])]


@pytest.mark.parametrize("x0", [[0, 0, 0, 0], [1, 1, 1, 1], [1, 0, 3, 0.1], [2, 2, 2, 2], [0.5, 0, 0.5, 1]])
def test_kojima_shindo_reaches_a_known_solution(x0):
    F, J = kojima_shindo()
    r = solve(nonlinear_mcp(F, J, 4, x0), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(F, 0.0, np.inf, r.x) <= TOL
    assert min(np.max(np.abs(r.x - s)) for s in KS_SOLUTIONS) <= 1e-6


def test_kojima_shindo_known_solutions_are_solutions():
    F, _ = kojima_shindo()
    for s in KS_SOLUTIONS:
        assert nat_res(F, 0.0, np.inf, s) <= 1e-14


@pytest.mark.parametrize("x0", [[0, 0, 0, 0], [1, 1, 1, 1]])
def test_josephy(x0):
    F, J = josephy()
    r = solve(nonlinear_mcp(F, J, 4, x0), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(F, 0.0, np.inf, r.x) <= TOL
    np.testing.assert_allclose(r.x, [np.sqrt(6) / 2, 0, 0, 0.5], atol=1e-8)


@pytest.mark.parametrize("x0", [[1, 1, 1, 1], [2, 0.5, 0.5, 0.5]])
def test_mathiesen_solution_set(x0):
    F, J = mathiesen()
    r = solve(nonlinear_mcp(F, J, 4, x0), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(F, 0.0, np.inf, r.x) <= TOL
    x1, x2, x3, x4 = r.x
    assert -1e-10 <= x1 <= 3 + 1e-10
    assert max(abs(x2), abs(x3), abs(x4)) <= 1e-8


def brute_force_box(M, q, lb, ub, tol=1e-9):
    """All solutions of the box MCP with F = M x + q, by enumerating (lower, upper, inner)."""
    n = q.size
    sols = []
    states = [
        [s for s in "LUI" if (s != "L" or np.isfinite(lb[i])) and (s != "U" or np.isfinite(ub[i]))]
        for i in range(n)
    ]
    for pattern in itertools.product(*states):
        pat = np.array(pattern)
        x = np.where(pat == "L", lb, np.where(pat == "U", ub, 0.0))
        inner = np.flatnonzero(pat == "I")
        fixed = np.flatnonzero(pat != "I")
        if inner.size:
            A = M[np.ix_(inner, inner)]
            if abs(np.linalg.det(A)) < 1e-12:
                continue
            x[inner] = np.linalg.solve(A, -(q[inner] + M[np.ix_(inner, fixed)] @ x[fixed]))
        w = M @ x + q
        ok = (
            np.all(x >= lb - tol)
            and np.all(x <= ub + tol)
            and np.all(w[pat == "L"] >= -tol)
            and np.all(w[pat == "U"] <= tol)
        )
        if ok:
            sols.append(x)
    return sols


def random_p_matrix(rng, n, kind):
    if kind == "pd":
        B = rng.standard_normal((n, n))
        S = rng.standard_normal((n, n))
        return B @ B.T / n + 0.2 * np.eye(n) + (S - S.T)
    L = np.tril(3.0 * rng.standard_normal((n, n)), -1) + np.diag(rng.uniform(0.5, 2.0, n))
    p = rng.permutation(n)
    return L[np.ix_(p, p)]


def test_random_p_matrix_generator_gives_p_matrices():
    rng = np.random.default_rng(0)
    for kind in ("pd", "tri"):
        for _ in range(20):
            n = 4
            M = random_p_matrix(rng, n, kind)
            for k in range(1, n + 1):
                for idx in itertools.combinations(range(n), k):
                    assert np.linalg.det(M[np.ix_(idx, idx)]) > 0


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 8),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["pd", "tri"]),
)
def test_random_p_matrix_lcp_matches_enumeration(n, seed, kind):
    rng = np.random.default_rng(seed)
    M = random_p_matrix(rng, n, kind)
    q = 2.0 * rng.standard_normal(n)
    sols = brute_force_box(M, q, np.zeros(n), np.full(n, np.inf))
    assert len(sols) >= 1
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(lambda x: M @ x + q, 0.0, np.inf, r.x) <= TOL
    np.testing.assert_allclose(r.x, sols[0], atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 5), seed=st.integers(0, 2**32 - 1))
def test_random_box_mcp_with_free_and_two_sided_rows_matches_enumeration(n, seed):
    rng = np.random.default_rng(seed)
    M = random_p_matrix(rng, n, "pd")
    q = 3.0 * rng.standard_normal(n)
    kind = rng.integers(0, 4, n)
    lo = rng.uniform(-2.0, 0.0, n)
    width = rng.uniform(0.0, 2.0, n)
    lb = np.where((kind == 1) | (kind == 3), lo, -np.inf)
    ub = np.where(kind == 2, lo + width, np.where(kind == 3, lo + width, np.inf))
    sols = brute_force_box(M, q, lb, ub)
    assert len(sols) >= 1
    r = solve(affine_mcp(M, q, lb, ub), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(lambda x: M @ x + q, lb, ub, r.x) <= TOL
    np.testing.assert_allclose(r.x, sols[0], atol=1e-8)


def test_lcp_with_a_continuum_of_solutions():
    M = np.array([[1.0, 1.0], [1.0, 1.0]])
    q = np.array([-1.0, -1.0])
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(lambda x: M @ x + q, 0.0, np.inf, r.x) <= TOL
    assert r.x.sum() == pytest.approx(1.0, abs=1e-10)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 8), seed=st.integers(0, 2**32 - 1))
def test_rank_deficient_psd_lcp_with_planted_degenerate_solution(n, seed):
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, max(1, n // 2)))
    M = G @ G.T
    z = np.where(rng.random(n) < 0.5, rng.uniform(0.1, 2.0, n), 0.0)
    w = np.where((z == 0) & (rng.random(n) < 0.5), rng.uniform(0.1, 2.0, n), 0.0)
    q = w - M @ z
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(lambda x: M @ x + q, 0.0, np.inf, r.x) <= TOL
    np.testing.assert_allclose(M @ r.x, M @ z, atol=1e-8)


def test_qp_kkt_with_free_multiplier():
    M = np.array([[1.0, 0, -1], [0, 1, -1], [1, 1, 0]])
    q = np.array([-2.0, 1.0, -1.0])
    lb = np.array([0.0, 0.0, -np.inf])
    ub = np.full(3, np.inf)
    r = solve(affine_mcp(M, q, lb, ub), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    np.testing.assert_allclose(r.x, [1.0, 0.0, -1.0], atol=1e-12)
    assert nat_res(lambda x: M @ x + q, lb, ub, r.x) <= TOL


def test_two_sided_box_coupled():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-4.0, -2.0])
    r = solve(affine_mcp(M, q, [0.0, 0.0], [1.0, 1.0]), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    np.testing.assert_allclose(r.x, [1.0, 0.5], atol=1e-12)


def test_separable_nonlinear_box_rows_of_every_kind():
    c = np.array([3.0, -3.0, 0.5, 3.0, -3.0, 0.25, 2.0, -2.0])
    lb = np.array([-np.inf, -np.inf, -np.inf, 0.0, 0.0, 0.0, -1.0, -1.0])
    ub = np.array([1.0, 1.0, np.inf, np.inf, np.inf, 1.0, 1.0, 1.0])
    mcp = MCP(
        F=lambda x: x**3 + x - (c**3 + c),
        J=lambda x: sp.diags(3 * x**2 + 1).tocsr(),
        lb=lb,
        ub=ub,
        x0=np.zeros(8),
    )
    r = solve(mcp, NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    np.testing.assert_allclose(r.x, np.clip(c, lb, ub), atol=1e-10)


def test_fixed_variable_lb_equals_ub():
    M = np.array([[1.0, 1.0], [1.0, 3.0]])
    q = np.array([5.0, -4.0])
    r = solve(affine_mcp(M, q, [0.5, 0.0], [0.5, np.inf]), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    np.testing.assert_allclose(r.x, [0.5, 3.5 / 3.0], atol=1e-12)


@pytest.mark.parametrize("how", ["mcp", "option"])
def test_warm_start_at_solution(how):
    F, J = kojima_shindo()
    sol = KS_SOLUTIONS[1]
    mcp = nonlinear_mcp(F, J, 4, sol if how == "mcp" else np.zeros(4))
    opts = NewtonOptions(x0=sol if how == "option" else None)
    r = solve(mcp, opts)
    assert r.outcome is Outcome.CONVERGED
    assert r.iterations <= 1
    np.testing.assert_allclose(r.x, sol, atol=1e-12)


def test_warm_start_near_lcp_solution_one_iteration():
    rng = np.random.default_rng(5)
    M = random_p_matrix(rng, 8, "pd")
    q = rng.standard_normal(8)
    sol = brute_force_box(M, q, np.zeros(8), np.full(8, np.inf))[0]
    r = solve(MCP.from_lcp(M, q), NewtonOptions(x0=sol + 1e-7 * rng.standard_normal(8)))
    assert r.outcome is Outcome.CONVERGED
    assert r.iterations <= 1


@pytest.mark.parametrize(
    "M, q",
    [
        (np.zeros((2, 2)), np.array([-1.0, -1.0])),
        (np.array([[-1.0]]), np.array([-1.0])),
        (np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([0.0, -1.0])),
    ],
)
def test_lcp_without_solution_is_not_converged(M, q):
    # w = M z + q: row 2 (or the only row) is w = -z - 1 or w = -1 < 0 for every z >= 0.
    assert not brute_force_box(M, q, np.zeros(q.size), np.full(q.size, np.inf))
    r = solve(MCP.from_lcp(M, q), NewtonOptions(max_iter=100))
    assert r.outcome is not Outcome.CONVERGED
    assert r.message
    assert nat_res(lambda x: M @ x + q, 0.0, np.inf, r.x) > TOL


def test_limits_and_extras():
    F, J = kojima_shindo()
    mcp = nonlinear_mcp(F, J, 4, np.zeros(4))
    r = solve(mcp, NewtonOptions(max_iter=1))
    assert r.outcome is Outcome.ITERATION_LIMIT
    assert r.iterations == 1
    r = solve(mcp, NewtonOptions(time_limit=1e-12))
    assert r.outcome is Outcome.TIME_LIMIT
    r = solve(mcp, NewtonOptions())
    e = r.extras
    assert e["residual_history_length"] == len(e["residual_history"]) == r.iterations + 1
    assert e["residual"] == pytest.approx(nat_res(F, 0.0, np.inf, r.x), abs=1e-15)
    assert e["factorizations"] >= 1
    assert e["gradient_steps"] >= 0


def test_dense_jacobian_and_empty_problem():
    M = np.array([[2.0, -1.0], [-1.0, 2.0]])
    q = np.array([-1.0, 1.0])
    mcp = MCP(F=lambda x: M @ x + q, J=lambda x: M, lb=np.zeros(2), ub=np.full(2, np.inf))
    r = solve(mcp, NewtonOptions())
    assert r.outcome is Outcome.CONVERGED
    np.testing.assert_allclose(r.x, [0.5, 0.0], atol=1e-12)
    empty = MCP(F=lambda x: x, J=lambda x: sp.csr_matrix((0, 0)), lb=np.zeros(0), ub=np.zeros(0))
    assert solve(empty, NewtonOptions()).outcome is Outcome.CONVERGED


@pytest.mark.parametrize(
    "field, value",
    [
        ("tol", 0.0),
        ("max_iter", -1),
        ("merit", "min"),
        ("polish", "x"),
        ("backtrack", 1.0),
        ("newton_reg_max", 0.0),
        ("chord_steps", -1),
        ("chord_decrease", 1.0),
    ],
)
def test_bad_options_raise(field, value):
    mcp = MCP.from_lcp(np.eye(2), -np.ones(2))
    with pytest.raises(SolverError, match=field):
        solve(mcp, NewtonOptions(**{field: value}))


def test_proximal_weight_is_capped_by_newton_reg_max():
    from contactmodel.solvers.newton import _Newton

    mcp = MCP.from_lcp(np.eye(3), np.array([-4.0, 1.0, 2.0]))
    for cap, want in ((0.1, 0.1), (np.inf, 2.0 * 8.0), (100.0, 2.0 * 8.0)):
        st = _Newton(mcp, NewtonOptions(newton_reg=2.0, newton_reg_max=cap))
        pt = st.point(np.zeros(3))  # Phi_i = FB(0, F_i) = F_i - |F_i| = (-8, 0, 0): ||Phi||_inf = 8
        assert st.eps(pt) == 0.0  # not regularized yet
        st.regularized = True
        assert st.eps(pt) == pytest.approx(want)
    r = solve(mcp, NewtonOptions(newton_reg_max=np.inf, regularize="always"))
    assert r.outcome is Outcome.CONVERGED and r.extras["regularized"]
    np.testing.assert_allclose(r.x, [4.0, 0.0, 0.0], atol=1e-10)


def test_penalized_merit_and_no_polish_also_converge():
    F, J = kojima_shindo()
    for opts in (NewtonOptions(merit="penalized_fb"), NewtonOptions(polish="never")):
        r = solve(nonlinear_mcp(F, J, 4, np.ones(4)), opts)
        assert r.outcome is Outcome.CONVERGED
        assert nat_res(F, 0.0, np.inf, r.x) <= TOL


def test_sparse_nonlinear_obstacle_problem_with_two_sided_and_free_rows():
    n = 400
    h = 1.0 / (n + 1)
    t = np.linspace(h, 1.0 - h, n)
    A = sp.diags([-np.ones(n - 1), 2.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]) / h**2
    A = A.tocsr()
    f = 50.0 * np.sin(3 * np.pi * t)
    lb = np.full(n, -0.05)
    ub = np.full(n, 0.08)
    lb[:20], ub[:20] = -np.inf, np.inf
    ub[-20:] = np.inf

    def F(u):
        return A @ u + u**3 - f

    mcp = MCP(
        F=F,
        J=lambda u: (A + sp.diags(3.0 * u**2)).tocsr(),
        lb=lb,
        ub=ub,
        x0=np.zeros(n),
    )
    r = solve(mcp, NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(F, lb, ub, r.x) <= TOL
    assert np.any(np.isclose(r.x, ub)) and np.any(np.isclose(r.x, lb))
    assert r.iterations <= 30


def test_sparse_pd_lcp_matches_bound_constrained_qp():
    from scipy.optimize import minimize

    n = 350
    rng = np.random.default_rng(3)
    M = sp.diags([-np.ones(n - 1), 2.5 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]).tocsr()
    q = rng.uniform(-1.0, 1.0, n)
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert nat_res(lambda x: M @ x + q, 0.0, np.inf, r.x) <= TOL
    qp = minimize(
        lambda z: (0.5 * z @ (M @ z) + q @ z, M @ z + q),
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * n,
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000},
    )
    np.testing.assert_allclose(r.x, qp.x, atol=1e-5)


@pytest.mark.parametrize("slide", [0.0, 0.2])
def test_friction_pyramid_lcp_n50(slide):
    spec = importlib.util.spec_from_file_location("make_peer_instances", PEER_TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    data = tool.make_lcp(np.random.default_rng([7, 1, int(slide * 100)]), 50, slide)
    M, q = data["M"], data["q"]
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED, r.message
    assert np.max(np.abs(np.minimum(r.x, M @ r.x + q))) <= TOL


# (seed, family, n) of the generator's pyramid LCPs on which the Newton iteration alone stalled
# (residual 1e-4..4e-3 after 200 iterations); Lemke's method, the pivoting fallback, solves them.
STALLED_SEEDS = [(12, "roll", 200), (44, "slide", 200), (46, "slide", 50), (13, "roll", 1000)]


@pytest.fixture(scope="module")
def peer_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("peer")
    for seed in sorted({s for s, _, _ in STALLED_SEEDS}):
        out = root / str(seed)
        subprocess.run([sys.executable, str(PEER_TOOL), str(out), "--seed", str(seed)], check=True)
    return root


@pytest.mark.parametrize("seed, family, n", STALLED_SEEDS)
def test_stalled_pyramid_lcps_are_solved_by_the_pivoting_fallback(peer_dir, seed, family, n):
    data = np.load(peer_dir / str(seed) / f"lcp_{family}_n{n}.npz")
    M, q = sp.csr_matrix(data["M"]), data["q"]
    # the whole LCP at once (decouple=False): these instances stall the joint Newton iteration
    r = solve(MCP.from_lcp(M, q), NewtonOptions(decouple=False))
    assert r.outcome is Outcome.CONVERGED, r.message
    assert np.max(np.abs(np.minimum(r.x, M @ r.x + q))) <= TOL
    assert r.extras["pivot"] == "lemke" and r.extras["pivots"] > 0
    assert "Lemke" in r.message
    if n <= 200:
        off = solve(MCP.from_lcp(M, q), NewtonOptions(pivot_fallback=False, max_iter=60, decouple=False))
        assert off.outcome is not Outcome.CONVERGED
    # and block by block (the default), with or without a block's own pivoting fallback
    blocks = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert blocks.outcome is Outcome.CONVERGED, blocks.message
    assert np.max(np.abs(np.minimum(blocks.x, M @ blocks.x + q))) <= TOL


def test_pivoting_fallback_certifies_an_infeasible_lcp():
    M = np.zeros((2, 2))
    q = np.array([-1.0, 2.0])
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.INFEASIBLE, r.message
    y = r.extras["certificate"]
    assert np.all(y >= 0) and np.all(M.T @ y <= 1e-12) and q @ y < 0


def test_reduced_newton_system_matches_the_full_one():
    from contactmodel.solvers.newton import _Newton

    n = 400
    rng = np.random.default_rng(2)
    J = (sp.random(n, n, density=0.01, random_state=3) + 4.0 * sp.eye(n)).tocsr()
    da = rng.uniform(0.1, 1.0, n)
    db = 1.0 - da
    db[rng.random(n) < 0.5] = 0.0
    da[db == 0.0] = 1.0
    rhs = rng.standard_normal(n)
    mcp = MCP.from_lcp(J, np.zeros(n))
    d = _Newton(mcp, NewtonOptions()).newton_direction(J, da, db, rhs)
    H = np.diag(da) + np.diag(db) @ J.toarray()
    np.testing.assert_allclose(H @ d, rhs, atol=1e-10)


@pytest.mark.parametrize("n, fixed_fraction", [(60, 0.0), (60, 0.5), (400, 0.7), (400, 0.0)])
def test_dense_newton_system_of_an_affine_mcp_matches_the_sparse_one(n, fixed_fraction):
    from contactmodel.solvers.newton import _Newton

    rng = np.random.default_rng(n)
    J = (sp.random(n, n, density=0.05, random_state=4) + 4.0 * sp.eye(n)).tocsr()
    da = rng.uniform(0.1, 1.0, n)
    db = 1.0 - da
    db[rng.random(n) < fixed_fraction] = 0.0
    da[db == 0.0] = 1.0
    rhs = rng.standard_normal(n)
    st = _Newton(MCP.from_lcp(J, np.zeros(n)), NewtonOptions())
    Jc = st.J(np.zeros(n))  # the constant Jacobian: the dense path when few rows remain
    d = st.newton_direction(Jc, da, db, rhs)
    assert st.n_jeval == 1 and st.J(np.ones(n)) is Jc
    assert (st._Jd is not None) == (np.count_nonzero(db) <= 150)
    H = np.diag(da) + np.diag(db) @ J.toarray()
    np.testing.assert_allclose(H @ d, rhs, atol=1e-10)
    np.testing.assert_allclose(d, st.newton_direction(J.copy(), da, db, rhs), atol=1e-10)
    np.testing.assert_allclose(st.jt_dot(Jc, rhs), J.T @ rhs, atol=1e-12)


@pytest.mark.parametrize("n, fixed_fraction", [(60, 0.5), (400, 0.0), (400, 0.7)])
def test_a_kept_factorization_solves_the_same_system_for_any_right_hand_side(n, fixed_fraction):
    from contactmodel.solvers.newton import _Newton

    rng = np.random.default_rng(n + 1)
    J = (sp.random(n, n, density=0.05, random_state=5) + 4.0 * sp.eye(n)).tocsr()
    da = rng.uniform(0.1, 1.0, n)
    db = 1.0 - da
    db[rng.random(n) < fixed_fraction] = 0.0
    da[db == 0.0] = 1.0
    st = _Newton(MCP.from_lcp(J, np.zeros(n)), NewtonOptions())
    H = np.diag(da) + np.diag(db) @ J.toarray()
    for Jx in (st.J(np.zeros(n)), J.copy()):  # the dense path for the constant J, the sparse one
        st.newton_direction(Jx, da, db, rng.standard_normal(n))
        fac = st.factorization
        for _ in range(2):
            rhs = rng.standard_normal(n)
            np.testing.assert_allclose(H @ fac.solve(rhs), rhs, atol=1e-10)


def test_chord_steps_save_factorizations_on_pyramid_lcps_and_only_there():
    spec = importlib.util.spec_from_file_location("make_peer_instances", PEER_TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    factorizations = {0: 0, 2: 0}
    chords = 0
    for seed, slide in itertools.product(range(6), (0.0, 0.2)):
        data = tool.make_lcp(np.random.default_rng([seed, 9, int(slide * 100)]), 50, slide)
        M, q = data["M"], data["q"]
        for steps in factorizations:
            r = solve(MCP.from_lcp(M, q), NewtonOptions(chord_steps=steps))
            assert r.outcome is Outcome.CONVERGED, r.message
            assert np.max(np.abs(np.minimum(r.x, M @ r.x + q))) <= TOL
            factorizations[steps] += r.extras["factorizations"]
            chords += r.extras["chord_steps"]
    assert chords > 0 and factorizations[2] < factorizations[0]
    F, J = kojima_shindo()
    nonlinear = solve(nonlinear_mcp(F, J, 4, np.zeros(4)), NewtonOptions())
    assert nonlinear.outcome is Outcome.CONVERGED and nonlinear.extras["chord_steps"] == 0


def test_dense_newton_system_reports_a_singular_matrix():
    from contactmodel.solvers.newton import _Newton

    J = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]))
    st = _Newton(MCP.from_lcp(J, np.zeros(3)), NewtonOptions())
    Jc = st.J(np.zeros(3))
    assert st.newton_direction(Jc, np.zeros(3), np.ones(3), np.ones(3)) is None
    one_fixed = st.newton_direction(Jc, np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 1.0]), np.ones(3))
    np.testing.assert_allclose(one_fixed, [0.0, 1.0, 0.5])  # row 1 fixed: d1 = 1, then d0 + d1 = 1
    empty = sp.csr_matrix(np.array([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]))  # column 1
    st = _Newton(MCP.from_lcp(empty, np.zeros(3)), NewtonOptions())
    assert st.newton_direction(st.J(np.zeros(3)), np.zeros(3), np.ones(3), np.ones(3)) is None
    assert st.singular  # found without factoring: the column has no entry
    regularized = st.newton_direction(st.J(np.zeros(3)), np.full(3, 0.1), np.ones(3), np.ones(3))
    H = 0.1 * np.eye(3) + empty.toarray()
    np.testing.assert_allclose(H @ regularized, np.ones(3), atol=1e-12)


def test_lcp_extras_count_one_jacobian_and_cpu_time():
    rng = np.random.default_rng(5)
    B = rng.standard_normal((30, 30))
    M, q = B @ B.T + np.eye(30), rng.standard_normal(30)
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.CONVERGED
    assert nat_res(lambda x: M @ x + q, 0.0, np.inf, r.x) <= TOL
    assert r.extras["j_evals"] == 1 and r.extras["f_evals"] > 1
    assert 0.0 <= r.extras["cpu_seconds"] and 0.0 <= r.extras["seconds"]


def test_refinement_past_tol_at_a_degenerate_root():
    mcp = MCP(
        F=lambda x: x**2,
        J=lambda x: sp.csr_matrix(np.diag(2.0 * x)),
        lb=np.full(1, -np.inf),
        ub=np.full(1, np.inf),
        x0=np.ones(1),
    )
    r = solve(mcp, NewtonOptions())
    assert r.outcome is Outcome.CONVERGED
    assert r.extras["refine_steps"] > 0
    assert abs(r.x[0]) < 1e-6
    plain = solve(mcp, NewtonOptions(refine_iter=0))
    assert plain.extras["refine_steps"] == 0 and abs(plain.x[0]) > abs(r.x[0])


def test_a_singular_polish_system_is_not_factored_twice(peer_dir, monkeypatch):
    from contactmodel.solvers.newton import _Newton

    data = np.load(peer_dir / "44" / "lcp_slide_n200.npz")  # without the skip: 16 of 18 repeat
    M, q = sp.csr_matrix(data["M"]), data["q"]
    orig = _Newton.newton_direction
    singular: list[bytes] = []
    repeats = []

    def spy(self, J, da, db, rhs):
        d = orig(self, J, da, db, rhs)
        if np.all((da == 0.0) | (da == 1.0)) and np.array_equal(db, 1.0 - da):  # a polish system
            key = da.tobytes()
            repeats.append(key in singular)
            if d is None and self.singular:
                singular.append(key)
        return d

    monkeypatch.setattr(_Newton, "newton_direction", spy)
    r = solve(MCP.from_lcp(M, q), NewtonOptions(pivot_fallback=False, max_iter=60, chord_steps=0))
    assert singular, "the instance should meet a singular polish system"
    assert not any(repeats)
    assert r.extras["polish_steps"] == len(repeats)


def _one_cone_mcp(mu: float = 0.4):
    """One Coulomb cone block (form="soc") with a_n = c_n - 1, a_t = 2 c_t + 0.5, a_o = c_o and a
    box row x >= 0 _|_ x - 2 c_n (so both kinds of rows meet)."""
    import pyomo.environ as pe

    from contactmodel.mcp import soc_block
    from contactmodel.mcp.compile import compile_model

    m = pe.ConcreteModel()
    m.c = pe.Var(["n", "t", "o"], initialize=0.0)
    m.x = pe.Var(initialize=0.0, bounds=(0.0, None))
    m.cone = soc_block.SOCComplementarity()
    m.cone.set(
        {ax: m.c[ax] for ax in "nto"}, {"n": m.c["n"] - 1.0, "t": 2 * m.c["t"] + 0.5, "o": m.c["o"]}, mu
    )
    from pyomo.mpec import Complementarity, complements

    m.box = Complementarity(expr=complements(m.x >= 0, m.x - 2 * m.c["n"] >= 0))
    return compile_model(m).mcp


def test_both_methods_run_the_one_globalization_loop(monkeypatch):
    from contactmodel.solvers.newton import cones as newton_cones
    from contactmodel.solvers.newton import core as newton_core

    seen = []
    orig = newton_core.iterate

    def spy(method, *args, **kwargs):
        seen.append(type(method).__name__)
        return orig(method, *args, **kwargs)

    monkeypatch.setattr(newton_core, "iterate", spy)
    box = solve(MCP.from_lcp(np.array([[2.0, 1.0], [1.0, 2.0]]), -np.ones(2)), NewtonOptions())  # one block
    cone = solve(_one_cone_mcp(), NewtonOptions())
    assert box.outcome is Outcome.CONVERGED and cone.outcome is Outcome.CONVERGED
    assert seen == ["_Newton", "ConeMethod"]
    assert cone.extras["cone_blocks"] == 1 and "cpu_seconds" in cone.extras
    # typed options: a bad field is refused for cone blocks too, naming the field
    with pytest.raises(SolverError, match="backtrack"):
        solve(_one_cone_mcp(), NewtonOptions(backtrack=2.0))
    # the box-only machinery is off for cone blocks whatever the options say: the same iterates
    for kernels in ("numpy", "auto"):
        box_only = {"polish": "always", "refine_iter": 5, "chord_steps": 3, "pivot_fallback": True}
        plain = solve(_one_cone_mcp(), NewtonOptions(kernels=kernels))
        other = solve(_one_cone_mcp(), NewtonOptions(kernels=kernels, **box_only))
        assert np.array_equal(plain.x, other.x)
        assert plain.extras["residual_history"] == other.extras["residual_history"]
    assert not newton_cones.ConeMethod.refines


def test_cone_method_gradient_is_the_transposed_newton_matrix_times_phi():
    from contactmodel.solvers.newton import cones as newton_cones

    mcp = _one_cone_mcp()
    method = newton_cones.ConeMethod(mcp, NewtonOptions())
    rng = np.random.default_rng(3)
    for _ in range(5):
        x = rng.normal(size=mcp.n)
        pt = method.begin_attempt(x)
        J = method.J(x)
        H = method.matrix(pt, J, 0.0)  # the dense Newton matrix Da + Db J
        np.testing.assert_allclose(method.gradient(pt, J), H.T @ pt.phi, rtol=1e-13, atol=1e-13)


def test_sparse_factor_of_singular_matrix_with_stored_zeros_is_quiet(capfd):
    """A numerically singular Newton matrix (cond ~2e18, 725 stored zeros; from the FCLIB
    spheres-in-a-box problem in the MNCP cone form) is reported singular (None, or a RuntimeError
    of SuperLU: the caller treats both so): SuperLU is not given the stored zeros, with which it
    called BLAS with invalid sizes and printed to stderr before failing; this matrix is also
    structurally singular, which is now found before SuperLU runs."""
    from contactmodel.solvers.newton import _Assembler

    # stored as the CSC matrix SuperLU was given, i.e. of H^T
    H = sp.load_npz(Path(__file__).parents[1] / "data" / "newton" / "singular_stored_zeros.npz").T.tocsr()
    assert np.count_nonzero(H.data == 0.0) > 0
    n = H.shape[0]
    assemble = _Assembler(n)
    data = assemble.values(H, np.zeros(n), np.ones(n))
    assert assemble.factor(data, None) is None
    assert "illegal value" not in capfd.readouterr().err


def test_sparse_factor_ignores_stored_zeros():
    """Stored zeros in J leave the sparse LU's solution unchanged."""
    from contactmodel.solvers.newton import _Assembler

    rng = np.random.default_rng(3)
    n = 300
    J = sp.random(n, n, density=0.02, random_state=4, format="csr") + sp.eye(n, format="csr") * 4
    J = J.tocsr()
    J.data[rng.random(J.nnz) < 0.1] = 0.0
    assemble = _Assembler(n)
    da, db = rng.random(n), rng.random(n) + 0.5
    solve = assemble.factor(assemble.values(J, da, db), None)
    r = rng.standard_normal(n)
    H = np.diag(da) + np.diag(db) @ J.toarray()
    assert np.allclose(H @ solve(r), r, atol=1e-10)


def test_dense_lu_reports_singular_without_warning():
    """``dense_lu`` solves H y = r, returns None on an exact zero pivot or one at most
    ``pivot_tol`` relative, and never warns: silencing a warning is not thread-safe, so a warning
    from a solve in a Dask worker's thread would escape."""
    import warnings

    from contactmodel.solvers.newton.core import dense_lu

    H = np.array([[4.0, 1.0], [2.0, 3.0]])
    r = np.array([1.0, 2.0])
    np.testing.assert_allclose(dense_lu(np.asfortranarray(H))(r), np.linalg.solve(H, r), rtol=1e-15)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dense_lu(np.asfortranarray([[1.0, 2.0], [2.0, 4.0]])) is None
        assert dense_lu(np.asfortranarray([[1.0, 0.0], [0.0, 1e-15]]), pivot_tol=1e-14) is None
    assert dense_lu(np.asfortranarray([[1.0, 0.0], [0.0, 1e-13]]), pivot_tol=1e-14) is not None


def _random_problem(seed: int, cone: bool) -> MCP:
    """A random LCP (n = 8, M = G G^T + 0.1 I) or fc3d problem (3 cone blocks, mu in (0.1, 1), two
    box rows: one free, one lower-bounded)."""
    rng = np.random.default_rng(seed)
    n = 11 if cone else 8
    G = rng.standard_normal((n, n))
    M = sp.csr_matrix(G @ G.T + 0.1 * np.eye(n))
    q = rng.standard_normal(n)
    if not cone:
        return MCP.from_lcp(M, q)
    q[0:9:3] -= 1.0  # pressing in
    lcp = MCP.from_lcp(M, q)
    lb = np.concatenate([np.full(10, -np.inf), [0.0]])
    blocks = CoulombBlocks(np.arange(9).reshape(3, 3), rng.uniform(0.1, 1.0, 3))
    return replace(lcp, lb=lb, ub=np.full(n, np.inf), cones=blocks)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), cone=st.booleans(), kernels=st.sampled_from(["numpy", "auto"]))
def test_a_solved_start_ends_where_the_attempts_would(seed, cone, kernels):
    """From a start that already meets tol, the answer without attempts (newton._solved_start) is
    the attempts' own: the same point, CONVERGED after 0 iterations, the same residual; a start
    that does not meet tol is not taken."""
    from contactmodel.solvers import newton as newton_module

    mcp = _random_problem(seed, cone)
    first = solve(mcp, NewtonOptions(kernels=kernels))
    assume(first.outcome is Outcome.CONVERGED)
    short = solve(mcp, NewtonOptions(kernels=kernels, x0=first.x))
    with mock.patch.object(newton_module, "_solved_start", return_value=None):
        long = solve(mcp, NewtonOptions(kernels=kernels, x0=first.x))
    assert short.extras["start_solved"] and "start_solved" not in long.extras
    assert short.outcome is long.outcome is Outcome.CONVERGED
    assert short.iterations == long.iterations == 0
    assert np.array_equal(short.x, long.x)
    assert short.extras["residual"] == pytest.approx(long.extras["residual"], rel=1e-12, abs=0)
    assert set(short.extras) - {"start_solved"} <= set(long.extras)
    off = solve(mcp, NewtonOptions(kernels=kernels, x0=first.x + 1e-3))
    assert "start_solved" not in off.extras and off.iterations >= 1
