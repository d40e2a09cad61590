"""cm.decide on hand-checked cases; every certificate is re-checked here independently."""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from boxes import box_on_corners
from scipy.optimize import linprog

import contactmodel as cm
from contactmodel.analysis.decide import Existence, Status, decide, pattern_milp, verify_farkas

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"_decide_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _lcp(problem) -> tuple[np.ndarray, np.ndarray]:
    mcp = problem.compile().mcp if isinstance(problem, cm.Problem) else problem
    assert mcp.is_lcp
    return mcp.M.toarray(), np.asarray(mcp.q, dtype=float)


def _is_solution(M: np.ndarray, q: np.ndarray, z: np.ndarray, tol: float = 1e-8) -> bool:
    w = M @ z + q
    scale = max(1.0, np.abs(q).max())
    return bool(z.min() >= -tol * scale and w.min() >= -tol * scale and np.abs(z * w).max() <= tol * scale**2)


def _all_basic_solutions(M: np.ndarray, q: np.ndarray) -> list[np.ndarray]:
    """Every complementary basic solution by brute force over the 2^n bases (small n only)."""
    n = q.size
    out: list[np.ndarray] = []
    for basis in itertools.product((False, True), repeat=n):
        idx = np.flatnonzero(basis)
        z = np.zeros(n)
        if idx.size:
            try:
                z[idx] = np.linalg.solve(M[np.ix_(idx, idx)], -q[idx])
            except np.linalg.LinAlgError:
                continue
        if _is_solution(M, q, z) and not any(np.abs(z - f).max() < 1e-9 for f in out):
            out.append(z)
    return out


def _solvable(M: np.ndarray, q: np.ndarray) -> bool:
    """True iff some complementarity pattern's LP (z_i = 0 or w_i = 0 for each i) is feasible."""
    n = q.size
    for pattern in itertools.product((False, True), repeat=n):
        on = np.flatnonzero(pattern)
        bounds = [(0, None) if p else (0, 0) for p in pattern]
        eq = {"A_eq": M[on], "b_eq": -q[on]} if on.size else {}
        if linprog(np.zeros(n), A_ub=-M, b_ub=q, bounds=bounds, method="highs", **eq).status == 0:
            return True
    return False


def test_painleve_past_critical_mu_has_a_farkas_certificate() -> None:
    painleve = _example("painleve")
    mu = 2.0
    assert mu > painleve.critical_mu()
    problem = cm.formulate(painleve.build(mu))
    result = cm.decide(problem)
    assert isinstance(result, Existence)
    assert result.status is Status.NO_SOLUTION and result.exact
    M, q = _lcp(problem)
    y = result.evidence["farkas_y"]
    # independent exact check: y >= 0, M^T y <= 0, q . y < 0 with every float as its rational
    Mf = [[Fraction(float(v)) for v in row] for row in M]
    yf = [Fraction(float(v)) for v in y]
    assert all(v >= 0 for v in yf)
    assert all(sum(Mf[i][j] * yf[i] for i in range(len(yf))) <= 0 for j in range(len(yf)))
    assert sum(Fraction(float(q[i])) * yf[i] for i in range(len(yf))) < 0
    assert not _solvable(M, q)


def test_painleve_below_critical_mu_is_unique() -> None:
    painleve = _example("painleve")
    problem = cm.formulate(painleve.build(1.0))
    result = decide(problem)
    assert result.status is Status.UNIQUE and result.exact
    M, q = _lcp(problem)
    (z,) = result.solutions
    assert _is_solution(M, q, z)
    # the formula of examples/painleve.py: c_n = g / A_nn_tilde
    problem.compile().load(z)
    assert problem.force_vector()[0] == pytest.approx(painleve.G / painleve.a_nn_tilde(1.0), rel=1e-6)


def test_p_matrix_not_positive_definite_is_unique() -> None:
    M = np.array([[1.0, -3.0], [0.0, 1.0]])  # minors 1, 1, det 1; (M + M^T)/2 is indefinite
    q = np.array([-1.0, -1.0])
    assert np.linalg.eigvalsh(0.5 * (M + M.T)).min() < 0
    result = decide(cm.LCP(M, q))
    assert result.status is Status.UNIQUE and result.exact
    assert "P-matrix" in result.evidence["proof"]
    np.testing.assert_allclose(result.solutions[0], [4.0, 1.0], atol=1e-12)  # z2 = 1, z1 = 3 z2 + 1
    assert [np.linalg.det(M[np.ix_(s, s)]) > 0 for s in ([0], [1], [0, 1])] == [True] * 3


