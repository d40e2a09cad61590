"""New numbers for a formulated Problem without rebuilding or recompiling it (:meth:`Problem.update
<contactmodel.formulation.Problem.update>`).

The model keeps every number that may change in mutable Params: ``model.b`` (reduced form),
``model.f`` and ``model.bias`` (sparse form) and each cone block's ``mu``
(``CoulombCone(mu, form="soc")``). An update writes them, gives the problem an assembly copy
with the same numbers (the dispatcher's checks, :meth:`Problem.interpret
<contactmodel.formulation.Problem.interpret>` and the modes read the assembly) and, for ``mu``,
law objects with the new coefficient. The next :meth:`Problem.compile
<contactmodel.formulation.Problem.compile>` re-reads the Params into the same compiled MCP.

:meth:`Problem.reassemble <contactmodel.formulation.Problem.reassemble>` gives a problem of the
reduced form a whole new assembly with the same contacts (the time stepper's next step): its b as
above, and a new A into the compiled MCP's matrix through an :class:`AccelerationMap`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from contactmodel import validate
from contactmodel.assembly import COMPONENTS
from contactmodel.errors import FormulationError
from contactmodel.friction.base import check_coefficient
from contactmodel.mcp.compiled import read_param_vector, write_param, write_param_vector
from contactmodel.mcp.direct import DirectMCP, is_identity
from contactmodel.sparse_product import csr_times, flat_keys, keyed_pattern, pattern_of, with_data

if TYPE_CHECKING:  # annotations only: formulation imports this module
    from contactmodel.assembly import ContactAssembly
    from contactmodel.interfaces import ContactProblem as Problem
    from contactmodel.mcp.compiled import CompiledMCP

#: the keywords of Problem.update
FIELDS = ("b", "f", "mu")


def update(problem: Problem, b=None, f=None, mu=None) -> None:
    """See :meth:`Problem.update <contactmodel.formulation.Problem.update>`."""
    if b is not None and f is not None:
        raise FormulationError(
            "Problem.update: give b or f, not both (b follows from f); update f, then b if the "
            "accelerations need a further offset"
        )
    asm = problem.assembly
    if b is not None:
        b = validate.real_array(b, "Problem.update: b", shape=(asm.m,), error=FormulationError)
        _replace_assembly(problem, _with_b(asm, b))
    if f is not None:
        if not asm.has_dynamics:
            raise FormulationError(
                "Problem.update: f needs a problem built from a System (bodies, masses, forces); "
                "a problem given by A and b has no f: update b instead"
            )
        f = validate.real_array(f, "Problem.update: f", shape=asm.f.shape, error=FormulationError)
        _replace_assembly(problem, _with_f(asm, f))
    if mu is not None:
        _update_mu(problem, mu)


def adopt_param_edits(problem: Problem, seen: tuple | None) -> tuple | None:
    """Take edits of the model's mutable Params (``model.b[r] = ...``; ``model.f``, ``model.bias``)
    made by hand since the last call into the problem's assembly, so the dispatcher's checks
    and modes judge an answer against the numbers the MCP was built with. ``seen``: what the
    last call returned, (assembly, Param values), kept by the problem; the new one is returned.
    Params are taken to match the assembly whenever the assembly was replaced (by :func:`update`
    or the time stepper); reading them costs ~0.1 ms for 1000 contacts. Nothing to take before
    the model is built (its Params are then made from the assembly): ``seen`` is returned."""
    if not problem.built:
        return seen
    model = problem.model
    now = {name: read_param_vector(model.component(name)) for name in _params(problem)}
    if seen is not None and seen[0] is problem.assembly:
        before = seen[1]
        asm = problem.assembly
        if "b" in now and not np.array_equal(now["b"], before["b"]):
            asm = _with_b(asm, now["b"])
        if "f" in now and not np.array_equal(now["f"], before["f"]):
            f = asm.f.copy()
            f[asm.free] -= now["f"] - before["f"]  # model.f = -(f_F - M_FP nu_dot_P)
            asm = _with_f(asm, f)
        if "bias" in now and not np.array_equal(now["bias"], before["bias"]):
            asm = _with_gdot_nu(asm, asm.gdot_nu + (now["bias"] - before["bias"]))
        if asm is not problem.assembly:
            problem.assembly = asm
    return (problem.assembly, now)


def _params(problem: Problem) -> tuple[str, ...]:
    """The model's mutable Params that hold assembly numbers: b (reduced form); f and bias
    (sparse form). Components of the user's own with these names elsewhere are not read."""
    return ("b",) if problem.form == "reduced" else ("f", "bias")


