"""Contact modes of a solved contact: separate, roll, slide (with direction), approach.

Two views, as in Berard et al. (2004):

- physical: from a contact's force c = (n, t, o[, r]) and relative acceleration a (same frame)
  (:func:`contact_modes`, used by the dispatcher for every Solution; :func:`classify` for one
  contact from its vectors alone);
- LCP: a *sign pattern* chooses, for each complementarity pair ``contact[NAME].pairs[key]`` of a
  polyhedral law, which side may be positive: ``"1"`` the law's variable, ``"0"`` the
  expression (the law's :meth:`~contactmodel.friction.sets.FrictionSet.pattern_label` names each
  pattern; :func:`contact_modes` reads the pattern of a solved point and says which pairs decided
  the mode).

Pyramid directions are written ``+t-o`` (sign of the sliding acceleration along t and o); a
slide along one axis only (force on a face of the pyramid, not at a vertex) is degenerate: the
transition between two quadrants (Berard et al. (2004) §VI-A). Polygonal(k) directions are ``d3`` (force
along -a at friction direction 3, a non-degenerate slide) or ``d3|d4`` (between two directions:
degenerate).

References:

- S. Berard, K. Egan and J. C. Trinkle, "Contact modes and complementary cones", ICRA 2004.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

import numpy as np

from contactmodel.mcp.compile import _split

if TYPE_CHECKING:  # annotations only: these modules import this one (through the friction laws)
    from contactmodel.formulation import Problem
    from contactmodel.friction.sets import FrictionSet
    from contactmodel.mcp.compile import CompiledMCP


class Mode(StrEnum):
    """The kind of a contact's mode; its value is the word printed in tables and JSON."""

    SEPARATE = "separate"
    ROLL = "roll"
    SLIDE = "slide"
    APPROACH = "approach"


MODES = tuple(Mode)


@dataclass(frozen=True)
class PatternLabel:
    """What a sign pattern of one contact means.

    ``mode`` is a :class:`Mode`; ``label`` names it (``"slide +t-o"``, ``"slide d2|d3"``...);
    ``consistent`` is False when the pattern contradicts itself on its face (e.g. sliding both
    ways along one axis while rolling along the other) - such a pattern is always infeasible;
    ``degenerate`` marks the boundary cases of Berard et al. (2004) (single-axis pyramid slides,
    two-direction polygonal slides, and ``"slide (no friction force)"``, feasible only at
    mu = 0).
    """

    mode: Mode
    label: str
    degenerate: bool = False
    consistent: bool = True


def _eps(force, accel, tol: float) -> float:
    return tol * max(
        1.0, float(np.max(np.abs(force), initial=0.0)), float(np.max(np.abs(accel), initial=0.0))
    )


# -- complementarity pairs of a contact ------------------------------------------------------
@dataclass
class Pair:
    """One complementarity pair of the compiled MCP: ``contact[NAME].pairs[key]``."""

    contact: str
    key: str
    index: int  # MCP index (variable and row)
    var: object = field(repr=False)  # the Pyomo variable

    @property
    def variable(self) -> str:
        """The Pyomo variable's name (computed on use: Pyomo names are slow to build)."""
        return self.var.name


def pairs_of(problem: Problem, compiled: CompiledMCP | None = None) -> list[Pair]:
    """Every complementarity pair of the problem's compiled MCP (``compiled``, default
    ``problem.compile()``), contact by contact; found once per compilation."""
    compiled = problem.compile() if compiled is None else compiled
    if "pairs" not in compiled.derived:
        compiled.derived["pairs"] = _find_pairs(problem, compiled)
    return list(compiled.derived["pairs"])


def _find_pairs(problem: Problem, compiled: CompiledMCP) -> list[Pair]:
    position = {id(v): i for i, v in enumerate(compiled.variables)}
    out: list[Pair] = []
    for name in problem.contact_names:
        blk = problem.block(name)
        comp = blk.component("pairs")
        if comp is None:
            continue
        for key in comp:
            var = _split(comp[key])[0]
            out.append(Pair(name, str(key), position[id(var)], var))
    return out