def test_spinning_painleve_rod_has_exactly_two_isolated_solutions() -> None:
    painleve = _example("painleve")
    problem = cm.formulate(painleve.build(2.0, omega=6.0))
    result = decide(problem)
    assert result.status is Status.MULTIPLE
    assert result.evidence["count"] == 2 and result.evidence["complete"]
    assert not result.evidence["continuum"]
    M, q = _lcp(problem)
    every = _all_basic_solutions(M, q)
    assert len(every) == 2
    for z in result.solutions:
        assert _is_solution(M, q, z)
        assert min(np.abs(z - e).max() for e in every) < 1e-8
    # lift-off (c_n = 0) and staying down (c_n = -b_n / A_nn_tilde): forces differ by the latter
    b_n = float(cm.assemble(painleve.build(2.0, omega=6.0)).b[0])
    c_n = -b_n / painleve.a_nn_tilde(2.0)  # the sliding friction is mu c_n = 2 c_n
    assert result.evidence["force_distance"] == pytest.approx(2.0 * c_n, rel=1e-6)
    assert result.evidence["motion_distance"] > 0


def test_two_by_two_lcp_with_three_solutions() -> None:
    M, q = np.array([[-1.0, 2.0], [2.0, -1.0]]), np.array([1.0, 1.0])
    result = decide(cm.LCP(M, q), max_solutions=5)
    assert result.status is Status.MULTIPLE and result.evidence["complete"]
    assert result.evidence["count"] == 3 == len(_all_basic_solutions(M, q))


def _resting_box() -> cm.Problem:
    return box_on_corners(cm.Pyramid(0.5))


def test_statically_indeterminate_box_is_a_continuum_with_one_motion() -> None:
    problem = _resting_box()
    result = decide(problem)
    assert result.status is Status.MULTIPLE
    assert result.evidence["continuum"]
    assert result.evidence["force_distance"] > 1e-3
    assert result.evidence["motion_distance"] < 1e-9
    M, q = _lcp(problem)
    z1, z2 = result.solutions[:2]
    for lam in (0.0, 0.3, 0.5, 1.0):  # the whole segment solves
        assert _is_solution(M, q, lam * z1 + (1 - lam) * z2)
    for z in (z1, z2):  # the box carries its weight: sum of normal forces = m g
        problem.compile().load(z)
        c = problem.force_vector()
        rows = [problem.assembly.row(f"c{i}", "n") for i in range(4)]
        assert c[rows].sum() == pytest.approx(2.0 * 9.81, rel=1e-8)


def test_feasible_but_unsolvable_lcp_is_decided_by_the_milp() -> None:
    # w1 = -2 z1 + z2 - 2, w2 = z2: z = (0, 2) is feasible, but z2 w2 = z2^2 = 0 forces z2 = 0
    # and then w1 = -2 z1 - 2 < 0: no solution
    M = np.array([[-2.0, 1.0], [0.0, 1.0]])
    q = np.array([-2.0, 0.0])
    assert _is_solution(M, q, np.array([0.0, 2.0]), tol=np.inf) and not _solvable(M, q)
    result = decide(cm.LCP(M, q))
    assert result.status is Status.NO_SOLUTION and result.exact
    assert result.evidence["milp_t_bound"] <= 1e-6
    # the branch-and-bound tree, re-checked here in rationals: it covers every pattern and each
    # leaf's ray proves its polyhedron empty
    assert _tree_proves_no_solution(M, q, result.evidence["tree"])


def _tree_proves_no_solution(M: np.ndarray, q: np.ndarray, tree) -> bool:
    """Independent exact check of a complementarity tree (dense, Fractions): each branch splits
    on a free index into z_i = 0 / w_i = 0; each leaf's y has y_i >= 0 where w_i is free,
    (M^T y)_j <= 0 where z_j is free and q . y < 0 (every leaf a Farkas ray: leaf bound U = 0)."""
    return _tree_leaf_bound(M, q, tree) == 0


