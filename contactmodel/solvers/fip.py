"""Feasible interior-point potential-reduction method for the LCP (Trinkle et al. (1997) Appendix, (38)-(39)).

The LCP is: find z >= 0 with w = M z + q >= 0 and z^T w = 0. The method keeps (w, z) strictly
positive with w = M z + q and decreases the potential

    psi(w, z) = (n + zeta) log(w^T z) - sum_i log(w_i z_i).

Step 1 solves (38), -dw + M dz = 0, Z dw + W dz = beta xi e - w o z, xi = w^T z / n, i.e.
(W + Z M) dz = beta xi e - w o z, dw = M dz. The paper prints the right-hand side of (38) as
w o z - beta xi e; with that sign the step w + lambda dw would increase psi, so the sign used here
is the one for which, as the paper says, (dw, dz) is a descent direction of psi (the directional
derivative is then <= -(1 - beta) zeta). Step 2: lambda_bar is the largest step in (0, 1] keeping
(w, z) >= 0, lambda' = eta lambda_bar, and lambda = rho^m lambda' with the least m >= 0 satisfying
the Armijo test (39): psi(new) - psi(old) <= -sigma (1 - beta) zeta rho^m lambda'. Step 3 updates
(w, z), stops when w^T z <= epsilon (the paper's test, with 1e-6) and, added here, the natural residual
||min(z, M z + q)||_inf <= tol, and otherwise sets beta_{k+1} = beta_factor * beta_k (the paper
allows any beta_{k+1} in [0, beta_k]).

Strictly feasible start (the method's assumption (b)), tried in this order:
1. ``FIPOptions.z0``, if given and strictly feasible;
2. z = s e for s = 10^-3 ... 10^3 times max(1, max|q|) (7 matrix-vector products; strictly
   feasible e.g. when q > 0 or M e > 0): among the strictly feasible ones, the most centred,
   i.e. the largest min_i(w_i z_i) / mean_i(w_i z_i);
3. the phase-one LP

       max t  s.t.  M z + q >= t e,  z >= t e,  t <= 1      (z free)

   solved with scipy.optimize.linprog (HiGHS, sparse constraint matrix). Its optimum t* > 0 gives
   z0 = z with z0 >= t* e and w0 = M z0 + q >= t* e. When t* <= 0 the LCP has no strictly
   feasible point, FIP cannot start, and the outcome is FAILED with the LP's t* and message in
   ``extras``; this says nothing about whether the LCP has a solution.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult


@dataclass
class FIPOptions(Options):
    """Options of :func:`solve` (names as in the paper's appendix).

    The paper fixes only epsilon = 1e-6 and max_iter = 300; sigma, rho, eta, zeta, beta0 and the
    beta update are its free parameters, and the defaults below are this module's choices.
    epsilon and tol are absolute in the LCP the solver is given, which :func:`contactmodel.solve`
    normalizes to max|q| ~ 1 (:mod:`contactmodel.mcp.scale`), so they act as relative ones; 1e-10,
    as newton's tol, lies below the dispatcher's 1e-8 (the paper's 1e-6 left 20 of 142 random
    scenes of ``benchmarks/fuzz_run.py --n 500 --seed 1`` solved-inaccurate, 1e-10 none; 89 solved
    against 69).
    """

    epsilon: float = 1e-10
    """Stop when the complementarity gap w^T z <= epsilon ..."""
    tol: float = 1e-10
    """... and the natural residual ||min(z, M z + q)||_inf <= tol."""
    sigma: float = 1e-4
    """Armijo fraction sigma in (0, 1) of the predicted decrease of psi in (39)."""
    rho: float = 0.5
    """Backtracking factor rho in (0, 1) of the line search (39)."""
    eta: float = 0.99
    """Fraction eta in (0, 1) of the step to the boundary: lambda' = eta * lambda_bar."""
    zeta: float | None = None
    """Potential weight zeta > 0 in psi; None means sqrt(n)."""
    beta0: float = 0.5
    """Initial centering parameter beta_0 in [0, 1)."""
    beta_factor: float = 1.0
    """beta_{k+1} = beta_factor * beta_k, beta_factor in [0, 1] (1 keeps beta fixed)."""
    max_iter: int = 300
    """Iteration limit (the paper's 300)."""
    max_backtracks: int = 60
    """Line-search trials before the step is declared failed."""
    #: fields holding a point in the LCP's variables (divided by the scale :func:`contactmodel.solve`
    #: normalizes the LCP by, as its start x0)
    point_fields = ("z0",)
    z0: np.ndarray | None = None
    """Starting z (n,) with z > 0 and M z + q > 0; None (or not strictly feasible) means phase one."""
    crossover: bool = True
    """At the end, solve ``M_BB z_B = -q_B`` on the set B = {z_i > w_i} of the last point (z = 0
    off B) and keep that vertex when its natural residual is smaller: an interior point stops
    ~epsilon away from the solution (1e-8 relative), the vertex of its pattern is exact."""
    refine: float = 1e-6
    """When the crossover at the paper's stop gives no exact vertex (natural residual above
    ``1e-12 * max(1, ||q||_inf)``; at degenerate resting contacts the last point's pattern is
    not yet the solution's), the iterations go on, trying the crossover after each, until the gap
    is below ``refine * epsilon`` or ``max_iter``; 0 turns this off."""
    perturb: float = 1e-4
    """When the LCP has no strictly feasible point (phase one's t* = 0, e.g. a friction LCP whose
    rows mu c_n - sum beta vanish with c_n), FIP runs on LCP(M, q + delta e) with delta = perturb *
    max(1, ||q||_inf), which has one, and the crossover takes the pattern of its solution back to
    LCP(M, q); the answer is kept only when that vertex solves LCP(M, q) to ``tol``. 0 turns this
    off."""

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first bad field."""
        for name in ("epsilon", "tol"):
            if not getattr(self, name) > 0:
                raise OptionError(f"FIPOptions.{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("sigma", "rho", "eta"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise OptionError(f"FIPOptions.{name} must lie in (0, 1), got {getattr(self, name)!r}")
        if self.zeta is not None and not self.zeta > 0.0:
            raise OptionError(f"FIPOptions.zeta must be > 0 (None for sqrt(n)), got {self.zeta!r}")
        if not 0.0 <= self.beta0 < 1.0:
            raise OptionError(f"FIPOptions.beta0 must lie in [0, 1), got {self.beta0!r}")
        if not 0.0 <= self.beta_factor <= 1.0:
            raise OptionError(f"FIPOptions.beta_factor must lie in [0, 1], got {self.beta_factor!r}")
        if self.max_iter < 0:
            raise OptionError(f"FIPOptions.max_iter must be >= 0, got {self.max_iter!r}")
        for name in ("refine", "perturb"):
            if not getattr(self, name) >= 0.0:
                raise OptionError(f"FIPOptions.{name} must be >= 0, got {getattr(self, name)!r}")
        if self.max_backtracks < 1:
            raise OptionError(f"FIPOptions.max_backtracks must be >= 1, got {self.max_backtracks!r}")


def _psi(w: np.ndarray, z: np.ndarray, zeta: float) -> float:
    n = w.shape[0]
    return float((n + zeta) * np.log(w @ z) - np.sum(np.log(w)) - np.sum(np.log(z)))


def scaled_ones_start(M: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """The most centred strictly feasible z = s e, s = 10^-3 .. 10^3 * max(1, max|q|), or None."""
    n = q.shape[0]
    Me = M @ np.ones(n)
    best, best_c = None, 0.0
    for s in 10.0 ** np.arange(-3, 4) * max(1.0, float(np.abs(q).max())):
        w = s * Me + q
        if w.min() > 0.0:
            c = float(w.min() / w.mean())
            if c > best_c:
                best, best_c = np.full(n, s), c
    return best


def phase_one(M: np.ndarray, q: np.ndarray) -> tuple[float, np.ndarray | None, str]:
    """Solve max t s.t. M z + q >= t e, z >= t e, t <= 1; return (t*, z, LP message)."""
    n = q.shape[0]
    c = np.zeros(n + 1)
    c[-1] = -1.0
    e = sp.csr_matrix(np.ones((n, 1)))
    A_ub = sp.vstack(
        [sp.hstack([-sp.csr_matrix(M), e]), sp.hstack([-sp.identity(n, format="csr"), e])],
        format="csr",
    )
    b_ub = np.concatenate([q, np.zeros(n)])
    bounds = [(None, None)] * n + [(None, 1.0)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs")
    if res.status != 0:
        return -np.inf, None, f"phase-one LP status {res.status}: {res.message}"
    return float(res.x[-1]), res.x[:n], f"phase-one LP: {res.message}"


def solve(mcp: MCP, options: FIPOptions | None = None) -> SolverResult:
    """Solve the LCP ``0 <= z _|_ M z + q >= 0`` of ``mcp`` by FIP; ``x`` is the last z (n,).

    ``extras``: ``gap`` (final w^T z), ``residual`` (||min(z, M z + q)||_inf), ``start``
    (``"z0"``, ``"scaled-ones"`` or ``"phase-one"``), ``phase_one_t`` and ``phase_one`` (LP
    optimum and message, when the LP ran), ``beta`` (final), ``backtracks`` (total).
    """
    opts = options if options is not None else FIPOptions()
    if not mcp.is_lcp:
        raise SolverError(
            "fip solves only LCPs (affine F with lb = 0, ub = +inf): "
            "use the 'newton' or 'path' solver for this MCP"
        )
    opts.validate()
    M = mcp.M.toarray() if hasattr(mcp.M, "toarray") else np.asarray(mcp.M, dtype=float)
    q = np.asarray(mcp.q, dtype=float).ravel()
    n = q.shape[0]
    zeta = opts.zeta if opts.zeta is not None else max(1.0, np.sqrt(n))
    if zeta <= 0.0:
        raise SolverError("FIPOptions.zeta must be positive")
    extras: dict = {"backtracks": 0}
    if n == 0:
        return SolverResult(np.zeros(0), Outcome.CONVERGED, 0, "empty LCP", extras)

    exact = 1e-12 * max(1.0, float(np.abs(q).max()))
    z = None if opts.z0 is None else np.asarray(opts.z0, dtype=float).ravel()
    if z is not None and z.shape == (n,) and z.min() > 0.0 and (M @ z + q).min() > 0.0:
        extras["start"] = "z0"
    elif (z := scaled_ones_start(M, q)) is not None:
        extras["start"] = "scaled-ones"
    else:
        t, z, msg = phase_one(M, q)
        extras.update(start="phase-one", phase_one_t=t, phase_one=msg)
        if z is None or t <= 0.0:
            failed = f"no strictly feasible point: FIP's assumption (b) fails (max t = {t + 0.0:.3g}; {msg})"
            if z is None or t < 0.0 or not opts.perturb > 0.0:  # t < 0: not even feasible
                return SolverResult(None, Outcome.FAILED, 0, failed, extras)
            return _perturbed(M, q, opts, zeta, extras, exact, failed)
    return _finish(M, q, *_iterate(M, q, z, opts, zeta, extras, exact), opts, extras)


def _perturbed(M, q, opts: FIPOptions, zeta: float, extras: dict, exact: float, failed: str) -> SolverResult:
    """FIP on LCP(M, q + delta e) (strictly feasible when LCP(M, q) is feasible), its pattern's vertex
    taken back to LCP(M, q); FAILED with ``failed`` unless that vertex solves LCP(M, q) to tol."""
    best, k_all = np.inf, 0
    for factor in (1.0, 1e-2, 1e-4):  # a smaller perturbation when the first one's pattern is wrong
        delta = factor * opts.perturb * max(1.0, float(np.abs(q).max()))
        qd = q + delta
        extras["perturbation"] = delta
        z = scaled_ones_start(M, qd)
        if z is None:
            _, z, _ = phase_one(M, qd)
            # the LP's t* is as small as delta, and its z >= t* e holds only to HiGHS's tolerance
            if z is None or z.min() <= 0.0 or (M @ z + qd).min() <= 0.0:
                continue
        z, w, k, _, _, _ = _iterate(M, qd, z, opts, zeta, extras, 0.0)
        k_all += k
        vertex = crossover(M, q, z, w)
        r = np.inf if vertex is None else float(np.abs(np.minimum(vertex, M @ vertex + q)).max())
        if r <= opts.tol:
            extras.update(crossover=True, gap=float(vertex @ (M @ vertex + q)), residual=r)
            message = f"{failed}: solved LCP(M, q + {delta:.1e} e), whose pattern's vertex solves LCP(M, q)"
            return SolverResult(vertex, Outcome.CONVERGED, k_all, message, extras)
        best = min(best, r)
    message = f"{failed}; the perturbed LCPs gave no vertex of LCP(M, q) (best residual {best:.1e})"
    return SolverResult(None, Outcome.FAILED, k_all, message, extras)


def _iterate(M, q, z, opts: FIPOptions, zeta: float, extras: dict, exact: float):
    """FIP's iterations (38)-(39) from the strictly feasible z; returns (z, w, iterations, outcome,
    message, the first exact crossover vertex met while refining or None)."""
    n = q.shape[0]
    w = M @ z + q
    beta = opts.beta0
    psi = _psi(w, z, zeta)
    k = 0
    refining = False
    outcome, message = Outcome.ITERATION_LIMIT, f"iteration limit {opts.max_iter} reached"
    while True:
        gap = float(w @ z)
        residual = float(np.abs(np.minimum(z, M @ z + q)).max())
        if refining or (gap <= opts.epsilon and residual <= opts.tol):
            if not refining:
                outcome, message = Outcome.CONVERGED, f"gap {gap:.3g} <= epsilon, residual <= tol"
            if not (opts.crossover and exact > 0.0 and opts.refine > 0.0):
                break
            vertex = crossover(M, q, z, w)
            if vertex is not None and float(np.abs(np.minimum(vertex, M @ vertex + q)).max()) <= exact:
                return z, w, k, outcome, message, vertex
            if gap <= opts.refine * opts.epsilon:
                break
            refining = True
        if k >= opts.max_iter:
            break
        xi = gap / n
        rhs = beta * xi - w * z
        try:
            dz = np.linalg.solve(np.diag(w) + z[:, None] * M, rhs)
        except np.linalg.LinAlgError:
            if refining:
                break
            outcome, message = Outcome.FAILED, "the matrix of (38) is singular (is M a P0-matrix?)"
            break
        dw = M @ dz
        neg = np.concatenate([dw, dz]) < 0.0
        ratios = -np.concatenate([w, z])[neg] / np.concatenate([dw, dz])[neg]
        lam = opts.eta * min(1.0, float(ratios.min(initial=np.inf)))
        bound = -opts.sigma * (1.0 - beta) * zeta
        for _ in range(opts.max_backtracks):
            wn, zn = w + lam * dw, z + lam * dz
            if wn.min() > 0.0 and zn.min() > 0.0 and wn @ zn > 0.0:
                psin = _psi(wn, zn, zeta)
                if psin - psi <= bound * lam:
                    break
            lam *= opts.rho
            extras["backtracks"] += 1
        else:
            if not refining:
                outcome = Outcome.FAILED
                message = f"line search (39) failed after {opts.max_backtracks} trials"
            break
        w, z, psi = wn, zn, psin
        beta *= opts.beta_factor
        k += 1
    extras["beta"] = beta
    return z, w, k, outcome, message, None


def _finish(M, q, z, w, k, outcome, message, vertex, opts: FIPOptions, extras: dict) -> SolverResult:
    """The result: the interior point, or the crossover vertex when its residual is smaller."""
    residual = float(np.abs(np.minimum(z, M @ z + q)).max())
    if opts.crossover and outcome is not Outcome.FAILED:
        if vertex is None:
            vertex = crossover(M, q, z, w)
        if vertex is not None and (r := float(np.abs(np.minimum(vertex, M @ vertex + q)).max())) < residual:
            z, residual = vertex, r
            extras["crossover"] = True
            if r <= opts.tol:
                outcome, message = Outcome.CONVERGED, f"{message}; exact vertex of its pattern (crossover)"
    extras.update(gap=float(z @ (M @ z + q)), residual=residual)
    return SolverResult(z, outcome, k, message, extras)


def crossover(M: np.ndarray, q: np.ndarray, z: np.ndarray, w: np.ndarray) -> np.ndarray | None:
    """The point (n,) with ``M_BB z_B = -q_B`` on B = {z_i > w_i} (least squares, so a
    rank-deficient ``M_BB``, e.g. a friction law's degenerate rows, still gives a point when the
    system is consistent) and z = 0 elsewhere, negative entries clipped; None when ``M_BB z_B =
    -q_B`` has no solution. Of the system's solutions, the minimum-norm one, or when its natural
    residual is larger the least change of the interior point's z_B (at a singular M_BB, a
    statically indeterminate resting body, the minimum-norm one may leave z_B >= 0 while the
    interior point stays inside it). The caller keeps it only if its natural residual is smaller."""
    basic = np.flatnonzero(z > w)
    if not basic.size:
        return np.zeros_like(z)
    A, b = M[np.ix_(basic, basic)], -q[basic]
    best, best_r = None, np.inf
    for start in (np.zeros(basic.size), z[basic]):
        zb = start + np.linalg.lstsq(A, b - A @ start, rcond=None)[0]
        if not np.all(np.isfinite(zb)) or np.abs(A @ zb - b).max() > 1e-9 * max(1.0, np.abs(b).max()):
            continue
        out = np.zeros_like(z)
        out[basic] = np.maximum(zb, 0.0)
        r = float(np.abs(np.minimum(out, M @ out + q)).max())
        if r < best_r:
            best, best_r = out, r
        if r <= 1e-12 * max(1.0, float(np.abs(q).max())):  # exact: the minimum-norm one when it is
            break
    return best
