"""The compiler's direct reading of linear rows agrees with Pyomo's general standard repn."""

import numpy as np
import pyomo.environ as pe
import pytest
from pyomo.mpec import Complementarity, complements

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.mcp import compile as compile_module

CASE = catalogue.get("box_push_static")
LAWS = [*CASE.laws(), cm.CoulombCone(CASE.mu, form="soc"), cm.CoulombCone(CASE.mu, slack="norm")]


def _both(model: pe.Block, monkeypatch) -> tuple:
    """(fast, general) compilations of the same model."""
    fast = compile_module.compile_model(model)
    with monkeypatch.context() as patch:
        patch.setattr(compile_module, "_linear_terms", lambda expr, known=None: None)
        general = compile_module.compile_model(model)
    return fast, general


def _assert_same(fast, general) -> None:
    a, b = fast.mcp, general.mcp
    assert list(a.names) == list(b.names)
    np.testing.assert_array_equal(a.lb, b.lb)
    np.testing.assert_array_equal(a.ub, b.ub)
    x = np.random.default_rng(3).uniform(-1.0, 2.0, a.n)
    np.testing.assert_allclose(a.F(x), b.F(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.J(x).toarray(), b.J(x).toarray(), rtol=1e-12, atol=1e-12)
    assert (a.M is None) == (b.M is None)


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_contact_rows_read_directly_match_the_repn(law, form, monkeypatch):
    problem = cm.formulate(CASE.build(), friction=law, form=form)
    fast, general = _both(problem.model, monkeypatch)
    _assert_same(fast, general)
    # the constants stay symbolic: a new b (or f) is re-read by update in both
    param = problem.model.b if form == "reduced" else problem.model.f
    for k in param:
        param[k] = pe.value(param[k]) + 0.25 * (k + 1)
    fast.update()
    general.update()
    _assert_same(fast, general)


def test_hand_written_rows(monkeypatch):
    """Negations, named expressions, Params scaled and summed, fixed variables and products."""
    m = pe.ConcreteModel()
    m.x = pe.Var(range(4), initialize=0.5)
    m.p = pe.Param(mutable=True, initialize=2.0)
    m.fixed = pe.Var(initialize=3.0)
    m.fixed.fix()
    m.e = pe.Expression(expr=-(2.0 * m.x[1] - m.p) + 4.0)
    m.rows = Complementarity(range(4))
    m.rows[0] = complements(m.x[0] >= 0, m.e + m.x[0] - 3 * m.p >= 0)
    m.rows[1] = complements(m.x[1] >= 0, m.x[2] * m.x[1] + 1.0 >= 0)  # quadratic: general repn
    m.rows[2] = complements(m.e - m.fixed * m.x[3] == 0, m.x[2])  # fixed variable: general repn
    m.rows[3] = complements(m.p * m.x[0] - m.x[3] == 0, m.x[3])  # Param coefficient: general repn
    fast, general = _both(m, monkeypatch)
    _assert_same(fast, general)
    # row 0 by hand: F_0 = -2 x1 + p + 4 + x0 - 3 p = x0 - 2 x1 + 4 - 2 p
    x = np.array([0.3, 0.7, 0.1, 0.2])
    assert fast.mcp.F(x)[0] == pytest.approx(0.3 - 1.4 + 4.0 - 4.0)
    m.p = 5.0
    fast.update()
    assert fast.mcp.F(x)[0] == pytest.approx(0.3 - 1.4 + 4.0 - 10.0)


def test_a_fixed_variable_in_a_linear_row_is_a_constant(monkeypatch):
    """A fixed variable written linearly (alone, scaled, in a named expression) is read as the
    constant it is, as the general repn reads it; unfixed again, it is an unmatched variable."""
    m = pe.ConcreteModel()
    m.x = pe.Var(range(2), initialize=0.5)
    m.fixed = pe.Var(initialize=3.0)
    m.fixed.fix()
    m.e = pe.Expression(expr=2.0 * m.fixed - m.x[1])
    m.rows = Complementarity(range(2))
    m.rows[0] = complements(m.x[0] >= 0, m.x[0] + m.fixed + m.e >= 0)
    m.rows[1] = complements(m.x[1] - 4.0 * m.fixed == 0, m.x[1])
    fast, general = _both(m, monkeypatch)
    _assert_same(fast, general)
    x = np.array([0.25, 0.5])
    np.testing.assert_allclose(fast.mcp.F(x), [0.25 + 3.0 + 6.0 - 0.5, 0.5 - 12.0])
    m.fixed.unfix()
    with pytest.raises(cm.ContactModelError, match="fixed"):
        compile_module.compile_model(m)


def _dense_problem(nc: int = 6):
    rng = np.random.default_rng(7)
    G = rng.standard_normal((3 * nc, 3 * nc + 2))
    return cm.formulate_from_matrices(G @ G.T + 0.1 * np.eye(3 * nc), rng.standard_normal(3 * nc), mu=0.4)


def test_rows_read_from_the_recorded_matrix_match_the_rows_read_one_by_one(monkeypatch):
    """Rows the formulation wrote from a matrix (here every acceleration of a dense reduced form)
    are read from it at once; without that record, one by one: the same MCP, before and after a
    new b."""
    problem = _dense_problem()
    read = []
    real = compile_module._linear_terms
    monkeypatch.setattr(compile_module, "_linear_terms", lambda e, k=None: read.append(e) or real(e, k))
    fast = compile_module.compile_model(problem.model)
    assert not read  # every row came from the matrix
    record = problem.model.__dict__.pop(compile_module.MATRIX_ROWS)
    slow = compile_module.compile_model(problem.model)
    assert len(read) == slow.mcp.n
    problem.model.__dict__[compile_module.MATRIX_ROWS] = record
    _assert_same(fast, slow)
    problem.update(b=problem.assembly.b + 0.5)
    fast.update()
    slow.update()
    _assert_same(fast, slow)


def test_a_recorded_matrix_with_a_variable_that_is_no_column_is_read_row_by_row():
    """A contact whose cone block was deactivated leaves its forces unmatched: the rows are read
    one by one and the unmatched variable is named, as without the record."""
    problem = _dense_problem()
    problem.block(problem.contact_names[2]).cone.deactivate()
    unmatched = r"'contact\[c2\]\.c_.' appears in a row but is matched with no"
    with pytest.raises(cm.ContactModelError, match=unmatched):
        compile_module.compile_model(problem.model)
