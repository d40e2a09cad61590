"""MNCPOpt / LCPOpt (Andreani et al. (2002) §3): a box MCP as a smooth bound-constrained NLP.

The MCP's variables split into u (lb = 0, ub = +inf, rows f = F_U) and v (lb = -inf,
ub = +inf, rows g = F_V). With one slack z_k >= 0 per u-row and y = (x, z) of length
n + n_u (x in the MCP's own variable order, z in the order of the u-rows),

    phi(y) = 1/2 (||F_U(x) - z||^2 + ||F_V(x)||^2 + c(u, z))   s.t.  u >= 0, z >= 0,

with c = (u^T z)^2 ("product", the paper's term) or sum_k (u_k z_k)^2 ("componentwise").
phi(y) = 0 exactly when x solves the MCP and z = F_U(x). For an LCP this is LCPOpt.
A stationary point with phi > 0 is not a solution; Theorem 1 of Andreani et al. (2002) rules such points
out when the Schur complement of g_v in J is a row-sufficient S-matrix.

References:

- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
- F. Facchinei, A. Fischer and C. Kanzow, "On the accurate identification of active constraints",
  SIAM Journal on Optimization 9(1), 1998 (the identification used by :func:`polish`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from contactmodel.constants import Choice
from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP, natural_residual


class ComplementarityTerm(Choice):
    """The complementarity term of MNCPOpt / LCPOpt (``complementarity_term`` of the ipopt and
    scipy solvers)."""

    PRODUCT = "product"  # (u^T z)^2, the paper's term
    COMPONENTWISE = "componentwise"  # sum_k (u_k z_k)^2


#: the complementarity terms' names
COMPLEMENTARITY_TERMS: tuple[str, ...] = ComplementarityTerm.values()


def _var_name(mcp: MCP, i: int) -> str:
    if i < len(mcp.names):
        return f"{i} ({mcp.names[i]!r})"
    return str(i)


def _pattern(A: sp.spmatrix) -> sp.csr_matrix:
    """Structural pattern of A with every stored entry set to 1.0 (CSR)."""
    P = sp.csr_matrix(A, dtype=float, copy=True)
    P.data[:] = 1.0
    return P


class MNCPOpt:
    """The MNCPOpt (LCPOpt) program of a box MCP whose variables are nonnegative or free.

    ``mcp``: the MCP; every variable must have (lb, ub) = (0, +inf) or (-inf, +inf), else
    :class:`SolverError`. ``complementarity_term``: "product" or "componentwise".
    ``probe_seed`` seeds the random probe points of :meth:`hessian_structure`.
    NLP points are y = (x, z), x (n,) in the MCP's order, z (n_u,) one slack per u-row.
    Attributes: ``u_idx`` (n_u,) and ``v_idx`` (n_v,) MCP indices of the u and v variables;
    ``n`` = MCP size; ``n_u``; ``dim`` = n + n_u, the NLP size.
    """

    def __init__(
        self,
        mcp: MCP,
        complementarity_term: ComplementarityTerm | str = ComplementarityTerm.PRODUCT,
        probe_seed: int = 0,
    ) -> None:
        complementarity_term = ComplementarityTerm.parse(
            complementarity_term, "MNCPOpt: complementarity_term", OptionError
        )
        lb = np.asarray(mcp.lb, dtype=float)
        ub = np.asarray(mcp.ub, dtype=float)
        is_u = (lb == 0.0) & (ub == np.inf)
        is_v = (lb == -np.inf) & (ub == np.inf)
        bad = np.flatnonzero(~(is_u | is_v))
        if bad.size:
            i = int(bad[0])
            raise SolverError(
                f"MNCPOpt needs every variable nonnegative (lb=0, ub=inf) or free "
                f"(lb=-inf, ub=inf); variable {_var_name(mcp, i)} has lb={lb[i]}, ub={ub[i]}"
                + (f" ({bad.size} such variables)" if bad.size > 1 else "")
            )
        self.mcp = mcp
        self.complementarity_term: ComplementarityTerm = complementarity_term
        self.n: int = mcp.n
        self.u_idx: np.ndarray = np.flatnonzero(is_u)
        self.v_idx: np.ndarray = np.flatnonzero(is_v)
        self.n_u: int = int(self.u_idx.size)
        self.dim: int = self.n + self.n_u
        self._E = sp.csr_matrix(
            (np.ones(self.n_u), (self.u_idx, np.arange(self.n_u))), shape=(self.n, self.n_u)
        )
        self._probe_seed = probe_seed
        self._cache_key: bytes | None = None
        self._cache_F: np.ndarray | None = None
        self._cache_J_key: bytes | None = None
        self._cache_J: sp.csr_matrix | None = None
        self._struct: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self.dropped_hessian_entries: int = 0

    def split(self, y: np.ndarray) -> np.ndarray:
        """The MCP point x (n,) of an NLP point y (dim,)."""
        return np.asarray(y, dtype=float)[: self.n].copy()

    def slack(self, y: np.ndarray) -> np.ndarray:
        """The slacks z (n_u,) of an NLP point y (dim,)."""
        return np.asarray(y, dtype=float)[self.n :].copy()

    def _F(self, x: np.ndarray) -> np.ndarray:
        key = x.tobytes()
        if key != self._cache_key:
            self._cache_F = np.asarray(self.mcp.F(x), dtype=float).ravel()
            self._cache_key = key
        return self._cache_F  # type: ignore[return-value]

    def _J(self, x: np.ndarray) -> sp.csr_matrix:
        key = x.tobytes()
        if key != self._cache_J_key:
            self._cache_J = sp.csr_matrix(self.mcp.J(x))
            self._cache_J_key = key
        return self._cache_J  # type: ignore[return-value]

    def _parts(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        y = np.asarray(y, dtype=float)
        x, z = y[: self.n], y[self.n :]
        r = self._F(x).copy()
        r[self.u_idx] -= z
        return x, z, x[self.u_idx], r

    def residual(self, y: np.ndarray) -> np.ndarray:
        """r(y) = F(x) - E z (n,): rows F_U(x) - z at u-rows, F_V(x) at v-rows."""
        return self._parts(y)[3]

    def objective(self, y: np.ndarray) -> float:
        """phi(y) (see module docstring)."""
        _, z, u, r = self._parts(y)
        p = u * z
        c = float(np.sum(p)) ** 2 if self.complementarity_term == "product" else float(p @ p)
        return 0.5 * (float(r @ r) + c)

    def gradient(self, y: np.ndarray) -> np.ndarray:
        """Exact gradient of phi (dim,)."""
        x, z, u, r = self._parts(y)
        J = self._J(x)
        gx = np.asarray(J.T @ r).ravel()
        gz = -r[self.u_idx]
        if self.complementarity_term == "product":
            theta = float(u @ z)
            gx[self.u_idx] += theta * z
            gz = gz + theta * u
        else:
            p = u * z
            gx[self.u_idx] += p * z
            gz = gz + p * u
        return np.concatenate([gx, gz])

    def _hessian_triplets(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, cols, vals) of the full symmetric Hessian; duplicates are to be summed."""
        x, z, u, r = self._parts(y)
        n, nu, ui = self.n, self.n_u, self.u_idx
        J = self._J(x)
        Jr = sp.hstack([J, -self._E], format="csr") if nu else J
        G = (Jr.T @ Jr).tocoo()
        parts = [(G.row, G.col, G.data)]
        if self.mcp.hess is not None:
            S = sp.coo_matrix(self.mcp.hess(x, r))
            parts.append((S.row, S.col, S.data))
        if nu:
            zi = n + np.arange(nu)
            if self.complementarity_term == "product":
                theta = float(u @ z)
                idx = np.concatenate([ui, zi])
                a = np.concatenate([z, u])
                m = idx.size
                parts.append((np.repeat(idx, m), np.tile(idx, m), np.outer(a, a).ravel()))
                th = np.full(nu, theta)
                parts.append((np.r_[ui, zi], np.r_[zi, ui], np.r_[th, th]))
            else:
                c = 2.0 * u * z
                parts.append((np.r_[ui, zi, ui, zi], np.r_[ui, zi, zi, ui], np.r_[z * z, u * u, c, c]))
        rows = np.concatenate([p[0] for p in parts]).astype(np.int64)
        cols = np.concatenate([p[1] for p in parts]).astype(np.int64)
        vals = np.concatenate([p[2] for p in parts]).astype(float)
        return rows, cols, vals

    def hessian(self, y: np.ndarray) -> sp.csr_matrix:
        """Exact Hessian of phi (dim x dim, CSR, full symmetric).

        Gauss-Newton part [J, -E]^T [J, -E], second-order part sum_i r_i Hess F_i (from
        ``mcp.hess``), and the exact second derivatives of the complementarity term.
        """
        rows, cols, vals = self._hessian_triplets(y)
        return sp.csr_matrix((vals, (rows, cols)), shape=(self.dim, self.dim))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi), each (dim,): 0 for u and z, -inf for v; hi = +inf everywhere."""
        lo = np.concatenate([np.asarray(self.mcp.lb, dtype=float), np.zeros(self.n_u)])
        return lo, np.full(self.dim, np.inf)

    def starting_point(self, x0: np.ndarray | None = None) -> np.ndarray:
        """y0 = (x0, max(F_U(x0), 0)) with u-components of x0 clipped to >= 0.

        ``x0`` defaults to ``mcp.x0``, then to zeros.
        """
        if x0 is None:
            x0 = self.mcp.x0
        x = np.zeros(self.n) if x0 is None else np.asarray(x0, dtype=float).ravel().copy()
        if x.shape != (self.n,):
            raise SolverError(f"starting point has shape {x.shape}, expected ({self.n},)")
        x[self.u_idx] = np.maximum(x[self.u_idx], 0.0)
        z = np.maximum(self._F(x)[self.u_idx], 0.0)
        return np.concatenate([x, z])

    def projected_gradient(self, y: np.ndarray) -> float:
        """inf-norm of y - P(y - grad phi(y)), P the projection on the bounds."""
        y = np.asarray(y, dtype=float)
        lo, hi = self.bounds()
        return float(np.max(np.abs(y - np.clip(y - self.gradient(y), lo, hi)), initial=0.0))

    def _probe_points(self) -> list[np.ndarray]:
        rng = np.random.default_rng(self._probe_seed)
        base = self.starting_point()[: self.n]
        scale = 1.0 + np.abs(base)
        pts = [base]
        pts += [base + scale * rng.standard_normal(self.n) for _ in range(3)]
        return pts

    def hessian_structure(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cols) of a fixed lower-triangle sparsity structure covering every Hessian.

        The J and ``mcp.hess`` patterns are the union over x0 and random probe points (with
        random weights), so values that vanish at one point keep their slot.
        """
        if self._struct is None:
            rng = np.random.default_rng(self._probe_seed + 1)
            n, nu = self.n, self.n_u
            Jp = sp.csr_matrix((n, n))
            Hp = sp.csr_matrix((n, n))
            for x in self._probe_points():
                Jp = Jp + _pattern(self.mcp.J(x))
                if self.mcp.hess is not None:
                    w = rng.standard_normal(n)
                    Hp = Hp + _pattern(self.mcp.hess(x, w))
            Jp = _pattern(Jp)
            Pxx = _pattern(Jp.T @ Jp) + _pattern(Hp)
            Pxz = _pattern(Jp.T @ self._E)
            Pzz = sp.identity(nu, format="csr")
            if nu and self.complementarity_term == "product":
                idx = np.r_[self.u_idx, n + np.arange(nu)]
                s = sp.csr_matrix((np.ones(2 * nu), (np.zeros(2 * nu, dtype=int), idx)), shape=(1, self.dim))
                C = (s.T @ s).tocsr()
                Pxx = Pxx + C[:n, :n]
                Pxz = Pxz + C[:n, n:]
                Pzz = Pzz + C[n:, n:]
            elif nu:
                Pxx = Pxx + sp.csr_matrix((np.ones(nu), (self.u_idx, self.u_idx)), shape=(n, n))
                Pxz = Pxz + self._E
            P = sp.bmat([[Pxx, Pxz], [Pxz.T, Pzz]], format="csr") if nu else sp.csr_matrix(Pxx)
            L = sp.tril(_pattern(P) + sp.identity(self.dim), format="coo")
            order = np.lexsort((L.col, L.row))
            rows = L.row[order].astype(np.int64)
            cols = L.col[order].astype(np.int64)
            self._struct = (rows, cols, rows * self.dim + cols)
        rows, cols, _ = self._struct
        return rows.copy(), cols.copy()

    def hessian_values(self, y: np.ndarray) -> np.ndarray:
        """Hessian values on :meth:`hessian_structure` (lower triangle).

        Entries outside the structure (an ``mcp.hess``/J whose pattern the probes missed) are
        dropped and counted in ``dropped_hessian_entries``.
        """
        self.hessian_structure()
        assert self._struct is not None
        _, _, keys = self._struct
        rows, cols, vals = self._hessian_triplets(y)
        low = rows >= cols
        k = rows[low] * self.dim + cols[low]
        data = vals[low]
        pos = np.searchsorted(keys, k)
        pos_c = np.minimum(pos, keys.size - 1)
        ok = keys[pos_c] == k
        missed = ~ok & (data != 0.0)
        if np.any(missed):
            self.dropped_hessian_entries += int(np.count_nonzero(missed))
        return np.bincount(pos_c[ok], weights=data[ok], minlength=keys.size)


