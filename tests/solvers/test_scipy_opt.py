"""Solver "scipy": MNCPOpt / LCPOpt through scipy.optimize.minimize."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from contactmodel.errors import SolverError
from contactmodel.mcp import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.scipy_opt import ScipyOptions, solve

METHODS = ("L-BFGS-B", "trust-constr")
TERMS = ("product", "componentwise")


def pd_lcp(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    G = rng.standard_normal((n, n))
    return G @ G.T + 0.1 * np.eye(n), rng.uniform(-5, 5, n)


def planar_friction_mncp() -> tuple[MCP, np.ndarray]:
    """A 1-contact planar Coulomb MNCP with a free tangential force c_t and acceleration a_t.

    x = (c_n, lam, c_t, a_t): u = (c_n, lam), v = (c_t, a_t);
    F = (a_n, s, mu c_n a_t + c_t lam, a_t - (A c + b)_t) with a = A (c_n, c_t) + b,
    s = mu^2 c_n^2 - c_t^2. b is set so that x* = (2, 0.5, -mu*2, 0.5/...) slides.
    """
    mu = 0.4
    A = np.array([[2.0, 0.3], [0.3, 1.0]])
    cn, lam = 2.0, 0.5
    ct = -mu * cn
    at = -ct * lam / (mu * cn)
    b = np.array([0.0, at]) - A @ np.array([cn, ct])
    xs = np.array([cn, lam, ct, at])

    def F(x: np.ndarray) -> np.ndarray:
        c_n, la, c_t, a_t = x
        a = A @ np.array([c_n, c_t]) + b
        return np.array([a[0], mu**2 * c_n**2 - c_t**2, mu * c_n * a_t + c_t * la, a_t - a[1]])

    def J(x: np.ndarray) -> sp.csr_matrix:
        c_n, la, c_t, a_t = x
        return sp.csr_matrix(
            [
                [A[0, 0], 0.0, A[0, 1], 0.0],
                [2 * mu**2 * c_n, 0.0, -2 * c_t, 0.0],
                [mu * a_t, c_t, la, mu * c_n],
                [-A[1, 0], 0.0, -A[1, 1], 1.0],
            ]
        )

    def hess(x: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
        H = np.zeros((4, 4))
        H[0, 0] = 2 * mu**2 * w[1]
        H[2, 2] = -2 * w[1]
        H[0, 3] = H[3, 0] = mu * w[2]
        H[1, 2] = H[2, 1] = w[2]
        return sp.csr_matrix(H)

    mcp = MCP(
        F=F,
        J=J,
        lb=np.array([0.0, 0.0, -np.inf, -np.inf]),
        ub=np.full(4, np.inf),
        x0=np.zeros(4),
        hess=hess,
    )
    return mcp, xs


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("term", TERMS)
def test_random_pd_lcps_are_solved(method: str, term: str) -> None:
    rng = np.random.default_rng(21)
    for _ in range(3):
        M, q = pd_lcp(rng, int(rng.integers(2, 6)))
        res = solve(MCP.from_lcp(M, q), ScipyOptions(method=method, complementarity_term=term))
        assert res.outcome is Outcome.CONVERGED, res.message
        x = res.x
        w = M @ x + q
        assert np.all(x >= 0) and np.all(w >= -1e-8) and np.max(np.abs(x * w)) <= 1e-8
        assert np.max(np.abs(np.minimum(x, w))) <= 1e-8
        assert res.extras["objective"] <= 1e-10 and res.extras["method"] == method


@pytest.mark.parametrize("method", METHODS)
def test_planar_friction_mncp_is_solved(method: str) -> None:
    mcp, xs = planar_friction_mncp()
    res = solve(mcp, ScipyOptions(method=method))
    assert res.outcome is Outcome.CONVERGED, res.message
    x = res.x
    c_n, lam, c_t, a_t = x
    mu = 0.4
    F = mcp.F(x)
    assert c_n >= 0 and lam >= 0 and F[0] >= -1e-8 and F[1] >= -1e-8
    assert abs(c_n * F[0]) <= 1e-8 and abs(lam * F[1]) <= 1e-8
    assert abs(mu * c_n * a_t + c_t * lam) <= 1e-8 and abs(F[3]) <= 1e-8
    assert abs(c_t) <= mu * c_n + 1e-8


def test_lcp_without_solution_is_not_converged() -> None:
    for method in METHODS:
        res = solve(MCP.from_lcp(-np.eye(2), -np.ones(2)), ScipyOptions(method=method))
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


def test_iteration_limit_is_mapped() -> None:
    mcp, _ = planar_friction_mncp()
    res = solve(mcp, ScipyOptions(max_iter=2, polish=False))
    assert res.outcome is Outcome.ITERATION_LIMIT


def test_bad_options_raise() -> None:
    mcp = MCP.from_lcp(np.eye(2), -np.ones(2))
    with pytest.raises(SolverError, match="method"):
        solve(mcp, ScipyOptions(method="BFGS"))
    with pytest.raises(SolverError, match="complementarity_term"):
        solve(mcp, ScipyOptions(complementarity_term="sum"))
    with pytest.raises(SolverError, match="native"):
        solve(mcp, ScipyOptions(native={"no_such_option": 1}))
