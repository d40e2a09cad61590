"""The LCP in exact geometry (contactmodel.analysis.exact_geometry): rational A, b and M, q that
round to the compiled ones, exact where the floats are, exact cancellations the rounding breaks,
and trees whose norm-bound leaves become exact Farkas rays."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from sympy import QQ
from sympy.polys.matrices import DomainMatrix

import contactmodel as cm
from contactmodel.analysis.certificate import TreeCertificate, tree_min_norm
from contactmodel.analysis.exact_geometry import (
    RationalLCP,
    exact_contact_matrices,
    exact_lcp,
    exact_tree,
    solve_rational,
)
from contactmodel.errors import SolverError
from contactmodel.experiments.generators import build_problem


def _dense(rows: list[dict[int, Fraction]], n: int) -> list[list[Fraction]]:
    return [[row.get(j, Fraction(0)) for j in range(n)] for row in rows]


def _rank(rows: list[list[Fraction]]) -> int:
    shape = (len(rows), len(rows[0]))
    return DomainMatrix([[QQ(v.numerator, v.denominator) for v in r] for r in rows], shape, QQ).rank()


def tilted_box(angle: float = 0.3, mu: float = 0.5) -> cm.Problem:
    """A box turned by ``angle`` about y, resting on its four base corners on a plane with the
    same tilt: normals and lever arms in floats that are not exact."""
    c, s = math.cos(angle), math.sin(angle)
    R = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    centre = np.array([0.1, 0.0, 0.3])
    box = system.add_body(
        "box", mass=1.7, inertia=cm.inertia.box(1.7, (0.4, 0.3, 0.2)), position=tuple(centre), orientation=R
    )
    for k, (x, y) in enumerate([(0.2, 0.15), (-0.2, 0.15), (-0.2, -0.15), (0.2, -0.15)]):
        point = centre + R @ np.array([x, y, -0.1])
        system.add_contact(
            box,
            system.ground,
            point=tuple(point),
            normal=tuple(R[:, 2]),
            friction=cm.Pyramid(mu),
            name=f"c{k}",
        )
    return cm.formulate(system)


def test_exact_matrices_round_to_the_assembly():
    problem = build_problem({"family": "boxes", "size": 40, "seed": 3, "mu": 0.5}, "pyramid")
    A, b = exact_contact_matrices(problem.assembly)
    Af = problem.assembly.A_sparse.toarray()
    Ae = np.array([[float(v) for v in row] for row in _dense(A, len(b))])
    assert np.abs(Ae - Af).max() <= 1e-13 * np.abs(Af).max()
    assert (
        np.abs(np.array([float(v) for v in b]) - problem.assembly.b).max()
        <= 1e-13 * np.abs(problem.assembly.b).max()
    )
    assert all(A[i].get(j, 0) == A[j].get(i, 0) for i in range(len(b)) for j in A[i])  # symmetric exactly


def test_exact_where_the_floats_are():
    """A box on its corners with a vertical normal and data whose float products are all exact
    (powers of two times the floats): the rational LCP is the compiled one entry for entry."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    box = system.add_body(
        "box",
        mass=2.0,
        inertia=np.diag([0.5, 0.5, 0.25]),
        position=(0.0, 0.0, 0.25),
        wrench=(3.0, 0, 0, 0, 0, 0),
    )
    for k, (x, y) in enumerate([(0.25, 0.25), (-0.25, 0.25), (-0.25, -0.25), (0.25, -0.25)]):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0.0),
            normal=(0.0, 0.0, 1.0),
            friction=cm.Pyramid(0.5),
            name=f"c{k}",
        )
    problem = cm.formulate(system)
    lcp = exact_lcp(problem)
    mcp = problem.compile().mcp
    Md = sp.csr_matrix(mcp.M).toarray()
    assert _dense(lcp.rows, lcp.n) == [[Fraction(float(v)) for v in row] for row in Md]
    assert lcp.q == [Fraction(float(v)) for v in mcp.q]


