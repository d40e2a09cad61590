"""Solver "ipopt": MNCPOpt / LCPOpt of Andreani et al. (2002) solved by Ipopt (cyipopt), exact derivatives.

The MCP (nonnegative or free variables only) becomes the bound-constrained NLP of
:mod:`contactmodel.solvers.reformulation` with no general constraints (m = 0). A run is
CONVERGED only when the final objective is <= ``objective_tol`` and the MCP natural residual
(inf-norm) is <= ``tol``; a stationary point with positive objective is FAILED as a
non-global stationary point of MNCPOpt.

References:

- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult
from contactmodel.solvers.reformulation import (
    ComplementarityTerm,
    MNCPOpt,
    assess_and_polish,
    nonglobal_message,
)

_STATUS_OUTCOME: dict[int, Outcome] = {
    -1: Outcome.ITERATION_LIMIT,
    -4: Outcome.TIME_LIMIT,
    -5: Outcome.TIME_LIMIT,
}
_STATIONARY_STATUSES = frozenset({0, 1, 3, 6})
_STATUS_NAMES: dict[int, str] = {
    -4: "Maximum CPU time exceeded.",
    -5: "Maximum wall time exceeded.",
}


@dataclass
class IpoptOptions(Options):
    """Options of the "ipopt" solver.

    complementarity_term: "product" (Andreani et al.'s (2002) (u^T z)^2) or "componentwise"
        (sum_i (u_i z_i)^2).
    tol: acceptance bound on the inf-norm of the MCP natural residual (of the MCP given, which
        ``cm.solve`` normalizes by its data's scale: :mod:`contactmodel.mcp.scale`).
    objective_tol: acceptance bound on the MNCPOpt objective (Andreani et al. (2002) used 1e-10).
    nlp_tol: Ipopt's own "tol" (scaled NLP optimality error).
    max_iter: Ipopt iteration limit.
    time_limit: wall-clock limit in seconds (Ipopt "max_wall_time"), None for none.
    print_level: Ipopt print level (0 = silent).
    polish: when Ipopt's final objective is <= ``polish_objective``, refine its point with
        active-set Newton steps (:func:`~contactmodel.solvers.reformulation.polish`); a step
        is kept only if it lowers the natural residual. Ipopt's barrier leaves u_i, z_i of
        order sqrt(mu) at degenerate solutions, about 1e-7 in the natural residual.
    polish_objective: objective level below which polishing is tried.
    native: further Ipopt options, passed unchanged to ``add_option`` last (they override
        the fields above).

    Ipopt runs with "bound_relax_factor" 0 (override through ``native``): with relaxed
    bounds a slightly negative z_k against a large u_k cancels the other terms of
    (u^T z)^2, and the "product" term then reports near-zero objectives far from any
    solution.
    """

    complementarity_term: ComplementarityTerm = ComplementarityTerm.PRODUCT
    tol: float = 1e-8
    objective_tol: float = 1e-10
    nlp_tol: float = 1e-14
    max_iter: int = 3000
    time_limit: float | None = None
    print_level: int = 0
    polish: bool = True
    polish_objective: float = 1e-6
    native: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first bad field (``complementarity_term`` is
        checked on assignment)."""
        for name in ("tol", "objective_tol", "nlp_tol"):
            if not getattr(self, name) > 0:
                raise OptionError(f"IpoptOptions.{name} must be > 0, got {getattr(self, name)}")
        if int(self.max_iter) < 0:
            raise OptionError(f"IpoptOptions.max_iter must be >= 0, got {self.max_iter}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise OptionError(f"IpoptOptions.time_limit must be > 0, got {self.time_limit}")
        if not isinstance(self.native, dict):
            raise OptionError("IpoptOptions.native must be a dict of Ipopt option -> value")


class _Callbacks:
    """cyipopt problem object: objective, gradient and lower-triangle Hessian of MNCPOpt."""

    def __init__(self, form: MNCPOpt) -> None:
        self.form = form
        self.rows, self.cols = form.hessian_structure()
        self.iterations = 0
        self.inf_du = float("nan")

    def objective(self, y: np.ndarray) -> float:
        return self.form.objective(y)

    def gradient(self, y: np.ndarray) -> np.ndarray:
        return self.form.gradient(y)

    def constraints(self, y: np.ndarray) -> np.ndarray:
        return np.zeros(0)

    def jacobian(self, y: np.ndarray) -> np.ndarray:
        return np.zeros(0)

    def jacobianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros(0, dtype=int), np.zeros(0, dtype=int)

    def hessianstructure(self) -> tuple[np.ndarray, np.ndarray]:
        return self.rows, self.cols

    def hessian(self, y: np.ndarray, lagrange: np.ndarray, obj_factor: float) -> np.ndarray:
        return obj_factor * self.form.hessian_values(y)

    def intermediate(
        self,
        alg_mod,
        iter_count,
        obj_value,
        inf_pr,
        inf_du,
        mu,
        d_norm,
        regularization_size,
        alpha_du,
        alpha_pr,
        ls_trials,
    ) -> bool:
        self.iterations = int(iter_count)
        self.inf_du = float(inf_du)
        return True


def _set_option(nlp: Any, key: str, value: Any) -> None:
    if isinstance(value, bool):
        value = "yes" if value else "no"
    elif isinstance(value, (np.integer,)):
        value = int(value)
    elif isinstance(value, (np.floating,)):
        value = float(value)
    try:
        nlp.add_option(key, value)
    except (TypeError, ValueError) as exc:
        raise SolverError(f"Ipopt rejected option {key}={value!r}: {exc}") from exc


def solve(mcp: MCP, options: IpoptOptions | None = None) -> SolverResult:
    """Solve ``mcp`` through MNCPOpt (LCPOpt for an LCP) with Ipopt.

    Returns a :class:`SolverResult` whose ``x`` is the MCP part of the final point (Ipopt's,
    or its polished refinement) and whose extras hold ``objective``, ``natural_residual``,
    ``projected_gradient`` (all at x), ``objective_nlp`` and ``natural_residual_nlp`` (at
    Ipopt's own point), ``polish_steps``, ``dual_infeasibility`` (Ipopt's last inf_du),
    ``ipopt_status``, ``ipopt_message``, ``z`` (final slacks, one per u-row) and
    ``complementarity_term``.
    """
    try:
        import cyipopt
    except ImportError as exc:
        raise SolverError("solver 'ipopt' needs cyipopt: pip install cyipopt-wheels (or cyipopt)") from exc
    opts = options if options is not None else IpoptOptions()
    opts.validate()
    form = MNCPOpt(mcp, opts.complementarity_term)
    y0 = form.starting_point()
    lo, hi = form.bounds()
    cb = _Callbacks(form)
    nlp = cyipopt.Problem(n=form.dim, m=0, problem_obj=cb, lb=lo, ub=hi, cl=[], cu=[])
    settings: dict[str, Any] = {
        "print_level": int(opts.print_level),
        "sb": "yes",
        "tol": float(opts.nlp_tol),
        "max_iter": int(opts.max_iter),
        "hessian_approximation": "exact",
        "bound_relax_factor": 0.0,
    }
    if opts.time_limit is not None:
        settings["max_wall_time"] = float(opts.time_limit)
    settings.update(opts.native)
    for key, value in settings.items():
        _set_option(nlp, key, value)
    y, info = nlp.solve(y0)
    y = np.clip(y, lo, hi)
    status = int(info["status"])
    raw_msg = info["status_msg"]
    status_msg = raw_msg.decode() if isinstance(raw_msg, bytes) else str(raw_msg)
    if status in _STATUS_NAMES and status_msg.startswith("Unknown status"):
        status_msg = _STATUS_NAMES[status]
    y, a, common = assess_and_polish(form, y, opts)
    extras: dict[str, Any] = {
        **common,
        "dual_infeasibility": cb.inf_du,
        "ipopt_status": status,
        "ipopt_message": status_msg,
        "complementarity_term": opts.complementarity_term,
    }
    if form.dropped_hessian_entries:
        extras["dropped_hessian_entries"] = form.dropped_hessian_entries
    if a.converged:
        outcome = Outcome.CONVERGED
        message = (
            f"MNCPOpt objective {a.objective:.2e}, natural residual {a.natural_residual:.2e} "
            f"(Ipopt: {status_msg})"
        )
    elif status in _STATUS_OUTCOME:
        outcome = _STATUS_OUTCOME[status]
        message = (
            f"Ipopt stopped: {status_msg}; objective {a.objective:.2e}, natural residual "
            f"{a.natural_residual:.2e}"
        )
    elif status in _STATIONARY_STATUSES and a.objective > opts.objective_tol:
        outcome = Outcome.FAILED
        message = nonglobal_message(a, opts.objective_tol) + f" (Ipopt: {status_msg})"
    else:
        outcome = Outcome.FAILED
        message = (
            f"Ipopt: {status_msg}; objective {a.objective:.2e}, natural residual "
            f"{a.natural_residual:.2e} > tol {opts.tol:.1e}"
        )
    return SolverResult(x=a.x, outcome=outcome, iterations=cb.iterations, message=message, extras=extras)
