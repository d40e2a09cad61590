"""The MCP of a reduced-form contact problem compiled from its arrays, without its Pyomo model.

A problem made by :func:`~contactmodel.formulation.formulate_from_matrices` whose laws all state
their rows (:meth:`~contactmodel.friction.base.FrictionLaw.rows`) does not
build its model until something reads it (``problem.model``, a block, its variables). Until then
:meth:`Problem.compile <contactmodel.formulation.Problem.compile>` makes the MCP here, from A, b,
the contacts' rows and the laws' :class:`~contactmodel.friction.rows.ContactRows`: the very MCP the
compiler makes of the built model (names, variable order, bounds, pair rows, cone blocks, M and q
bit for bit; tests/test_direct_route.py compares the two for every law with the direct route).

Every row is an acceleration a_r = (K c)_r + b_r with K = A T (T: c = T y over the laws' force
variables y, see :func:`reduced_matrix`), read from K as the compiler reads the recorded rows of
the built model (:func:`~contactmodel.mcp.compile.matrix_rows`). MCP order is the compiler's:
every pair, contact after contact in the order each law states them, then the three rows of each
cone block. The Pyomo variables behind the columns (:attr:`DirectMCP.variables`) are the built
model's, found when first read (which builds the model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
from pyomo.core.base.component_namer import index_repr

from contactmodel.mcp.compile import CompiledMCP, Functions, Structure, Terms, matrix_rows, stored_value
from contactmodel.mcp.types import MCP, CoulombBlocks
from contactmodel.modes import Pair

if TYPE_CHECKING:  # annotations only: formulation imports this module
    from contactmodel.assembly import ContactAssembly
    from contactmodel.formulation import Problem
    from contactmodel.friction.base import ContactContext, FrictionLaw
    from contactmodel.friction.rows import ContactRows


def contact_rows(
    laws: dict[str, FrictionLaw], contexts: dict[str, ContactContext]
) -> dict[str, ContactRows] | None:
    """Each contact's :class:`~contactmodel.friction.rows.ContactRows`, or None when some law
    states no rows at its contact (the model is then built)."""
    out = {}
    for name, law in laws.items():
        rows = law.rows(contexts[name])
        if rows is None:
            return None
        out[name] = rows
    return out


def force_matrix(
    assembly: ContactAssembly, direct: dict[str, ContactRows]
) -> tuple[list[int], sp.csr_matrix]:
    """(starts, T): the first of each contact's force variables among T's columns (each
    contact's own, in order of first use: :attr:`ContactRows.terms`) and T (m, columns) with
    c = T y: what :func:`~contactmodel.formulation._force_matrix` makes of the built blocks' force
    maps (the same entries in the same order)."""
    starts: list[int] = []
    ti, tj, tv = [], [], []
    contact_rows = assembly.contact_rows
    base = 0
    for name, rows in direct.items():
        crow = contact_rows[name]
        comps, ranks, coefs, positions = rows.terms
        starts.append(base)
        ti.extend([crow[c] for c in comps])
        tj.extend([base + r for r in ranks])
        tv.extend(coefs)
        base += len(positions)
    return starts, _csr(
        np.array(ti, dtype=np.int64), np.array(tj, dtype=np.int64), np.array(tv), (assembly.m, base)
    )


def _csr(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """``sp.csr_matrix((values, (rows, cols)), shape)`` (canonical, int32 indices when they fit),
    built without SciPy's COO matrix: entries sorted by row (stably, as SciPy's conversion keeps
    them), then each row's columns sorted and duplicates summed as SciPy does."""
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=indptr[1:])
    out = sp.csr_matrix((values[order], cols[order], indptr), shape=shape)
    out.sum_duplicates()
    return out


def reduced_matrix(assembly: ContactAssembly, T: sp.csr_matrix) -> sp.csr_matrix:
    """K = A T (m, len(y)) CSR without stored zeros: row r gives a_r - b_r over the force
    variables y (c = T y); the reduced form's acceleration rows."""
    K = (assembly.A_sparse @ T).tocsr()
    K.eliminate_zeros()
    return K


