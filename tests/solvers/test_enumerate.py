"""Enumeration of complementary bases: all solutions, certificates, degenerate cases."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from contactmodel.errors import SolverError
from contactmodel.io.siconos_lcp import read_lcp
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.enumerate import EnumerateOptions, all_solutions, solve

BENCH = Path(__file__).resolve().parents[1] / "data" / "lcp"


def as_set(sols: list[np.ndarray]) -> set[tuple[float, ...]]:
    return {tuple(np.round(z, 9)) for z in sols}


def lcp_residual(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    return float(np.abs(np.minimum(z, M @ z + q)).max())


def test_negative_identity_has_all_vertices() -> None:
    """M = -I, q = e: w_i = 1 - z_i, so each z_i is 0 or 1: 2^3 solutions."""
    sols = all_solutions(-np.eye(3), np.ones(3))
    assert as_set(sols) == set(itertools.product([0.0, 1.0], repeat=3))


def test_cps1_continuum_gives_its_vertices() -> None:
    M = np.ones((2, 2))
    q = -np.ones(2)
    assert as_set(all_solutions(M, q)) == {(1.0, 0.0), (0.0, 1.0)}
    if (BENCH / "lcp_CPS_1.dat").is_file():
        Mb, qb = read_lcp(BENCH / "lcp_CPS_1.dat")
        assert as_set(all_solutions(Mb, qb)) == {(1.0, 0.0), (0.0, 1.0)}


def test_singular_basis_checked_by_lp() -> None:
    """M = [[0, 0], [1, 1]], q = (0, -1): (1, 0) lies only in singular complementary cones."""
    M = np.array([[0.0, 0.0], [1.0, 1.0]])
    q = np.array([0.0, -1.0])
    sols = all_solutions(M, q)
    assert as_set(sols) == {(0.0, 1.0), (1.0, 0.0)}
    r = solve(MCP.from_lcp(M, q))
    assert r.extras["lp_checks"] >= 1
    unchecked = solve(MCP.from_lcp(M, q), EnumerateOptions(max_lp=0))
    assert unchecked.extras["unchecked"] >= 1 and len(unchecked.extras["solutions"]) == 1


def test_no_solution_is_certified() -> None:
    M = np.array([[1.0, -1.0], [-1.0, 1.0]])
    r = solve(MCP.from_lcp(M, [-1.0, -1.0]))
    assert r.outcome is Outcome.INFEASIBLE and r.x is None
    assert r.extras["solutions"] == [] and r.extras["unchecked"] == 0
    assert r.iterations == 4


def test_unchecked_singular_bases_are_not_a_certificate() -> None:
    M = np.zeros((2, 2))
    r = solve(MCP.from_lcp(M, [-1.0, 0.0]), EnumerateOptions(max_lp=0))
    assert r.outcome is Outcome.FAILED and "not a certificate" in r.message
    r = solve(MCP.from_lcp(M, [-1.0, 0.0]))
    assert r.outcome is Outcome.INFEASIBLE


@pytest.mark.parametrize("seed", range(5))
def test_every_returned_point_solves(seed: int) -> None:
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((8, 8))
    q = rng.standard_normal(8)
    sols = all_solutions(M, q)
    for z in sols:
        assert z.min() >= 0.0 and lcp_residual(M, q, z) <= 1e-9
    assert len(as_set(sols)) == len(sols)
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is (Outcome.CONVERGED if sols else Outcome.INFEASIBLE)


def test_bench_pang_isolated_solution() -> None:
    if not (BENCH / "lcp_Pang_isolated_sol.dat").is_file():
        pytest.skip("benchmark data not available")
    M, q = read_lcp(BENCH / "lcp_Pang_isolated_sol.dat")
    r = solve(MCP.from_lcp(M, q))
    assert r.outcome is Outcome.CONVERGED and len(r.extras["solutions"]) == 1
    assert lcp_residual(M, q, r.x) <= 1e-9


def test_max_n_and_non_lcp() -> None:
    with pytest.raises(SolverError, match="max_n"):
        solve(MCP.from_lcp(np.eye(5), np.ones(5)), EnumerateOptions(max_n=4))
    mcp = MCP.from_lcp(np.eye(2), np.ones(2))
    mcp.lb = -np.ones(2)
    with pytest.raises(SolverError, match="only LCPs"):
        solve(mcp)
