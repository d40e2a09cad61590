"""One attempt of the box method, compiled: the small-problem path of ``newton`` on box MCPs.

The box method of :mod:`contactmodel.solvers.newton` (Fischer-Burmeister merit, diagonal
``Da, Db``: the LCPs of the pyramid, polygonal and frictionless laws) spends ~50-100 us of Python
per iteration on a small problem, around a few microseconds of arithmetic. :func:`attempt` is that
whole attempt (``core.iterate`` with the box method plugged in) as one numba-compiled function,
the cone method's :mod:`contactmodel.solvers.newton.small` for the box: the same stopping tests
(with the refinement steps at a linear rate), stall test, watchdog, nonmonotone reference, chord
and active-set polish steps, step ladder (Newton, regularized Newton, Levenberg-Marquardt,
projected gradient) and Armijo arc search, in the same order of operations. The point, the
gradient and the dense Newton block are newton's compiled kernels
(:mod:`contactmodel.solvers.newton.kernels`, the numbers of its numpy code), the LU is LAPACK's
``dgesv`` (``dgetrf`` and ``dgetrs``, the routines ``core.dense_lu`` calls; a chord step solves
with the kept matrix factored again, the same factors), and the rare Levenberg-Marquardt step
runs :func:`contactmodel.solvers.newton.box_matrix.lm_box` in the interpreter: the iterates are
those of the numpy path bit for bit on the tests' problems (a different BLAS build could round
differently; the tests compare iterations, counters and answers).

Used by the box method when numba is installed (the ``fast`` extra), ``NewtonOptions.kernels`` is
not ``"numpy"``, ``F`` is affine (``F(x) = M x + q``), every row has a lower bound only or no bound
(an LCP, shifted, or a mixed LCP: the sparse form of a polyhedral law) and the problem has at most
:data:`MAX_N` rows (its Newton matrix is then always factored dense); else the numpy loop runs.
"""

from __future__ import annotations

import math

import numpy as np

from contactmodel.solvers.newton import box_matrix, kernels, small

AVAILABLE = small.AVAILABLE
#: the largest problem the compiled attempt takes: the box method factors these dense
MAX_N = box_matrix.DENSE_N
#: ``NewtonOptions.polish`` as the compiled attempt reads it
POLISH_CODES = {"auto": 0, "always": 1, "never": 2}
#: the method's counters, in the order of the counts :func:`attempt` returns
COUNTERS = (
    "n_factor", "n_lm", "n_gradient", "n_watchdog", "n_feval",
    "n_refine", "n_polish", "n_polish_kept", "n_chord", "n_jeval",
)  # fmt: skip

