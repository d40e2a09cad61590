"""Lemke's method: solutions, Murty's exponential example, certificates, restarts, warm starts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contactmodel.errors import SolverError
from contactmodel.io.siconos_lcp import read_lcp
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.enumerate import all_solutions
from contactmodel.solvers.lemke import LemkeOptions, solve

BENCH = Path(__file__).resolve().parents[1] / "data" / "lcp"


def bench(name: str) -> tuple[np.ndarray, np.ndarray]:
    if not (BENCH / name).is_file():
        pytest.skip(f"benchmark data {BENCH / name} not available")
    return read_lcp(BENCH / name)


def lcp_residual(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    return float(np.abs(np.minimum(z, M @ z + q)).max())


def murty(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Murty's (1978) example, indices reversed: upper triangular, 1 on and 2 above the diagonal,
    q_i = -(2^(n+1) - 2^(i+1)), i = 0..n-1 (n = 6 is lcp_exp_murty2.dat)."""
    M = np.triu(2.0 * np.ones((n, n)), 1) + np.eye(n)
    q = -(2.0 ** (n + 1) - 2.0 ** np.arange(1, n + 1))
    return M, q


@pytest.mark.parametrize("n", range(1, 9))
def test_murty_family_takes_2_to_the_n_pivots(n: int) -> None:
    M, q = murty(n)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED
    assert r.extras["pivots"] == 2**n
    assert lcp_residual(M, q, r.x) == 0.0
    expected = np.zeros(n)
    expected[-1] = 2.0**n
    np.testing.assert_allclose(r.x, expected)


def test_murty_bench_files() -> None:
    """Pivot counts include the initial pivot (z0 enters) and the last (z0 leaves).

    lcp_exp_murty2.dat is Murty's exponential example (q = -(126, 124, ..., 64)): 2^6 = 64
    pivots (Murty 1978; Cottle 1980 "requiring 2^n or 2^n - 1 pivots depending on which of two
    complementary pivot methods": 2^n is Lemke's, 2^n - 1 Murty's Bard-type method), i.e. 63
    almost-complementary bases before the solution. lcp_exp_murty.dat has q = -e: the first
    ratio test ties in every row, the lexicographic rule takes the last row, and z_6 = 1 solves
    it at the next pivot: 2 pivots. It is not an exponential case for this rule.
    """
    M, q = bench("lcp_exp_murty2.dat")
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED and r.extras["pivots"] == 64
    assert r.extras["restarts"] == 0
    assert lcp_residual(M, q, r.x) == 0.0
    M, q = bench("lcp_exp_murty.dat")
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED and r.extras["pivots"] == 2
    np.testing.assert_array_equal(r.x, [0, 0, 0, 0, 0, 1])


def test_pivot_limit() -> None:
    M, q = murty(6)
    r = solve(MCP.from_lcp(M, q), LemkeOptions(max_pivots=10))
    assert r.outcome is Outcome.ITERATION_LIMIT and r.x is None
    assert r.extras["pivots"] == 10


def test_singular_basis_ends_the_run_not_the_call(monkeypatch) -> None:
    """A basis found singular when refactored (np.linalg.inv raising) loses that run, and the
    next covering vector is tried; when every run is lost the answer is FAILED, never an
    exception out of the solver."""
    from contactmodel.solvers import lemke

    def singular(self) -> None:
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(lemke._Tableau, "check", singular)
    M, q = murty(6)  # no run ends at its first pivot, so every run reaches the check
    r = solve(MCP.from_lcp(M, q), LemkeOptions(check_every=1, max_restarts=2))
    assert r.outcome is Outcome.FAILED and r.x is None
    assert r.extras["singular"] == r.extras["starts"] == 3
    assert "singular at a refactorization in run 3" in r.message


SOLVED_BY_LEMKE = [
    "lcp_CPS_1.dat",
    "lcp_CPS_2.dat",
    "lcp_CPS_4.dat",
    "lcp_CPS_4bis.dat",
    "lcp_CPS_5.dat",
    "lcp_Pang_isolated_sol.dat",
    "lcp_deudeu.dat",
    "lcp_deudeu_block.dat",
    "lcp_enum_fails.dat",
    "lcp_inf_sol_perturbed.dat",
    "lcp_mmc.dat",
    "lcp_ortiz.dat",
    "lcp_ortiz_block.dat",
    "lcp_tobenna.dat",
    "lcp_trivial.dat",
    "lcp_trivial_block.dat",
]


@pytest.mark.parametrize("name", SOLVED_BY_LEMKE)
def test_bench_solutions(name: str) -> None:
    M, q = bench(name)
    r = solve(MCP.from_lcp(sp.csr_matrix(M), q))
    assert r.outcome is Outcome.CONVERGED
    assert r.x.shape == q.shape and r.x.min() >= 0.0
    assert lcp_residual(M, q, r.x) <= 1e-9 * max(1.0, np.abs(M).max(), np.abs(q).max())


