"""Exhaustive enumeration of the complementary bases of a small LCP.

The LCP is: find z >= 0 with w = M z + q >= 0 and z^T w = 0. Any x >= 0 with B x = q, where the
complementary matrix B takes for each i either the column e_i (w_i basic) or -M[:, i] (z_i basic),
is a solution (one of each pair w_i, z_i is zero), and every solution is of this form. So the LCP
is solvable iff q lies in one of the 2^n complementary cones pos(B). For nonsingular B that is
B^-1 q >= 0 (batched numpy solves); a singular or badly conditioned B is checked with an LP
feasibility problem {B x = q, x >= 0} (scipy linprog, HiGHS). When no cone contains q this is a
certificate that the LCP has no solution (up to the tolerances), unless singular bases were left
unchecked because of ``max_lp``.

Nonsingular bases give isolated points; when the solution set is not finite (lcp_CPS_1:
z_1 + z_2 = 1) the result is the points that the bases give (its vertices), not the whole set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult

_CHUNK = 4096
_COND_MAX = 1e10
_LP_TOL = 1e-7


@dataclass
class EnumerateOptions(Options):
    """Options of :func:`solve`."""

    max_n: int = 20
    """Largest n accepted (2^n bases are solved); bigger problems raise SolverError."""
    tol: float = 1e-9
    """Acceptance tolerance, relative to max(1, max|M|, max|q|): z, w >= -tol, |min(z,w)| <= tol."""
    max_lp: int = 10_000
    """Most singular complementary bases checked by LP; past it, "no solution" is no certificate."""

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first bad field."""
        for name in ("max_n", "max_lp"):
            if getattr(self, name) < 0:
                raise OptionError(f"EnumerateOptions.{name} must be >= 0, got {getattr(self, name)!r}")
        if not self.tol >= 0.0:
            raise OptionError(f"EnumerateOptions.tol must be >= 0, got {self.tol!r}")


def _accept(M: np.ndarray, q: np.ndarray, Z: np.ndarray, tol: float) -> np.ndarray:
    """Rows of Z (k, n) that solve the LCP within ``tol``."""
    W = Z @ M.T + q
    scale = 1.0 + np.abs(Z).max(axis=1)
    ok = np.all(np.isfinite(Z), axis=1)
    ok &= Z.min(axis=1) >= -tol * scale
    ok &= W.min(axis=1) >= -tol * scale
    ok &= np.abs(np.minimum(Z, W)).max(axis=1) <= tol * scale
    return ok


def _dedupe(sols: list[np.ndarray], tol: float) -> list[np.ndarray]:
    """First occurrences of the points in ``sols`` after rounding to tol * (1 + max|z|)."""
    if not sols:
        return []
    Z = np.array(sols)
    step = tol * (1.0 + float(np.abs(Z).max()))
    _, first = np.unique(np.round(Z / step), axis=0, return_index=True)
    return [sols[i] for i in np.sort(first)]


def _enumerate(
    M: np.ndarray, q: np.ndarray, tol: float, max_lp: int | None
) -> tuple[list[np.ndarray], int, int]:
    """(distinct solutions, LPs solved, singular bases left unchecked because of ``max_lp``)."""
    n = q.shape[0]
    scale = max(1.0, float(np.abs(M).max(initial=0.0)), float(np.abs(q).max()))
    atol = tol * scale
    eye = np.eye(n)
    bits = 1 << np.arange(n)
    found: list[np.ndarray] = []
    suspects: list[np.ndarray] = []
    for start in range(0, 1 << n, _CHUNK):
        ks = np.arange(start, min(start + _CHUNK, 1 << n))
        S = (ks[:, None] & bits[None, :]) != 0
        B = np.where(S[:, None, :], -M[None, :, :], eye[None, :, :])
        with np.errstate(all="ignore"):
            try:
                X = np.linalg.solve(B, np.broadcast_to(q, (ks.size, n))[..., None])[..., 0]
            except np.linalg.LinAlgError:
                X = np.stack([_solve_or_nan(Bk, q) for Bk in B])
            Z = np.where(S, X, 0.0)
            ok = _accept(M, q, Z, atol)
            bnorm = np.abs(B).sum(axis=2).max(axis=1)
            xnorm = np.abs(X).max(axis=1)
            bad = ~np.isfinite(xnorm) | (xnorm * bnorm > _COND_MAX * max(np.abs(q).max(), atol))
        # a nearly singular basis gives a point whose tiny residual proves nothing: the LP decides
        found.extend(np.maximum(Z[ok & ~bad], 0.0))
        suspects.extend(S[bad])
    n_lp = len(suspects) if max_lp is None else min(len(suspects), max_lp)
    lp_tol = max(atol, _LP_TOL * scale)
    for mask in suspects[:n_lp]:
        B = np.where(mask[None, :], -M, eye)
        res = linprog(np.zeros(n), A_eq=B, b_eq=q, bounds=(0, None), method="highs")
        if res.status == 0:
            z = np.where(mask, res.x, 0.0)
            if _accept(M, q, z[None, :], lp_tol)[0]:
                found.append(np.maximum(z, 0.0))
    return _dedupe(found, max(tol, 1e-9)), n_lp, len(suspects) - n_lp


