"""PATH-style nonsmooth Newton solver for box-constrained MCPs (the project's default solver).

The MCP (see :mod:`contactmodel.mcp.types`) is reformulated as the square nonsmooth system
``Phi(x) = 0`` with one row per variable:

* ``lb = -inf, ub = +inf`` (free):      ``Phi_i = F_i``
* ``lb finite, ub = +inf``:             ``Phi_i = phi(x_i - lb_i, F_i)``
* ``lb = -inf, ub finite``:             ``Phi_i = -phi(ub_i - x_i, -F_i)``
* both finite (Billups' nested form):   ``Phi_i = phi(x_i - lb_i, -phi(ub_i - x_i, -F_i))``

where ``phi(a, b) = lam * (a + b - sqrt(a^2 + b^2)) + (1 - lam) * max(a, 0) * max(b, 0)`` is the
(penalized) Fischer-Burmeister function; ``phi(a, b) = 0`` iff ``a >= 0, b >= 0, a * b = 0``.
With ``phi = min`` the same formulas give the natural residual ``x - mid(lb, x - F, ub)``.

Each element of the generalized Jacobian is ``H = D_a + D_b J(x)`` with diagonal ``D_a, D_b >= 0``.
Rows are scaled, ``F_i / max(1, max_j |J_ij(x0)|)``, before ``Phi`` is formed. Iterations (all
iterates stay in the box by default, Kanzow's feasible variant):

* semismooth Newton step ``(D_a + D_b (J + eps I)) d = -Phi``; ``eps = 0`` until a plain step
  fails, then ``eps = min(newton_reg ||Phi||_inf, newton_reg_max)`` (proximal regularization for
  degenerate, non-unique solutions); rows with ``D_b = 0`` (at a bound, ``F`` strictly inside)
  are eliminated first and only the rest is factored (LAPACK LU when small or dense, else SuperLU); a
  Levenberg-Marquardt step when that system is singular or gives no sufficient descent, a
  projected-gradient step last;
* Armijo search along the projection arc ``P(x + t d)`` on ``psi = 1/2 ||Phi||^2`` with a
  nonmonotone (Grippo-Lampariello-Lucidi) reference over the last ``nonmonotone_memory`` merits and
  a watchdog that returns to the best point when that many steps brought no decrease;
* chord steps (affine ``F``): after a whole Newton step, up to ``chord_steps`` steps reusing its
  factored matrix, kept while each halves the merit;
* active-set polish: one Newton step on the natural map at the active set of the current point
  (exact for LCPs once the active set is right), kept when it decreases the merit;
* for LCPs, Lemke's method (PATH's pivoting safeguard, exact on an LCP) when the first attempt
  stalls or exceeds ``pivot_after`` iterations;
* restarts from the starting point with other settings when an attempt stalls.

Convergence is decided on the unscaled natural residual ``||x - mid(lb, x - F, ub)||_inf`` only;
below ``tol``, up to ``refine_iter`` more steps are taken while the convergence is only linear (a
degenerate solution, where the residual understates the error).

The loop itself (attempts, stopping and stall tests, watchdog, nonmonotone reference, the step
ladder and the arc search) is :mod:`contactmodel.solvers.newton.core`, shared with the cone-block
method of :mod:`contactmodel.solvers.newton.cones`; this module is the box method (:class:`_Newton`)
plugged into it, and the entry point :func:`solve` for both. Options: :class:`NewtonOptions`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from contactmodel.errors import SolverError
from contactmodel.mcp.cones import residual as cone_residual
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Outcome, SolverResult
from contactmodel.solvers.newton import blocks, box_matrix, core, kernels, small, small_box
from contactmodel.solvers.newton.box_matrix import Assembler as _Assembler
from contactmodel.solvers.newton.core import Kernels, Merit, NewtonMethod, NewtonOptions, When

__all__ = ["Kernels", "Merit", "NewtonOptions", "When", "solve"]

_RESTARTS = (
    {"regularize": "always", "polish": "always"},
    {"regularize": "never"},
    {"regularize": "never", "scale_rows": False},
)
_SQRT_HALF = math.sqrt(0.5)
_DENSE_FRACTION = box_matrix.DENSE_FRACTION
_MAX_STEP = 1e8
_REDUCE_FRACTION = 0.1
_DENSE_N = box_matrix.DENSE_N
_DENSE_CACHE_N = 2000


def _phi(a: np.ndarray, b: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Penalized) FB value ``phi(a, b)`` and its partials ``(dphi/da, dphi/db)``, elementwise.

    ``a + b - r = 2 a b / (a + b + r)`` where ``a + b > 0`` avoids the cancellation in the value.
    The partials ``1 - a / r`` and ``1 - b / r`` keep an absolute error of one rounding (they are
    diagonal weights of the Newton matrix) and are exactly 0 where the other argument is 0; at
    ``a = b = 0`` they are ``1 - 1/sqrt(2)``, an element of the generalized gradient.
    """
    r = np.hypot(a, b)
    s = a + b
    v = s - r
    np.divide(2.0 * a * b, s + r, out=v, where=s > 0)  # s + r > 0 there
    tiny = r == 0.0
    rs = r + tiny  # 1 where r = 0: no division by zero
    pa = 1.0 - a / rs
    pb = 1.0 - b / rs
    if tiny.any():
        pa[tiny] = 1.0 - _SQRT_HALF
        pb[tiny] = 1.0 - _SQRT_HALF
    if lam < 1.0:
        ap, bp = np.maximum(a, 0.0), np.maximum(b, 0.0)
        v = lam * v + (1.0 - lam) * ap * bp
        pa = lam * pa + (1.0 - lam) * bp * (a > 0)
        pb = lam * pb + (1.0 - lam) * ap * (b > 0)
    return v, pa, pb


