"""Solver "ipopt": MNCPOpt / LCPOpt of Andreani et al. (2002) solved by Ipopt (cyipopt), exact derivatives.

MNCPOpt has stationary points with a positive objective wherever Theorem 1's condition fails (friction
LCPs are not row sufficient), and which one Ipopt reaches depends on the start: a run that ends at one
is followed by the restart ladder of :attr:`IpoptOptions.restarts` and ``random_starts``, whose
first restart starts from the solution of the MCP's linearization (Lemke's method).

The MCP (nonnegative or free variables only) becomes the bound-constrained NLP of
:mod:`contactmodel.solvers.reformulation` with no general constraints (m = 0). A run is
CONVERGED only when the final objective is <= ``objective_tol`` and the MCP natural residual
(inf-norm) is <= ``tol``; a stationary point with positive objective is FAILED as a
non-global stationary point of MNCPOpt.

References:

- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
- N. H. Josephy, "Newton's method for generalized equations", Technical Summary Report 1965,
  Mathematics Research Center, University of Wisconsin, 1979 (:func:`linearized_start`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult
from contactmodel.solvers.reformulation import (
    ComplementarityTerm,
    MNCPOpt,
    assess_and_polish,
    natural_residual_inf,
    nonglobal_message,
    with_slacks,
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
        active-set Newton steps (:func:`~contactmodel.solvers.reformulation.polish`); the
        point with the lowest natural residual is kept. Ipopt's barrier leaves u_i, z_i of
        order sqrt(mu) at degenerate solutions, about 1e-7 in the natural residual.
    polish_objective: objective level below which polishing is tried.
    restarts: when the first attempt (from ``mcp.x0`` with these options) does not converge,
        the attempts of :data:`RESTARTS` named here are made in turn until one converges; ()
        for a single attempt. The first default, ``linearized``, starts Ipopt from a point
        another method computes: the Josephy-Newton iterate of the best point so far (the first
        attempt's), whose linear subproblem Lemke's method solves (:func:`linearized_start`;
        for an LCP that is Lemke's solution of the LCP itself). Ipopt then solves MNCPOpt from
        there and its point is assessed and polished as every attempt's. Leave ``linearized``
        out for a ladder of Ipopt's own starts only (of the 18 scenes of
        ``benchmarks/fuzz_run.py --seed 1`` the ladder without it left unsolved, it solves 15;
        placed last instead of first, those 15 took about 10x the Ipopt iterations).
    random_starts: then up to this many seeded random starts (:func:`random_start`, the
        interior options).
    attempt_max_iter: Ipopt iteration limit of each attempt, the first included, when restarts
        follow (a first run that wanders keeps none of them from running). All attempts share ``max_iter``
        and ``time_limit``; the answer is the converged attempt's, else the one with the
        smallest natural residual.
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
    restarts: tuple[str, ...] = (
        "linearized",
        "interior",
        "feasible",
        "componentwise",
        "componentwise-interior",
        "adaptive",
        "row-scaled",
    )
    random_starts: int = 4
    attempt_max_iter: int = 1000
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
        bad = (
            [r for r in self.restarts if r not in RESTARTS]
            if isinstance(self.restarts, (tuple, list))
            else [0]
        )
        if bad:
            raise OptionError(
                f"IpoptOptions.restarts must be a sequence of {sorted(RESTARTS)}, got {self.restarts!r}"
            )
        for name in ("random_starts", "attempt_max_iter"):
            if int(getattr(self, name)) < 0:
                raise OptionError(f"IpoptOptions.{name} must be >= 0, got {getattr(self, name)}")
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


#: Ipopt options of the interior start: bound_push 1 puts u and z >= 1, and acceptable_iter 0 stops
#: Ipopt from ending at its "acceptable" level (the start that solves the SCARA grasp of Andreani
#: et al. (2002) from every data set, benchmarks/scara_theorem1.py)
_INTERIOR: dict[str, Any] = {"bound_push": 1.0, "acceptable_iter": 0}

#: Ipopt options of a start at or near a solution: bounds barely pushed and a barrier parameter
#: that starts and may end far below Ipopt's defaults (mu_min 1e-11), so that Ipopt stays near the
#: start; at a degenerate solution the barrier still leaves u_i, z_i of order sqrt(mu), and MNCPOpt's
#: objective is of order their fourth power there (the fuzz scenes of
#: benchmarks/fuzz_run.py --seed 1 ended at natural residuals up to 6e-5 with mu_init 1e-10, 6e-6 so)
_WARM: dict[str, Any] = {"bound_push": 1e-12, "bound_frac": 1e-12, "mu_init": 1e-18, "mu_min": 1e-22}

#: the restarts :attr:`IpoptOptions.restarts` may name, each a change to the first attempt
#: (MNCPOpt has stationary points with a positive objective wherever Theorem 1's condition fails,
#: as it does for friction LCPs, and which one Ipopt reaches depends on the start and the term):
#: ``interior`` (:data:`_INTERIOR`); ``feasible`` (for an affine F, the start of
#: :func:`feasible_start`, u > 0 and F_U > 0 with F_V = 0 as far inside as an LP finds);
#: ``componentwise`` (the other complementarity term), alone and with the interior start;
#: ``adaptive`` (Ipopt's adaptive barrier update); ``row-scaled`` (each row of F divided by the
#: inf-norm of its Jacobian row at the start, an equivalent MCP whose objective weighs a friction
#: row and a Newton-Euler row alike, interior start); ``linearized`` (the start of
#: :func:`linearized_start` from the best point so far, a stationary point of MNCPOpt that is not
#: one of the linearized MCP, with :data:`_WARM` options; skipped when it has none)
RESTARTS: dict[str, dict[str, Any]] = {
    "interior": {"native": _INTERIOR},
    "feasible": {"feasible": True, "native": {"bound_push": 1e-8, "mu_init": 1e-4}},
    "componentwise": {"term": ComplementarityTerm.COMPONENTWISE},
    "componentwise-interior": {"term": ComplementarityTerm.COMPONENTWISE, "native": _INTERIOR},
    "adaptive": {"native": {"mu_strategy": "adaptive"}},
    "row-scaled": {"row_scaled": True, "native": _INTERIOR},
    "linearized": {"linearized": True, "native": _WARM},
}


def random_start(mcp: MCP, k: int) -> np.ndarray:
    """Start k (n,) of the multistart: u ~ U(0.5, 2), free variables ~ N(0, 1), seeded by k, each
    scaled by max(1, |x0|)."""
    rng = np.random.default_rng([k, mcp.n])
    x = rng.standard_normal(mcp.n)
    u = np.isfinite(mcp.lb)
    x[u] = rng.uniform(0.5, 2.0, int(u.sum()))
    if mcp.x0 is not None:
        x *= np.maximum(1.0, np.abs(np.asarray(mcp.x0, dtype=float)))
    return x


def feasible_start(mcp: MCP) -> np.ndarray | None:
    """For an affine F = M x + q: the x (n,) of max t s.t. u >= t, F_U(x) >= t, F_V(x) = 0, t <= 1
    (an LP, scipy's HiGHS), a point of the feasible set of the MCP as far inside it as it goes;
    None for a nonlinear F or when the LP fails or has t < 0."""
    from scipy.optimize import linprog

    if mcp.M is None:
        return None
    M = sp.csr_matrix(mcp.M)
    q = np.asarray(mcp.q, dtype=float).ravel()
    n = mcp.n
    u = np.flatnonzero(np.isfinite(mcp.lb))
    v = np.flatnonzero(~np.isfinite(mcp.lb))
    e_u = sp.csr_matrix(np.ones((u.size, 1)))
    I_u = sp.identity(n, format="csr")[u]
    A_ub = sp.vstack([sp.hstack([-M[u], e_u]), sp.hstack([-I_u, e_u])], format="csr")
    b_ub = np.concatenate([q[u], np.zeros(u.size)])
    A_eq = sp.hstack([M[v], sp.csr_matrix((v.size, 1))], format="csr") if v.size else None
    b_eq = -q[v] if v.size else None
    c = np.zeros(n + 1)
    c[-1] = -1.0
    bounds = [(None, None)] * n + [(None, 1.0)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0 or res.x[-1] < 0.0:
        return None
    return res.x[:n]


#: the most u-variables :func:`linearized_start` takes on: Lemke's tableau is dense (n_u^2 floats,
#: O(n_u^2) work a pivot)
LINEARIZED_MAX_U = 2000


@dataclass
class LinearizedStart:
    """The start of the ``linearized`` rung: the point x (n,), its inf-norm natural residual, the
    Josephy-Newton iterations taken and Lemke's pivots over all of them."""

    x: np.ndarray
    natural_residual: float
    iterations: int
    pivots: int


def linearized_start(mcp: MCP, x: np.ndarray, max_iterations: int = 5) -> LinearizedStart | None:
    """Josephy-Newton iterates from x (n,): each solves the linearization of the MCP at the current
    point, 0 <= u _|_ F_U(x) + J_U (x+ - x) >= 0 with F_V(x) + J_V (x+ - x) = 0, as an LCP in u by
    Lemke's method (:mod:`contactmodel.solvers.lemke`), the free variables eliminated through J_VV.
    For an LCP the linearization is the LCP itself, and one iteration gives Lemke's solution. Goes
    on while the natural residual falls (``max_iterations`` at most) and returns the best iterate;
    None when no iterate lowers the residual of x, J_VV is singular, Lemke finds no solution or
    there are more than :data:`LINEARIZED_MAX_U` u-variables."""
    from scipy.sparse.linalg import splu

    from contactmodel.solvers import lemke

    u = np.flatnonzero(np.isfinite(mcp.lb))
    v = np.flatnonzero(~np.isfinite(mcp.lb))
    if u.size > LINEARIZED_MAX_U:
        return None
    x = np.asarray(x, dtype=float).copy()
    x[u] = np.maximum(x[u], 0.0)
    best: LinearizedStart | None = None
    current = natural_residual_inf(mcp, x)
    pivots = 0
    for k in range(1, max_iterations + 1):
        if mcp.M is not None:  # affine: the linearization is F itself, M x+ + q (no rounding of J x)
            J, c = sp.csc_matrix(mcp.M), np.asarray(mcp.q, dtype=float).ravel()
        else:  # F(x) + J (x+ - x) = J x+ + c
            J = sp.csc_matrix(mcp.J(x))
            c = np.asarray(mcp.F(x), dtype=float).ravel() - J @ x
        J_uu, J_uv = J[u][:, u].toarray(), J[u][:, v]
        r = c[u]  # the u-rows: J_uu u+ + J_uv v+ + r
        if v.size:
            try:
                lu = splu(sp.csc_matrix(J[v][:, v]))
            except RuntimeError:  # J_VV singular: the free variables cannot be eliminated
                return best
            g = c[v]  # the v-rows: J_vu u+ + J_vv v+ + g = 0
            J_vu = J[v][:, u].toarray()
            W = lu.solve(np.column_stack([J_vu, g]))  # v+ = -(W_u u+ + W_g)
            M = J_uu - J_uv @ W[:, :-1]
            q = r - J_uv @ W[:, -1]
        else:
            M, q = J_uu, r
        if not (np.all(np.isfinite(M)) and np.all(np.isfinite(q))):
            return best
        try:
            res = lemke.solve(MCP.from_lcp(M, q), lemke.LemkeOptions(max_restarts=2))
        except (np.linalg.LinAlgError, RuntimeError, SolverError):  # no start, not a failed solve
            return best
        pivots += int(res.iterations)
        if res.x is None:
            return best
        x = np.empty(mcp.n)
        x[u] = res.x
        if v.size:
            x[v] = -(W[:, :-1] @ res.x + W[:, -1])
        nat = natural_residual_inf(mcp, x)
        if not nat < current:
            break
        current = nat
        best = LinearizedStart(x.copy(), nat, k, pivots)
        if mcp.is_linear:
            break
    if best is not None:
        best.pivots = pivots
    return best


def row_scaled(mcp: MCP, x: np.ndarray) -> tuple[MCP, np.ndarray]:
    """(the MCP with rows D F, D J, hess(x, D w), the scales D (n,)): D_i = 1 / ||J_i(x)||_inf
    (1 for an empty row). x solves it exactly when x solves ``mcp`` (D > 0 keeps every row's sign)."""
    J = sp.csr_matrix(mcp.J(x))
    norms = np.asarray(abs(J).max(axis=1).todense()).ravel()
    d = np.where(norms > 0.0, 1.0 / np.where(norms > 0.0, norms, 1.0), 1.0)
    D = sp.diags(d, format="csr")
    hess = None if mcp.hess is None else (lambda y, w: mcp.hess(y, d * np.asarray(w)))
    scaled = MCP(
        F=lambda y: d * np.asarray(mcp.F(y), dtype=float).ravel(),
        J=lambda y: D @ sp.csr_matrix(mcp.J(y)),
        lb=mcp.lb,
        ub=mcp.ub,
        x0=mcp.x0,
        names=mcp.names,
        hess=hess,
    )
    return scaled, d


@dataclass
class _Attempt:
    """One Ipopt run of the ladder: its final point y (of ``form``, the unscaled program),
    assessment, Ipopt status and message, iterations and last dual infeasibility."""

    name: str
    y: np.ndarray
    assessment: Any
    extras: dict
    status: int
    message: str
    iterations: int
    inf_du: float
    dropped: int


def _run(
    cyipopt: Any,
    mcp: MCP,
    form: MNCPOpt,
    name: str,
    spec: dict[str, Any],
    x0: np.ndarray | None,
    opts: IpoptOptions,
    max_iter: int,
    wall: float | None,
) -> _Attempt:
    """Ipopt on MNCPOpt of ``mcp`` changed as ``spec`` says (a :data:`RESTARTS` value), from x0."""
    term = spec.get("term", opts.complementarity_term)
    start = form.starting_point(x0)[: form.n]
    target = mcp
    if spec.get("row_scaled"):
        target, _ = row_scaled(mcp, start)
    nlp_form = form if target is mcp and term == form.complementarity_term else MNCPOpt(target, term)
    y0 = nlp_form.starting_point(start)
    lo, hi = nlp_form.bounds()
    cb = _Callbacks(nlp_form)
    nlp = cyipopt.Problem(n=nlp_form.dim, m=0, problem_obj=cb, lb=lo, ub=hi, cl=[], cu=[])
    settings: dict[str, Any] = {
        "print_level": int(opts.print_level),
        "sb": "yes",
        "tol": float(opts.nlp_tol),
        "max_iter": int(max_iter),
        "hessian_approximation": "exact",
        "bound_relax_factor": 0.0,
    }
    if wall is not None:
        settings["max_wall_time"] = float(wall)
    settings.update(spec.get("native", {}))
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
    if nlp_form is not form:
        y = with_slacks(form, nlp_form.split(y))  # the same x, judged on the program of mcp itself
    y, a, common = assess_and_polish(form, y, opts)
    return _Attempt(
        name, y, a, common, status, status_msg, cb.iterations, cb.inf_du, nlp_form.dropped_hessian_entries
    )


def solve(mcp: MCP, options: IpoptOptions | None = None) -> SolverResult:
    """Solve ``mcp`` through MNCPOpt (LCPOpt for an LCP) with Ipopt.

    The first attempt starts from ``mcp.x0`` with the options as given; when it does not
    converge (and neither limit is reached), each of ``options.restarts`` is tried in turn
    (:data:`RESTARTS`), all sharing the budgets ``max_iter`` and ``time_limit``.

    Returns a :class:`SolverResult` whose ``x`` is the MCP part of the final point (of the
    attempt that converged, else of the one with the smallest natural residual, Ipopt's or its
    polished refinement) and whose extras hold ``objective``, ``natural_residual``,
    ``projected_gradient`` (all at x), ``objective_nlp`` and ``natural_residual_nlp`` (at
    Ipopt's own point), ``polish_steps``, ``dual_infeasibility`` (Ipopt's last inf_du),
    ``ipopt_status``, ``ipopt_message``, ``z`` (final slacks, one per u-row),
    ``complementarity_term``, ``attempts`` (name, Ipopt status, iterations, objective and
    natural residual of each attempt; ``start_pivots``, Lemke's pivots, for the ``linearized``
    start) and ``solved_by`` (the attempt kept). ``iterations`` counts Ipopt's iterations only.
    """
    try:
        import cyipopt
    except ImportError as exc:
        raise SolverError("solver 'ipopt' needs cyipopt: pip install cyipopt-wheels (or cyipopt)") from exc
    opts = options if options is not None else IpoptOptions()
    opts.validate()
    form = MNCPOpt(mcp, opts.complementarity_term)
    form.starting_point()  # checks the shape of mcp.x0 before any run
    t_start = time.perf_counter()
    ladder = [("first", {})] + [(name, RESTARTS[name]) for name in opts.restarts]
    ladder += [(f"random-{k}", {"random": k, "native": _INTERIOR}) for k in range(1, opts.random_starts + 1)]
    used = 0
    best: _Attempt | None = None
    last: _Attempt | None = None
    limit: _Attempt | None = None
    tried: list[dict[str, Any]] = []
    for name, spec in ladder:
        budget = int(opts.max_iter) - used
        if len(ladder) > 1:
            budget = min(budget, int(opts.attempt_max_iter))
        wall = None if opts.time_limit is None else opts.time_limit - (time.perf_counter() - t_start)
        if last is not None and (budget <= 0 or (wall is not None and wall <= 0)):
            break
        x0 = None
        if spec.get("random"):
            x0 = random_start(mcp, spec["random"])
        if spec.get("feasible"):
            x0 = feasible_start(mcp)
            if x0 is None:
                continue
        pivots = None
        if spec.get("linearized"):
            here = best.assessment.x if best is not None else form.split(form.starting_point())
            lin = linearized_start(mcp, here)
            if lin is None:
                continue
            x0, pivots = lin.x, lin.pivots
        last = _run(cyipopt, mcp, form, name, spec, x0, opts, budget, wall)
        used += last.iterations
        a = last.assessment
        tried.append(
            {
                "name": name,
                "ipopt_status": last.status,
                "iterations": last.iterations,
                "objective": a.objective,
                "natural_residual": a.natural_residual,
                **({} if pivots is None else {"start_pivots": pivots}),
            }
        )
        if best is None or a.converged or a.natural_residual < best.assessment.natural_residual:
            best = last
        if a.converged:
            break
        if last.status in _STATUS_OUTCOME and (last.status != -1 or used >= opts.max_iter):
            limit = last  # the time limit, or the whole iteration budget, is spent
            break
    assert best is not None
    chosen = best
    if limit is None and best.status in _STATUS_OUTCOME:
        limit = best  # the best point is one a limit stopped (its own, or a native max_iter)
    a = chosen.assessment
    status, status_msg = chosen.status, chosen.message
    extras: dict[str, Any] = {
        **chosen.extras,
        "dual_infeasibility": chosen.inf_du,
        "ipopt_status": status,
        "ipopt_message": status_msg,
        "complementarity_term": opts.complementarity_term,
        "attempts": tried,
        "solved_by": chosen.name if a.converged else None,
    }
    dropped = max(t.dropped for t in (best, last) if t is not None)
    if dropped:
        extras["dropped_hessian_entries"] = dropped
    after = f" after {len(tried)} attempts ({', '.join(t['name'] for t in tried)})" if len(tried) > 1 else ""
    if a.converged:
        outcome = Outcome.CONVERGED
        message = (
            f"MNCPOpt objective {a.objective:.2e}, natural residual {a.natural_residual:.2e} "
            f"(Ipopt: {status_msg})" + (f"; attempt '{chosen.name}'{after}" if after else "")
        )
    elif limit is not None:
        outcome = _STATUS_OUTCOME[limit.status]
        message = (
            f"Ipopt stopped: {limit.message}; objective {a.objective:.2e}, natural residual "
            f"{a.natural_residual:.2e}{after}"
        )
    elif status in _STATIONARY_STATUSES and a.objective > opts.objective_tol:
        outcome = Outcome.FAILED
        message = nonglobal_message(a, opts.objective_tol) + f" (Ipopt: {status_msg}){after}"
    else:
        outcome = Outcome.FAILED
        message = (
            f"Ipopt: {status_msg}; objective {a.objective:.2e}, natural residual "
            f"{a.natural_residual:.2e} > tol {opts.tol:.1e}{after}"
        )
    return SolverResult(x=a.x, outcome=outcome, iterations=used, message=message, extras=extras)
