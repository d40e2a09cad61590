"""Compilation reads the model without changing it, honors user additions, and updates Params."""

import numpy as np
import pyomo.environ as pe
import pytest
from pyomo.mpec import Complementarity, complements

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.mcp.compile import split_pair


def box_problem(form="reduced"):
    case = catalogue.get("box_push_static")
    return case, cm.formulate(case.build(), friction=cm.Pyramid(case.mu), form=form)


def test_names_bounds_and_linear_data():
    _, problem = box_problem()
    mcp = problem.compile().mcp
    assert mcp.is_lcp and mcp.n == 20
    assert "contact[floor0].c_n" in list(mcp.names)
    assert "contact[floor0].a_minus[t]" in list(mcp.names)
    x = np.random.default_rng(1).uniform(0, 1, mcp.n)
    np.testing.assert_allclose(mcp.F(x), mcp.M @ x + mcp.q)


def test_compile_does_not_change_the_model():
    _, problem = box_problem("sparse")
    before = sorted(c.name for c in problem.model.component_objects(descend_into=True))
    problem.compile(refresh=True)
    after = sorted(c.name for c in problem.model.component_objects(descend_into=True))
    assert before == after


def test_user_complementarity_is_honored():
    _, problem = box_problem()
    m = problem.model
    # a user's own row: 0 <= p _|_ p - c_n >= 0, i.e. p copies the first foot's normal force
    m.p = pe.Var(domain=pe.NonNegativeReals)
    m.p_pair = Complementarity(expr=complements(m.p >= 0, m.p - m.contact["floor0"].c_n >= 0))
    sol = cm.solve(problem, solver="newton")
    assert sol.status is cm.Status.SOLVED
    assert problem.compile().mcp.n == 21
    assert m.p.value == pytest.approx(sol.contact("floor0").force[0], abs=1e-9)
    assert m.p.value > 1.0


def test_plain_constraint_is_refused_not_dropped():
    _, problem = box_problem()
    problem.model.extra = pe.Constraint(expr=problem.model.contact["floor0"].c_n == 5.0)
    with pytest.raises(cm.FormulationError, match="Complementarity"):
        problem.compile(refresh=True)


def test_changed_b_updates_without_recompiling():
    _, problem = box_problem()
    compiled = problem.compile()
    q0 = compiled.mcp.q.copy()
    row = problem.assembly.row("floor0", "t")
    problem.model.b[row] = problem.model.b[row].value + 1.0
    again = problem.compile()
    assert again is compiled
    changed = np.flatnonzero(again.mcp.q != q0)
    assert changed.size >= 1
    x = np.zeros(again.mcp.n)
    np.testing.assert_allclose(again.mcp.F(x), again.mcp.q)


def test_mcp_from_callables_goes_through_the_dispatcher():
    # x >= 0 _|_ x^2 - 4 >= 0 and y free with y - 2x = 0: solution x = 2, y = 4
    import scipy.sparse as sp

    mcp = cm.MCP(
        F=lambda z: np.array([z[0] ** 2 - 4.0, z[1] - 2 * z[0]]),
        J=lambda z: sp.csr_matrix([[2 * z[0], 0.0], [-2.0, 1.0]]),
        lb=np.array([0.0, -np.inf]),
        ub=np.array([np.inf, np.inf]),
        x0=np.array([1.0, 0.0]),
    )
    sol = cm.solve(mcp, solver="newton")
    assert sol.status is cm.Status.SOLVED
    np.testing.assert_allclose(sol.x, [2.0, 4.0], atol=1e-9)


def test_rows_added_after_compiling_are_picked_up():
    _, problem = box_problem()
    n = problem.compile().mcp.n
    m = problem.model
    m.p = pe.Var(domain=pe.NonNegativeReals)
    m.p_pair = Complementarity(expr=complements(m.p >= 0, m.p - 1.0 >= 0))
    assert problem.compile().mcp.n == n + 1
    m.p_pair.deactivate()
    m.p.fix(1.0)
    assert problem.compile().mcp.n == n


def test_every_kind_of_structural_edit_is_noticed_without_a_walk():
    _, problem = box_problem()
    m = problem.model
    compiled = problem.compile()
    assert problem.compile() is compiled  # nothing changed: the same compilation, re-read
    n = compiled.mcp.n
    blk = m.contact["floor0"]
    # one entry of an indexed Complementarity deactivated, then reactivated
    key = next(k for k in blk.pairs if k != "normal")
    var = split_pair(blk.pairs[key])[0]
    blk.pairs[key].deactivate()
    var.fix(0.0)  # its variable leaves the MCP with its row
    assert problem.compile().mcp.n == n - 1
    blk.pairs[key].activate()
    var.unfix()
    assert problem.compile().mcp.n == n
    # a component added inside a contact block (not on the top model)
    blk.p = pe.Var(domain=pe.NonNegativeReals)
    blk.p_pair = Complementarity(expr=complements(blk.p >= 0, blk.p - 1.0 >= 0))
    assert problem.compile().mcp.n == n + 1
    # a component deleted
    blk.del_component(blk.p_pair)
    assert problem.compile().mcp.n == n
    # a new entry of an existing indexed Complementarity (the user's own, open-indexed)
    blk.q = pe.Var(["a", "b"], domain=pe.NonNegativeReals)
    blk.mine = Complementarity(pe.Any)
    blk.mine["a"] = complements(blk.q["a"] >= 0, blk.q["a"] - 2.0 >= 0)
    blk.q["b"].fix(0.0)
    assert problem.compile().mcp.n == n + 1
    blk.q["b"].unfix()
    blk.mine["b"] = complements(blk.q["b"] >= 0, blk.q["b"] - 3.0 >= 0)
    assert problem.compile().mcp.n == n + 2
    blk.del_component(blk.mine)
    blk.q.fix(0.0)
    assert problem.compile().mcp.n == n
    # a new block with a row, then the block deactivated: its row goes
    m.extra = pe.Block()
    m.extra.r = pe.Var(domain=pe.NonNegativeReals)
    m.extra.pair = Complementarity(expr=complements(m.extra.r >= 0, m.extra.r + 1.0 >= 0))
    assert problem.compile().mcp.n == n + 1
    m.extra.deactivate()
    m.extra.r.fix(0.0)
    assert problem.compile().mcp.n == n


def test_a_constraint_added_to_a_block_is_refused_after_caching():
    _, problem = box_problem()
    problem.compile()
    blk = problem.model.contact["floor0"]
    blk.extra = pe.Constraint(expr=blk.c_n == 5.0)
    with pytest.raises(cm.FormulationError, match="Complementarity"):
        problem.compile()


def test_update_rereads_params_and_cone_mu_without_recompiling():
    case = catalogue.get("box_push_static")
    problem = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu, form="soc"))
    compiled = problem.compile()
    blk = problem.model.contact["floor0"].cone
    blk.mu = 0.25
    problem.model.b[0] = 7.0
    assert problem.compile() is compiled
    assert compiled.mcp.cones.mu[0] == 0.25
    np.testing.assert_allclose(compiled.mcp.F(np.zeros(compiled.mcp.n))[0], 7.0)
