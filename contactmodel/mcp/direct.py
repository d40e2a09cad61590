"""The MCP of a contact problem compiled from its arrays, without its Pyomo model.

A problem whose laws all state their rows (:meth:`~contactmodel.friction.base.FrictionLaw.rows`)
does not build its model until something reads it (``problem.model``, a block, its variables).
Until then :meth:`Problem.compile <contactmodel.formulation.Problem.compile>` makes the MCP here,
from the assembly's arrays and the contacts' :class:`~contactmodel.friction.rows.ContactRows`:
the very MCP the compiler makes of the built model (names, variable order, bounds, pair rows, cone
blocks, F, J, M and q bit for bit; tests/test_direct_route.py compares the two for every law in
both forms).

A row's accelerations are rows of a matrix K over MCP columns plus constants: in the reduced form
a = A T y + b (T: c = T y over the laws' force variables y, see :func:`reduced_matrix`); in the
sparse form a = G_F nu_dot_F + bias, after the Newton-Euler rows M_FF nu_dot_F - G_F^T T y +
f_F = 0 matched with the free nu_dot (:func:`newton_euler_matrix`, :func:`sparse_constants`). K's
rows are read as the compiler reads the recorded rows of the built model
(:func:`~contactmodel.mcp.compile.matrix_rows`). MCP order is the compiler's: the Newton-Euler
rows (sparse form), every pair, contact after contact in the order each law states them, then the
three (or four) rows of each cone block. The Pyomo variables behind the columns
(:attr:`DirectMCP.variables`) are the built model's, found when first read (which builds the
model).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from contactmodel.mcp.compiled import CompiledMCP, Functions, Terms, matrix_rows, stored_value
from contactmodel.mcp.cones import block_size
from contactmodel.mcp.types import MCP, CoulombBlocks, Pair, QuadraticRows
from contactmodel.sparse_product import index_dtype

if TYPE_CHECKING:  # annotations only: formulation imports this module
    from contactmodel.assembly import ContactAssembly
    from contactmodel.friction.base import ContactContext, FrictionLaw
    from contactmodel.friction.rows import ContactRows
    from contactmodel.interfaces import ContactProblem as Problem


def contact_rows(laws: dict[str, FrictionLaw], contexts: dict[str, ContactContext]) -> dict[str, ContactRows]:
    """Each contact's :class:`~contactmodel.friction.rows.ContactRows`, as its law states them."""
    return {name: law.rows(contexts[name]) for name, law in laws.items()}


def one_block_size(
    laws: dict[str, FrictionLaw], contexts: dict[str, ContactContext], statement: dict[str, ContactRows]
) -> tuple[dict[str, FrictionLaw], dict[str, ContactRows]]:
    """``(laws, statement)`` with the cone blocks of one size where the automatic forms allow it:
    an MCP holds cone blocks of three rows or of four, not both, so when both occur and every
    contact of one size has an automatic law (``FrictionLaw.auto``), those contacts take their
    MNCP form (the four-row ones first: a soft finger's ``Ellipsoid(form=None)`` beside automatic
    Coulomb cones). Left as given when explicit forms of both sizes remain (the compilers then
    name the mix)."""
    sizes = {name: len(rows.cone) for name, rows in statement.items() if rows.cone is not None}
    if len(set(sizes.values())) < 2:
        return laws, statement
    for size in (4, 3):
        names = [name for name, s in sizes.items() if s == size]
        if all(laws[name].auto for name in names):
            laws, statement, restated = dict(laws), dict(statement), {}
            for name in names:
                law = laws[name]
                if id(law) not in restated:
                    restated[id(law)] = law.restated("mncp")
                laws[name] = restated[id(law)]
                statement[name] = laws[name].rows(contexts[name])
            return laws, statement
    return laws, statement


