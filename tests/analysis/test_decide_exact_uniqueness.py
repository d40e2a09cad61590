"""cm.decide's exact uniqueness trees and its linear MCPs with free variables, on hand-checked
cases; the certificates are re-checked here by ``tree_min_norm`` and by the benchmark's check."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.analysis.certificate import tree_min_norm
from contactmodel.analysis.decide import (
    MilpResult,
    Status,
    _Options,
    _uniqueness_trees,
    away_lcp,
    decide,
    mixed_to_lcp,
    verify_farkas,
)
from contactmodel.mcp.types import MCP

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "decide_bench.py"


def _linear_mcp(M: np.ndarray, q: np.ndarray, lb: np.ndarray) -> MCP:
    """F(x) = M x + q with lb <= x (lb 0 or -inf), ub = +inf."""
    Ms = sp.csr_matrix(M)
    return MCP(
        F=lambda x: Ms @ x + q,
        J=lambda x: Ms,
        lb=np.asarray(lb, dtype=float),
        ub=np.full(q.size, np.inf),
        x0=np.zeros(q.size),
        M=Ms,
        q=np.asarray(q, dtype=float),
    )


def test_away_lcp_adds_the_row_with_a_zero_column() -> None:
    M, q = np.array([[2.0, 1.0], [0.0, 3.0]]), np.array([-1.0, 4.0])
    Ma, qa = away_lcp(M, q, np.array([1.0, -2.0]), 0.5)
    np.testing.assert_array_equal(Ma.toarray(), [[2, 1, 0], [0, 3, 0], [1, -2, 0]])
    np.testing.assert_array_equal(qa, [-1.0, 4.0, -0.5])


def test_mixed_mcp_is_decided_through_its_split_lcp() -> None:
    # x free with F_x = 2x + y - 2 = 0; 0 <= y _|_ F_y = -x + 3y + 2 >= 0. y = 0 gives x = 1,
    # F_y = 1 > 0; y > 0 needs F_y = 0: -(2 - y)/2 + 3y + 2 = 0, y = -2/7 < 0. Unique (1, 0).
    M, q = np.array([[2.0, 1.0], [-1.0, 3.0]]), np.array([-2.0, 2.0])
    mcp = _linear_mcp(M, q, [-np.inf, 0.0])
    assert not mcp.is_lcp
    Mp, qp, free = mixed_to_lcp(mcp)
    np.testing.assert_array_equal(Mp.toarray(), [[2, 1, -2], [-1, 3, 1], [-2, -1, 2]])
    np.testing.assert_array_equal(qp, [-2.0, 2.0, 2.0])
    assert free.tolist() == [0]
    result = decide(mcp)
    assert result.status is Status.UNIQUE and result.exact
    np.testing.assert_allclose(result.solutions[0], [1.0, 0.0], atol=1e-12)
    assert any("free variables" in step for step in result.tried)


def test_mixed_mcp_without_solution_has_an_exact_farkas_ray() -> None:
    # x free with F_x = y + 1 = 0 needs y = -1 < 0: no solution
    M, q = np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([1.0, 0.0])
    mcp = _linear_mcp(M, q, [-np.inf, 0.0])
    result = decide(mcp)
    assert result.status is Status.NO_SOLUTION and result.exact
    Mp, qp, _ = mixed_to_lcp(mcp)
    assert verify_farkas(Mp, qp, result.evidence["farkas_y"])[0]


def test_mixed_to_lcp_refuses_other_bounds() -> None:
    M, q = np.eye(2), np.ones(2)
    assert mixed_to_lcp(_linear_mcp(M, q, [-1.0, 0.0])) is None  # a finite nonzero bound


def test_unique_by_exact_trees_when_m_is_not_a_p_matrix() -> None:
    # w1 = z2 - 1, w2 = -z1 + 2: w1 >= 0 needs z2 >= 1, so w2 = 0, z1 = 2, w1 = 0, z2 = 1.
    # M skew (not P, symmetric part 0): uniqueness by the trees, each checked here again
    M, q = np.array([[0.0, 1.0], [-1.0, 0.0]]), np.array([-1.0, 2.0])
    result = decide(cm.LCP(M, q))
    assert result.status is Status.UNIQUE and result.exact
    np.testing.assert_allclose(result.solutions[0], [2.0, 1.0], atol=1e-12)
    trees = result.evidence["uniqueness_trees"]
    assert {(c["row"], c["sign"]) for c in trees} == {(0, 1.0), (0, -1.0), (1, 1.0), (1, -1.0)}
    for c in trees:
        row = c["sign"] * np.eye(2)[c["row"]]
        assert c["bound"] > row @ result.solutions[0]  # z1 itself is excluded
        N, _ = tree_min_norm(*away_lcp(M, q, row, c["bound"]), c["tree"])
        assert N is not None and N >= c["min_norm"] >= result.evidence["min_other_solution_norm"]


def test_trees_decide_where_the_second_solution_milp_point_does_not_verify(monkeypatch) -> None:
    # the same LCP; every MILP answers a candidate t = 1e-6 with a pattern no point has (as
    # HiGHS does near homogeneous rays, e.g. the pyramid LCP of agreement problem 22)
    decide_module = importlib.import_module("contactmodel.analysis.decide")

    def fake(M, q, *args, **kwargs):
        n = q.size
        return MilpResult(1e-6, 1e-6, np.zeros(n), np.zeros(n, dtype=bool), "fake", True, False, 0.0)

    monkeypatch.setattr(decide_module, "pattern_milp", fake)
    M, q = np.array([[0.0, 1.0], [-1.0, 0.0]]), np.array([-1.0, 2.0])
    result = decide(cm.LCP(M, q))
    assert any("did not verify" in step for step in result.tried)
    assert result.status is Status.UNIQUE and result.exact


def test_trees_find_a_second_solution() -> None:
    # n = 1: w = 1 - z, z w = 0: z = 0 and z = 1
    M, q = sp.csr_matrix([[-1.0]]), np.array([1.0])
    opts = _Options(10.0, 1e-4, 1e-8, True, 12, 3, False, 10.0)
    tried: list[str] = []
    kind, z = _uniqueness_trees(M, q, sp.identity(1, format="csr"), np.zeros(1), 0.5, opts, tried)
    assert kind == "solution"
    np.testing.assert_allclose(z, [1.0], atol=1e-12)
    result = decide(cm.LCP(M.toarray(), q))
    assert result.status is Status.MULTIPLE


def test_benchmark_recheck_rejects_a_tampered_tree_bound() -> None:
    spec = importlib.util.spec_from_file_location("_decide_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    M, q = np.array([[0.0, 1.0], [-1.0, 0.0]]), np.array([-1.0, 2.0])
    mcp = cm.LCP(M, q)
    result = decide(mcp)
    assert bench.recheck(result, mcp)
    result.evidence["uniqueness_trees"][0]["bound"] -= 1.0  # z1 itself would be excluded
    assert not bench.recheck(result, mcp)
    result = decide(mcp)
    del result.evidence["uniqueness_trees"][-1]  # one side of a row not covered
    assert not bench.recheck(result, mcp)


def test_round_law_second_solution_from_the_relaxation_starts() -> None:
    # agreement problem 3 under the Coulomb cone (two rolling contacts, a nonlinear MCP): newton
    # started from the normal relaxation's solutions finds verified solutions with other forces
    spec = importlib.util.spec_from_file_location("_agreement_bench_decide", BENCH.parent / "agreement.py")
    agreement = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = agreement  # its dataclasses look their module up
    spec.loader.exec_module(agreement)
    problem = agreement.make_instance("cone", 3, 0, (1, 12)).problem
    mcp = problem.compile().mcp
    assert mixed_to_lcp(mcp) is None  # nonlinear
    result = decide(problem, time_limit=10)
    assert result.status is Status.MULTIPLE and len(result.solutions) >= 2
    from contactmodel.solve import relative_residual

    forces = []
    for x in result.solutions:
        assert relative_residual(mcp, x) <= 1e-8
        problem.compile().load(x)
        forces.append(problem.force_vector().copy())
    assert np.abs(forces[0] - forces[1]).max() > 1e-3 * max(1.0, np.abs(forces[0]).max())
    assert result.evidence["force_distance"] == np.abs(forces[0] - forces[1]).max()


def _ball(mu: float) -> cm.Problem:
    """A ball (m = 1, R = 1, I = 2/5) at rest on the ground, pushed sideways: one rolling
    contact, W = diag(1, 7/2, 7/2) in (n, t, o)."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    ball = system.add_body(
        "ball", mass=1.0, inertia=cm.inertia.sphere(1.0, 1.0), position=(0, 0, 1), wrench=(3.0, 0, 0, 0, 0, 0)
    )
    system.add_contact(ball, system.ground, point=(0, 0, 0), normal=(0, 0, 1), friction=cm.CoulombCone(mu))
    return cm.formulate(system)