@dataclass
class PointAssessment:
    """A final NLP point judged against the MCP.

    ``objective``: phi(y); ``natural_residual``: inf-norm of the MCP natural residual at x;
    ``projected_gradient``: inf-norm of the projected gradient of phi; ``converged``: both
    phi <= objective_tol and natural_residual <= tol; ``stationary_nonglobal``: phi above
    objective_tol while the projected gradient is small (<= stationarity_tol).
    """

    x: np.ndarray
    objective: float
    natural_residual: float
    projected_gradient: float
    converged: bool
    stationary_nonglobal: bool


def assess(
    form: MNCPOpt,
    y: np.ndarray,
    tol: float,
    objective_tol: float,
    stationarity_tol: float = 1e-5,
) -> PointAssessment:
    """Judge an NLP point: objective, MCP natural residual, projected gradient."""
    x = form.split(y)
    obj = form.objective(y)
    nat = float(np.max(np.abs(natural_residual(form.mcp, x)), initial=0.0))
    pg = form.projected_gradient(y)
    finite = bool(np.isfinite(obj) and np.isfinite(nat))
    return PointAssessment(
        x=x,
        objective=obj,
        natural_residual=nat,
        projected_gradient=pg,
        converged=finite and obj <= objective_tol and nat <= tol,
        stationary_nonglobal=finite and obj > objective_tol and pg <= stationarity_tol,
    )


