"""Compile a Pyomo complementarity model into a numeric box MCP (the model is never mutated).

Every active ``Complementarity`` in the model becomes one MCP row: its variable side gives x_i
with bounds [lb_i, ub_i], its expression side gives F_i. Accepted pair shapes:

- ``L <= x  _|_  expr >= 0``  (also ``x >= L``; ``expr <= 0`` flips the sign of F)
- ``expr == 0  _|_  x`` with x free (either order)
- ``L <= x <= U  _|_  expr`` (box MCP row)

A :class:`~contactmodel.mcp.soc_block.SOCComplementarity` block (a Coulomb cone complementarity,
declared by ``CoulombCone(mu, form="soc")``) gives three rows: its force variables, free, with
its acceleration expressions as F, recorded in ``MCP.cones``.

Rows are read with Pyomo's standard repn (linear + quadratic parts, evaluated vectorized);
any remaining nonlinear part is differentiated symbolically. Constants that depend on mutable
Params (``model.b``, ``model.f``) are re-read by :meth:`CompiledMCP.update` without recompiling.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

import numpy as np
import scipy.sparse as sp

from contactmodel._pyomo import (
    Complementarity,
    ComplementarityData,
    ConstraintData,
    EqualityExpression,
    InequalityExpression,
    LinearExpression,
    MatrixRowData,
    Modes,
    MonomialTermExpression,
    NegationExpression,
    ParamData,
    RangedExpression,
    SumExpression,
    VarData,
    differentiate,
    evaluate_expression,
    generate_standard_repn,
    identify_variables,
    native_numeric_types,
    pe,
)
from contactmodel.errors import FormulationError
from contactmodel.mcp.compiled import CompiledMCP, Functions, Terms, matrix_rows, stored_value
from contactmodel.mcp.cones import block_size
from contactmodel.mcp.soc_block import SOCComplementarityData
from contactmodel.mcp.types import MCP, CoulombBlocks, QuadraticRows


@dataclass
class _Row:
    constant: object  # Pyomo expression or number (re-evaluated by update)


class _Constants:
    """The rows' constants: plain numbers read once; mutable ParamData (``model.b[r]``, ``model.f[k]``,
    the form's constants) read together in one pass; any other expression evaluated by Pyomo."""

    def __init__(self, rows: list[_Row]) -> None:
        self.fixed = np.zeros(len(rows))
        param_rows, params, expr_rows, exprs = [], [], [], []
        for i, row in enumerate(rows):
            c = row.constant
            if c.__class__ in (int, float):
                self.fixed[i] = c
            elif isinstance(c, ParamData) and c.parent_component().mutable:
                param_rows.append(i)
                params.append(c)
            else:
                expr_rows.append(i)
                exprs.append(c)
        self.param_rows = np.asarray(param_rows, dtype=np.int64)
        self.params = params
        self.expr_rows = expr_rows
        self.exprs = exprs

    def values(self) -> np.ndarray:
        """(n,) the constants at the Params' current values."""
        out = self.fixed.copy()
        if self.params:
            out[self.param_rows] = list(map(stored_value, self.params))
        for i, e in zip(self.expr_rows, self.exprs):
            out[i] = pe.value(e)
        return out