# -- modes of a solved point -------------------------------------------------------------------
@dataclass
class ContactMode:
    """The mode of one contact at a solved point.

    ``pairs`` maps each complementarity pair key (``contact[NAME].pairs[key]``) to its state:
    ``"var>0"`` (the law's variable positive, its expression zero), ``"expr>0"``, ``"both=0"``
    (weak complementarity: a degenerate pair), ``"equation"`` (a satisfied equation row) or
    ``"violated"``; ``decided_by`` lists the
    strictly complementary pairs the mode rests on (``normal`` first).
    ``direction`` is the unit sliding direction in (t, o); ``index`` the pyramid quadrant
    (``"+t-o"``) or the polygon direction(s) (``"d3"``, ``"d3|d4"``); ``pattern`` the sign
    pattern (``"1"``/``"0"`` per pair, ``"*"`` for a both-zero pair) for LCP laws.
    """

    contact: str
    mode: Mode
    label: str
    degenerate: bool = False
    direction: list[float] | None = None
    index: str | None = None
    pattern: str | None = None
    pairs: dict[str, str] = field(default_factory=dict)
    decided_by: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def contact_modes(
    problem, solution, tol: float = 1e-7, compiled=None, forces: np.ndarray | None = None
) -> dict[str, ContactMode]:
    """Mode of every contact of ``solution`` (a Solution of ``problem``, or its MCP point x);
    ``compiled`` is the problem's compiled MCP and ``forces`` the contact forces c at x when the
    caller has them (default: compile, and read c from the model at x).

    Tolerances are relative to the largest force/acceleration of the contact.
    """
    x = np.asarray(solution.x if hasattr(solution, "x") else solution, dtype=float)
    compiled = problem.compile() if compiled is None else compiled
    mcp = compiled.mcp
    F = mcp.F(x)
    asm = problem.assembly
    if forces is None:
        compiled.load(x)
        forces = problem.force_vector()
    c = np.asarray(forces, dtype=float)
    a = asm.contact_accelerations(c)
    sliding = set(asm.sliding)
    by_contact: dict[str, list] = {}
    for p in pairs_of(problem, compiled):
        by_contact.setdefault(p.contact, []).append(p)
    out: dict[str, ContactMode] = {}
    for name in problem.contact_names:
        rows = list(asm.contact_rows[name].values())
        force, accel = c[rows], a[rows]
        eps = _eps(force, accel, tol)
        fset = problem.laws[name].friction_set()
        states: dict[str, str] = {}
        for p in by_contact.get(name, []):
            i = p.index
            if np.isinf(mcp.lb[i]) and np.isinf(mcp.ub[i]):
                states[p.key] = "equation" if abs(F[i]) <= eps else "violated"
                continue
            v, f = x[i] - mcp.lb[i], F[i]
            if v > eps and abs(f) <= eps:
                states[p.key] = "var>0"
            elif f > eps and abs(v) <= eps:
                states[p.key] = "expr>0"
            elif abs(v) <= eps and abs(f) <= eps:
                states[p.key] = "both=0"
            else:
                states[p.key] = "violated"
        mode = _physical_mode(name, fset, force, accel, asm.v[rows], name in sliding, eps)
        mode.pairs = states
        _decide(mode, fset, name in sliding, states)
        out[name] = mode
    return out