def _solve_or_nan(B: np.ndarray, q: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.solve(B, q)
    except np.linalg.LinAlgError:
        return np.full(q.shape, np.nan)


def all_solutions(
    M: np.ndarray, q: np.ndarray, tol: float = 1e-9, max_lp: int | None = None
) -> list[np.ndarray]:
    """Every distinct basic solution z (each of shape (n,)) of the LCP (q, M), in basis order.

    Basis k (0 <= k < 2^n) has z_i basic when bit i of k is set. A complementary matrix that is
    singular (or too ill-conditioned to trust its solve) is checked with an LP feasibility
    problem {B x = q, x >= 0} (at most ``max_lp`` of them; None = all). Tolerances are relative
    to max(1, max|M|, max|q|); returned z are clipped at 0.
    """
    M = np.asarray(M, dtype=float)
    q = np.asarray(q, dtype=float).ravel()
    if q.shape[0] == 0:
        return [np.zeros(0)]
    return _enumerate(M, q, tol, max_lp)[0]


def solve(mcp: MCP, options: EnumerateOptions | None = None) -> SolverResult:
    """Enumerate all complementary bases of the LCP in ``mcp``; ``x`` is the first solution z.

    ``extras``: ``solutions`` (every distinct basic solution; empty with outcome INFEASIBLE is a
    certificate), ``bases`` (2^n), ``lp_checks`` (singular bases checked by LP), ``unchecked``.
    """
    opts = options if options is not None else EnumerateOptions()
    opts.validate()
    if not mcp.is_lcp:
        raise SolverError(
            "enumerate solves only LCPs (affine F with lb = 0, ub = +inf): "
            "use the 'newton' or 'path' solver for this MCP"
        )
    n = mcp.n
    if n > opts.max_n:
        raise SolverError(
            f"enumerate would solve 2^{n} linear systems; n = {n} exceeds "
            f"EnumerateOptions.max_n = {opts.max_n}: raise max_n or use 'lemke'"
        )
    M = mcp.M.toarray() if hasattr(mcp.M, "toarray") else np.asarray(mcp.M, dtype=float)
    q = np.asarray(mcp.q, dtype=float).ravel()
    if n == 0:
        sols, n_lp, unchecked = [np.zeros(0)], 0, 0
    else:
        sols, n_lp, unchecked = _enumerate(M, q, opts.tol, opts.max_lp)
    extras = {"solutions": sols, "bases": 1 << n, "lp_checks": n_lp, "unchecked": unchecked}
    if sols:
        msg = f"{len(sols)} distinct basic solution(s)"
        return SolverResult(sols[0], Outcome.CONVERGED, 1 << n, msg, extras)
    if unchecked:
        msg = (
            f"no solution found, but {unchecked} singular complementary bases were not checked "
            f"(EnumerateOptions.max_lp = {opts.max_lp}): not a certificate"
        )
        return SolverResult(None, Outcome.FAILED, 1 << n, msg, extras)
    msg = "no complementary cone contains q: the LCP has no solution"
    return SolverResult(None, Outcome.INFEASIBLE, 1 << n, msg, extras)