class _Box:
    """Index sets of the four bound types and the reformulations ``Phi`` built on them."""

    def __init__(self, lb: np.ndarray, ub: np.ndarray, lam: float) -> None:
        lo_f, up_f = np.isfinite(lb), np.isfinite(ub)
        self.lb, self.ub, self.lam = lb, ub, lam
        self.free = np.flatnonzero(~lo_f & ~up_f)
        self.lo = np.flatnonzero(lo_f & ~up_f)
        self.up = np.flatnonzero(~lo_f & up_f)
        self.box = np.flatnonzero(lo_f & up_f)
        self.lb_lo, self.ub_up = lb[self.lo], ub[self.up]
        self.lb_box, self.ub_box = lb[self.box], ub[self.box]
        self.all_lo = self.lo.size == lb.size  # e.g. an LCP: no index gathering needed

    def fb(self, x: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``Phi(x)`` (n,) and diagonals ``(da, db)`` (n,) of ``H = diag(da) + diag(db) J``."""
        lam = self.lam
        if self.all_lo:
            return _phi(x - self.lb_lo, F, lam)
        phi = np.empty_like(x)
        da = np.zeros_like(x)
        db = np.ones_like(x)
        i = self.free
        if i.size:
            phi[i] = F[i]
        i = self.lo
        if i.size:
            phi[i], da[i], db[i] = _phi(x[i] - self.lb_lo, F[i], lam)
        i = self.up
        if i.size:
            v, pa, pb = _phi(self.ub_up - x[i], -F[i], lam)
            phi[i], da[i], db[i] = -v, pa, pb
        i = self.box
        if i.size:
            v1, pa1, pb1 = _phi(self.ub_box - x[i], -F[i], lam)
            v2, pa2, pb2 = _phi(x[i] - self.lb_box, -v1, lam)
            phi[i], da[i], db[i] = v2, pa2 + pb2 * pa1, pb2 * pb1
        return phi, da, db

    def natural(self, x: np.ndarray, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Natural residual ``x - mid(lb, x - F, ub)`` (n,) and the mask of rows at a bound."""
        y = x - F
        if self.all_lo:  # no upper bounds: one comparison, no clip
            at_bound = y <= self.lb
            return x - np.maximum(y, self.lb), at_bound
        at_bound = (y <= self.lb) | (y >= self.ub)
        return x - np.clip(y, self.lb, self.ub), at_bound


def _row_inf_norms(J: sp.csr_matrix) -> np.ndarray:
    """``max_j |J_ij|`` per row (0 for empty rows)."""
    a = np.abs(J.data)
    out = np.zeros(J.shape[0])
    nonempty = np.diff(J.indptr) > 0
    out[nonempty] = np.maximum.reduceat(a, J.indptr[:-1][nonempty]) if a.size else 0.0
    return out


def _as_csr(J: Any, n: int) -> sp.csr_matrix:
    """``J`` as a canonical CSR (n, n) matrix (dense input accepted)."""
    if not sp.issparse(J):
        J = sp.csr_matrix(np.asarray(J, dtype=float))
    elif J.format != "csr":
        J = J.tocsr()
    if J.shape != (n, n):
        raise SolverError(
            f"MCP.J(x) has shape {J.shape}, expected ({n}, {n}): return the Jacobian of F with "
            "one row per MCP row and one column per variable"
        )
    if not J.has_canonical_format:
        J = J.copy()
        J.sum_duplicates()
    return J


@dataclass
class _Factorization:
    """A factored Newton matrix ``H = diag(da) + diag(db) J`` (n, n): the rows ``fixed`` (indices,
    where ``db = 0``) are solved directly with their ``da_fixed``; ``block`` solves the system of the
    rows ``keep`` (indices, with ``db_keep``; None: all rows, nothing fixed)."""

    J: sp.csr_matrix
    fixed: np.ndarray | None
    keep: np.ndarray | None
    da_fixed: np.ndarray | None
    db_keep: np.ndarray | None
    block: Callable[[np.ndarray], np.ndarray]
    compiled: bool = False  # J @ d by kernels.csr_matvec (the same numbers)

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``H^-1 rhs`` (n,)."""
        if self.keep is None:
            return self.block(rhs)
        fixed, keep = self.fixed, self.keep
        d = np.zeros(rhs.shape[0])
        d[fixed] = rhs[fixed] / self.da_fixed
        J = self.J
        Jd = kernels.csr_matvec(J.data, J.indices, J.indptr, d) if self.compiled else J @ d
        d[keep] = self.block(rhs[keep] - self.db_keep * Jd[keep])
        return d


def _usable(d: np.ndarray, rhs: np.ndarray) -> bool:
    """A solution ``d`` of a Newton system is finite and not absurdly long."""
    big = _MAX_STEP * (1.0 + float(np.abs(rhs).max(initial=0.0)))
    return float(np.abs(d).max(initial=0.0)) <= big  # also False for NaN


class _Newton(NewtonMethod):
    """The box-MCP method of :func:`solve`: Fischer-Burmeister merit, diagonal ``Da, Db``, chord
    and polish steps, Lemke's method as the fallback on LCPs (see the module docstring)."""

    restarts = _RESTARTS

    def __init__(self, mcp: MCP, opt: NewtonOptions) -> None:
        super().__init__(mcp, opt)
        lam = opt.fb_lambda if opt.merit == "penalized_fb" else 1.0
        self.lb = np.asarray(mcp.lb, dtype=float)
        self.ub = np.asarray(mcp.ub, dtype=float)
        self.box = _Box(self.lb, self.ub, lam)
        self.assemble = _Assembler(self.n)
        self.inv_scale = np.ones(self.n)
        self._scaled: np.ndarray | None = None  # 1 / max(1, max_j |J_ij(x0)|) per row
        self.n_polish = 0
        self.n_polish_kept = 0
        self.n_chord = 0
        self.n_compiled = 0  # attempts run by the compiled loop of newton/small_box.py
        self.singular = False  # the last newton_direction met an exactly singular matrix
        self.factorization: _Factorization | None = None  # of the last newton_direction
        self.pivot_info: dict[str, Any] = {}
        self._pivot_shape: bool | None = None  # see _pivot
        self.regularized = opt.newton_reg > 0.0 and opt.regularize == "always"
        # memory of the accelerating steps (see accelerate), reset at each attempt
        self._prev_bound: np.ndarray | None = None  # rows at a bound at the previous iterate
        self._singular_bound: np.ndarray | None = None  # active set whose polish matrix was singular
        self._chord: _Factorization | None = None  # factored matrix of the last whole Newton step
        self._chord_left = 0
        # affine F: J is constant, so J, its transpose and (when used) its dense copy are built once
        self._J: sp.csr_matrix | None = None
        self._JT: sp.csc_matrix | None = None  # J.T: a CSC view of J, no copy
        self._Jd: np.ndarray | None = None  # dense J^T (C order), i.e. J in Fortran order
        self._M: sp.csr_matrix | None = None
        self._q: np.ndarray | None = None
        self.numba = opt.kernels != "numpy" and kernels.AVAILABLE  # see newton/kernels.py
        # what follows from M alone (J, J^T, dense J^T, row scales), kept between solves of small
        # problems (see core.setup_cache); the box has none of its own
        self.kept: dict[str, Any] | None = None
        if mcp.is_linear:
            self._M = _as_csr(mcp.M, self.n)
            self._q = np.asarray(mcp.q, dtype=float).reshape(self.n)
            cache = core.setup_cache(mcp.M)
            self.kept = None if cache is None else cache.setdefault("box", {})

    def eps(self, pt: _Point) -> float:
        """Proximal weight of the Newton matrix at ``pt`` (0 while not regularized)."""
        if not self.regularized:
            return 0.0
        eps = self.opt.newton_reg * float(np.abs(pt.phi).max())
        return min(eps, self.opt.newton_reg_max) if self.mcp.is_linear else eps

    def begin_attempt(self, x: np.ndarray) -> _Point | None:
        """Row scaling and regularization of the attempt's options; the point at ``x``."""
        opt, n = self.opt, self.n
        if self._scaled is None and self.kept is not None and "scaled" in self.kept:
            self.J(x)  # counted as the first evaluation of J, as without the cache
            self._scaled = self.kept["scaled"]
        if self._scaled is None:
            norms = _row_inf_norms(self.J(x)) if n else np.ones(0)
            self._scaled = 1.0 / np.maximum(1.0, np.where(np.isfinite(norms), norms, 1.0))
            if self.kept is not None and self._J is not None:
                self.kept["scaled"] = self._scaled
        self.inv_scale = self._scaled if opt.scale_rows else np.ones(n)
        self.regularized = opt.newton_reg > 0.0 and opt.regularize == "always"
        self._prev_bound = self._singular_bound = self._chord = None
        self._chord_left = 0
        return self.point(x)

    def gradient(self, pt: _Point, J: sp.csr_matrix) -> np.ndarray:
        """``H^T Phi = J^T (db Phi) + da Phi``."""
        return self.jt_dot(J, pt.db * pt.phi) + pt.da * pt.phi

    def newton_step(self, pt: _Point, J: sp.csr_matrix, eps: float) -> np.ndarray | None:
        """``(diag(da + eps db) + diag(db) J) d = -Phi``, see :meth:`newton_direction`."""
        return self.newton_direction(J, pt.da + eps * pt.db, pt.db, -pt.phi)

    def lm_direction(self, pt: _Point, J: sp.csr_matrix) -> np.ndarray | None:
        """Levenberg-Marquardt step at ``pt``, see :meth:`lm_system`."""
        return self.lm_system(J, pt.da, pt.db, pt.phi)

    def accelerate(self, pt: _Point, J: sp.csr_matrix, ref: float) -> _Point | None:
        """A chord step while the last whole Newton step allows more, else the active-set polish
        when it applies (``polish``); None when neither is taken."""
        new = None
        if self._chord_left:
            new = self.chord_step(pt, self._chord)
            self._chord_left = self._chord_left - 1 if new is not None else 0
        polish = new is None and self._polish_due(pt)
        self._prev_bound = pt.at_bound
        if polish:
            new = self.polish_step(pt, J, ref)
        return new

    def _polish_due(self, pt: _Point) -> bool:
        """The polish applies: ``"always"``, or ``"auto"`` with the active set of the previous
        iterate, unless that set's polish matrix was found singular (constant J: same matrix)."""
        prev, mode = self._prev_bound, self.opt.polish
        due = mode == "always" or (mode == "auto" and prev is not None and np.array_equal(prev, pt.at_bound))
        singular = self._singular_bound
        return due and not (singular is not None and np.array_equal(singular, pt.at_bound))

    def polish_step(self, pt: _Point, J: sp.csr_matrix, ref: float) -> _Point | None:
        """One Newton step on the natural map at the active set of ``pt``; the new point if it is
        below ``tol`` or passes the Armijo test against ``ref``, else None."""
        self.n_polish += 1
        ea = pt.at_bound.astype(float)
        d = self.newton_direction(J, ea, 1.0 - ea, -pt.nat)
        if d is None and self.singular and J is self._J:
            self._singular_bound = pt.at_bound
        cand = self.point(self.project(pt.x + d)) if d is not None else None
        opt = self.opt
        if cand is not None and (cand.res <= opt.tol or cand.psi <= ref - 2.0 * opt.armijo_sigma * pt.psi):
            self.n_polish_kept += 1
            return cand
        return None

    def took_newton_step(self, pt: _Point, new: _Point) -> None:
        """Affine ``F``: reuse that step's factorization for up to ``chord_steps`` chord steps."""
        if self.factorization is not None and self.mcp.is_linear and new.psi < pt.psi:
            self._chord, self._chord_left = self.factorization, self.opt.chord_steps

    def forget(self) -> None:
        self._prev_bound = None

    def first_budget(self, budget: int) -> int:
        """With the pivoting fallback, the first attempt has ``pivot_after`` iterations at most."""
        return min(budget, self.opt.pivot_after) if self._pivot else budget

    @property
    def _pivot(self) -> bool:
        """The pivoting fallback applies: an LCP, or a mixed LCP (free and nonnegative rows of an
        affine ``F``; the free block is checked for singularity only when the fallback runs), with
        at most ``pivot_max_n`` nonnegative rows."""
        mcp, opt = self.mcp, self.opt
        if not (opt.pivot_fallback and mcp.is_linear and mcp.cones is None and self.n > 0):
            return False
        if self._pivot_shape is None:
            lb, ub = self.box.lb, self.box.ub
            nonneg = int(np.count_nonzero((lb == 0.0) & np.isposinf(ub)))
            free = int(np.count_nonzero(np.isneginf(lb) & np.isposinf(ub)))
            self._pivot_shape = 0 < nonneg <= opt.pivot_max_n and nonneg + free == self.n
        return self._pivot_shape

    def fallback(self) -> tuple[_Point | None, Outcome, str] | None:
        """Lemke's method for an LCP or a mixed LCP (``pivot_fallback``), see :func:`_pivot_fallback`."""
        return _pivot_fallback(self, self.mcp) if self._pivot else None

    def compiled_attempt(
        self, pt: _Point, deadline: float, max_iter: int, history: list[float]
    ) -> tuple[_Point, Outcome, str, int] | None:
        """The attempt by :func:`contactmodel.solvers.newton.small_box.attempt` (numba) when it
        applies: compiled kernels on, ``F`` affine or of linear and quadratic rows
        (``MCP.quadratic``), no upper bounds, at most ``small_box.MAX_N`` rows."""
        if not (self.numba and small_box.AVAILABLE):
            return None
        if not (self.box.up.size == 0 and self.box.box.size == 0 and self.n <= small_box.MAX_N):
            return None
        J = self._J
        affine = J is not None and self._M is not None
        quadratic = self.mcp.quadratic
        parts = None if affine or quadratic is None else quadratic.parts()
        if not affine and parts is None:
            return None
        opt = self.opt
        if pt.res <= opt.tol and (opt.refine_iter == 0 or not core.linear_rate(history)):
            return None  # solved at the start (a warm start): the loop stops at once, without the call
        if affine:
            M = self._M
            none = np.zeros(0, dtype=np.int64)
            fdata = (M.data, M.indices, M.indptr, self._q, none, none, none, np.zeros(0), 1.0, True)
            Jarrays = (J.data, J.indices, J.indptr, self._dense_jt())
        else:  # J made at every iterate by the attempt; the Newton matrix factored whole, no chord steps
            L, q, qi, qa, qb, qv = parts
            fdata = (L.data, L.indices, L.indptr, q, qi, qa, qb, qv, float(quadratic.s), False)
            index = np.zeros(1, dtype=np.int32)
            Jarrays = (np.zeros(0), index[:0], index, np.zeros((0, 0)))
        fopt = (
            float(opt.tol), float(opt.armijo_sigma), float(opt.backtrack), float(opt.min_step),
            float(opt.newton_min_step), float(opt.descent_rho), float(opt.descent_p), float(opt.lm_mu),
            float(opt.newton_reg), float(opt.newton_reg_max) if affine else math.inf,  # see eps
            float(opt.chord_decrease),
        )  # fmt: skip
        can_escalate = bool(opt.newton_reg > 0.0 and opt.regularize != "never")
        iopt = (
            int(max_iter), int(opt.stall_iter), int(opt.nonmonotone_memory), can_escalate,
            int(opt.refine_iter), int(opt.chord_steps) if affine else 0, small_box.POLISH_CODES[opt.polish],
            bool(opt.feasible),
        )  # fmt: skip
        prior = np.array(([math.nan, math.nan] + history)[-2:], dtype=float)
        start = (pt.x, pt.F, pt.phi, pt.da, pt.db, float(pt.psi), pt.nat, pt.at_bound, float(pt.res))
        best, code, its, hist, counts, regularized = small_box.attempt(
            start, fdata, *Jarrays, self.lb, self.inv_scale, float(self.box.lam), self.box.free, fopt, iopt,
            self.regularized, prior, float(deadline),
        )  # fmt: skip
        self.regularized = bool(regularized)
        self.n_compiled += 1
        for name, count in zip(small_box.COUNTERS, counts):
            setattr(self, name, getattr(self, name) + int(count))
        history.extend(hist.tolist())
        outcome, message = small.verdict(code, opt)
        x, F, phi, da, db, psi, nat, at_bound, res = best
        return _Point(x, F, phi, da, db, float(psi), nat, at_bound, float(res)), outcome, message, int(its)

    def extras(self) -> dict[str, Any]:
        return {
            "compiled_attempts": self.n_compiled,
            "polish_steps": self.n_polish,
            "polish_kept": self.n_polish_kept,
            "chord_steps": self.n_chord,
            **self.pivot_info,
            "kernels": "numba" if self.numba else "numpy",
        }

    def F(self, x: np.ndarray) -> np.ndarray:
        self.n_feval += 1
        if self._M is not None:  # affine: F(x) = M x + q
            M = self._M
            if self.numba:  # the numbers of M @ x + q, without SciPy's dispatch
                return kernels.csr_matvec(M.data, M.indices, M.indptr, x) + self._q
            return M @ x + self._q
        return np.asarray(self.mcp.F(x), dtype=float).reshape(self.n)

    def J(self, x: np.ndarray) -> sp.csr_matrix:
        """``J(x)`` as canonical CSR; evaluated once when ``F`` is affine (``mcp.M`` set)."""
        if self._J is not None:
            return self._J
        self.n_jeval += 1
        if self.kept is not None and "J" in self.kept:
            J, self._JT = self.kept["J"]
            self._J = self._M if J is None else J  # None: M itself (see core.setup_cache)
            return self._J
        J = _as_csr(self.mcp.J(x), self.n)
        if self.mcp.is_linear:
            self._J = J
            self._JT = J.T
            if self.kept is not None:
                self.kept["J"] = (None if J is self._M else J, self._JT)
        return J

    def jt_dot(self, J: sp.csr_matrix, v: np.ndarray) -> np.ndarray:
        """``J^T v`` (n,), with the cached transpose when ``J`` is the constant Jacobian."""
        if self.numba and sp.isspmatrix_csr(J):  # the numbers of SciPy's product with J.T
            return kernels.csr_rmatvec(J.data, J.indices, J.indptr, v, J.shape[1])
        return self._JT @ v if J is self._J and self._JT is not None else J.T @ v

    def newton_direction(
        self, J: sp.csr_matrix, da: np.ndarray, db: np.ndarray, rhs: np.ndarray
    ) -> np.ndarray | None:
        """Solve ``(diag(da) + diag(db) J) d = rhs`` by LU; None if singular or unusable.

        The factorization is kept in ``self.factorization`` (None when it failed) for the chord
        steps of affine problems.
        """
        self.singular = False
        self.factorization = fac = self.factor(J, da, db)
        if fac is None:
            return None
        try:
            d = fac.solve(rhs)
        except (RuntimeError, ValueError, sla.LinAlgError):
            return None
        return d if _usable(d, rhs) else None

    def factor(self, J: sp.csr_matrix, da: np.ndarray, db: np.ndarray) -> _Factorization | None:
        """LU factorization of ``H = diag(da) + diag(db) J``; None if singular (``self.singular``
        set) or the factorization failed.

        Rows with ``db_i = 0`` (e.g. ``x_i`` at a bound with ``F_i`` strictly inside: the FB
        partials are exactly (1, 0) there) give ``d_i = rhs_i / da_i`` at once; when they are many
        (and the system is larger than a dense LU handles at once), only the system of the other
        rows is factored. For an affine ``F`` (constant ``J``, at most ``_DENSE_CACHE_N`` rows)
        whose remaining system is small or dense, that system is taken from a dense copy of ``J``
        made once and factored by LAPACK directly: no sparse structure work per iteration.
        """
        fixed = db == 0.0
        n = self.n
        n_fixed = int(np.count_nonzero(fixed))
        dense = J is self._J and n <= _DENSE_CACHE_N
        dense = dense and (n - n_fixed <= _DENSE_N or J.nnz + n > _DENSE_FRACTION * n * n)
        reduce = dense or (n > _DENSE_N and n_fixed >= _REDUCE_FRACTION * n)
        fixed_rows = keep = da_fixed = db_keep = None
        if reduce and n_fixed:
            fixed_rows, keep = np.flatnonzero(fixed), np.flatnonzero(~fixed)
            da_fixed, db_keep = da[fixed_rows], db[keep]
            if not da_fixed.all():
                return None
        self.n_factor += 1
        try:
            if dense:
                block = self._dense_factor(da, db, keep)
            else:
                block = self._sparse_factor(J, da, db, None if keep is None else ~fixed)
        except (RuntimeError, ValueError, sla.LinAlgError):
            return None
        if block is None:
            self.singular = True
            return None
        compiled = self.numba and sp.isspmatrix_csr(J)
        return _Factorization(J, fixed_rows, keep, da_fixed, db_keep, block, compiled)

    def _sparse_factor(
        self, J: sp.csr_matrix, da: np.ndarray, db: np.ndarray, keep: np.ndarray | None
    ) -> Callable[[np.ndarray], np.ndarray] | None:
        """Factor of ``H[keep, keep]`` (``keep``: row mask, None for all) on the cached sparse
        pattern (LAPACK LU when small or dense)."""
        return self.assemble.factor(self.assemble.values(J, da, db), keep)

    def _dense_factor(
        self, da: np.ndarray, db: np.ndarray, keep: np.ndarray | None
    ) -> Callable[[np.ndarray], np.ndarray] | None:
        """Factor of ``H[keep, keep]`` (``keep``: row indices, None for all) for the constant ``J``
        of an affine ``F``, taken from a dense copy of ``J`` made once and factored by LAPACK's LU."""
        Jd = self._dense_jt()
        k = np.arange(self.n) if keep is None else keep
        if k.size == 0:
            return lambda r: np.zeros(0)
        dak = da[k]
        if self.numba:
            H = kernels.dense_block(Jd, k, da, db)
        else:
            H = Jd[k][:, k].T  # Jd holds J^T: H is Fortran-ordered, as LAPACK wants
            H *= db[k][:, None]
            H.flat[:: k.size + 1] += dak
        z = np.flatnonzero(dak == 0.0)  # rows and columns that can be empty (no diagonal entry)
        if z.size and not (H[z].any(axis=1).all() and H[:, z].any(axis=0).all()):
            return None  # structurally singular, e.g. unregularized steps on degenerate LCPs
        return core.dense_lu(H)

    def _dense_jt(self) -> np.ndarray:
        """The dense copy of the constant ``J^T`` (C order), made once (kept between solves)."""
        if self._Jd is None and self.kept is not None:
            self._Jd = self.kept.get("Jd")
        if self._Jd is None:
            self._Jd = np.ascontiguousarray(self._J.toarray().T)
            if self.kept is not None:
                self.kept["Jd"] = self._Jd
        return self._Jd

    def lm_system(
        self, J: sp.csr_matrix, da: np.ndarray, db: np.ndarray, phi: np.ndarray
    ) -> np.ndarray | None:
        """Levenberg-Marquardt step ``(H^T H + mu I) d = -H^T Phi``; None if it fails."""
        self.n_factor += 1
        self.n_lm += 1
        return box_matrix.lm_solve(self.assemble(J, da, db), phi, self.opt.lm_mu)

    def chord_step(self, pt: _Point, fac: _Factorization) -> _Point | None:
        """Simplified Newton step ``d = -H^-1 Phi(x)`` with the factored ``H`` of an earlier full
        step; the new point ``P(x + d)`` if it cuts the merit by ``chord_decrease`` without raising
        the natural residual, else None."""
        d = fac.solve(-pt.phi)
        if not _usable(d, pt.phi):
            return None
        cand = self.point(self.project(pt.x + d))
        if cand is None or not cand.psi <= self.opt.chord_decrease * pt.psi or cand.res > pt.res:
            return None  # a chord step must not undo the progress in the natural residual either
        self.n_chord += 1
        return cand

    def project(self, x: np.ndarray) -> np.ndarray:
        """``x`` clipped to the box in feasible mode, else ``x`` itself."""
        if not self.opt.feasible:
            return x
        return np.maximum(x, self.lb) if self.box.all_lo else np.clip(x, self.lb, self.ub)

    def point(self, x: np.ndarray) -> _Point | None:
        """Evaluate everything the iteration needs at ``x``; None when F(x) is not finite.

        Called within ``np.errstate(all="ignore")`` (see :func:`solve`)."""
        F = self.F(x)
        if self.numba and self.box.all_lo:
            kernel = kernels.fb_lower
            phi, da, db, nat, at_bound, res = kernel(x, self.lb, F, self.inv_scale, self.box.lam)
        else:
            phi, da, db = self.box.fb(x, F * self.inv_scale)
            db *= self.inv_scale
            nat, at_bound = self.box.natural(x, F)
            res = float(np.abs(nat).max(initial=0.0))
        psi = 0.5 * float(phi @ phi)
        if not math.isfinite(psi):  # a NaN or infinite F(x) gives a NaN or infinite Phi
            return None
        return _Point(x, F, phi, da, db, psi, nat, at_bound, res)


@dataclass
class _Point:
    """An iterate: x, F(x), Phi(x), the diagonals (da, db) of H, psi = 1/2 ||Phi||^2, the natural
    residual vector, the mask of rows at a bound in the natural map, and its inf-norm."""

    x: np.ndarray
    F: np.ndarray
    phi: np.ndarray
    da: np.ndarray
    db: np.ndarray
    psi: float
    nat: np.ndarray
    at_bound: np.ndarray
    res: float


def _start_point(mcp: MCP, opt: NewtonOptions, lb: np.ndarray, ub: np.ndarray) -> np.ndarray:
    n = lb.shape[0]
    x0 = opt.x0 if opt.x0 is not None else mcp.x0
    if x0 is None:
        return np.clip(np.zeros(n), lb, ub)
    x0 = np.array(x0, dtype=float).reshape(-1)
    if x0.shape[0] != n:
        raise SolverError(
            f"starting point (NewtonOptions.x0 or MCP.x0) has length {x0.shape[0]}, expected {n}: "
            "pass one value per MCP variable"
        )
    if not np.all(np.isfinite(x0)):
        raise SolverError(
            "starting point (NewtonOptions.x0 or MCP.x0) has non-finite entries: replace NaN/inf "
            "by finite values"
        )
    return x0


def solve(mcp: MCP, options: NewtonOptions | None = None) -> SolverResult:
    """Solve the box MCP ``lb <= x <= ub  _|_  F(x)`` by a nonsmooth Newton method.

    Returns a :class:`SolverResult` whose ``x`` (n,) is the point with the smallest natural
    residual ``||x - mid(lb, x - F(x), ub)||_inf`` met during the run; ``outcome`` is CONVERGED
    only if that residual is ``<= options.tol``. A run that fails (stall, line-search failure) is
    restarted from the starting point with the settings of ``_RESTARTS`` while the iteration and
    time budgets last; for an LCP, Lemke's method runs before them (``pivot_fallback``), and its
    certificate of infeasibility makes the outcome INFEASIBLE. A start that already meets
    ``tol`` ends at once, with no attempt set up (:func:`_solved_start`). ``extras`` holds
    ``residual_history`` (natural residual inf-norm per iterate, all attempts), ``residual``,
    ``factorizations``, ``gradient_steps``, ``lm_steps``, ``polish_steps``, ``polish_kept``,
    ``watchdog_restarts``, ``refine_steps``, ``restarts``, ``regularized``, ``f_evals``,
    ``j_evals`` (once for an affine ``F``), ``seconds`` (wall), ``cpu_seconds`` (process time: robust
    to other load on the machine), and after a pivoting fallback ``pivot`` ("lemke"), ``pivot_outcome``,
    ``pivots``, ``pivot_restarts``, ``pivot_seconds`` (and ``certificate``, a Farkas vector).
    """
    opt = options if options is not None else NewtonOptions()
    opt.validate()
    t0, c0 = time.perf_counter(), time.process_time()
    n = mcp.n
    lb = np.asarray(mcp.lb, dtype=float).reshape(-1)
    ub = np.asarray(mcp.ub, dtype=float).reshape(-1)
    if ub.shape[0] != n or np.any(lb > ub) or np.any(np.isnan(lb) | np.isnan(ub)):
        raise SolverError(
            "MCP.lb and MCP.ub must have length MCP.n with lb <= ub and no NaN: fix the bounds "
            "(use -inf / +inf for free rows)"
        )
    x = _start_point(mcp, opt, lb, ub)
    solved = _solved_start(mcp, opt, x, lb, ub, t0, c0)
    if solved is not None:
        return solved
    if opt.decouple:
        parts = blocks.components(mcp, x)
        if len(parts) > 1:
            return blocks.solve_blocks(mcp, opt, x, parts, solve, t0, c0)
    if mcp.cones is not None:  # Coulomb cone blocks: natural-map Newton of newton/cones.py
        from contactmodel.solvers.newton.cones import ConeMethod

        method: NewtonMethod = ConeMethod(mcp, opt)
    else:
        method = _Newton(mcp, opt)
    with np.errstate(all="ignore"):  # F, Phi and the steps may overflow on the way; checked
        return core.run(method, method.project(x), t0, c0)


def _solved_start(
    mcp: MCP, opt: NewtonOptions, x: np.ndarray, lb: np.ndarray, ub: np.ndarray, t0: float, c0: float
) -> SolverResult | None:
    """The result at a starting point that already meets ``tol`` by the iteration's own measure
    (the natural residual of the box rows, the fc3d error of the cone blocks, at the start as the
    first attempt projects it): that point, CONVERGED after 0 iterations, as the attempts would
    end at once, without setting them up (a time step starting at the answer of the last step of
    a body at rest or sliding steadily: most of a small step's solver time). ``extras`` has the
    counters of a run (nothing factored, F evaluated once) and ``start_solved``. With
    ``active_set_steps``, a start that does not meet ``tol`` may be replaced by its first
    active-set point that does (:func:`_active_set_point`; ``active_set_steps`` in ``extras``,
    as many iterations and factorizations). None when neither meets ``tol`` or F is not finite."""
    with np.errstate(all="ignore"):
        if mcp.cones is None:
            x = np.clip(x, lb, ub) if opt.feasible else x
            F = np.asarray(mcp.F(x), dtype=float).reshape(-1)
            res = float(np.max(np.abs(x - np.clip(x - F, lb, ub)), initial=0.0))
        else:
            idx = mcp.cones.index
            box = np.ones(x.shape[0], dtype=bool)
            box[idx.ravel()] = False
            x = x.copy()
            x[box] = np.clip(x[box], lb[box], ub[box])
            F = np.asarray(mcp.F(x), dtype=float).reshape(-1)
            xb = x[box]
            res = max(
                float(np.max(np.abs(xb - np.clip(xb - F[box], lb[box], ub[box])), initial=0.0)),
                float(np.max(np.abs(cone_residual(x[idx], F[idx], mcp.cones.mu)), initial=0.0)),
            )
        steps = jacobians = 0
        if not res <= opt.tol and opt.active_set_steps and mcp.cones is None:
            if mcp.M is not None:
                found = _active_set_point(mcp, opt, x, F, lb, ub)
            elif res <= math.sqrt(opt.tol):  # within a Newton step's quadratic reach of tol
                found = _active_set_newton_point(mcp, opt, x, F, lb, ub)
            else:
                found = None
            if found is not None:
                x, F, res, steps = found
                jacobians = 0 if mcp.M is not None else steps
    if not res <= opt.tol or not np.all(np.isfinite(F)):  # NaN included
        return None
    extras = {
        "residual": res,
        "residual_history": [res],
        "residual_history_length": 1,
        **dict.fromkeys(("factorizations", "gradient_steps", "lm_steps", "watchdog_restarts"), 0),
        **dict.fromkeys(("refine_steps", "restarts", "j_evals"), 0),
        "f_evals": 1,
        "start_solved": True,
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
    }
    message = "natural residual below tolerance at the starting point"
    if steps:
        extras.update(start_solved=False, active_set_steps=steps, factorizations=steps, j_evals=jacobians)
        message = f"natural residual below tolerance after {steps} active-set step(s) from the starting point"
    return SolverResult(x, Outcome.CONVERGED, iterations=steps, message=message, extras=extras)


def _mid(v: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> np.ndarray:
    """``v`` clipped to ``[lb, ub]`` without ``np.clip``'s dispatch (a few us a call)."""
    return np.minimum(np.maximum(v, lb), ub)


def _natural_residual(z: np.ndarray, F: np.ndarray, lb: np.ndarray, ub: np.ndarray) -> float:
    """``||z - mid(lb, z - F, ub)||_inf``, the box MCP's natural residual at z (F = F(z))."""
    return float(np.abs(z - _mid(z - F, lb, ub)).max(initial=0.0))


def _active_set_point(
    mcp: MCP, opt: NewtonOptions, x: np.ndarray, F: np.ndarray, lb: np.ndarray, ub: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float, int] | None:
    """The first of at most ``opt.active_set_steps`` active-set points from the start ``x`` (in
    the box, ``F`` = F(x)) of an affine box MCP of at most ``core.SETUP_CACHE_N`` rows that
    meets ``tol`` (see ``NewtonOptions.active_set_steps``): ``(x, F(x), natural residual, steps
    taken)``; None when none does. Each step holds the rows of its active set at their bound and
    moves the others by the least-norm least-squares solution of their rows of ``F = 0`` (the
    pseudo-inverse of their block of ``M``, kept with ``M`` for the next steps of the same
    active set), so the variables a degenerate, non-unique solution leaves undetermined keep the
    start's values. ``F`` is ``M z + q`` with a dense copy of ``M``."""
    n = x.shape[0]
    if n > core.SETUP_CACHE_N or not sp.issparse(mcp.M) and np.ndim(mcp.M) != 2:
        return None
    cache = core.setup_cache(mcp.M) if sp.issparse(mcp.M) else None
    kept: dict[str, Any] = {} if cache is None else cache.setdefault("active_set", {})
    M = kept.get("M")
    if M is None:
        M = kept["M"] = (mcp.M.toarray() if sp.issparse(mcp.M) else np.asarray(mcp.M, dtype=float)).reshape(
            n, n
        )
    q = np.asarray(mcp.q, dtype=float).reshape(n)
    z = x
    basic = (z > lb) & (z < ub)
    for step in range(1, opt.active_set_steps + 1):
        B = np.flatnonzero(basic)
        if B.size:
            inverse = _block_inverse(M, B, kept)
            if inverse is None:
                return None
            z = z.copy()
            z[B] -= inverse @ F[B]
            if opt.feasible:
                z = _mid(z, lb, ub)
            F = M @ z + q
        res = _natural_residual(z, F, lb, ub)
        if not math.isfinite(res):
            return None
        if res <= opt.tol:
            return z, F, res, step
        y = z - F
        at_lb, at_ub = y <= lb, y >= ub
        basic = ~(at_lb | at_ub)
        z = np.where(at_lb, lb, np.where(at_ub, ub, z))
        F = M @ z + q
    return None


def _active_set_newton_point(
    mcp: MCP, opt: NewtonOptions, x: np.ndarray, F: np.ndarray, lb: np.ndarray, ub: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float, int] | None:
    """:func:`_active_set_point` for a box MCP with a nonlinear ``F`` (at most
    ``core.SETUP_CACHE_N`` rows): each step puts the rows of the natural map's active set at the
    step's point (``x - F`` at or past a bound) on that bound and takes one Newton step on the
    other rows of ``F = 0``: the least-norm solution of their block of ``J`` (LAPACK's gelsy: a
    statically indeterminate contact set makes the block singular). None when no point meets
    ``tol``. Tried only from a start within ``sqrt(tol)``: from farther, a point that just meets
    ``tol`` may leave a law with a quadratic slack off by its square root (the soft-finger
    ellipsoid from the LCP surrogate's answer: 1.1e-8 at 7.6e-11), where the iteration, which
    arrives quadratically, ends far below ``tol``. A time step under the laws with quadratic
    rows starts from the last answer lifted by the laws, a few 1e-10 off (the drift of the gaps
    in the normal rows): one such step ends it, where an attempt costs 1.4-2 times as much."""
    n = x.shape[0]
    if n > core.SETUP_CACHE_N:
        return None
    z = x
    for step in range(1, opt.active_set_steps + 1):
        y = z - F
        at_lb, at_ub = y <= lb, y >= ub
        held = np.where(at_lb, lb, np.where(at_ub, ub, z))
        if not np.array_equal(held, z):
            z = held
            F = np.asarray(mcp.F(z), dtype=float).reshape(n)
        B = np.flatnonzero(~(at_lb | at_ub))
        if B.size:
            J = mcp.J(z)
            dense = J.toarray() if sp.issparse(J) else np.asarray(J, dtype=float).reshape(n, n)
            try:  # the least-norm step: a degenerate solution's other variables as they were
                d = sla.lstsq(
                    dense[np.ix_(B, B)], F[B], cond=B.size * _EPS, lapack_driver="gelsy", check_finite=False
                )[0]
            except (ValueError, np.linalg.LinAlgError):
                return None
            z = z.copy()
            z[B] -= d
            if opt.feasible:
                z = _mid(z, lb, ub)
            F = np.asarray(mcp.F(z), dtype=float).reshape(n)
        res = _natural_residual(z, F, lb, ub)
        if not math.isfinite(res):
            return None
        if res <= opt.tol:
            return z, F, res, step
    return None


#: the most active sets whose block inverses :func:`_block_inverse` keeps per matrix
_BLOCKS_KEPT = 16


def _block_inverse(M: np.ndarray, B: np.ndarray, kept: dict[str, Any]) -> np.ndarray | None:
    """The pseudo-inverse of ``M[B][:, B]`` (singular values below ``len(B) eps`` of the largest
    taken as 0), kept in ``kept`` for at most :data:`_BLOCKS_KEPT` index sets ``B``; None when
    the SVD fails or is not finite."""
    blocks = kept.setdefault("blocks", {})
    key = B.tobytes()
    inverse = blocks.get(key)
    if inverse is None:
        try:
            inverse = np.linalg.pinv(M[B][:, B], rcond=B.size * _EPS)
        except np.linalg.LinAlgError:
            return None
        if not np.all(np.isfinite(inverse)):
            return None
        if len(blocks) < _BLOCKS_KEPT:
            blocks[key] = inverse
    return inverse


_EPS = float(np.finfo(float).eps)


def _pivot_fallback(st: _Newton, mcp: MCP) -> tuple[_Point | None, Outcome, str]:
    """Lemke's method on the LCP of ``mcp`` (after eliminating the free rows of a mixed LCP, see
    :mod:`contactmodel.solvers.newton.blocks`) from the normal start: ``(point, outcome, message)``.

    A warm start from the basis of the stalled Newton point was tried and rejected: that basis is
    singular on these degenerate problems, and its largest nonsingular part (pivoted QR) leads
    Lemke to a ray (its covering vector ``B e`` proves nothing) more often than not.
    """
    from contactmodel.solvers import lemke

    t0 = time.perf_counter()
    mixed = None
    lcp = mcp
    if not mcp.is_lcp:
        mixed = blocks.reduce_mlcp(mcp, st.opt.pivot_max_n)
        if mixed is None:
            return None, Outcome.FAILED, "no pivoting fallback: the free rows' block is singular"
        lcp = MCP.from_lcp(mixed.S, mixed.r)
    res = lemke.solve(lcp, lemke.LemkeOptions(max_restarts=st.opt.pivot_restarts))
    info = st.pivot_info
    info.update(
        pivot="lemke" if mixed is None else "lemke (mixed LCP, free rows eliminated)",
        pivot_outcome=res.outcome.value,
        pivots=int(res.extras.get("pivots", 0)),
        pivot_restarts=int(res.extras.get("restarts", 0)),
        pivot_seconds=time.perf_counter() - t0,
    )
    if "certificate" in res.extras:  # a Farkas vector of the LCP Lemke solved
        info["certificate" if mixed is None else "certificate_reduced"] = res.extras["certificate"]
    if res.outcome is Outcome.INFEASIBLE:
        return None, Outcome.INFEASIBLE, f"Lemke's method: {res.message}"
    x = None
    if res.x is not None:
        v = np.maximum(np.asarray(res.x, dtype=float), 0.0)
        x = v if mixed is None else mixed.expand(v, mcp.n)
    cand = st.point(x) if x is not None else None
    if cand is None:
        return None, Outcome.FAILED, f"Lemke's method: {res.message}"
    if cand.res <= st.opt.tol:
        return cand, Outcome.CONVERGED, "solved by Lemke's method after the Newton attempt stalled"
    return cand, Outcome.FAILED, f"Lemke's point has natural residual {cand.res:.2e}: {res.message}"
