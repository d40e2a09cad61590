"""Complementarity branch-and-bound trees: exact "no solution" certificates, checked exactly."""

from __future__ import annotations

import importlib.util
import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import contactmodel as cm
from contactmodel.analysis.certificate import (
    ExactLCP,
    TreeCertificate,
    branch_and_bound,
    check_tree,
    exact_repair,
    norm_of_bound,
    tree_min_norm,
)
from contactmodel.analysis.decide import Status, decide
from contactmodel.errors import ContactModelError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _solvable(M: np.ndarray, q: np.ndarray) -> bool:
    """Brute force: some pattern's LP (z_i = 0 or w_i = 0 for each i) is feasible."""
    n = q.size
    for pattern in itertools.product((False, True), repeat=n):
        on = np.flatnonzero(pattern)
        eq = {"A_eq": M[on], "b_eq": -q[on]} if on.size else {}
        bounds = [(0, None) if p else (0, 0) for p in pattern]
        if linprog(np.zeros(n), A_ub=-M, b_ub=q, bounds=bounds, method="highs", **eq).status == 0:
            return True
    return False


def test_random_small_lcps_agree_with_brute_force_and_every_tree_checks_exactly() -> None:
    rng = np.random.default_rng(7)
    seen = {"solution": 0, "no-solution": 0}
    for _ in range(60):
        n = int(rng.integers(2, 6))
        M = rng.integers(-3, 4, (n, n)).astype(float)
        q = rng.integers(-3, 4, n).astype(float)
        res = branch_and_bound(M, q, time_limit=30.0)
        assert res.status in seen
        seen[res.status] += 1
        assert (res.status == "solution") == _solvable(M, q)
        if res.status == "solution":
            w = M @ res.z + q
            assert res.z.min() >= 0 and w.min() >= -1e-9 and np.abs(res.z * w).max() <= 1e-9
        else:
            assert res.unverified == 0 and res.closed == 1.0
            ok, message = check_tree(M, q, res.certificate)
            assert ok, message
            if res.nodes > 1:  # stopped one node early, its leaves cover only part of the patterns
                cut = branch_and_bound(M, q, node_limit=res.nodes - 2)
                assert cut.status == "limit" and 0.0 <= cut.closed < 1.0
    assert min(seen.values()) >= 10  # both verdicts exercised


def test_a_node_lp_past_its_warm_pivot_cap_is_solved_cold_to_the_same_optimum(monkeypatch) -> None:
    """With a cap of 0 warm pivots every re-solve that needs a pivot goes cold (primal simplex
    from scratch); its max t is the one a fresh LP finds, and a tree still decides correctly."""
    from contactmodel.analysis import certificate

    rng = np.random.default_rng(11)
    problems, fixings = [], []
    for _ in range(20):
        n = int(rng.integers(3, 7))
        problems.append((rng.integers(-3, 4, (n, n)).astype(float), rng.integers(-3, 4, n).astype(float)))
        zfix, wfix = rng.random(n) < 0.3, rng.random(n) < 0.3
        fixings.append((zfix, wfix & ~zfix))

    def max_t(lp, zfix, wfix):
        out = lp.solve(zfix, wfix)
        assert out is not None
        return None if out[0] is None else out[0][-1]

    expected = [max_t(certificate.NodeLP(sp.csr_matrix(M), q), *f) for (M, q), f in zip(problems, fixings)]
    monkeypatch.setattr(certificate, "WARM_PIVOTS", 0)
    cold = 0
    for (M, q), f, t in zip(problems, fixings, expected):
        lp = certificate.NodeLP(sp.csr_matrix(M), q)
        max_t(lp, np.zeros(q.size, bool), np.zeros(q.size, bool))
        got = max_t(lp, *f)
        assert (got is None) == (t is None) and (t is None or abs(got - t) <= 1e-9)
        cold += lp.cold_solves
        res = branch_and_bound(M, q, time_limit=30.0)
        assert (res.status == "solution") == _solvable(M, q)
        if res.status == "no-solution":
            assert check_tree(M, q, res.certificate)[0]
    assert cold >= 20  # the root at least, on every LP


