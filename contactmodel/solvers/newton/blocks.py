"""Independent blocks and the mixed-LCP pivoting fallback of the ``newton`` solver.

**Blocks.** Two variables are coupled when one's row of ``F`` depends on the other (a structural
nonzero of ``J``, in either direction) or they belong to one Coulomb cone block. The connected
components of that graph are independent MCPs: contact groups (boxes on the ground far apart,
separate stacks) that share no body. :func:`solve_blocks` runs the whole system briefly, then
solves each block not yet solved on its own, so one hard or unsolvable block cannot stall the
others' line search, iteration budget or restarts; the answer is the blocks' answers put
together, and the whole is solved iff every block is. The pattern of
``J`` is read at the starting point and at a fixed pseudo-random point of the box, so an entry
that vanishes at the start (e.g. a term multiplied by a zero force) still couples.

**Mixed LCP.** An affine MCP whose rows are free (``lb = -inf, ub = +inf``) or nonnegative
(``lb = 0, ub = +inf``), with no cone blocks, is the mixed LCP ``A u + B v + a = 0``,
``0 <= v _|_ C u + D v + b >= 0`` (the sparse form of a polyhedral friction law: ``u`` the body
accelerations and other free variables). When ``A`` is nonsingular, ``u = -A^-1 (B v + a)``
leaves the LCP ``0 <= v _|_ (D - C A^-1 B) v + (b - C A^-1 a) >= 0`` (a Schur complement), which
Lemke's method solves or proves unsolvable like the reduced form's LCP: :func:`reduce_mlcp` builds
it, :func:`MixedLCP.expand` maps a solution back.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

from contactmodel.mcp.types import MCP, CoulombBlocks, natural_residual
from contactmodel.solvers.base import Outcome, SolverResult
from contactmodel.solvers.newton.core import SETUP_CACHE_N, NewtonOptions, kept_table

__all__ = ["MixedLCP", "components", "reduce_mlcp", "solve_blocks", "sub_mcp"]

#: outcomes of unsolved blocks, the most telling first (the whole run reports the first present)
_WORST = (Outcome.INFEASIBLE, Outcome.TIME_LIMIT, Outcome.ITERATION_LIMIT, Outcome.FAILED)


def _probe_point(mcp: MCP, x0: np.ndarray) -> np.ndarray:
    """A fixed pseudo-random point inside the box (n,), away from the bounds."""
    u = np.random.default_rng(12345).uniform(0.25, 0.75, mcp.n)
    lb, ub = np.asarray(mcp.lb, float), np.asarray(mcp.ub, float)
    lo, up = np.isfinite(lb), np.isfinite(ub)
    x = x0 + u
    x = np.where(lo & ~up, lb + u, x)
    x = np.where(~lo & up, ub - u, x)
    return np.where(lo & up, lb + u * (ub - lb), x)


def components(mcp: MCP, x0: np.ndarray) -> list[np.ndarray]:
    """The independent blocks of ``mcp``: sorted index arrays, one per connected component of
    the coupling graph (see the module docstring), in order of their first variable."""
    n = mcp.n
    if n <= 1:
        return [np.arange(n)]
    key = _pattern_key(mcp)
    J0 = held = None
    if key is None and not mcp.is_linear:
        J0 = mcp.J(x0)
        key, held = _jacobian_key(mcp, J0)
    found = _BLOCKS.get(key) if key is not None else None
    if found is not None and (held is None or (found[1][0] is held[0] and found[1][1] is held[1])):
        return [part.copy() for part in found[0]]
    parts = _components(mcp, x0, J0)
    if key is not None:
        if len(_BLOCKS) >= _BLOCKS_SIZE:
            _BLOCKS.pop(next(iter(_BLOCKS), None), None)  # the oldest (solves may run in threads)
        _BLOCKS[key] = ([part.copy() for part in parts], held)
    return parts


#: the blocks of small affine MCPs by their structure (see :func:`_pattern_key`), of nonlinear ones
#: by their Jacobian's template (see :func:`_jacobian_key`): a time step's
#: problem has new numbers each step, and a step of many islands solves that many problems
_BLOCKS: dict[tuple, tuple[list[np.ndarray], tuple | None]] = kept_table()
_BLOCKS_SIZE = 256


def _pattern_key(mcp: MCP) -> tuple | None:
    """What an affine MCP's blocks depend on (M's pattern and nonzero entries, the cone blocks),
    as a dict key (their BLAKE2 digest); None for other MCPs and those of more than
    ``SETUP_CACHE_N`` rows."""
    M = mcp.M
    if not mcp.is_linear or not sp.isspmatrix_csr(M) or mcp.n > SETUP_CACHE_N:
        return None
    idx = mcp.cones.index if mcp.cones is not None and mcp.cones.k else np.zeros((0, 3), dtype=np.int64)
    digest = hashlib.blake2b(digest_size=32)
    for part in (M.indptr, M.indices, np.packbits(M.data != 0), np.ascontiguousarray(idx)):
        digest.update(part.dtype.str.encode())
        digest.update(part.tobytes())
    return M.shape, idx.shape, digest.digest()


def _jacobian_key(mcp: MCP, J0) -> tuple[tuple | None, tuple | None]:
    """(key, held) of a nonlinear MCP's blocks by its Jacobian at the start ``J0``: when J0's
    index arrays are read-only (the templates an MCP's Jacobian shares between its matrices,
    :func:`contactmodel.sparse_product.pattern_of`), their identity, which ``held`` (the arrays
    themselves, kept with the entry so the identity stays theirs) confirms; (None, None) else.
    One template belongs to one MCP's terms, whose Jacobian at the probe point has one pattern
    too (barring terms that cancel exactly there)."""
    if not sp.isspmatrix_csr(J0) or J0.indptr.flags.writeable or J0.indices.flags.writeable:
        return None, None
    idx = mcp.cones.index if mcp.cones is not None and mcp.cones.k else np.zeros((0, 3), dtype=np.int64)
    return ("J", id(J0.indptr), id(J0.indices), idx.tobytes()), (J0.indptr, J0.indices)


def _components(mcp: MCP, x0: np.ndarray, J0=None) -> list[np.ndarray]:
    """:func:`components`, found from the coupling graph (``J0``: J at ``x0``, when known)."""
    n = mcp.n
    G = sp.csr_matrix(mcp.J(x0) if J0 is None else J0)
    if mcp.is_linear and G.nnz >= n * n:  # a full matrix couples everything
        return [np.arange(n)]
    if mcp.is_linear and mcp.cones is not None and mcp.cones.k:
        # the common case first: J alone couples each cone block's three rows (a contact's
        # Delassus block), so its components are the answer without the union built below
        count, labels = connected_components(G, directed=True, connection="weak")
        idx = mcp.cones.index
        if count == 1:
            return [np.arange(n)]
        if np.all(labels[idx] == labels[idx[:, :1]]):
            return _split(labels)
    if not mcp.is_linear:
        # J at the start alone couples everything (one body's contacts): the union below, which
        # only adds edges, is one component too, without J at the probe point
        count, labels = connected_components(G, directed=True, connection="weak")
        if count == 1:
            return [np.arange(n)]
    extra = []
    if not mcp.is_linear:
        with np.errstate(all="ignore"):
            extra.append(sp.coo_matrix(mcp.J(_probe_point(mcp, x0))))
    if mcp.cones is not None and mcp.cones.k:
        idx = mcp.cones.index
        d = idx.shape[1]
        r, c = np.repeat(idx, d, axis=1).ravel(), np.tile(idx, (1, d)).ravel()
        extra.append(sp.coo_matrix((np.ones(r.size), (r, c)), shape=(n, n)))
    if extra:  # the union of the patterns (values do not matter, only the structure)
        parts = [sp.coo_matrix(G)] + extra
        rows = np.concatenate([p.row for p in parts])
        cols = np.concatenate([p.col for p in parts])
        G = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, n))
    count, labels = connected_components(G, directed=True, connection="weak")
    if count == 1:
        return [np.arange(n)]
    return _split(labels)


def _split(labels: np.ndarray) -> list[np.ndarray]:
    """The index arrays of the components ``labels`` (n,) names, in order of their first index."""
    order = np.argsort(labels, kind="stable")
    splits = np.flatnonzero(np.diff(labels[order])) + 1
    return sorted(np.split(order, splits), key=lambda b: int(b[0]))


def sub_mcp(mcp: MCP, idx: np.ndarray, base: np.ndarray) -> MCP:
    """The MCP of the variables ``idx`` (sorted) with every other variable held at ``base`` (n,);
    exact when ``idx`` is a block of :func:`components` (its rows depend on nothing else)."""
    k = idx.size
    cones = None
    if mcp.cones is not None and mcp.cones.k:
        pos = np.full(mcp.n, -1)
        pos[idx] = np.arange(k)
        inside = np.all(pos[mcp.cones.index] >= 0, axis=1)
        if inside.any():
            cones = CoulombBlocks(pos[mcp.cones.index[inside]], mcp.cones.mu[inside])
    names = _SubNames(mcp.names, idx) if len(mcp.names) == mcp.n else []
    x0 = None if mcp.x0 is None else np.asarray(mcp.x0, float)[idx]
    lb, ub = np.asarray(mcp.lb, float)[idx], np.asarray(mcp.ub, float)[idx]
    if mcp.is_linear:
        M = sp.csr_matrix(mcp.M)[idx][:, idx].tocsr()
        q = np.asarray(mcp.q, float)[idx] + sp.csr_matrix(mcp.M)[idx] @ _outside(base, idx)
        return MCP(
            F=lambda y: M @ y + q, J=lambda y: M, lb=lb, ub=ub, x0=x0, names=names, M=M, q=q, cones=cones
        )

    def full(y: np.ndarray) -> np.ndarray:
        x = base.copy()
        x[idx] = y
        return x

    hess = None
    if mcp.hess is not None:
        h = mcp.hess

        def hess(y: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
            wf = np.zeros(mcp.n)
            wf[idx] = w
            return sp.csr_matrix(h(full(y), wf))[idx][:, idx].tocsr()

    return MCP(
        F=lambda y: np.asarray(mcp.F(full(y)), float)[idx],
        J=lambda y: sp.csr_matrix(mcp.J(full(y)))[idx][:, idx].tocsr(),
        lb=lb,
        ub=ub,
        x0=x0,
        names=names,
        hess=hess,
        cones=cones,
    )


class _SubNames(Sequence):
    """The names of the variables ``idx`` of a parent MCP, read only when asked for (a compiled
    model's names come from Pyomo, slowly)."""

    def __init__(self, names: Sequence[str], idx: np.ndarray) -> None:
        self._names, self._idx = names, idx

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self._names[int(j)] for j in self._idx[i]]
        return self._names[int(self._idx[i])]

    def __len__(self) -> int:
        return int(self._idx.size)


