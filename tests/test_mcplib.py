"""The classic MCP test set (contactmodel.mcplib): each stated solution solves its stated problem
(an independent check of the transcriptions), and newton, through Pyomo's SolverFactory, solves
what benchmarks/mcplib.py reports it solves."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pe
import pytest
from pyomo.opt import TerminationCondition

from contactmodel import mcplib
from contactmodel.errors import UnknownNameError

KNOWN = [(name, k) for name, p in mcplib.PROBLEMS.items() for k in range(len(p.solutions))]
STARTS = [(name, k) for name, p in mcplib.PROBLEMS.items() for k in range(len(p.starts))]
#: (problem, start) newton does not solve (benchmarks/mcplib.py: a local minimum of the merit)
NEWTON_FAILS = {("billups", 0)}
#: problems with a continuum of solutions (transmcp: both plants ship to New York at the same
#: cost), whose answer is not compared with the stated one
MANY_SOLUTIONS = {"mathiesen_mod", "transmcp"}


def test_at_least_fifteen_problems_with_sources():
    assert len(mcplib.PROBLEMS) >= 15
    for p in mcplib.PROBLEMS.values():
        assert p.starts and p.source and p.description
        assert any(ch.isdigit() for ch in p.source), f"{p.name}: the source names no year"


@pytest.mark.parametrize(("name", "k"), KNOWN)
def test_stated_solution_solves_the_stated_problem(name, k):
    problem = mcplib.get(name)
    model = problem.build()
    mcplib.load_point(model, problem.solutions[k])
    assert mcplib.residual(model) <= problem.solution_tol
    # and the check can fail: a point moved off the solution is refused
    moved = {key: np.asarray(v, dtype=float) + 0.5 for key, v in problem.solutions[k].items()}
    mcplib.load_point(model, moved)
    assert mcplib.residual(model) > 10 * problem.solution_tol


@pytest.mark.parametrize(("name", "k"), STARTS)
def test_newton_through_pyomo(name, k):
    problem = mcplib.get(name)
    model = problem.model(k)
    opt = pe.SolverFactory("cm_newton")
    results = opt.solve(model)
    if (name, k) in NEWTON_FAILS:
        assert results.solver.termination_condition != TerminationCondition.optimal
        return
    assert results.solver.termination_condition == TerminationCondition.optimal, opt.solution.message
    assert mcplib.residual(model) <= 1e-8  # the loaded values, checked again from the model
    if problem.solutions and name not in MANY_SOLUTIONS:
        got = {key: [pe.value(v) for v in model.find_component(key).values()] for key in problem.solutions[0]}
        gaps = [
            max(np.max(np.abs(np.asarray(got[key]) - np.asarray(sol[key], dtype=float))) for key in sol)
            for sol in problem.solutions
        ]
        assert min(gaps) <= max(1e-6, 10 * problem.solution_tol)


def test_torsion_agrees_with_a_bound_constrained_qp_solver():
    """No solution vector is published: the MCP answer must minimize the discretized energy over
    the box, as scipy's L-BFGS-B finds it."""
    from scipy.optimize import minimize

    model = mcplib.get("torsion").model()
    assert (
        pe.SolverFactory("cm_newton").solve(model).solver.termination_condition
        == TerminationCondition.optimal
    )
    cells = list(model.v)
    v = np.array([pe.value(model.v[c]) for c in cells])
    n = int(round(np.sqrt(len(cells))))
    h = 1.0 / (n + 1)
    index = {c: i for i, c in enumerate(cells)}
    L = np.zeros((len(cells), len(cells)))
    for (i, j), r in index.items():
        L[r, r] = 4.0
        for nb in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if nb in index:
                L[r, index[nb]] = -1.0
    g = np.full(len(cells), mcplib.linear.TORSION_C * h * h)
    dist = [min((i + 1) * h, 1 - (i + 1) * h, (j + 1) * h, 1 - (j + 1) * h) for i, j in cells]
    res = minimize(
        lambda u: (0.5 * u @ L @ u - g @ u, L @ u - g),
        np.zeros(len(cells)),
        jac=True,
        method="L-BFGS-B",
        bounds=[(-d, d) for d in dist],
        options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 5000},
    )
    np.testing.assert_allclose(v, res.x, atol=1e-6)
    assert np.any(np.isclose(np.abs(v), dist))  # the plastic region: some bounds are active


def test_unknown_problem_and_variable():
    with pytest.raises(UnknownNameError, match="unknown test problem"):
        mcplib.get("nope")
    with pytest.raises(UnknownNameError, match="no variable 'y'"):
        mcplib.load_point(mcplib.get("munson1").build(), {"y": [1.0]})
