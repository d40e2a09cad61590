"""Verification report of a Solution: residual per pair, friction-set membership, colinearity of
friction and sliding acceleration (Andreani et al. (2002) §4.2.3), Proposition 1 of Trinkle et al. (1997)
(a pyramid solution inside the Coulomb cone is a cone solution), and the contact modes.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contactmodel import validate
from contactmodel.analysis.lcp import pairs_of
from contactmodel.analysis.modes import ContactMode, contact_modes
from contactmodel.errors import ArgumentKindError
from contactmodel.formulation import Problem
from contactmodel.friction import CoulombCone
from contactmodel.mcp.types import natural_residual
from contactmodel.solution import Solution


@dataclass
class PairCheck:
    """One MCP row: ``kind`` is "complementarity" (bounded variable or cone block) or "equation"
    (free).

    ``residual`` = |x - mid(lb, x - F, ub)| (natural map; at cone blocks the fc3d one), absolute.
    """

    contact: str | None
    key: str
    variable: str
    kind: str
    value: float
    expression: float
    residual: float


@dataclass
class FrictionCheck:
    """Membership of a contact force in its law's friction set; ``excess`` > 0 is outside."""

    contact: str
    law: str
    excess: float
    inside: bool
    inside_cone: bool  # |c_T| <= mu c_n (the Coulomb cone), for comparison across laws


@dataclass
class Colinearity:
    """Angle (degrees) between -a_T (or -v_T at an initially sliding contact) and c_T."""

    contact: str
    reference: str  # "acceleration" or "velocity"
    angle: float


@dataclass
class Proposition1:
    """Trinkle et al. (1997) Proposition 1 on the pyramid contacts of a solution."""

    contacts: list[str]
    inside_cone: dict[str, bool]
    applicable: bool  # every pyramid contact's force lies in the Coulomb cone
    cone_residual: float | None  # relative natural residual in the cone model (None if n/a)
    holds: bool | None


@dataclass
class VerificationReport:
    """Everything :func:`verify` checked; ``ok`` when all residuals and sets pass ``tol``."""

    tol: float
    scale: float
    pairs: list[PairCheck] = field(default_factory=list)
    friction: list[FrictionCheck] = field(default_factory=list)
    colinearity: list[Colinearity] = field(default_factory=list)
    proposition1: Proposition1 | None = None
    modes: dict[str, ContactMode] = field(default_factory=dict)

    @property
    def max_complementarity(self) -> float:
        return max((p.residual for p in self.pairs if p.kind == "complementarity"), default=0.0)

    @property
    def max_equation(self) -> float:
        return max((p.residual for p in self.pairs if p.kind == "equation"), default=0.0)

    @property
    def ok(self) -> bool:
        bound = self.tol * self.scale
        return (
            self.max_complementarity <= bound
            and self.max_equation <= bound
            and all(f.inside for f in self.friction)
            and (self.proposition1 is None or self.proposition1.holds is not False)
        )

    def summary(self) -> str:
        bound = self.tol * self.scale
        lines = [
            f"verification: {'OK' if self.ok else 'FAILED'} (tolerance {bound:.2e} = {self.tol:g} x scale "
            f"{self.scale:.3g})",
            f"  complementarity residual max {self.max_complementarity:.3e}; "
            f"equation residual max {self.max_equation:.3e}",
        ]
        worst = sorted(self.pairs, key=lambda p: -p.residual)[:3]
        for p in worst:
            if p.residual > bound:
                lines.append(
                    f"  violated: {p.contact or '-'} {p.key} ({p.variable}) residual {p.residual:.3e}"
                )
        for f in self.friction:
            state = "inside" if f.inside else f"OUTSIDE by {f.excess:.3e}"
            cone = "" if f.law == "CoulombCone" else f"; Coulomb cone: {'in' if f.inside_cone else 'out'}"
            lines.append(f"  {f.contact}: {f.law} friction set {state}{cone}")
        for c in self.colinearity:
            ref = "v_T" if c.reference == "velocity" else "a_T"
            lines.append(f"  {c.contact}: angle(-{ref}, c_T) = {c.angle:.3g} deg")
        p1 = self.proposition1
        if p1 is not None:
            if not p1.applicable:
                out = [k for k, v in p1.inside_cone.items() if not v]
                lines.append(f"  Proposition 1: not applicable (pyramid forces outside the cone at {out})")
            else:
                lines.append(
                    f"  Proposition 1: inside the cone at {p1.contacts}; cone-model residual "
                    f"{p1.cone_residual:.3e} -> {'holds' if p1.holds else 'FAILS'}"
                )
        for name, m in self.modes.items():
            extra = f" [{m.index}]" if m.index else ""
            deg = " (degenerate)" if m.degenerate else ""
            lines.append(f"  {name}: {m.label}{extra}{deg}; decided by {m.decided_by}")
        return "\n".join(lines)