def _tree_leaf_bound(M: np.ndarray, q: np.ndarray, tree) -> Fraction | None:
    """Independent exact check of a tree whose leaves may bound the norm (dense, Fractions): the
    largest leaf bound U (every solution has ||z||_1 >= (1 - U) / U; U = 0: no solution), or
    None when the tree proves nothing. On a leaf (z_I = 0, w_J = 0) with y_i >= 0 off J,
    q . y < 0 and g = M^T y, a solution z has 0 <= y . w = g . z + q . y <= g_max ||z||_1 + q . y
    (g_max the largest g_j off I): none when g_max <= 0, else ||z||_1 >= -q.y / g_max = (1 - U) / U
    with U = g_max / (g_max - q . y)."""
    n = q.size
    Mf = [[Fraction(float(v)) for v in row] for row in M]
    qf = [Fraction(float(v)) for v in q]
    reached, worst = set(), Fraction(0)
    stack = [(0, set(), set())]
    while stack:
        k, zero_z, zero_w = stack.pop()
        if k in reached:
            return None
        reached.add(k)
        node = tree.nodes[k]
        if node[0] == "branch":
            i = node[1]
            if i in zero_z or i in zero_w:
                return None
            stack += [(node[2], zero_z | {i}, zero_w), (node[3], zero_z, zero_w | {i})]
            continue
        y = [Fraction(v) for v in node[1]]
        support = [i for i in range(n) if y[i] != 0]
        if any(y[i] < 0 for i in support if i not in zero_w):
            return None
        qy = sum(y[i] * qf[i] for i in support)
        if qy >= 0:
            return None
        g_max = max((sum(y[i] * Mf[i][j] for i in support) for j in range(n) if j not in zero_z), default=0)
        if g_max > 0:
            worst = max(worst, g_max / (g_max - qy))
    return worst if reached == set(range(len(tree.nodes))) else None


def test_verify_farkas_rejects_a_wrong_ray() -> None:
    M, q = np.array([[1.0]]), np.array([-1.0])
    ok, worst, qy = verify_farkas(M, q, np.array([1.0]))
    assert not ok and worst == 1 and qy == -1


def test_milp_bounds_are_derived_from_the_simplex() -> None:
    # every MILP point lies in the simplex sum z + t = 1 whatever M's scale
    M, q = np.array([[1e6, -2.0], [3.0, 1e-6]]), np.array([-5.0, 1.0])
    res = pattern_milp(M, q)
    assert res.optimal and res.t is not None and res.t > 0
    assert res.z.sum() + res.t == pytest.approx(1.0)
    assert _is_solution(M, q, res.z / res.t, tol=1e-6)


def test_undecided_is_reported_for_round_laws_without_a_solution() -> None:
    painleve = _example("painleve")
    # rolling: the cone's MCP is nonlinear; mu = 2 is past what strong monotonicity proves (at
    # mu = 0.5 the forces are proven unique: test_decide_exact_uniqueness.py); one contact: its
    # modes are enumerated exactly (test_decide_round_laws.py), so it is decided
    system = painleve.build(2.0, speed=0.0)
    problem = cm.formulate(system)
    assert not problem.compile().mcp.is_lcp
    result = decide(problem)
    assert result.status is Status.UNIQUE and result.tried
    # agreement problem 72 under the cone: three rolling contacts, A singular (no strong
    # monotonicity), Q(eps) never positive semidefinite with excluded null directions, no internal
    # force along the slipping contacts' rays: uniqueness stays open, and the verdict says so
    spec = importlib.util.spec_from_file_location(
        "_agreement_decide", EXAMPLES.parent / "benchmarks" / "agreement.py"
    )
    agreement = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = agreement  # its dataclasses look their module up
    spec.loader.exec_module(agreement)
    problem = agreement.make_instance("cone", 72, 0, (1, 12)).problem
    assert not problem.compile().mcp.is_lcp
    result = decide(problem, time_limit=10)
    assert result.status in (Status.SOLVED, Status.UNDECIDED)
    assert result.tried and "singular" in result.evidence["reason_uniqueness_undecided"]
    assert result.evidence["a_null_directions"] >= 1


