"""The dispatcher: one entry point for every solver, with its own verification.

``solve`` compiles (for contact problems), runs the chosen solver, then computes the
residuals itself, the same way for every solver, and sets the :class:`Status`. A solver's
claim of success is never passed on unverified.
"""

from __future__ import annotations

import time

import numpy as np
from threadpoolctl import ThreadpoolController

from contactmodel import solvers
from contactmodel.analysis.modes import contact_modes
from contactmodel.assembly import Assembly
from contactmodel.errors import SolverError
from contactmodel.formulation import Problem
from contactmodel.mcp.compile import CompiledMCP
from contactmodel.mcp.types import MCP, natural_residual
from contactmodel.solution import BodyResult, ContactResult, JointResult, Solution
from contactmodel.solvers.base import Outcome, SolverResult, Status

#: relative natural-map residual for Status.SOLVED, and the looser bound for SOLVED_INACCURATE
TOL = 1e-8
TOL_INACCURATE = 1e-5


_CONTROLLERS: dict[str, ThreadpoolController] = {}


def _blas_controller(solver: str) -> ThreadpoolController:
    """The thread-pool controller, made once per solver after its module is loaded (finding the
    loaded BLAS libraries costs milliseconds, more than a small LCP's solve)."""
    if solver not in _CONTROLLERS:
        _CONTROLLERS[solver] = ThreadpoolController()
    return _CONTROLLERS[solver]


def LCP(M, q, names: list[str] | None = None) -> MCP:
    """The LCP 0 <= z _|_ M z + q >= 0 as a problem for :func:`solve`."""
    return MCP.from_lcp(M, q, names)


def residual_scale(mcp: MCP) -> float:
    """max(1, ||F(0)||_inf): the denominator of every relative residual the dispatcher reports."""
    return max(1.0, float(np.max(np.abs(mcp.F(np.zeros(mcp.n))), initial=0.0)))


def relative_residual(mcp: MCP, x: np.ndarray) -> float:
    """||x - mid(lb, x - F(x), ub)||_inf / max(1, ||F(0)||_inf)."""
    return float(np.max(np.abs(natural_residual(mcp, x)), initial=0.0)) / residual_scale(mcp)


def law_residual(problem: Problem, c: np.ndarray, a: np.ndarray) -> float:
    """max over contacts of each law's :meth:`~contactmodel.friction.base.FrictionLaw.law_residual`
    at forces ``c`` and accelerations ``a`` (assembly rows), absolute."""
    rows = problem.assembly.contact_rows
    worst = 0.0
    for name, law in problem.laws.items():
        idx = list(rows[name].values())
        worst = max(worst, law.law_residual(problem.contexts[name], c[idx], a[idx]))
    return worst


def _status(result: SolverResult, residual: float, tol: float) -> Status:
    if result.outcome is Outcome.INFEASIBLE:
        return Status.INFEASIBLE_CERTIFIED
    if result.x is not None and residual <= tol:
        return Status.SOLVED
    if result.x is not None and residual <= max(tol, TOL_INACCURATE):
        return Status.SOLVED_INACCURATE
    return {
        Outcome.ITERATION_LIMIT: Status.ITERATION_LIMIT,
        Outcome.TIME_LIMIT: Status.TIME_LIMIT,
    }.get(result.outcome, Status.FAILED)


