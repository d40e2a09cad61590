"""Solver "ipopt": MNCPOpt / LCPOpt through cyipopt."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from contactmodel.errors import SolverError
from contactmodel.mcp import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.ipopt import IpoptOptions, linearized_start, solve

pytest.importorskip("cyipopt")

TERMS = ("product", "componentwise")


def lcp_by_enumeration(M: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The solution of a small P-matrix LCP by trying every complementary basis."""
    n = q.size
    for k in range(n + 1):
        for act in itertools.combinations(range(n), k):
            idx = list(act)
            x = np.zeros(n)
            if idx:
                x[idx] = np.linalg.solve(M[np.ix_(idx, idx)], -q[idx])
            w = M @ x + q
            if np.all(x >= -1e-12) and np.all(w >= -1e-12):
                return x
    raise AssertionError("no complementary basis solves the LCP")


def cone_problem(seed: int) -> tuple[MCP, np.ndarray]:
    """Seed 001's 2-contact Coulomb-cone MNCP, b chosen so that contact 0 starts sliding
    and contact 1 breaks. x = (c_n, lam | c_t, c_o, a_t, a_o), blocks of 2; mu = (0.3, 0.5).
    Returns the MCP and its data (A, b, mu) packed for the independent check."""
    rng = np.random.default_rng(seed)
    mu = np.array([0.3, 0.5])
    G = rng.standard_normal((6, 6))
    A = G @ G.T + 0.5 * np.eye(6)
    th = rng.uniform(0, 2 * np.pi)
    cn, lam = np.array([1.3, 0.0]), np.array([0.7, 0.0])
    ct = np.array([mu[0] * cn[0] * np.cos(th), 0.0])
    co = np.array([mu[0] * cn[0] * np.sin(th), 0.0])
    at = np.array([-np.cos(th) * lam[0], rng.standard_normal()])
    ao = np.array([-np.sin(th) * lam[0], rng.standard_normal()])
    b = np.r_[0.0, 0.8, at, ao] - A @ np.r_[cn, ct, co]
    k, n = 2, 12
    cidx = np.r_[0:2, 4:8]

    def F(x: np.ndarray) -> np.ndarray:
        c_n, la, c_t, c_o, a_t, a_o = x.reshape(6, k)
        a = A @ x[cidx] + b
        return np.r_[
            a[:k],
            mu**2 * c_n**2 - c_t**2 - c_o**2,
            mu * c_n * a_t + c_t * la,
            mu * c_n * a_o + c_o * la,
            np.r_[a_t, a_o] - a[k:],
        ]

    def J(x: np.ndarray) -> sp.csr_matrix:
        c_n, la, c_t, c_o, a_t, a_o = x.reshape(6, k)
        D = np.zeros((n, n))
        r = np.arange(k)
        D[:k, cidx] = A[:k]
        D[k + r, r] = 2 * mu**2 * c_n
        D[k + r, 4 + r] = -2 * c_t
        D[k + r, 6 + r] = -2 * c_o
        for row0, cj, aj, cv, av in ((4, 4, 8, c_t, a_t), (6, 6, 10, c_o, a_o)):
            D[row0 + r, r] = mu * av
            D[row0 + r, aj + r] = mu * c_n
            D[row0 + r, cj + r] = la
            D[row0 + r, 2 + r] = cv
        D[8:, cidx] = -A[k:]
        D[8 + np.arange(4), 8 + np.arange(4)] += 1.0
        return sp.csr_matrix(D)

    def hess(x: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
        H = np.zeros((n, n))
        r = np.arange(k)
        H[r, r] += 2 * mu**2 * w[2:4]
        H[4 + r, 4 + r] -= 2 * w[2:4]
        H[6 + r, 6 + r] -= 2 * w[2:4]
        for wr, cj, aj in ((4, 4, 8), (6, 6, 10)):
            H[r, aj + r] += mu * w[wr + r]
            H[aj + r, r] += mu * w[wr + r]
            H[cj + r, 2 + r] += w[wr + r]
            H[2 + r, cj + r] += w[wr + r]
        return sp.csr_matrix(H)

    mcp = MCP(
        F=F,
        J=J,
        lb=np.r_[np.zeros(4), np.full(8, -np.inf)],
        ub=np.full(n, np.inf),
        x0=np.zeros(n),
        hess=hess,
    )
    return mcp, (A, b, mu)


def check_cone_solution(x: np.ndarray, A: np.ndarray, b: np.ndarray, mu: np.ndarray, tol: float) -> None:
    """Every condition of Andreani et al.'s (2002) MNCP (16)-(19), checked from the data directly."""
    c_n, lam, c_t, c_o, a_t, a_o = x.reshape(6, 2)
    a = A @ np.r_[c_n, c_t, c_o] + b
    a_n = a[:2]
    s = mu**2 * c_n**2 - c_t**2 - c_o**2
    for u, f in ((c_n, a_n), (lam, s)):
        assert np.all(u >= -tol) and np.all(f >= -tol) and np.all(np.abs(u * f) <= tol)
    np.testing.assert_allclose(mu * c_n * a_t + c_t * lam, 0.0, atol=tol)
    np.testing.assert_allclose(mu * c_n * a_o + c_o * lam, 0.0, atol=tol)
    np.testing.assert_allclose(np.r_[a_t, a_o], a[2:], atol=tol)


@pytest.mark.parametrize("term", TERMS)
def test_random_pd_lcps_are_solved(term: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(8):
        n = int(rng.integers(2, 8))
        G = rng.standard_normal((n, n))
        M = G @ G.T + 0.1 * np.eye(n)
        q = rng.uniform(-5, 5, n)
        res = solve(MCP.from_lcp(M, q), IpoptOptions(complementarity_term=term))
        assert res.outcome is Outcome.CONVERGED, res.message
        x = res.x
        w = M @ x + q
        assert np.max(np.abs(x - np.maximum(x - w, 0.0))) <= 1e-8
        np.testing.assert_allclose(x, lcp_by_enumeration(M, q), atol=1e-7)
        assert res.extras["objective"] <= 1e-10
        assert res.iterations > 0


@pytest.mark.parametrize("term", TERMS)
def test_cone_mncp_is_solved(term: str) -> None:
    for seed in range(3):
        mcp, (A, b, mu) = cone_problem(seed)
        res = solve(mcp, IpoptOptions(complementarity_term=term))
        assert res.outcome is Outcome.CONVERGED, res.message
        x = res.x
        assert np.max(np.abs(x - np.clip(x - mcp.F(x), mcp.lb, mcp.ub))) <= 1e-8
        check_cone_solution(x, A, b, mu, tol=1e-8)
        assert res.extras["natural_residual"] <= 1e-8


def mixed_lcp(seed: int, n: int, n_free: int, skew: float = 0.0) -> tuple[MCP, np.ndarray, np.ndarray]:
    """(the MCP, M, q) of a random mixed LCP whose last ``n_free`` variables are free; M positive
    definite (G G^T + 0.5 I plus ``skew`` (G - G^T))."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, n))
    M = G @ G.T + 0.5 * np.eye(n) + skew * (G - G.T)
    q = rng.uniform(-3, 3, n)
    Msp = sp.csr_matrix(M)
    lb = np.r_[np.zeros(n - n_free), np.full(n_free, -np.inf)]
    mcp = MCP(
        F=lambda x: M @ x + q, J=lambda x: Msp, lb=lb, ub=np.full(n, np.inf), x0=np.zeros(n), M=Msp, q=q
    )
    return mcp, M, q


def check_mixed_lcp_solution(x: np.ndarray, M: np.ndarray, q: np.ndarray, n_free: int, tol: float) -> None:
    """0 <= u _|_ (M x + q)_U >= 0 and (M x + q)_V = 0, from the data directly."""
    w = M @ x + q
    u, wu = x[: x.size - n_free], w[: x.size - n_free]
    assert np.all(u >= 0) and np.all(wu >= -tol) and np.max(np.abs(np.minimum(u, wu))) <= tol
    np.testing.assert_allclose(w[x.size - n_free :], 0.0, atol=tol)


def test_mixed_lcp_with_free_variables_is_solved() -> None:
    mcp, M, q = mixed_lcp(12, 6, 2)
    res = solve(mcp)
    assert res.outcome is Outcome.CONVERGED, res.message
    check_mixed_lcp_solution(res.x, M, q, 2, tol=1e-8)


def test_lcp_without_solution_is_not_converged() -> None:
    res = solve(MCP.from_lcp(-np.eye(3), -np.ones(3)))
    assert res.outcome is not Outcome.CONVERGED
    assert res.extras["objective"] > 1e-3


def test_positive_objective_stationary_point_is_reported_as_such() -> None:
    mcp = MCP(
        F=lambda x: np.array([x[0] ** 2 + 1.0]),
        J=lambda x: sp.csr_matrix([[2.0 * x[0]]]),
        lb=np.array([-np.inf]),
        ub=np.array([np.inf]),
        x0=np.array([0.7]),
        hess=lambda x, w: sp.csr_matrix([[2.0 * w[0]]]),
    )
    res = solve(mcp)
    assert res.outcome is Outcome.FAILED
    assert "non-global stationary point of MNCPOpt" in res.message
    assert "Theorem 1" in res.message
    assert res.extras["objective"] == pytest.approx(0.5, abs=1e-6)


def test_iteration_limit_is_mapped() -> None:
    mcp, _ = cone_problem(0)
    res = solve(mcp, IpoptOptions(max_iter=2, polish=False))
    assert res.outcome is Outcome.ITERATION_LIMIT
    assert "maximum number of iterations" in res.extras["ipopt_message"].lower()


def test_time_limit_is_mapped() -> None:
    mcp, _ = cone_problem(1)
    res = solve(mcp, IpoptOptions(time_limit=1e-4, polish=False))
    assert res.outcome is Outcome.TIME_LIMIT
    assert "time" in res.extras["ipopt_message"].lower()


def test_native_options_pass_through_and_bad_ones_raise() -> None:
    mcp = MCP.from_lcp(np.eye(2), -np.ones(2))
    single = {"restarts": (), "random_starts": 0}  # one attempt: the linearized restart would solve it
    res = solve(mcp, IpoptOptions(native={"mu_strategy": "adaptive", "max_iter": 1}, **single))
    assert res.outcome is Outcome.ITERATION_LIMIT
    with pytest.raises(SolverError, match="no_such_option"):
        solve(mcp, IpoptOptions(native={"no_such_option": 1}))
    with pytest.raises(SolverError, match="complementarity_term"):
        solve(mcp, IpoptOptions(complementarity_term="sum"))
    with pytest.raises(SolverError, match="tol"):
        solve(mcp, IpoptOptions(tol=0.0))


def test_bad_bounds_raise() -> None:
    mcp = MCP.from_lcp(np.eye(2), -np.ones(2), names=["a", "b"])
    mcp.ub = np.array([np.inf, 3.0])
    with pytest.raises(SolverError, match="'b'"):
        solve(mcp)


# Two friction LCPs of the fuzz benchmark (benchmarks/fuzz_run.py, seed 1, scenes 734 and 1071, as
# cm.solve gives them to the solver): every start of Ipopt's own restarts ends at the same
# stationary point of LCPOpt with a positive objective, while the LCPs have solutions.
FUZZ_LCPS = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "ipopt" / "stationary_lcps.json").read_text()
)["lcps"]


@pytest.mark.parametrize("scene", sorted(FUZZ_LCPS))
def test_linearized_restart_leaves_a_nonglobal_stationary_point(scene: str) -> None:
    M, q = (np.array(FUZZ_LCPS[scene][k], dtype=float) for k in ("M", "q"))
    mcp = MCP.from_lcp(M, q)
    own = IpoptOptions(restarts=("interior", "feasible", "componentwise"), random_starts=2)
    stuck = solve(mcp, own)
    assert stuck.outcome is Outcome.FAILED
    assert "non-global stationary point" in stuck.message and stuck.extras["objective"] > 1e-6
    res = solve(mcp)  # the default ladder: the linearized restart right after the first attempt
    assert res.outcome is Outcome.CONVERGED, res.message
    assert res.extras["solved_by"] == "linearized"
    assert [a["name"] for a in res.extras["attempts"]] == ["first", "linearized"]
    assert res.extras["attempts"][-1]["start_pivots"] >= 1
    x = res.x
    w = M @ x + q
    assert np.all(x >= 0.0) and np.all(w >= -1e-9) and np.max(np.abs(np.minimum(x, w))) <= 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_linearized_start_solves_an_affine_mcp_with_free_variables(seed: int) -> None:
    mcp, M, q = mixed_lcp(seed, 7, 3, skew=0.3)  # not symmetric
    start = linearized_start(mcp, np.ones(7))
    assert start is not None and start.iterations == 1 and start.pivots >= 1
    check_mixed_lcp_solution(start.x, M, q, 3, tol=1e-10)


def test_linearized_start_approaches_the_cone_mncp_solution() -> None:
    # the solution is degenerate (contact 1 breaks), so Josephy-Newton converges linearly here:
    # about 1e-2 -> 4e-6 -> 5e-7 -> ... -> 7e-9 in its five iterations
    mcp, (A, b, mu) = cone_problem(0)
    x = solve(mcp).x
    x0 = x + 1e-3 * np.random.default_rng(3).standard_normal(x.size)
    start = linearized_start(mcp, x0)
    assert start is not None and start.iterations == 5
    assert np.max(np.abs(x0 - np.clip(x0 - mcp.F(x0), mcp.lb, mcp.ub))) > 1e-2
    assert start.natural_residual <= 1e-7
    check_cone_solution(start.x, A, b, mu, tol=1e-6)