def force_matrix(
    assembly: ContactAssembly, direct: dict[str, ContactRows]
) -> tuple[list[int], sp.csr_matrix]:
    """(starts, T): the first of each contact's force variables among T's columns (each
    contact's own, in order of first use: :attr:`ContactRows.terms`) and T (m, columns) with
    c = T y."""
    shared = _shared_rows(direct)
    if shared is not None:
        return _uniform_force_matrix(assembly, direct, shared)
    starts: list[int] = []
    ti, tj, tv = [], [], []
    contact_rows = assembly.contact_rows
    base = 0
    for name, rows in direct.items():
        crow = contact_rows[name]
        comps, ranks, coefs, positions = rows.terms
        starts.append(base)
        ti += map(crow.__getitem__, comps)
        tj += map(base.__add__, ranks)
        tv.extend(coefs)
        base += len(positions)
    return starts, _csr(
        np.array(ti, dtype=np.int64), np.array(tj, dtype=np.int64), np.array(tv), (assembly.m, base)
    )


#: False: :func:`force_matrix` and :func:`compile_direct` run their contact-by-contact loops even
#: when every contact shares one statement (the tests compare the two ways)
UNIFORM_PATH = True
#: fewer contacts than this take the loops: the arrays' fixed cost (~10-20 us) is more than a few
#: contacts' loop
UNIFORM_MIN = 12


def _shared_rows(direct: dict[str, ContactRows]) -> ContactRows | None:
    """The one :class:`ContactRows` object every contact states (e.g. a rolling contact's cached
    rows of one law), or None (fewer than :data:`UNIFORM_MIN` contacts, several statements, or
    :data:`UNIFORM_PATH` off)."""
    if not UNIFORM_PATH or len(direct) < UNIFORM_MIN:
        return None
    every = list(direct.values())
    first = every[0]
    return first if all(r is first for r in every) else None


def _row_table(assembly: ContactAssembly, names, comps: list[str]) -> np.ndarray:
    """(nc, len(comps)) the assembly rows of each contact's components ``comps``."""
    contact_rows = assembly.contact_rows
    if not comps:
        return np.zeros((len(names), 0), dtype=np.int64)
    pick = operator.itemgetter(*comps)
    if len(comps) == 1:
        return np.fromiter((pick(contact_rows[name]) for name in names), dtype=np.int64).reshape(-1, 1)
    return np.array([pick(contact_rows[name]) for name in names], dtype=np.int64).reshape(-1, len(comps))


def _uniform_force_matrix(
    assembly: ContactAssembly, direct: dict[str, ContactRows], shared: ContactRows
) -> tuple[list[int], sp.csr_matrix]:
    """:func:`force_matrix` when every contact states ``shared``: the same entries at once."""
    comps, ranks, coefs, positions = shared.terms
    nc, width = len(direct), len(positions)
    base = np.arange(nc, dtype=np.int64) * width
    ti = _row_table(assembly, direct, comps).reshape(-1)
    tj = (base[:, None] + np.asarray(ranks, dtype=np.int64)).reshape(-1)
    tv = np.tile(np.asarray(coefs, dtype=float), nc)
    return base.tolist(), _csr(ti, tj, tv, (assembly.m, nc * width))


def _csr(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, shape: tuple[int, int]) -> sp.csr_matrix:
    """``sp.csr_matrix((values, (rows, cols)), shape)`` (canonical, int32 indices when they fit),
    built without SciPy's COO matrix: entries sorted by row (stably, as SciPy's conversion keeps
    them), then each row's columns sorted and duplicates summed as SciPy does."""
    order = np.argsort(rows, kind="stable")
    index = index_dtype(rows.size, *shape)
    indptr = np.zeros(shape[0] + 1, dtype=index)
    np.cumsum(np.bincount(rows, minlength=shape[0]), out=indptr[1:])
    out = sp.csr_matrix((values[order], cols[order].astype(index), indptr), shape=shape)
    out.sum_duplicates()
    return out


def reduced_matrix(assembly: ContactAssembly, T: sp.csr_matrix) -> sp.csr_matrix:
    """K = A T (m, len(y)) CSR without stored zeros: row r gives a_r - b_r over the force
    variables y (c = T y); the reduced form's acceleration rows."""
    K = (assembly.A_sparse @ T).tocsr()
    K.eliminate_zeros()
    return K


