"""contactmodel's solvers as Pyomo solvers: ``SolverFactory("cm_newton").solve(model)``.

Each solver of :data:`contactmodel.solvers.REGISTRY` except ``path`` (PATH itself) is registered
with Pyomo's :data:`pyomo.opt.SolverFactory` as ``cm_<name>``: ``cm_newton``, ``cm_lemke``,
``cm_fip``, ``cm_enumerate``, ``cm_ipopt`` (MNCPOpt / LCPOpt through cyipopt) and ``cm_scipy``.
A solve compiles the model's active ``pyomo.mpec`` Complementarity conditions
(:func:`contactmodel.mcp.compile.compile_model`; every pair shape it accepts, variable bounds
included), runs the solver through :func:`contactmodel.solve` (which verifies the answer itself),
loads the point into the model's variables and returns Pyomo ``SolverResults`` whose status and
termination condition come from the verified :class:`~contactmodel.solvers.base.Status`
(:data:`STATUS_MAP`).

Modelling rules: a Complementarity whose variable is fixed is left out together with its row (as
GAMS and PATH do with a fixed variable of an MCP); deactivated components are left out; the
model's current variable values are the starting point (projected onto the bounds). Refused, with
a :class:`~contactmodel.errors.FormulationError` naming the component: an active Objective, a
plain Constraint (no complementary variable), an unfixed integer or binary variable.

This module imports ``pyomo.opt`` only (it is registered while Pyomo is being imported, see
:mod:`contactmodel.pyomo_plugins`); the rest of the package is imported when a solve starts.
"""

from __future__ import annotations

import time
from typing import Any

from pyomo.opt import OptSolver, SolverFactory, SolverResults, SolverStatus, TerminationCondition

from contactmodel.errors import OptionError
from contactmodel.solvers import REGISTRY

#: ``cm.solve`` keywords a plugin also accepts among its options (the others are the solver's
#: options dataclass fields, checked by :func:`contactmodel.solvers.make_options`)
SOLVE_KEYWORDS = ("accept_tol", "blas_threads")

#: the project's verified Status (its value) -> (Pyomo SolverStatus, TerminationCondition).
#: ``optimal`` is the name Pyomo gives a complementarity solution found to tolerance (as PATH's
#: "solution found" reads through Pyomo), so ``pyomo.environ.check_optimal_termination`` accepts it.
STATUS_MAP: dict[str, tuple[SolverStatus, TerminationCondition]] = {
    "solved": (SolverStatus.ok, TerminationCondition.optimal),
    "solved-inaccurate": (SolverStatus.warning, TerminationCondition.other),
    "infeasible-certified": (SolverStatus.ok, TerminationCondition.infeasible),
    "iteration-limit": (SolverStatus.aborted, TerminationCondition.maxIterations),
    "time-limit": (SolverStatus.aborted, TerminationCondition.maxTimeLimit),
    "failed": (SolverStatus.error, TerminationCondition.solverFailure),
}

#: the solvers offered to Pyomo (PATH is reached through Pyomo's own interfaces)
PLUGGED = tuple(name for name in REGISTRY if name != "path")