def nonglobal_message(a: PointAssessment, objective_tol: float) -> str:
    """The FAILED message for a stationary point of MNCPOpt with positive objective."""
    return (
        f"non-global stationary point of MNCPOpt: objective {a.objective:.3e} > "
        f"{objective_tol:.1e} with projected gradient {a.projected_gradient:.1e}; "
        "Theorem 1's condition fails here (the Schur complement of g_v in J is not a "
        "row-sufficient S-matrix at this point) or the MCP has no solution"
    )


def natural_residual_inf(mcp: MCP, x: np.ndarray) -> float:
    """The inf-norm of the natural residual of ``mcp`` at x (n,); inf where it is not finite."""
    r = natural_residual(mcp, x)
    return float(np.max(np.abs(r), initial=0.0)) if np.all(np.isfinite(r)) else np.inf


@dataclass
class PolishResult:
    """Outcome of :func:`polish`: the point, its natural residual and the steps kept."""

    x: np.ndarray
    natural_residual: float
    steps: int


def polish(form: MNCPOpt, x: np.ndarray, tol: float, max_steps: int = 10) -> PolishResult:
    """Active-set Newton refinement of an MCP point x (n,) near a solution.

    Each step takes an active set at the current point (u_i set to 0), then one Newton step on
    F_I(x) = 0 over the other variables I. The active set is first that of the natural map
    (u_i <= F_i(x)); when that run does not reach ``tol * 1e-3``, a second run from x also counts
    u_i <= rho as active, rho = sqrt of the current inf-norm natural residual (the identification
    function of Facchinei, Fischer and Kanzow (1998)): at a degenerate solution an interior-point
    run leaves u_i and F_i both of order sqrt(barrier), and which of them is the larger is then
    chance. The point with the lowest natural residual of both runs is returned.

    The steps go on from each new point whether or not it lowers the inf-norm natural
    residual (a wrong active set, taken where u_i and F_i are both small, shows itself at the
    next point by a negative u_i or F_i, and the next step corrects it: semismooth Newton on
    the natural map); a run stops at ``tol * 1e-3``, at a point that is not finite, or after
    ``max_steps``.
    """
    first = _polish_run(form, x, tol, max_steps, identify=False)
    if first.natural_residual <= tol * 1e-3:
        return first
    second = _polish_run(form, x, tol, max_steps, identify=True)
    return second if second.natural_residual < first.natural_residual else first