class KeyNames(Sequence):
    """The Pyomo names of variables given by key (contact name or None for the model's own,
    component name, index or None): ``contact[NAME].COMPONENT[INDEX]`` with NAME and INDEX written
    as Pyomo writes an index; made when first read."""

    def __init__(self, keys: list[tuple[str, str]]) -> None:
        self._keys = keys
        self._names: list[str] | None = None

    def __getitem__(self, i):
        if self._names is None:
            from contactmodel._pyomo import index_repr  # the names are Pyomo's

            self._names = [
                ("" if name is None else f"contact{index_repr(name)}.")
                + f"{comp}{'' if index is None else index_repr(index)}"
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
            self._vars = [
                (model if name is None else model.contact[name]).component(comp)[index]
                for name, comp, index in self._keys
            ]
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
    docstring). ``rows_b`` (n, m): each MCP row's coefficients of the accelerations' constants
    (b in the reduced form, the bias G_P nu_dot_P + G_dot nu in the sparse form);
    ``newton_euler`` the sparse form's Newton-Euler rows, first (0 in the reduced form);
    ``cone_names`` the contact of each cone block (its law's mu re-read when the problem's laws
    are replaced); ``keys`` each column's (contact name or None, variable name, index or None),
    its variable's place on the model as a law states it (``(None, "nu_dot", coordinate)`` for the
    sparse form's own). While the model is not built, a point loaded (:meth:`load`) is kept in
    ``point`` and written into the model when it is built; afterwards it reads and writes the
    model's variables, and its constants from the model's mutable Params, as any compilation."""

    problem: Problem | None = field(default=None, repr=False)
    _rows_b: sp.csr_matrix | None = field(default=None, repr=False)
    #: (n, m) when ``rows_b`` is the identity (each row reads its own row's constant, e.g. every
    #: contact rolling in the SOC form): made when first read, q taken from the constants directly
    identity_rows: tuple[int, int] | None = field(default=None, repr=False)
    newton_euler: int = 0
    cone_names: list[str] = field(default_factory=list, repr=False)
    keys: list[tuple] = field(default_factory=list, repr=False)
    point: np.ndarray | None = field(default=None, repr=False)
    #: the built model's mutable Params holding the constants: (model.b,) or (model.f, model.bias)
    params: tuple = field(default=(), repr=False)
    _seen: tuple = field(default=(None, None), repr=False)  # (assembly, laws) last read
    _row_sums: RowSums | None = field(default=None, repr=False)  # of rows_b, made when first used

    def update(self) -> None:
        """Re-read the constants (of the built model's Params, else of the problem's assembly when
        it was replaced) and the cone blocks' mu (of the model, else of the laws) in place."""
        problem = self.problem
        asm, laws = problem.assembly, problem.laws
        if self.params:  # the model is built: its Params, as a compilation of it reads them
            self._set_constants(*(np.fromiter(map(stored_value, p.values()), float) for p in self.params))
        elif asm is not self._seen[0]:
            if problem.form == "sparse":
                ne_const, bias = sparse_constants(asm)
                self._set_constants(ne_const, bias)
            else:
                self._set_constants(np.asarray(asm.b, dtype=float))
        if self.cone_mu:  # the model is built: its cone blocks' mu Params
            self.mcp.cones.mu[:] = list(map(stored_value, self.cone_mu))
        elif self.cone_names and laws is not self._seen[1]:  # update(mu=) replaced some laws
            direct, ctx = problem.rows_statement, problem.contexts
            self.mcp.cones.mu[:] = [
                (laws[name].rows(ctx[name]) if direct is None else direct[name]).mu
                for name in self.cone_names
            ]
        self._seen = (asm, laws)

    @property
    def rows_b(self) -> sp.csr_matrix | None:
        """(n, m): each MCP row's coefficients of the accelerations' constants (see the class
        docstring)."""
        if self._rows_b is None and self.identity_rows is not None:
            self._rows_b = _identity_csr(*self.identity_rows)
        return self._rows_b

    def _set_constants(self, *values: np.ndarray) -> None:
        """q = rows_b @ (the accelerations' constants), the Newton-Euler rows' constants first."""
        *ne, accel = values
        q = self._q_linear
        if self.identity_rows is not None:  # 1.0 times each row's own constant: the constants
            q[:] = accel[: q.shape[0]]
        else:
            if self._row_sums is None:
                self._row_sums = RowSums(self.rows_b)
            q[:] = self._row_sums(accel)
        if ne:
            q[: self.newton_euler] = ne[0]

    def adopt_model(self, model) -> None:
        """The problem's model was built: write the point loaded before into it, and from now on
        notice edits of its structure (:class:`~contactmodel.mcp.compile.Structure`) and read its
        mutable Params (constants, cone blocks' mu), as a compilation of the model does."""
        if self.point is not None:
            self.load(self.point)
        from contactmodel.mcp.compile import Structure  # the model is built: Pyomo is loaded

        self.structure = Structure(model)
        self.cone_mu = [model.contact[name].cone.mu for name in self.cone_names]
        self.params = (model.f, model.bias) if self.problem.form == "sparse" else (model.b,)
        self.pair_rows = {id(model.contact[p.contact].pairs[p.key]): p.index for p in self.derived["pairs"]}
        if self.newton_euler:
            self.pair_rows.update((id(entry), k) for k, entry in enumerate(model.newton_euler.values()))

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