def test_bimatrix_ray_is_not_a_certificate() -> None:
    """M = [[0, 1], [1, 0]], q = (-1, -1) has the solution z = (1, 1), w = 0.

    Lemke: z0 = 1 enters for w_2 (lexicographic tie-break), then z_2 would enter but only raises
    w_1: a secondary ray after 1 pivot, with every covering vector by symmetry. M is copositive but not
    copositive-plus (z = e_1 has z^T M z = 0 but (M + M^T) z != 0), M + M^T has eigenvalue -2.
    """
    M = np.array([[0.0, 1.0], [1.0, 0.0]])
    q = np.array([-1.0, -1.0])
    assert [z.tolist() for z in all_solutions(M, q)] == [[1.0, 1.0]]
    r = solve(MCP.from_lcp(M, q), LemkeOptions(max_restarts=3))
    assert r.outcome is Outcome.FAILED and r.x is None
    assert r.extras["starts"] == 4 and r.extras["restarts"] == 3
    assert r.extras["pivots"] == 4
    assert "not a certificate" in r.message and "not positive semidefinite" in r.extras["ray"]
    assert "certificate" not in r.extras


def test_cps3_bimatrix_game_fails_not_infeasible() -> None:
    M, q = bench("lcp_CPS_3.dat")
    assert all_solutions(M, q)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.FAILED
    assert r.extras["restarts"] == LemkeOptions().max_restarts


@pytest.mark.parametrize(
    ("M", "q"),
    [
        ([[1.0, -1.0], [-1.0, 1.0]], [-1.0, -1.0]),
        ([[0.0, 0.0], [0.0, 0.0]], [-1.0, 2.0]),
        ([[2.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]], [1.0, 1.0, -1.0]),
    ],
)
def test_psd_ray_certifies_infeasibility(M: list, q: list) -> None:
    """Hand-checked infeasible PSD LCPs.

    1) M + M^T = 2 [[1, -1], [-1, 1]] is PSD; w_1 + w_2 = q_1 + q_2 = -2 < 0 for every z.
    2) M = 0: w_1 = -1 < 0 for every z.
    3) M + M^T = diag(4, 2, 0) is PSD; w_3 = -z_1 - 1 < 0 for every z >= 0.
    """
    M, q = np.array(M), np.array(q)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.INFEASIBLE and r.x is None
    assert r.extras["restarts"] == 0
    assert "no solution" in r.extras["ray"] and "copositive-plus" in r.extras["ray"]
    y = r.extras["certificate"]
    assert y.min() >= 0.0 and (M.T @ y).max() <= 1e-12 and q @ y < 0.0
    assert all_solutions(M, q) == []


def test_nonpsd_farkas_ray_is_a_certificate() -> None:
    """M = -I, q = (-1, 1): w_1 = -z_1 - 1 < 0, infeasible; the ray y = e_1 is a Farkas vector."""
    M = -np.eye(2)
    q = np.array([-1.0, 1.0])
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.INFEASIBLE
    assert "Farkas" in r.extras["ray"] and "verified" in r.extras["ray"]
    np.testing.assert_allclose(r.extras["certificate"], [1.0, 0.0])


def test_restart_with_new_covering_vector_solves() -> None:
    """A ray with d = e, then a solution after restarts with random covering vectors."""
    rng = np.random.default_rng(3)
    for _ in range(500):
        M = rng.integers(-3, 4, (3, 3)).astype(float)
        q = rng.integers(-3, 4, 3).astype(float)
        r = solve(MCP.from_lcp(M, q), LemkeOptions(seed=1))
        if r.outcome is Outcome.CONVERGED and r.extras["restarts"] > 0:
            break
    else:
        pytest.fail("no random 3x3 LCP needed a restart")
    assert r.extras["starts"] == r.extras["restarts"] + 1
    assert lcp_residual(M, q, r.x) <= 1e-12
    first = solve(MCP.from_lcp(M, q), LemkeOptions(max_restarts=0))
    assert first.outcome is not Outcome.CONVERGED


def p_matrix(draw, n: int) -> np.ndarray:
    """Positive definite (not symmetric) matrices: A A^T / n + I / 2 + (S - S^T); P-matrices."""
    vals = st.floats(-2.0, 2.0, allow_nan=False)
    A = np.array(draw(st.lists(vals, min_size=n * n, max_size=n * n))).reshape(n, n)
    S = np.array(draw(st.lists(vals, min_size=n * n, max_size=n * n))).reshape(n, n)
    return A @ A.T / n + 0.5 * np.eye(n) + (S - S.T)


@st.composite
def p_lcp(draw) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, 6))
    M = p_matrix(draw, n)
    q = np.array(draw(st.lists(st.floats(-5.0, 5.0), min_size=n, max_size=n)))
    return M, q


