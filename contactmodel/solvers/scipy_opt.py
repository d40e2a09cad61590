"""Solver "scipy": MNCPOpt / LCPOpt of Andreani et al. (2002) through ``scipy.optimize.minimize``.

The same bound-constrained reformulation as the "ipopt" solver
(:mod:`contactmodel.solvers.reformulation`), solved with L-BFGS-B (exact gradient) or
trust-constr (exact gradient and Hessian). CONVERGED only when the objective is <=
``objective_tol`` and the MCP natural residual (inf-norm) is <= ``tol``.

References:

- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import Bounds, OptimizeWarning, minimize

from contactmodel.constants import Choice
from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult
from contactmodel.solvers.reformulation import (
    ComplementarityTerm,
    MNCPOpt,
    assess_and_polish,
    nonglobal_message,
)


class ScipyMethod(Choice):
    """``ScipyOptions.method``: the scipy.optimize.minimize method."""

    L_BFGS_B = "L-BFGS-B"  # exact gradient
    TRUST_CONSTR = "trust-constr"  # exact gradient and Hessian


#: the methods' names
METHODS: tuple[str, ...] = ScipyMethod.values()


@dataclass
class ScipyOptions(Options):
    """Options of the "scipy" solver.

    method: "L-BFGS-B" (exact gradient) or "trust-constr" (exact gradient and Hessian).
    tol: acceptance bound on the inf-norm of the MCP natural residual (of the MCP given, which
        ``cm.solve`` normalizes by its data's scale: :mod:`contactmodel.mcp.scale`).
    objective_tol: acceptance bound on the MNCPOpt objective (Andreani et al. (2002) used 1e-10).
    max_iter: iteration limit of the method.
    complementarity_term: "product" (Andreani et al.'s (2002) (u^T z)^2) or "componentwise"
        (sum_i (u_i z_i)^2).
    polish: when the final objective is <= ``polish_objective``, refine the point with
        active-set Newton steps (:func:`~contactmodel.solvers.reformulation.polish`); the
        point with the lowest natural residual is kept.
    polish_objective: objective level below which polishing is tried.
    native: further entries of ``minimize``'s ``options`` dict (override the defaults:
        L-BFGS-B ftol 1e-30, gtol 1e-14, maxcor 20, maxfun 5 * max_iter; trust-constr
        gtol 1e-14, xtol 1e-16, barrier_tol 1e-14). Unknown entries raise SolverError.
    """

    method: ScipyMethod = ScipyMethod.L_BFGS_B
    tol: float = 1e-8
    objective_tol: float = 1e-10
    max_iter: int = 20000
    complementarity_term: ComplementarityTerm = ComplementarityTerm.PRODUCT
    polish: bool = True
    polish_objective: float = 1e-6
    native: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first bad field (``method`` and
        ``complementarity_term`` are checked on assignment)."""
        for name in ("tol", "objective_tol"):
            if not getattr(self, name) > 0:
                raise OptionError(f"ScipyOptions.{name} must be > 0, got {getattr(self, name)}")
        if int(self.max_iter) < 1:
            raise OptionError(f"ScipyOptions.max_iter must be >= 1, got {self.max_iter}")
        if not isinstance(self.native, dict):
            raise OptionError("ScipyOptions.native must be a dict of minimize options")


def _method_options(opts: ScipyOptions) -> dict[str, Any]:
    if opts.method == "L-BFGS-B":
        base: dict[str, Any] = {
            "maxiter": int(opts.max_iter),
            "maxfun": 5 * int(opts.max_iter),
            "ftol": 1e-30,
            "gtol": 1e-14,
            "maxcor": 20,
        }
    else:
        base = {
            "maxiter": int(opts.max_iter),
            "gtol": 1e-14,
            "xtol": 1e-16,
            "barrier_tol": 1e-14,
        }
    base.update(opts.native)
    return base


def _stopped_at_limit(method: str, res: Any) -> bool:
    if method == "L-BFGS-B":
        return int(res.status) == 1
    return int(res.status) == 0


def solve(mcp: MCP, options: ScipyOptions | None = None) -> SolverResult:
    """Solve ``mcp`` through MNCPOpt (LCPOpt for an LCP) with ``scipy.optimize.minimize``.

    Extras: ``objective``, ``natural_residual``, ``projected_gradient`` (at the returned
    x), ``objective_nlp`` and ``natural_residual_nlp`` (at the method's own point, before
    polishing), ``polish_steps``, ``scipy_status``, ``scipy_message``, ``z`` (slacks, one
    per u-row), ``method``, ``complementarity_term``.
    """
    opts = options if options is not None else ScipyOptions()
    opts.validate()
    form = MNCPOpt(mcp, opts.complementarity_term)
    y0 = form.starting_point()
    lo, hi = form.bounds()
    kwargs: dict[str, Any] = {}
    if opts.method == "trust-constr":
        kwargs["hess"] = form.hessian
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message="Unknown solver options", category=OptimizeWarning)
            res = minimize(
                form.objective,
                y0,
                jac=form.gradient,
                method=opts.method.value,
                bounds=Bounds(lo, hi),
                options=_method_options(opts),
                **kwargs,
            )
    except (TypeError, OptimizeWarning) as exc:
        raise SolverError(f"scipy.optimize.minimize rejected ScipyOptions.native: {exc}") from exc
    y = np.clip(np.asarray(res.x, dtype=float), lo, hi)
    y, a, common = assess_and_polish(form, y, opts)
    msg = str(res.message)
    iterations = int(getattr(res, "nit", 0) or 0)
    extras: dict[str, Any] = {
        **common,
        "scipy_status": int(res.status),
        "scipy_message": msg,
        "z": form.slack(y),
        "method": opts.method,
        "complementarity_term": opts.complementarity_term,
    }
    if a.converged:
        outcome = Outcome.CONVERGED
        message = (
            f"MNCPOpt objective {a.objective:.2e}, natural residual {a.natural_residual:.2e} "
            f"({opts.method}: {msg})"
        )
    elif _stopped_at_limit(opts.method, res):
        outcome = Outcome.ITERATION_LIMIT
        message = (
            f"{opts.method} stopped at its limit: {msg}; objective {a.objective:.2e}, "
            f"natural residual {a.natural_residual:.2e}"
        )
    elif a.stationary_nonglobal:
        outcome = Outcome.FAILED
        message = nonglobal_message(a, opts.objective_tol) + f" ({opts.method}: {msg})"
    else:
        outcome = Outcome.FAILED
        message = (
            f"{opts.method}: {msg}; objective {a.objective:.2e}, natural residual "
            f"{a.natural_residual:.2e} > tol {opts.tol:.1e}"
        )
    return SolverResult(x=a.x, outcome=outcome, iterations=iterations, message=message, extras=extras)