class RowSums:
    """v -> C @ v for one CSR matrix C, each row summed from its first product on, as Pyomo
    evaluates a row's constant (a sparse product starts from +0.0, which turns a constant of -0.0
    into +0.0); C's nonempty rows and their starts found once."""

    def __init__(self, C: sp.csr_matrix) -> None:
        self.rows = C.shape[0]
        self.data, self.indices = C.data, C.indices
        self.filled = np.flatnonzero(np.diff(C.indptr))
        self.starts = C.indptr[self.filled]

    def __call__(self, v: np.ndarray) -> np.ndarray:
        out = np.zeros(self.rows)
        if self.filled.size:
            out[self.filled] = np.add.reduceat(self.data * v[self.indices], self.starts)
        return out


def is_identity(T: sp.csr_matrix) -> bool:
    """Whether the CSR matrix T is the identity matrix, stored as such (square, one 1.0 a row, on
    the diagonal)."""
    n = T.shape[0]
    return (
        T.shape == (n, n)
        and T.nnz == n
        and np.array_equal(T.indptr, np.arange(n + 1))
        and np.array_equal(T.indices, np.arange(n))
        and bool((T.data == 1.0).all())
    )


def sparse_constants(asm) -> tuple[np.ndarray, np.ndarray]:
    """(f_F, bias) of the sparse form: each Newton-Euler row's constant -(f_F - M_FP nu_dot_P) (nf,)
    and each contact row's acceleration at nu_dot_F = 0, G_P nu_dot_P + G_dot nu (m,)."""
    free, P = asm.free, asm.prescribed
    ne_const = -(asm.f[free] - asm.M[free][:, P] @ asm.nu_dot_prescribed[P])
    bias = asm.G[:, P] @ asm.nu_dot_prescribed[P] + asm.gdot_nu
    return ne_const, bias


def newton_euler_matrix(asm, T: sp.csr_matrix) -> sp.csr_matrix:
    """(nf, nf + len(y)) CSR: row k of the sparse form's Newton-Euler rows
    M_FF nu_dot_F - G_F^T T y (+ its constant), over the variables (nu_dot_F, y)."""
    free = np.flatnonzero(asm.free)
    return sp.hstack([asm.M[free][:, free], -(asm.G[:, free].T) @ T], format="csr")


