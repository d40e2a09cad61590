"""The ``newton`` solver on MCPs with Coulomb cone blocks (``CoulombCone(mu, form="soc")``).

Semismooth Newton on the natural map, one row per variable:

* box rows:   ``Phi_i = x_i - mid(lb_i, x_i - s_i F_i, ub_i)`` (free rows: ``s_i F_i``);
* cone block: ``Phi_b = c_b - Proj_{K_mu}(c_b - rho_b a_hat_b)``, ``a_hat`` De Saxce's modified
  acceleration (:mod:`contactmodel.mcp.cones`),

with row scales ``s_i = 1 / max_j |J_ij(x0)|`` (one ``rho_b`` per block, the smallest of its three
rows, so the cone stays a cone). Both maps vanish exactly at the solutions for any positive scale.
An element of the generalized Jacobian is ``H = Da + Db J`` with ``Da, Db`` block diagonal (3 x 3 per
cone block, diagonal elsewhere). Rows that are a unit row of ``H`` (a variable at a bound, a cone
block whose point projects to 0, i.e. a separating contact) are eliminated before the LU.

Globalization, as in :mod:`contactmodel.solvers.newton`: Armijo search on ``psi = 1/2 ||Phi||^2``
(nonmonotone over ``nonmonotone_memory`` merits); the proximal term ``eps Db`` (``eps`` of the order
of ``newton_reg`` x |J| x the residual relative to the start, see ``_State.eps``) once a plain step
fails, and from the first step for systems factored by SuperLU (large and sparse: their matrix is
exactly singular wherever contact Jacobian rows are dependent); a Levenberg-Marquardt step when the
Newton system is singular or gives no descent, a gradient step last; a watchdog that returns to the
best point with a monotone search and ten times the damping when ``nonmonotone_memory`` steps
brought no decrease (the nonmonotone search otherwise lets Newton cycle); an attempt that stalls is
restarted from the starting point with the regularization on, then also without row scaling.
Convergence is decided on the unscaled natural residual (rho = 1, the dispatcher's measure).
Of :class:`~contactmodel.solvers.newton.NewtonOptions` this uses ``tol``, ``max_iter``,
``time_limit``, ``armijo_sigma``, ``backtrack``, ``min_step``, ``newton_min_step``,
``nonmonotone_memory``, ``newton_reg``, ``lm_mu``, ``stall_iter``, ``restarts``, ``scale_rows``
and ``x0``; the box-MCP machinery (merit, polish, pivoting fallback, refinement) does not apply.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from contactmodel.mcp import cones
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome, SolverResult

_DENSE_N = 150
_DENSE_FRACTION = 0.15
_EPS_SCALE = 0.1


@dataclass
class _Point:
    x: np.ndarray
    F: np.ndarray
    phi: np.ndarray  # scaled natural map (n,)
    da_box: np.ndarray  # (nb,) Da on the box rows
    db_box: np.ndarray  # (nb,) Db on the box rows
    da_cone: np.ndarray  # (k, 3, 3)
    db_cone: np.ndarray  # (k, 3, 3)
    psi: float
    res: float  # unscaled natural residual, inf-norm


class _State:
    def __init__(self, mcp: MCP, opt) -> None:
        self.mcp, self.opt = mcp, opt
        self.n = mcp.n
        self.lb = np.asarray(mcp.lb, dtype=float)
        self.ub = np.asarray(mcp.ub, dtype=float)
        self.idx = mcp.cones.index
        self.mu = mcp.cones.mu
        in_cone = np.zeros(self.n, dtype=bool)
        in_cone[self.idx.ravel()] = True
        self.box = np.flatnonzero(~in_cone)
        self.lb_box, self.ub_box = self.lb[self.box], self.ub[self.box]
        self.s_box = np.ones(self.box.size)
        self.rho = np.ones(self.idx.shape[0])
        self.j_scale = 1.0
        self.boost = 1.0  # grows 10x at each watchdog return
        self.phi0 = 1.0  # ||Phi||_inf at the start of the attempt
        self.affine = mcp.M is not None
        self._J: sp.csr_matrix | None = None
        self._Jd: np.ndarray | None = None
        self.regularized = False
        self.n_factor = self.n_lm = self.n_gradient = self.n_feval = self.n_jeval = self.n_watchdog = 0

    def eps(self, pt: _Point) -> float:
        """Proximal weight of the regularized Newton matrix at ``pt``: ``_EPS_SCALE`` x
        ``newton_reg`` x the median row norm of J x ``||Phi||_inf / ||Phi(x_start)||_inf`` (at most
        1), x10 after each watchdog return. Measured: a weight proportional to the unscaled
        ``||Phi||`` (N) stalled the sparse form of stacked boxes; one capped at 1e-2 of |J| let
        Newton cycle on an fc3d instance (seed 8, 400 contacts)."""
        ratio = min(1.0, float(np.max(np.abs(pt.phi), initial=0.0)) / self.phi0)
        return _EPS_SCALE * self.opt.newton_reg * self.j_scale * self.boost * ratio

    def set_scaling(self, J: sp.csr_matrix, on: bool) -> None:
        if not on:
            self.j_scale = 1.0
            self.s_box = np.ones(self.box.size)
            self.rho = np.ones(self.idx.shape[0])
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

    def J(self, x: np.ndarray) -> sp.csr_matrix:
        if self.affine and self._J is not None:
            return self._J
        self.n_jeval += 1
        J = self.mcp.J(x)
        J = sp.csr_matrix(J) if not sp.issparse(J) else J.tocsr()
        J.sum_duplicates()
        if self.affine:
            self._J = J
        return J

    def dense_J(self, J: sp.csr_matrix) -> np.ndarray | None:
        """Dense copy of J when the Newton matrix is better factored dense (cached when affine)."""
        if not (self.n <= _DENSE_N or J.nnz > _DENSE_FRACTION * self.n * self.n):
            return None
        if self.affine:
            if self._Jd is None:
                self._Jd = J.toarray()
            return self._Jd
        return J.toarray()

    def point(self, x: np.ndarray) -> _Point | None:
        self.n_feval += 1
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
        R, Dac, Dbc = cones.natural_map(c, a, self.mu, self.rho)
        phi[self.idx] = R
        res_box = np.abs(xb - np.clip(xb - Fb, self.lb_box, self.ub_box))
        res_cone = np.abs(cones.residual(c, a, self.mu))
        res = max(float(np.max(res_box, initial=0.0)), float(np.max(res_cone, initial=0.0)))
        return _Point(x, F, phi, da_box, db_box, Dac, Dbc, 0.5 * float(phi @ phi), res)

    # -- the Newton matrix H = Da + Db (J + eps I) ---------------------------------------------
    def _blocks(self, pt: _Point, eps: float):
        """COO parts of Da + eps Db and of Db."""
        b, idx = self.box, self.idx
        r3 = np.repeat(idx, 3, axis=1).ravel()  # rows of the 3x3 blocks, row-major
        c3 = np.tile(idx, (1, 3)).ravel()
        da = np.concatenate([pt.da_box + eps * pt.db_box, (pt.da_cone + eps * pt.db_cone).ravel()])
        db = np.concatenate([pt.db_box, pt.db_cone.ravel()])
        rows = np.concatenate([b, r3])
        cols = np.concatenate([b, c3])
        return rows, cols, da, db

    def matrix(self, pt: _Point, J: sp.csr_matrix, eps: float):
        """H as a dense array or a CSR matrix."""
        rows, cols, da, db = self._blocks(pt, eps)
        Jd = self.dense_J(J)
        if Jd is not None:
            H = np.zeros((self.n, self.n))
            b, idx = self.box, self.idx
            H[b] = pt.db_box[:, None] * Jd[b]
            if idx.size:
                H[idx] = np.einsum("kij,kjn->kin", pt.db_cone, Jd[idx])
            np.add.at(H, (rows, cols), da)
            return H
        Da = sp.csr_matrix((da, (rows, cols)), shape=(self.n, self.n))
        Db = sp.csr_matrix((db, (rows, cols)), shape=(self.n, self.n))
        return (Da + Db @ J).tocsr()

    def newton_direction(self, pt: _Point, J: sp.csr_matrix, eps: float) -> np.ndarray | None:
        """Solve ``H d = -Phi`` with unit rows of H eliminated; None if singular."""
        H = self.matrix(pt, J, eps)
        fixed = np.zeros(self.n, dtype=bool)
        fixed[self.box[(pt.db_box == 0.0) & (pt.da_box == 1.0)]] = True
        if self.idx.size:
            sep = np.all(pt.db_cone == 0.0, axis=(1, 2)) & np.all(pt.da_cone == np.eye(3), axis=(1, 2))
            fixed[self.idx[sep].ravel()] = True
        d = np.zeros(self.n)
        d[fixed] = -pt.phi[fixed]
        keep = ~fixed
        self.n_factor += 1
        if not keep.any():
            return d
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            try:
                if isinstance(H, np.ndarray):
                    Hk = H[np.ix_(keep, keep)]
                    rhs = -pt.phi[keep] - H[np.ix_(keep, fixed)] @ d[fixed]
                    lu = sla.lu_factor(Hk, check_finite=False)
                    if np.min(np.abs(np.diag(lu[0]))) <= 1e-14 * max(1.0, float(np.abs(Hk).max())):
                        return None
                    y = sla.lu_solve(lu, rhs, check_finite=False)
                else:
                    Hr = H[keep]
                    rhs = -pt.phi[keep] - Hr[:, fixed] @ d[fixed]
                    y = spla.splu(Hr[:, keep].tocsc()).solve(rhs)
            except (RuntimeError, ValueError, sla.LinAlgError):
                return None
        d[keep] = y
        if not np.all(np.isfinite(d)) or float(np.max(np.abs(d))) > 1e8 * (1.0 + float(np.max(np.abs(pt.x)))):
            return None
        return d

    def gradient(self, pt: _Point, J: sp.csr_matrix) -> np.ndarray:
        """``H^T Phi``, the gradient of psi where it is differentiable."""
        H = self.matrix(pt, J, 0.0)
        return H.T @ pt.phi

    def lm_direction(self, pt: _Point, J: sp.csr_matrix) -> np.ndarray | None:
        H = self.matrix(pt, J, 0.0)
        g = H.T @ pt.phi
        mu = max(self.opt.lm_mu * float(np.linalg.norm(pt.phi)), 1e-14)
        self.n_factor += 1
        self.n_lm += 1
        try:
            if isinstance(H, np.ndarray):
                N = H.T @ H + mu * np.eye(self.n)
                d = sla.cho_solve(sla.cho_factor(N, check_finite=False), -g, check_finite=False)
            else:
                N = (H.T @ H + mu * sp.eye(self.n)).tocsc()
                d = spla.splu(N).solve(-g)
        except (RuntimeError, ValueError, sla.LinAlgError):
            return None
        return d if np.all(np.isfinite(d)) else None

    def project(self, x: np.ndarray) -> np.ndarray:
        out = x.copy()
        out[self.box] = np.clip(x[self.box], self.lb_box, self.ub_box)
        return out

    def search(self, pt: _Point, d: np.ndarray, slope: float, ref: float, min_step: float) -> _Point | None:
        """Armijo search: accept ``psi(P(x + t d)) <= ref + sigma t slope``."""
        t = 1.0
        while t >= min_step:
            cand = self.point(self.project(pt.x + t * d))
            if cand is not None and cand.psi <= ref + self.opt.armijo_sigma * t * slope:
                return cand
            t *= self.opt.backtrack
        return None


def solve(mcp: MCP, opt, x: np.ndarray) -> SolverResult:
    """Solve ``mcp`` (with ``mcp.cones``) from ``x`` with the :class:`NewtonOptions` ``opt``."""
    t0 = time.perf_counter()
    st = _State(mcp, opt)
    x = st.project(np.asarray(x, dtype=float))
    deadline = math.inf if opt.time_limit is None else t0 + opt.time_limit
    J0 = st.J(x)
    history: list[float] = []
    attempts = [{}]
    if opt.restarts:
        attempts += [{"regularized": True}, {"regularized": True, "scale": False}]
    best: _Point | None = None
    outcome, message, iterations = Outcome.FAILED, "", 0
    for k, att in enumerate(attempts):
        st.set_scaling(J0, opt.scale_rows and att.get("scale", True))
        # SuperLU reports an exactly singular matrix only after printing BLAS errors, and the
        # sparse form's Newton matrix is singular wherever G has dependent rows (more contacts
        # than a body's 6 dof): the sparse path is regularized from the start
        sparse_path = st.dense_J(J0) is None
        st.regularized = (att.get("regularized", False) or sparse_path) and opt.newton_reg > 0
        pt = st.point(x)
        if pt is None:
            message = "F is not finite at the starting point"
            break
        history.append(pt.res)
        st.phi0 = max(float(np.max(np.abs(pt.phi), initial=0.0)), 1e-300)
        if best is None or pt.res < best.res:
            best = pt
        cand, outcome, message, its = _run(st, pt, deadline, opt.max_iter - iterations, history)
        iterations += its
        if cand.res < best.res:
            best = cand
        if best.res <= opt.tol or outcome is Outcome.TIME_LIMIT:
            break
        if iterations >= opt.max_iter:
            outcome, message = Outcome.ITERATION_LIMIT, f"iteration limit {opt.max_iter} reached"
            break
        if k + 1 < len(attempts):
            st.n_restarts = k + 1
    restarts = getattr(st, "n_restarts", 0)
    if best is not None and best.res <= opt.tol:
        outcome, message = Outcome.CONVERGED, "natural residual below tolerance"
    elif restarts:
        message = f"{message} (after {restarts} restarts)"
    extras: dict[str, Any] = {
        "residual": best.res if best is not None else math.inf,
        "residual_history": history,
        "residual_history_length": len(history),
        "factorizations": st.n_factor,
        "gradient_steps": st.n_gradient,
        "lm_steps": st.n_lm,
        "watchdog_restarts": st.n_watchdog,
        "restarts": restarts,
        "regularized": st.regularized,
        "cone_blocks": int(st.idx.shape[0]),
        "f_evals": st.n_feval,
        "j_evals": st.n_jeval,
        "seconds": time.perf_counter() - t0,
    }
    return SolverResult(
        x=best.x if best is not None else x,
        outcome=outcome,
        iterations=iterations,
        message=message,
        extras=extras,
    )


def _run(st: _State, pt: _Point, deadline: float, max_iter: int, history: list[float]):
    """One attempt: (best point, outcome, message, iterations)."""
    opt = st.opt
    best, best_it = pt, 0
    watch, watch_count = pt, 0
    merits = [pt.psi]
    st.boost = 1.0
    it = 0
    while True:
        if best.res <= opt.tol:
            return best, Outcome.CONVERGED, "natural residual below tolerance", it
        if it >= max_iter:
            return best, Outcome.ITERATION_LIMIT, "iteration limit reached", it
        if time.perf_counter() > deadline:
            return best, Outcome.TIME_LIMIT, f"time limit {opt.time_limit} s reached", it
        if it - best_it >= opt.stall_iter:
            return (
                best,
                Outcome.FAILED,
                f"no progress in the natural residual for {opt.stall_iter} iterations",
                it,
            )
        if it - best_it >= opt.stall_iter // 2 and not st.regularized and opt.newton_reg > 0:
            st.regularized = True
        it += 1
        if watch_count >= opt.nonmonotone_memory:
            # watchdog: no decrease for that many steps (the nonmonotone search lets Newton cycle
            # between two points): back to the best point, monotone from there, more damping
            st.n_watchdog += 1
            st.regularized = opt.newton_reg > 0
            st.boost *= 10.0
            pt, merits, watch_count = watch, [watch.psi], 0
        ref = max(merits[-opt.nonmonotone_memory :])
        J = st.J(pt.x)
        new = None
        eps = st.eps(pt) if st.regularized else 0.0
        d = st.newton_direction(pt, J, eps)
        if d is not None:
            new = st.search(pt, d, -2.0 * pt.psi, ref, opt.newton_min_step)
        if new is None and not st.regularized and opt.newton_reg > 0:
            st.regularized = True
            eps = st.eps(pt)
            d = st.newton_direction(pt, J, eps)
            if d is not None:
                new = st.search(pt, d, -2.0 * pt.psi, ref, opt.newton_min_step)
        if new is None:
            d = st.lm_direction(pt, J)
            g = st.gradient(pt, J)
            if d is not None and float(g @ d) < 0.0:
                new = st.search(pt, d, float(g @ d), ref, opt.newton_min_step)
            if new is None:
                st.n_gradient += 1
                new = st.search(pt, -g, -float(g @ g), ref, opt.min_step)
        if new is None:
            return (
                best,
                Outcome.FAILED,
                "line search failed: no sufficient decrease of the merit function",
                it,
            )
        pt = new
        history.append(pt.res)
        merits.append(pt.psi)
        if pt.psi < (1.0 - 1e-4) * watch.psi:
            watch, watch_count = pt, 0
        else:
            watch_count += 1
        if pt.res < best.res:
            if pt.res < 0.99 * best.res:
                best_it = it
            best = pt