def _with_gdot_nu(asm: ContactAssembly, gdot_nu: np.ndarray) -> ContactAssembly:
    new = copy.copy(asm)
    new.gdot_nu = gdot_nu
    new.__dict__.pop("b", None)
    return new


def _with_b(asm: ContactAssembly, b: np.ndarray) -> ContactAssembly:
    """A copy of ``asm`` whose a = A c + b has the given b. With bodies behind it, the change
    goes into ``gdot_nu`` (the velocity-product term of a = G nu_dot + gdot_nu), so the motion,
    the sparse form and every check agree with it."""
    new = copy.copy(asm)  # cached A, M^-1 stay shared
    if asm.has_dynamics:
        new.gdot_nu = asm.gdot_nu + (b - asm.b)
    new.__dict__["b"] = b.copy()
    return new


def _with_f(asm: ContactAssembly, f: np.ndarray) -> ContactAssembly:
    """A copy of ``asm`` with generalized forces ``f``; its b is recomputed on first use."""
    new = copy.copy(asm)
    new.f = f.copy()
    new.__dict__.pop("b", None)
    return new


def _replace_assembly(problem: Problem, new: ContactAssembly) -> None:
    """Give the problem the assembly ``new`` (same rows, other numbers) and write the model's
    Params to match: ``b`` (reduced); ``f`` and ``bias`` shifted by the change (sparse)."""
    old = problem.assembly
    model = problem.model if problem.built else None  # an unbuilt model takes the new assembly's
    if model is None:
        pass
    elif problem.form == "reduced":
        write_param_vector(model.b, new.b)
    else:
        write_param_vector(model.bias, read_param_vector(model.bias) + (new.gdot_nu - old.gdot_nu))
        # model.f = -(f_F - M_FP nu_dot_P)
        write_param_vector(model.f, read_param_vector(model.f) - (new.f - old.f)[old.free])
    problem.assembly = new  # same rows and sliding contacts: a current layout stays current


@dataclass
class HeldMatrix:
    """What a problem keeps of its compiled MCP's matrix between reassemblies (see
    :func:`reassemble`)."""

    #: the compiled MCP
    compiled: CompiledMCP
    #: the A (m, m) its matrix was made with
    A: sp.csr_matrix
    #: the map A -> its matrix, made when another A first goes in
    map: AccelerationMap | None = None
    #: the last other A found within :func:`same_matrix`'s tolerance of :attr:`A`: a time step
    #: that keeps its A hands the same object again, which then stands without a comparison
    standing: sp.csr_matrix | None = None


def reassemble(problem: Problem, assembly: ContactAssembly, contexts, held: HeldMatrix) -> HeldMatrix | None:
    """See :meth:`Problem.reassemble <contactmodel.formulation.Problem.reassemble>`. ``held``: what
    the problem keeps of its compiled MCP's matrix; returns it updated, or None when the compiled
    MCP cannot take the new A (the problem is then left as it was)."""
    if problem.form != "reduced":
        return None
    old = problem.assembly
    if assembly.m != old.m or list(assembly.contact_rows) != list(old.contact_rows):
        raise FormulationError(
            "Problem.reassemble: the new assembly must have the same contacts, in the same order, "
            f"with the same rows ({old.m}); formulate a new problem for another contact set"
        )
    A = assembly.A_sparse
    if A is not held.A and A is not held.standing:
        if same_matrix(held.A, A):
            held.standing = A
        else:
            if held.map is None:
                held.map = AccelerationMap(problem, held.compiled, held.A)
            if not held.map.ok:
                return None
            held.map.apply(A)
            held.A, held.standing = A, None
    if contexts is not None:
        problem.contexts = contexts
    if problem.built:
        write_param_vector(problem.model.b, assembly.b)
    problem.assembly = assembly  # a compilation from the arrays reads the new b on its update
    return held