class Structure:
    """What the model's rows are built from, recorded at compile time, so that a later edit of its
    structure is noticed without walking the model: every block's count of declared components
    (adding or deleting one changes it), every indexed Block / Complementarity / Constraint
    component's number of entries (a new index), and every entry's active flag ((de)activation).

    :meth:`changed` reads those numbers from the recorded objects only (about 1 ms for 1000
    contacts instead of ~0.1 s for a walk). Pyomo keeps them in private attributes (``_decl``,
    ``_decl_order``, ``_data``, ``_active``); tests/mcp/test_compile.py checks every kind of edit.
    The lists are those of Pyomo's ``block_data_objects`` and ``component_objects`` (every block,
    active or not), made by :func:`_walk` (tests/mcp/test_walk.py compares the two).
    """

    _CTYPES = (pe.Block, Complementarity, pe.Constraint)

    def __init__(self, model: pe.Block, walk: _Walk | None = None) -> None:
        walk = _walk(model) if walk is None else walk
        # each list in order of the objects' addresses: in the walk's order (half its steps go
        # backwards in memory with 1000 SOC contacts) :meth:`changed` costs 1.5x, the objects being
        # out of the cache after a solve (1.1 -> 0.7-0.8 ms of CPU for 1000 SOC contacts)
        self.blocks = sorted(walk.blocks, key=id)
        # an unindexed component always holds its one entry (Pyomo refuses to clear it)
        self.components = sorted((comp for comp in walk.components if comp.is_indexed()), key=id)
        self.entries = sorted(walk.entries, key=id)
        self.stamp = self._read()

    def _read(self) -> tuple:
        return (
            list(map(len, map(_DECL, self.blocks))),
            list(map(len, map(_DECL_ORDER, self.blocks))),
            list(map(len, map(_DATA, self.components))),
            list(map(_ACTIVE, self.entries)),
        )

    def changed(self) -> bool:
        """True when a component was added, deleted, (de)activated or given new entries since."""
        return self._read() != self.stamp


_DECL, _DECL_ORDER = attrgetter("_decl"), attrgetter("_decl_order")
_DATA, _ACTIVE = attrgetter("_data"), attrgetter("_active")


def _is_var(expr) -> bool:
    return isinstance(expr, VarData) and not expr.fixed


def split_pair(cdata):
    """(var, lb, ub, F) for one complementarity condition."""
    a, b = cdata._args
    for first, second in ((a, b), (b, a)):
        if isinstance(first, EqualityExpression) and _is_var(second):
            lhs, rhs = first.args
            return second, -np.inf, np.inf, _minus(lhs, rhs)
        if isinstance(first, RangedExpression) and _is_var(first.args[1]):
            lo, var, hi = first.args
            return var, pe.value(lo), pe.value(hi), second
    for first, second in ((a, b), (b, a)):
        if isinstance(first, InequalityExpression) and isinstance(second, InequalityExpression):
            lhs, rhs = first.args
            if _is_var(rhs) and not _involves_vars(lhs):  # L <= x
                slhs, srhs = second.args
                return rhs, _number(lhs), np.inf, _minus(srhs, slhs)  # F = rhs - lhs >= 0
    raise FormulationError(
        f"complementarity '{cdata.name}' has an unsupported shape; use 'x >= L _|_ expr >= 0', "
        "'expr == 0 _|_ x' (x free) or 'L <= x <= U _|_ expr'"
    )


def _minus(a, b):
    """a - b, without a new expression when b is the number 0 (as in ``expr >= 0``)."""
    return a if b.__class__ in native_numeric_types and b == 0 else a - b


#: name of a dict a model may carry: id(ComplementarityData) -> (that entry, its ``_args``, its
#: (var, lb, ub, F)), recorded by :func:`record_pairs` when the entry was made, so the compiler
#: need not split it again; used only while the entry holds the same arguments and its variable
#: is not fixed (any other entry is split as usual).
PAIR_SPLITS = "_contactmodel_pair_splits"


def record_pairs(model: pe.Block, entries) -> None:
    """Record the split of each Complementarity entry just made from ``complements(var >= L, expr
    >= 0)`` or ``complements(expr == 0, var)`` (a number L, an unfixed variable var), as
    :func:`split_pair` would make it; entries of any other shape are not recorded."""
    known = model.__dict__.setdefault(PAIR_SPLITS, {})
    numbers = native_numeric_types
    for cdata in entries:
        args = cdata._args
        a, b = args
        if a.__class__ is InequalityExpression and b.__class__ is InequalityExpression:
            low, var = a._args_
            if low.__class__ not in numbers or not _is_var(var):
                continue
            blow, bhigh = b._args_
            split = (var, low, np.inf, bhigh if blow.__class__ in numbers and blow == 0 else bhigh - blow)
        elif a.__class__ is EqualityExpression and _is_var(b):
            split = (b, -np.inf, np.inf, _minus(*a._args_))
        else:
            continue
        known[id(cdata)] = (cdata, args, split)


