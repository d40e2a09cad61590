"""A compiled MCP and its functions, without Pyomo: :class:`CompiledMCP` (an MCP plus its maps
back to the model's variables), :class:`Terms` and :class:`Functions` (F, its sparse Jacobian and
weighted Hessian from a linear part, quadratic terms and nonlinear remainders), and
:func:`matrix_rows`. Made by :func:`contactmodel.mcp.compile.compile_model` from a Pyomo model and
by :mod:`contactmodel.mcp.direct` from a problem's arrays; nothing here imports Pyomo (the
variables are only read and written through their stored values)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter

import numpy as np
import scipy.sparse as sp

from contactmodel.errors import FormulationError
from contactmodel.mcp.types import MCP
from contactmodel.sparse_product import csr_times, flat_keys, keyed_pattern, pattern_of, with_data

#: a ParamData's or VarData's stored number (the public ``.value`` costs 7x)
stored_value = attrgetter("_value")

#: key of a compilation's ``derived`` holding its last accepted answer (the start of
#: ``solve(..., warm_start=True)``)
LAST_X = "last_x"


def read_param_vector(param) -> np.ndarray:
    """The entries of an indexed mutable Param, in index order, as floats (their stored values,
    read directly)."""
    return np.array([p._value for p in param._data.values()], dtype=float)


def write_param_vector(param, values) -> None:
    """Write an indexed mutable Param's entries in index order: their stored values, directly
    (Pyomo's item assignment costs ~5 us per entry, 15 ms for 1000 contacts; the formulation
    makes these Params indexed by range(len), in order, see :func:`add_param_vector`)."""
    for p, v in zip(param._data.values(), np.asarray(values, dtype=float).tolist()):
        p._value = v


def write_param(param, value: float) -> None:
    """Write a scalar mutable Param's stored value directly (as :func:`write_param_vector`)."""
    param._value = float(value)


@dataclass
class CompiledMCP:
    """An MCP plus its maps back to the Pyomo model.

    ``variables[i]`` is the Pyomo variable of MCP index i; ``mcp.names[i]`` its name;
    ``constants()`` the rows' constants (n,) now (re-read by :meth:`update`: mutable Params);
    ``structure`` what the rows were built from (see :class:`~contactmodel.mcp.compile.Structure`).
    """

    mcp: MCP
    variables: list
    constants: Callable[[], np.ndarray] | None = field(repr=False)
    _q_linear: np.ndarray = field(repr=False)
    derived: dict = field(default_factory=dict, repr=False)  # lookups built from this compilation
    structure: object | None = field(default=None, repr=False)
    cone_mu: list = field(default_factory=list, repr=False)  # the cone blocks' mu Params
    #: id(ComplementarityData) -> its MCP row, for every compiled Complementarity entry
    pair_rows: dict[int, int] = field(default_factory=dict, repr=False)
    #: the F, J (and Hessian) of ``mcp``, over the compiled terms
    functions: Functions | None = field(default=None, repr=False)

    def update(self) -> None:
        """Re-read constants from mutable Params (e.g. a new b) and the cone blocks' mu, in place."""
        const = self.constants()
        self._q_linear[:] = const
        if self.mcp.q is not None:
            self.mcp.q[:] = const
        if self.cone_mu:
            self.mcp.cones.mu[:] = list(map(stored_value, self.cone_mu))

    def set_matrix(self, M: sp.csr_matrix) -> None:
        """Give the MCP the linear part ``M`` (n, n, CSR) in place of its own (the model is not
        written): F(x) = M x + q + the quadratic and nonlinear terms, which are kept, and J read it
        from now on; an affine MCP's ``mcp.M`` is ``M``."""
        if self.functions is None:
            raise FormulationError("CompiledMCP.set_matrix: the MCP has no functions of its terms to update")
        n = self.mcp.n
        if M.shape != (n, n):
            raise FormulationError(f"CompiledMCP.set_matrix: M must be {(n, n)}, got {M.shape}")
        self.functions.t.L = M
        if self.mcp.M is not None:
            self.mcp.M = M

    def values(self) -> np.ndarray:
        """Current values of the model's variables in MCP order (0 where unset)."""
        return np.array([0.0 if v is None else v for v in map(stored_value, self.variables)], dtype=float)

    def load(self, x: np.ndarray) -> None:
        """Write the point x into the Pyomo variables (their stored values directly: Pyomo's
        set_value costs 10x, and its stale flags are not used by this package)."""
        for var, val in zip(self.variables, np.asarray(x, dtype=float).tolist()):
            var._value = val