def test_coulomb_cone_uniqueness_by_strong_monotonicity() -> None:
    # Q = W - mu/2 (eps B^T B + e_n e_n^T / eps), B = rows t, o of W: Q_nn = 1 - mu / (2 eps),
    # Q_tt = 7/2 - mu eps 49/8: positive definite for some eps iff mu/2 < eps < 4 / (7 mu), i.e.
    # mu < sqrt(8/7) = 1.069
    from contactmodel.analysis.round_laws import monotone_uniqueness

    problem = _ball(0.5)
    np.testing.assert_allclose(problem.assembly.A_sparse.toarray(), np.diag([1.0, 3.5, 3.5]), atol=1e-12)
    proof = monotone_uniqueness(problem)
    assert proof is not None and 0.25 < proof["eps"] < 4 / 3.5
    eps = proof["eps"]
    assert proof["min_eig"] == pytest.approx(min(1 - 0.25 / eps, 3.5 - 0.5 * eps * 49 / 8))
    result = decide(problem)
    assert result.status is Status.UNIQUE and "strongly monotone" in result.evidence["proof"]
    assert monotone_uniqueness(_ball(1.2)) is None  # past sqrt(8/7): no eps


def test_painleve_rod_at_rest_is_unique_by_strong_monotonicity() -> None:
    # the rod's W ~ [[1.6, -1.2, 0], [-1.2, 3.4, 0], [0, 0, 4]] (n, t, o); at mu = 0.5 and
    # eps = 10^-0.5, by hand: Q = [[0.696, -0.878, 0], [-0.878, 2.486, 0], [0, 0, 2.735]], det of
    # the (n, t) block 0.960 > 0, smallest eigenvalue 0.337
    from contactmodel.analysis.round_laws import monotone_uniqueness

    path = BENCH.parents[1] / "examples" / "painleve.py"
    spec = importlib.util.spec_from_file_location("_decide_painleve", path)
    painleve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(painleve)
    problem = cm.formulate(painleve.build(0.5, speed=0.0))
    W = problem.assembly.A_sparse.toarray()
    np.testing.assert_allclose(W, [[1.6, -1.2, 0], [-1.2, 3.4, 0], [0, 0, 4]], atol=1e-3)
    proof = monotone_uniqueness(problem)
    assert proof["eps"] == pytest.approx(10**-0.5)
    assert proof["min_eig"] == pytest.approx(0.3373, abs=1e-3)
    assert decide(problem).status is Status.UNIQUE
