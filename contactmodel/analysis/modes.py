"""Contact modes: separate, roll, slide (with direction), approach; degenerate cases named.

Two views, as in seed 003:

- physical: from a contact's force c = (n, t, o[, r]) and relative acceleration a (same frame)
  (:func:`classify`, used by the dispatcher for every Solution);
- LCP: a *sign pattern* chooses, for each complementarity pair ``contact[NAME].pairs[key]`` of a
  polyhedral law, which side may be positive: ``"1"`` the law's variable, ``"0"`` the
  expression (:func:`pattern_label` names each pattern; :func:`contact_modes` reads the pattern
  of a solved point and says which pairs decided the mode).

Pyramid directions are written ``+t-o`` (sign of the sliding acceleration along t and o); a
slide along one axis only (force on a face of the pyramid, not at a vertex) is degenerate: the
transition between two quadrants (seed 003 §VI-A). Polygonal(k) directions are ``d3`` (force
along -a at friction direction 3, a non-degenerate slide) or ``d3|d4`` (between two directions:
degenerate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contactmodel.modes import MODES, PatternLabel, classify

__all__ = ["MODES", "ContactMode", "PatternLabel", "classify", "contact_modes", "pattern_label"]


def _eps(force, accel, tol: float) -> float:
    return tol * max(
        1.0, float(np.max(np.abs(force), initial=0.0)), float(np.max(np.abs(accel), initial=0.0))
    )


def pattern_label(law, sliding: bool, keys: list[str], bits: str) -> PatternLabel:
    """Name the sign pattern ``bits`` (one ``"1"``/``"0"`` per pair in ``keys``) of a contact
    (:meth:`~contactmodel.friction.sets.FrictionSet.pattern_label` of the law's set)."""
    return law.friction_set().pattern_label(sliding, keys, bits)


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
    mode: str
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
    from contactmodel.analysis.lcp import pairs_of

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


def _physical_mode(name, fset, force, accel, velocity, sliding: bool, eps: float) -> ContactMode:
    cn, an = force[0], accel[0]
    tang = fset.tangential
    aT = accel[tang]
    if cn <= eps and an > eps:
        return ContactMode(name, "separate", "separate")
    if sliding:
        v = velocity[1:3]
        n = np.linalg.norm(v)
        m = ContactMode(name, "slide", "slide", direction=(v / n).tolist() if n > 0 else None)
        if cn <= eps:
            m.degenerate = True
            m.notes.append("zero normal force and zero normal acceleration (grazing)")
        return m
    if np.linalg.norm(aT) > eps:
        full = np.zeros(2)
        full[: len(tang)] = aT
        direction = (full / np.linalg.norm(full)).tolist()
        m = ContactMode(name, "slide", "slide", direction=direction)
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
    m = ContactMode(name, "roll", "roll")
    if cn <= eps:
        m.degenerate = True
        m.label = "roll (zero normal force)"
        m.notes.append("rolling with zero normal force")
    return m


def _decide(mode: ContactMode, fset, sliding: bool, states: dict[str, str]) -> None:
    normal = states.get("normal")
    mode.decided_by = ["normal"] if normal else []
    if normal == "both=0":
        mode.degenerate = True
        mode.notes.append("pair 'normal' weakly complementary: c_n = a_n = 0")
    for key, s in states.items():
        if key != "normal" and s in ("var>0", "expr>0") and mode.mode != "separate":
            mode.decided_by.append(key)
        if s == "violated":
            mode.notes.append(f"pair '{key}' violated")
    weak = [k for k, s in states.items() if s == "both=0" and k != "normal"]
    spare = fset.spare_pairs(weak)
    if spare and mode.mode == "roll":
        mode.notes.append(f"friction force uses fewer directions ({spare} have beta = 0)")
    weak = [k for k in weak if k not in spare]
    if weak and mode.mode == "roll":
        mode.notes.append(f"friction at the boundary of its set (weak pairs {weak}): impending slip")
        mode.degenerate = True
    if sliding or not fset.lcp:
        return
    code = {"var>0": "1", "expr>0": "0", "both=0": "*"}
    mode.pattern = "".join(code.get(s, "!") for s in states.values())
    if set(mode.pattern) <= {"0", "1"}:
        lab = fset.pattern_label(sliding, list(states), mode.pattern)
        if lab.label != mode.label and not (lab.label == "maintain" and mode.mode in ("roll", "slide")):
            mode.notes.append(f"sign pattern {mode.pattern} reads '{lab.label}'")