def matrix_rows(K: sp.csr_matrix, columns: np.ndarray, mine, theirs, n: int) -> sp.csr_matrix:
    """(n, n) CSR holding row ``theirs[k]`` of ``K`` in MCP row ``mine[k]`` (increasing), K's
    column j in MCP column ``columns[j]``: the recorded rows an MCP takes from K."""
    part = K[np.asarray(theirs, dtype=np.int64)]  # K's rows, in order
    counts = np.zeros(n + 1, dtype=np.int64)
    counts[np.asarray(mine, dtype=np.int64) + 1] = np.diff(part.indptr)
    rows = sp.csr_matrix((part.data, columns[part.indices], np.cumsum(counts)), shape=(n, n))
    rows.sum_duplicates()  # canonical, as L is: each row's terms summed in column order
    return rows


@dataclass
class Terms:
    """The rows' non-constant parts: the linear part ``L`` (n, n) CSR; quadratic terms
    ``qv[k] * x[qa[k]] * x[qb[k]]`` added to row ``qi[k]``; the nonlinear remainders."""

    L: sp.csr_matrix
    qi: np.ndarray
    qa: np.ndarray
    qb: np.ndarray
    qv: np.ndarray
    #: each with ``row``, ``value(x)``, ``gradient(x) -> (columns, values)`` and
    #: ``hessian(x) -> (rows, columns, values)``
    nonlinear: list