def _physical_mode(
    name: str, fset: FrictionSet, force, accel, velocity, sliding: bool, eps: float
) -> ContactMode:
    cn, an = force[0], accel[0]
    tang = fset.tangential
    aT = accel[tang]
    if cn <= eps and an > eps:
        return ContactMode(name, Mode.SEPARATE, "separate")
    if sliding:
        v = velocity[1:3]
        n = np.linalg.norm(v)
        m = ContactMode(name, Mode.SLIDE, "slide", direction=(v / n).tolist() if n > 0 else None)
        if cn <= eps:
            m.degenerate = True
            m.notes.append("zero normal force and zero normal acceleration (grazing)")
        return m
    if np.linalg.norm(aT) > eps:
        full = np.zeros(2)
        full[: len(tang)] = aT
        direction = (full / np.linalg.norm(full)).tolist()
        m = ContactMode(name, Mode.SLIDE, "slide", direction=direction)
        named = fset.slide_index(aT, eps)
        if named is not None:
            m.index, notes = named
            m.label = f"slide {m.index}"
            m.degenerate = m.degenerate or bool(notes)
            m.notes += notes
        if cn <= eps:
            m.degenerate = True
            m.notes.append("zero normal force with zero normal acceleration (grazing)")
        return m
    m = ContactMode(name, Mode.ROLL, "roll")
    if cn <= eps:
        m.degenerate = True
        m.label = "roll (zero normal force)"
        m.notes.append("rolling with zero normal force")
    return m


def _decide(mode: ContactMode, fset: FrictionSet, sliding: bool, states: dict[str, str]) -> None:
    normal = states.get("normal")
    mode.decided_by = ["normal"] if normal else []
    if normal == "both=0":
        mode.degenerate = True
        mode.notes.append("pair 'normal' weakly complementary: c_n = a_n = 0")
    for key, s in states.items():
        if key != "normal" and s in ("var>0", "expr>0") and mode.mode is not Mode.SEPARATE:
            mode.decided_by.append(key)
        if s == "violated":
            mode.notes.append(f"pair '{key}' violated")
    weak = [k for k, s in states.items() if s == "both=0" and k != "normal"]
    spare = fset.spare_pairs(weak)
    if spare and mode.mode is Mode.ROLL:
        mode.notes.append(f"friction force uses fewer directions ({spare} have beta = 0)")
    weak = [k for k in weak if k not in spare]
    if weak and mode.mode is Mode.ROLL:
        mode.notes.append(f"friction at the boundary of its set (weak pairs {weak}): impending slip")
        mode.degenerate = True
    if sliding or not fset.lcp:
        return
    code = {"var>0": "1", "expr>0": "0", "both=0": "*"}
    mode.pattern = "".join(code.get(s, "!") for s in states.values())
    if set(mode.pattern) <= {"0", "1"}:
        lab = fset.pattern_label(sliding, list(states), mode.pattern)
        if lab.label != mode.label and not (lab.label == "maintain" and mode.mode in (Mode.ROLL, Mode.SLIDE)):
            mode.notes.append(f"sign pattern {mode.pattern} reads '{lab.label}'")


def classify(force, accel, velocity, sliding: bool, tol: float) -> tuple[str, list[float] | None]:
    """(mode, unit sliding direction in (t, o) or None) of one contact.

    ``force``, ``accel``, ``velocity`` are (n, t, o[, r]) in the contact frame; ``sliding`` says
    whether the contact was sliding initially. Positive normal acceleration with zero normal
    force separates; an initially sliding contact, or one whose tangential (or twisting)
    acceleration is nonzero, slides; otherwise it rolls. Rolling with zero normal force is
    named as the degenerate case it is.
    """
    force, accel, velocity = (np.asarray(v, dtype=float) for v in (force, accel, velocity))
    eps = tol * max(1.0, float(np.max(np.abs(force))), float(np.max(np.abs(accel))))
    if accel[0] > eps and force[0] <= eps:
        return "separate", None
    if sliding or np.linalg.norm(accel[1:]) > eps:
        moving = velocity[1:3] if sliding else accel[1:3]
        norm = np.linalg.norm(moving)
        return "slide", ((moving / norm).tolist() if norm > 0 else None)
    if force[0] <= eps:
        return "roll (zero normal force)", None
    return "roll", None