@settings(max_examples=60, deadline=None)
@given(p_lcp())
@example((np.array([[0.5]]), np.array([-1e-9])))
def test_lemke_agrees_with_enumeration_on_p_matrices(data: tuple[np.ndarray, np.ndarray]) -> None:
    M, q = data
    sols = all_solutions(M, q)
    scale = 1.0 + np.abs(q).max()
    # a P-matrix LCP has one solution; at q_i ~ 0 the enumeration's tolerance also admits points
    # that close to it (M = [[0.5]], q = [-1e-9]: z = 0 and z = 2e-9)
    assert sols and max(np.abs(z - sols[0]).max() for z in sols) <= 1e-8 * scale
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED and r.extras["restarts"] == 0
    assert lcp_residual(M, q, r.x) <= 1e-9 * (1.0 + np.abs(q).max())
    np.testing.assert_allclose(r.x, sols[0], atol=1e-8 * scale)


def test_degenerate_q_zero_rows_terminate() -> None:
    """Degenerate ties (q with equal and zero entries) are broken lexicographically."""
    M, q = murty(5)
    q = np.array([-1.0, -1.0, 0.0, -1.0, 0.0])
    r = solve(MCP.from_lcp(M.T, q))
    assert r.outcome is Outcome.CONVERGED
    assert lcp_residual(M.T, q, r.x) <= 1e-12


def test_warm_start() -> None:
    M, q = murty(6)
    sol = solve(MCP.from_lcp(M, q))
    basic = sol.x > 0
    r = solve(MCP.from_lcp(M, q), LemkeOptions(warm_start_basis=basic))
    assert r.outcome is Outcome.CONVERGED and r.extras["pivots"] == 0
    assert r.extras["warm_start"] == "used"
    np.testing.assert_allclose(r.x, sol.x)
    r = solve(MCP.from_lcp(M, q), LemkeOptions(warm_start_basis=[0, 1]))
    assert r.outcome is Outcome.CONVERGED and r.extras["warm_start"] == "used"
    assert r.extras["pivots"] > 0 and r.extras["restarts"] == 0
    np.testing.assert_allclose(r.x, sol.x)
    singular = np.array([[1.0, 1.0], [1.0, 1.0]])
    r = solve(MCP.from_lcp(singular, [-1.0, -2.0]), LemkeOptions(warm_start_basis=[0, 1]))
    assert r.extras["warm_start"] == "singular" and r.outcome is Outcome.CONVERGED
    with pytest.raises(SolverError):
        solve(MCP.from_lcp(M, q), LemkeOptions(warm_start_basis=[7]))


def test_trivial_and_covering_options() -> None:
    r = solve(MCP.from_lcp(np.eye(3), [1.0, 0.0, 2.0]))
    assert r.outcome is Outcome.CONVERGED and r.extras["pivots"] == 0
    np.testing.assert_array_equal(r.x, np.zeros(3))
    M, q = murty(4)
    r = solve(MCP.from_lcp(M, q), LemkeOptions(covering=np.array([1.0, 2.0, 3.0, 4.0])))
    assert r.outcome is Outcome.CONVERGED and lcp_residual(M, q, r.x) <= 1e-12
    with pytest.raises(SolverError, match="covering"):
        solve(MCP.from_lcp(M, q), LemkeOptions(covering=-np.ones(4)))


def test_requires_lcp() -> None:
    mcp = MCP.from_lcp(np.eye(2), [-1.0, 1.0])
    mcp.lb = np.array([-np.inf, 0.0])
    with pytest.raises(SolverError, match="only LCPs"):
        solve(mcp)


def test_psd_n300_accuracy() -> None:
    rng = np.random.default_rng(0)
    G = rng.standard_normal((300, 150))
    M = G @ G.T + 1e-3 * np.eye(300)
    q = rng.standard_normal(300)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED
    assert lcp_residual(M, q, r.x) <= 1e-9


@pytest.mark.parametrize("n", [240, 320])
def test_rank_deficient_pile_step(n: int) -> None:
    """Steps of cm.simulate on a pile of 16 boxes (friction pyramid, 4 corners per face: M of rank
    230 / 304). Lemke used to pivot on entries of 1e-8 there, B^-1 grew to 1e15 and the run ended
    with "z0 left the basis" at a point with complementarity errors of 1e5; Harris' ratio test and
    passing over tiny tied pivots reach a true solution."""
    data = np.load(Path(__file__).resolve().parents[1] / "data" / "lemke" / f"pile16_step_{n}.npz")
    M = sp.csr_matrix((data["data"], data["indices"], data["indptr"]), shape=(n, n)).toarray()
    q = data["q"]
    assert np.linalg.matrix_rank(M) < n
    result = solve(MCP.from_lcp(M, q))
    assert result.outcome is Outcome.CONVERGED
    assert lcp_residual(M, q, result.x) < 1e-10 * max(1.0, np.abs(q).max())
