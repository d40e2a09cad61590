"""Other statements of a contact problem, tried by :func:`contactmodel.solve` when ``newton`` did not
solve the one it was given.

One physical problem has several MCPs: the reduced or the sparse form (see
:mod:`contactmodel.formulation`), and each rolling :class:`~contactmodel.CoulombCone` contact as a
second-order-cone block or as the MNCP of Trinkle et al. (1997) (see
:mod:`contactmodel.friction.cone`). Their solutions are the same forces and accelerations, but a
semismooth Newton method can converge on one and stall on another (other merit function, other
conditioning). On the 2,100 random scenes of ``benchmarks/fuzz_run.py`` (seed 1, scenes 0-2099)
newton left 38 unsolved; of the 25 of them that ``cm.decide`` did not prove unsolvable, the
routes below solved 12.

:func:`retry_other_statements` tries the routes of :func:`alternatives` in order until one is
solved: the other form; the cone contacts in the other cone form; both changed. Each route is a
:class:`~contactmodel.reductions.Chain` (:class:`~contactmodel.reductions.FormSwitch`,
:class:`~contactmodel.reductions.ConeFormSwitch`): a new problem formulated from the same assembly,
solved from the default starting point. The answer kept is the best (solved before
solved-inaccurate, then the smaller residual); its ``x`` is carried back to the caller's variable
order by its route's ``invert``, its ``cone_form`` is the form that ran, its message and
``extras["fallback"]`` say which route solved it and what the others ended with,
``extras["reductions"]`` lists the route's reductions, and ``iterations`` and ``seconds`` add up
every run. An answer no route improves is returned as it was, its message naming the routes tried.

:func:`retry_unloaded` is the try before them (and after them, on a solved-inaccurate answer they
give): an answer solved-inaccurate (or failed, with its MCP solved) because a law's rows are
degenerate at c_n = 0 (friction left ~sqrt of the MCP residual at unloaded contacts) is solved
again with those contacts frictionless
(:class:`~contactmodel.reductions.Unloaded`) from its own forces, then once more as stated from
that answer. On the 3,000 scenes of ``benchmarks/fuzz_run.py --max-boxes 6 --torsion`` (seed 1)
it solves most of the 59 answers newton left solved-inaccurate.

:func:`lcp_start` is the start of newton's try after the other statements: the answer of the
problem's LCP surrogate (the pyramid of each round law), from which newton reaches answers its
merit function misses from the default start (contacts loaded where the answer has them
separated).

:func:`friction_continuation` is the start of newton's last rung: the problem solved with every
friction coefficient scaled down (:data:`CONTINUATION`) and raised step by step, each stage from
the answer of the one before, the last one's forces lifted to the problem as stated.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from contactmodel import solvers
from contactmodel.constants import Form
from contactmodel.errors import ContactModelError
from contactmodel.formulation import Problem
from contactmodel.friction.base import FrictionLaw
from contactmodel.friction.frictionless import Frictionless
from contactmodel.reductions import Chain, ConeFormSwitch, FormSwitch, Unloaded
from contactmodel.solution import Solution
from contactmodel.solvers.base import Status

#: the largest number of contact rows for which the reduced form (dense m x m Delassus matrix) is
#: built as a fallback of the sparse one
MAX_REDUCED_ROWS = 2000

_RANK = {Status.SOLVED: 0, Status.SOLVED_INACCURATE: 1}

#: the most contact rows for which :func:`lcp_start` solves the problem's LCP surrogate (Lemke's
#: method: a dense tableau, cubic work)
LCP_START_ROWS = 500

#: the fractions of each law's friction coefficient at which :func:`friction_continuation` solves a
#: problem on its way to the problem as stated, each stage from the answer of the one before
CONTINUATION = (0.2, 0.4, 0.6, 0.8)

#: the most contact rows for which :func:`friction_continuation` runs: its four stages are four
#: more solves of the whole problem, which on a large pile's failing step cost tens of seconds
#: before the step gives up (the fuzz scenes it rescues, at most 6 bodies of 8 contacts, have
#: under 200 rows)
CONTINUATION_ROWS = 500

#: a contact of a solved-inaccurate answer counts as unloaded (:func:`retry_unloaded`) when its
#: normal force is at most this fraction of the problem's residual scale (||q||_inf)
UNLOADED_NORMAL = 1e-3


def alternatives(problem: Problem) -> list[Chain]:
    """The routes :func:`retry_other_statements` tries, in order: each a :class:`Chain` of
    reductions (:mod:`contactmodel.reductions`) stating ``problem`` otherwise (not applied yet;
    its ``label`` names the route)."""
    other = Form.SPARSE if Form(problem.form) is Form.REDUCED else Form.REDUCED
    routes: list[Chain] = []
    quasistatic = problem.assembly.quasistatic  # the sparse form is its only form
    if not quasistatic and (other is Form.SPARSE or problem.assembly.m <= MAX_REDUCED_ROWS):
        routes.append(Chain([FormSwitch(other)]))
    laws = problem.laws.values()
    to_mncp = any(law.restated("mncp") is not None for law in laws)  # contacts in the SOC form
    if to_mncp or any(law.restated("soc") is not None for law in laws):
        cone = "mncp" if to_mncp else "soc"
        routes.append(Chain([ConeFormSwitch(cone)]))
        if len(routes) == 2:
            routes.append(Chain([FormSwitch(other), ConeFormSwitch(cone)]))
    return routes


def better_answer(new: Solution, old: Solution) -> bool:
    """Whether ``new`` is a better answer than ``old``: a better status, or as good and closer."""
    rank_new, rank_old = _RANK.get(new.status, 2), _RANK.get(old.status, 2)
    if rank_new != rank_old:
        return rank_new < rank_old
    return rank_new == 1 and worst_residual(new) < worst_residual(old)


def worst_residual(sol: Solution) -> float:
    """The larger of an answer's MCP residual and its laws' residual (both relative): the
    number its status was decided on."""
    return max(sol.residual, sol.checks.get("law_residual", 0.0))


def worth_retrying(solution: Solution, solver: str, tolerance: float = 0.0) -> bool:
    """Whether ``solution`` of ``solver`` is retried in the problem's other statements: a solver
    whose registry row says so (``SolverInfo.retry_statements``), and an answer neither solved,
    nor certified infeasible, nor solved-inaccurate within ``tolerance`` (relative,
    :func:`worst_residual`; a simulation's ``step_tol``)."""
    info = solvers.REGISTRY.get(solver)
    if info is None or not info.retry_statements:
        return False
    if solution.status in (Status.SOLVED, Status.INFEASIBLE_CERTIFIED):
        return False
    return not (solution.status is Status.SOLVED_INACCURATE and worst_residual(solution) <= tolerance)


def _same_rows(problem: Problem, twin: Problem) -> bool:
    """Whether ``twin`` states nothing new: the same form and no rolling cone contact (only a
    rolling CoulombCone or AnisotropicCone contact differs between the cone forms; a sliding one
    has the same rows in both)."""
    if twin is problem:
        return True
    if twin.form != problem.form:
        return False
    soc = problem if any(law.restated("mncp") is not None for law in problem.laws.values()) else twin
    return soc.compile().mcp.cones is None


def retry_other_statements(
    problem: Problem, first: Solution, solve_one: Callable[[Problem], Solution]
) -> Solution:
    """The best answer of ``first`` (``problem`` solved as stated) and of the routes of
    :func:`alternatives`, each solved by ``solve_one`` until one is solved (see the module
    docstring). The answer's ``x`` is in ``problem``'s variable order."""
    tried: list[str] = []
    best, best_route = first, None
    runs = [first]
    for route in alternatives(problem):
        try:
            twin = route.apply(problem)
        except ContactModelError as err:  # e.g. a problem with no sparse form
            tried.append(f"{route.label}: not formulated ({err})")
            continue
        if _same_rows(problem, twin):
            continue
        sol = solve_one(twin)
        runs.append(sol)
        tried.append(f"{route.label}: {sol.status.value}")
        if better_answer(sol, best):
            best, best_route = sol, route
        if best.status is Status.SOLVED:
            break
    if not tried:
        return first
    iterations = sum(r.iterations for r in runs)
    seconds = sum(r.seconds for r in runs)
    if best_route is None:
        first.message += "; other statements tried: " + "; ".join(tried)
        first.extras["fallback"] = {"tried": tried, "solved_by": None}
        first.iterations, first.seconds = iterations, seconds
        return first
    if best.x is not None:
        best.x = best_route.invert(best.x)
    best.message = (
        f"{best.status.value} {best_route.label} after {first.solver} ended {first.status.value} on the "
        f"problem as stated ({first.message})" + (f"; {best.message}" if best.message else "")
    )
    best.extras["fallback"] = {
        "tried": tried,
        "solved_by": best_route.label,
        "first_status": first.status.value,
    }
    best.extras["reductions"] = [r.label for r in best_route.applied] + best.extras.get("reductions", [])
    best.iterations, best.seconds = iterations, seconds
    return best


def unloaded_contacts(problem: Problem, solution: Solution, tol: float) -> list[str]:
    """The contacts of an answer with friction where the law allows none: c_n at most
    :data:`UNLOADED_NORMAL` and a friction component above ``tol`` (both relative to the
    answer's residual scale), under a law with friction. The forces are the answer's contact
    results, or, for an answer not accepted (which has none), read at its point ``x``."""
    scale = solution.residual_scale or 1.0
    laws = problem.laws
    if solution.contacts or solution.x is None:
        forces = [(c.name, c.force) for c in solution.contacts]
    else:
        layout = problem.layout
        forces = list(zip(layout.names, layout.per_contact(problem.interpret(solution.x).forces)))
    return [
        name
        for name, force in forces
        if not isinstance(laws.get(name), Frictionless)
        and len(force) > 1
        and force[0] <= UNLOADED_NORMAL * scale
        and max(abs(f) for f in force[1:]) > tol * scale
    ]


def _laws_alone(solution: Solution, tol: float) -> bool:
    """An answer left unaccepted by its laws' residual alone: failed with an MCP residual within
    ``tol`` (the degenerate rows of :func:`retry_unloaded` can leave the laws' residual past the
    solved-inaccurate bound while the MCP is solved)."""
    return solution.status is Status.FAILED and solution.x is not None and solution.residual <= tol


def retry_unloaded(
    problem: Problem, solution: Solution, tol: float, solve_one: Callable[[Problem, np.ndarray], Solution]
) -> Solution:
    """``solution``, or the answer found through the problem with its :func:`unloaded_contacts`
    frictionless (:class:`~contactmodel.reductions.Unloaded`) when that answer is solved.

    A law's rows degenerate at c_n = 0 (the quadratic slack of the soft-finger and cone MNCPs:
    s = mu^2 c_n^2 - |f|^2 >= 0, f lambda = ...) leave a Newton method's friction there ~sqrt of
    its MCP residual, so the answer is solved-inaccurate by the laws' residual alone. The
    frictionless problem is solved by ``solve_one(twin, x0)`` from the answer's forces; its
    answer, carried back, is solved again as stated by ``solve_one(problem, x0)`` from there, so
    the verdict is the dispatcher's on the problem itself (an answer with c_n > 0 at an unloaded
    contact fails the laws' check there). Applies to solved-inaccurate answers, and to failed
    ones whose MCP residual is within ``tol`` (:func:`_laws_alone`)."""
    inaccurate = solution.status is Status.SOLVED_INACCURATE and solution.x is not None
    if not (inaccurate or _laws_alone(solution, tol)):
        return solution
    names = unloaded_contacts(problem, solution, tol)
    if not names:
        return solution
    route = Unloaded(names)
    twin = route.apply(problem)
    first = solve_one(twin, route.forward(solution.x))
    if first.status is not Status.SOLVED:
        solution.message += f"; tried {route.label}: {first.status.value}"
        return counted(solution, first)
    again = solve_one(problem, route.invert(first.x))
    if again.status is not Status.SOLVED:
        solution.message += f"; tried {route.label}: solved there, {again.status.value} as stated"
        return counted(solution, first, again)
    return adopt(again, solution, route.label, route.label, f"{route.label}: solved", runs=(first,))


def adopt(
    retry: Solution, solution: Solution, how: str, solved_by: str, tried: str = "", runs: tuple = ()
) -> Solution:
    """``retry`` (obtained ``how``) as the answer in place of ``solution``: its message and
    ``extras["fallback"]`` (the routes tried, ``tried`` appended; ``solved_by``; the first
    status) say so, and the iterations and seconds of ``solution`` and of the other ``runs`` that
    led to it are added to its own."""
    retry.message = (
        f"{retry.status.value} {how} after {solution.solver} ended {solution.status.value} "
        f"({solution.message})" + (f"; {retry.message}" if retry.message else "")
    )
    fallback = dict(solution.extras.get("fallback", {}))
    fallback["tried"] = [*fallback.get("tried", []), *([tried] if tried else [])]
    fallback["solved_by"] = solved_by
    fallback.setdefault("first_status", solution.status.value)
    retry.extras["fallback"] = fallback
    return counted(retry, solution, *runs)


def counted(solution: Solution, *runs: Solution) -> Solution:
    """``solution`` with the iterations and seconds of ``runs`` added to its own (every run of a
    retry counts toward the answer's cost)."""
    for run in runs:
        solution.iterations += run.iterations
        solution.seconds += run.seconds
    return solution


def lcp_start(problem: Problem, solve_lcp: Callable[[Problem], Solution]) -> np.ndarray | None:
    """A start for ``problem`` (its MCP's variable order): the answer of its LCP surrogate, each
    law replaced by its friction set's ``lcp_law`` (a Coulomb cone or a soft-finger ellipsoid by
    the pyramid of the same mu; a polyhedral law is its own) in the reduced form, solved by
    ``solve_lcp`` (Lemke's method), its forces lifted by the problem's laws. None for a
    quasistatic problem, one above :data:`LCP_START_ROWS` rows, or a surrogate ``solve_lcp`` does
    not solve.

    The surrogate's answer tells which contacts are loaded, rolling or separated; from a start
    that agrees, newton reaches answers of soft-finger scenes where its merit function stalls at a
    local minimum from the default start (fuzz scenes of ``benchmarks/fuzz_run.py --max-boxes 6
    --torsion``)."""
    if problem.assembly.quasistatic or problem.assembly.m > LCP_START_ROWS:
        return None
    laws = {}
    for name, law in problem.laws.items():
        surrogate = law.friction_set().lcp_law if law.describes_set else None
        laws[name] = surrogate or law
    try:
        surrogate_problem = problem.reformulate(friction=laws, form=Form.REDUCED)
        answer = solve_lcp(surrogate_problem)
    except ContactModelError:  # e.g. a law whose rows are not an LCP
        return None
    if answer.status is not Status.SOLVED:
        return None
    return problem.point_at(surrogate_problem.interpret(answer.x).forces)


def with_friction_scaled(problem: Problem, factor: float) -> Problem:
    """``problem`` with every law's friction coefficients multiplied by ``factor``
    (:meth:`~contactmodel.friction.base.FrictionLaw.scaled`; a law without friction, e.g.
    Frictionless, as it is); the same assembly and form."""
    scaled: dict[int, FrictionLaw] = {}
    laws = {}
    for name, law in problem.laws.items():
        if id(law) not in scaled:
            scaled[id(law)] = law.scaled(factor)
        laws[name] = scaled[id(law)]
    return problem.reformulate(friction=laws)


def friction_continuation(
    problem: Problem, solve_from: Callable[[Problem, np.ndarray | None], Solution]
) -> tuple[np.ndarray | None, list[Solution]]:
    """(a start for ``problem``, the runs made): ``problem`` with its friction coefficients
    scaled by each fraction of :data:`CONTINUATION` in turn (:func:`with_friction_scaled`), each
    stage solved by ``solve_from(stage, x0)`` from the forces of the stage before (the first
    from the solver's own start), the last stage's forces lifted to ``problem`` (its MCP's
    variable order). The start is None, and nothing runs, for a quasistatic problem (its forces do
    not fix its velocities) and one above :data:`CONTINUATION_ROWS` rows; it is None when a
    stage's answer is not accepted (``ok``).

    Small friction is closer to the frictionless problem, whose merit newton descends to its
    solution; the answers then move with mu, and each stage starts near its own (soft-finger fuzz
    scenes of ``benchmarks/fuzz_run.py --max-boxes 6 --torsion`` where every other start stalls)."""
    runs: list[Solution] = []
    if problem.assembly.quasistatic or problem.assembly.m > CONTINUATION_ROWS:
        return None, runs
    before: tuple[Problem, Solution] | None = None
    for factor in CONTINUATION:
        stage = with_friction_scaled(problem, factor)
        x0 = None if before is None else stage.point_at(before[0].interpret(before[1].x).forces)
        answer = solve_from(stage, x0)
        runs.append(answer)
        if not answer.ok or answer.x is None:
            return None, runs
        before = (stage, answer)
    assert before is not None
    return problem.point_at(before[0].interpret(before[1].x).forces), runs
