"""Lemke's almost-complementary pivoting method for the LCP (Cottle-Pang-Stone Algorithm 4.4.5).

The LCP is: find z >= 0 with w = M z + q >= 0 and z^T w = 0. Lemke works on the augmented system

    w = q + d z0 + M z,    written   I w - M z - d z0 = q,

with a covering vector d > 0 (ones by default). The variables are numbered w_0..w_{n-1} (ids
0..n-1), z_0..z_{n-1} (ids n..2n-1) and the artificial z0 (id 2n); a basis is a list of n ids and
its matrix B holds the matching columns of [I, -M, -d]. The explicit dense inverse B^-1 is kept
and updated by a rank-one (Gauss-Jordan) step per pivot (BLAS dger, O(n^2)); every
``check_every`` pivots the residual of B (B^-1 q) = q is checked and B^-1 recomputed if it drifted.

Degeneracy is resolved by the lexicographic minimum-ratio rule: among the rows that block the
entering variable, the leaving row minimises the row vector [B^-1 q, B^-1]_i / (B^-1 a)_i
lexicographically (equivalent to perturbing q by (eps, eps^2, ..., eps^n)). Rows count as tied on
the plain ratio up to a round-off allowance ``zero_tol`` (Harris' ratio test: every row whose ratio
is within the longest step that keeps all rows above -zero_tol); when the artificial z0 is among
the tied rows it leaves, which ends the run at a solution (without this, z0 stuck at a round-off
value such as 1e-14 lets degenerate problems, e.g. friction LCPs with q = 0 rows, end on a false
ray). Tied rows whose pivot entry is tiny against the largest tied one are passed over
(``tied_pivot_ratio``): on the rank-deficient LCPs of statically indeterminate stacks, a pivot on
an entry of 1e-8 made B^-1 grow to 1e15 and the run end at a false solution.

A run ends at a solution (z0 leaves), on a secondary ray (the entering column has no positive
entry), or at the pivot limit. A secondary ray is a certificate only when M is copositive-plus
(CPS Section 4.4, Theorem 4.4.13); this module checks the cheap sufficient condition that M + M^T
is positive semidefinite. Then the ray's z-part y satisfies y >= 0, M^T y <= 0, q^T y < 0 (a
Farkas vector for {z >= 0, M z + q >= 0}: along the ray y^T M y + z0_ray d^T y = 0 forces
z0_ray = 0 and (M + M^T) y = 0, and q^T y = -z0 d^T y < 0), which is verified numerically and
returned in ``extras['certificate']``. A verified Farkas vector is a proof on its own, whatever M is. Without
a proof, Lemke restarts from the normal start with a new random positive covering vector (Trinkle et
al. (1997) Table 1 counts such restarts), up to ``max_restarts`` times, then reports FAILED.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas

from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult


@dataclass
class LemkeOptions(Options):
    """Options of :func:`solve`; tolerances are relative to the scale of what they compare."""

    covering: np.ndarray | None = None
    """Covering vector d > 0 (length n) of the first run; None means d = ones."""
    max_pivots: int | None = None
    """Pivot limit per run (the initial z0 pivot included); None means 50 * n + 1000."""
    max_restarts: int = 10
    """Extra runs with new random covering vectors after a secondary ray that proves nothing."""
    seed: int | None = 0
    """Seed of the numpy Generator that draws restart covering vectors (uniform on [0.5, 1.5]^n)."""
    pivot_tol: float = 1e-9
    """Entries of B^-1 a at or below pivot_tol * max(1, max|B^-1 a|) do not block (no pivot)."""
    zero_tol: float = 1e-10
    """Row i ties in the ratio test when (B^-1 q)_i <= t a_i + zero_tol * max(1, max|B^-1 q|),
    t the least ratio, a = B^-1 (entering column); round-off below this is treated as zero."""
    lex_tol: float = 1e-12
    tied_pivot_ratio: float = 1e-4
    """Among the rows tied in the ratio test, those whose entry of B^-1 a is below this fraction of
    the largest tied entry are passed over, and the lexicographic rule chooses among the rest: a
    pivot on an entry of round-off size makes B^-1 blow up (degenerate, rank-deficient M)."""
    """Entries of B^-1 compared in the lexicographic rule are equal within this (relative)."""
    check_every: int = 50
    """Every this many pivots, check B (B^-1 q) = q (O(n^2)) and recompute B^-1 if it drifted."""
    refine_tol: float = 1e-10
    """Drift allowed in that check, relative to max(1, max|M|, max|q|) * (1 + max|B^-1 q|)."""
    psd_tol: float = 1e-10
    """M + M^T counts as PSD when its least eigenvalue >= -psd_tol * max(1, ||M + M^T||_2)."""
    certificate_tol: float = 1e-8
    """Tolerance, relative to ||y||_1 * max(1, max|M|, max|q|), of the Farkas check on a ray."""
    warm_start_basis: np.ndarray | Sequence[int] | None = None
    """z variables believed basic: a boolean mask of length n or an index set; w_i is basic for
    the others. Tried first: a feasible warm basis is a solution at once (0 pivots), an infeasible
    one starts Lemke with covering vector B e (as Ferris' lemke.m); a singular warm basis, or a
    warm run that ends on a ray, falls back to the normal start."""

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first bad field (the vectors' lengths are checked
        against the problem when it is solved)."""
        if self.max_pivots is not None and self.max_pivots < 1:
            raise OptionError(
                f"LemkeOptions.max_pivots must be >= 1 (None for 50 n + 1000), got {self.max_pivots!r}"
            )
        if self.max_restarts < 0:
            raise OptionError(f"LemkeOptions.max_restarts must be >= 0, got {self.max_restarts!r}")
        if self.check_every < 1:
            raise OptionError(f"LemkeOptions.check_every must be >= 1, got {self.check_every!r}")
        for name in (
            "pivot_tol",
            "zero_tol",
            "lex_tol",
            "tied_pivot_ratio",
            "refine_tol",
            "psd_tol",
            "certificate_tol",
        ):
            if not getattr(self, name) >= 0.0:
                raise OptionError(f"LemkeOptions.{name} must be >= 0, got {getattr(self, name)!r}")


_WARM_COND_MAX = 1e12

_RAY_PSD = (
    "M + M^T is positive semidefinite (M is copositive-plus) and Lemke ended on a secondary ray: "
    "the LCP is infeasible, hence has no solution (CPS Section 4.4, Theorem 4.4.13)"
)
_RAY_FARKAS = (
    "the secondary ray's z-part y is a Farkas vector, y >= 0, M^T y <= 0, q^T y < 0 (verified): "
    "{z >= 0, M z + q >= 0} is empty, so the LCP has no solution"
)
_RAY_WARM = (
    "the run from the warm-start basis ended on a secondary ray; its covering vector B e need not "
    "be positive, so the ray is not a certificate"
)
_RAY_NONE = (
    "M + M^T is not positive semidefinite, so M is not known to be copositive-plus: "
    "the secondary ray is not a certificate of infeasibility"
)


@dataclass
class _Run:
    status: str
    pivots: int
    z: np.ndarray | None = None
    ray: np.ndarray | None = None


class _Tableau:
    """Basis ids, explicit B^-1 (C order) and B^-1 q of the system [I, -M, -d] x = q."""

    def __init__(
        self,
        M: np.ndarray,
        q: np.ndarray,
        d: np.ndarray,
        basic: np.ndarray,
        refine_tol: float,
        Binv: np.ndarray | None = None,
    ) -> None:
        self.M, self.q, self.d = M, q, d
        self.n = q.shape[0]
        self.basic = basic
        self.refine_tol = refine_tol
        self.scale = max(1.0, float(np.abs(M).max(initial=0.0)), float(np.abs(q).max()))
        if Binv is not None:
            self.Binv = np.ascontiguousarray(Binv)
            self.qbar = self.Binv @ q
        elif np.array_equal(basic, np.arange(self.n)):
            self.Binv = np.eye(self.n)
            self.qbar = q.copy()
        else:
            self.refactor()

    def column(self, var: int) -> np.ndarray:
        n = self.n
        if var < n:
            col = np.zeros(n)
            col[var] = 1.0
            return col
        if var < 2 * n:
            return -self.M[:, var - n]
        return -self.d

    def matrix(self) -> np.ndarray:
        return np.column_stack([self.column(int(v)) for v in self.basic])

    def refactor(self) -> None:
        """B^-1 and B^-1 q afresh; ``LinAlgError`` when B is singular, exactly (LAPACK's zero
        pivot) or numerically (an inverse that is not finite)."""
        Binv = np.linalg.inv(self.matrix())
        qbar = Binv @ self.q
        if not (np.all(np.isfinite(Binv)) and np.all(np.isfinite(qbar))):
            raise np.linalg.LinAlgError("the basis is numerically singular: its inverse is not finite")
        self.Binv, self.qbar = np.ascontiguousarray(Binv), qbar

    def residual(self) -> np.ndarray:
        """q - B qbar, in O(n^2) without forming B."""
        n = self.n
        r = self.q.copy()
        isw = self.basic < n
        isz = (self.basic >= n) & (self.basic < 2 * n)
        r[self.basic[isw]] -= self.qbar[isw]
        r += self.M[:, self.basic[isz] - n] @ self.qbar[isz]
        r += self.d * self.qbar[self.basic == 2 * n].sum()
        return r

    def check(self) -> None:
        """Refactor when B qbar = q has drifted beyond ``refine_tol`` (relative)."""
        r = self.residual()
        if np.abs(r).max() > self.refine_tol * self.scale * (1.0 + np.abs(self.qbar).max()):
            self.refactor()

    def entering(self, var: int) -> np.ndarray:
        n = self.n
        if var < n:
            return self.Binv[:, var].copy()
        if var < 2 * n:
            return -(self.Binv @ self.M[:, var - n])
        return -(self.Binv @ self.d)

    def pivot(self, r: int, abar: np.ndarray, var: int) -> None:
        row = self.Binv[r] / abar[r]
        blas.dger(-1.0, row, abar, a=self.Binv.T, overwrite_a=True)
        self.Binv[r] = row
        qr = self.qbar[r] / abar[r]
        self.qbar -= abar * qr
        self.qbar[r] = qr
        self.basic[r] = var

    def solution_z(self) -> np.ndarray:
        """z of the current basis, after one step of iterative refinement of qbar."""
        x = self.qbar + self.Binv @ self.residual()
        z = np.zeros(self.n)
        isz = (self.basic >= self.n) & (self.basic < 2 * self.n)
        z[self.basic[isz] - self.n] = x[isz]
        return np.maximum(z, 0.0)

    def lexmin(self, rows: np.ndarray, denom: np.ndarray, tol: float) -> int:
        """The row of ``rows`` (tied on B^-1 q / denom) minimising B^-1_i / denom_i lexicographically."""
        j = 0
        while rows.size > 1 and j < self.n:
            vals = self.Binv[rows, j] / denom
            keep = vals <= vals.min() + tol * (1.0 + np.abs(vals).max())
            rows, denom = rows[keep], denom[keep]
            j += 1
        return int(rows[0])


def _complement(var: int, n: int) -> int:
    return var + n if var < n else var - n


def _lemke_run(tab: _Tableau, dbar: np.ndarray, opts: LemkeOptions, max_pivots: int) -> _Run:
    """One Lemke run from ``tab`` (complementary basis); ``dbar = -B^-1 (z0 column) > 0``."""
    n = tab.n
    zero = opts.zero_tol * max(1.0, float(np.abs(tab.qbar).max()))
    if tab.qbar.min() >= -zero:
        return _Run("solution", 0, z=tab.solution_z())
    z0 = 2 * n
    ratios = tab.qbar / dbar
    tied = np.flatnonzero(tab.qbar <= ratios.min() * dbar + zero)
    r = tab.lexmin(tied, dbar[tied], opts.lex_tol)
    leaving = int(tab.basic[r])
    tab.pivot(r, -dbar, z0)
    pivots = 1
    entering = _complement(leaving, n)
    while True:
        if pivots >= max_pivots:
            return _Run("limit", pivots)
        if pivots % opts.check_every == 0:
            try:
                tab.check()
            except np.linalg.LinAlgError:  # the refactored basis is singular: this run is lost
                return _Run("singular", pivots)
        abar = tab.entering(entering)
        block = np.flatnonzero(abar > opts.pivot_tol * max(1.0, np.abs(abar).max()))
        if block.size == 0:
            ray = np.zeros(2 * n + 1)
            ray[entering] = 1.0
            ray[tab.basic] -= abar
            return _Run("ray", pivots, ray=ray)
        zero = opts.zero_tol * max(1.0, float(np.abs(tab.qbar).max()))
        qb = np.maximum(tab.qbar[block], 0.0)
        # Harris' two passes: the longest step that leaves no row below -zero, then every row
        # whose ratio is within it counts as tied
        longest = ((qb + zero) / abar[block]).min()
        tied = block[qb <= longest * abar[block]]
        z0_row = np.flatnonzero(tab.basic[tied] == z0)
        if z0_row.size:
            r = int(tied[z0_row[0]])
        else:
            tied = tied[abar[tied] >= opts.tied_pivot_ratio * abar[tied].max()]
            r = tab.lexmin(tied, abar[tied], opts.lex_tol)
        leaving = int(tab.basic[r])
        tab.pivot(r, abar, entering)
        pivots += 1
        if leaving == z0:
            return _Run("solution", pivots, z=tab.solution_z())
        entering = _complement(leaving, n)


def _warm_tableau(M: np.ndarray, q: np.ndarray, ws, n: int, opts: LemkeOptions) -> _Tableau | None:
    mask = np.zeros(n, dtype=bool)
    ws = np.asarray(ws)
    if ws.dtype == bool:
        if ws.shape != (n,):
            raise SolverError(f"LemkeOptions.warm_start_basis: boolean mask must have length {n}")
        mask = ws.copy()
    else:
        idx = ws.astype(int).ravel()
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise SolverError(f"LemkeOptions.warm_start_basis: indices must lie in 0..{n - 1}")
        mask[idx] = True
    basic = np.where(mask, np.arange(n) + n, np.arange(n))
    B = np.where(mask[None, :], -M, np.eye(n))
    try:
        Binv = np.linalg.inv(B)
    except np.linalg.LinAlgError:
        return None
    cond1 = np.abs(B).sum(axis=0).max() * np.abs(Binv).sum(axis=0).max()
    if not np.isfinite(cond1) or cond1 > _WARM_COND_MAX:
        return None
    return _Tableau(M, q, B @ np.ones(n), basic, opts.refine_tol, Binv)


def _is_psd_sum(M: np.ndarray, tol: float) -> bool:
    """Whether M + M^T is positive semidefinite; False (nothing proven) when LAPACK's
    eigenvalue iteration does not converge or M is not finite."""
    S = M + M.T
    try:
        eig = np.linalg.eigvalsh(S)
    except (np.linalg.LinAlgError, ValueError):
        return False
    return bool(np.all(np.isfinite(eig)) and eig[0] >= -tol * max(1.0, float(np.abs(eig).max())))


def _farkas(M: np.ndarray, q: np.ndarray, y: np.ndarray, tol: float) -> bool:
    scale = float(np.abs(y).sum()) * max(1.0, float(np.abs(M).max()), float(np.abs(q).max()))
    if scale == 0.0:
        return False
    t = tol * scale
    return bool(y.min() >= -t and (M.T @ y).max() <= t and q @ y < -t)


def solve(mcp: MCP, options: LemkeOptions | None = None) -> SolverResult:
    """Solve the LCP ``0 <= z _|_ M z + q >= 0`` of ``mcp`` by Lemke's method; ``x`` is z (n,).

    ``extras``: ``pivots`` (all runs), ``restarts`` (runs after the first), ``starts`` (runs),
    ``rays`` (runs that ended on a secondary ray), ``singular`` (runs stopped by a basis found
    singular when refactored), ``warm_start`` (``"used"``, ``"singular"`` or
    absent), ``ray`` (when the result is a ray: what it proves, or that it proves nothing) and
    ``certificate`` (a verified Farkas vector y >= 0, M^T y <= 0, q^T y < 0, sum(y) = 1).
    """
    opts = options if options is not None else LemkeOptions()
    opts.validate()
    if not mcp.is_lcp:
        raise SolverError(
            "lemke solves only LCPs (affine F with lb = 0, ub = +inf); this MCP has "
            + ("non-affine F" if not mcp.is_linear else "other bounds")
            + ": use the 'newton' or 'path' solver"
        )
    M = mcp.M.toarray() if hasattr(mcp.M, "toarray") else np.asarray(mcp.M, dtype=float)
    q = np.asarray(mcp.q, dtype=float).ravel()
    n = q.shape[0]
    max_pivots = opts.max_pivots if opts.max_pivots is not None else 50 * n + 1000
    if opts.covering is not None:
        d = np.asarray(opts.covering, dtype=float).ravel()
        if d.shape != (n,) or not np.all(d > 0.0):
            raise SolverError(f"LemkeOptions.covering must be a positive vector of length {n}")
    else:
        d = np.ones(n)
    extras: dict = {"pivots": 0, "restarts": 0, "starts": 0, "rays": 0}
    if n == 0:
        return SolverResult(np.zeros(0), Outcome.CONVERGED, 0, "empty LCP", extras)

    rng = None  # made at the first restart (~30 us, more than a small LCP's pivots)
    psd: bool | None = None
    run: _Run | None = None
    warm: _Tableau | None = None
    if opts.warm_start_basis is not None:
        warm = _warm_tableau(M, q, opts.warm_start_basis, n, opts)
        extras["warm_start"] = "singular" if warm is None else "used"
    nruns = opts.max_restarts + 1 + (warm is not None)
    for start in range(nruns):
        warm_run = warm is not None and start == 0
        if warm_run:
            tab, dbar = warm, np.ones(n)
        else:
            if start > (warm is not None):
                rng = np.random.default_rng(opts.seed) if rng is None else rng
                d = rng.uniform(0.5, 1.5, n)
            tab, dbar = _Tableau(M, q, d, np.arange(n), opts.refine_tol), d.copy()
        run = _lemke_run(tab, dbar, opts, max_pivots)
        extras["pivots"] += run.pivots
        extras["starts"] = start + 1
        extras["restarts"] = start
        if run.status == "singular":
            extras["singular"] = extras.get("singular", 0) + 1
            continue
        if run.status != "ray":
            extras.pop("ray", None)
            break
        extras["rays"] += 1
        y = run.ray[n : 2 * n]
        if psd is None:
            psd = _is_psd_sum(M, opts.psd_tol)
        farkas = _farkas(M, q, y, opts.certificate_tol)
        if farkas:
            extras["certificate"] = y / np.abs(y).sum()
        if farkas or (psd and not warm_run):
            extras["ray"] = _RAY_PSD if psd and not warm_run else _RAY_FARKAS
            if psd and not warm_run:
                extras["ray"] += "; Farkas vector " + ("verified" if farkas else "not verified")
            return SolverResult(None, Outcome.INFEASIBLE, extras["pivots"], extras["ray"], extras)
        extras["ray"] = _RAY_NONE if not psd else _RAY_WARM

    assert run is not None
    if run.status == "solution":
        return SolverResult(run.z, Outcome.CONVERGED, extras["pivots"], "z0 left the basis: solution", extras)
    if run.status == "limit":
        return SolverResult(
            None,
            Outcome.ITERATION_LIMIT,
            extras["pivots"],
            f"pivot limit {max_pivots} reached in run {extras['starts']}",
            extras,
        )
    if run.status == "singular":
        detail = f"the basis became singular at a refactorization in run {extras['starts']}"
    else:
        detail = f"secondary ray in run {extras['starts']}; {extras['ray']}"
    if extras["starts"] > 1:
        detail += f" ({extras['rays']} runs ended on a ray, {extras.get('singular', 0)} on a singular basis)"
    return SolverResult(None, Outcome.FAILED, extras["pivots"], detail, extras)
