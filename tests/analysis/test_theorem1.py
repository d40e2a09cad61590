"""Andreani et al. (2002) Theorem 1 evaluated at MNCPOpt points (contactmodel.analysis.theorem1).

The first three cases are linear or bilinear MNCPs with one u and one v, where every quantity is
worked out by hand: J = [[f_u, f_v], [g_u, g_v]], S = f_u - f_v g_u / g_v (1 x 1), which is row
sufficient iff S >= 0 and an S-matrix iff S > 0.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.analysis.theorem1 import theorem1
from contactmodel.experiments.generators import SCARA_IPOPT_INTERIOR, scara_problem
from contactmodel.reductions import without_cone_blocks

LB = np.array([0.0, -np.inf])
UB = np.array([np.inf, np.inf])


def _linear(M: list[list[float]], q: list[float]) -> cm.MCP:
    """u >= 0 _|_ f = M[0] . (u, v) + q[0];  g = M[1] . (u, v) + q[1] = 0, v free."""
    Mm, qq = np.array(M, dtype=float), np.array(q, dtype=float)
    return cm.MCP(F=lambda x: Mm @ x + qq, J=lambda x: sp.csr_matrix(Mm), lb=LB, ub=UB)


def test_hypotheses_hold_at_the_solution() -> None:
    """f = 2u + v - 1, g = u + v: g_v = 1, S = 2 - 1 * 1 / 1 = 1 > 0. Solution u = 1, v = -1
    (u = 0 would need v = 0 and f = -1 < 0), where phi = 0 and the gradient vanishes."""
    mcp = _linear([[2.0, 1.0], [1.0, 1.0]], [-1.0, 0.0])
    t = theorem1(mcp, np.array([1.0, -1.0]))
    assert t.holds and t.schur_holds and t.stationary
    assert t.schur == pytest.approx(np.array([[1.0]]))
    assert t.g_v_min_singular == pytest.approx(1.0)
    assert t.objective == pytest.approx(0.0, abs=1e-30)
    sol = cm.solve(mcp, solver="ipopt")
    assert sol.status.value == "solved" and sol.x == pytest.approx([1.0, -1.0], abs=1e-8)


def test_spurious_stationary_point_is_explained() -> None:
    """f = -u - 1, g = v (no solution: f < 0 for every u >= 0). At (u, v, z) = 0: w = f - z = -1,
    phi = 1/2, d phi/du = 1 and d phi/dz = 1 at their bounds (multipliers 1), d phi/dv = 0: a
    stationary point. S = -1: not row sufficient (x = 1: x (S x) = -1 < 0), not an S-matrix;
    w itself shows it: w (S^T w) = -1 * 1 = -1."""
    mcp = _linear([[-1.0, 0.0], [0.0, 1.0]], [-1.0, 0.0])
    t = theorem1(mcp, np.zeros(2), z=np.zeros(1))
    assert t.stationary and t.projected_gradient == pytest.approx(0.0, abs=1e-15)
    assert t.objective == pytest.approx(0.5)
    assert t.schur == pytest.approx(np.array([[-1.0]]))
    assert not t.row_sufficient.value and not t.s_matrix.value
    assert t.failed == ["Schur complement not row sufficient", "Schur complement not an S-matrix"]
    assert t.w == pytest.approx([-1.0]) and t.products == pytest.approx([-1.0])
    assert "violates row sufficiency" in t.witness()


def test_singular_g_v_means_no_schur_complement() -> None:
    """f = u + v - 1, g = u v - 1 (like the cone MNCP's mu c_n a_t + c_t lambda): g_v = u, singular
    at u = 0, so Theorem 1 says nothing there; at u = v = 1, g_v = 1 and S = 1 - 1 * 1 / 1 = 0:
    row sufficient but not an S-matrix (this MNCP has no solution: u > 0 needs u + v = 1 and
    u v = 1, u = 0 gives g = -1)."""

    def F(x: np.ndarray) -> np.ndarray:
        return np.array([x[0] + x[1] - 1.0, x[0] * x[1] - 1.0])

    def J(x: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix([[1.0, 1.0], [x[1], x[0]]])

    mcp = cm.MCP(F=F, J=J, lb=LB, ub=UB)
    t = theorem1(mcp, np.array([0.0, 2.0]))
    assert t.schur is None and t.g_v_min_singular == 0.0 and t.products is None
    assert any(f.startswith("g_v singular") for f in t.failed)
    t = theorem1(mcp, np.array([1.0, 1.0]))
    assert t.schur == pytest.approx(np.array([[0.0]]), abs=1e-15)
    assert t.row_sufficient.value and not t.s_matrix.value
    assert "Schur complement not an S-matrix" in t.failed
    assert "Schur complement not row sufficient" not in t.failed


def test_scara_failure_from_the_origin_and_the_interior_start() -> None:
    """Andreani et al. (2002) §4.2.1, data set 6: from the model's start x = 0 Ipopt stops at a
    stationary point with phi ~ 0.2 where tip 1 has c_n = lambda = 0 (g_v singular); from the
    interior start it solves the MNCP, and so does the default restart ladder."""
    problem = without_cone_blocks(scara_problem(6, sliding=False, friction="cone"))
    mcp = problem.compile().mcp
    sol = cm.solve(problem, solver="ipopt", restarts=(), random_starts=0)
    assert sol.status.value == "failed" and sol.extras["objective"] > 0.1
    t = theorem1(mcp, sol.x, sol.extras["z"])
    assert t.stationary and t.schur is None
    assert t.failed[0].startswith("g_v singular")
    single = {"restarts": (), "random_starts": 0}
    assert cm.solve(problem, solver="ipopt", **SCARA_IPOPT_INTERIOR, **single).status.value == "solved"
    laddered = cm.solve(problem, solver="ipopt")
    assert laddered.status.value == "solved" and laddered.extras["solved_by"] == "interior"