def _outside(base: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``base`` with the entries ``idx`` zeroed (the fixed part of an affine block's rows)."""
    out = np.array(base, dtype=float)
    out[idx] = 0.0
    return out


def solve_blocks(
    mcp: MCP,
    opt: NewtonOptions,
    x: np.ndarray,
    blocks: list[np.ndarray],
    solve_one: Callable[[MCP, NewtonOptions], SolverResult],
    t0: float,
    c0: float,
) -> SolverResult:
    """Solve an MCP made of independent ``blocks`` from ``x`` (n,): first the whole system at once
    for at most ``JOINT_ITER`` iterations (no restarts, no pivoting: one vectorized run is the
    cheapest way when every block is easy), then each block whose natural residual is still above
    ``opt.tol`` on its own by ``solve_one`` (with ``decouple`` off, its own ``max_iter``,
    restarts and fallbacks, from its part of ``x``, within the time left of ``opt.time_limit``).

    CONVERGED iff every block converged, else the first of INFEASIBLE, TIME_LIMIT,
    ITERATION_LIMIT, FAILED among the blocks; ``iterations`` counts the joint run and the
    largest block's; ``extras`` has ``blocks``, ``blocks_unsolved`` (indices),
    ``blocks_separate`` (the indices solved on their own), ``block_sizes``, the summed counters,
    ``residual`` and a block's ``certificate`` (Farkas vector) in the full variable order."""
    deadline = math.inf if opt.time_limit is None else t0 + opt.time_limit
    joint_opt = replace(
        opt,
        decouple=False,
        max_iter=min(opt.max_iter, JOINT_ITER),
        restarts=False,
        pivot_fallback=False,
        liftoff_rounds=0,
    )
    joint = solve_one(mcp, joint_opt)
    if joint.outcome is Outcome.CONVERGED:
        joint.extras.update(blocks=len(blocks), blocks_unsolved=[], blocks_separate=[])
        joint.extras["block_sizes"] = [int(b.size) for b in blocks]
        return joint
    out = np.array(joint.x if joint.x is not None else x, dtype=float)
    with np.errstate(all="ignore"):
        nat = np.abs(natural_residual(mcp, out))
    nat[~np.isfinite(nat)] = math.inf
    results: list[SolverResult] = []
    separate: list[int] = []
    for k, idx in enumerate(blocks):
        block_res = float(nat[idx].max(initial=0.0))
        if block_res <= opt.tol:
            results.append(SolverResult(out[idx], Outcome.CONVERGED, 0, _PLAIN, {"residual": block_res}))
            continue
        separate.append(k)
        left = deadline - time.perf_counter()
        if left <= 0.0:
            message = f"time limit {opt.time_limit} s reached"
            results.append(SolverResult(out[idx], Outcome.TIME_LIMIT, 0, message, {"residual": block_res}))
            continue
        sub = sub_mcp(mcp, idx, out)
        res = _solve_block(sub, opt, (x[idx], out[idx]), deadline, solve_one)
        if res.x is not None and float(res.extras.get("residual", math.inf)) <= block_res:
            out[idx] = res.x
        results.append(res)
    unsolved = [k for k, r in enumerate(results) if r.outcome is not Outcome.CONVERGED]
    outcome = Outcome.CONVERGED
    message = (
        f"natural residual below tolerance in each of {len(blocks)} independent blocks "
        f"({len(separate)} solved on their own)"
    )
    notes = [f"block {k}: {results[k].message}" for k in separate if results[k].message != _PLAIN]
    if unsolved:
        outcome = next(o for o in _WORST if any(results[k].outcome is o for k in unsolved))
        first = next(k for k in unsolved if results[k].outcome is outcome)
        message = (
            f"{len(unsolved)} of {len(blocks)} independent blocks not solved; block {first} "
            f"({blocks[first].size} variables): {results[first].message}"
        )
    elif notes:
        message += "; " + "; ".join(notes[:3]) + ("; ..." if len(notes) > 3 else "")
    extras = _extras(mcp, blocks, [joint] + results, t0, c0)
    extras.update(blocks_unsolved=unsolved, blocks_separate=separate)
    return SolverResult(
        x=out,
        outcome=outcome,
        iterations=joint.iterations + max((results[k].iterations for k in separate), default=0),
        message=message,
        extras=extras,
    )


def _solve_block(
    sub: MCP,
    opt: NewtonOptions,
    starts: tuple[np.ndarray, np.ndarray],
    deadline: float,
    solve_one: Callable[[MCP, NewtonOptions], SolverResult],
) -> SolverResult:
    """One block on its own: from the starting point, then (if that fails and time is left)
    from the joint run's point, the better result kept (each start suits some blocks the other
    does not: on the fuzz scenes, MNCP cone blocks the joint run had nearly solved). The cone
    method's lift-off rounds (``liftoff_rounds``) run only in the last start's run: a block the
    second start solves by its attempts is not first searched by them from the first."""
    best: SolverResult | None = None
    for k, start in enumerate(starts):
        left = deadline - time.perf_counter()
        if best is not None and left <= 0.0:
            break
        sub_opt = replace(
            opt, decouple=False, x0=start, time_limit=None if math.isinf(left) else max(left, 1e-3)
        )
        if k < len(starts) - 1:  # lift-off rounds only after the last start's attempts
            sub_opt = replace(sub_opt, liftoff_rounds=0)
        res = solve_one(sub, sub_opt)
        if best is None or float(res.extras.get("residual", math.inf)) < float(
            best.extras.get("residual", math.inf)
        ):
            best = res
        if best.outcome in (Outcome.CONVERGED, Outcome.INFEASIBLE):
            break
    assert best is not None
    return best


#: iterations of the joint run of :func:`solve_blocks` before the blocks are solved on their own
JOINT_ITER = 50
_PLAIN = "natural residual below tolerance"  # newton/core.py's message of a plain convergence


def _extras(
    mcp: MCP, blocks: list[np.ndarray], runs: list[SolverResult], t0: float, c0: float
) -> dict[str, Any]:
    """The combined ``extras`` of :func:`solve_blocks` (``runs``: the joint run, then one result
    per block): counts (ints, floats) summed, flags or-ed, anything else (the residual history,
    the pivoting details) from the run with the largest residual or else the first that has it."""
    results = runs
    worst = max(range(len(results)), key=lambda k: results[k].extras.get("residual", math.inf))
    order = [worst] + [k for k in range(len(results)) if k != worst]
    extras: dict[str, Any] = {}
    for k in order:
        for key, value in results[k].extras.items():
            if key in extras or key == "certificate":
                continue
            values = [r.extras[key] for r in results if key in r.extras]
            if all(isinstance(v, bool) for v in values):
                extras[key] = any(values)
            elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
                extras[key] = sum(values)
            else:
                extras[key] = value
    extras.update(
        blocks=len(blocks),
        block_sizes=[int(b.size) for b in blocks],
        block_iterations=[int(r.iterations) for r in results[1:]],
        residual=max(float(r.extras.get("residual", math.inf)) for r in results[1:]),
        seconds=time.perf_counter() - t0,
        cpu_seconds=time.process_time() - c0,
    )
    for k, r in enumerate(results[1:]):
        if "certificate" in r.extras:
            y = np.zeros(mcp.n)
            y[blocks[k]] = r.extras["certificate"]
            extras["certificate"] = y
            break
    return extras


# -- the mixed LCP --------------------------------------------------------------------------------


@dataclass
class MixedLCP:
    """The LCP ``0 <= v _|_ S v + r >= 0`` of an affine MCP's nonnegative rows ``lcp_rows`` after
    eliminating its free rows ``free`` (``u = -A^-1 (B v + a)``, see the module docstring)."""

    free: np.ndarray
    lcp_rows: np.ndarray
    S: np.ndarray
    r: np.ndarray
    solve_free: Callable[[np.ndarray], np.ndarray]
    B: sp.csr_matrix
    a: np.ndarray

    def expand(self, v: np.ndarray, n: int) -> np.ndarray:
        """The full MCP point (n,) of the LCP's ``v``: ``x[lcp_rows] = v``, ``x[free] = u``."""
        x = np.zeros(n)
        x[self.lcp_rows] = v
        x[self.free] = -self.solve_free(self.B @ v + self.a)
        return x


def reduce_mlcp(mcp: MCP, max_n: int) -> MixedLCP | None:
    """The :class:`MixedLCP` of ``mcp``, or None when it is not a mixed LCP with free rows, has
    more than ``max_n`` nonnegative rows, or its free block ``A`` is singular."""
    if not mcp.is_linear or mcp.cones is not None:
        return None
    lb, ub = np.asarray(mcp.lb, float), np.asarray(mcp.ub, float)
    free = np.isneginf(lb) & np.isposinf(ub)
    nonneg = (lb == 0.0) & np.isposinf(ub)
    if not free.any() or not np.all(free | nonneg) or not 0 < np.count_nonzero(nonneg) <= max_n:
        return None
    f, v = np.flatnonzero(free), np.flatnonzero(nonneg)
    M = sp.csr_matrix(mcp.M)
    q = np.asarray(mcp.q, float)
    A = M[f][:, f].tocsc()
    try:
        lu = spla.splu(A)
    except RuntimeError:  # exactly singular
        return None
    B, C, D = M[f][:, v].tocsr(), M[v][:, f].tocsr(), M[v][:, v].toarray()
    AinvB = lu.solve(B.toarray()) if B.shape[1] else np.zeros((f.size, 0))
    Ainva = lu.solve(q[f])
    if not (np.all(np.isfinite(AinvB)) and np.all(np.isfinite(Ainva))):
        return None
    S = D - C @ AinvB
    r = q[v] - C @ Ainva
    return MixedLCP(f, v, np.asarray(S), np.asarray(r), lu.solve, B, q[f])