def compile_direct(
    problem: Problem, direct: dict[str, ContactRows], starts: list[int], T: sp.csr_matrix
) -> DirectMCP | None:
    """The MCP of ``problem`` from its arrays (see the module docstring): ``direct`` each contact's
    rows, ``starts`` the first of each contact's force variables among T's columns (c = T y, see
    :func:`force_matrix`). None when a force variable is matched with no row (the compiler of the
    built model then names it)."""
    asm = problem.assembly
    sparse = problem.form == "sparse"
    contact_rows = asm.contact_rows
    names, lb, ub, tcols = [], [], [], []  # per MCP row; tcols: its T column or -1
    if sparse:  # the Newton-Euler rows come first, each matched with its free nu_dot
        coords = asm.coordinates
        names = [(None, "nu_dot", coords[i]) for i in np.flatnonzero(asm.free)]
        lb, ub, tcols = [-np.inf] * len(names), [np.inf] * len(names), [-1] * len(names)
    nf = len(names)
    pairs = []  # (contact, key, MCP row)
    row_terms = []  # (MCP row, contact's rows, its flat terms, where its variables are)
    cones = []  # (contact, its cone rows, its first T column)
    where: dict[str, dict[int, int]] = {}  # contact -> its variables' MCP columns
    shared = _shared_rows(direct)
    only_cones = shared is not None and not shared.rows[0][0] and bool(shared.rows[1][0])
    for (name, rows), start in zip(() if only_cones else direct.items(), starts):
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
    # the cone rows, d a block: row F_i = s * accel[axis], nothing else (their own arrays,
    # not row_terms: a contact's loop of a few list operations instead of a dozen per row)
    first_cone = len(names)
    cone_names = [name for name, *_ in cones]
    cone_mu = [rows.mu for _, rows, _, _ in cones]
    cone_theirs: list[int] = []  # each cone row's assembly row
    cone_scale: list[float] = []  # and its coefficient of that row's acceleration
    if only_cones:  # every contact one cone block of ``shared``, no pairs: the same lists at once
        cone_names, cone_theirs, more_names, more_tcols = _uniform_cones(asm, direct, shared, starts)
        cone_mu = [shared.mu] * len(cone_names)
        cone_scale = shared.rows[1][3] * len(cone_names)
        names += more_names
        tcols += more_tcols
    for name, rows, (cvars, caxes, cranks, scale), start in cones:
        crow, mine = contact_rows[name], where[name]
        if mine:  # the contact's pairs may read its cone variables
            mine.update(zip(cvars, range(len(names), len(names) + len(cvars))))
        cone_theirs += [crow[axis] for axis in caxes]
        cone_scale += scale
        names += [(name, *rows.variables[pos][:2]) for pos in cvars]
        tcols += [start + r if r >= 0 else -1 for r in cranks]
    size = len(shared.rows[1][0]) if only_cones else block_size(len(c[2][0]) for c in cones)
    cone_index = np.arange(first_cone, len(names), dtype=np.int64).reshape(-1, size)
    n = len(names)
    lb.extend([-np.inf] * (n - len(lb)))
    ub.extend([np.inf] * (n - len(ub)))
    to_t = np.asarray(tcols, dtype=np.int64)
    matched = to_t >= 0
    cols = np.full(T.shape[1], -1, dtype=np.int64)  # the MCP column of each T column
    cols[to_t[matched]] = np.flatnonzero(matched)
    if (cols < 0).any():
        return None
    if sparse:  # accelerations a = G_F nu_dot_F + bias, nu_dot_F the first nf columns
        K, kcols = asm.G[:, asm.free].tocsr(), np.arange(nf, dtype=np.int64)
        ne = newton_euler_matrix(asm, T)
        L = matrix_rows(ne, np.concatenate([kcols, cols]), range(nf), range(nf), n)
        L_contacts, Cb = _linear_part(asm, T, K, kcols, row_terms, cone_theirs, cone_scale, n)
        L = (L + L_contacts).tocsr()
    else:  # a = A T y + b
        L, Cb = _linear_part(asm, T, None, cols, row_terms, cone_theirs, cone_scale, n)
    qi, qa, qb, qv, nonlinear = [], [], [], [], []
    for i, _, (_, _, quad, other), mine in row_terms:
        for coef, a, b in quad:
            qi.append(i)
            qa.append(mine[a])
            qb.append(mine[b])
            qv.append(coef)
        for coef, norm in other:
            nonlinear.append(NormTerm(i, coef, [mine[p] for p in norm.positions], norm.eps))
    terms = Terms(
        L=L,
        qi=np.asarray(qi).astype(int),
        qa=np.asarray(qa).astype(int),
        qb=np.asarray(qb).astype(int),
        qv=np.asarray(qv).astype(float),
        nonlinear=nonlinear,
    )
    lb_arr, ub_arr = np.array(lb, dtype=float), np.array(ub, dtype=float)
    compiled = DirectMCP(
        mcp=None,
        variables=ModelVariables(problem, names),
        constants=None,  # the assembly's (see DirectMCP.update)
        _q_linear=np.zeros(n),
        problem=problem,
        _rows_b=Cb,
        identity_rows=(n, asm.m) if Cb is None else None,
        newton_euler=nf,
        cone_names=cone_names,
        keys=names,
        _seen=(None, problem.laws),  # the cone blocks' mu are the rows' own (cone_mu): not read again
    )
    q = compiled._q_linear  # filled by the update below
    functions = compiled.functions = Functions(terms, q)
    cones = None
    if cone_mu:
        cones = CoulombBlocks(cone_index, cone_mu)
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
        quadratic=None if functions.affine or terms.nonlinear else QuadraticRows(functions.quadratic_parts),
    )
    compiled.update()
    compiled.derived["force_columns"] = cols
    compiled.derived["nu_dot_columns"] = np.arange(nf, dtype=np.int64)
    compiled.derived["pairs"] = [Pair(name, key, row, compiled.variables) for name, key, row in pairs]
    return compiled


