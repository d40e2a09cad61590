"""The Pyomo model of a formulated contact problem, built from its rows statement when first read
(:attr:`Problem.model <contactmodel.formulation.Problem.model>`).

One Block per contact (``model.contact[name]``): the variables of the contact's
:class:`~contactmodel.friction.rows.ContactRows` and its force expressions (:func:`build_rows`),
its relative accelerations ``accel[axis]`` (rows of the form's matrix: :data:`ACCELERATIONS`), then
its complementarity pairs (``pyomo.mpec`` Complementarity ``pairs[key]``) and cone block
(:func:`add_row_conditions`). The MCP the compiler makes of this model is the one
:mod:`contactmodel.mcp.direct` makes from the same rows without it. This module is the only
way into Pyomo on the path of ``cm.formulate`` and ``cm.solve``, and it is imported only when a
model is read.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from contactmodel._pyomo import (
    add_block,
    add_complementarity,
    add_expression,
    add_matrix_rows,
    add_param_vector,
    add_var,
    complements,
    pe,
)
from contactmodel.constants import Form
from contactmodel.errors import FrictionLawError
from contactmodel.friction.rows import ContactRows, Named, Norm, Product, Square
from contactmodel.mcp.compile import MatrixRecord, record_matrix, record_pairs
from contactmodel.mcp.direct import newton_euler_matrix, reduced_matrix, sparse_constants
from contactmodel.mcp.soc_block import SOCComplementarity

if TYPE_CHECKING:  # annotations only
    from contactmodel.assembly import Assembly, ContactAssembly


# -- a contact's Block -------------------------------------------------------------------------
def axes_set(blk: pe.Block, axes: str) -> pe.Set:
    """The ordered Set of the given axis letters (``"to"`` -> {t, o}) on the top model, created on
    first use and shared by every contact block: a Set of its own per block (what a list index
    makes) cost more than the block's variables."""
    return _shared_set(blk.model(), f"axes_{axes}", tuple(axes), "axes of the contact blocks' components")


def _shared_set(model: pe.Block, name: str, members: tuple, doc: str) -> pe.Set:
    found = model.component(name)
    if found is None:
        found = pe.Set(initialize=members, ordered=True, doc=doc)
        model.add_component(name, found)
    return found


#: the pairs a law has stated on a contact block and :func:`declare_pairs` has not yet declared
_PENDING = "_contact_pairs_pending"
#: name of a dict on the model: the pairs' keys -> the Set ``pair_keys_<i>`` holding them
_PAIR_SETS = "_contact_pair_sets"


def _add_pair(blk: pe.Block, name: str, pair) -> None:
    pending = blk.__dict__.setdefault(_PENDING, {})
    if name in pending:
        raise FrictionLawError(
            f"contact block '{blk.name}': pair '{name}' stated twice; give each pair its own key"
        )
    pending[name] = pair


def nonneg_pair(blk: pe.Block, name: str, var, expr) -> None:
    """``pairs[name]``: ``0 <= var  _|_  expr >= 0``."""
    _add_pair(blk, name, complements(var >= 0, expr >= 0))


def equation(blk: pe.Block, name: str, expr, var) -> None:
    """``pairs[name]``: ``expr == 0`` matched with the free variable ``var``."""
    _add_pair(blk, name, complements(expr == 0, var))


def declare_pairs(blk: pe.Block) -> None:
    """Declare the pairs stated on ``blk`` (by :func:`nonneg_pair`, :func:`equation`) as one
    component, ``blk.pairs[key]``, indexed by a Set of exactly these keys in the order stated,
    shared by every block with the same keys (``model.pair_keys_<i>``). The formulation calls it
    after each contact's :func:`add_row_conditions`. A finite index keeps walks over the model cheap: Pyomo
    names the component and builds a Set on every iteration of one indexed by ``Any``."""
    pending = blk.__dict__.pop(_PENDING, None)
    if not pending:
        return
    keys = tuple(pending)
    model = blk.model()
    known = model.__dict__.setdefault(_PAIR_SETS, {})  # keys -> their Set, found before
    index = known.get(keys)
    if index is None or model.component(index.local_name) is not index or tuple(index) != keys:
        i = 0
        while (index := model.component(f"pair_keys_{i}")) is not None and tuple(index) != keys:
            i += 1
        index = known[keys] = _shared_set(model, f"pair_keys_{i}", keys, "keys of the contact blocks' pairs")
    record_pairs(model, add_complementarity(blk, "pairs", index, pending).values())