class KeyNames(Sequence):
    """The Pyomo names of variables given by key (contact name, component name, index or None):
    ``contact[NAME].COMPONENT[INDEX]`` with NAME and INDEX written as Pyomo writes an index; made
    when first read."""

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        self._keys = keys
        self._names: list[str] | None = None

    def __getitem__(self, i):
        if self._names is None:
            self._names = [
                f"contact{index_repr(name)}.{comp}{'' if index is None else index_repr(index)}"
                for name, comp, index in self._keys
            ]
        return self._names[i]

    def __len__(self) -> int:
        return len(self._keys)


class ModelVariables(Sequence):
    """The built model's variables of keys (contact name, component name, index or None), in order:
    reading one
    builds the problem's model (once) and finds them all."""

    def __init__(self, problem: Problem, keys: list[tuple[str, str]]) -> None:
        self._problem = problem
        self._keys = keys
        self._vars: list | None = None

    def _resolve(self) -> list:
        if self._vars is None:
            model = self._problem.model
            self._vars = [model.contact[name].component(comp)[index] for name, comp, index in self._keys]
        return self._vars

    def __getitem__(self, i):
        return self._resolve()[i]

    def __iter__(self):
        return iter(self._resolve())

    def __len__(self) -> int:
        return len(self._keys)


@dataclass
class DirectMCP(CompiledMCP):
    """A :class:`~contactmodel.mcp.compile.CompiledMCP` made without the model (see the module
    docstring). ``rows_b``: the rows of b each MCP row reads (an index array, or the (n, m) matrix
    of the rows' acceleration coefficients, see :func:`_linear_part`); ``cone_names`` the contact of
    each cone block (its law's mu re-read when the problem's laws are replaced). While the model
    is not built, a point loaded (:meth:`load`) is kept in ``point`` and written into the model
    when it is built; afterwards it reads and writes the model's variables as any compilation."""

    problem: Problem | None = field(default=None, repr=False)
    rows_b: np.ndarray | sp.csr_matrix | None = field(default=None, repr=False)
    cone_names: list[str] = field(default_factory=list, repr=False)
    point: np.ndarray | None = field(default=None, repr=False)
    b_params: list = field(default_factory=list, repr=False)  # the built model's b entries
    _seen: tuple = field(default=(None, None), repr=False)  # (assembly, laws) last read

    def __post_init__(self) -> None:
        """No Pyomo rows: the constants are b's entries (see :meth:`update`)."""

    def update(self) -> None:
        """Re-read b (of the problem's assembly) and the cone blocks' mu (of its laws) in place,
        when the problem was given a new assembly or laws since the last read."""
        problem = self.problem
        asm, laws = problem.assembly, problem.laws
        if self.b_params:  # the model is built: its b, as a compilation of it reads it
            self._q_linear[:] = _constants(self.rows_b, np.fromiter(map(stored_value, self.b_params), float))
        elif asm is not self._seen[0]:
            self._q_linear[:] = _constants(self.rows_b, asm.b)
        if self.cone_mu:  # the model is built: its cone blocks' mu Params
            self.mcp.cones.mu[:] = list(map(stored_value, self.cone_mu))
        elif self.cone_names and laws is not self._seen[1]:  # update(mu=) replaced some laws
            direct, ctx = problem._direct, problem.contexts
            self.mcp.cones.mu[:] = [
                (laws[name].rows(ctx[name]) if direct is None else direct[name]).mu
                for name in self.cone_names
            ]
        self._seen = (asm, laws)

    def adopt_model(self, model) -> None:
        """The problem's model was built: write the point loaded before into it, and from now on
        notice edits of its structure (:class:`~contactmodel.mcp.compile.Structure`) and read its
        cone blocks' mu Params, as a compilation of the model does."""
        if self.point is not None:
            self.load(self.point)
        self.structure = Structure(model)
        self.cone_mu = [model.contact[name].cone.mu for name in self.cone_names]
        self.b_params = list(model.b.values())
        self.pair_rows = {id(model.contact[p.contact].pairs[p.key]): p.index for p in self.derived["pairs"]}

    def values(self) -> np.ndarray:
        """The model's values in MCP order once it is built; before, the point last loaded (0
        where none was)."""
        if self.problem.built:
            return super().values()
        return np.zeros(self.mcp.n) if self.point is None else self.point.copy()

    def load(self, x: np.ndarray) -> None:
        """Write x into the model's variables once it is built; before, keep it for the build."""
        if self.problem.built:
            super().load(x)
        else:
            self.point = np.array(x, dtype=float)


