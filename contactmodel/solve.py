"""The dispatcher: one entry point for every solver, with its own verification.

``solve`` compiles (for contact problems), runs the chosen solver, then computes the
residuals itself, the same way for every solver, and sets the :class:`Status`. A solver's
claim of success is never passed on unverified.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time

import numpy as np
from threadpoolctl import ThreadpoolController

from contactmodel import solvers, validate
from contactmodel.constants import TOL, TOL_INACCURATE
from contactmodel.errors import OptionError, SolverError
from contactmodel.fallback import (
    adopt,
    better_answer,
    counted,
    friction_continuation,
    lcp_start,
    retry_other_statements,
    retry_unloaded,
    worth_retrying,
)
from contactmodel.formulation import PhysicalPoint, Problem
from contactmodel.friction.cone import cone_form
from contactmodel.layout import layout_of
from contactmodel.mcp.compiled import LAST_X, CompiledMCP
from contactmodel.mcp.scale import data_scale, normalized, normalizer
from contactmodel.mcp.types import MCP, natural_residual
from contactmodel.memory import building
from contactmodel.modes import decide_modes
from contactmodel.reductions import Chain, ConeFormSwitch
from contactmodel.solution import ContactResult, Solution
from contactmodel.solvers.base import POINT_EXTRAS, Outcome, SolverResult, Status

_CONTROLLERS: dict[str, ThreadpoolController] = {}

#: the contact results (modes, forces, bodies) of an answer with at least this many contacts are
#: made with the garbage collector paused and handed to its oldest generation, as models are
#: (``memory.building``): about 8 objects a contact, which outlive the young generations. Left to
#: the collector, they pushed its count of objects surviving into the oldest generation past
#: its threshold, and it ran a full collection over the whole model in the first solve (10,000
#: contacts: 1.0 s of CPU in the modes); smaller answers keep the collector's usual passes (and
#: save the pause, ~10 us). Re-solves of SOC boxes, CPU outside newton with the limit at 2500
#: against 100 (alternating, loaded machine): 700 contacts the same; 1000 contacts 0.3-0.5 ms
#: less (of ~8); 2000 contacts 1.2 ms less. Not counted toward settle's own full collections (see
#: ``memory.settle``): a time step of 10,000 contacts would otherwise run one every few steps
SETTLED_CONTACTS = 1000


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
    """||F(0)||_inf (q of an affine MCP, F = M x + q), or 1 when that is 0 or not finite: the
    denominator of every relative residual the dispatcher reports (see
    :func:`contactmodel.mcp.scale.data_scale`)."""
    return data_scale(mcp)


def relative_residual(
    mcp: MCP, x: np.ndarray, scale: float | None = None, F: np.ndarray | None = None
) -> float:
    """||x - mid(lb, x - F(x), ub)||_inf / :func:`residual_scale` (``scale``: that denominator, and
    ``F``: F(x), when the caller has them)."""
    scale = residual_scale(mcp) if scale is None else scale
    return float(np.max(np.abs(natural_residual(mcp, x, F)), initial=0.0)) / scale


def law_residual(problem: Problem, c: np.ndarray, a: np.ndarray) -> float:
    """max over contacts of each law's :meth:`~contactmodel.friction.base.FrictionLaw.law_residual`
    at forces ``c`` and accelerations ``a`` (assembly rows), absolute."""
    return problem.law_residual(c, a)


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
    warm_start: bool = False,
    fallback: bool = True,
    **options,
) -> Solution:
    """Solve a contact :class:`Problem` or an :class:`MCP` (e.g. ``cm.LCP(M, q)``).

    ``accept_tol`` is the relative natural-map residual accepted as solved; ``x0`` a starting
    point in the MCP's variable order; ``warm_start`` starts a Problem from its last accepted
    answer (after :meth:`Problem.update`, for instance) when its structure has not changed since,
    else from the model's values; other keywords (e.g. ``tol``, the solver's own stopping
    tolerance) override the solver's options (see ``solvers_config/NAME.toml``).
    The run is ``chain.apply -> run -> assess -> chain.invert`` with the chain of :func:`statement`
    (see :mod:`contactmodel.reductions`): a solver that takes no cone blocks gets the
    automatic-form contacts (``CoulombCone``, ``AnisotropicCone``, ``EllipticTorsion``,
    ``Ellipsoid(form=None)``) in the MNCP form (a problem of its own; ``x0`` is carried forward
    to it and the answer's ``x`` back, so both stay in ``problem``'s variable order). The answer
    is assessed on the problem that ran; ``Solution.cone_form`` says which form ran and
    ``Solution.extras["reductions"]`` lists the labels of the reductions that changed the problem
    (absent when none did).
    ``blas_threads`` caps BLAS threads during the solve (None leaves them alone): the contact
    problems' dense kernels are small, and threaded BLAS made Lemke 20x slower on a loaded
    2-core machine. ``fallback``: a contact problem newton did not solve goes through the fallback
    ladder of :func:`rescue` (its unloaded contacts frictionless, its other statements, newton from
    its LCP surrogate's answer, newton's last try; see :mod:`contactmodel.fallback`).
    Many problems solved with the same settings: :class:`SolveCall` checks them once.
    """
    fallback = validate.boolean(fallback, "solve: fallback", error=OptionError)
    warm = validate.boolean(warm_start, "solve: warm_start", error=OptionError)
    if warm and x0 is not None:
        raise OptionError("solve: give x0 or warm_start=True, not both")
    call = SolveCall.of(solver, accept_tol, blas_threads, **options)
    solution = call.run(problem, x0, warm)
    if fallback and isinstance(problem, Problem) and "reductions" not in solution.extras:
        solution = rescue(problem, solution, solver, call.accept_tol, call.blas_threads, **options)
    return solution


@dataclasses.dataclass
class SolveCall:
    """The settings of :func:`solve` checked once: the solver, its option ``overrides``, the
    accepted relative residual and the BLAS threads. :meth:`run` solves a problem with them,
    without the fallback; :func:`solve` makes one a call, and a caller solving problem after
    problem with the same settings (a simulation's steps) keeps one. The options are made at the
    first run, once the solver is known to take the problem (class defaults, then preset files,
    then ``overrides``: :func:`contactmodel.solvers.make_options`), and shared by the runs
    (solvers read their options and never write them)."""

    solver: str
    overrides: dict
    accept_tol: float = TOL
    blas_threads: int | None = 1
    options: object = dataclasses.field(default=None, repr=False)

    @classmethod
    def of(
        cls, solver: str = "newton", accept_tol: float = TOL, blas_threads: int | None = 1, **overrides
    ) -> SolveCall:
        """The settings of ``solve(problem, solver, accept_tol, blas_threads=..., **overrides)``
        (an :class:`OptionError` names a bad tolerance or thread count; a bad option, at the
        first run)."""
        accept_tol = validate.real(accept_tol, "solve: accept_tol", low=0, low_open=True, error=OptionError)
        if blas_threads is not None:
            blas_threads = validate.integer(blas_threads, "solve: blas_threads", low=1, error=OptionError)
        return cls(solver, overrides, accept_tol, blas_threads)

    def run(self, problem, x0=None, warm_start: bool = False) -> Solution:
        """The verified :class:`Solution` of ``problem`` (a contact Problem or an MCP) from ``x0``
        (or, with ``warm_start``, the problem's last accepted answer), as :func:`solve` describes
        it, without the fallback."""
        solver = self.solver
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        asked = problem
        chain = statement(solver) if isinstance(asked, Problem) else Chain()  # a bare MCP: as given
        problem = chain.apply(asked)
        compiled, mcp = _compile(problem)
        timings["compile"] = time.perf_counter() - t0
        module = _load_solver(solver, mcp)
        if self.options is None:
            self.options = solvers.make_options(solver, self.overrides)
        if x0 is not None:
            n = mcp.n if problem is asked else asked.compile().mcp.n
            x0 = validate.real_array(x0, "solve: x0", shape=(n,), error=OptionError)
            mcp = MCP(**{**mcp.__dict__, "x0": chain.forward(x0)})
        elif warm_start and compiled is not None and compiled.derived.get(LAST_X) is not None:
            mcp = MCP(**{**mcp.__dict__, "x0": compiled.derived[LAST_X]})  # the solved problem's order
        scale = residual_scale(mcp)
        result, seconds = _run(solver, module, mcp, self.options, self.blas_threads, scale)
        timings["solve"] = seconds
        target = compiled if compiled is not None else mcp
        tol = self.accept_tol
        solution = assess(target, result, solver, tol, seconds, timings, problem=problem, scale=scale)
        if compiled is not None and solution.ok:
            compiled.derived[LAST_X] = solution.x  # in the order of the problem solved
        if problem is not asked:
            solution.extras["reductions"] = [r.label for r in chain.applied]
            if solution.x is not None:
                solution.x = chain.invert(solution.x)
        return solution


def statement(solver: str) -> Chain:
    """The reductions :func:`solve` applies for ``solver`` before running it: the automatic-form
    CoulombCone contacts in the MNCP form for a solver that takes no cone blocks, else none."""
    if solvers.get(solver).cones:
        return Chain()
    return Chain([ConeFormSwitch("mncp", automatic_only=True)])


#: newton's options for its last try at a problem it did not solve (a quasistatic problem, which has
#: no other statement, at once; a dynamic one after its other statements): the forces of quasistatic
#: problems are often a continuum, unbounded along internal forces (a grip's squeeze), where the
#: default merit stalls; the penalized Fischer-Burmeister merit with regularization does not (the
#: grip tests of tests/test_quasistatic.py). On dynamic problems it reaches the degenerate solutions
#: of the soft-finger MNCPs (Ellipsoid, EllipticTorsion: a contact at c_n = 0, where the quadratic
#: slack leaves the default run's forces ~sqrt of its residual off) that the other statements do not
#: (fuzz scenes of ``benchmarks/fuzz_run.py --max-boxes 6 --torsion``).
NEWTON_LAST_TRY = {"merit": "penalized_fb", "regularize": "always"}


def rescue(
    problem,
    solution: Solution,
    solver: str = "newton",
    accept_tol: float = TOL,
    blas_threads: int | None = 1,
    tolerance: float = 0.0,
    **options,
) -> Solution:
    """``solution`` (``problem`` solved by ``solver`` as stated, without fallback), or a better
    answer of the fallback ladder: a solved-inaccurate answer (or one failed by its laws alone)
    through its unloaded contacts stated frictionless
    (:func:`contactmodel.fallback.retry_unloaded`), then the problem's other
    statements (:func:`contactmodel.fallback.retry_other_statements`), newton from the LCP
    surrogate's answer (:func:`contactmodel.fallback.lcp_start`), newton with
    :data:`NEWTON_LAST_TRY` (from its own start, then from the LCP surrogate's answer) and newton
    from the end of a friction continuation (:func:`contactmodel.fallback.friction_continuation`),
    in that order until one is solved; a solved-inaccurate answer a later
    rung gives gets the unloaded-contacts try too. ``cm.solve(..., fallback=True)`` runs it, and
    so does a simulation's step. Nothing runs for an answer
    :func:`~contactmodel.fallback.worth_retrying` does not retry (solved, certified infeasible,
    solved-inaccurate within ``tolerance``, relative; or a solver whose registry row asks no
    retry); between the rungs, an answer within ``tolerance`` is kept (a simulation's
    ``step_tol``). ``accept_tol``, ``blas_threads`` and the solver's ``options`` are those of
    :func:`solve`. The answer's message and ``extras["fallback"]`` say which rung gave it
    (``solved_by``) and what the others ended with."""
    if not isinstance(problem, Problem) or not worth_retrying(solution, solver, tolerance):
        return solution

    def from_point(twin: Problem, x0) -> Solution:
        return solve(twin, solver, accept_tol, x0, blas_threads, fallback=False, **options)

    solution = retry_unloaded(problem, solution, accept_tol, from_point)
    if not worth_retrying(solution, solver, tolerance):
        return solution
    answer = _retries(problem, solution, solver, accept_tol, blas_threads, tolerance, options, from_point)
    if answer is not solution:  # another statement's or the last try's answer
        answer = retry_unloaded(problem, answer, accept_tol, from_point)
    return answer


def _retries(
    problem, solution: Solution, solver: str, accept_tol, blas_threads, tolerance: float, options, from_point
) -> Solution:
    """``solution``, or a better answer of another statement of ``problem`` (contactmodel.fallback),
    else of newton again as stated: from its LCP surrogate's answer, with :data:`NEWTON_LAST_TRY`
    from its own start, with both, and from the end of a friction continuation (a quasistatic
    problem has one statement and no surrogate: the :data:`NEWTON_LAST_TRY` try only). Each rung
    runs only while the answer is worth retrying at ``tolerance``; ``from_point(problem, x0)``
    solves a statement with ``solver`` and the options, without fallback."""
    if not problem.assembly.quasistatic:
        solution = retry_other_statements(problem, solution, lambda twin: from_point(twin, None))
        if not worth_retrying(solution, solver, tolerance):
            return solution
    if solver != "newton":
        return solution
    x0 = lcp_start(problem, lambda surrogate: solve(surrogate, "lemke", fallback=False))
    how = "from the LCP surrogate's answer"
    solution = _from_start(problem, solution, x0, how, accept_tol, blas_threads, options)
    if not worth_retrying(solution, solver, tolerance) or set(options) & set(NEWTON_LAST_TRY):
        return solution
    again = {**options, **NEWTON_LAST_TRY}
    solution = _last_try(problem, solution, accept_tol, blas_threads, again)
    if not worth_retrying(solution, solver, tolerance):
        return solution
    how = f"from the LCP surrogate's answer with {NEWTON_LAST_TRY}"
    solution = _from_start(problem, solution, x0, how, accept_tol, blas_threads, again)
    if not worth_retrying(solution, solver, tolerance):
        return solution
    x0, runs = friction_continuation(problem, from_point)
    counted(solution, *runs)
    if x0 is None and runs:
        solution.message += f"; friction continuation stopped at stage {len(runs)}: {runs[-1].status.value}"
    how = "from a friction continuation"
    return _from_start(problem, solution, x0, how, accept_tol, blas_threads, options)


def _last_try(problem, solution: Solution, accept_tol, blas_threads, again: dict) -> Solution:
    """``solution``, or newton's answer with the options ``again`` (:data:`NEWTON_LAST_TRY`) from
    its own start: a dynamic problem's when solved, a quasistatic one's when accepted."""
    retry = solve(problem, "newton", accept_tol, None, blas_threads, fallback=False, **again)
    if retry.status is not Status.SOLVED and not (
        problem.assembly.quasistatic and retry.ok
    ):  # a dynamic problem's answer kept unless solved; a quasistatic one's unless ok
        solution.message += f"; tried again with {NEWTON_LAST_TRY}: {retry.status.value}"
        if not problem.assembly.quasistatic:  # every run counted, as in retry_other_statements
            counted(solution, retry)
        return solution
    return adopt(retry, solution, f"with {NEWTON_LAST_TRY}", str(NEWTON_LAST_TRY))


def _from_start(
    problem: Problem, solution: Solution, x0, how: str, accept_tol, blas_threads, options
) -> Solution:
    """``solution``, or newton's answer from ``x0`` (obtained ``how``; nothing runs when None)
    when that one is better (solved, or solved-inaccurate closer); every run counted."""
    if x0 is None:
        return solution
    retry = solve(problem, "newton", accept_tol, x0, blas_threads, fallback=False, **options)
    if not better_answer(retry, solution):
        solution.message += f"; tried {how}: {retry.status.value}"
        return counted(solution, retry)
    return adopt(retry, solution, how, how, tried=f"{how}: {retry.status.value}")


def _compile(problem) -> tuple[CompiledMCP | None, MCP]:
    """(compiled model or None, the MCP to solve) of a contact Problem or a bare MCP."""
    if isinstance(problem, Problem):
        compiled = problem.compile()
        return compiled, compiled.mcp
    if isinstance(problem, MCP):
        return None, problem
    raise SolverError(f"solve needs a contactmodel Problem or MCP (got {type(problem).__name__})")


def check_solver_fits(solver: str, problem: Problem) -> None:
    """Raise :class:`SolverError` when ``solver`` cannot take ``problem`` as :func:`solve` states
    it for that solver (an LCP-only solver and nonlinear rows, cone blocks and a solver without
    them), without solving it."""
    _load_solver(solver, _compile(statement(solver).apply(problem))[1])


def _load_solver(solver: str, mcp: MCP):
    """The solver's module, once the solver is known to handle this kind of MCP."""
    info = solvers.get(solver)
    if mcp.cones is not None and not info.cones:
        able = solvers.able(lcp=False, cones=True)
        raise SolverError(
            f"solver '{solver}' cannot solve form='soc' contacts (the second-order-cone blocks of "
            "CoulombCone, AnisotropicCone, EllipticTorsion or Ellipsoid, not box rows); use "
            f"solver={able[0]!r}, or leave the law's form automatic (form=None, e.g. CoulombCone(mu)), or "
            "form='mncp' (the mixed NCP of Trinkle et al. 1997)"
        )
    if info.lcp_only and not mcp.is_lcp:
        names = [repr(name) for name in solvers.able(lcp=False, polynomial=False)]
        able = " or ".join(filter(None, (", ".join(names[:-1]), names[-1])))
        raise SolverError(
            f"solver '{solver}' solves LCPs only, and this problem is not one (nonlinear rows or "
            f"free variables); use {able}, or a polyhedral friction law "
            "(Pyramid, Polygonal, Planar) with form='reduced'"
        )
    module, _ = solvers.load(solver)
    return module


def _run(
    solver: str, module, mcp: MCP, opts, blas_threads: int | None, scale: float = 1.0
) -> tuple[SolverResult, float]:
    """The solver's raw result (``x`` in ``mcp``'s variables) and its wall time (s), with BLAS
    capped to ``blas_threads``. The solver runs on ``mcp`` normalized by a power of two near
    ``scale`` (:func:`contactmodel.mcp.scale.normalizer`), so that its own absolute stopping
    tests agree with the dispatcher's relative residual at every scale of the data. A singular
    matrix the solver did not handle (numpy's or scipy's ``LinAlgError``, SuperLU's "singular"
    ``RuntimeError``) ends the run as FAILED, with the error in the message."""
    p = normalizer(mcp, scale)
    if p != 1.0:
        points = {k: getattr(opts, k) for k in opts.point_fields if getattr(opts, k) is not None}
        if points:  # no start among the options (the usual case): nothing to scale, no copy (~17 us)
            opts = dataclasses.replace(opts, **{k: np.asarray(v, dtype=float) / p for k, v in points.items()})
    with _blas_limit(solver, blas_threads):
        t1 = time.perf_counter()
        try:
            result: SolverResult = module.solve(normalized(mcp, p), opts)
        except (np.linalg.LinAlgError, RuntimeError) as exc:
            if isinstance(exc, RuntimeError) and "singular" not in str(exc).lower():
                raise
            message = f"{solver} stopped on a singular matrix: {exc}"
            result = SolverResult(None, Outcome.FAILED, message=message)
        seconds = time.perf_counter() - t1
    if p != 1.0:
        result.x = None if result.x is None else np.asarray(result.x, dtype=float) * p
        for key in set(POINT_EXTRAS) & set(result.extras):
            value = result.extras[key]
            result.extras[key] = [v * p for v in value] if isinstance(value, list) else value * p
    return result, seconds


def _blas_limit(solver: str, threads: int | None):
    """A context capping the BLAS libraries to ``threads``; nothing to do (and no threadpoolctl
    limit, ~70 us) when none is set to more, as with ``OPENBLAS_NUM_THREADS=1``."""
    controller = _blas_controller(solver)
    blas = [lib for lib in controller.lib_controllers if lib.user_api == "blas"]
    if threads is None or all(lib.num_threads <= threads for lib in blas):
        return contextlib.nullcontext()
    return controller.limit(limits=threads, user_api="blas")


def assess(
    target: CompiledMCP | MCP,
    result: SolverResult,
    solver: str,
    accept_tol: float = TOL,
    seconds: float = 0.0,
    timings: dict[str, float] | None = None,
    problem: Problem | None = None,
    scale: float | None = None,
) -> Solution:
    """The verified :class:`Solution` of a solver's raw result, computed the same way for every
    solver: the relative natural-map residual of the MCP and, for a contact problem, each law's
    residual at the answer's forces and accelerations (relative to the same scale); the status
    is decided on the larger of the two; contact, body and joint results for accepted answers.
    ``target`` is the compiled model of ``problem`` (a contact problem) or a bare MCP; ``scale``
    its :func:`residual_scale`, when the caller has it."""
    timings = {} if timings is None else timings
    contact_problem = isinstance(problem, Problem)
    mcp = target.mcp if contact_problem else target
    x = None if result.x is None else np.asarray(result.x, dtype=float)
    scale = residual_scale(mcp) if scale is None else scale
    Fx = mcp.F(x) if x is not None else None  # once: the residual and the modes read it
    residual = relative_residual(mcp, x, scale, Fx) if x is not None else float("inf")
    checks: dict[str, float] = {}
    message = result.message
    point = None
    if contact_problem and x is not None and np.all(np.isfinite(x)):
        point = problem.interpret(x, target)
        checks["law_residual"] = problem.law_residual(point.forces, point.accelerations) / scale
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
        cone_form=_cone_form(problem) if contact_problem else None,
        residual_scale=scale,
    )
    if point is not None and solution.ok:
        t2 = time.perf_counter()
        if len(point.rows) >= SETTLED_CONTACTS:  # see SETTLED_CONTACTS
            with building(counted=False):
                _fill_contact_results(problem, target, point, solution, accept_tol, Fx)
        else:
            _fill_contact_results(problem, target, point, solution, accept_tol, Fx)
        timings["verify"] = time.perf_counter() - t2
    return solution


def _cone_form(problem: Problem) -> str | None:
    """:func:`~contactmodel.friction.cone.cone_form` of the problem's laws, once per layout (the
    layout is made again when the laws are replaced)."""
    kept = layout_of(problem).kept
    if "cone_form" not in kept:
        kept["cone_form"] = cone_form(problem.laws)
    return kept["cone_form"]


def _fill_contact_results(
    problem: Problem,
    compiled: CompiledMCP,
    point: PhysicalPoint,
    solution: Solution,
    tol: float,
    F: np.ndarray | None = None,
) -> None:
    """Contact modes, forces and accelerations, body and joint results and the physical checks
    of an accepted answer (``F``: the MCP's F at the answer, when known)."""
    # a mode is decided at the accuracy the answer has, not the accuracy asked for
    mode_tol = 10 * max(tol, solution.residual, 1e-12)
    found = decide_modes(
        problem, solution.x, mode_tol, compiled, point.forces, point.accelerations, F, solution.residual_scale
    )
    layout = layout_of(problem)
    kinematic = layout.per_contact(point.accelerations)
    if problem.assembly.quasistatic:  # the rows' unknowns are velocities; no acceleration
        velocities, kinematic = kinematic, [[0.0] * len(a) for a in kinematic]
        solution.extras["quasistatic"] = True
    else:
        velocities = [None] * len(kinematic)
    solution.contacts.extend(
        [
            ContactResult(name, p[0], f, a, p[3], p[1], p[2] or v.degenerate, list(v.decided_by), vel)
            for name, p, v, f, a, vel in zip(
                found.names,
                found.physical,
                found.verdicts,
                layout.per_contact(point.forces),
                kinematic,
                velocities,
            )
        ]
    )
    solution.bodies.extend(point.motion.bodies)
    solution.joints.extend(point.motion.joints)
    solution.checks.update(point.checks)