def _cone_rows(blk: SOCComplementarityData) -> list:
    """(var, -inf, +inf, accel) for the n, t, o (r) rows of one cone block."""
    rows = []
    force, accel = blk.force, blk.accel
    for ax in force:
        var = _expr(force[ax])
        if not _is_var(var) or var.bounds != (None, None):
            raise FormulationError(
                f"cone block '{blk.name}': force[{ax}] must be one free, unfixed variable without "
                "bounds (the cone itself bounds it); declare it with domain=Reals"
            )
        rows.append((var, -np.inf, np.inf, _expr(accel[ax])))
    return rows


def _expr(entry):
    """``entry.expr`` of an Expression entry, read from its arguments when they hold a Pyomo
    object (the property's chain costs more than the cone rows' other work)."""
    arg = entry._args_[0]
    return entry.expr if arg is None or arg.__class__ in native_numeric_types else arg


def _number(c) -> float:
    return c if c.__class__ in native_numeric_types else pe.value(c)


def _involves_vars(expr) -> bool:
    if expr.__class__ in native_numeric_types:  # the common bound, 0 in ``x >= 0``: no walk
        return False
    return any(True for _ in identify_variables(expr, include_fixed=False))


@dataclass
class _Walk:
    """What one pass over a model finds: every block (the model first, then depth first in
    declaration order, active or not, as Pyomo's ``block_data_objects(active=None)``), every
    Block / Complementarity / Constraint component of those blocks and their entries (as
    ``component_objects(..., active=None)``), and the active entries of those kinds under active
    blocks, in the order of Pyomo's ``component_data_objects((Complementarity, Constraint, Block),
    active=True)``: the candidates for MCP rows."""

    blocks: list
    components: list
    entries: list
    rows: list


_WALKED = frozenset((pe.Block, Complementarity, pe.Constraint))  # the ctypes a walk reports


def _walk(model: pe.Block) -> _Walk:
    """:class:`_Walk` of ``model``, reading each block's declarations (``_decl_order``) directly:
    Pyomo's generic walks cost ~0.1 s at 1000 contacts, this one a few ms. An entry reached twice
    (through a Reference) is kept once, as Pyomo's walks do."""
    walk = _Walk([], [], [], [])
    seen_blocks: set[int] = set()
    seen_rows: set[int] = set()
    stack = [(model, model.active)]
    while stack:
        blk, active = stack.pop()
        if id(blk) in seen_blocks:
            continue
        seen_blocks.add(id(blk))
        walk.blocks.append(blk)
        children = []
        for comp, _ in blk._decl_order:
            if comp is None or (ctype := comp._ctype) not in _WALKED:  # ``ctype``, without the property
                continue
            walk.components.append(comp)
            data = list(comp.values())
            walk.entries.extend(data)
            on = active and comp.active
            if on:
                for d in data:
                    if d.active and id(d) not in seen_rows:
                        seen_rows.add(id(d))
                        walk.rows.append(d)
            if ctype is pe.Block:
                children.extend((d, on and d.active) for d in data)
        stack.extend(reversed(children))  # depth first, in declaration order
    return walk