def _polish_run(form: MNCPOpt, x: np.ndarray, tol: float, max_steps: int, identify: bool) -> PolishResult:
    """One run of :func:`polish`; ``identify``: u_i <= sqrt(residual) counts as active too."""
    mcp = form.mcp
    x = np.asarray(x, dtype=float).copy()
    best_x, best = x, natural_residual_inf(mcp, x)
    current = best
    steps = kept = 0
    u = form.u_idx
    for _ in range(max_steps):
        if not np.isfinite(current) or best <= tol * 1e-3:
            break
        F = np.asarray(mcp.F(x), dtype=float).ravel()
        active = np.zeros(form.n, dtype=bool)
        active[u] = x[u] <= F[u]
        if identify:
            active[u] |= x[u] <= np.sqrt(current)
        xa = x.copy()
        xa[active] = 0.0
        idx = np.flatnonzero(~active)
        if not idx.size:
            cand = natural_residual_inf(mcp, xa)
        else:
            Fa = np.asarray(mcp.F(xa), dtype=float).ravel()
            Jii = sp.csc_matrix(sp.csr_matrix(mcp.J(xa))[idx][:, idx])
            if not (np.all(np.isfinite(Jii.data)) and np.all(np.isfinite(Fa[idx]))):
                break
            start, cand = xa[idx].copy(), np.inf
            # the LU step, then the least-squares (minimum-norm) one: at degenerate solutions Jii
            # is singular, and rounding can make LU return a huge step instead of failing
            for method in ("solve", "lstsq"):
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    dx = _newton_step(Jii, -Fa[idx], method)
                if dx is None:
                    continue
                xa[idx] = start + dx
                cand = natural_residual_inf(mcp, xa)
                if cand < current:
                    break
        if not np.isfinite(cand) or np.array_equal(xa, x):
            break
        x, current, steps = xa, cand, steps + 1
        if cand < best:
            best_x, best, kept = xa, cand, steps
    return PolishResult(x=best_x, natural_residual=best, steps=kept)