def test_cli_decide_prints_the_verdict(capsys) -> None:
    from contactmodel.cli import main

    painleve = str(EXAMPLES / "painleve.py")
    assert main(["solve", painleve, "--friction", "cone:2.0", "--decide"]) == 1
    out = capsys.readouterr().out
    assert "no-solution" in out and "Farkas" in out
    assert main(["solve", painleve, "--decide", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["status"] == "unique" and len(verdict["solutions"]) == 1


def test_cli_decide_verbose_prints_the_progress_on_stderr(capsys) -> None:
    """``-v`` routes the package's progress lines (logging, INFO) to stderr."""
    import logging

    from contactmodel.cli import main

    logger = logging.getLogger("contactmodel")
    try:
        assert main(["solve", str(EXAMPLES / "painleve.py"), "--decide", "-v"]) == 0
        logging.getLogger("contactmodel.analysis.certificate").info("complementarity tree: 2000 nodes")
        captured = capsys.readouterr()
        assert "complementarity tree: 2000 nodes" in captured.err and "unique" in captured.out
    finally:
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)


def _block_diag(*blocks: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Block-diagonal (M, q) with the blocks' rows interleaved by a fixed permutation, so that the
    split into blocks has to be found from M's pattern."""
    import scipy.linalg

    M = scipy.linalg.block_diag(*[b[0] for b in blocks])
    q = np.concatenate([b[1] for b in blocks])
    perm = np.random.default_rng(3).permutation(q.size)
    return M[np.ix_(perm, perm)], q[perm]


def test_independent_blocks_one_without_solution_decide_the_whole() -> None:
    # block 1: infeasible (w = z - 1 needs z >= 1, w2 = -z - 1 < 0): a Farkas ray; block 2 a P-matrix
    infeasible = (np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([-1.0, -1.0]))
    p_block = (np.array([[1.0, -3.0], [0.0, 1.0]]), np.array([-1.0, -1.0]))
    M, q = _block_diag(p_block, infeasible)
    result = decide(cm.LCP(M, q))
    assert result.status is Status.NO_SOLUTION and result.exact
    y = result.evidence["farkas_y"]
    assert y.shape == (4,)
    assert verify_farkas(M, q, y)[0]  # the padded ray certifies the whole LCP
    assert any("independent blocks" in step for step in result.tried)
    assert not _solvable(M, q)


def test_independent_blocks_combine_solutions_and_multiplicity() -> None:
    three = (np.array([[-1.0, 2.0], [2.0, -1.0]]), np.array([1.0, 1.0]))  # 3 solutions
    p_block = (np.array([[1.0, -3.0], [0.0, 1.0]]), np.array([-1.0, -1.0]))  # one: (4, 1)
    M, q = _block_diag(three, p_block)
    result = decide(cm.LCP(M, q), max_solutions=5)
    assert result.status is Status.MULTIPLE and result.evidence["complete"]
    every = _all_basic_solutions(M, q)
    assert result.evidence["count"] == 3 == len(every)
    for z in result.solutions:
        assert _is_solution(M, q, z)
        assert min(np.abs(z - e).max() for e in every) < 1e-8
    unique = decide(cm.LCP(*_block_diag(p_block, p_block)))
    assert unique.status is Status.UNIQUE and unique.exact
    assert unique.evidence["proof"].count("block") == 2


def _painleve_with_a_resting_box(mu: float, law) -> cm.Problem:
    """The sliding Painlevé rod beside a box resting on one rolling contact (independent bodies):
    the box's round law makes the MCP nonlinear, the rod decides existence."""
    painleve = _example("painleve")
    system = painleve.build(mu)
    box = system.add_body(
        "box", mass=1.0, inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)), position=(5.0, 0, 0.1)
    )
    system.add_contact(
        box, system.ground, point=(5.0, 0.0, 0.0), normal=(0.0, 0.0, 1.0), friction=law, name="box"
    )
    return cm.formulate(system)


def test_round_law_without_solution_is_decided_by_its_normal_relaxation() -> None:
    from contactmodel.analysis.round_laws import normal_relaxation

    problem = _painleve_with_a_resting_box(2.0, cm.CoulombCone(2.0))
    assert not problem.compile().mcp.is_lcp
    result = decide(problem)
    assert result.status is Status.NO_SOLUTION and result.exact
    assert "relaxation" in result.evidence["certificate"]
    # independent re-check: the ray certifies the relaxation LCP, rebuilt here
    MR, qR, G = normal_relaxation(problem, result.evidence["relaxation_k"])
    assert verify_farkas(MR, qR, result.evidence["farkas_y"])[0]
    # the relaxation holds every solution: the sliding rod keeps its exact friction direction,
    # opposite to the relative sliding velocity v_t: c = (1, -mu sign(v_t), 0) c_n; the box's
    # cone is circumscribed (each generator on or outside the cone)
    rows = problem.assembly.indices("foot")
    v_t = problem.assembly.v[rows[1]]
    assert abs(v_t) > 0.1
    foot = [g for g in G.T.toarray() if np.any(g[rows])]
    assert len(foot) == 1 and np.allclose(foot[0][rows], [1.0, -2.0 * np.sign(v_t), 0.0])
    box = np.array([g[problem.assembly.indices("box")] for g in G.T.toarray() if not np.any(g[rows])])
    assert len(box) == 16 and np.all(np.hypot(box[:, 1], box[:, 2]) >= 2.0 - 1e-12)
    # below the critical mu the same scene has a solution (unique: the rod's sliding row and the
    # box's cone at mu = 1 < sqrt(4 W_n / W_t) = sqrt(4 / 2.5) pass the strong-monotonicity test)
    below = decide(_painleve_with_a_resting_box(1.0, cm.CoulombCone(1.0)))
    assert below.status is Status.UNIQUE and len(below.solutions) == 1