class Functions:
    """F(x) = L x + q + quadratic terms + nonlinear remainders (see :class:`Terms`), its sparse
    Jacobian J(x) and the weighted Hessian sum_i w_i Hess F_i(x). ``q`` (n,) is shared with
    :class:`CompiledMCP`, which updates it in place."""

    def __init__(self, terms: Terms, q: np.ndarray) -> None:
        self.t = terms
        self.q = q
        self.n = q.shape[0]
        self.affine = terms.qv.size == 0 and not terms.nonlinear
        self._fill: _QuadraticFill | None = None  # see J

    def F(self, x: np.ndarray) -> np.ndarray:
        t = self.t
        out = csr_times(t.L, x) + self.q  # t.L @ x, without SciPy's dispatch
        if t.qv.size:
            out += np.bincount(t.qi, t.qv * x[t.qa] * x[t.qb], minlength=self.n)
        for nl in t.nonlinear:
            out[nl.row] += nl.value(x)
        return out

    def J(self, x: np.ndarray) -> sp.csr_matrix:
        t = self.t
        if self.affine:
            return t.L
        if not t.nonlinear:
            fill = self._fill
            if fill is not None and fill.L is not t.L and fill.same_pattern(t.L):
                fill.L = t.L  # a new linear part on the same (read-only) index arrays
            if fill is None or fill.L is not t.L:
                fill = self._fill = _QuadraticFill(t, self.n)
            if fill.ok:
                return fill(x)
        r = [t.qi, t.qi]
        c = [t.qa, t.qb]
        d = [t.qv * x[t.qb], t.qv * x[t.qa]]
        for nl in t.nonlinear:
            cols, grad = nl.gradient(x)
            r.append(np.full(len(cols), nl.row))
            c.append(np.asarray(cols, dtype=int))
            d.append(grad)
        Q = sp.csr_matrix((np.concatenate(d), (np.concatenate(r), np.concatenate(c))), shape=(self.n, self.n))
        return (t.L + Q).tocsr()

    def quadratic_parts(self) -> tuple | None:
        """``(L, q, qi, qa, qb, qv)`` (see :class:`Terms`) as they are now, when F has quadratic
        terms and no nonlinear remainder and J is made on a kept pattern (L canonical, at most two
        terms at a position: :class:`_QuadraticFill`), so that a compiled loop can repeat F and J
        exactly: F as :meth:`F` sums it, J's entries the fill's sums with its exact zeros dropped;
        else None."""
        t = self.t
        if self.affine or t.nonlinear:
            return None
        fill = self._fill
        if fill is None or fill.L is not t.L:
            self.J(np.zeros(self.n))  # makes the fill of this L (or finds it cannot be made)
            fill = self._fill
        if fill is None or fill.L is not t.L or not fill.ok:
            return None
        return t.L, self.q, t.qi, t.qa, t.qb, t.qv

    def hess(self, x: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
        t = self.t
        wq = w[t.qi] * t.qv
        r = [t.qa, t.qb]
        c = [t.qb, t.qa]
        d = [wq, wq]
        for nl in t.nonlinear:
            hr, hc, hv = nl.hessian(x)
            r.append(hr)
            c.append(hc)
            d.append(w[nl.row] * hv)
        return sp.csr_matrix(
            (np.concatenate(d), (np.concatenate(r), np.concatenate(c))), shape=(self.n, self.n)
        )


#: the sparsity patterns (entries that are exactly 0 dropped) one :class:`_QuadraticFill` keeps
_TEMPLATES = 16


class _QuadraticFill:
    """The Jacobian ``L + Q(x)`` of linear and quadratic terms (no nonlinear remainders) on a
    pattern made once: the union of L's pattern and the quadratic terms' positions, whose entries
    each call fills in place of SciPy's COO -> CSR conversion and sparse sum (~0.1 ms a call).

    The matrix is SciPy's ``(L + Q).tocsr()`` bit for bit: Q's duplicates summed first (at most
    two a position, so in any order), then L's entry added, and the entries that sum to exactly
    0 dropped, as SciPy's sum drops them (the coupling graph of :mod:`~contactmodel.solvers.newton
    .blocks` and the Newton matrix's sparse pattern read that pattern). ``ok`` is False when that
    cannot be promised (L not canonical, three or more quadratic terms at one position); the
    caller then builds the matrix through SciPy."""

    def __init__(self, t: Terms, n: int) -> None:
        self.L = L = t.L
        self.n = n
        self.ok = bool(L.has_canonical_format) and L.shape == (n, n)
        if not self.ok:
            return
        lkeys = flat_keys(L)
        # SciPy's order of the COO entries: (qi, qa) with qv x[qb], then (qi, qb) with qv x[qa]
        qkeys = np.concatenate([t.qi * n + t.qa, t.qi * n + t.qb]).astype(np.int64)
        ukeys, counts = np.unique(qkeys, return_counts=True)
        if counts.size and counts.max() > 2:
            self.ok = False
            return
        keys = np.union1d(lkeys, ukeys)
        self.nnz = keys.size
        self.lpos = np.searchsorted(keys, lkeys)
        self.qpos = np.searchsorted(keys, qkeys)
        self.qi, self.qa, self.qb, self.qv = t.qi, t.qa, t.qb, t.qv
        self.keys = keys
        #: the templates of the patterns met, by their mask's bytes: one pattern, one set of index
        #: arrays (the Newton matrix's assembler keeps its work by their identity)
        self._templates: dict[bytes, sp.csr_matrix] = {}
        self.full = self._template(np.ones(keys.size, dtype=bool))

    def same_pattern(self, L: sp.csr_matrix) -> bool:
        """Whether ``L`` shares this fill's linear part's index arrays, read-only (the matrices
        of one template, :func:`contactmodel.sparse_product.with_data`): its pattern holds."""
        mine = self.L
        return (
            self.ok
            and L.indptr is mine.indptr
            and L.indices is mine.indices
            and not (L.indptr.flags.writeable or L.indices.flags.writeable)
        )

    def _template(self, keep: np.ndarray) -> sp.csr_matrix:
        """A canonical CSR template of the entries ``keep`` (mask over the pattern), see
        :func:`contactmodel.sparse_product.pattern_of`."""
        n = self.n
        indptr, indices = keyed_pattern(self.keys[keep], (n, n))
        M = sp.csr_matrix(
            (np.zeros(indices.size), indices.astype(np.int32), indptr.astype(np.int32)), shape=(n, n)
        )
        M.has_canonical_format = True
        return pattern_of(M)

    def __call__(self, x: np.ndarray) -> sp.csr_matrix:
        vals = np.concatenate([self.qv * x[self.qb], self.qv * x[self.qa]])
        data = np.bincount(self.qpos, vals, minlength=self.nnz)  # Q's entries, in SciPy's sums
        lsum = data[self.lpos]
        lsum += self.L.data  # L + Q where both have an entry (exact: one rounding, either order)
        data[self.lpos] = lsum
        keep = data != 0.0
        if keep.all():
            return with_data(self.full, data)
        key = keep.tobytes()
        templates = self._templates
        template = templates.get(key)
        if template is None:
            if len(templates) >= _TEMPLATES:
                templates.clear()
            template = templates[key] = self._template(keep)
        return with_data(template, data[keep])
