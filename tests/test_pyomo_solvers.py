"""The project's solvers as Pyomo solvers (``SolverFactory("cm_newton")``), on models written in
plain Pyomo, and on a contact problem's own model."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyomo.environ as pe
import pytest
from pyomo.mpec import Complementarity, complements
from pyomo.opt import SolverStatus, TerminationCondition

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.errors import ContactModelError, FormulationError, OptionError, SolverError


def kojima_josephy() -> pe.ConcreteModel:
    """Josephy's (1979) NCP in plain Pyomo; its solution is (sqrt(6)/2, 0, 0, 1/2)."""
    m = pe.ConcreteModel()
    m.x = pe.Var(range(4), initialize=0.0)
    x = m.x
    F = [
        3 * x[0] ** 2 + 2 * x[0] * x[1] + 2 * x[1] ** 2 + x[2] + 3 * x[3] - 6,
        2 * x[0] ** 2 + x[0] + x[1] ** 2 + 3 * x[2] + 2 * x[3] - 2,
        3 * x[0] ** 2 + x[0] * x[1] + 2 * x[1] ** 2 + 2 * x[2] + 3 * x[3] - 1,
        x[0] ** 2 + 3 * x[1] ** 2 + 2 * x[2] + 3 * x[3] - 3,
    ]
    m.c = Complementarity(range(4), rule=lambda m, i: complements(m.x[i] >= 0, F[i] >= 0))
    return m


def munson1() -> pe.ConcreteModel:
    """The LCP of AMPL's complementarity example munson1; x = (1, 0, 0) solves it."""
    m = pe.ConcreteModel()
    m.x = pe.Var(range(3), initialize=0.0)
    x = m.x
    F = [x[0] + 2 * x[1] + 3 * x[2] - 1, x[1] - x[2] + 1, x[0] + x[1] + 1]
    m.c = Complementarity(range(3), rule=lambda m, i: complements(m.x[i] >= 0, F[i] >= 0))
    return m


def mixed_model() -> pe.ConcreteModel:
    """Every pair shape: ``x >= 0 _|_ F >= 0``, ``F == 0 _|_ free y``, a box ``0 <= z <= 1 _|_ F``
    (at its upper bound), ``F <= 0`` written on the left, a fixed pair and a deactivated one.
    Solution x = 2, y = 3, z = 1 (hand-derived: y - x - 1 = 0, x - 2 = 0 with x > 0; z at its upper
    bound since its F = 0.5 - y < 0)."""
    m = pe.ConcreteModel()
    m.x = pe.Var(initialize=5.0)
    m.y = pe.Var(initialize=0.0)
    m.z = pe.Var(initialize=0.5)
    m.w = pe.Var(initialize=7.0)
    m.w.fix()
    m.v = pe.Var(initialize=-1.0)
    m.cx = Complementarity(expr=complements(m.x >= 0, m.x - 2 + 0 * m.w >= 0))
    m.cy = Complementarity(expr=complements(m.y - m.x - 1 == 0, m.y))
    m.cz = Complementarity(expr=complements(pe.inequality(0, m.z, 1), 0.5 - m.y))
    m.cw = Complementarity(expr=complements(m.w >= 0, m.x + m.y >= 0))  # w fixed: left out
    m.cv = Complementarity(expr=complements(m.v >= 0, m.v - 4 >= 0))
    m.cv.deactivate()
    return m


def test_plain_pyomo_model_solved_and_loaded():
    m = kojima_josephy()
    results = pe.SolverFactory("cm_newton").solve(m)
    assert results.solver.termination_condition == TerminationCondition.optimal
    assert results.solver.status == SolverStatus.ok
    assert pe.check_optimal_termination(results)
    got = [pe.value(m.x[i]) for i in range(4)]
    assert got == pytest.approx([np.sqrt(6) / 2, 0.0, 0.0, 0.5], abs=1e-8)


def test_every_pair_shape_fixed_and_deactivated():
    m = mixed_model()
    opt = pe.SolverFactory("cm_newton")
    results = opt.solve(m)
    assert results.solver.termination_condition == TerminationCondition.optimal
    assert (pe.value(m.x), pe.value(m.y), pe.value(m.z)) == pytest.approx((2.0, 3.0, 1.0), abs=1e-9)
    assert pe.value(m.w) == 7.0 and pe.value(m.v) == -1.0  # fixed, and deactivated: untouched
    assert results.problem.number_of_variables == 3
    assert opt.solution.status is cm.Status.SOLVED


