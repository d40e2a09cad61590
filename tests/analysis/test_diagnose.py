"""Diagnostics: ranks, definiteness, matrix classes, existence conditions, Schur complement."""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.analysis import all_solutions, diagnose
from contactmodel.analysis.cones import single_contact_problem


def test_single_contact_is_well_posed() -> None:
    problem = single_contact_problem(cm.Pyramid(0.5))
    d = diagnose(problem)
    assert d.rank_g == 3 and d.full_rank and d.A_definiteness == "positive definite"
    assert d.lcp_size == 5 and all(v.exact for v in d.lcp.values())
    assert d.condition("Trinkle et al. (1997) Theorem 1 (a) (existence)").holds
    name = "Trinkle and Pang (1997) Theorem 1 (A) / Trinkle et al. (1997) Theorem 1 (b), (c)"
    assert d.condition(name).holds
    assert "In plain words" in d.summary()


def test_box_on_four_feet_is_rank_deficient_but_solvable() -> None:
    problem = cm.formulate(catalogue.get("box_push_static").build(), friction=cm.Pyramid(0.5))
    d = diagnose(problem)
    assert d.rank_g == 6 and not d.full_rank and "singular" in d.A_definiteness
    assert d.condition("Trinkle and Pang (1997) Theorem 1 (B) (existence)").holds
    assert not d.lcp["P"].value
    assert "not unique" in d.summary()


def test_existence_condition_fails_when_the_lcp_has_no_solution() -> None:
    """Two opposed normals in the null space of the Jacobian (c = (1, 1) gives no net force) with
    b_n1 + b_n2 < 0: Trinkle and Pang (1997) Theorem 1 (B) fails, and indeed no solution exists."""
    A = np.zeros((6, 6))
    A[np.ix_([0, 3], [0, 3])] = [[1.0, -1.0], [-1.0, 1.0]]
    A[[1, 2, 4, 5], [1, 2, 4, 5]] = 1.0
    b = np.array([-1.0, 0.0, 0.0, -1.0, 0.0, 0.0])
    problem = cm.formulate_from_matrices(A, b, friction=cm.Pyramid(0.3))
    d = diagnose(problem, solution=np.zeros(problem.compile().mcp.n))
    cond = d.condition("Trinkle and Pang (1997) Theorem 1 (B) (existence)")
    assert cond.holds is False and cond.value < 0
    assert len(all_solutions(problem)) == 0


def test_schur_condition_of_cone_model() -> None:
    problem = single_contact_problem(cm.CoulombCone(0.5))
    problem.system.bodies[0].wrench = np.array([1.0, 0.5, -10.0, 0.0, 0.0, 0.0])
    p = cm.formulate(problem.system, friction=cm.CoulombCone(0.5))
    d = diagnose(p, solution=cm.solve(p))
    assert d.schur["v"] == 4 and d.schur["u"] == 2
    assert "Schur" in d.schur["text"] or "singular" in d.schur["text"]
    problem.system.bodies[0].wrench = np.zeros(6)