#: largest A (entries) whose difference :func:`same_matrix` takes densely
_DENSE_DIFFERENCE = 20_000


def same_matrix(A: sp.csr_matrix, B: sp.csr_matrix, rtol: float = 1e-12) -> bool:
    """Whether A and B (m, m) differ by at most ``rtol`` times the largest |B| entry (at least 1)
    in every entry: the compiled MCP's matrix made with A stands for B."""
    scale = max(1.0, float(np.abs(B.data).max(initial=0.0)))
    if A.shape == B.shape and np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices):
        change = float(np.abs(B.data - A.data).max(initial=0.0))  # one pattern: from the data
    elif A.shape != B.shape:
        change = np.inf
    elif A.shape[0] * A.shape[1] <= _DENSE_DIFFERENCE:  # SciPy's sparse difference: ~0.1 ms when small
        change = float(np.abs(B.toarray() - A.toarray()).max(initial=0.0))
    else:
        change = float(abs(B - A).max())
    return change <= rtol * scale


class AccelerationMap:
    """The map A -> the matrix of a compiled MCP of the reduced form (see :meth:`apply`).

    Every contact's relative accelerations are a = A T y + b over the laws' variables y (c = T y),
    and each law's rows are affine in its own contact's a, so the compiled MCP has

        F(x) = P (A T Q x + b) + (the laws' own terms),

    with P (n, m) the coefficients of the accelerations in the MCP rows and Q the columns of y
    among the MCP variables. For an MCP made from the arrays (:class:`~contactmodel.mcp.direct.
    DirectMCP`) P is its ``rows_b`` and Q its force columns; for a compilation of the model, P is
    found by probing how the compiled constants depend on ``model.b`` (one pass per component n,
    t, o[, r], each row reading only its own contact's accelerations), and the probe must
    reproduce the compiled constants at the model's real b. ``ok`` is False when the compiled MCP
    is not of that shape (a row not affine, or reading another contact's accelerations).

    The laws' own terms may be quadratic (the MNCP's cone slack and slip rows) in an MCP made from
    the arrays: they read the laws' variables (the accelerations among them) and coefficients,
    never A, so the map gives the linear part of F and leaves them as they are.
    """

    def __init__(self, problem: Problem, compiled: CompiledMCP, A: sp.csr_matrix) -> None:
        """The map of ``compiled`` (``problem``'s compiled MCP), whose matrix was made with A."""
        self.compiled = compiled
        self.ok = False
        mcp = compiled.mcp
        if problem.form != "reduced" or compiled.functions is None:
            return
        if mcp.M is None and not isinstance(compiled, DirectMCP):
            return  # a model's compiled quadratic terms are not known to read no A: compile anew
        L = compiled.functions.t.L  # the linear part (an affine MCP's M); the other terms read no A
        n = mcp.n
        if isinstance(compiled, DirectMCP):
            P = compiled.rows_b
            cols = compiled.derived.get("force_columns")
            if P is None or cols is None:
                return
        else:
            P, cols = _probe(problem, compiled)
            if P is None:
                return
        Q = sp.csr_matrix((np.ones(len(cols)), (np.arange(len(cols)), cols)), shape=(len(cols), n))
        self.P = P.tocsr()
        self.TQ = (problem.T @ Q).tocsr()
        rest = (L - self.P @ (A @ self.TQ)).tocsr()
        scale = max(1.0, float(abs(L).max()) if L.nnz else 1.0)
        rest.data[np.abs(rest.data) <= 1e-13 * scale] = 0.0
        rest.eliminate_zeros()
        self.rest = rest
        #: the matrix is A itself (P and T Q the identity, nothing else in the rows: every
        #: contact rolling with the SOC cone, or frictionless): no products to form
        self.is_A = rest.nnz == 0 and is_identity(self.P) and is_identity(self.TQ)
        #: quadratic terms (no affine M): the matrix filled on a pattern kept while A keeps its
        #: own (see :class:`_LinearFill`)
        self._fill: _LinearFill | None = None
        self._affine = mcp.M is not None
        self.ok = True

    def apply(self, A: sp.csr_matrix) -> None:
        """Make the compiled MCP's matrix the one of the same problem with A (m, m)."""
        if self.is_A:  # A's entries, canonical and without stored zeros, as the products give
            M = A.copy()
            M.sum_duplicates()
            M.eliminate_zeros()
            self.compiled.set_matrix(M)
            return
        if not self._affine and A.has_canonical_format:
            fill = self._fill
            if fill is None or not fill.fits(A):
                fill = self._fill = _LinearFill(self.rest, self.P, self.TQ, A)
            self.compiled.set_matrix(fill(A))
            return
        self.compiled.set_matrix((self.rest + self.P @ (A @ self.TQ)).tocsr())