def build_rows(blk: pe.Block, rows: ContactRows) -> list:
    """Declare the variables of ``rows`` on ``blk`` (one component per name: scalar, indexed by the
    shared axes Set for axis letters, or by ``range(k)`` for integers), then each force component
    that is not one variable ``c_<component>`` as the Expression ``c_<component>``; return the
    Pyomo variable of each of ``rows.variables`` (for :func:`add_row_conditions`)."""
    by_name: dict[str, list[int]] = {}
    for pos, (name, _, _, _) in enumerate(rows.variables):
        by_name.setdefault(name, []).append(pos)
    found: list = [None] * len(rows.variables)
    # each force component that is not one variable c_<component>: an Expression, declared once
    # the variables stated before it are (ContactRows.force_marks)
    pending = [
        (rows.force_marks.get(comp, len(rows.variables)), comp, terms)
        for comp, terms in rows.force.items()
        if not (len(terms) == 1 and terms[0][0] == 1.0 and rows.local(terms[0][1]) == f"c_{comp}")
    ]
    declared = 0
    for name, positions in by_name.items():
        while pending and pending[0][0] <= declared:
            _, comp, terms = pending.pop(0)
            add_expression(blk, f"c_{comp}", _sum(terms, found, blk))
        _declare(blk, name, positions, rows, found)
        declared = max(declared, positions[-1] + 1)
    for _, comp, terms in pending:
        add_expression(blk, f"c_{comp}", _sum(terms, found, blk))
    return found


def _declare(blk: pe.Block, name: str, positions: list[int], rows: ContactRows, found: list) -> None:
    """Declare the variable component ``name`` holding ``positions`` of ``rows`` on ``blk`` and
    enter its entries in ``found``."""
    _, index, low, high = rows.variables[positions[0]]
    if (
        any(rows.variables[p][2:] != (low, high) for p in positions)
        or high != math.inf
        or low
        not in (
            0.0,
            -math.inf,
        )
    ):
        raise FrictionLawError(f"ContactRows: the entries of variable '{name}' must all be >= 0 or all free")
    nonneg = low == 0.0
    if index is None:
        found[positions[0]] = add_var(blk, name, nonneg=nonneg)
        return
    indices = [rows.variables[p][1] for p in positions]
    if isinstance(index, str):
        comp = add_var(blk, name, axes_set(blk, "".join(indices)), nonneg=nonneg)
    else:
        domain = pe.NonNegativeReals if nonneg else pe.Reals
        blk.add_component(name, pe.Var(range(len(indices)), domain=domain, initialize=0.0))
        comp = blk.component(name)
    for p, i in zip(positions, indices):
        found[p] = comp[i]


def add_row_conditions(blk: pe.Block, rows: ContactRows, found: list) -> None:
    """The named expressions of ``rows``, its pairs (``0 <= var _|_ F >= 0``, or ``F == 0`` with a
    free var) and its cone block, on ``blk`` after :func:`build_rows` (which gave ``found``) and
    the accelerations ``blk.accel``."""
    for name, terms in rows.expressions:
        add_expression(blk, name, _sum(terms, found, blk))
    for key, pos, terms in rows.pairs:
        var, expr = found[pos], _sum(terms, found, blk)
        if rows.variables[pos][2] == 0.0:
            nonneg_pair(blk, key, var, expr)
        else:
            equation(blk, key, expr, var)
    if rows.cone is not None:
        axes = "ntor"[: len(rows.cone)]
        force = {ax: found[p] for ax, p in zip(axes, rows.cone)}
        scale = zip(axes, rows.cone_scale)
        accel = {ax: blk.accel[ax] if s == 1.0 else s * blk.accel[ax] for ax, s in scale}
        add_block(blk, "cone", SOCComplementarity).set(force, accel, rows.mu)


def _sum(terms, found: list, blk):
    """The Pyomo expression of ``terms`` (see :mod:`contactmodel.friction.rows`), written as a law
    would write it: term after term, ``- x`` for a coefficient of -1, a group as its own sum."""
    expr = None
    for coef, what in terms:
        if expr is not None and coef == -1.0:
            expr = expr - _part(what, found, blk)
            continue
        piece = _scaled(coef, what, found, blk)
        expr = piece if expr is None else expr + piece
    return expr


def _scaled(coef: float, what, found: list, blk):
    """``coef * what``: the coefficient on the first factor of a product (``k*x*y``)."""
    if coef == 1.0:
        return _part(what, found, blk)
    if isinstance(what, Product):
        return coef * found[what.a] * found[what.b]
    return coef * _part(what, found, blk)


