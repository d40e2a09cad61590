"""One attempt of the cone-block method, compiled: the small-problem path of ``newton``, and the
loop around SuperLU on its sparse path.

On a small affine MCP with Coulomb cone blocks (``CoulombCone(mu, form="soc")``: a few-contact
scene, a time step, most FCLIB files) a Newton iteration is a few microseconds of arithmetic and
~100 us of Python: the calls of :func:`contactmodel.solvers.newton.core.iterate`, ``step`` and
``arc_search`` into :class:`~contactmodel.solvers.newton.cones.ConeMethod`. :func:`attempt` is
that whole attempt as one numba-compiled function: the same stopping and stall tests, watchdog,
nonmonotone reference, step ladder (Newton, regularized Newton, Levenberg-Marquardt, projected
gradient), Armijo arc search, natural map, dense Newton matrix with its unit rows eliminated,
proximal weight and projection, in the same order of operations. The LU is LAPACK's, the very
routines SciPy calls (``dgesv``: ``dgetrf`` and ``dgetrs``, through numba's bindings of
``scipy.linalg.cython_lapack``), the dot and matrix-vector products BLAS's on arrays of the same
layout, and the rare Levenberg-Marquardt step runs :func:`lm_dense` in the interpreter, so the
iterates are those of the numpy path bit for bit on the FCLIB files and random problems of the
tests (a different BLAS build could round differently; the tests compare iterations and answers).

On the sparse path (more than 150 rows and J less than 15 % full: e.g. 100 contacts) the loop is
the same with the Newton matrix's entries and kept block made by the kernels
:func:`~contactmodel.solvers.newton.kernels.cone_values` and ``cone_cut`` that the interpreter
path calls, and factored by SuperLU in the interpreter (:func:`csc_solve`, :func:`lm_sparse`:
the very calls of ``ConeMethod``), so the iterates are those of the interpreter loop bit for bit.
What it saves is the loop's Python: on the 100-contact fc3d instances of
``benchmarks/peers.py`` the solver's CPU time drops by a quarter (SuperLU's factorization, about
0.1-0.2 ms an iteration, is most of what is left).

The machine code is cached on disk with newton's other kernels; the blocks that run in the
interpreter (the LM step, SuperLU's solve, and the deadline test when ``time_limit`` is set) are
compiled by numba at their first call in a process, not cached: ~0.1 s each, once.

Used by :meth:`ConeMethod.compiled_attempt` when numba is installed (the ``fast`` extra),
``NewtonOptions.kernels`` is not ``"numpy"``, ``F`` is affine (``F(x) = M x + q``) and no
lift-off round holds blocks; else the numpy path runs.
"""

from __future__ import annotations

import math
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from contactmodel.solvers.base import Outcome
from contactmodel.solvers.newton import kernels
from contactmodel.solvers.newton.core import NewtonOptions

AVAILABLE = kernels.AVAILABLE

#: attempt outcomes (the codes :func:`attempt` returns) and their messages
CONVERGED, ITERATION_LIMIT, TIME_LIMIT, STALLED, ZERO_GRADIENT, SEARCH_FAILED = range(6)


def _now() -> float:
    return time.perf_counter()


def lm_dense(H: np.ndarray, phi: np.ndarray, lm_mu: float) -> np.ndarray | None:
    """The Levenberg-Marquardt direction ``(H^T H + mu I) d = -H^T Phi``, ``mu = lm_mu ||Phi||_2``
    (at least 1e-14), of a dense ``H`` (n, n) by Cholesky; None when it fails or is not finite."""
    g = H.T @ phi
    mu = max(lm_mu * float(np.linalg.norm(phi)), 1e-14)
    N = H.T @ H + mu * np.eye(H.shape[0])
    # LAPACK's dpotrf and dpotrs as scipy.linalg.cho_factor and cho_solve call them, without
    # their wrappers' checks (~30 us)
    U, info = sla.lapack.dpotrf(N, lower=0, clean=0, overwrite_a=1)
    if info != 0:
        return None
    d, info = sla.lapack.dpotrs(U, -g, lower=0)
    return d if info == 0 and np.all(np.isfinite(d)) else None


