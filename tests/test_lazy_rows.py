"""The contacts' accelerations are rows of a matrix built when first read
(``formulation.LAZY_ROWS``, ``_pyomo.MatrixRowData``): the model is the one an eager build makes
(printed, compiled, walked, copied), compiling and solving leave the rows unbuilt, any read builds
them, and a user's edit of a row is what the compiler reads."""

from __future__ import annotations

import copy
import io
import pickle
import re

import numpy as np
import pytest
from mcp_checks import assert_same_mcp

import contactmodel as cm
from contactmodel import catalogue, formulation
from contactmodel._pyomo import MatrixRowData, pe
from contactmodel.constants import Form
from contactmodel.mcp.compile import LINEAR_ROWS, MATRIX_ROWS, compile_model

_CASE = catalogue.get("box_push_static")
_LAWS = [*_CASE.laws(), cm.CoulombCone(_CASE.mu, form="soc"), cm.CoulombCone(_CASE.mu, form="mncp")]


def _dense(nc: int = 5, seed: int = 7):
    """(A, b, mu) of a dense reduced problem: A = G G^T + 0.1 I, (3 nc, 3 nc)."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((3 * nc, 3 * nc + 2))
    return G @ G.T + 0.1 * np.eye(3 * nc), rng.standard_normal(3 * nc), 0.4


def _build(make, lazy: bool, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setattr(formulation, "LAZY_ROWS", lazy)
        return make()


def _rows(problem) -> list:
    return [e for name in problem.contact_names for e in problem.block(name).accel.values()]


def _built(problem) -> int:
    return sum(r.built for r in _rows(problem))


def _text(problem) -> str:
    out = io.StringIO()
    problem.model.pprint(ostream=out)
    return out.getvalue()


_MAKERS = {
    "matrices": lambda: cm.formulate_from_matrices(*_dense()),
    "matrices_sliding": lambda: cm.formulate_from_matrices(
        *_dense(), sliding=[True, False, False, True, False]
    ),
}
for _law in _LAWS:
    for _form in ("reduced", "sparse"):
        _MAKERS[f"{_law!r}-{_form}"] = lambda law=_law, form=_form: cm.formulate(
            _CASE.build(), friction=law, form=form
        )


for _key, _make in _MAKERS.items():
    _make.id = _key
#: the problems whose every row the compiler reads without Pyomo's general repn: a law scaling an
#: acceleration by a coefficient (Pyramid's D_i a_t) has its rows read by the repn, which builds them
_UNBUILT_BY_COMPILE = re.compile(r"^matrices|^CoulombCone")


@pytest.mark.parametrize("make", _MAKERS.values(), ids=_MAKERS.keys())
def test_lazy_and_eager_builds_compile_and_print_the_same(make, monkeypatch) -> None:
    """Compiled before any row is read (from the matrix) and again after printing (the rows then
    built): the eager build's MCP bit for bit, before and after a new b; the same printed model."""
    lazy, eager = _build(make, True, monkeypatch), _build(make, False, monkeypatch)
    assert all(isinstance(r, MatrixRowData) for r in _rows(lazy))
    assert not any(isinstance(r, MatrixRowData) for r in _rows(eager))
    first = compile_model(lazy.model)
    if _UNBUILT_BY_COMPILE.search(make.id):  # rows read by Pyomo's general repn are built
        assert _built(lazy) == 0
    reference = compile_model(eager.model)
    assert_same_mcp(first.mcp, reference.mcp, seed=3)
    assert [id(v) for v in first.variables] == [id(v) for v in lazy.compile().variables]
    assert _text(lazy) == _text(eager)
    assert _built(lazy) == len(_rows(lazy))
    again = compile_model(lazy.model)
    assert_same_mcp(again.mcp, reference.mcp, seed=4)
    param = lazy.model.b if lazy.form is Form.REDUCED else lazy.model.f
    other = eager.model.b if lazy.form is Form.REDUCED else eager.model.f
    for p in (param, other):
        p[0] = p[0].value + 0.75
    for compiled in (first, again, reference):
        compiled.update()
    assert_same_mcp(first.mcp, reference.mcp, seed=5)
    assert_same_mcp(again.mcp, reference.mcp, seed=5)