class _LinearFill:
    """``rest + P A TQ`` (n, n) for every A (m, m) of one sparsity pattern, as one sparse product
    with A's entries: ``M.data = rest + K A.data``, ``K`` (M's entries x A's entries) holding
    ``P_ik TQ_lj`` for A's entry (k, l), on M's pattern made once (its index arrays shared by
    every matrix it gives: the Jacobian of the quadratic terms keeps its own pattern by them).
    M may hold entries that are exactly 0. The same numbers as the products up to rounding."""

    def __init__(self, rest: sp.csr_matrix, P: sp.csr_matrix, TQ: sp.csr_matrix, A: sp.csr_matrix) -> None:
        n = rest.shape[0]
        self.indptr, self.indices = A.indptr.copy(), A.indices.copy()
        arows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        acols = A.indices.astype(np.int64)
        Pc = P.tocsc()
        Pc.sort_indices()
        cp = np.diff(Pc.indptr)[arows]  # P's entries in column k of each A entry (k, l)
        ct = np.diff(TQ.indptr)[acols]  # T Q's entries in row l
        each = cp * ct
        entry = np.repeat(np.arange(A.indices.size), each)  # the A entry of each product term
        s = np.arange(entry.size) - np.repeat(np.cumsum(each) - each, each)
        pk = Pc.indptr[arows[entry]] + s // ct[entry]
        tl = TQ.indptr[acols[entry]] + s % ct[entry]
        prow, tcol = Pc.indices[pk].astype(np.int64), TQ.indices[tl].astype(np.int64)
        rkeys = flat_keys(rest)
        keys = np.union1d(rkeys, prow * n + tcol)
        self.rest = np.zeros(keys.size)
        self.rest[np.searchsorted(keys, rkeys)] = rest.data
        self.K = sp.csr_matrix(
            (Pc.data[pk] * TQ.data[tl], (np.searchsorted(keys, prow * n + tcol), entry)),
            shape=(keys.size, A.indices.size),
        )
        indptr, indices = keyed_pattern(keys, (n, n))
        template = sp.csr_matrix((np.zeros(keys.size), indices, indptr), shape=(n, n))
        template.has_canonical_format = True
        self.template = pattern_of(template)

    def fits(self, A: sp.csr_matrix) -> bool:
        """Whether A has the pattern this fill was made for."""
        return np.array_equal(A.indptr, self.indptr) and np.array_equal(A.indices, self.indices)

    def __call__(self, A: sp.csr_matrix) -> sp.csr_matrix:
        return with_data(self.template, self.rest + csr_times(self.K, A.data))