def _uniform_cones(
    asm: ContactAssembly, direct: dict[str, ContactRows], shared: ContactRows, starts: list[int]
) -> tuple[list[str], list[int], list[tuple], list[int]]:
    """:func:`compile_direct`'s cone rows when every contact states ``shared``, one cone block and
    no pairs: (the contacts' names, each cone row's assembly row, each row's key (contact,
    variable, index), each row's T column or -1)."""
    cvars, caxes, cranks, _ = shared.rows[1]
    contact_names = list(direct)
    labels = [shared.variables[pos][:2] for pos in cvars]
    keys = [(name, *label) for name in contact_names for label in labels]
    ranks = np.asarray(cranks, dtype=np.int64)
    tcols = np.where(ranks >= 0, np.asarray(starts, dtype=np.int64)[:, None] + ranks, -1)
    theirs = _row_table(asm, contact_names, caxes)
    return contact_names, theirs.reshape(-1).tolist(), keys, tcols.reshape(-1).tolist()


def _linear_part(
    asm: ContactAssembly,
    T: sp.csr_matrix,
    K,
    kcols: np.ndarray,
    row_terms: list,
    cone_theirs: list,
    cone_scale: list,
    n: int,
):
    """(L, Cb) of the contact rows: their linear part L (n, n) and the (n, m) matrix Cb of their
    acceleration coefficients (the rows' constants are Cb times the accelerations' constants;
    None when it is the identity, each row reading its own row).
    A row F_i = sum_k coef_k a_axis_k + sum coef var reads the accelerations as rows of ``K`` (a =
    K z + constants), K's column j the MCP column ``kcols[j]``: ``K`` None means K = A T
    (:func:`reduced_matrix`, the reduced form, z = y); quadratic and other nonlinear terms are not
    part of L. ``row_terms`` are the pairs' rows; the cone rows, the last ``len(cone_theirs)`` MCP
    rows, are F_i = ``cone_scale[k]`` times the accel of assembly row ``cone_theirs[k]``."""
    first_cone = n - len(cone_theirs)
    mine = [i for i, _, _, _ in row_terms]
    mine += range(first_cone, n)
    pure = all(s == 1.0 for s in cone_scale) and all(
        len(acc) == 1 and acc[0][0] == 1.0 and not (var or q or o) for _, _, (acc, var, q, o), _ in row_terms
    )
    if pure:
        theirs = np.array(
            [crow[acc[0][1]] for _, crow, (acc, *_), _ in row_terms] + cone_theirs, dtype=np.int64
        )
        order = np.arange(n)
        if np.array_equal(mine, order) and np.array_equal(theirs, order):
            Cb = None  # the identity (see DirectMCP.identity_rows), made when read
        else:
            Cb = _csr(np.array(mine, dtype=np.int64), theirs, np.ones(len(mine)), (n, asm.m))
        if K is None and np.array_equal(mine, order) and n == T.shape[0] == T.shape[1]:
            if np.array_equal(kcols, order) and np.array_equal(theirs, order):
                # every row of K = A T in its own order (e.g. contacts that all roll, SOC form),
                # canonical as the compiler's L is; K = A itself when T is the identity
                L = asm.A_sparse.copy() if is_identity(T) else reduced_matrix(asm, T)
                L.sum_duplicates()
                return L, Cb
        K = reduced_matrix(asm, T) if K is None else K
        return matrix_rows(K, kcols, mine, theirs, n), Cb
    ci, cj, cv, vi, vj, vv = [], [], [], [], [], []
    for i, crow, (acc, var, *_), where in row_terms:
        for coef, axis in acc:
            ci.append(i)
            cj.append(crow[axis])
            cv.append(coef)
        for coef, pos in var:
            vi.append(i)
            vj.append(where[pos])
            vv.append(coef)
    ci += range(first_cone, n)
    cj += cone_theirs
    cv += cone_scale
    C = _csr(
        np.array(ci, dtype=np.int64), np.array(cj, dtype=np.int64), np.array(cv, dtype=float), (n, asm.m)
    )
    CK = (C @ (reduced_matrix(asm, T) if K is None else K)).tocsr()
    accel = sp.csr_matrix((CK.data, kcols[CK.indices].astype(CK.indices.dtype), CK.indptr), shape=(n, n))
    V = _csr(np.array(vi, dtype=np.int64), np.array(vj, dtype=np.int64), np.array(vv, dtype=float), (n, n))
    L = (accel + V).tocsr()
    L.sum_duplicates()
    return L, C