def _newton_step(J: sp.csc_matrix, rhs: np.ndarray, method: str) -> np.ndarray | None:
    """A solution dx of ``J dx = rhs``: by LU (``method`` "solve"; dense LAPACK up to 2000
    unknowns, SuperLU's spsolve crashed on some singular systems here) or the minimum-norm
    least-squares one ("lstsq"); None when it fails or is not finite."""
    from scipy.sparse.linalg import lsqr, spsolve

    try:
        if method == "solve":
            dx = np.linalg.solve(J.toarray(), rhs) if J.shape[0] <= 2000 else np.atleast_1d(spsolve(J, rhs))
        elif J.shape[0] <= 2000:
            dx = np.linalg.lstsq(J.toarray(), rhs, rcond=None)[0]
        else:
            dx = lsqr(J, rhs, atol=1e-15, btol=1e-15)[0]
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        return None
    return dx if np.all(np.isfinite(dx)) else None


#: a converged point whose natural residual is above this fraction of tol is polished as well
POLISH_CONVERGED_BELOW = 1e-2


def assess_and_polish(form: MNCPOpt, y: np.ndarray, opts) -> tuple[np.ndarray, PointAssessment, dict]:
    """Assess an NLP solver's final point y, polish it when ``opts.polish`` allows, and return
    (y, assessment, the extras both NLP solvers report). ``opts`` carries tol, objective_tol,
    polish and polish_objective."""
    a = assess(form, y, opts.tol, opts.objective_tol)
    nlp_residual, nlp_objective = a.natural_residual, a.objective
    steps = 0
    # a converged point is polished too when its residual is near tol: the caller's own test
    # (cm.solve's, relative to a scale a power of two away) may not pass it
    near = not a.converged or a.natural_residual > opts.tol * POLISH_CONVERGED_BELOW
    if opts.polish and near and a.objective <= opts.polish_objective:
        p = polish(form, a.x, opts.tol)
        if p.steps:
            y_p = with_slacks(form, p.x)
            a_p = assess(form, y_p, opts.tol, opts.objective_tol)
            if a_p.converged or not a.converged:
                y, a, steps = y_p, a_p, p.steps
    extras = {
        "objective": a.objective,
        "natural_residual": a.natural_residual,
        "natural_residual_nlp": nlp_residual,
        "objective_nlp": nlp_objective,
        "projected_gradient": a.projected_gradient,
        "polish_steps": steps,
        "z": form.slack(y),
    }
    return y, a, extras


def with_slacks(form: MNCPOpt, x: np.ndarray) -> np.ndarray:
    """The NLP point y = (x, max(F_U(x), 0)) (dim,) of an MCP point x (n,)."""
    x = np.asarray(x, dtype=float).ravel()
    z = np.maximum(np.asarray(form.mcp.F(x), dtype=float).ravel()[form.u_idx], 0.0)
    return np.concatenate([x, z])