def compile_model(model: pe.Block) -> CompiledMCP:
    """Compile every active Complementarity of ``model`` into a :class:`CompiledMCP`."""
    walk = _walk(model)
    structure = Structure(model, walk)
    pairs, cones, cone_mu, pair_rows = _pairs(model, walk.rows)
    variables = [p[0] for p in pairs]
    lb = np.array([p[1] for p in pairs], dtype=float)
    ub = np.array([p[2] for p in pairs], dtype=float)
    root = model.model()
    known = getattr(root, LINEAR_ROWS, None) or {}
    matrices = getattr(root, MATRIX_ROWS, None)
    rows, terms = _read_rows(pairs, _column_finder(variables), known, matrices)
    compiled = CompiledMCP(
        mcp=None,
        variables=variables,
        constants=_Constants(rows).values,
        _q_linear=np.zeros(len(rows)),
        structure=structure,
    )
    compiled.cone_mu = cone_mu
    compiled.pair_rows = pair_rows
    q = compiled._q_linear
    q[:] = compiled.constants()
    functions = compiled.functions = Functions(terms, q)
    x0 = np.clip(compiled.values(), lb, ub)
    compiled.mcp = MCP(
        F=functions.F,
        J=functions.J,
        lb=lb,
        ub=ub,
        x0=x0,
        names=_Names(variables),
        M=terms.L if functions.affine else None,
        q=q if functions.affine else None,
        hess=None if functions.affine else functions.hess,
        cones=cones,
        quadratic=None if functions.affine or terms.nonlinear else QuadraticRows(functions.quadratic_parts),
    )
    return compiled


def _refuse_plain_constraint(con) -> None:
    """An MCP has no room for a row without a matched variable."""
    raise FormulationError(
        f"constraint '{con.name}' is not a complementarity condition: an MCP needs every row "
        "matched with a variable; write it as Complementarity(expr=complements(expr == 0, x)) "
        "with a free variable x of your own, or as 'x >= 0 _|_ expr >= 0'"
    )


def _pairs(model: pe.Block, found: list) -> tuple[list[tuple], CoulombBlocks | None, list, dict[int, int]]:
    """(var, lb, ub, F expression) of every row, in MCP order: the Complementarity rows, then
    three (or four) per cone block; the cone blocks' positions and coefficients (None without
    any); their mu Params (re-read by :meth:`CompiledMCP.update`); and id(ComplementarityData) -> row.
    ``found``: the walk's candidate rows (:attr:`_Walk.rows`): pairs, cone blocks, other blocks
    and any plain constraint (refused)."""
    pairs = []
    cone_list = []
    pair_rows: dict[int, int] = {}
    known = getattr(model.model(), PAIR_SPLITS, None) or {}
    for comp in found:
        if isinstance(comp, ComplementarityData):
            hit = known.get(id(comp))
            if hit is not None and hit[0] is comp and hit[1] is comp._args and not hit[2][0].fixed:
                var, lb, ub, expr = hit[2]
            else:
                var, lb, ub, expr = split_pair(comp)
            vlb, vub = var.bounds
            if vlb is not None:
                lb = max(lb, vlb)
            if vub is not None:
                ub = min(ub, vub)
            pair_rows[id(comp)] = len(pairs)
            pairs.append((var, lb, ub, expr))
        elif isinstance(comp, SOCComplementarityData):
            cone_list.append(comp)
        elif isinstance(comp, ConstraintData):
            _refuse_plain_constraint(comp)
    cone_index, cone_mu = [], []
    for blk in cone_list:
        cone_rows = _cone_rows(blk)
        cone_index.append(range(len(pairs), len(pairs) + len(cone_rows)))
        cone_mu.append(blk.mu)
        pairs.extend(cone_rows)
    if not cone_mu:
        return pairs, None, [], pair_rows
    mu = [pe.value(m) for m in cone_mu]
    size = block_size(len(rows) for rows in cone_index)
    index = np.array([list(rows) for rows in cone_index], dtype=np.int64).reshape(-1, size)
    blocks = CoulombBlocks(index, mu)
    return pairs, blocks, cone_mu, pair_rows