DATA = Path(__file__).resolve().parents[1] / "data" / "decide"


def test_a_tiny_second_solution_t_is_no_candidate_under_the_existence_threshold() -> None:
    # the block of 5 of the Trinkle et al. (1997) Table 1 size-170 problem at mu = 0.9: its
    # second-solution MILP ends at t ~ 6e-11; the same threshold (T_ZERO) as for existence
    # makes that t = 0, not a candidate point that then fails verification
    from contactmodel.analysis.decide import T_ZERO

    data = np.load(DATA / "trinkle1997_size170_mu0.9_block5.npz")
    result = decide(cm.LCP(data["M"], data["q"]), tree_limit=0)  # the MILP's verdict, no exact trees
    assert result.status is Status.UNIQUE
    assert not any("did not verify" in step for step in result.tried)
    milp = next(step for step in result.tried if step.startswith("MILP for a solution"))
    t = float(milp.split("t = ")[1].split(",")[0])
    assert 0 < t <= T_ZERO
    assert f"t <= {T_ZERO:g}" in result.evidence["proof"]


def _fake_candidate(monkeypatch) -> None:
    """Every pattern MILP answers 'optimal, t = 0.5' with a pattern no LCP point has."""
    decide_module = importlib.import_module("contactmodel.analysis.decide")

    def fake(M, q, *args, **kwargs):
        n = q.size
        pattern = np.ones(n, dtype=bool)
        return decide_module.MilpResult(0.5, 0.5, np.full(n, 0.5 / n), pattern, "fake", True, False, 0.0)

    monkeypatch.setattr(decide_module, "pattern_milp", fake)


def test_a_candidate_that_fails_verification_leaves_existence_undecided(monkeypatch) -> None:
    # w1 = -2 z1 + z2 - 2, w2 = z2: feasible, no solution; with w = 0 imposed everywhere the
    # pattern's LP is infeasible, so the fake MILP optimum t = 0.5 verifies nothing
    _fake_candidate(monkeypatch)
    M, q = np.array([[-2.0, 1.0], [0.0, 1.0]]), np.array([-2.0, 0.0])
    result = decide(cm.LCP(M, q), tree_limit=0)
    assert result.status is Status.UNDECIDED
    assert "gave no verified point" in result.evidence["reason"]


def test_a_second_solution_candidate_that_fails_verification_leaves_uniqueness_open(monkeypatch) -> None:
    # M skew (not P, symmetric part 0), q = (1, 1): z = 0 is the only solution
    _fake_candidate(monkeypatch)
    M, q = np.array([[0.0, 1.0], [-1.0, 0.0]]), np.array([1.0, 1.0])
    result = decide(cm.LCP(M, q), tree_limit=0)  # without the exact uniqueness trees
    assert result.status is Status.SOLVED
    assert np.array_equal(result.solutions[0], np.zeros(2))
    assert "did not verify" in result.evidence["reason_uniqueness_undecided"]