def test_tilted_normals_keep_their_exact_internal_force():
    """Four coplanar contacts: their normal rows [n, r_k x n] lie in a 3-dimensional space, so
    the normal block of A has rank 3 exactly; the rational A keeps that cancellation."""
    problem = tilted_box()
    A, _ = exact_contact_matrices(problem.assembly)
    rows = problem.assembly.contact_rows
    normal = [rows[f"c{k}"]["n"] for k in range(4)]
    block = [[A[i].get(j, Fraction(0)) for j in normal] for i in normal]
    assert _rank(block) == 3
    d = DomainMatrix([[QQ(v.numerator, v.denominator) for v in r] for r in block], (4, 4), QQ).nullspace()
    assert d.shape[0] == 1


def test_rational_lcp_rounds_to_the_compiled_lcp():
    problem = tilted_box(mu=0.8)
    lcp = exact_lcp(problem)
    M, q = lcp.to_float()
    mcp = problem.compile().mcp
    assert np.abs((M - sp.csr_matrix(mcp.M)).toarray()).max() <= 1e-14 * abs(mcp.M).max()
    assert np.abs(q - mcp.q).max() <= 1e-14 * max(1.0, np.abs(mcp.q).max())


def test_a_problem_given_by_matrices_has_no_geometry():
    problem = cm.formulate_from_matrices(np.eye(3), np.array([-1.0, 0.0, 0.0]), friction=cm.Pyramid(0.5))
    with pytest.raises(SolverError, match="geometry"):
        exact_lcp(problem)


def test_solve_rational():
    A = [[Fraction(1, 3), Fraction(2)], [Fraction(5, 7), Fraction(-1, 2)]]
    x = solve_rational(A, [Fraction(1), Fraction(2)])
    assert [sum(a * v for a, v in zip(row, x)) for row in A] == [1, 2]
    assert (
        solve_rational([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(4)]], [Fraction(1), Fraction(0)])
        is None
    )


def test_block_refuses_a_coupled_block():
    lcp = RationalLCP([{0: Fraction(1), 1: Fraction(1)}, {1: Fraction(2)}], [Fraction(-1), Fraction(1)])
    assert lcp.block([0]) is None
    assert lcp.block([1]).rows == [{0: Fraction(2)}]


def test_exact_tree_makes_a_nearly_tight_leaf_exact():
    """LCP: w1 = z1 - z2 - 1, w2 = -z1 + z2 + 1/3 (q rounded in floats as 0.333...): in exact
    rationals w1 + w2 = -2/3 < 0 for every z, the Farkas ray y = (1, 1). A float ray found on
    the rounded data with a tiny error on one column is repaired to the exact one."""
    third = Fraction(1, 3)
    lcp = RationalLCP(
        [{0: Fraction(1), 1: Fraction(-1)}, {0: Fraction(-1), 1: Fraction(1)}], [Fraction(-1), third]
    )
    y = np.array([1.0, 1.0 + 1e-15])  # (M^T y) = (-1e-15, 1e-15): not a ray
    cert = TreeCertificate(2, [("leaf", y)])
    assert tree_min_norm(lcp.exact(), None, cert)[0] < math.inf
    res = exact_tree(lcp, cert)
    assert (res.rays, res.bounds, res.branched) == (1, 0, 0)
    assert tree_min_norm(lcp.exact(), None, res.tree)[0] == math.inf


