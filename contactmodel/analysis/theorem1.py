"""Andreani et al. (2002) Theorem 1 evaluated at a point of MNCPOpt (``cm.analysis.theorem1``).

The MNCP: u >= 0 _|_ f(u, v) >= 0, g(u, v) = 0 with v free. MNCPOpt minimizes
phi = 1/2 (||f - z||^2 + ||g||^2 + (u^T z)^2) over u, z >= 0. Theorem 1: a stationary point
(u*, v*, z*) solves the MNCP when the Schur complement S = f_u - f_v g_v^-1 g_u of g_v in the
Jacobian J = [[f_u, f_v], [g_u, g_v]] exists (g_v nonsingular) and is a row-sufficient S-matrix.

:func:`theorem1` computes each hypothesis numerically: stationarity (projected gradient of
phi), the smallest singular value and condition of g_v, and, when S exists, whether it is row
sufficient and an S-matrix (:mod:`contactmodel.analysis.matrices`, exact up to order 6). It also
follows the proof: with w = f - z and theta = u^T z, stationarity gives (28)
w_i [S^T w]_i = -(theta^2 z_i u_i + mu_i gamma_i) <= 0 for every i, so at a stationary point
with phi > 0 and S defined, w itself witnesses the failure: some w_i [S^T w]_i < 0 (S is not
row sufficient), or else w <= 0, S^T w >= 0, w != 0 (S is not an S-matrix, by Ville's theorem).

References:

- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contactmodel.analysis import matrices as mx
from contactmodel.mcp.types import MCP
from contactmodel.solvers.reformulation import MNCPOpt, with_slacks

#: g_v counts as singular above this condition number (no Schur complement). An interior-point
#: run ends with bounded variables 1e-7 to 1e-15 above bounds where its limit point has them at 0;
#: g_v's entries lambda and mu c_n (Coulomb cone MNCP) are then that small, and the Schur complement
#: of the computed g_v is an artefact of how far from the bound Ipopt stopped.
COND_MAX = 1e6


@dataclass
class Theorem1:
    """Theorem 1's hypotheses at one MNCPOpt point (see the module docstring).

    ``objective`` phi; ``projected_gradient`` inf-norm of y - P(y - grad phi); ``stationary``
    projected gradient <= the tolerance given; ``g_v_min_singular`` smallest singular value of
    g_v (inf when there is no v); ``g_v_condition``; ``schur`` S (n_u x n_u) or None when g_v is
    singular; ``row_sufficient`` / ``s_matrix`` the verdicts on S (None without S); ``w`` = f - z
    (n_u,); ``products`` w_i [S^T w]_i (n_u,) or None; ``failed`` the hypotheses that fail, in
    words; ``holds`` every hypothesis holds (then a stationary point solves the MNCP).
    """

    objective: float
    projected_gradient: float
    stationary: bool
    g_v_min_singular: float
    g_v_condition: float
    schur: np.ndarray | None
    row_sufficient: mx.Verdict | None
    s_matrix: mx.Verdict | None
    w: np.ndarray
    products: np.ndarray | None
    failed: list[str] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return not self.failed

    @property
    def schur_holds(self) -> bool:
        """S exists and is a row-sufficient S-matrix (every hypothesis but stationarity)."""
        return bool(self.schur is not None and self.row_sufficient and self.s_matrix)

    def witness(self, tol: float = 1e-9) -> str:
        """How the point's own w shows the failing hypothesis (the proof's steps (28)-(32))."""
        if self.products is None:
            return "no Schur complement: the proof's (26) cannot express g through w"
        scale = max(1.0, float(np.abs(self.w).max(initial=0.0))) ** 2
        if np.any(self.products < -tol * scale):
            i = int(np.argmin(self.products))
            return f"w_{i} [S^T w]_{i} = {self.products[i]:.3g} < 0: w violates row sufficiency of S"
        if np.abs(self.w).max(initial=0.0) > tol and np.all(self.w <= tol):
            return "w <= 0, w != 0 with S^T w >= 0: -w shows S is not an S-matrix"
        return "w ~ 0: the point solves MNCPOpt up to the tolerance (phi ~ 0), not to the MNCP's 1e-8"

    def text(self) -> str:
        head = (
            f"phi {self.objective:.3g}, projected gradient {self.projected_gradient:.1e} "
            f"({'stationary' if self.stationary else 'not stationary'}), g_v smallest singular value "
            f"{self.g_v_min_singular:.2e} (condition {self.g_v_condition:.1e})"
        )
        if self.schur is not None:
            assert self.row_sufficient is not None and self.s_matrix is not None
            head += (
                f"; S of order {self.schur.shape[0]}: row sufficient {self.row_sufficient.text()}, "
                f"S-matrix {self.s_matrix.text()}"
            )
        verdict = "all hypotheses hold" if self.holds else "fails: " + ", ".join(self.failed)
        return f"{head} -> {verdict}"


def _dense(A) -> np.ndarray:
    return A.toarray() if hasattr(A, "toarray") else np.asarray(A, dtype=float)


def theorem1(
    mcp: MCP,
    x: np.ndarray,
    z: np.ndarray | None = None,
    stationarity_tol: float = 1e-5,
    cond_max: float = COND_MAX,
) -> Theorem1:
    """Evaluate Theorem 1 of Andreani et al. (2002) at the MNCPOpt point (x, z).

    ``mcp``: an MCP whose variables are nonnegative (u) or free (v); ``x`` (n,) in its order;
    ``z`` (n_u,) the slacks, default max(f(x), 0) (the best z for a fixed x when u^T z = 0).
    g_v counts as singular when its condition number exceeds ``cond_max``.
    """
    form = MNCPOpt(mcp)
    x = np.asarray(x, dtype=float).ravel()
    y = with_slacks(form, x) if z is None else np.concatenate([x, np.asarray(z, dtype=float).ravel()])
    u, v = form.u_idx, form.v_idx
    J = _dense(mcp.J(x))
    F = np.asarray(mcp.F(x), dtype=float).ravel()
    w = F[u] - form.slack(y)
    pg = form.projected_gradient(y)
    failed: list[str] = []
    if pg > stationarity_tol:
        failed.append(f"not stationary (projected gradient {pg:.1e} > {stationarity_tol:.0e})")
    if v.size:
        gv = J[np.ix_(v, v)]
        sv = np.linalg.svd(gv, compute_uv=False)
        smin = float(sv[-1])
        cond = float(sv[0] / smin) if smin > 0 else np.inf
    else:
        smin, cond = np.inf, 1.0
    schur = rs = sm = products = None
    if cond > cond_max:
        failed.append(f"g_v singular (condition {cond:.1e}): no Schur complement")
    else:
        schur = J[np.ix_(u, u)]
        if v.size:
            schur = schur - J[np.ix_(u, v)] @ np.linalg.solve(J[np.ix_(v, v)], J[np.ix_(v, u)])
        rs, sm = mx.is_row_sufficient(schur), mx.is_s_matrix(schur)
        products = w * (schur.T @ w)
        if not rs.value:
            failed.append("Schur complement not row sufficient")
        if not sm.value:
            failed.append("Schur complement not an S-matrix")
    return Theorem1(
        objective=form.objective(y),
        projected_gradient=pg,
        stationary=pg <= stationarity_tol,
        g_v_min_singular=smin,
        g_v_condition=cond,
        schur=schur,
        row_sufficient=rs,
        s_matrix=sm,
        w=w,
        products=products,
        failed=failed,
    )