class ContactModelSolver(OptSolver):
    """A project solver as a Pyomo (v1 API) solver; ``solver`` is its name in the registry.

    ``solve(model, tee=False, load_solutions=True, options=None)``; ``options`` (and the
    persistent ``self.options``) are the solver's options dataclass fields (e.g. ``tol``,
    ``max_iter``) plus ``accept_tol`` and ``blas_threads`` of :func:`contactmodel.solve`. The
    verified answer of the last solve is kept as :attr:`solution` (a
    :class:`~contactmodel.solution.Solution`). Pyomo's ``timelimit`` keyword is the ``time_limit``
    option (for the solvers that have one; the others refuse it by name).
    """

    solver: str = ""

    def __init__(self, **kwds: Any) -> None:
        kwds.setdefault("type", f"cm_{self.solver}")
        super().__init__(**kwds)
        self.solution = None

    def available(self, exception_flag: bool = True) -> bool:
        ok, why = REGISTRY[self.solver].available()
        if not ok and exception_flag:
            from pyomo.common.errors import ApplicationError

            raise ApplicationError(f"solver {self.name} is not available: {why}")
        return ok

    def license_is_valid(self) -> bool:
        return True

    def version(self) -> tuple[int, ...]:
        from contactmodel import __version__

        return tuple(int(p) for p in __version__.split(".")[:3] if p.isdigit())

    def warm_start_capable(self) -> bool:
        return True  # the model's variable values are the starting point

    def solve(self, *args: Any, **kwds: Any) -> SolverResults:
        """Solve the one model in ``args``; see the class docstring for the keywords."""
        if len(args) != 1:
            raise OptionError(f"{self.name}.solve takes one Pyomo model, got {len(args)} positional values")
        tee = bool(kwds.pop("tee", False))
        load = bool(kwds.pop("load_solutions", True))
        options = {**self.options, **(kwds.pop("options", None) or {})}
        kwds.pop("symbolic_solver_labels", None)  # names are always the model's own
        if "timelimit" in kwds:  # Pyomo's common keyword (seconds)
            options.setdefault("time_limit", kwds.pop("timelimit"))
        if kwds:
            raise OptionError(
                f"{self.name}.solve: unknown keyword(s) {sorted(kwds)}; give the solver's settings as "
                "options={...} (its options dataclass fields, accept_tol, blas_threads)"
            )
        self.available(exception_flag=True)
        return _solve(self, args[0], options, tee, load)


def _solve(plugin: ContactModelSolver, model, options: dict, tee: bool, load: bool) -> SolverResults:
    """Check, compile, solve (verified by :func:`contactmodel.solve`) and report ``model``."""
    from contactmodel.mcp.compile import compile_model
    from contactmodel.mcp.pyomo_checks import dropped_pairs, refuse_unsupported
    from contactmodel.solve import solve

    t0 = time.perf_counter()
    refuse_unsupported(model)
    dropped = dropped_pairs(model)
    for cdata in dropped:
        cdata.deactivate()
    try:
        compiled = compile_model(model)
    finally:
        for cdata in dropped:
            cdata.activate()
    keywords = {k: options.pop(k) for k in SOLVE_KEYWORDS if k in options}
    before = compiled.values()  # a nonlinear F writes its arguments into the variables
    solution = solve(compiled.mcp, solver=plugin.solver, **keywords, **options)
    wall = time.perf_counter() - t0
    plugin.solution = solution
    if solution.x is not None and load:
        compiled.load(solution.x)
    else:
        compiled.load(before)
    status, condition = STATUS_MAP[solution.status.value]
    if tee:
        print(
            f"{plugin.name}: {solution.status.value} after {solution.iterations} iterations, "
            f"relative residual {solution.residual:.3e}, {solution.seconds:.4f} s in the solver "
            f"({compiled.mcp.n} complementarity rows); {solution.message}"
        )
    results = SolverResults()
    results.solver.name = plugin.name
    results.solver.status = status
    results.solver.termination_condition = condition
    results.solver.message = (
        f"{solution.status.value} (relative residual {solution.residual:.3e}, verified by contactmodel) "
        f"after {solution.iterations} iterations; {solution.message}"
    )
    results.solver.termination_message = solution.message
    results.solver.wallclock_time = wall
    results.problem.name = model.name
    results.problem.number_of_variables = compiled.mcp.n
    results.problem.number_of_constraints = compiled.mcp.n
    results.problem.number_of_objectives = 0
    return results


def register() -> None:
    """Register ``cm_<name>`` with Pyomo's SolverFactory for each solver of :data:`PLUGGED`
    (again: a no-op)."""
    for name in PLUGGED:
        key = f"cm_{name}"
        if key in SolverFactory:
            continue
        cls = type(f"CM_{name}", (ContactModelSolver,), {"solver": name, "__doc__": _doc(name)})
        SolverFactory.register(key, doc=_doc(name))(cls)


def _doc(name: str) -> str:
    return f"contactmodel's {name}: {REGISTRY[name].description} (pyomo.mpec MCP models)"
