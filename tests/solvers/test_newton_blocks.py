"""Independent blocks and the mixed-LCP pivoting fallback of the newton solver
(contactmodel.solvers.newton.blocks), checked against hand-derived answers."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.newton import NewtonOptions, solve
from contactmodel.solvers.newton import blocks as newton_blocks


def _mcp(M, q, lb, ub) -> MCP:
    Ms = sp.csr_matrix(np.asarray(M, dtype=float))
    q = np.asarray(q, dtype=float)
    return MCP(
        F=lambda x: Ms @ x + q,
        J=lambda x: Ms,
        lb=np.asarray(lb, float),
        ub=np.asarray(ub, float),
        M=Ms,
        q=q,
    )


def test_components_follow_the_coupling_in_either_direction() -> None:
    # x0 and x2 are coupled through row 2 only (a one-way dependence still couples); x1 alone
    M = np.array([[1.0, 0, 0], [0, 1.0, 0], [1.0, 0, 1.0]])
    blocks = newton_blocks.components(MCP.from_lcp(M, np.zeros(3)), np.zeros(3))
    assert [b.tolist() for b in blocks] == [[0, 2], [1]]
    full = newton_blocks.components(MCP.from_lcp(np.ones((3, 3)), np.zeros(3)), np.zeros(3))
    assert [b.tolist() for b in full] == [[0, 1, 2]]


def test_cone_blocks_couple_their_rows_whether_or_not_j_does() -> None:
    """Rows 0-2 and 3-5 are two cone blocks; J couples rows 0 and 3 and nothing else. With
    J's own coupling of each block's rows (a full 3 x 3 diagonal block) the components are J's;
    without it, the cone blocks still join their rows."""
    from contactmodel.mcp.types import CoulombBlocks

    n = 8
    base = np.eye(n)
    base[0, 3] = 0.5
    blocks3 = np.zeros((n, n))
    blocks3[:3, :3] = blocks3[3:6, 3:6] = 0.1
    cones = CoulombBlocks(np.array([[0, 1, 2], [3, 4, 5]]), np.array([0.5, 0.5]))
    for M in (base, base + blocks3):
        mcp = _mcp(M, np.zeros(n), np.full(n, -np.inf), np.full(n, np.inf))
        mcp.cones = cones
        blocks = newton_blocks.components(mcp, np.zeros(n))
        assert [b.tolist() for b in blocks] == [[0, 1, 2, 3, 4, 5], [6], [7]]
    M = np.eye(n) + blocks3  # no coupling between the two cone blocks: four components
    mcp = _mcp(M, np.zeros(n), np.full(n, -np.inf), np.full(n, np.inf))
    mcp.cones = cones
    blocks = newton_blocks.components(mcp, np.zeros(n))
    assert [b.tolist() for b in blocks] == [[0, 1, 2], [3, 4, 5], [6], [7]]


def test_an_unsolvable_block_does_not_spoil_the_others() -> None:
    # block {0, 1}: [[2, 1], [1, 2]] z = 1 -> z = (1/3, 1/3); block {2}: -z - 1 >= 0 with z >= 0 has
    # no solution (Farkas vector y = e_2: M^T y = -1 <= 0, q.y = -1 < 0)
    M = np.array([[2.0, 1, 0], [1, 2, 0], [0, 0, -1]])
    q = np.array([-1.0, -1, -1])
    r = solve(MCP.from_lcp(M, q), NewtonOptions())
    assert r.outcome is Outcome.INFEASIBLE
    assert r.extras["blocks"] == 2 and r.extras["blocks_unsolved"] == [1]
    assert np.allclose(r.x[:2], 1 / 3, atol=1e-12)
    y = r.extras["certificate"]
    assert y.shape == (3,) and np.all(M.T @ y <= 1e-12) and q @ y < 0
    assert "1 of 2 independent blocks not solved" in r.message


def test_blocks_solve_each_with_its_own_budget() -> None:
    # 40 copies of a one-contact LCP: each block is solved alone, in a few iterations each
    k = 40
    M = sp.block_diag([np.array([[2.0, 1.0], [1.0, 2.0]])] * k).tocsr()
    q = -np.ones(2 * k)
    r = solve(MCP.from_lcp(M, q), NewtonOptions(max_iter=20))
    assert r.outcome is Outcome.CONVERGED, r.message
    assert r.extras["blocks"] == k and r.extras["blocks_separate"] == []  # the joint run solved all
    assert np.allclose(r.x, 1 / 3, atol=1e-12)
    # one hard block among them (no solution) stalls the joint run; each block on its own is solved
    Mh = sp.block_diag([M, np.array([[-1.0]])]).tocsr()
    h = solve(MCP.from_lcp(Mh, np.append(q, -1.0)), NewtonOptions())
    assert h.outcome is Outcome.INFEASIBLE and h.extras["blocks_unsolved"] == [k]
    assert k in h.extras["blocks_separate"] and np.allclose(h.x[:-1], 1 / 3, atol=1e-12)
    joint = solve(MCP.from_lcp(M, q), NewtonOptions(decouple=False))
    assert joint.outcome is Outcome.CONVERGED and "blocks" not in joint.extras


def test_mixed_lcp_reduction_by_hand() -> None:
    # u free: u + v - 1 = 0; 0 <= v _|_ -u + 2 v >= 0  ->  u = 1 - v, w = 3 v - 1: v = 1/3, u = 2/3
    mcp = _mcp([[1.0, 1.0], [-1.0, 2.0]], [-1.0, 0.0], [-np.inf, 0.0], [np.inf, np.inf])
    mixed = newton_blocks.reduce_mlcp(mcp, 10)
    assert mixed is not None
    assert np.allclose(mixed.S, [[3.0]]) and np.allclose(mixed.r, [-1.0])
    assert np.allclose(mixed.expand(np.array([1 / 3]), 2), [2 / 3, 1 / 3])
    # the fallback runs at once with pivot_after = 0 and solves it
    r = solve(mcp, NewtonOptions(pivot_after=0))
    assert r.outcome is Outcome.CONVERGED and "mixed LCP" in r.extras["pivot"]
    assert np.allclose(r.x, [2 / 3, 1 / 3], atol=1e-12)
    # a singular free block has no reduction
    singular = _mcp([[0.0, 1.0], [1.0, 1.0]], [0.0, 0.0], [-np.inf, 0.0], [np.inf, np.inf])
    assert newton_blocks.reduce_mlcp(singular, 10) is None


def test_mixed_lcp_without_solution_is_certified() -> None:
    # u free: u = 0; 0 <= v _|_ -v - 1 >= 0 has no solution (w < 0 for every v >= 0)
    mcp = _mcp([[1.0, 0.0], [0.0, -1.0]], [0.0, -1.0], [-np.inf, 0.0], [np.inf, np.inf])
    r = solve(mcp, NewtonOptions(decouple=False, pivot_after=0))
    assert r.outcome is Outcome.INFEASIBLE
    assert "certificate_reduced" in r.extras


def _two_boxes(friction: cm.FrictionLaw) -> cm.System:
    """Two unit boxes resting far apart on the ground, each on four corner contacts."""
    s = cm.System()
    for i, x in enumerate((0.0, 10.0)):
        s.add_body(f"b{i}", 1.0, cm.inertia.box(1.0, [1.0, 1.0, 1.0]), position=[x, 0, 0.5])
        for j, (dx, dy) in enumerate(((0.5, 0.5), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5))):
            s.add_contact(f"b{i}", "ground", [x + dx, dy, 0.0], [0, 0, 1], friction=friction, name=f"c{i}{j}")
    return s


def test_contact_groups_that_share_no_body_are_separate_blocks() -> None:
    # the nonlinear cone MNCP (rows read through the whole F) and the sparse polygon (a mixed LCP)
    for law, form in ((cm.CoulombCone(0.5), "reduced"), (cm.Polygonal(0.5, 8), "sparse")):
        sol = cm.solve(cm.formulate(_two_boxes(law), form=form))
        assert sol.status is cm.Status.SOLVED, sol.message
        assert sol.extras["blocks"] == 2
        weight = sum(c.force[0] for c in sol.contacts)  # both boxes at rest: normal forces carry m g
        assert abs(weight - 2 * 9.81) < 1e-6