def test_exact_tree_proves_the_exact_smallest_norm_where_the_exact_leaf_is_nonempty():
    """w1 = z1 - z2 - 1, w2 = -z1 + (1 + d) z2 + 1/3 with d = 1/(3 2^55), lost in rounding: the
    rounded LCP has the Farkas ray y = (1, 1), the rational one a solution z = (1 + t, t),
    t = 2 / (3 d) = 2^56. The leaf's polyhedron needs z1 >= z2 + 1 and d z2 >= 2/3: its smallest
    1-norm is the solution's, 2^57 + 1, and the exact node LP proves exactly that bound; its
    optimal point is the solution itself, complementary, which the search then returns."""
    d = Fraction(1, 3 * 2**55)
    lcp = RationalLCP(
        [{0: Fraction(1), 1: Fraction(-1)}, {0: Fraction(-1), 1: 1 + d}], [Fraction(-1), Fraction(1, 3)]
    )
    M, q = lcp.to_float()
    assert M.toarray().tolist() == [[1, -1], [-1, 1]]
    t = 2 / (3 * d)
    z = [1 + t, t]
    w = [sum(v * z[j] for j, v in row.items()) + qi for row, qi in zip(lcp.rows, lcp.q)]
    assert w == [0, 0]  # an exact solution
    cert = TreeCertificate(2, [("leaf", np.array([1.0, 1.0 + 1e-15]))])
    res = exact_tree(lcp, cert)
    assert (res.rays, res.bounds, res.branched, res.exact_lps, res.solution) == (0, 1, 0, 1, None)
    exact = lcp.exact()
    assert exact.leaf_bound(res.tree.nodes[0][1], set(), set()) == 1 / (1 + sum(z))
    N, _ = tree_min_norm(exact, None, res.tree)
    assert N == 2.0**57 and sum(z) >= N
    res = exact_tree(lcp, cert, node_limit=4)
    assert res.tree is None and res.branched == 0 and res.solution == z


def test_exact_tree_branches_below_a_leaf_until_every_leaf_is_a_ray(caplog):
    """w1 = z1 - z2 - 1, w2 = z2 + 1, w3 = -z1 + (1 + d) z2 + 1/3 (d as above, lost in rounding):
    rounded, y = (1, 0, 1) is a Farkas ray; in exact arithmetic {z, w >= 0} is nonempty (z2 >= 2 /
    (3 d)), so no ray exists and the leaf proves only a bound. The LCP has no solution (w2 > 0
    forces z2 = 0, then z1 >= 1 and z1 <= 1/3): below a branch on z2 both children are empty,
    each with an exact ray (z3, in no row, may be branched on first: the node LP's point has
    z3 > 0)."""
    d = Fraction(1, 3 * 2**55)
    one = Fraction(1)
    lcp = RationalLCP([{0: one, 1: -one}, {1: one}, {0: -one, 1: 1 + d}], [-one, one, Fraction(1, 3)])
    cert = TreeCertificate(3, [("leaf", np.array([1.0, 0.0, 1.0]))])
    res = exact_tree(lcp, cert)
    assert (res.rays, res.bounds, res.branched) == (0, 1, 0)
    assert tree_min_norm(lcp.exact(), None, res.tree)[0] < math.inf
    with caplog.at_level("INFO", logger="contactmodel.analysis.exact_geometry"):
        res = exact_tree(lcp, cert, node_limit=4)
    assert res.solution is None and res.bounds == 0 and 1 <= res.branched <= 4
    assert any(node[:2] == ("branch", 1) for node in res.tree.nodes)
    assert tree_min_norm(lcp.exact(), None, res.tree)[0] == math.inf
    # the progress line after the pass over the leaves
    assert "1 leaves re-proven: 0 exact Farkas rays added, 1 exact LPs, 1 leaves to branch on" in caplog.text


def test_decide_settles_a_norm_bound_in_exact_geometry():
    """Random boxes (30 LCP rows, seed 0, mu 1.5): the rounded LCP's tree proves only "no solution
    with ||z||_1 < 2e16" (its leaves need internal-force cancellations); in exact geometry every
    leaf is a Farkas ray: no solution at all, re-checked here on the rebuilt rational LCP."""
    from contactmodel.analysis.decide import Status, decide

    problem = build_problem({"family": "boxes", "size": 30, "seed": 0, "mu": 1.5}, "pyramid")
    rounded = decide(problem, time_limit=20, tree_limit=20, exact_geometry=False)
    assert rounded.status is Status.NO_SOLUTION_BELOW_BOUND and not rounded.decided
    result = decide(problem, time_limit=20, tree_limit=20)
    assert result.status is Status.NO_SOLUTION and result.exact and result.decided
    ev = result.evidence
    assert ev["exact_geometry"] and ev["rounded_min_solution_norm"] == rounded.evidence["min_solution_norm"]
    sub = exact_lcp(problem).block(ev["block"])
    assert tree_min_norm(sub.exact(), None, ev["tree"])[0] == math.inf
    assert tree_min_norm(sub.exact(), None, rounded.evidence["tree"])[0] < math.inf  # the float leaves