def csc_solve(data: np.ndarray, rows: np.ndarray, indptr: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """SuperLU's solution of ``A y = rhs``, ``A`` (m, m) the CSC matrix ``(data, rows, indptr)``
    (the kept block of a sparse Newton matrix); raises RuntimeError when it is singular."""
    m = rhs.shape[0]
    return spla.splu(sp.csc_matrix((data, rows, indptr), shape=(m, m))).solve(rhs)


def lm_sparse(H: sp.csc_matrix, phi: np.ndarray, lm_mu: float) -> np.ndarray | None:
    """The Levenberg-Marquardt direction ``(H^T H + mu I) d = -H^T Phi``, ``mu = lm_mu ||Phi||_2``
    (at least 1e-14), of a sparse ``H`` (n, n) by SuperLU; None when it fails or is not finite."""
    g = H.T @ phi
    mu = max(lm_mu * float(np.linalg.norm(phi)), 1e-14)
    try:
        N = (H.T @ H + mu * sp.eye(H.shape[0])).tocsc()
        d = spla.splu(N).solve(-g)
    except (RuntimeError, ValueError, sla.LinAlgError):
        return None
    return d if np.all(np.isfinite(d)) else None


try:  # SuperLU's factorization as spla.splu calls it, without the wrapper's checks (below)
    from scipy.sparse.linalg._dsolve._superlu import gstrf as _gstrf
except ImportError:  # another SciPy layout: spla.splu, the same factorization
    _gstrf = None

#: the options spla.splu passes to gstrf when called with its defaults (None: SuperLU's own)
_SPLU_OPTIONS = {"DiagPivotThresh": None, "ColPerm": None, "PanelSize": None, "Relax": None}


def canonical_solve(data: np.ndarray, rows: np.ndarray, indptr: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """:func:`csc_solve` of a canonical CSC matrix (rows ascending and unique in each column, int32
    ``rows`` and ``indptr``, float64 ``data``, as ``cone_cut`` makes the kept block): SuperLU's
    ``gstrf`` called as ``spla.splu`` calls it, with the same options, so the same factors and
    solution bit for bit, without building a SciPy matrix and checking it (~30-60 us a call,
    most of the wrapper's cost at 150 rows). Falls back to :func:`csc_solve` when SciPy's private
    module is not where it was or the arrays are not of those types."""
    m = rhs.shape[0]
    if _gstrf is None or rows.dtype != np.intc or indptr.dtype != np.intc or data.dtype != np.float64:
        return csc_solve(data, rows, indptr, rhs)
    nnz = int(indptr[m])
    made = sp.csc_matrix  # what the factors L and U are read as
    lu = _gstrf(m, nnz, data, rows, indptr, csc_construct_func=made, ilu=False, options=_SPLU_OPTIONS)
    return lu.solve(rhs)


def _solve_kept(data, rows, indptr, rhs) -> np.ndarray | None:
    """:func:`canonical_solve`, None when singular (as ConeMethod.newton_direction catches it)."""
    try:
        return canonical_solve(data, rows, indptr, rhs)
    except (RuntimeError, ValueError, sla.LinAlgError):
        return None


def _lm_pattern(data, rows, indptr, phi, lm_mu) -> np.ndarray | None:
    """:func:`lm_sparse` of ``H`` given by its entries in the CSC pattern ``(rows, indptr)``."""
    n = phi.shape[0]
    return lm_sparse(sp.csc_matrix((data, rows, indptr), shape=(n, n)), phi, lm_mu)


def verdict(code: int, opt: NewtonOptions) -> tuple[Outcome, str]:
    """The outcome and message of :func:`attempt`'s code, as ``core.iterate`` words them."""
    if code == CONVERGED:
        return Outcome.CONVERGED, "natural residual below tolerance"
    if code == ITERATION_LIMIT:
        return Outcome.ITERATION_LIMIT, "iteration limit reached"
    if code == TIME_LIMIT:
        return Outcome.TIME_LIMIT, f"time limit {opt.time_limit} s reached"
    if code == STALLED:
        return Outcome.FAILED, f"no progress in the natural residual for {opt.stall_iter} iterations"
    if code == ZERO_GRADIENT:
        return Outcome.FAILED, "projected merit gradient is zero or not finite at a non-solution"
    return Outcome.FAILED, "line search failed: no sufficient decrease of the merit function"


if AVAILABLE:
    import numba
    from numba.core import types
    from numba.np.linalg import _LAPACK

    # numba's own bindings of SciPy's LAPACK (scipy.linalg.cython_lapack), as np.linalg uses them:
    # linked by name, so the compiled code is cached on disk
    gesv = _LAPACK().numba_xgesv(types.float64)  # kind, n, nrhs, a, lda, ipiv, b, ldb -> info
    _potrf = _LAPACK().numba_xxpotrf(types.float64)  # kind, uplo, n, a, lda -> info
    _D, _U = 100, 85  # ord("d"), ord("U")
    _cone_point = kernels.cone_point
    _cone_values = kernels.cone_values
    _cone_cut = kernels.cone_cut

    @numba.njit(cache=True)
    def clock() -> float:
        with numba.objmode(t="float64"):
            t = _now()
        return t

    @numba.njit(cache=True)
    def point(x, Md, Mi, Mp, q, box, lb, ub, s_box, idx, mu, rho):
        """``(F, phi, da_box, db_box, Da, Db, sep, psi, res, finite)`` at ``x``: ConeMethod.point
        with ``F(x) = M x + q`` (``M`` in CSR: Md, Mi, Mp) summed as SciPy's CSR product does."""
        n = x.shape[0]
        F = np.empty(n)
        finite = True
        for i in range(n):
            s = 0.0
            for e in range(Mp[i], Mp[i + 1]):
                s += Md[e] * x[Mi[e]]
            F[i] = s + q[i]
            if not math.isfinite(F[i]):
                finite = False
        phi = np.empty(n)
        nb = box.shape[0]
        da_box = np.empty(nb)
        db_box = np.empty(nb)
        res = 0.0
        for i in range(nb):
            r = box[i]
            y = x[r] - s_box[i] * F[r]
            at = y <= lb[i] or y >= ub[i]
            phi[r] = x[r] - min(max(y, lb[i]), ub[i])
            da_box[i] = 1.0 if at else 0.0
            db_box[i] = 0.0 if at else s_box[i]
            v = abs(x[r] - min(max(x[r] - F[r], lb[i]), ub[i]))
            if v > res:
                res = v
        k, d = idx.shape
        c = np.empty((k, d))
        a = np.empty((k, d))
        for b in range(k):
            for j in range(d):
                c[b, j] = x[idx[b, j]]
                a[b, j] = F[idx[b, j]]
        R, Da, Db, res_cone, sep = _cone_point(c, a, mu, rho)
        for b in range(k):
            for j in range(d):
                phi[idx[b, j]] = R[b, j]
        res = max(res, res_cone)
        psi = 0.5 * np.dot(phi, phi)
        return F, phi, da_box, db_box, Da, Db, sep, psi, res, finite

    @numba.njit(cache=True)
    def _project(x, box, lb, ub):
        out = x.copy()
        for i in range(box.shape[0]):
            out[box[i]] = min(max(x[box[i]], lb[i]), ub[i])
        return out

    @numba.njit(cache=True)
    def _gradient(phi, da_box, db_box, Da, Db, box, idx, Jdat, Jind, Jptr):
        """``H^T Phi = Da^T Phi + J^T (Db^T Phi)`` (``J`` in canonical CSR): ``J^T v`` summed, for
        each entry, over the rows of J in ascending order from 0, as SciPy's product with the
        CSR transpose ``J.T.tocsr()`` of the numpy path sums its rows."""
        n = phi.shape[0]
        u = np.zeros(n)
        v = np.zeros(n)
        for i in range(box.shape[0]):
            u[box[i]] = da_box[i] * phi[box[i]]
            v[box[i]] = db_box[i] * phi[box[i]]
        d = idx.shape[1]
        for b in range(idx.shape[0]):
            for i in range(d):
                su = 0.0
                sv = 0.0
                for j in range(d):
                    su += Da[b, j, i] * phi[idx[b, j]]
                    sv += Db[b, j, i] * phi[idx[b, j]]
                u[idx[b, i]] = su
                v[idx[b, i]] = sv
        t = np.zeros(n)
        for r in range(n):
            for e in range(Jptr[r], Jptr[r + 1]):
                t[Jind[e]] += Jdat[e] * v[r]
        g = np.empty(n)
        for i in range(n):
            g[i] = u[i] + t[i]
        return g

    @numba.njit(cache=True)
    def _matrix(Jd, da_box, db_box, Da, Db, box, idx, eps):
        """``H = Da + Db (J + eps I)`` dense (n, n), C order: ConeMethod.matrix."""
        n = Jd.shape[0]
        H = np.empty((n, n))
        for i in range(box.shape[0]):
            r = box[i]
            for col in range(n):
                H[r, col] = db_box[i] * Jd[r, col]
        d = idx.shape[1]
        for b in range(idx.shape[0]):
            for i in range(d):
                r = idx[b, i]
                for col in range(n):
                    s = 0.0
                    for j in range(d):
                        s += Db[b, i, j] * Jd[idx[b, j], col]
                    H[r, col] = s
        for i in range(box.shape[0]):
            H[box[i], box[i]] += da_box[i] + eps * db_box[i]
        for b in range(idx.shape[0]):
            for i in range(d):
                for j in range(d):
                    H[idx[b, i], idx[b, j]] += Da[b, i, j] + eps * Db[b, i, j]
        return H

    @numba.njit(cache=True)
    def _newton_direction(x, phi, da_box, db_box, Da, Db, sep, box, idx, Jd, eps):
        """``H d = -Phi`` with the unit rows of H eliminated, LAPACK's LU with ConeMethod's pivot
        test; ``(d, ok)``."""
        n = x.shape[0]
        fixed, d = _fixed_rows(phi, da_box, db_box, sep, box, idx)
        keep = np.flatnonzero(~fixed)
        m = keep.shape[0]
        if m == 0:
            return d, True
        H = _matrix(Jd, da_box, db_box, Da, Db, box, idx, eps)
        Hk = np.empty((m, m)).T  # Fortran order
        rhs = np.empty(m)
        big = 0.0
        for jj in range(m):
            for ii in range(m):
                v = H[keep[ii], keep[jj]]
                Hk[ii, jj] = v
                if abs(v) > big or v != v:
                    big = abs(v)
        if m < n:  # the fixed columns' part, BLAS's dgemv on a C-ordered block as numpy's product
            cols = np.flatnonzero(fixed)
            Hf = np.empty((m, cols.shape[0]))
            for ii in range(m):
                for jj in range(cols.shape[0]):
                    Hf[ii, jj] = H[keep[ii], cols[jj]]
            t = np.dot(Hf, d[cols])
            for ii in range(m):
                rhs[ii] = -phi[keep[ii]] - t[ii]
        else:
            for ii in range(m):
                rhs[ii] = -phi[keep[ii]]
        bound = 1e-14 * max(1.0, big)
        piv = np.empty(m, dtype=np.int32)
        # dgesv: dgetrf and dgetrs, the LU and solve of core.dense_lu; its pivot test on the factor
        info = gesv(_D, m, 1, Hk.ctypes, m, piv.ctypes, rhs.ctypes, m)
        if info != 0:
            return d, False
        small = np.inf
        for i in range(m):
            small = min(small, abs(Hk[i, i]))
        if not small > bound:  # also a NaN pivot
            return d, False
        for ii in range(m):
            d[keep[ii]] = rhs[ii]
        return d, _usable(d, x)

    @numba.njit(cache=True)
    def _usable(d, x):
        """Finite and not larger than ``1e8 (1 + |x|_inf)``: ConeMethod's test of a direction."""
        dmax = 0.0
        for i in range(d.shape[0]):
            if not math.isfinite(d[i]):
                return False
            dmax = max(dmax, abs(d[i]))
        xmax = 0.0
        for i in range(x.shape[0]):
            xmax = max(xmax, abs(x[i]))
        return not dmax > 1e8 * (1.0 + xmax)

    @numba.njit(cache=True)
    def _lm_direction(phi, da_box, db_box, Da, Db, box, idx, Jd, lm_mu):
        """:func:`lm_dense` on ``H`` at eps = 0, run by the interpreter (a rare step, and numpy's
        ``H^T H`` is BLAS's dsyrk, which numba does not bind): ``(d, ok)``."""
        H = _matrix(Jd, da_box, db_box, Da, Db, box, idx, 0.0)
        with numba.objmode(d="float64[::1]", ok="boolean"):
            d = lm_dense(H, phi, lm_mu)
            ok = d is not None
            if d is None:
                d = np.zeros(phi.shape[0])
        return d, ok

    @numba.njit(cache=True)
    def _fixed_rows(phi, da_box, db_box, sep, box, idx):
        """The unit rows of H (box rows at a bound, separating blocks) and ``d`` on them: ``(fixed, d)``."""
        n = phi.shape[0]
        fixed = np.zeros(n, dtype=np.bool_)
        d = np.zeros(n)
        for i in range(box.shape[0]):
            if db_box[i] == 0.0 and da_box[i] == 1.0:
                fixed[box[i]] = True
        for b in range(idx.shape[0]):
            if sep[b]:
                for j in range(idx.shape[1]):
                    fixed[idx[b, j]] = True
        for i in range(n):
            if fixed[i]:
                d[i] = -phi[i]
        return fixed, d

    @numba.njit(cache=True)
    def _sparse_direction(x, phi, da_box, db_box, Da, Db, sep, box, idx, Jdat, pattern, eps):
        """``H d = -Phi`` with the unit rows of H eliminated, the kept block by SuperLU (run by the
        interpreter): ConeMethod.newton_direction on its sparse path, with the same kernels for
        the entries of H and the kept block (``pattern``: the ``_Pattern``'s rows, indptr, gather,
        dpos, the rows' blocks and the blocks' order); ``(d, ok)``."""
        rows, indptr, gather, dpos, block, order = pattern
        fixed, d = _fixed_rows(phi, da_box, db_box, sep, box, idx)
        keep = ~fixed
        if not keep.any():
            return d, True
        data = _cone_values(Jdat, rows, gather, dpos, block, order, da_box, db_box, Da, Db, eps)
        kptr, krows, kdata, rhs = _cone_cut(data, rows, indptr, keep, d, phi)
        with numba.objmode(y="float64[::1]", ok="boolean"):
            y = _solve_kept(kdata, krows, kptr, rhs)
            ok = y is not None
            y = np.ascontiguousarray(y, dtype=float) if ok else np.zeros(0)
        if not ok:
            return d, False
        j = 0
        for i in range(d.shape[0]):
            if keep[i]:
                d[i] = y[j]
                j += 1
        return d, _usable(d, x)

    @numba.njit(cache=True)
    def _sparse_lm(phi, da_box, db_box, Da, Db, Jdat, pattern, lm_mu):
        """:func:`lm_sparse` on ``H`` at eps = 0 (ConeMethod.lm_direction on its sparse path), run
        by the interpreter: ``(d, ok)``."""
        rows, indptr, gather, dpos, block, order = pattern
        data = _cone_values(Jdat, rows, gather, dpos, block, order, da_box, db_box, Da, Db, 0.0)
        with numba.objmode(d="float64[::1]", ok="boolean"):
            d = _lm_pattern(data, rows, indptr, phi, lm_mu)
            ok = d is not None
            d = np.ascontiguousarray(d, dtype=float) if ok else np.zeros(phi.shape[0])
        return d, ok

    @numba.njit(cache=True)
    def descent(grad, d, rho, p):
        return np.dot(grad, d) <= -rho * math.sqrt(np.dot(d, d)) ** p

    @numba.njit(cache=True)
    def attempt(
        x0, Md, Mi, Mp, q, Jdat, Jind, Jptr, Jd, box, lb, ub, s_box, idx, mu, rho,
        fopt, iopt, regularized, boost, phi0, j_scale, deadline, dense, pattern,
    ):  # fmt: skip
        """One attempt from ``x0`` (projected): ``core.iterate`` with ConeMethod plugged in.

        ``M`` (Md, Mi, Mp) and ``J`` (Jdat, Jind, Jptr; canonical) in CSR; ``dense``: the Newton
        matrix dense (``Jd`` = J dense), else by SuperLU on the sparse ``pattern`` of H (see
        :func:`_sparse_direction`; ``Jd`` unread); the box rows
        ``box`` with their bounds and scales, the cone blocks ``idx``, ``mu``, ``rho``;
        ``fopt`` = (tol, armijo_sigma, backtrack, min_step, newton_min_step, descent_rho,
        descent_p, lm_mu, newton_reg), ``iopt`` = (max_iter, stall_iter, nonmonotone_memory,
        can_escalate). Returns ``(the best point (x, F, phi, da_box, db_box, Da, Db, sep, psi,
        res), outcome code, iterations, residual history (one per
        iterate after the start), counts (factorizations, LM steps, gradient steps, watchdog
        returns, F evaluations), regularized, boost, last step)``."""
        tol, sigma, backtrack, min_step, newton_min_step, descent_rho, descent_p, lm_mu, newton_reg = fopt
        max_iter, stall_iter, memory, can_escalate = iopt
        n_factor = n_lm = n_gradient = n_watchdog = 0
        n_feval = 0  # the start point is the caller's
        n_hist = 0
        last_step = 1.0
        history = np.empty(max_iter + 1)
        F, phi, da_box, db_box, Da, Db, sep, psi, res, finite = point(
            x0, Md, Mi, Mp, q, box, lb, ub, s_box, idx, mu, rho
        )
        x = x0
        best = (x, F, phi, da_box, db_box, Da, Db, sep, psi, res)
        best_res, best_it = res, 0
        w_x, w_F, w_phi, w_dab, w_dbb, w_Da, w_Db, w_sep, w_psi, w_res = (
            x, F, phi, da_box, db_box, Da, Db, sep, psi, res
        )  # fmt: skip
        watch_count = 0
        merits = np.empty(max_iter + 1)
        merits[0] = psi
        n_merits = 1
        it = 0
        outcome = CONVERGED
        while True:
            if best_res <= tol:
                outcome = CONVERGED
                break
            if it >= max_iter:
                outcome = ITERATION_LIMIT
                break
            if deadline < np.inf and clock() > deadline:
                outcome = TIME_LIMIT
                break
            if it - best_it >= stall_iter // 2 and can_escalate and not regularized:
                regularized = True
                best_it = it
            if it - best_it >= stall_iter:
                outcome = STALLED
                break
            it += 1
            if watch_count >= memory:
                n_watchdog += 1
                if can_escalate:
                    regularized = True
                boost *= 10.0
                x, F, phi, da_box, db_box, Da, Db, sep, psi, res = (
                    w_x, w_F, w_phi, w_dab, w_dbb, w_Da, w_Db, w_sep, w_psi, w_res
                )  # fmt: skip
                merits[0] = w_psi
                n_merits = 1
                watch_count = 0
            ref = merits[max(0, n_merits - memory)]
            for e in range(max(0, n_merits - memory), n_merits):
                ref = max(ref, merits[e])
            # -- core.step: the ladder Newton -> regularized Newton -> LM -> projected gradient
            grad = _gradient(phi, da_box, db_box, Da, Db, box, idx, Jdat, Jind, Jptr)
            pg = _project(x - grad, box, lb, ub)
            gnorm = 0.0
            for i in range(x.shape[0]):
                v = abs(x[i] - pg[i])
                if v > gnorm or v != v:
                    gnorm = v
            if gnorm == 0.0 or not math.isfinite(gnorm):
                outcome = ZERO_GRADIENT
                break
            found = False
            newton = False
            xt, cF, cphi, cdab, cdbb, cDa, cDb, csep, cpsi, cres = (
                x, F, phi, da_box, db_box, Da, Db, sep, psi, res
            )  # fmt: skip
            for rung in range(2):
                eps = 0.0
                if regularized:
                    pmax = 0.0
                    for i in range(phi.shape[0]):
                        pmax = max(pmax, abs(phi[i]))
                    eps = 0.1 * newton_reg * j_scale * boost * min(1.0, pmax / phi0)
                n_factor += 1
                if dense:
                    d, ok = _newton_direction(x, phi, da_box, db_box, Da, Db, sep, box, idx, Jd, eps)
                else:
                    d, ok = _sparse_direction(
                        x, phi, da_box, db_box, Da, Db, sep, box, idx, Jdat, pattern, eps
                    )  # fmt: skip
                newton = ok and descent(grad, d, descent_rho, descent_p)
                if newton or rung == 1 or not (can_escalate and not regularized):
                    break
                regularized = True
            have = newton
            if not newton:
                n_factor += 1
                n_lm += 1
                if dense:
                    d, ok = _lm_direction(phi, da_box, db_box, Da, Db, box, idx, Jd, lm_mu)
                else:
                    d, ok = _sparse_lm(phi, da_box, db_box, Da, Db, Jdat, pattern, lm_mu)
                have = ok and descent(grad, d, descent_rho, descent_p)
            for ladder in range(2):
                if ladder == 0 and not have:
                    continue
                if ladder == 1:
                    n_gradient += 1
                    d = -grad
                lo = newton_min_step if ladder == 0 else min_step
                t = 1.0
                while t >= lo:
                    xt = _project(x + t * d, box, lb, ub)
                    dec = np.dot(grad, xt - x)
                    if dec < 0.0:
                        n_feval += 1
                        cF, cphi, cdab, cdbb, cDa, cDb, csep, cpsi, cres, cfin = point(
                            xt, Md, Mi, Mp, q, box, lb, ub, s_box, idx, mu, rho
                        )
                        if cfin and cpsi <= ref + sigma * dec:
                            last_step = t
                            found = True
                            break
                    t *= backtrack
                if found:
                    break
                if ladder == 0 and can_escalate and not regularized:
                    regularized = True
            if not found:
                outcome = SEARCH_FAILED
                break
            x, F, phi, da_box, db_box, Da, Db, sep, psi, res = (
                xt, cF, cphi, cdab, cdbb, cDa, cDb, csep, cpsi, cres
            )  # fmt: skip
            history[n_hist] = res
            n_hist += 1
            merits[n_merits] = psi
            n_merits += 1
            if res < best_res:
                if res < 0.99 * best_res:
                    best_it = it
                best = (x, F, phi, da_box, db_box, Da, Db, sep, psi, res)
                best_res = res
            if psi < (1.0 - 1e-4) * w_psi:
                w_x, w_F, w_phi, w_dab, w_dbb, w_Da, w_Db, w_sep, w_psi, w_res = (
                    x, F, phi, da_box, db_box, Da, Db, sep, psi, res
                )  # fmt: skip
                watch_count = 0
            else:
                watch_count += 1
        counts = np.array([n_factor, n_lm, n_gradient, n_watchdog, n_feval])
        return best, outcome, it, history[:n_hist], counts, regularized, boost, last_step

else:
    attempt = point = None