def solve(
    problem,
    solver: str = "newton",
    accept_tol: float = TOL,
    x0=None,
    blas_threads: int | None = 1,
    **options,
) -> Solution:
    """Solve a contact :class:`Problem` or an :class:`MCP` (e.g. ``cm.LCP(M, q)``).

    ``accept_tol`` is the relative natural-map residual accepted as solved; ``x0`` a starting
    point in the MCP's variable order; other keywords (e.g. ``tol``, the solver's own stopping
    tolerance) override the solver's options (see ``solvers_config/NAME.toml``).
    ``blas_threads`` caps BLAS threads during the solve (None leaves them alone): the contact
    problems' dense kernels are small, and threaded BLAS made Lemke 20x slower on a loaded
    2-core machine.
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    if isinstance(problem, Problem):
        compiled = problem.compile()
        mcp = compiled.mcp
    elif isinstance(problem, MCP):
        compiled, mcp = None, problem
    else:
        raise SolverError(f"solve needs a contactmodel Problem or MCP (got {type(problem).__name__})")
    timings["compile"] = time.perf_counter() - t0

    info = solvers.get(solver)
    if mcp.cones is not None and not info.cones:
        able = [name for name, i in solvers.REGISTRY.items() if i.cones]
        raise SolverError(
            f"solver '{solver}' cannot solve CoulombCone(form='soc') contacts (second-order-cone "
            f"blocks, not box rows); use solver={able[0]!r} or CoulombCone(mu) (the seed's MNCP)"
        )
    if info.lcp_only and not mcp.is_lcp:
        raise SolverError(
            f"solver '{solver}' solves LCPs only, and this problem is not one (nonlinear rows or "
            "free variables); use 'newton', 'ipopt' or 'scipy', or a polyhedral friction law "
            "(Pyramid, Polygonal, Planar) with form='reduced'"
        )
    module, _ = solvers.load(solver)
    opts = solvers.make_options(solver, options)
    if x0 is not None:
        mcp = MCP(**{**mcp.__dict__, "x0": np.asarray(x0, dtype=float)})

    with _blas_controller(solver).limit(limits=blas_threads, user_api="blas"):
        t1 = time.perf_counter()
        result: SolverResult = module.solve(mcp, opts)
        seconds = time.perf_counter() - t1
    timings["solve"] = seconds

    target = compiled if compiled is not None else mcp
    return assess(target, result, solver, accept_tol, seconds, timings, problem=problem)


def assess(
    target: CompiledMCP | MCP,
    result: SolverResult,
    solver: str,
    accept_tol: float = TOL,
    seconds: float = 0.0,
    timings: dict[str, float] | None = None,
    problem: Problem | None = None,
) -> Solution:
    """The verified :class:`Solution` of a solver's raw result, computed the same way for every
    solver: the relative natural-map residual of the MCP and, for a contact problem, each law's
    residual at the answer's forces and accelerations (relative to the same scale); the status
    is decided on the larger of the two; contact, body and joint results for accepted answers.
    ``target`` is the compiled model of ``problem`` (a contact problem) or a bare MCP."""
    timings = {} if timings is None else timings
    compiled = target if isinstance(problem, Problem) else None
    mcp = compiled.mcp if compiled is not None else target
    x = None if result.x is None else np.asarray(result.x, dtype=float)
    residual = relative_residual(mcp, x) if x is not None else float("inf")
    checks: dict[str, float] = {}
    message = result.message
    c = a = None
    if compiled is not None and x is not None and np.all(np.isfinite(x)):
        compiled.load(x)
        c = problem.force_vector()
        a = problem.assembly.contact_accelerations(c)
        checks["law_residual"] = law_residual(problem, c, a) / residual_scale(mcp)
        if checks["law_residual"] > max(residual, accept_tol):
            message += (
                f"; the contact laws hold only to {checks['law_residual']:.1e} (relative) although the "
                f"MCP residual is {residual:.1e}"
            )
    status = _status(result, max(residual, checks.get("law_residual", 0.0)), accept_tol)
    solution = Solution(
        status=status,
        solver=solver,
        residual=residual,
        iterations=int(result.iterations),
        seconds=seconds,
        x=x,
        message=message,
        checks=checks,
        timings=timings,
        extras=dict(result.extras),
    )
    if compiled is not None and solution.ok:
        t2 = time.perf_counter()
        _fill_contact_results(problem, compiled, x, c, a, solution, accept_tol)
        timings["verify"] = time.perf_counter() - t2
    return solution


def _fill_contact_results(
    problem: Problem,
    compiled: CompiledMCP,
    x: np.ndarray,
    c: np.ndarray,
    a: np.ndarray,
    solution: Solution,
    tol: float,
) -> None:
    asm = problem.assembly
    # a mode is decided at the accuracy the answer has, not the accuracy asked for
    mode_tol = 10 * max(tol, solution.residual, 1e-12)
    found = contact_modes(problem, x, tol=mode_tol, compiled=compiled, forces=c)
    for name in problem.contact_names:
        rows = list(asm.contact_rows[name].values())
        m = found[name]
        solution.contacts.append(
            ContactResult(
                name,
                m.mode,
                c[rows].tolist(),
                a[rows].tolist(),
                m.direction,
                m.label,
                m.degenerate,
                list(m.decided_by),
            )
        )
    normal_rows = [asm.contact_rows[n]["n"] for n in problem.contact_names]
    cn, an = c[normal_rows], a[normal_rows]
    solution.checks["normal_complementarity"] = float(np.max(np.abs(np.minimum(cn, an)), initial=0.0))
    if not isinstance(asm, Assembly):
        return
    nu_dot = asm.accelerations(c)
    for i, body in enumerate(asm.system.bodies):
        solution.bodies.append(
            BodyResult(body.name, nu_dot[6 * i : 6 * i + 3].tolist(), nu_dot[6 * i + 3 : 6 * i + 6].tolist())
        )
    efforts = asm.efforts(c, nu_dot)
    offset = 6 * len(asm.system.bodies)
    for arm in asm.system.manipulators:
        for k in range(len(arm.joints)):
            i = offset + k
            declared = arm.efforts[k]
            effort = efforts[i] if declared is None else float(declared)
            solution.joints.append(JointResult(asm.coordinates[i], float(nu_dot[i]), float(effort)))
        offset += len(arm.joints)
    if problem.form == "sparse":
        model_nu_dot = np.array(
            [
                problem.model.nu_dot[coord].value if asm.free[i] else asm.nu_dot_prescribed[i]
                for i, coord in enumerate(asm.coordinates)
            ]
        )
        ne = asm.M @ model_nu_dot - asm.G.T @ c - asm.f - efforts
        solution.checks["newton_euler"] = float(np.max(np.abs(ne), initial=0.0))