def test_solving_leaves_the_rows_unbuilt_and_reading_one_builds_it_alone(monkeypatch) -> None:
    """A solve (compile, solver, checks, modes) reads no row; ``expr``, Pyomo's walkers and
    evaluation each build the row they read, and only it; the row is the eager build's."""
    make = _MAKERS["matrices"]
    problem, eager = _build(make, True, monkeypatch), _build(make, False, monkeypatch)
    solution = cm.solve(problem)
    assert solution.ok and _built(problem) == 0
    rows, eager_rows = _rows(problem), _rows(eager)
    assert str(rows[4].expr) == str(eager_rows[4].expr)
    assert [r.built for r in rows[3:6]] == [False, True, False]
    names = {v.name for v in pe.expr.identify_variables(rows[0])}
    assert names == {v.name for v in pe.expr.identify_variables(eager_rows[0])}
    assert rows[0].built and _built(problem) == 2
    value = pe.value(rows[7])  # at the solution, loaded into the model's variables
    assert value == pytest.approx(solution.contacts[2].acceleration[1], abs=1e-9)
    assert _built(problem) == 3


def test_a_row_set_by_the_user_is_read_as_set(monkeypatch) -> None:
    """A row replaced before it was ever read, and a row replaced by an expression of its own
    built form: the compiler reads the new expressions (F changes in those rows alone, by the
    amounts written); the other rows still come from the matrix, unbuilt."""
    problem = _build(_MAKERS["matrices"], True, monkeypatch)
    before = compile_model(problem.model)
    blk = problem.block("c1")
    blk.accel["t"] = 2.0 * blk.c_t  # never read: replaced
    blk.accel["n"].set_value(blk.accel["n"].expr + 1.5)  # read (built), then replaced
    assert _built(problem) == 2 and blk.accel["o"]._source is not None
    after = compile_model(problem.model)
    x = np.random.default_rng(2).uniform(-1.0, 1.0, before.mcp.n)
    diff = after.mcp.F(x) - before.mcp.F(x)
    col = {id(v): i for i, v in enumerate(after.variables)}
    i_n, i_t = col[id(blk.c_n)], col[id(blk.c_t)]  # the cone block's rows sit at its forces
    assert diff[i_n] == pytest.approx(1.5, abs=1e-12)
    assert diff[i_t] == pytest.approx(2.0 * x[i_t] - before.mcp.F(x)[i_t], abs=1e-12)
    others = np.ones(diff.size, dtype=bool)
    others[[i_n, i_t]] = False
    np.testing.assert_array_equal(diff[others], 0.0)
    assert _built(problem) == 2


def test_copies_of_a_lazy_model_are_the_eager_model(monkeypatch) -> None:
    """clone, deepcopy and pickle read every row (the copies are ordinary entries holding the
    built expressions) and compile to the eager build's MCP."""
    make = _MAKERS["matrices"]
    problem, eager = _build(make, True, monkeypatch), _build(make, False, monkeypatch)
    reference = compile_model(eager.model).mcp
    for copied in (
        problem.model.clone(),
        copy.deepcopy(problem.model),
        pickle.loads(pickle.dumps(problem.model)),
    ):
        entries = [e for blk in copied.contact.values() for e in blk.accel.values()]
        assert all(e._source is None for e in entries)
        assert [str(e.expr) for e in entries] == [str(e.expr) for e in _rows(eager)]
        assert_same_mcp(compile_model(copied).mcp, reference, seed=6)
    assert _built(problem) == len(_rows(problem))


def test_rows_are_read_from_the_matrix_without_any_expression(monkeypatch) -> None:
    """With the matrix record the rows are read from the matrix at once; without it, one by one
    (from the record's lists, still unbuilt), and once built, from their expressions: the same
    MCP each time."""
    from contactmodel.mcp import compile as compile_module

    problem = _build(_MAKERS["matrices"], True, monkeypatch)
    read = []
    real = compile_module._linear_terms
    monkeypatch.setattr(compile_module, "_linear_terms", lambda e, k=None: read.append(e) or real(e, k))
    fast = compile_model(problem.model)
    assert not read and _built(problem) == 0
    records = problem.model.__dict__.pop(MATRIX_ROWS)
    known = problem.model.__dict__.pop(LINEAR_ROWS)
    slow = compile_model(problem.model)
    assert len(read) == slow.mcp.n and _built(problem) == 0
    _text(problem)
    built = compile_model(problem.model)
    assert len(read) == 2 * slow.mcp.n and _built(problem) == len(_rows(problem))
    problem.model.__dict__.update({MATRIX_ROWS: records, LINEAR_ROWS: known})
    assert_same_mcp(fast.mcp, slow.mcp, seed=7)
    assert_same_mcp(fast.mcp, built.mcp, seed=7)
