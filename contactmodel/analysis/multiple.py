"""All solutions of a contact problem (``cm.all_solutions``).

Small LCPs (polyhedral laws, reduced form, n <= ``max_n``): every complementary basis is
enumerated (:func:`contactmodel.solvers.enumerate.all_solutions`, 2^n bases); the result is
every basic solution (the vertices of the solution set when it is a continuum). Otherwise:
multistart, one solve per (starting point, solver setting) through :func:`contactmodel.solve`;
starting points are the default point, some solutions of the problem's polyhedral surrogate
(each round law replaced by ``Pyramid(mu)``; enumerated up to size 10, else solved by Lemke)
lifted with ``load_forces``, and random physical points (forces inside the friction sets).
Solutions are deduplicated (by default on modes and accelerations: the motion) and grouped by
contact-mode pattern.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from contactmodel.constants import Choice
from contactmodel.errors import ArgumentKindError, OptionError, SolverError
from contactmodel.formulation import Problem
from contactmodel.mcp.types import MCP
from contactmodel.solution import Solution


class SearchMethod(Choice):
    """``all_solutions(method=...)``: how the solutions are searched for."""

    AUTO = "auto"  # enumeration for LCPs of size <= max_n, else multistart
    ENUMERATE = "enumerate"  # every complementary basis (LCPs only)
    MULTISTART = "multistart"  # one solve per (starting point, solver setting)


class Distinct(Choice):
    """``all_solutions(distinct=...)``: what makes two solutions distinct."""

    MOTION = "motion"  # contact modes and accelerations (a continuum of forces counts once)
    FORCES = "forces"  # the forces too


#: multistart settings, each a (solver, options) pair tried from every starting point
SETTINGS: tuple[tuple[str, dict], ...] = (
    ("newton", {}),
    ("newton", {"merit": "penalized_fb", "regularize": "always"}),
    ("newton", {"feasible": False, "scale_rows": False}),
)


@dataclass
class SolutionSet:
    """Distinct solutions; ``groups`` maps a mode pattern (``"c0=roll; c1=slide +t"``) to the
    indices of its solutions; ``exhaustive`` is True for a complete basis enumeration (every
    basic solution; a continuum of solutions is represented by its vertices, merged when
    ``distinct="motion"``)."""

    solutions: list[Solution]
    groups: dict[str, list[int]] = field(default_factory=dict)
    merged: list[int] = field(default_factory=list)  # points found per solution (> 1: merged)
    method: str = ""
    exhaustive: bool = False
    attempts: int = 0
    seconds: float = 0.0

    def __len__(self) -> int:
        return len(self.solutions)

    def __iter__(self):
        return iter(self.solutions)

    def __getitem__(self, i: int) -> Solution:
        return self.solutions[i]

    def to_json(self) -> dict:
        """``{"solutions": [...]}``, each element the single-solution JSON object."""
        return {"solutions": [s.to_json() for s in self.solutions]}

    def summary(self) -> str:
        how = "complete enumeration" if self.exhaustive else f"multistart ({self.attempts} solves)"
        lines = [f"{len(self.solutions)} distinct solution(s) by {how} in {self.seconds:.2f} s"]
        for key, idx in self.groups.items():
            lines.append(f"  [{key}]: solutions {idx}")
        return "\n".join(lines)


def _fill(problem, x: np.ndarray, solver: str, tol: float) -> Solution:
    """A Solution at the point x, assessed exactly as the dispatcher assesses its own."""
    from contactmodel.solve import assess
    from contactmodel.solvers.base import Outcome, SolverResult

    target = problem.compile() if isinstance(problem, Problem) else problem
    return assess(target, SolverResult(x.copy(), Outcome.CONVERGED), solver, tol, problem=problem)


def _polish(problem, x: np.ndarray, tol: float, solver: str) -> Solution:
    """The Solution at an enumerated point; polished by newton from there if not accurate."""
    from contactmodel.solve import solve

    sol = _fill(problem, x, solver, tol)
    if sol.residual > tol:
        polished = solve(problem, solver="newton", x0=x, accept_tol=tol)
        if polished.ok:
            return polished
    return sol


def _physical_key(problem, sol: Solution, distinct: Distinct) -> np.ndarray:
    if isinstance(problem, Problem) and sol.contacts:
        if distinct is Distinct.MOTION:
            return np.concatenate([np.r_[_kinematic(c)] for c in sol.contacts])
        return np.concatenate([np.r_[c.force, _kinematic(c)] for c in sol.contacts])
    return np.asarray(sol.x, dtype=float)


def _kinematic(contact) -> list[float]:
    """A contact's unknown motion: its relative velocity in a quasistatic problem, else its
    relative acceleration."""
    return contact.acceleration if contact.velocity is None else contact.velocity


def _mode_key(sol: Solution) -> str:
    if not sol.contacts:
        return "z>0 at " + ",".join(str(i) for i in np.flatnonzero(np.asarray(sol.x) > 1e-9))
    return "; ".join(f"{c.name}={c.mode}" for c in sol.contacts)


def _detailed_modes(problem, sol: Solution) -> str:
    from contactmodel.analysis.modes import contact_modes

    try:
        modes = contact_modes(problem, sol)
    except Exception:  # noqa: BLE001
        return _mode_key(sol)
    return "; ".join(f"{n}={m.label}" for n, m in modes.items())


def _random_points(problem: Problem, count: int, rng: np.random.Generator) -> list[np.ndarray]:
    """MCP points lifted from random forces inside each contact's friction set."""
    asm = problem.assembly
    m = len(asm.rows)
    if asm.quasistatic:  # no A, b: the forces balance the applied loads
        scale = max(1.0, float(np.abs(asm.f).max(initial=0.0)))
    else:
        scale = max(
            1.0, float(np.abs(asm.b).max(initial=0.0)) / max(1e-12, float(np.abs(asm.A).max(initial=1.0)))
        )
    out = []
    for _ in range(count):
        c = np.zeros(m)
        for name, law in problem.laws.items():
            rows = list(asm.contact_rows[name].values())
            cn = scale * rng.exponential() * (rng.random() < 0.8)
            mu = getattr(law, "mu", 0.0)
            ang = rng.uniform(0, 2 * np.pi)
            rad = mu * cn * np.sqrt(rng.random())
            c[rows[0]] = cn
            if len(rows) > 2:
                c[rows[1]], c[rows[2]] = rad * np.cos(ang) / np.sqrt(2), rad * np.sin(ang) / np.sqrt(2)
        problem.load_forces(c)
        out.append(problem.compile().values())
    return out