def _identity_csr(n: int, m: int) -> sp.csr_matrix:
    """The (n, m) CSR matrix with ones on the diagonal (n <= m), as :func:`_csr` makes it."""
    index = index_dtype(n, n, m)
    diag = np.arange(n + 1, dtype=index)
    out = sp.csr_matrix((np.ones(n), diag[:n], diag), shape=(n, m))
    out.has_canonical_format = True
    return out


class NormTerm:
    """``coef * (sqrt(sum x[cols]**2 + eps**2) - eps)`` added to MCP row ``row`` (a
    :class:`~contactmodel.friction.rows.Norm` term), with its gradient and Hessian: the interface
    of :class:`~contactmodel.mcp.compile.Functions`' nonlinear remainders."""

    def __init__(self, row: int, coef: float, cols: list[int], eps: float) -> None:
        self.row = row
        self.coef = coef
        self.cols = np.asarray(cols, dtype=np.int64)
        self.eps = eps

    def _radius(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        v = x[self.cols]
        return v, float(np.sqrt(v @ v + self.eps**2))

    def value(self, x: np.ndarray) -> float:
        return self.coef * (self._radius(x)[1] - self.eps)

    def gradient(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v, r = self._radius(x)
        return self.cols, self.coef * v / r

    def hessian(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, columns, values) of the dense Hessian over ``cols``: coef (I / r - v v^T / r^3)."""
        v, r = self._radius(x)
        H = self.coef * (np.eye(v.size) / r - np.outer(v, v) / r**3)
        k = self.cols.size
        return np.repeat(self.cols, k), np.tile(self.cols, k), H.ravel()