def test_a_long_tree_reports_its_progress(caplog, monkeypatch) -> None:
    """Every REPORT_NODES nodes the tree logs its size and how much of the patterns it covers."""
    from contactmodel.analysis import certificate

    monkeypatch.setattr(certificate, "REPORT_NODES", 2)
    M = np.array([[-2.0, 1.0], [0.0, 1.0]])  # no solution, a tree of 3 nodes (below)
    q = np.array([-2.0, 0.0])
    with caplog.at_level("INFO", logger="contactmodel.analysis.certificate"):
        res = branch_and_bound(M, q)
    lines = [r.getMessage() for r in caplog.records]
    assert res.nodes >= 3 and lines and all(line.startswith("complementarity tree (n = 2)") for line in lines)


def test_check_tree_rejects_incomplete_or_wrong_trees() -> None:
    # w1 = -2 z1 + z2 - 2, w2 = z2: feasible (z = (0, 2)), no solution (z2 w2 = z2^2)
    M = np.array([[-2.0, 1.0], [0.0, 1.0]])
    q = np.array([-2.0, 0.0])
    res = branch_and_bound(M, q)
    assert res.status == "no-solution" and check_tree(M, q, res.certificate)[0]
    nodes = res.certificate.nodes
    assert nodes[0][0] == "branch"
    # one leaf alone does not cover the other half of the patterns
    leaf = next(node for node in nodes if node[0] == "leaf")
    assert not check_tree(M, q, TreeCertificate(2, [leaf]))[0]
    # branching twice on one index at the same path is refused
    _, i, kz, kw = nodes[0]
    twice = TreeCertificate(2, [("branch", i, 1, 2), ("branch", i, 3, 4), nodes[kw], nodes[kz], nodes[kw]])
    assert "not free" in check_tree(M, q, twice)[1]
    # a ray with q . y = 0, or of the wrong sign, fails the exact check
    for wrong in (lambda y: 0.0 * y, lambda y: -y):
        bad = [("leaf", wrong(np.asarray(n[1], dtype=float))) if n[0] == "leaf" else n for n in nodes]
        assert "fails the exact check" in check_tree(M, q, TreeCertificate(2, bad))[1]
    # unreached nodes are refused
    assert not check_tree(M, q, TreeCertificate(2, [*nodes, leaf]))[0]


def test_exact_repair_makes_a_cancelling_ray_exact_and_json_keeps_it() -> None:
    # all w fixed to 0: M z = -q has no z >= 0 since -q is not in the range of the singular M;
    # the ray must give M^T y = 0 exactly, which a float LP ray misses by rounding
    M = np.array([[-3.0, 2, 2, 0], [3, -2, 1, -3], [-3, 1, 2, 2], [-3, 2, 1, 1]])
    q = np.array([0.0, 2, 3, -3])
    assert abs(np.linalg.det(M)) < 1e-9 and not _solvable(M, q)
    res = branch_and_bound(M, q)
    assert res.status == "no-solution" and res.unverified == 0
    assert check_tree(M, q, res.certificate)[0]
    again = TreeCertificate.from_json(res.certificate.to_json())
    assert check_tree(M, q, again)[0]
    # the repair itself: a nearly cancelling y becomes exactly cancelling
    y = np.linalg.svd(M)[0][:, -1]  # left null vector in floats
    y = y if q @ y < 0 else -y
    fixed = exact_repair(sp.csr_matrix(M), y, set(), set(range(4)))
    assert fixed is not None and all(isinstance(v, Fraction) for v in fixed)
    exact = ExactLCP(M, q)
    assert exact.ray_ok(fixed, set(), set(range(4)))
    # the cancellation is exact: one entry moved by 2^-60 breaks it
    moved = fixed.copy()
    k = next(i for i in range(4) if moved[i] != 0)
    moved[k] += Fraction(1, 2**60)
    assert not exact.ray_ok(moved, set(), set(range(4)))