def _identity(T: sp.csr_matrix) -> bool:
    """Whether T (n, n) is the identity matrix, stored as such (one 1.0 a row, on the diagonal)."""
    n = T.shape[0]
    return (
        T.nnz == n
        and np.array_equal(T.indptr, np.arange(n + 1))
        and np.array_equal(T.indices, np.arange(n))
        and bool((T.data == 1.0).all())
    )


def compile_direct(
    problem: Problem, direct: dict[str, ContactRows], starts: list[int], T: sp.csr_matrix
) -> DirectMCP | None:
    """The MCP of ``problem`` from its arrays (see the module docstring): ``direct`` each contact's
    rows, ``starts`` the first of each contact's force variables among T's columns (c = T y, see
    :func:`force_matrix`). None when a force variable is matched with no row (the compiler of the
    built model then names it)."""
    asm = problem.assembly
    contact_rows = asm.contact_rows
    names, lb, ub, tcols = [], [], [], []  # per MCP row; tcols: its T column or -1
    pairs = []  # (contact, key, MCP row)
    row_terms = []  # (MCP row, contact's rows, its accel and variable terms, where its variables are)
    cones = []  # (contact, its cone rows, its first T column)
    where: dict[str, dict[int, int]] = {}  # contact -> its variables' MCP columns
    for (name, rows), start in zip(direct.items(), starts):
        (keys, pvars, lows, highs, flat, pranks), cone_rows = rows.rows
        mine = where[name] = {}
        if cone_rows[0]:
            cones.append((name, rows, cone_rows, start))
        crow = contact_rows[name]
        for k, key in enumerate(keys):
            i = len(names)
            pairs.append((name, key, i))
            mine[pvars[k]] = i
            row_terms.append((i, crow, flat[k], mine))
            names.append((name, *rows.variables[pvars[k]][:2]))
            tcols.append(start + pranks[k] if pranks[k] >= 0 else -1)
        lb.extend(lows)
        ub.extend(highs)
    cone_index, cone_mu, cone_names = [], [], []
    for name, rows, (cvars, caxes, cranks), start in cones:
        crow, mine = contact_rows[name], where[name]
        cone_index.append(range(len(names), len(names) + 3))
        cone_mu.append(rows.mu)
        cone_names.append(name)
        for pos, axis, r in zip(cvars, caxes, cranks):
            mine[pos] = len(names)
            row_terms.append((len(names), crow, ([(1.0, axis)], [], []), mine))
            names.append((name, *rows.variables[pos][:2]))
            tcols.append(start + r if r >= 0 else -1)
    n = len(names)
    lb.extend([-np.inf] * (n - len(lb)))
    ub.extend([np.inf] * (n - len(ub)))
    to_t = np.asarray(tcols, dtype=np.int64)
    matched = to_t >= 0
    cols = np.full(T.shape[1], -1, dtype=np.int64)  # the MCP column of each T column
    cols[to_t[matched]] = np.flatnonzero(matched)
    if (cols < 0).any():
        return None
    L, Cb = _linear_part(asm, T, cols, row_terms, n)
    qi, qa, qb, qv = [], [], [], []
    for i, _, (_, _, quad), mine in row_terms:
        for coef, a, b in quad:
            qi.append(i)
            qa.append(mine[a])
            qb.append(mine[b])
            qv.append(coef)
    terms = Terms(
        L=L,
        qi=np.asarray(qi).astype(int),
        qa=np.asarray(qa).astype(int),
        qb=np.asarray(qb).astype(int),
        qv=np.asarray(qv).astype(float),
        nonlinear=[],
    )
    lb_arr, ub_arr = np.array(lb, dtype=float), np.array(ub, dtype=float)
    q = _constants(Cb, asm.b)
    functions = Functions(terms, q)
    variables = ModelVariables(problem, names)
    compiled = DirectMCP(
        mcp=None,
        variables=variables,
        rows=[],
        _q_linear=q,
        problem=problem,
        rows_b=Cb,
        cone_names=cone_names,
    )
    compiled._seen = (asm, problem.laws)
    cones = None
    if cone_mu:
        cones = CoulombBlocks(np.array(cone_index, dtype=np.int64).reshape(-1, 3), cone_mu)
    compiled.mcp = MCP(
        F=functions.F,
        J=functions.J,
        lb=lb_arr,
        ub=ub_arr,
        x0=np.clip(np.zeros(n), lb_arr, ub_arr),
        names=KeyNames(names),
        M=terms.L if functions.affine else None,
        q=q if functions.affine else None,
        hess=None if functions.affine else functions.hess,
        cones=cones,
    )
    compiled.derived["force_columns"] = cols
    compiled.derived["pairs"] = [Pair(name, key, row, variables) for name, key, row in pairs]
    return compiled