if AVAILABLE:
    import numba

    _D = 100  # ord("d"): dgesv's kind
    _fb_lower = kernels.fb_lower
    _csr_matvec = kernels.csr_matvec
    _csr_rmatvec = kernels.csr_rmatvec
    _dense_block = kernels.dense_block
    _gesv = small.gesv
    _clock = small.clock
    _descent = small.descent

    @numba.njit(cache=True)
    def values(x, fdata):
        """``F(x)`` of ``fdata`` = (Md, Mi, Mp, q, qi, qa, qb, qv, s, affine): ``M x + q`` (``M``
        in CSR: Md, Mi, Mp) when ``affine``, else the quadratic rows of
        :class:`~contactmodel.mcp.types.QuadraticRows` (``M`` their L), summed as
        :meth:`contactmodel.mcp.compiled.Functions.F` sums them at ``s x``, then divided by s."""
        Md, Mi, Mp, q, qi, qa, qb, qv, s, affine = fdata
        if affine:
            F = _csr_matvec(Md, Mi, Mp, x)
            for i in range(F.shape[0]):
                F[i] = F[i] + q[i]
            return F
        n = x.shape[0]
        xs = s * x
        F = _csr_matvec(Md, Mi, Mp, xs)
        for i in range(n):
            F[i] = F[i] + q[i]
        bins = np.zeros(n)  # np.bincount's sums: each bin from 0, the terms in order
        for k in range(qi.shape[0]):
            bins[qi[k]] += qv[k] * xs[qa[k]] * xs[qb[k]]
        for i in range(n):
            F[i] = (F[i] + bins[i]) / s
        return F

    @numba.njit(cache=True)
    def jacobian(x, fdata):
        """``J(x)`` of the quadratic rows of ``fdata`` (see :func:`values`) as the MCP's
        Jacobian gives it (:class:`contactmodel.mcp.compiled._QuadraticFill` at ``s x``): each
        entry the quadratic terms' two derivatives summed (at most two at a position, so in any
        order), then L's entry added, the entries that are exactly 0 dropped. Returns ``(J^T
        dense (C order), data, indices, indptr)`` of the canonical CSR."""
        Md, Mi, Mp, q, qi, qa, qb, qv, s, affine = fdata
        n = x.shape[0]
        xs = s * x
        JT = np.zeros((n, n))
        for k in range(qi.shape[0]):
            JT[qa[k], qi[k]] += qv[k] * xs[qb[k]]
        for k in range(qi.shape[0]):
            JT[qb[k], qi[k]] += qv[k] * xs[qa[k]]
        for r in range(n):
            for e in range(Mp[r], Mp[r + 1]):
                JT[Mi[e], r] += Md[e]
        nnz = 0
        for r in range(n):
            for c in range(n):
                if JT[c, r] != 0.0:
                    nnz += 1
        data = np.empty(nnz)
        indices = np.empty(nnz, dtype=np.int32)
        indptr = np.zeros(n + 1, dtype=np.int32)
        e = 0
        for r in range(n):
            for c in range(n):
                if JT[c, r] != 0.0:
                    data[e] = JT[c, r]
                    indices[e] = c
                    e += 1
            indptr[r + 1] = e
        return JT, data, indices, indptr

    @numba.njit(cache=True)
    def point(x, fdata, lb, scale, lam, free):
        """``((x, F, phi, da, db, psi, nat, at_bound, res), finite)``: the box method's point
        with ``F`` of ``fdata`` (see :func:`values`); ``finite``: psi is finite. The rows
        ``free`` have ``lb = -inf`` (``Phi_i = F_i``), the others a finite lower bound."""
        F = values(x, fdata)
        # the natural residual of a free row is fb_lower's too (max(y, -inf) = y), its FB part not
        phi, da, db, nat, at_bound, res = _fb_lower(x, lb, F, scale, lam)
        for i in free:
            phi[i] = F[i] * scale[i]
            da[i] = 0.0
            db[i] = scale[i]
        psi = 0.5 * np.dot(phi, phi)
        return (x, F, phi, da, db, psi, nat, at_bound, res), math.isfinite(psi)

    @numba.njit(cache=True)
    def _project(x, lb, feasible):
        """``max(x, lb)`` (NaN kept; ``np.clip`` with no upper bounds) in feasible mode, else ``x``."""
        if not feasible:
            return x
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = x[i] if x[i] > lb[i] or x[i] != x[i] else lb[i]
        return out

    @numba.njit(cache=True)
    def _usable(d, rhs):
        """``max|d| <= 1e8 (1 + max|rhs|)``, False for a NaN: the box method's test of a direction."""
        big = 0.0
        for i in range(rhs.shape[0]):
            big = max(big, abs(rhs[i]))
        for i in range(d.shape[0]):
            if not abs(d[i]) <= 1e8 * (1.0 + big):
                return False
        return True

    @numba.njit(cache=True)
    def _solve(H, fixed, keep, da_fixed, db_keep, reduced, Jdat, Jind, Jptr, rhs):
        """``H^-1 rhs`` of a factorization (see :func:`_direction`): the fixed rows directly, the
        others by LAPACK's LU of ``H`` (the block of the rows ``keep``, copied: it stays
        unfactored for the chord steps); ``(d, info)``."""
        n = rhs.shape[0]
        m = keep.shape[0]
        if reduced:
            d = np.zeros(n)
            for i in range(fixed.shape[0]):
                d[fixed[i]] = rhs[fixed[i]] / da_fixed[i]
            Jx = _csr_matvec(Jdat, Jind, Jptr, d)
            r = np.empty(m)
            for i in range(m):
                r[i] = rhs[keep[i]] - db_keep[i] * Jx[keep[i]]
        else:
            d = np.empty(n)
            r = rhs.copy()
        if m == 0:
            return d, 0
        W = np.empty((m, m)).T  # Fortran order
        for j in range(m):
            for i in range(m):
                W[i, j] = H[i, j]
        piv = np.empty(m, dtype=np.int32)
        info = _gesv(_D, m, 1, W.ctypes, m, piv.ctypes, r.ctypes, m)
        if info != 0:
            return d, info
        for i in range(m):
            d[keep[i]] = r[i]
        return d, 0

    @numba.njit(cache=True)
    def _empty_line(H, i):
        """Whether row i or column i of the square ``H`` is all 0."""
        row = False
        col = False
        for j in range(H.shape[0]):
            row = row or H[i, j] != 0.0
            col = col or H[j, i] != 0.0
        return not (row and col)

    @numba.njit(cache=True)
    def _direction(Jd, Jdat, Jind, Jptr, da, db, rhs):
        """``(diag(da) + diag(db) J) d = rhs`` as ``_Newton.newton_direction`` on the dense path:
        the rows with ``db = 0`` fixed and eliminated, the rest factored. Returns ``(status, d,
        usable, H, fixed, keep, da_fixed, db_keep, reduced)``; status 0: factored, 1: a fixed row
        with ``da = 0`` (nothing factored), 2: singular (a factorization counted)."""
        n = rhs.shape[0]
        nofix = db != 0.0
        n_fixed = n - np.count_nonzero(nofix)
        reduced = n_fixed > 0
        if reduced:
            fixed = np.flatnonzero(~nofix)
            keep = np.flatnonzero(nofix)
        else:
            fixed = np.empty(0, dtype=np.int64)
            keep = np.arange(n)
        da_fixed = np.empty(fixed.shape[0])
        for i in range(fixed.shape[0]):
            da_fixed[i] = da[fixed[i]]
        db_keep = np.empty(keep.shape[0])
        for i in range(keep.shape[0]):
            db_keep[i] = db[keep[i]]
        m = keep.shape[0]
        H = _dense_block(Jd, keep, da, db)
        d = np.zeros(n)
        for i in range(fixed.shape[0]):
            if da_fixed[i] == 0.0:
                return 1, d, False, H, fixed, keep, da_fixed, db_keep, reduced
        for i in range(m):  # a row or column that can be empty (no diagonal entry): singular
            if da[keep[i]] == 0.0 and _empty_line(H, i):
                return 2, d, False, H, fixed, keep, da_fixed, db_keep, reduced
        d, info = _solve(H, fixed, keep, da_fixed, db_keep, reduced, Jdat, Jind, Jptr, rhs)
        if info != 0:
            return 2, d, False, H, fixed, keep, da_fixed, db_keep, reduced
        return 0, d, _usable(d, rhs), H, fixed, keep, da_fixed, db_keep, reduced

    @numba.njit(cache=True)
    def _direction_full(Jd, Jdat, Jind, Jptr, da, db, rhs):
        """:func:`_direction` as ``_Newton.newton_direction`` on a nonlinear ``F``: the whole
        matrix factored, none of its rows fixed (the box method's Assembler: singular when a row
        or a column of ``H`` is all 0, then LAPACK's LU). The same returns, status 0 or 2."""
        n = rhs.shape[0]
        keep = np.arange(n)
        fixed = np.empty(0, dtype=np.int64)
        none, db_keep = np.empty(0), db.copy()
        H = _dense_block(Jd, keep, da, db)
        for i in range(n):
            if _empty_line(H, i):
                return 2, np.zeros(n), False, H, fixed, keep, none, db_keep, False
        d, info = _solve(H, fixed, keep, none, db_keep, False, Jdat, Jind, Jptr, rhs)
        if info != 0:
            return 2, d, False, H, fixed, keep, none, db_keep, False
        return 0, d, _usable(d, rhs), H, fixed, keep, none, db_keep, False

    @numba.njit(cache=True)
    def _lm_direction(Jdat, Jind, Jptr, da, db, phi, lm_mu):
        """:func:`~contactmodel.solvers.newton.box_matrix.lm_box`, run by the interpreter (a rare
        step, on SciPy's sparse products): ``(d, ok)``."""
        with numba.objmode(d="float64[::1]", ok="boolean"):
            d = box_matrix.lm_box(Jdat, Jind, Jptr, da, db, phi, lm_mu)
            ok = d is not None
            if d is None:
                d = np.zeros(phi.shape[0])
        return d, ok

    @numba.njit(cache=True)
    def _same(a, b):
        for i in range(a.shape[0]):
            if a[i] != b[i]:
                return False
        return True

    @numba.njit(cache=True)
    def _ref_max(merits, n_merits, memory):
        ref = merits[max(0, n_merits - memory)]
        for e in range(max(0, n_merits - memory), n_merits):
            ref = max(ref, merits[e])
        return ref

    @numba.njit(cache=True)
    def _arc(P, d, grad, ref, lo, sigma, backtrack, fdata, lb, scale, lam, free, feasible):
        """``core.arc_search`` along ``max(x + t d, lb)``: ``(found, t, point, F evaluations)``."""
        x = P[0]
        t = 1.0
        evals = 0
        while t >= lo:
            xt = _project(x + t * d, lb, feasible)
            dec = np.dot(grad, xt - x)
            if dec < 0.0:
                evals += 1
                cand, finite = point(xt, fdata, lb, scale, lam, free)
                if finite and cand[5] <= ref + sigma * dec:
                    return True, t, cand, evals
            t *= backtrack
        return False, t, P, evals

    @numba.njit(cache=True)
    def attempt(
        P0, fdata, Jdat, Jind, Jptr, Jd, lb, scale, lam, free, fopt, iopt, regularized, prior, deadline,
    ):  # fmt: skip
        """One attempt from the point ``P0`` (see :func:`point`): ``core.iterate`` with the box
        method's steps.

        ``F`` of ``fdata`` (see :func:`values`); for an affine ``F``, ``J`` (Jdat, Jind, Jptr;
        canonical) in CSR and ``Jd`` = J^T dense (C order), else J is made at every iterate
        (:func:`jacobian`, once an iteration as ``core.iterate`` asks for it) and the Newton
        matrix factored whole (:func:`_direction_full`); the lower bounds ``lb`` (-inf on the
        rows ``free``), row scales ``scale``, FB weight ``lam``; ``fopt`` = (tol,
        armijo_sigma, backtrack, min_step, newton_min_step, descent_rho, descent_p, lm_mu,
        newton_reg, newton_reg_max, chord_decrease), ``iopt`` = (max_iter, stall_iter,
        nonmonotone_memory, can_escalate, refine_iter, chord_steps, polish code, feasible);
        ``prior``: the last two residuals of the history before the attempt (NaN when absent).
        Returns ``(the best point, outcome code, iterations, residual history (one per iterate
        after the start), counts (factorizations, LM steps, gradient steps, watchdog returns,
        F evaluations, refine steps, polish steps, polish steps kept, chord steps, J
        evaluations), regularized)``."""
        (tol, sigma, backtrack, min_step, newton_min_step, descent_rho, descent_p, lm_mu, newton_reg,
         newton_reg_max, chord_decrease) = fopt  # fmt: skip
        max_iter, stall_iter, memory, can_escalate, refine_iter, chord_steps, polish, feasible = iopt
        n = P0[0].shape[0]
        affine = fdata[9]
        n_factor = n_lm = n_gradient = n_watchdog = n_feval = 0
        n_refine = n_polish = n_kept = n_chord = n_jeval = 0
        history = np.empty(max_iter + 1)
        n_hist = 0
        h_prev, h_last = prior[0], prior[1]
        P = P0
        best, best_it = P, 0
        watch, watch_count = P, 0
        merits = np.empty(max_iter + 1)
        merits[0] = P[5]
        n_merits = 1
        have_prev = False
        prev_bound = P[7]
        have_singular = False
        singular_bound = P[7]
        chord_left = 0
        c_H = np.empty((0, 0)).T  # Fortran order, as _direction's
        c_fixed = np.empty(0, dtype=np.int64)
        c_keep = np.empty(0, dtype=np.int64)
        c_da = np.empty(0)
        c_db = np.empty(0)
        c_reduced = False
        it = refine = 0
        outcome = small.CONVERGED
        while True:
            if best[8] <= tol:
                linear = h_prev > 0.0 and 0.01 * h_prev <= h_last <= 0.9 * h_prev
                if refine >= refine_iter or not linear:
                    outcome = small.CONVERGED
                    break
                refine += 1
                n_refine += 1
            if it >= max_iter:
                outcome = small.ITERATION_LIMIT
                break
            if deadline < np.inf and _clock() > deadline:
                outcome = small.TIME_LIMIT
                break
            if it - best_it >= stall_iter // 2 and can_escalate and not regularized:
                regularized = True
                best_it = it
            if it - best_it >= stall_iter:
                outcome = small.STALLED
                break
            it += 1
            if watch_count >= memory:
                n_watchdog += 1
                have_prev = False
                if can_escalate:
                    regularized = True
                P = watch
                merits[0] = watch[5]
                n_merits = 1
                watch_count = 0
            ref = _ref_max(merits, n_merits, memory)
            x, phi, da, db, psi, nat, at_bound, res = P[0], P[2], P[3], P[4], P[5], P[6], P[7], P[8]
            if not affine:
                Jd, Jdat, Jind, Jptr = jacobian(x, fdata)
                n_jeval += 1
            # -- the accelerating steps: a chord step, else the active-set polish
            found = False
            new = P
            if chord_left > 0:
                mphi = -phi
                d, info = _solve(c_H, c_fixed, c_keep, c_da, c_db, c_reduced, Jdat, Jind, Jptr, mphi)
                if info == 0 and _usable(d, phi):
                    n_feval += 1
                    cand, finite = point(_project(x + d, lb, feasible), fdata, lb, scale, lam, free)
                    if finite and cand[5] <= chord_decrease * psi and not cand[8] > res:
                        n_chord += 1
                        found = True
                        new = cand
                chord_left = chord_left - 1 if found else 0
            due = False
            if not found:
                due = polish == 1 or (polish == 0 and have_prev and _same(prev_bound, at_bound))
                due = due and not (have_singular and _same(singular_bound, at_bound))
            prev_bound = at_bound
            have_prev = True
            if due:
                n_polish += 1
                ea = np.empty(n)
                eb = np.empty(n)
                for i in range(n):
                    ea[i] = 1.0 if at_bound[i] else 0.0
                    eb[i] = 1.0 - ea[i]
                if affine:
                    found_d = _direction(Jd, Jdat, Jind, Jptr, ea, eb, -nat)
                else:
                    found_d = _direction_full(Jd, Jdat, Jind, Jptr, ea, eb, -nat)
                status, d, ok, H, fx, kp, dfx, dbk, red = found_d
                if status != 1:
                    n_factor += 1
                if status == 2 and affine:  # a constant J: this active set's matrix stays singular
                    have_singular = True
                    singular_bound = at_bound
                if ok:
                    n_feval += 1
                    cand, finite = point(_project(x + d, lb, feasible), fdata, lb, scale, lam, free)
                    if finite and (cand[8] <= tol or cand[5] <= ref - 2.0 * sigma * psi):
                        n_kept += 1
                        found = True
                        new = cand
            if not found:
                # -- core.step: the ladder Newton -> regularized Newton -> LM -> projected gradient
                v = np.empty(n)
                for i in range(n):
                    v[i] = db[i] * phi[i]
                grad = _csr_rmatvec(Jdat, Jind, Jptr, v, n)
                for i in range(n):
                    grad[i] = grad[i] + da[i] * phi[i]
                pg = _project(x - grad, lb, feasible)
                gnorm = 0.0
                for i in range(n):
                    g = abs(x[i] - pg[i])
                    if g > gnorm or g != g:
                        gnorm = g
                if gnorm == 0.0 or not math.isfinite(gnorm):
                    outcome = small.ZERO_GRADIENT
                    break
                newton = False
                for rung in range(2):
                    eps = 0.0
                    if regularized:
                        pmax = 0.0
                        for i in range(n):
                            pmax = max(pmax, abs(phi[i]))
                        eps = min(newton_reg * pmax, newton_reg_max)
                    if affine:
                        status, d, ok, H, fx, kp, dfx, dbk, red = _direction(
                            Jd, Jdat, Jind, Jptr, da + eps * db, db, -phi
                        )
                    else:
                        status, d, ok, H, fx, kp, dfx, dbk, red = _direction_full(
                            Jd, Jdat, Jind, Jptr, da + eps * db, db, -phi
                        )
                    if status != 1:
                        n_factor += 1
                    newton = ok and _descent(grad, d, descent_rho, descent_p)
                    if newton or rung == 1 or not (can_escalate and not regularized):
                        break
                    regularized = True
                have = newton
                if not newton:
                    n_factor += 1
                    n_lm += 1
                    d, ok = _lm_direction(Jdat, Jind, Jptr, da, db, phi, lm_mu)
                    have = ok and _descent(grad, d, descent_rho, descent_p)
                if have:
                    found, t, new, evals = _arc(
                        P, d, grad, ref, newton_min_step, sigma, backtrack, fdata, lb, scale, lam,
                        free, feasible,
                    )  # fmt: skip
                    n_feval += evals
                    if not found or t < 1.0:
                        if can_escalate:
                            regularized = True
                    elif newton and new[5] < psi:
                        c_H, c_fixed, c_keep, c_da, c_db, c_reduced = H, fx, kp, dfx, dbk, red
                        chord_left = chord_steps
                if not found:
                    n_gradient += 1
                    found, t, new, evals = _arc(
                        P, -grad, grad, ref, min_step, sigma, backtrack, fdata, lb, scale, lam, free,
                        feasible,
                    )  # fmt: skip
                    n_feval += evals
                if not found:
                    outcome = small.SEARCH_FAILED
                    break
            P = new
            history[n_hist] = P[8]
            n_hist += 1
            h_prev, h_last = h_last, P[8]
            merits[n_merits] = P[5]
            n_merits += 1
            if P[8] < best[8]:
                if P[8] < 0.99 * best[8]:
                    best_it = it
                best = P
            if P[5] < (1.0 - 1e-4) * watch[5]:
                watch, watch_count = P, 0
            else:
                watch_count += 1
        counts = np.array(
            [n_factor, n_lm, n_gradient, n_watchdog, n_feval, n_refine, n_polish, n_kept, n_chord, n_jeval]
        )
        return best, outcome, it, history[:n_hist], counts, regularized

else:
    attempt = point = values = jacobian = None