def test_lp_bounds_are_proven_by_their_multipliers_and_tight() -> None:
    from contactmodel.analysis.certificate import ExactLCP
    from contactmodel.analysis.decide import lp_bounds

    rng = np.random.default_rng(3)
    for _ in range(10):
        n = 5
        M = rng.normal(size=(n, n))
        q = rng.normal(size=n)
        Z, W = lp_bounds(M, q)
        R = np.c_[M, q]
        for i in range(n):
            for f, bound in ((np.eye(n + 1)[i], Z[i]), (R[i], W[i])):
                res = linprog(-f, A_ub=-R, b_ub=np.zeros(n), A_eq=np.ones((1, n + 1)), b_eq=[1.0])
                if res.status == 0:  # the bound is at least the LP's maximum and close to it
                    assert -res.fun - 1e-9 <= bound <= -res.fun + 1e-7
    # hand-checked: {z + t = 1, z - t >= 0}: z in [1/2, 1]; y = 0 gives the vertex bound 1 for z
    # and for w = z - t; y = 1 on w >= 0 proves z <= max(1 + 1, 0 - 1) = 2, weaker but valid
    exact = ExactLCP(np.array([[1.0]]), np.array([-1.0]))
    assert exact.simplex_bound(0, "z", [0.0]) == 1.0
    assert exact.simplex_bound(0, "w", [0.0]) == 1.0
    assert exact.simplex_bound(0, "z", [1.0]) == 2.0
    assert exact.simplex_bound(0, "z", [-1.0]) is None  # a negative multiplier proves nothing


def _fake_zero(monkeypatch, t_bound: float) -> None:
    """Every pattern MILP answers 'optimal, t = 0' with the dual bound ``t_bound``."""
    decide_module = importlib.import_module("contactmodel.analysis.decide")

    def fake(M, q, *args, **kwargs):
        return decide_module.MilpResult(0.0, t_bound, None, None, "fake", True, False, 0.0)

    monkeypatch.setattr(decide_module, "pattern_milp", fake)


@pytest.mark.parametrize("t_bound", [0.0, 1e-10])
def test_a_milp_bound_above_zero_states_no_solution_below_a_norm_only(monkeypatch, t_bound) -> None:
    # feasible, no solution; a MILP optimum t = 0 with the dual bound t_bar proves (up to HiGHS's
    # tolerances) ||z||_1 >= s (1 / t_bar - 1): "no solution" only when t_bar = 0
    _fake_zero(monkeypatch, t_bound)
    M, q = np.array([[-2.0, 1.0], [0.0, 1.0]]), np.array([-2.0, 0.0])
    result = decide(cm.LCP(M, q), tree_limit=0)
    assert not result.exact
    N = result.evidence["min_solution_norm"]
    if t_bound == 0.0:
        assert result.status is Status.NO_SOLUTION and N == np.inf and result.decided
    else:
        s = result.evidence["milp_scale"]
        assert result.status is Status.NO_SOLUTION_BELOW_BOUND and not result.decided
        assert N == pytest.approx(s * (1e10 - 1))
        assert result.to_json()["status"] == "no-solution-below-bound"


def test_a_norm_bound_tree_is_no_solution_below_the_bound_not_no_solution() -> None:
    # the Trinkle et al. (1997) size-170 block of 154 at mu = 1.0 beside a one-row block with a
    # unique solution: the tree's leaves bound the norm (LCP(0, M) has nonzero solutions), so
    # the verdict is "no solution with ||z||_1 < N", exact, and existence stays open
    from contactmodel.analysis.certificate import tree_min_norm

    data = np.load(
        Path(__file__).resolve().parents[1] / "data" / "decide" / "trinkle1997_size170_mu1.0_block154.npz"
    )
    B = sp.csr_matrix((data["data"], data["indices"], data["indptr"]), shape=(154, 154))
    M = sp.block_diag([sp.csr_matrix([[1.0]]), B]).tocsr()
    q = np.r_[-1.0, data["q"]]
    result = decide(cm.LCP(M, q), time_limit=2.0, tree_limit=120.0)
    assert result.status is Status.NO_SOLUTION_BELOW_BOUND and result.exact and not result.decided
    block = result.evidence["block"]
    assert np.array_equal(block, np.arange(1, 155))
    N = result.evidence["min_solution_norm"]
    assert 1e11 <= N < np.inf
    # re-checked here from the tree alone, in exact integers, and by this file's own walk
    assert tree_min_norm(B, data["q"], result.evidence["tree"])[0] == N
    U = _tree_leaf_bound(B.toarray(), data["q"], result.evidence["tree"])
    assert U is not None and 0 < U and Fraction(N) <= (1 - U) / U
    payload = result.to_json()
    assert payload["status"] == "no-solution-below-bound" and payload["decided"] is False
    assert payload["evidence"]["min_solution_norm"] == N
    assert "larger solutions not excluded" in result.summary()