def _column_finder(variables: list):
    """The MCP column of a Pyomo variable, or a FormulationError for an unmatched one."""
    position = {id(v): i for i, v in enumerate(variables)}
    if len(position) != len(variables):
        raise FormulationError("a variable is matched with more than one complementarity row")

    def col(var) -> int:
        try:
            return position[id(var)]
        except KeyError:
            raise FormulationError(
                f"variable '{var.name}' appears in a row but is matched with no complementarity "
                "condition: fix it or pair it with an equation"
            ) from None

    col.position = position  # id -> column, for reading many at once
    return col


class _Matrices:
    """The rows of recorded matrices (:data:`MATRIX_ROWS`) met among the MCP rows, gathered to be
    read at once: :meth:`take` each row, then :meth:`add_to`."""

    def __init__(self, records: list[MatrixRecord], position: dict[int, int]) -> None:
        self.rows: dict[int, tuple] = {}  # id(expression) -> (expression, record number, K row)
        self.number: dict[int, int] = {}  # id(record) -> record number
        for k, record in enumerate(records):
            self.number[id(record)] = k
            for key, (expr, r) in record.rows.items():
                self.rows[key] = (expr, k, r)
        self.records = records
        self.position = position
        self.columns: dict[int, np.ndarray | None] = {}  # record -> MCP column of each K column
        self.taken: dict[int, tuple[list[int], list[int]]] = {}  # record -> (MCP rows, K rows)
        self.constant = None  # the constant of the row last taken

    def _find(self, expr) -> tuple[int, int] | None:
        """(record number, K row) of an F that is a recorded row: an unchanged
        :class:`~contactmodel._pyomo.MatrixRowData` (built or not) or an expression built from a
        record, directly or through named Expressions; None otherwise."""
        e = expr
        for _ in range(4):
            if e.__class__ is MatrixRowData and e._source is not None:
                record, r = e._source
                k = self.number.get(id(record))
                if k is not None and self.records[k] is record:
                    return k, r
            hit = self.rows.get(id(e))
            if hit is not None and hit[0] is e:
                return hit[1], hit[2]
            if e.__class__ in native_numeric_types or not e.is_named_expression_type():
                return None
            e = e.expr
        return None

    def take(self, i: int, expr) -> bool:
        """Take MCP row i when its F ``expr`` is a recorded row (see :meth:`_find`); its constant
        is then :attr:`constant`."""
        if not self.records:
            return False
        found = self._find(expr)
        if found is None:
            return False
        k, r = found
        record = self.records[k]
        if k not in self.columns:
            ids = map(id, record.variables)
            cols = np.fromiter((self.position.get(j, -1) for j in ids), dtype=np.int64)
            self.columns[k] = None if (cols < 0).any() else cols  # a variable that is no column
        if self.columns[k] is None:
            return False
        mine, theirs = self.taken.setdefault(k, ([], []))
        mine.append(i)
        theirs.append(r)
        self.constant = record.constants[r]
        return True

    def add_to(self, L: sp.csr_matrix) -> sp.csr_matrix:
        """``L`` (n, n) plus the rows taken, each in its MCP row and columns (CSR built directly:
        the rows were taken in increasing MCP order)."""
        n = L.shape[0]
        for k, (mine, theirs) in self.taken.items():
            L = L + matrix_rows(self.records[k].K, self.columns[k], mine, theirs, n)
        return L