def _surrogate_points(problem: Problem, max_n: int, count: int) -> list[np.ndarray]:
    """Points of ``problem`` lifted from the solutions of its pyramid surrogate."""
    from contactmodel.solve import solve
    from contactmodel.solvers.enumerate import all_solutions as enum_all

    laws = {n: law.friction_set().lcp_law or law for n, law in problem.laws.items()}
    try:
        form = problem.form if problem.assembly.quasistatic else "reduced"  # quasistatic: sparse only
        surrogate = problem.reformulate(friction=laws, form=form)
        mcp = surrogate.compile().mcp
    except Exception:  # noqa: BLE001
        return []
    if not mcp.is_lcp:
        return []
    if mcp.n <= max_n:
        points = enum_all(mcp.M.toarray(), mcp.q, 1e-9, max_lp=200)
        if len(points) > count:
            points = [points[i] for i in np.linspace(0, len(points) - 1, count).round().astype(int)]
    else:
        sol = solve(surrogate, solver="lemke")
        points = [sol.x] if sol.ok else []
    out = []
    for z in points:
        surrogate.compile().load(z)
        problem.load_forces(surrogate.force_vector())
        out.append(problem.compile().values())
    return out


def all_solutions(
    problem,
    tol: float = 1e-8,
    max_n: int = 12,
    method: SearchMethod | str = SearchMethod.AUTO,
    starts: int = 12,
    settings=SETTINGS,
    seed: int = 0,
    x0s=None,
    dedupe_tol: float = 1e-4,
    distinct: Distinct | str = Distinct.MOTION,
) -> SolutionSet:
    """Distinct solutions of a contact Problem (or an MCP such as ``cm.LCP(M, q)``).

    ``method``: ``"auto"`` (enumeration for LCPs of size <= ``max_n``, else multistart),
    ``"enumerate"`` or ``"multistart"``. Multistart uses ``starts`` random starting points
    besides the default and surrogate ones (and any ``x0s`` given), each solved with every
    (solver, options) of ``settings``. ``distinct="motion"`` merges solutions with the same
    contact modes and accelerations within ``dedupe_tol`` (relative), so a continuum of force
    solutions (e.g. a jammed, statically indeterminate system) counts once, with the number of
    merged points in ``SolutionSet.merged``; ``distinct="forces"`` also compares the forces.
    An unknown ``method`` or ``distinct`` raises :class:`~contactmodel.errors.OptionError`.
    """
    from contactmodel.solve import solve
    from contactmodel.solvers.enumerate import all_solutions as enum_all

    method = SearchMethod.parse(method, "all_solutions: method", OptionError)
    distinct = Distinct.parse(distinct, "all_solutions: distinct", OptionError)
    t0 = time.perf_counter()
    mcp = problem.compile().mcp if isinstance(problem, Problem) else problem
    if not isinstance(mcp, MCP):
        raise ArgumentKindError(
            f"all_solutions(problem=...) needs a contact Problem (cm.formulate) or an MCP such as "
            f"cm.LCP(M, q) (got {type(problem).__name__})"
        )
    use_enum = method is SearchMethod.ENUMERATE or (
        method is SearchMethod.AUTO and mcp.is_lcp and mcp.n <= max_n
    )
    found: list[Solution] = []
    attempts = 0
    if use_enum:
        if not mcp.is_lcp:
            raise SolverError(
                "all_solutions(method='enumerate') needs an LCP: use polyhedral laws (Pyramid, Planar, "
                "Polygonal, Frictionless) in the reduced form, or method='multistart'"
            )
        M = mcp.M.toarray() if hasattr(mcp.M, "toarray") else np.asarray(mcp.M)
        for z in enum_all(M, mcp.q, 1e-9):
            attempts += 1
            found.append(_polish(problem, np.asarray(z, dtype=float), tol, "enumerate"))
    else:
        rng = np.random.default_rng(seed)
        points = [np.asarray(mcp.x0 if mcp.x0 is not None else np.zeros(mcp.n), dtype=float).copy()]
        if isinstance(problem, Problem):
            points += _surrogate_points(problem, min(max_n, 10), max(starts, 1))
            points += _random_points(problem, starts, rng)
        else:
            points += [rng.exponential(size=mcp.n) * (rng.random(mcp.n) < 0.5) for _ in range(starts)]
        points += [np.asarray(x, dtype=float) for x in (x0s or [])]
        for x0 in points:
            for solver, options in settings:
                attempts += 1
                try:
                    sol = solve(problem, solver=solver, x0=x0, accept_tol=tol, **options)
                except Exception:  # noqa: BLE001
                    continue
                if sol.ok:
                    found.append(sol)
    out = SolutionSet([], method="enumeration" if use_enum else "multistart", exhaustive=use_enum)
    keys: list[tuple[str, np.ndarray]] = []
    for sol in found:
        if not sol.ok:
            continue
        key = _physical_key(problem, sol, distinct)
        mode = _mode_key(sol)
        scale = 1.0 + float(np.abs(key).max(initial=0.0))
        same = [
            i
            for i, (m, k) in enumerate(keys)
            if m == mode and k.shape == key.shape and np.abs(k - key).max() <= dedupe_tol * scale
        ]
        if same:
            out.merged[same[0]] += 1
            continue
        keys.append((mode, key))
        out.solutions.append(sol)
        out.merged.append(1)
    for i, sol in enumerate(out.solutions):
        key = _detailed_modes(problem, sol) if isinstance(problem, Problem) else _mode_key(sol)
        out.groups.setdefault(key, []).append(i)
    out.attempts = attempts
    out.seconds = time.perf_counter() - t0
    return out