def test_painleve_farkas_ray_is_a_one_leaf_tree() -> None:
    spec = importlib.util.spec_from_file_location("_cert_painleve", EXAMPLES / "painleve.py")
    painleve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(painleve)
    mu = 2.0
    assert mu > painleve.critical_mu()
    problem = cm.formulate(painleve.build(mu))
    result = decide(problem)
    assert result.status is Status.NO_SOLUTION and result.exact
    mcp = problem.compile().mcp
    tree = TreeCertificate(mcp.n, [("leaf", result.evidence["farkas_y"])])
    assert check_tree(mcp.M, mcp.q, tree)[0]
    # below mu_c the search finds the solution instead
    below = cm.formulate(painleve.build(0.5 * painleve.critical_mu())).compile().mcp
    res = branch_and_bound(below.M, below.q)
    assert res.status == "solution"


def test_exact_lcp_refuses_non_finite_data() -> None:
    with pytest.raises(ContactModelError, match="finite square M"):
        ExactLCP(np.array([[np.inf]]), np.array([1.0]))


DATA = Path(__file__).resolve().parents[1] / "data" / "decide"


def test_a_norm_bound_leaf_proves_exactly_the_norm_of_the_far_solution() -> None:
    # w = eps z - 1: the only solution is z = 1/eps (w = 0); y = 1 gives M^T y = eps > 0, no
    # Farkas ray, but t <= U (z + t) with U = eps / (1 + eps): no solution with z < 1/eps
    eps = 2.0**-30
    M, q = np.array([[eps]]), np.array([-1.0])
    exact = ExactLCP(M, q)
    U = exact.leaf_bound(np.array([1.0]), set(), set())
    assert U == Fraction(eps) / (1 + Fraction(eps))
    assert norm_of_bound(U) == 2.0**30  # exactly the solution's norm: the bound is tight
    assert exact.leaf_bound(np.array([-1.0]), set(), set()) is None  # y < 0 on a row with w >= 0
    assert exact.leaf_bound(np.array([0.0]), set(), set()) is None  # q . y = 0 proves nothing
    res = branch_and_bound(M, q, norm_floor=1e6)
    assert res.status == "no-solution" and res.unverified == 0 and res.min_norm == 2.0**30
    N, message = tree_min_norm(M, q, res.certificate)
    assert N == 2.0**30 and "no solution with ||z||_1 < 1.074e+09" in message
    assert check_tree(M, q, res.certificate, min_norm=2.0**30)[0]
    assert not check_tree(M, q, res.certificate, min_norm=2.0**30 + 1)[0]
    assert not check_tree(M, q, res.certificate)[0]  # not a proof of "no solution at all"
    # the far solution is real: a stated norm bound, not a "no solution"
    z = np.array([2.0**30])
    assert z[0] >= N and M @ z + q == 0


def test_the_size_170_block_at_mu_1_has_an_exact_norm_bound_tree() -> None:
    # the statically indeterminate block of 154 of the Trinkle et al. (1997) Table 1 problem
    # (size 170, seed 0, friction pyramid, mu = 1.0): strong branching closes the tree in a few
    # dozen nodes; every leaf's multipliers bound the norm of its solutions beyond 1e12
    data = np.load(DATA / "trinkle1997_size170_mu1.0_block154.npz")
    M = sp.csr_matrix((data["data"], data["indices"], data["indptr"]), shape=(154, 154))
    q = data["q"]
    res = branch_and_bound(M, q, time_limit=120.0, norm_floor=1e9)
    assert res.status == "no-solution" and res.unverified == 0
    assert res.nodes < 500
    again = TreeCertificate.from_json(res.certificate.to_json())
    N, message = tree_min_norm(M, q, again)
    assert N is not None and N >= 1e12 and N == res.min_norm, message
    # a leaf's multipliers negated (q . y > 0) fail the exact check
    k = next(k for k, node in enumerate(again.nodes) if node[0] == "leaf")
    again.nodes[k] = ("leaf", -np.asarray(again.nodes[k][1], dtype=float))
    N, message = tree_min_norm(M, q, again)
    assert N is None and "fails the exact check" in message