def _probe(problem: Problem, compiled: CompiledMCP) -> tuple:
    """(P, the MCP column of each of T's columns) of a compilation of the model, found by probing
    ``model.b`` (see :class:`AccelerationMap`); (None, None) when the compiled MCP is not of that
    shape. ``model.b`` and the compiled constants are restored."""
    mcp = compiled.mcp
    asm = problem.assembly
    model = problem.model
    owners = [_owner(var, model) for var in compiled.variables]
    if any(o is None for o in owners):
        return None, None
    b_real = read_param_vector(model.b)
    write_param_vector(model.b, np.zeros(asm.m))
    compiled.update()
    q0 = mcp.q.copy()
    pi, pj, pv = [], [], []
    for comp in COMPONENTS:
        rows = [r[comp] for r in asm.contact_rows.values() if comp in r]
        if not rows:
            continue
        probe = np.zeros(asm.m)
        probe[rows] = 1.0
        write_param_vector(model.b, probe)
        compiled.update()
        dq = mcp.q - q0
        for i in np.flatnonzero(dq):
            r = asm.contact_rows[owners[i]].get(comp)
            if r is not None:
                pi.append(i)
                pj.append(r)
                pv.append(dq[i])
    write_param_vector(model.b, b_real)
    compiled.update()
    P = sp.csr_matrix((pv, (pi, pj)), shape=(mcp.n, asm.m))
    atol = 1e-12 * max(1.0, float(np.abs(mcp.q).max(initial=0.0)))
    if not np.allclose(P @ b_real + q0, mcp.q, rtol=1e-12, atol=atol):
        return None, None  # a row reads another contact's accelerations: not this map's shape
    column = {id(v): i for i, v in enumerate(compiled.variables)}
    try:
        cols = [column[id(v)] for v in problem.variables]
    except KeyError:
        return None, None
    return P, np.asarray(cols, dtype=np.int64)


def _owner(var, model) -> str | None:
    """The name of the contact block holding ``var`` (None for a variable outside them)."""
    blk = var.parent_block()
    while blk is not None and blk.parent_block() is not model:
        blk = blk.parent_block()
    if blk is None or blk.parent_component() is not model.contact:
        return None
    return blk.index()


def _update_mu(problem: Problem, mu) -> None:
    """New friction coefficients for cone-block contacts (see :meth:`Problem.update`)."""
    from contactmodel.friction.cone import CoulombCone

    names = problem.contact_names
    if isinstance(mu, Mapping):
        unknown = sorted(set(mu) - set(names))
        if unknown:
            raise FormulationError(
                f"Problem.update: mu names unknown contact(s) {unknown}; the contacts are {names}"
            )
        wanted = {name: mu[name] for name in names if name in mu}
    else:
        values = validate.real_array(mu, "Problem.update: mu", error=FormulationError)
        if values.ndim > 1 or (values.ndim == 1 and values.shape != (len(names),)):
            raise FormulationError(
                f"Problem.update: mu must be one number, one per contact ({len(names)}) or a mapping "
                f"contact name -> mu (got shape {values.shape})"
            )
        wanted = dict(zip(names, np.broadcast_to(values, (len(names),)).tolist()))
    laws = dict(problem.laws)
    made: dict[tuple[int, float], CoulombCone] = {}
    for name, value in wanted.items():
        value = check_coefficient(value, f"Problem.update: mu of contact '{name}'")
        law = laws[name]
        if getattr(law, "mu", None) == value:
            continue
        if problem.built:
            cone = problem.block(name).component("cone")
            has_cone = cone is not None
        else:  # the rows the model would be built with
            cone, has_cone = None, problem.rows_statement[name].cone is not None
        if not isinstance(law, CoulombCone) or not has_cone:
            raise FormulationError(
                f"Problem.update: contact '{name}' has {law!r}, whose mu is a coefficient of the "
                "model's rows (or a sliding contact's force map), not a number the model re-reads; "
                "only CoulombCone(mu, form='soc') at a rolling contact takes a new mu in place. "
                "Build the problem with the new law: problem.reformulate(friction=...)"
            )
        new = made.get((id(law), value))
        if new is None:
            new = made[(id(law), value)] = copy.copy(law)
            new.mu = value
        laws[name] = new
        if cone is not None:
            write_param(cone.mu, value)
        else:  # the rows the model will be built with, and the MCP made without it reads
            problem.rows_statement[name] = new.rows(problem.contexts[name])
    problem.laws = laws