def _read_rows(
    pairs: list[tuple], col, known: dict, matrices: list | None = None
) -> tuple[list[_Row], Terms]:
    """Each row's constant (kept symbolic, for :meth:`CompiledMCP.update`) and its terms
    (``known``: the model's recorded linear expressions, see :data:`LINEAR_ROWS`; ``matrices``
    the recorded matrices, see :data:`MATRIX_ROWS`)."""
    n = len(pairs)
    li, lj, lv = [], [], []
    qi, qa, qb, qv = [], [], [], []
    nonlinear = []
    rows = []
    position = col.position
    matrices = _Matrices(matrices or [], position)
    for i, (_var, _lb, _ub, expr) in enumerate(pairs):
        if matrices.take(i, expr):
            rows.append(_Row(matrices.constant))
            continue
        linear = _linear_terms(expr, known)
        if linear is not None:  # the common case, read without the general repn
            constant, coefs, lvars = linear
            try:  # every column is an unfixed variable (see _pairs)
                cols = list(map(position.__getitem__, map(id, lvars)))
            except KeyError:  # a fixed variable is a constant, which the general repn reads
                cols = None if any(map(_FIXED, lvars)) else [col(v) for v in lvars]  # or names it
            if cols is not None:
                rows.append(_Row(constant))
                li.extend([i] * len(cols))
                lj.extend(cols)
                lv.extend(coefs)
                continue
        repn = generate_standard_repn(expr, compute_values=False, quadratic=True)
        rows.append(_Row(repn.constant))
        if repn.linear_vars:
            li.extend([i] * len(repn.linear_vars))
            lj.extend([col(v) for v in repn.linear_vars])
            lv.extend([_number(c) for c in repn.linear_coefs])
        if repn.quadratic_vars:
            qi.extend([i] * len(repn.quadratic_vars))
            qa.extend([col(v1) for v1, _ in repn.quadratic_vars])
            qb.extend([col(v2) for _, v2 in repn.quadratic_vars])
            qv.extend([_number(c) for c in repn.quadratic_coefs])
        if repn.nonlinear_expr is not None:
            nl_vars = [col(v) for v in repn.nonlinear_vars]
            nonlinear.append(_Nonlinear(i, repn.nonlinear_expr, list(repn.nonlinear_vars), nl_vars))
    terms = Terms(
        L=matrices.add_to(sp.csr_matrix((lv, (li, lj)), shape=(n, n))).tocsr(),
        qi=np.asarray(qi).astype(int),
        qa=np.asarray(qa).astype(int),
        qb=np.asarray(qb).astype(int),
        qv=np.asarray(qv).astype(float),
        nonlinear=nonlinear,
    )
    return rows, terms


#: name of a dict a model may carry: id(LinearExpression) -> (that expression, its coefficients,
#: its variables, its constant), for rows built from arrays (the formulation's accelerations and
#: Newton-Euler rows): read from the lists instead of term by term. An entry is used only for the
#: very object it names (the entry holds it, so its id is not reused) and only while none of its
#: variables is fixed; an expression replaced in the model is simply not found.
LINEAR_ROWS = "_contactmodel_linear_rows"

_FIXED = attrgetter("fixed")

#: name of a list a model may carry: a :class:`MatrixRecord` per sparse matrix K whose rows the
#: formulation wrote as LinearExpressions of K's variables (built at once, or when first read:
#: :class:`~contactmodel._pyomo.MatrixRowData`). A pair whose F is such a row (directly or through
#: named Expressions) is read from K with the others of its matrix, vectorized (a dense reduced
#: form has m^2 terms: 400 contacts, 1.44 million); under the same conditions as
#: :data:`LINEAR_ROWS`, and only while every variable of K is a column of the MCP.
MATRIX_ROWS = "_contactmodel_matrix_rows"