def test_options_validated_and_tee(capsys):
    m = kojima_josephy()
    opt = pe.SolverFactory("cm_newton")
    opt.options["max_iter"] = 1
    results = opt.solve(m, tee=True, options={"tol": 1e-12})
    assert results.solver.termination_condition == TerminationCondition.maxIterations
    assert results.solver.status == SolverStatus.aborted
    assert "cm_newton: iteration-limit" in capsys.readouterr().out
    with pytest.raises(SolverError, match="unknown option"):
        pe.SolverFactory("cm_newton").solve(kojima_josephy(), options={"tolerance": 1e-8})
    with pytest.raises(OptionError, match="max_iter"):
        pe.SolverFactory("cm_newton").solve(kojima_josephy(), options={"max_iter": "many"})


def test_load_solutions_false_leaves_the_model():
    m = kojima_josephy()
    results = pe.SolverFactory("cm_newton").solve(m, load_solutions=False)
    assert results.solver.termination_condition == TerminationCondition.optimal
    assert [pe.value(m.x[i]) for i in range(4)] == [0.0] * 4


def test_refusals_name_the_component():
    m = kojima_josephy()
    m.obj = pe.Objective(expr=m.x[0])
    with pytest.raises(FormulationError, match="objective 'obj'.*no objective"):
        pe.SolverFactory("cm_newton").solve(m)
    m = kojima_josephy()
    m.k = pe.Var(domain=pe.Integers, initialize=1)
    with pytest.raises(FormulationError, match="variable 'k' is integer"):
        pe.SolverFactory("cm_newton").solve(m)
    m = kojima_josephy()
    m.extra = pe.Constraint(expr=m.x[0] + m.x[1] <= 3)
    with pytest.raises(ContactModelError, match="constraint 'extra' is not a complementarity"):
        pe.SolverFactory("cm_newton").solve(m)


def test_linear_solvers_and_their_refusal():
    """munson1 (an LCP): lemke and fip solve it; lemke refuses the nonlinear Josephy model."""
    for name in ("cm_lemke", "cm_fip", "cm_enumerate", "cm_newton"):
        m = munson1()
        x = m.x
        results = pe.SolverFactory(name).solve(m)
        assert results.solver.termination_condition == TerminationCondition.optimal, name
        assert [pe.value(x[i]) for i in range(3)] == pytest.approx([1.0, 0.0, 0.0], abs=1e-7), name
    with pytest.raises(ContactModelError, match="solves LCPs only"):
        pe.SolverFactory("cm_lemke").solve(kojima_josephy())


@pytest.mark.parametrize(
    ("case", "law", "form"),
    [
        ("box_push_static", lambda: cm.Pyramid(0.5), "reduced"),
        ("box_push_sliding", lambda: cm.CoulombCone(0.5, form="soc"), "sparse"),
        ("box_push_sliding", lambda: cm.CoulombCone(0.5), "reduced"),
    ],
)
def test_contact_model_through_pyomo_equals_cm_solve(case, law, form):
    problem = cm.formulate(catalogue.get(case).build(), law(), form=form)
    direct = cm.solve(problem, fallback=False)
    assert direct.ok
    model = problem.model
    results = pe.SolverFactory("cm_newton").solve(model)
    assert results.solver.termination_condition == TerminationCondition.optimal
    compiled = problem.compile()
    loaded = np.array([pe.value(v) for v in compiled.variables])
    np.testing.assert_allclose(loaded, direct.x, atol=1e-8)


def test_registration_costs_nothing_until_pyomo_is_imported():
    """``import contactmodel`` does not import Pyomo; importing Pyomo afterwards registers the
    solvers (the order isort gives ``import contactmodel`` then ``import pyomo.environ``)."""
    code = (
        "import sys, contactmodel\n"
        "assert not any(m.startswith('pyomo') for m in sys.modules), 'pyomo imported'\n"
        "import pyomo.environ as pe\n"
        "assert all(f'cm_{s}' in pe.SolverFactory for s in ('newton', 'lemke', 'fip', 'ipopt'))\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