def _linear_part(asm: ContactAssembly, T: sp.csr_matrix, cols: np.ndarray, row_terms: list, n: int):
    """(L, Cb): the MCP's linear part L (n, n) and the rows of b each MCP row reads: an int array
    (row i reads b[Cb[i]]) when every row is one acceleration, else an (n, m) CSR of the rows'
    acceleration coefficients (q = Cb b). A row F_i = sum_k coef_k a_axis_k + sum coef var
    reads the acceleration rows from K = A T (:func:`reduced_matrix`); quadratic terms are not part
    of L."""
    pure = all(len(acc) == 1 and acc[0][0] == 1.0 and not (var or q) for _, _, (acc, var, q), _ in row_terms)
    if pure:
        theirs = np.array([crow[acc[0][1]] for _, crow, (acc, _, _), _ in row_terms], dtype=np.int64)
        order = np.arange(n)
        if n == T.shape[0] == T.shape[1] and np.array_equal(cols, order) and np.array_equal(theirs, order):
            # every row of K = A T in its own order (e.g. contacts that all roll, SOC form), canonical
            # as the compiler's L is; K = A itself when T is the identity (A T sums a_ij * 1.0 = a_ij)
            L = asm.A_sparse.copy() if _identity(T) else reduced_matrix(asm, T)
            L.sum_duplicates()
            return L, theirs
        return matrix_rows(reduced_matrix(asm, T), cols, order, theirs, n), theirs
    ci, cj, cv, vi, vj, vv = [], [], [], [], [], []
    for i, crow, (acc, var, _), mine in row_terms:
        for coef, axis in acc:
            ci.append(i)
            cj.append(crow[axis])
            cv.append(coef)
        for coef, pos in var:
            vi.append(i)
            vj.append(mine[pos])
            vv.append(coef)
    C = _csr(
        np.array(ci, dtype=np.int64), np.array(cj, dtype=np.int64), np.array(cv, dtype=float), (n, asm.m)
    )
    CK = (C @ reduced_matrix(asm, T)).tocsr()
    accel = sp.csr_matrix((CK.data, cols[CK.indices], CK.indptr), shape=(n, n))
    V = _csr(np.array(vi, dtype=np.int64), np.array(vj, dtype=np.int64), np.array(vv, dtype=float), (n, n))
    L = (accel + V).tocsr()
    L.sum_duplicates()
    return L, C


def _constants(Cb, b: np.ndarray) -> np.ndarray:
    """(n,) the rows' constants: b[Cb] (an index array) or Cb @ b (a matrix)."""
    b = np.asarray(b, dtype=float)
    return b[Cb] if isinstance(Cb, np.ndarray) else np.asarray(Cb @ b, dtype=float)