def _part(what, found: list, blk):
    """The Pyomo expression of one term's ``what`` (without its coefficient)."""
    if isinstance(what, str):
        return blk.accel[what]
    if isinstance(what, Product):
        return found[what.a] * found[what.b]
    if isinstance(what, Square):
        return found[what.pos] ** 2 if what.divisor is None else found[what.pos] ** 2 / what.divisor
    if isinstance(what, Norm):
        squares = sum(found[p] ** 2 for p in what.positions) + what.eps**2
        return pe.sqrt(squares) - what.eps
    if isinstance(what, Named):
        return blk.component(what.name)
    if isinstance(what, tuple):
        return sum(_scaled(c, w, found, blk) for c, w in what)
    return found[what]


# -- the forms' accelerations --------------------------------------------------------------------
def _row_expressions(K: sp.csr_matrix, variables: list, constants, model: pe.Block) -> list:
    """Row r of ``K`` applied to ``variables``, plus ``constants[r]``, for every row: one
    LinearExpression of number * variable terms each, recorded on ``model`` as row r of K (see
    :class:`~contactmodel.mcp.compile.MatrixRecord`), so the compiler reads them without walking
    the terms."""
    record = record_matrix(model, K, variables, constants)
    return [record.expression(r) for r in range(K.shape[0])]


def reduced_accelerations(model: pe.ConcreteModel, assembly: ContactAssembly, T, variables) -> MatrixRecord:
    """a = A c + b, with ``model.b`` (m,) a mutable Param: the rows of A T over the laws'
    ``variables`` y (c = T y) plus b."""
    add_param_vector(model, "b", assembly.b)
    return record_matrix(model, reduced_matrix(assembly, T), variables, model.b)


def sparse_accelerations(model: pe.ConcreteModel, assembly: Assembly, T, variables) -> MatrixRecord:
    """a = G_F nu_dot_F + bias with ``model.nu_dot`` free, each matched with its Newton-Euler row
    M_FF nu_dot_F - G_F^T c + (M_FP nu_dot_P - f_F) = 0; ``model.f`` and ``model.bias`` mutable."""
    asm = assembly
    free = np.flatnonzero(asm.free)
    coords = asm.coordinates
    model.nu_dot = pe.Var([coords[i] for i in free], initialize=0.0)
    nd = [model.nu_dot[coords[i]] for i in free]
    ne_const, bias = sparse_constants(asm)
    add_param_vector(model, "f", ne_const)
    add_param_vector(model, "bias", bias)
    # row k: M_FF nu_dot_F - G_F^T T y + f[k], over the variables (nu_dot_F, y)
    ne_rows = _row_expressions(newton_euler_matrix(asm, T), nd + variables, model.f, model)
    pairs = [complements(expr == 0, var) for expr, var in zip(ne_rows, nd)]
    record_pairs(model, add_complementarity(model, "newton_euler", range(len(free)), pairs).values())
    return record_matrix(model, asm.G[:, free].tocsr(), nd, model.bias)


#: each form's writer of the m contact accelerations a as the rows of a matrix over model
#: variables plus constants (row r: a_r, assembly rows), given c = T y over the laws' variables y
ACCELERATIONS = {Form.REDUCED: reduced_accelerations, Form.SPARSE: sparse_accelerations}


# -- the model ---------------------------------------------------------------------------------
def build_model(
    assembly: ContactAssembly,
    statement: dict[str, ContactRows],
    T: sp.csr_matrix,
    form: Form,
    lazy_rows: bool,
) -> tuple[pe.ConcreteModel, list]:
    """(model, the laws' force variables in T's column order): per contact, the Block's variables
    and force expressions from its rows (:func:`build_rows`); the form writes the accelerations
    (``lazy_rows``: its rows ``accel[axis]`` read from the form's matrix when first read, else
    LinearExpressions now; the same model and MCP); then the rows' pairs
    (:func:`add_row_conditions`)."""
    model = pe.ConcreteModel(name="contact_problem")
    model.contact = pe.Block(list(statement))
    blocks = dict(zip(statement, model.contact.values()))  # the Block's entries, in the order given
    found = {name: build_rows(blocks[name], rows) for name, rows in statement.items()}
    variables = [found[name][p] for name, rows in statement.items() for p in rows.terms[3]]
    accel = ACCELERATIONS[form](model, assembly, T, variables)
    axes: dict[str, pe.Set] = {}  # the Set of each kind of contact's axes ("nto", "ntor")
    for name, rows in statement.items():
        crow = assembly.contact_rows[name]
        blk = blocks[name]
        key = "".join(crow)
        index = axes.get(key) or axes.setdefault(key, axes_set(blk, key))
        if lazy_rows:
            add_matrix_rows(blk, "accel", index, accel, crow)
        else:
            add_expression(blk, "accel", {c: accel.expression(r) for c, r in crow.items()}, index)
        add_row_conditions(blk, rows, found[name])
        declare_pairs(blk)
    return model, variables