def friction_excess(law, force: np.ndarray, eps: float = 0.0) -> float:
    """How far the contact force (n, t, o[, r]) lies outside ``law``'s friction set (<= 0: inside)
    (:meth:`~contactmodel.friction.sets.FrictionSet.excess`)."""
    return law.friction_set().excess(force)


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    cos = float(u @ v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def require_problem(problem, caller: str, solution_first: bool = False) -> Problem:
    """``problem`` if it is a contact :class:`Problem`, else :class:`ArgumentKindError` saying what
    was given instead (a Solution in its place: the arguments are swapped)."""
    if isinstance(problem, Problem):
        return problem
    call = f"{caller}(solution, problem)" if solution_first else f"{caller}(problem, solution)"
    if isinstance(problem, Solution):
        raise ArgumentKindError(f"{caller} got a Solution where the Problem goes: call {call}")
    raise ArgumentKindError(
        f"{caller} needs a contact Problem (cm.formulate(system)) (got {type(problem).__name__}); call {call}"
    )


def solution_point(solution, problem: Problem, caller: str) -> np.ndarray:
    """The MCP point (n,) of ``solution`` (a :class:`Solution` or a point x) for ``problem``;
    :class:`ArgumentKindError` when the arguments are swapped, the solution is None or has no
    point, or it is a point of another problem (another size or other contacts)."""
    if isinstance(solution, Problem) and isinstance(problem, Solution):
        raise ArgumentKindError(
            f"{caller} got (problem, solution): the arguments are swapped; call {caller}(solution, problem)"
        )
    problem = require_problem(problem, caller, solution_first=True)
    if solution is None:
        raise ArgumentKindError(
            f"{caller} got solution=None: give the Solution cm.solve returned (or an MCP point x)"
        )
    if isinstance(solution, Solution):
        if solution.x is None:
            raise ArgumentKindError(
                f"{caller}: this Solution has no point (status {solution.status.value}): nothing to check"
            )
        theirs = {c.name for c in solution.contacts}
        if theirs and theirs != set(problem.contact_names):
            raise ArgumentKindError(
                f"{caller}: the solution is of another problem (its contacts {sorted(theirs)[:6]}, the "
                f"problem's {sorted(problem.contact_names)[:6]}); check it against the problem it solves"
            )
        solution = solution.x
    x = validate.real_array(solution, f"{caller}: solution x", ndim=1, error=ArgumentKindError)
    n = problem.compile().mcp.n
    if x.shape != (n,):
        raise ArgumentKindError(
            f"{caller}: the solution has {x.size} entries, this problem's MCP has {n}: it is a solution "
            "of another problem (or of this one in another form); check it against the problem it solves"
        )
    return x


def verify(solution, problem: Problem, tol: float = 1e-6) -> VerificationReport:
    """Check a Solution (or an MCP point x) of ``problem``; see :class:`VerificationReport`.

    Tolerances are relative: ``tol`` x max(1, |F(0)|_inf, |x|_inf).
    """
    x = solution_point(solution, problem, "cm.verify")
    compiled = problem.compile()
    mcp = compiled.mcp
    F = mcp.F(x)
    scale = max(
        1.0, float(np.abs(mcp.F(np.zeros(mcp.n))).max(initial=0.0)), float(np.abs(x).max(initial=0.0))
    )
    report = VerificationReport(tol=tol, scale=scale)
    where = {p.index: p for p in pairs_of(problem)}
    names = list(mcp.names)
    nat = np.abs(natural_residual(mcp, x))  # the fc3d natural map at cone blocks
    cone_rows = set(mcp.cones.index.ravel().tolist()) if mcp.cones is not None else set()
    for i in range(mcp.n):
        p = where.get(i)
        free = np.isinf(mcp.lb[i]) and np.isinf(mcp.ub[i]) and i not in cone_rows
        report.pairs.append(
            PairCheck(
                p.contact if p else None,
                p.key if p else names[i],
                names[i],
                "equation" if free else "complementarity",
                float(x[i]),
                float(F[i]),
                float(nat[i]),
            )
        )
    asm = problem.assembly
    nu = None
    if asm.quasistatic:  # the velocities are the point's own, not a function of the forces
        point = problem.interpret(x, compiled)
        c, a, nu = point.forces, point.accelerations, point.motion.nu_dot
    else:
        compiled.load(x)
        c = problem.force_vector()
        a = asm.contact_accelerations(c)
    eps = tol * scale
    sliding = set(asm.sliding)
    for name, law in problem.laws.items():
        rows = list(asm.contact_rows[name].values())
        force, accel = c[rows], a[rows]
        excess = friction_excess(law, force)
        in_cone = float(np.linalg.norm(force[1:3])) <= getattr(law, "mu", 0.0) * force[0] + eps
        report.friction.append(FrictionCheck(name, type(law).__name__, excess, excess <= eps, bool(in_cone)))
        cT = force[1:3]
        ref = asm.v[rows][1:3] if name in sliding else accel[1:3]
        if name in sliding or np.linalg.norm(ref) > eps:
            if np.linalg.norm(cT) > eps and np.linalg.norm(ref) > eps:
                kind = "velocity" if name in sliding else "acceleration"
                report.colinearity.append(Colinearity(name, kind, _angle(-ref, cT)))
    report.proposition1 = _proposition1(problem, c, eps, nu)
    report.modes = contact_modes(problem, x, tol=max(tol, 1e-9))
    return report


def _proposition1(problem: Problem, c: np.ndarray, eps: float, nu=None) -> Proposition1 | None:
    """Whether a polyhedral answer inside the cones solves the cone model (Trinkle et al. (1997)
    Proposition 1); ``nu`` a quasistatic problem's velocities, lifted with the forces c."""
    from contactmodel.solve import relative_residual

    asm = problem.assembly
    cone_mu = {n: law.friction_set().relaxes_cone for n, law in problem.laws.items() if n not in asm.sliding}
    round_laws = {n: CoulombCone(mu) for n, mu in cone_mu.items() if mu is not None}
    pyr = list(round_laws)
    if not pyr:
        return None
    inside = {}
    for name in pyr:
        rows = list(asm.contact_rows[name].values())
        f = c[rows]
        inside[name] = bool(np.linalg.norm(f[1:3]) <= round_laws[name].mu * f[0] + eps)
    if not all(inside.values()):
        return Proposition1(pyr, inside, False, None, None)
    cone = problem.reformulate(friction={**problem.laws, **round_laws})
    cone.load_forces(c, nu)
    compiled = cone.compile(refresh=True)
    residual = relative_residual(compiled.mcp, compiled.values())
    return Proposition1(pyr, inside, True, residual, residual <= max(eps, 1e-8))
