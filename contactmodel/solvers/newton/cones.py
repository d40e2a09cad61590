"""The ``newton`` solver on MCPs with Coulomb cone blocks (``CoulombCone(mu, form="soc")``).

Semismooth Newton on the natural map, one row per variable:

* box rows:   ``Phi_i = x_i - mid(lb_i, x_i - s_i F_i, ub_i)`` (free rows: ``s_i F_i``);
* cone block: ``Phi_b = c_b - Proj_{K_mu}(c_b - rho_b a_hat_b)``, ``a_hat`` De Saxce's modified
  acceleration (:mod:`contactmodel.mcp.cones`),

with row scales ``s_i = 1 / max_j |J_ij(x0)|`` (one ``rho_b`` per block, the smallest of its rows',
so the cone stays a cone). Both maps vanish exactly at the solutions for any positive scale.
An element of the generalized Jacobian is ``H = Da + Db J`` with ``Da, Db`` block diagonal (d x d
per cone block, diagonal elsewhere; d = 3, or 4 for a soft finger's block, see
:class:`~contactmodel.mcp.types.CoulombBlocks`). Rows that are a unit row of ``H`` (a variable at
a bound, a cone block whose point projects to 0, i.e. a separating contact) are eliminated before
the LU.

The globalization is the one of :mod:`contactmodel.solvers.newton.core` (shared with the box-MCP
method): Newton, regularized Newton, Levenberg-Marquardt and gradient steps through a nonmonotone
Armijo arc search on ``psi = 1/2 ||Phi||^2``, watchdog, stall test and restarts. What this method
plugs in: the natural map and its blocks, the projection (box rows clipped, cone blocks free), and
its proximal weight ``eps Db`` (of the order of ``newton_reg`` x |J| x the residual relative to
the start, see :meth:`ConeMethod.eps`), on from the first step for systems factored by SuperLU
(large and sparse: their matrix is exactly singular wherever contact Jacobian rows are
dependent), and ten times larger after each watchdog return. Its restarts are regularized, then
also without row scaling. Convergence is decided on the unscaled natural residual (rho = 1, the
dispatcher's measure). The fields of :class:`~contactmodel.solvers.newton.core.NewtonOptions`
marked *box only* (merit, polish, pivoting fallback, refinement, chord steps) do not apply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from contactmodel.mcp import cones
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.newton import core, kernels, small
from contactmodel.solvers.newton.core import NewtonMethod, NewtonOptions, dense_lu

_DENSE_N = 150
_DENSE_FRACTION = 0.15
_EPS_SCALE = 0.1
#: what the compiled attempt takes for the path it does not run (the types of the real ones)
_NO_DENSE = np.zeros((0, 0))
_NO_PATTERN = (
    np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros((3, 0), dtype=np.int64),
    np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.int64), np.zeros((0, 3), dtype=np.int64),
)  # fmt: skip


@dataclass
class _Point:
    x: np.ndarray
    F: np.ndarray
    phi: np.ndarray  # scaled natural map (n,)
    da_box: np.ndarray  # (nb,) Da on the box rows
    db_box: np.ndarray  # (nb,) Db on the box rows
    da_cone: np.ndarray  # (k, d, d)
    db_cone: np.ndarray  # (k, d, d)
    psi: float
    res: float  # unscaled natural residual, inf-norm
    sep: np.ndarray  # (k,) cone blocks with Da = I, Db = 0 (separating): unit rows of H


class _Pattern:
    """The sparsity pattern of ``H = Da + Db J`` for one pattern of ``J`` (n, n), in CSC order
    (columns, then rows, ascending), and where each entry's terms are in ``J``.

    ``Db`` is block diagonal (a d x d block per cone block, diagonal on the box rows), so row ``r``
    of ``Db J`` combines at most d rows of ``J``, its *sources* ``src[r]`` (ascending; the box
    row ``i`` has the one source ``i``). Entry ``e`` of ``H`` at ``(rows[e], cols[e])`` is
    ``sum_s coef[rows[e], s] * J[src[rows[e], s], cols[e]]`` plus its ``Da`` entry: the terms in
    SciPy's order for ``Da + Db @ J`` (sources ascending, then ``Da``), so the same numbers.
    """

    def __init__(
        self,
        J: sp.csr_matrix,
        box: np.ndarray,
        idx: np.ndarray,
        diag: tuple[np.ndarray, np.ndarray],
        compiled: bool,
    ) -> None:
        n = J.shape[0]
        self.J = J
        self.indptr_J, self.indices_J = J.indptr.copy(), J.indices.copy()
        self.compiled = compiled
        order = np.argsort(idx, axis=1, kind="stable")
        srt = np.take_along_axis(idx, order, 1)
        self.perm = None if np.array_equal(srt, idx) else order  # sources ascending per block
        self.order = order
        d = idx.shape[1]
        src = np.full((n, d), -1, dtype=np.int64)
        src[box, 0] = box
        src[idx.ravel()] = np.repeat(srt, d, axis=0)
        self.src = src
        if compiled:
            self.indptr, self.rows, self.gather = kernels.cone_pattern(J.indptr, J.indices, src)
        else:
            self._build(J, src, diag)
        self.cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.indptr))
        drows, dcols = diag  # the entries of Da: the box rows' diagonal, the cone blocks
        keys = self.cols * n + self.rows  # ascending: CSC order
        self.dpos = np.searchsorted(keys, dcols.astype(np.int64) * n + drows)

    def _build(self, J: sp.csr_matrix, src: np.ndarray, diag: tuple[np.ndarray, np.ndarray]) -> None:
        """``indptr``, ``rows`` and ``gather`` by SciPy's sparse product and binary searches (what
        :func:`~contactmodel.solvers.newton.kernels.cone_pattern` does in one compiled pass)."""
        n = J.shape[0]
        drows, dcols = diag
        S = sp.csr_matrix((np.ones(drows.size), (drows, dcols)), shape=(n, n))
        P = (S @ abs(J) + S).tocsc()  # positive entries: no cancellation drops one
        P.sort_indices()
        self.indptr = P.indptr.astype(np.int64)
        self.rows = P.indices.astype(np.int64)
        cols = np.repeat(np.arange(n, dtype=np.int64), np.diff(P.indptr))
        jrows = np.repeat(np.arange(n, dtype=np.int64), np.diff(J.indptr))
        jkeys = jrows * n + J.indices  # ascending: J is canonical CSR
        self.gather = np.full((src.shape[1], self.rows.size), J.nnz, dtype=np.int64)  # J.data positions
        for s in range(src.shape[1]) if jkeys.size else ():
            sr = src[self.rows, s]
            want = sr * n + cols
            pos = np.minimum(np.searchsorted(jkeys, want), jkeys.size - 1)
            found = (sr >= 0) & (jkeys[pos] == want)
            self.gather[s, found] = pos[found]

    def fits(self, J: sp.csr_matrix) -> bool:
        """True when ``J`` has the sparsity pattern this was built for."""
        if J is self.J:  # e.g. the constant Jacobian of an affine F
            return True
        return np.array_equal(J.indptr, self.indptr_J) and np.array_equal(J.indices, self.indices_J)

    def values(self, J: sp.csr_matrix, coef: np.ndarray, da: np.ndarray) -> np.ndarray:
        """Entries of ``Da + Db J``: ``coef`` (n, d) the rows of ``Db`` on their sources, ``da``
        the entries of ``Da`` (box diagonal, then the cone blocks' d x d row-major)."""
        jx = np.append(J.data, 0.0)
        r, g = self.rows, self.gather
        data = coef[r, 0] * jx[g[0]]
        for s in range(1, coef.shape[1]):
            data += coef[r, s] * jx[g[s]]
        data[self.dpos] += da
        return data


#: the block structures of small problems (see :func:`_structure`), by (n, the blocks' rows)
_STRUCTURES: dict[tuple, tuple] = core.kept_table()
_STRUCTURES_SIZE = 256  # a step of many islands solves that many structures


def _structure(n: int, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """(the box rows, each row's block and place in it (n, 2), the rows and columns of the block
    diagonal entries of H, see :meth:`ConeMethod._da`) of n rows with the cone blocks ``idx``
    (k, d); kept for problems of at most ``core.SETUP_CACHE_N`` rows (a time step's problem has a
    new matrix each step, the same blocks). The arrays are shared: read, never written."""
    key = (n, idx.shape, idx.dtype.str, idx.tobytes()) if n <= core.SETUP_CACHE_N else None
    found = _STRUCTURES.get(key) if key is not None else None
    if found is not None:
        return found
    in_cone = np.zeros(n, dtype=bool)
    in_cone[idx.ravel()] = True
    box = np.flatnonzero(~in_cone)
    block = np.full((n, 2), -1, dtype=np.int64)
    block[box, 1] = np.arange(box.size)
    d = idx.shape[1]
    block[idx.ravel(), 0] = np.repeat(np.arange(idx.shape[0]), d)
    block[idx.ravel(), 1] = np.tile(np.arange(d), idx.shape[0])
    dpattern = (
        np.concatenate([box, np.repeat(idx, d, axis=1).ravel()]),
        np.concatenate([box, np.tile(idx, (1, d)).ravel()]),
    )
    found = (box, block, dpattern)
    if key is not None:
        if len(_STRUCTURES) >= _STRUCTURES_SIZE:
            _STRUCTURES.pop(next(iter(_STRUCTURES), None), None)  # the oldest (solves may run in threads)
        _STRUCTURES[key] = found
    return found


class ConeMethod(NewtonMethod):
    """The cone-block method of the ``newton`` solver (see the module docstring)."""

    # only a failed search regularizes: escalating after shortened steps cost an iteration on
    # FCLIB Confeti-ex13-Fc3D-SBM (8 -> 9) and changed no solved count
    escalate_on_short_step = False
    restarts = ({"regularize": "always"}, {"regularize": "always", "scale_rows": False})

    # the box-MCP machinery (refinement, polish, chord steps, the pivoting fallback; see
    # NewtonOptions) does not apply to cone blocks: only the first is read outside the box method
    refines = False

    def __init__(self, mcp: MCP, opt: NewtonOptions) -> None:
        super().__init__(mcp, opt)
        self.lb = np.asarray(mcp.lb, dtype=float)
        self.ub = np.asarray(mcp.ub, dtype=float)
        self.idx = mcp.cones.index
        self.mu = mcp.cones.mu
        self.affine = mcp.M is not None
        # what follows from M and the blocks alone, kept between solves of small problems
        cache = core.setup_cache(mcp.M) if self.affine else None
        self.kept = None if cache is None else cache.get("cone")
        if cache is not None and not (self.kept is not None and np.array_equal(self.kept["idx"], self.idx)):
            self.kept = cache["cone"] = {"idx": self.idx.copy()}
        self.box, self.block, self._dpattern = _structure(self.n, self.idx)
        self.lb_box, self.ub_box = self.lb[self.box], self.ub[self.box]
        self.s_box = np.ones(self.box.size)
        self.rho = np.ones(self.idx.shape[0])
        self.j_scale = 1.0
        self.boost = 1.0  # grows 10x at each watchdog return
        self.phi0 = 1.0  # ||Phi||_inf at the start of the attempt
        self.numba = opt.kernels != "numpy" and kernels.AVAILABLE  # see newton/kernels.py
        self._J: sp.csr_matrix | None = None
        self._JT: sp.csc_matrix | None = None  # J.T of the constant J of an affine F: a CSC view
        self._pattern: _Pattern | None = None
        self._Jd: np.ndarray | None = None
        self._J0: sp.csr_matrix | None = None  # J at the starting point: the row scales
        self.affine_mq: bool | None = None  # F(x) == M x + q as newton/small.py sums it (checked once)
        self.held: np.ndarray | None = None  # (k,) cone blocks held separated (lift-off rounds)
        self.n_liftoff = 0
        self.n_compiled = 0  # attempts run by the compiled loop of newton/small.py
        self.lifted: list[int] = []

    def begin_attempt(self, x: np.ndarray) -> _Point | None:
        """Row scales and regularization of the attempt's options; the point at ``x``."""
        opt = self.opt
        if self._J0 is None:
            self._J0 = self.J(x)
        self.set_scaling(self._J0, opt.scale_rows)
        # SuperLU reports an exactly singular matrix only after printing BLAS errors, and the
        # sparse form's Newton matrix is singular wherever G has dependent rows (more contacts
        # than a body's 6 dof): the sparse path is regularized from the start
        sparse_path = self.dense_J(self._J0) is None and opt.regularize != "never"
        self.regularized = opt.newton_reg > 0 and (opt.regularize == "always" or sparse_path)
        self.boost = 1.0
        pt = self.point(x)
        if pt is not None:
            self.phi0 = max(float(np.max(np.abs(pt.phi), initial=0.0)), 1e-300)
        return pt

    def compiled_attempt(
        self, pt: _Point, deadline: float, max_iter: int, history: list[float]
    ) -> tuple[_Point, Outcome, str, int] | None:
        """The attempt by :func:`contactmodel.solvers.newton.small.attempt` (numba) when it
        applies: compiled kernels on, affine ``F``, no blocks held; the Newton matrix dense or,
        on the sparse path, its kept block factored by SuperLU as :meth:`newton_direction` does."""
        J = self._J
        if not (self.numba and small.AVAILABLE and self.affine and self.held is None and J is not None):
            return None
        Jd, M, q = self.dense_J(J), self.mcp.M, self.mcp.q
        if q is None or not sp.isspmatrix_csr(M):
            return None
        if not self.affine_mq:  # the compiled loop evaluates M x + q itself
            return None
        dense = Jd is not None
        if dense:
            pattern = _NO_PATTERN
        else:
            pat = self.pattern(J)
            pattern = (pat.rows, pat.indptr, pat.gather, pat.dpos, self.block, pat.order)
            Jd = _NO_DENSE
        opt = self.opt
        fopt = (
            float(opt.tol), float(opt.armijo_sigma), float(opt.backtrack), float(opt.min_step),
            float(opt.newton_min_step), float(opt.descent_rho), float(opt.descent_p), float(opt.lm_mu),
            float(opt.newton_reg),
        )  # fmt: skip
        can_escalate = int(opt.newton_reg > 0.0 and opt.regularize != "never")
        iopt = (int(max_iter), int(opt.stall_iter), int(opt.nonmonotone_memory), can_escalate)
        best, code, its, hist, counts, regularized, self.boost, self.last_step = small.attempt(
            pt.x, M.data, M.indices, M.indptr, np.asarray(q, dtype=float), J.data, J.indices, J.indptr,
            Jd, self.box, self.lb_box, self.ub_box, self.s_box, self.idx, self.mu, self.rho,
            fopt, iopt, self.regularized, self.boost, self.phi0, self.j_scale, float(deadline),
            dense, pattern,
        )  # fmt: skip
        self.regularized = bool(regularized)
        self.n_compiled += 1
        self.n_factor += int(counts[0])
        self.n_lm += int(counts[1])
        self.n_gradient += int(counts[2])
        self.n_watchdog += int(counts[3])
        self.n_feval += int(counts[4])
        history.extend(hist.tolist())
        outcome, message = small.verdict(code, opt)
        x, F, phi, da_box, db_box, Da, Db, sep, psi, res = best
        end = _Point(x, F, phi, da_box, db_box, Da, Db, float(psi), float(res), sep)
        return end, outcome, message, int(its)

    def watchdog(self) -> None:
        """Regularized, with ten times the proximal weight, from the best point."""
        self.escalate()
        self.boost *= 10.0

    def extras(self) -> dict[str, Any]:
        out: dict[str, Any] = {"cone_blocks": int(self.idx.shape[0])}
        out["kernels"] = "numba" if self.numba else "numpy"
        out["compiled_attempts"] = self.n_compiled
        if self.n_liftoff:
            out.update(liftoff_rounds=self.n_liftoff, liftoff_blocks=list(self.lifted))
        return out

    def _hold(
        self, c: np.ndarray, a: np.ndarray, R: np.ndarray, Da: np.ndarray, Db: np.ndarray, sep: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray]:
        """The natural map of the problem with the blocks ``self.held`` held separated: their rows
        ``Phi_b = c_b`` (``Da = I``, ``Db = 0``: unit rows of H, c_b = 0 after a whole step), the
        others as given; ``(R, Da, Db, res, sep)`` with ``res`` the unscaled residual of that
        problem (inf-norm)."""
        h = self.held
        R, Da, Db, sep = R.copy(), Da.copy(), Db.copy(), sep.copy()
        R[h], Da[h], Db[h], sep[h] = c[h], np.eye(c.shape[1]), 0.0, True
        free = cones.residual(c[~h], a[~h], self.mu[~h])
        res = max(float(np.max(np.abs(free), initial=0.0)), float(np.max(np.abs(c[h]), initial=0.0)))
        return R, Da, Db, res, sep

    def rescue(self, best: _Point, deadline: float, history: list[float]) -> tuple[_Point, int, str] | None:
        """Lift-off rounds (``liftoff_rounds``, see
        :class:`~contactmodel.solvers.newton.core.NewtonOptions`) from ``best``; None when off or
        without cone blocks. Each round releases the held blocks whose normal acceleration
        ``a_N`` is negative at the last point, holds separated the block (not held) with the
        largest ``min(c_N, rho a_N) > 0``, and runs one attempt (:func:`core.iterate`)
        on the problem with the held blocks' rows ``Phi_b = c_b``; its end point is measured on
        the problem as given, and the rounds stop once that is below ``tol``, at the deadline,
        or when nothing is left to hold or release."""
        k, rounds = self.idx.shape[0], self.opt.liftoff_rounds
        if rounds == 0 or k == 0:
            return None
        self.set_scaling(self._J0, self.opt.scale_rows)  # rho of the first attempt, not the last
        held = np.zeros(k, dtype=bool)
        pt, top, its = best, best, 0
        for _ in range(rounds):
            cn, an = pt.x[self.idx[:, 0]], pt.F[self.idx[:, 0]]
            release = held & (an < 0.0)  # pushed into contact: no longer separating
            score = np.where(held, 0.0, np.minimum(cn, self.rho * an))
            if not (release.any() or score.max(initial=0.0) > 0.0):
                break
            held &= ~release
            if score.max(initial=0.0) > 0.0:
                held[int(np.argmax(score))] = True
            self.held, self.n_liftoff = held.copy(), self.n_liftoff + 1
            try:
                start = self.begin_attempt(pt.x)
                if start is None:
                    break
                end, outcome, _, n_it = core.iterate(self, start, deadline, self.opt.max_iter, [])
            finally:
                self.held = None
            its += n_it
            pt = self.point(end.x)
            if pt is None:
                break
            history.append(pt.res)
            if pt.res < top.res:
                top, self.lifted = pt, [int(b) for b in np.flatnonzero(held)]
            if top.res <= self.opt.tol or outcome is Outcome.TIME_LIMIT:
                break
        note = f"{self.n_liftoff} lift-off rounds, cone blocks {self.lifted} held separated at the best point"
        return top, its, note

    def eps(self, pt: _Point) -> float:
        """Proximal weight of the regularized Newton matrix at ``pt`` (0 while not regularized):
        ``_EPS_SCALE`` x ``newton_reg`` x the median row norm of J x ``||Phi||_inf /
        ||Phi(x_start)||_inf`` (at most 1), x10 after each watchdog return. Measured: a weight
        proportional to the unscaled ``||Phi||`` (N) stalled the sparse form of stacked boxes; one
        capped at 1e-2 of |J| let Newton cycle on an fc3d instance (seed 8, 400 contacts)."""
        if not self.regularized:
            return 0.0
        ratio = min(1.0, float(np.max(np.abs(pt.phi), initial=0.0)) / self.phi0)
        return _EPS_SCALE * self.opt.newton_reg * self.j_scale * self.boost * ratio

    def set_scaling(self, J: sp.csr_matrix, on: bool) -> None:
        if not on:
            self.j_scale = 1.0
            self.s_box = np.ones(self.box.size)
            self.rho = np.ones(self.idx.shape[0])
            return
        kept = self.kept if J is self._J else None
        if kept is not None and "scaling" in kept:
            self.j_scale, self.s_box, self.rho = kept["scaling"]
            return
        if self.numba:  # the same numbers in one compiled loop
            self.j_scale, self.s_box, self.rho = kernels.cone_scales(J.data, J.indptr, self.box, self.idx)
            self.j_scale = float(self.j_scale)
            if kept is not None:
                kept["scaling"] = (self.j_scale, self.s_box, self.rho)
            return
        norms = np.zeros(self.n)
        a = np.abs(J.data)
        nonempty = np.diff(J.indptr) > 0
        if a.size:
            norms[nonempty] = np.maximum.reduceat(a, J.indptr[:-1][nonempty])
        norms = np.where(np.isfinite(norms) & (norms > 0), norms, 1.0)
        self.j_scale = float(np.median(norms)) if norms.size else 1.0
        self.s_box = 1.0 / norms[self.box]
        self.rho = 1.0 / np.max(norms[self.idx], axis=1)
        if kept is not None:
            kept["scaling"] = (self.j_scale, self.s_box, self.rho)

    def J(self, x: np.ndarray) -> sp.csr_matrix:
        if self.affine and self._J is not None:
            return self._J
        self.n_jeval += 1
        if self.kept is not None and "J" in self.kept:
            J = self.kept["J"]
            self._JT = self.kept.get("JT")
            self._J = self.mcp.M if J is None else J  # None: M itself (see core.setup_cache)
            return self._J
        J = self.mcp.J(x)
        J = sp.csr_matrix(J) if not sp.issparse(J) else J.tocsr()
        J.sum_duplicates()
        if self.affine:
            self._J = J  # its transpose made when the numpy path needs it (see gradient)
            if self.kept is not None:
                self.kept["J"] = None if J is self.mcp.M else J
        return J

    def dense_J(self, J: sp.csr_matrix) -> np.ndarray | None:
        """Dense copy of J when the Newton matrix is better factored dense (cached when affine)."""
        if not (self.n <= _DENSE_N or J.nnz > _DENSE_FRACTION * self.n * self.n):
            return None
        if self.affine:
            if self._Jd is None:
                kept = self.kept if J is self._J else None
                self._Jd = kept.get("Jd") if kept is not None else None
                if self._Jd is None:
                    self._Jd = J.toarray()
                    if kept is not None:
                        kept["Jd"] = self._Jd
            return self._Jd
        return J.toarray()

    def _check_affine(self, x: np.ndarray) -> bool:
        """Once: ``F(x) = M x + q`` bit for bit at ``x`` with numba on, so that the compiled
        point of :mod:`~contactmodel.solvers.newton.small` (which sums ``M x + q`` itself) may
        replace ``mcp.F``."""
        M, q = self.mcp.M, self.mcp.q
        ok = self.numba and small.AVAILABLE and self.affine and q is not None and sp.isspmatrix_csr(M)
        with np.errstate(all="ignore"):
            self.affine_mq = bool(ok and np.array_equal(M @ x + q, np.asarray(self.mcp.F(x), dtype=float)))
        return self.affine_mq

    def point(self, x: np.ndarray) -> _Point | None:
        self.n_feval += 1
        if self.held is None and (self.affine_mq or (self.affine_mq is None and self._check_affine(x))):
            M = self.mcp.M
            F, phi, da_box, db_box, Dac, Dbc, sep, psi, res, finite = small.point(
                x, M.data, M.indices, M.indptr, np.asarray(self.mcp.q, dtype=float), self.box,
                self.lb_box, self.ub_box, self.s_box, self.idx, self.mu, self.rho,
            )  # fmt: skip
            if not finite:
                return None
            return _Point(x, F, phi, da_box, db_box, Dac, Dbc, float(psi), float(res), sep)
        with np.errstate(all="ignore"):
            F = np.asarray(self.mcp.F(x), dtype=float).reshape(self.n)
        if not np.all(np.isfinite(F)):
            return None
        b = self.box
        phi = np.empty(self.n)
        xb, Fb = x[b], F[b]
        y = xb - self.s_box * Fb
        at = (y <= self.lb_box) | (y >= self.ub_box)
        phi[b] = xb - np.clip(y, self.lb_box, self.ub_box)
        da_box = at.astype(float)
        db_box = np.where(at, 0.0, self.s_box)
        c, a = x[self.idx], F[self.idx]
        if self.numba:  # the same numbers in one compiled loop
            R, Dac, Dbc, res_cone, sep = kernels.cone_point(c, a, self.mu, self.rho)
        else:
            R, Dac, Dbc = cones.natural_map(c, a, self.mu, self.rho)
            res_cone = float(np.max(np.abs(cones.residual(c, a, self.mu)), initial=0.0))
            sep = np.all(Dbc == 0.0, axis=(1, 2)) & np.all(Dac == np.eye(c.shape[1]), axis=(1, 2))
        if self.held is not None:
            R, Dac, Dbc, res_cone, sep = self._hold(c, a, R, Dac, Dbc, sep)
        phi[self.idx] = R
        res_box = np.abs(xb - np.clip(xb - Fb, self.lb_box, self.ub_box))
        res = max(float(np.max(res_box, initial=0.0)), res_cone)
        return _Point(x, F, phi, da_box, db_box, Dac, Dbc, 0.5 * float(phi @ phi), res, sep)

    # -- the Newton matrix H = Da + Db (J + eps I) ---------------------------------------------
    def pattern(self, J: sp.csr_matrix) -> _Pattern:
        """The :class:`_Pattern` of ``H`` for ``J``'s sparsity pattern (rebuilt when it changes)."""
        pat = self._pattern
        if pat is None or not pat.fits(J):
            pat = self._pattern = _Pattern(J, self.box, self.idx, self._dpattern, self.numba)
        return pat

    def values(self, pt: _Point, J: sp.csr_matrix, eps: float) -> np.ndarray:
        """The entries of ``H = Da + eps Db + Db J`` in the order of :meth:`pattern`."""
        pat = self.pattern(J)
        if self.numba:
            return kernels.cone_values(
                J.data, pat.rows, pat.gather, pat.dpos, self.block, pat.order,
                pt.da_box, pt.db_box, pt.da_cone, pt.db_cone, eps,
            )  # fmt: skip
        d = self.idx.shape[1]
        coef = np.empty((self.n, d))  # row r of Db on its sources pat.src[r]
        coef[self.box, 0] = pt.db_box
        coef[self.box, 1:] = 0.0
        db = pt.db_cone if pat.perm is None else np.take_along_axis(pt.db_cone, pat.perm[:, None, :], 2)
        coef[self.idx.ravel()] = db.reshape(-1, d)
        return pat.values(J, coef, self._da(pt, eps))

    def _da(self, pt: _Point, eps: float) -> np.ndarray:
        """The entries of ``Da + eps Db`` on the block diagonal: the box rows' diagonal, then the
        cone blocks' d x d blocks row-major (the order of :class:`_Pattern`'s ``dpos``)."""
        return np.concatenate([pt.da_box + eps * pt.db_box, (pt.da_cone + eps * pt.db_cone).ravel()])

    def matrix(
        self, pt: _Point, J: sp.csr_matrix, eps: float, order: str = "C"
    ) -> np.ndarray | sp.csc_matrix:
        """H as a dense array in ``order`` (the dense path, see :meth:`dense_J`) or a CSC matrix."""
        Jd = self.dense_J(J)
        if Jd is not None:
            H = np.zeros((self.n, self.n), order=order)
            b, idx = self.box, self.idx
            H[b] = pt.db_box[:, None] * Jd[b]
            if idx.size:
                H[idx] = np.einsum("kij,kjn->kin", pt.db_cone, Jd[idx])
            # the block diagonal's positions are distinct: a plain += adds each entry once
            H[self._dpattern] += self._da(pt, eps)
            return H
        pat = self.pattern(J)
        return sp.csc_matrix((self.values(pt, J, eps), pat.rows, pat.indptr), shape=(self.n, self.n))

    def newton_direction(self, pt: _Point, J: sp.csr_matrix, eps: float) -> np.ndarray | None:
        """Solve ``H d = -Phi`` with unit rows of H eliminated; None if singular.

        LAPACK's LU on the dense path; else SuperLU on the CSC matrix of the kept block
        ``H[keep, keep]``, cut from the entries of :meth:`values` without building ``H`` (its
        stored zeros dropped, as SciPy's sparse products drop them)."""
        unit_box = (pt.db_box == 0.0) & (pt.da_box == 1.0)
        fixed = np.zeros(self.n, dtype=bool)
        d = np.zeros(self.n)
        if unit_box.any() or pt.sep.any():
            fixed[self.box[unit_box]] = True
            fixed[self.idx[pt.sep].ravel()] = True
            d[fixed] = -pt.phi[fixed]
        keep = ~fixed
        self.n_factor += 1
        m = int(np.count_nonzero(keep))
        if m == 0:
            return d
        with np.errstate(all="ignore"):
            try:
                if self.dense_J(J) is not None:
                    H = self.matrix(pt, J, eps, order="F")  # LAPACK's order: factored without a copy
                    if m == self.n:  # no unit rows: the whole matrix, already Fortran-ordered
                        Hk, rhs = H, -pt.phi
                    else:
                        Hk = np.asfortranarray(H[np.ix_(keep, keep)])
                        rhs = -pt.phi[keep] - H[np.ix_(keep, fixed)] @ d[fixed]
                    solve = dense_lu(Hk, pivot_tol=1e-14)
                    if solve is None:
                        return None
                    y = solve(rhs)
                else:
                    y = self._sparse_solve(pt, J, eps, keep, d)
            except (RuntimeError, ValueError, sla.LinAlgError):
                return None
        d[keep] = y
        if not np.all(np.isfinite(d)) or float(np.max(np.abs(d))) > 1e8 * (1.0 + float(np.max(np.abs(pt.x)))):
            return None
        return d

    def _sparse_solve(
        self, pt: _Point, J: sp.csr_matrix, eps: float, keep: np.ndarray, d: np.ndarray
    ) -> np.ndarray:
        """SuperLU's solution of ``H[keep, keep] y = -Phi[keep] - H[keep, fixed] d[fixed]``
        (``keep`` a row mask, ``d`` zero on it); raises RuntimeError if singular."""
        pat, data = self.pattern(J), self.values(pt, J, eps)
        m = int(np.count_nonzero(keep))
        if self.numba:
            indptr, rows, data, rhs = kernels.cone_cut(data, pat.rows, pat.indptr, keep, d, pt.phi)
        else:
            rows, cols = pat.rows, pat.cols
            rhs = -pt.phi
            if m < self.n:  # H[:, fixed] d[fixed] summed in column order, as a CSR product does
                rhs = rhs - np.bincount(rows, weights=data * d[cols], minlength=self.n)
                pos = np.cumsum(keep) - 1
                emask = keep[rows] & keep[cols]
                rows, cols, data = pos[rows[emask]], pos[cols[emask]], data[emask]
            nz = data != 0.0
            rows, cols, data = rows[nz], cols[nz], data[nz]
            indptr = np.concatenate(([0], np.cumsum(np.bincount(cols, minlength=m))))
            rhs = rhs[keep]
        return small.csc_solve(data, rows, indptr, rhs)

    def gradient(self, pt: _Point, J: sp.csr_matrix) -> np.ndarray:
        """``H^T Phi = Da^T Phi + J^T (Db^T Phi)``, the gradient of psi where it is differentiable."""
        b, idx, phi = self.box, self.idx, pt.phi
        u = np.zeros(self.n)  # Da^T Phi
        v = np.zeros(self.n)  # Db^T Phi
        u[b] = pt.da_box * phi[b]
        v[b] = pt.db_box * phi[b]
        if idx.size:
            pc = phi[idx]
            u[idx] = np.einsum("kji,kj->ki", pt.da_cone, pc)
            v[idx] = np.einsum("kji,kj->ki", pt.db_cone, pc)
        if J is self._J:  # the constant J of an affine F: its transpose made once
            if self._JT is None:
                # J's arrays read as CSC: the products sum each entry in the order a CSR copy does
                self._JT = J.T
                if self.kept is not None:
                    self.kept["JT"] = self._JT
            JT = self._JT
        else:
            JT = J.T
        return u + JT @ v

    def newton_step(self, pt: _Point, J: sp.csr_matrix, eps: float) -> np.ndarray | None:
        return self.newton_direction(pt, J, eps)

    def lm_direction(self, pt: _Point, J: sp.csr_matrix) -> np.ndarray | None:
        H = self.matrix(pt, J, 0.0)
        self.n_factor += 1
        self.n_lm += 1
        if isinstance(H, np.ndarray):
            return small.lm_dense(H, pt.phi, self.opt.lm_mu)
        return small.lm_sparse(H, pt.phi, self.opt.lm_mu)

    def project(self, x: np.ndarray) -> np.ndarray:
        out = x.copy()
        out[self.box] = np.clip(x[self.box], self.lb_box, self.ub_box)
        return out
