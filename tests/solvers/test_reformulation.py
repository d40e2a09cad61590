"""MNCPOpt / LCPOpt reformulation: derivatives, bounds, zero objective at solutions."""

from __future__ import annotations

import re

import numpy as np
import pytest
import scipy.sparse as sp

from contactmodel.errors import SolverError
from contactmodel.mcp import MCP
from contactmodel.solvers.reformulation import MNCPOpt, assess, polish, with_slacks

TERMS = ("product", "componentwise")


def cone_mncp(A: np.ndarray, b: np.ndarray, mu: np.ndarray) -> MCP:
    """Seed 001's all-rolling Coulomb-cone MNCP with k = len(mu) contacts.

    x = (c_n, lam | c_t, c_o, a_t, a_o), each block (k,); the first 2k are u (>= 0).
    Rows: a_n = A1 c + b_n, s = mu^2 c_n^2 - c_t^2 - c_o^2 (f, with c_n and lam);
    mu c_n a_t + c_t lam, mu c_n a_o + c_o lam, (a_t, a_o) - (A2 c + b_to) (g, free).
    c = (c_n, c_t, c_o) (3k,), A (3k, 3k), b (3k,).
    """
    k = mu.size
    n = 6 * k
    cn, lam, ct, co, at, ao = (np.arange(j * k, (j + 1) * k) for j in range(6))
    cidx = np.r_[cn, ct, co]

    def F(x: np.ndarray) -> np.ndarray:
        c = x[cidx]
        a = A @ c + b
        return np.concatenate(
            [
                a[:k],
                mu**2 * x[cn] ** 2 - x[ct] ** 2 - x[co] ** 2,
                mu * x[cn] * x[at] + x[ct] * x[lam],
                mu * x[cn] * x[ao] + x[co] * x[lam],
                x[np.r_[at, ao]] - a[k:],
            ]
        )

    def J(x: np.ndarray) -> sp.csr_matrix:
        D = np.zeros((n, n))
        D[:k, cidx] = A[:k]
        r = np.arange(k)
        D[k + r, cn] = 2 * mu**2 * x[cn]
        D[k + r, ct] = -2 * x[ct]
        D[k + r, co] = -2 * x[co]
        for row0, cj, aj in ((2 * k, ct, at), (3 * k, co, ao)):
            D[row0 + r, cn] = mu * x[aj]
            D[row0 + r, aj] = mu * x[cn]
            D[row0 + r, cj] = x[lam]
            D[row0 + r, lam] = x[cj]
        D[4 * k :, cidx] = -A[k:]
        D[4 * k + np.arange(2 * k), np.r_[at, ao]] += 1.0
        return sp.csr_matrix(D)

    def hess(x: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
        H = np.zeros((n, n))
        ws, wt, wo = w[k : 2 * k], w[2 * k : 3 * k], w[3 * k : 4 * k]
        H[cn, cn] += 2 * mu**2 * ws
        H[ct, ct] -= 2 * ws
        H[co, co] -= 2 * ws
        for wj, cj, aj in ((wt, ct, at), (wo, co, ao)):
            H[cn, aj] += mu * wj
            H[aj, cn] += mu * wj
            H[cj, lam] += wj
            H[lam, cj] += wj
        return sp.csr_matrix(H)

    names = [f"{s}{j}" for s in ("c_n", "lam", "c_t", "c_o", "a_t", "a_o") for j in range(k)]
    lb = np.r_[np.zeros(2 * k), np.full(4 * k, -np.inf)]
    return MCP(F=F, J=J, lb=lb, ub=np.full(n, np.inf), x0=np.zeros(n), names=names, hess=hess)


def cone_with_known_solution(rng: np.random.Generator) -> tuple[MCP, np.ndarray]:
    """A 2-contact cone MNCP built around a known solution x*: contact 0 starts sliding
    (c on the cone boundary, lam > 0, (a_t, a_o) opposing (c_t, c_o)), contact 1 breaks
    (c = 0, a_n > 0; its lam is then arbitrary >= 0, x* has lam = 0)."""
    mu = np.array([0.3, 0.5])
    G = rng.standard_normal((6, 6))
    A = G @ G.T + 0.5 * np.eye(6)
    cn = np.array([1.3, 0.0])
    lam = np.array([0.7, 0.0])
    th = rng.uniform(0, 2 * np.pi)
    ct = np.array([mu[0] * cn[0] * np.cos(th), 0.0])
    co = np.array([mu[0] * cn[0] * np.sin(th), 0.0])
    at = np.array([-ct[0] * lam[0] / (mu[0] * cn[0]), rng.standard_normal()])
    ao = np.array([-co[0] * lam[0] / (mu[0] * cn[0]), rng.standard_normal()])
    an = np.array([0.0, 0.8])
    c = np.r_[cn, ct, co]
    b = np.r_[an, at, ao] - A @ c
    return cone_mncp(A, b, mu), np.r_[cn, lam, ct, co, at, ao]


def quadratic_mcp(rng: np.random.Generator, n: int = 7, n_free: int = 3) -> MCP:
    """F_i(x) = 1/2 x^T H_i x + B_i x + c_i with random symmetric H_i; the last n_free free."""
    Hs = rng.standard_normal((n, n, n))
    Hs = 0.5 * (Hs + Hs.transpose(0, 2, 1))
    B = rng.standard_normal((n, n))
    c = rng.standard_normal(n)
    lb = np.r_[np.zeros(n - n_free), np.full(n_free, -np.inf)]
    return MCP(
        F=lambda x: 0.5 * np.einsum("ijk,j,k->i", Hs, x, x) + B @ x + c,
        J=lambda x: sp.csr_matrix(np.einsum("ijk,k->ij", Hs, x) + B),
        lb=lb,
        ub=np.full(n, np.inf),
        x0=np.zeros(n),
        hess=lambda x, w: sp.csr_matrix(np.einsum("i,ijk->jk", w, Hs)),
    )


def fd_gradient(f, y: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(y)
    for i in range(y.size):
        e = np.zeros_like(y)
        e[i] = h
        g[i] = (f(y + e) - f(y - e)) / (2 * h)
    return g


def fd_jacobian(g, y: np.ndarray, h: float = 1e-6) -> np.ndarray:
    cols = []
    for i in range(y.size):
        e = np.zeros_like(y)
        e[i] = h
        cols.append((g(y + e) - g(y - e)) / (2 * h))
    return np.stack(cols, axis=1)


def random_point(form: MNCPOpt, rng: np.random.Generator) -> np.ndarray:
    y = rng.standard_normal(form.dim)
    lo, _ = form.bounds()
    y[lo == 0.0] = np.abs(y[lo == 0.0]) + 0.1
    return y


def affine_mcp(rng: np.random.Generator, n: int = 5, n_free: int = 2) -> MCP:
    """F(x) = M x + q with the last n_free variables free; hess is None."""
    M = sp.csr_matrix(rng.standard_normal((n, n)))
    q = rng.standard_normal(n)
    lb = np.r_[np.zeros(n - n_free), np.full(n_free, -np.inf)]
    return MCP(F=lambda x: M @ x + q, J=lambda x: M, lb=lb, ub=np.full(n, np.inf), M=M, q=q)


def problems(rng: np.random.Generator) -> list[MCP]:
    mcp_known, _ = cone_with_known_solution(rng)
    G = rng.standard_normal((6, 6))
    cone = cone_mncp(G @ G.T, rng.uniform(-5, 5, 6), np.array([0.1, 0.2]))
    return [quadratic_mcp(rng), mcp_known, cone, affine_mcp(rng)]


@pytest.mark.parametrize("term", TERMS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_and_hessian_match_finite_differences(term: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for mcp in problems(rng):
        form = MNCPOpt(mcp, term)
        for _ in range(2):
            y = random_point(form, rng)
            g = form.gradient(y)
            np.testing.assert_allclose(
                g, fd_gradient(form.objective, y), rtol=1e-6, atol=1e-6 * (1 + np.abs(g).max())
            )
            H = form.hessian(y).toarray()
            np.testing.assert_allclose(H, H.T, atol=1e-12)
            Hfd = fd_jacobian(form.gradient, y)
            np.testing.assert_allclose(H, Hfd, rtol=1e-5, atol=1e-6 * (1 + np.abs(H).max()))


@pytest.mark.parametrize("term", TERMS)
def test_hessian_values_fill_the_fixed_lower_structure(term: str) -> None:
    rng = np.random.default_rng(5)
    for mcp in problems(rng):
        form = MNCPOpt(mcp, term)
        rows, cols = form.hessian_structure()
        assert np.all(rows >= cols)
        assert len(set(zip(rows.tolist(), cols.tolist(), strict=True))) == rows.size
        for y in (form.starting_point(), random_point(form, rng)):
            L = np.zeros((form.dim, form.dim))
            L[rows, cols] = form.hessian_values(y)
            np.testing.assert_allclose(L, np.tril(form.hessian(y).toarray()), atol=1e-13)
        assert form.dropped_hessian_entries == 0


def test_objective_terms_by_hand() -> None:
    rng = np.random.default_rng(3)
    mcp = quadratic_mcp(rng, n=5, n_free=2)
    y = random_point(MNCPOpt(mcp), rng)
    x, z = y[:5], y[5:]
    F = mcp.F(x)
    base = np.sum((F[:3] - z) ** 2) + np.sum(F[3:] ** 2)
    u = x[:3]
    assert MNCPOpt(mcp, "product").objective(y) == pytest.approx(0.5 * (base + (u @ z) ** 2))
    assert MNCPOpt(mcp, "componentwise").objective(y) == pytest.approx(0.5 * (base + np.sum((u * z) ** 2)))


@pytest.mark.parametrize("term", TERMS)
def test_objective_is_zero_at_a_known_solution(term: str) -> None:
    for seed in range(5):
        mcp, xs = cone_with_known_solution(np.random.default_rng(seed))
        assert np.max(np.abs(mcp.x0 - xs)) > 0.1
        form = MNCPOpt(mcp, term)
        ys = form.starting_point(xs)
        np.testing.assert_array_equal(form.split(ys), xs)
        assert form.objective(ys) < 1e-28
        assert np.max(np.abs(form.gradient(ys))) < 1e-13
        a = assess(form, ys, tol=1e-12, objective_tol=1e-20)
        assert a.converged and a.natural_residual < 1e-13
        y_off = ys.copy()
        y_off[0] += 1e-3
        assert form.objective(y_off) > 1e-9


def test_lcp_is_lcpopt() -> None:
    rng = np.random.default_rng(4)
    M = rng.standard_normal((4, 4))
    q = rng.standard_normal(4)
    form = MNCPOpt(MCP.from_lcp(M, q))
    assert form.n_u == 4 and form.dim == 8 and form.v_idx.size == 0
    y = np.abs(rng.standard_normal(8))
    u, z = y[:4], y[4:]
    expected = 0.5 * (np.sum((M @ u + q - z) ** 2) + (u @ z) ** 2)
    assert form.objective(y) == pytest.approx(expected)
    lo, hi = form.bounds()
    np.testing.assert_array_equal(lo, np.zeros(8))
    assert np.all(np.isinf(hi))
    y0 = form.starting_point()
    np.testing.assert_array_equal(y0, np.r_[np.zeros(4), np.maximum(q, 0)])


def test_bounds_and_starting_point_with_free_variables() -> None:
    mcp = quadratic_mcp(np.random.default_rng(6), n=5, n_free=2)
    form = MNCPOpt(mcp)
    lo, hi = form.bounds()
    np.testing.assert_array_equal(lo, [0, 0, 0, -np.inf, -np.inf, 0, 0, 0])
    assert np.all(np.isinf(hi))
    x0 = np.array([-1.0, 2.0, 0.5, -3.0, 4.0])
    y0 = form.starting_point(x0)
    np.testing.assert_array_equal(y0[:5], [0.0, 2.0, 0.5, -3.0, 4.0])
    np.testing.assert_array_equal(y0[5:], np.maximum(mcp.F(y0[:5])[:3], 0.0))
    np.testing.assert_array_equal(form.split(y0), y0[:5])


@pytest.mark.parametrize(
    "lb, ub, bad",
    [
        ([0.0, 1.0, -np.inf], [np.inf, np.inf, np.inf], "1 ('w1')"),
        ([0.0, 0.0, -np.inf], [np.inf, np.inf, 2.0], "2 ('w2')"),
        ([0.0, 0.0, 0.0], [np.inf, 0.0, np.inf], "1 ('w1')"),
    ],
)
def test_other_bounds_are_rejected_by_name(lb, ub, bad) -> None:
    mcp = MCP.from_lcp(np.eye(3), np.ones(3), names=["w0", "w1", "w2"])
    mcp.lb, mcp.ub = np.array(lb), np.array(ub)
    with pytest.raises(SolverError, match=re.escape(f"variable {bad}")):
        MNCPOpt(mcp)


def test_unknown_complementarity_term_is_rejected() -> None:
    with pytest.raises(SolverError, match="complementarity_term"):
        MNCPOpt(MCP.from_lcp(np.eye(2), np.ones(2)), "sum")


def test_polish_recovers_exact_solution_near_it() -> None:
    mcp, xs = cone_with_known_solution(np.random.default_rng(7))
    form = MNCPOpt(mcp)
    x = xs + 1e-6 * np.random.default_rng(8).standard_normal(xs.size)
    x[[1, 3]] = 1e-7
    p = polish(form, x, tol=1e-10)
    assert p.steps >= 1 and p.natural_residual < 1e-12
    keep = np.arange(xs.size) != 3
    np.testing.assert_allclose(p.x[keep], xs[keep], atol=1e-5)
    assert MNCPOpt(mcp).objective(with_slacks(form, p.x)) < 1e-20


def test_polish_identifies_a_degenerate_pair_the_natural_map_misreads() -> None:
    # 0 <= x _|_ M x + q >= 0 with M = [[1, 1], [1, 1]] (singular, PSD), q = (-1, -1 + e): the
    # solution x = (1, 0), w = (0, e) by hand. Near it x_2 = 4e-4 > w_2 = e + 1e-8, both small (as
    # an interior-point run leaves them), so the natural map calls x_2 basic; then F_1 = F_2 = 0
    # has no solution and its least-squares step stalls at residual ~e / 2.
    e = 2e-5
    mcp = MCP.from_lcp(np.ones((2, 2)), np.array([-1.0, -1.0 + e]))
    x = np.array([1.0 - 4e-4 + 1e-8, 4e-4])
    p = polish(MNCPOpt(mcp), x, tol=1e-10)
    assert p.natural_residual <= 1e-13
    np.testing.assert_allclose(p.x, [1.0, 0.0], atol=1e-13)