class MatrixRecord:
    """Row r of ``K`` (m, n) CSR over ``variables`` (n Pyomo variables, K's columns) plus
    ``constants[r]`` (a Pyomo Param entry or number; e.g. ``model.b``): the linear expression
    sum_j K[r, j] variables[j] + constants[r]. ``rows``: id(expression) -> (expression, r) of each
    row built (:meth:`expression`), which is also entered in the model's :data:`LINEAR_ROWS`."""

    def __init__(self, model: pe.Block, K: sp.csr_matrix, variables: list, constants) -> None:
        self.K = K
        self.variables = variables
        self.constants = constants
        self.rows: dict[int, tuple] = {}
        self._known: dict = model.__dict__.setdefault(LINEAR_ROWS, {})
        self._ptr: list[int] | None = None  # K.indptr as a list

    def terms(self, r: int) -> tuple[list[float], list, object]:
        """(coefficients, variables, constant) of row r, the terms in K's column order (read from
        K's arrays row by row: building one row does not convert the whole matrix)."""
        if self._ptr is None:
            self._ptr = self.K.indptr.tolist()
        lo, hi = self._ptr[r], self._ptr[r + 1]
        variables = self.variables
        K = self.K
        return K.data[lo:hi].tolist(), [variables[j] for j in K.indices[lo:hi].tolist()], self.constants[r]

    def expression(self, r: int) -> LinearExpression:
        """A new LinearExpression of row r: number * variable terms in K's column order, then
        the constant; recorded (see the class docstring)."""
        coefs, row_vars, constant = self.terms(r)
        terms = [MonomialTermExpression(t) for t in zip(coefs, row_vars)]
        terms.append(constant)
        expr = LinearExpression(terms)
        self._known[id(expr)] = (expr, coefs, row_vars, constant)
        self.rows[id(expr)] = (expr, r)
        return expr


def record_matrix(model: pe.Block, K: sp.csr_matrix, variables: list, constants) -> MatrixRecord:
    """The record of the rows of ``K`` over ``variables`` plus ``constants`` on ``model`` (see
    :data:`MATRIX_ROWS`); their expressions are made by :meth:`MatrixRecord.expression`."""
    record = MatrixRecord(model, K, variables, constants)
    model.__dict__.setdefault(MATRIX_ROWS, []).append(record)
    return record


def _linear_terms(expr, known: dict | None = None) -> tuple[object, list[float], list] | None:
    """(constant, coefficients, variables) of a row that is a sum of numbers, Params (constants
    kept symbolic, for :meth:`CompiledMCP.update`), variables and number * variable terms,
    nested through sums, negations and named Expressions; None for any other row (it is read by
    Pyomo's standard repn). Much faster than the general repn on the rows the laws write.
    ``known``: recorded linear expressions (see :data:`LINEAR_ROWS`); a matrix row not yet built
    (:class:`~contactmodel._pyomo.MatrixRowData`) is read from its record. Variables are not asked
    whether they are fixed: the caller finds each in its columns, all unfixed, and reads a row
    with any other variable, fixed, by the general repn (a fixed variable is a constant)."""
    coefs: list[float] = []
    lvars: list = []
    number = 0.0
    symbolic: list = []  # (scale, constant Pyomo object)
    stack = [(1.0, expr)]
    kinds = _KINDS
    while stack:
        scale, e = stack.pop()
        kind = kinds.get(e.__class__) or _kind(e)
        if kind is _SUM:
            if known and (hit := known.get(id(e))) is not None and hit[0] is e:
                _, hcoefs, hvars, hconst = hit
                coefs.extend(hcoefs if scale == 1.0 else [scale * c for c in hcoefs])
                lvars.extend(hvars)
                stack.append((scale, hconst))
                continue
            for a in e.args:
                if a.__class__ is MonomialTermExpression:
                    coef, var = a._args_
                    if coef.__class__ not in native_numeric_types:
                        return None
                    coefs.append(scale * coef)
                    lvars.append(var)
                else:
                    stack.append((scale, a))
        elif kind is _VAR:
            coefs.append(scale)
            lvars.append(e)
        elif kind is _NAMED:
            if e.__class__ is MatrixRowData and (source := e.pending()) is not None:
                hcoefs, hvars, hconst = source[0].terms(source[1])
                coefs.extend(hcoefs if scale == 1.0 else [scale * c for c in hcoefs])
                lvars.extend(hvars)
                stack.append((scale, hconst))
                continue
            stack.append((scale, e.expr))
        elif kind is _NUMBER:
            number += scale * e
        elif kind is _MONOMIAL:
            coef, var = e._args_
            if coef.__class__ not in native_numeric_types:
                return None
            coefs.append(scale * coef)
            lvars.append(var)
        elif kind is _NEGATION:
            stack.append((-scale, e.args[0]))
        elif kind is _CONSTANT:
            symbolic.append((scale, e))
        else:
            return None
    if not symbolic:
        constant = number
    elif len(symbolic) == 1 and number == 0.0 and symbolic[0][0] == 1.0:
        constant = symbolic[0][1]
    else:
        constant = number + sum(k * c for k, c in symbolic)
    return constant, coefs, lvars


# what _linear_terms does with a node, by its class (decided once per class)
_NUMBER, _SUM, _MONOMIAL, _NEGATION, _NAMED, _VAR, _CONSTANT, _OTHER = range(1, 9)  # all true
_KINDS: dict[type, int] = {}


def _kind(e) -> int:
    cls = e.__class__
    if cls in native_numeric_types:
        kind = _NUMBER
    elif cls is LinearExpression or cls is SumExpression:
        kind = _SUM
    elif cls is MonomialTermExpression:
        kind = _MONOMIAL
    elif cls is NegationExpression:
        kind = _NEGATION
    elif e.is_named_expression_type():
        kind = _NAMED
    elif e.is_variable_type():
        kind = _VAR
    elif not e.is_potentially_variable():
        if not isinstance(e, ParamData):
            return _CONSTANT  # decided for this object only
        kind = _CONSTANT  # a Param entry is constant whatever its mutability
    else:
        kind = _OTHER
    _KINDS[cls] = kind
    return kind


class _Names(Sequence):
    """MCP index names ("contact[floor].c_n"), generated on first use (Pyomo names are slow)."""

    def __init__(self, variables: list):
        self._variables = variables
        self._names: list[str] | None = None

    def __getitem__(self, i):
        if self._names is None:
            self._names = [v.name for v in self._variables]
        return self._names[i]

    def __len__(self) -> int:
        return len(self._variables)


class _Nonlinear:
    """A nonlinear remainder of one row, with symbolic first and second derivatives."""

    def __init__(self, row: int, expr, pyomo_vars: list, cols: list[int]):
        self.row = row
        self.expr = expr
        self.vars = pyomo_vars
        self.cols = cols
        grads = differentiate(expr, wrt_list=pyomo_vars, mode=Modes.reverse_symbolic)
        self.grads = grads
        self.hess_exprs = [differentiate(g, wrt_list=pyomo_vars, mode=Modes.reverse_symbolic) for g in grads]

    def _set(self, x: np.ndarray) -> None:
        for v, c in zip(self.vars, self.cols):
            v.set_value(float(x[c]), skip_validation=True)

    def value(self, x: np.ndarray) -> float:
        self._set(x)
        return _real(self.expr)

    def gradient(self, x: np.ndarray):
        self._set(x)
        return self.cols, np.array([_real(g) for g in self.grads], dtype=float)

    def hessian(self, x: np.ndarray):
        self._set(x)
        r, c, v = [], [], []
        for a, row in enumerate(self.hess_exprs):
            for b, h in enumerate(row):
                r.append(self.cols[a])
                c.append(self.cols[b])
                v.append(_real(h))
        return np.array(r, dtype=int), np.array(c, dtype=int), np.array(v, dtype=float)


def _real(expr) -> float:
    """The value of ``expr``, NaN outside its domain (``0 ** -1``, ``log(-1)``; a fractional power
    of a negative number, complex in Python): a solver then treats the point as one where F is not
    finite (newton's line search steps back) instead of stopping with Pyomo's error."""
    if expr.__class__ in native_numeric_types:
        return expr
    try:
        v = evaluate_expression(expr)  # pe.value would also log the error
    except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError):
        return math.nan
    return v if v.__class__ is not complex else math.nan
