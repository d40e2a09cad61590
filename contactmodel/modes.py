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

import itertools
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from contactmodel.layout import Layout, layout_of
from contactmodel.mcp.types import Pair
from contactmodel.mode_labels import Mode

if TYPE_CHECKING:  # annotations only
    from contactmodel.assembly import ContactAssembly
    from contactmodel.friction.sets import FrictionSet
    from contactmodel.interfaces import ContactProblem as Problem
    from contactmodel.mcp.compiled import CompiledMCP


# -- complementarity pairs of a contact ------------------------------------------------------
def pairs_of(problem: Problem, compiled: CompiledMCP | None = None) -> list[Pair]:
    """Every complementarity pair of the problem's compiled MCP (``compiled``, default
    ``problem.compile()``), contact by contact; found once per compilation."""
    compiled = problem.compile() if compiled is None else compiled
    if "pairs" not in compiled.derived:
        compiled.derived["pairs"] = _find_pairs(problem, compiled)
    return list(compiled.derived["pairs"])


def _find_pairs(problem: Problem, compiled: CompiledMCP) -> list[Pair]:
    """The pairs' rows as the compiler of the built model recorded them (an entry it did not
    compile is split again, as the compiler would)."""
    from contactmodel.mcp.compile import split_pair  # a compilation of the model: Pyomo is loaded

    rows, variables = compiled.pair_rows, compiled.variables
    position = None
    out: list[Pair] = []
    for name in problem.contact_names:
        comp = problem.block(name).component("pairs")
        if comp is None:
            continue
        for key, cdata in comp.items():
            row = rows.get(id(cdata))
            if row is None:
                if position is None:
                    position = {id(v): i for i, v in enumerate(variables)}
                var = split_pair(cdata)[0]
                row = position[id(var)]
            out.append(Pair(name, str(key), row, variables))
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


_STATES = ("var>0", "expr>0", "both=0", "violated", "equation", "violated")
#: a pair's character in a sign pattern ("!" for a state with no sign: violated, equation)
_CODE = {"var>0": "1", "expr>0": "0", "both=0": "*", "violated": "!", "equation": "!"}


@dataclass
class _PairArrays:
    """The compiled pairs as arrays, contact by contact (pairs of contact j at
    ``bounds[j]:bounds[j + 1]``): MCP ``index``, lower bound ``lb``, ``equation`` (a free
    variable), the owning ``contact`` (layout position) and the ``keys``; ``shift`` (3 times each
    pair's position among its contact's pairs), ``widest`` (the most pairs of one contact) and
    ``starts``, ``stops`` (``bounds`` as arrays) pack a contact's pair states into one integer
    (see :func:`_groups`)."""

    index: np.ndarray
    lb: np.ndarray
    equation: np.ndarray
    contact: np.ndarray
    keys: list[tuple[str, ...]]  # per contact: its pairs' keys
    bounds: list[int]
    shift: np.ndarray
    widest: int
    starts: np.ndarray
    stops: np.ndarray


def _pair_arrays(problem: Problem, compiled: CompiledMCP, names: list[str]) -> _PairArrays:
    key = ("pair_arrays", tuple(names))
    found = compiled.derived.get(key)
    if found is None:
        pairs = pairs_of(problem, compiled)
        mcp = compiled.mcp
        index = np.array([p.index for p in pairs], dtype=np.int64)
        if pairs:
            where = {name: j for j, name in enumerate(names)}
            contact = np.array([where[p.contact] for p in pairs], dtype=np.int64)
        else:  # e.g. contacts that all roll in the SOC form: cone blocks, no pairs
            contact = np.zeros(0, dtype=np.int64)
        bounds = np.searchsorted(contact, np.arange(len(names) + 1)).tolist()
        every = [p.key for p in pairs]
        shared: dict[tuple, tuple] = {}  # equal key tuples shared (cheaper memo keys)
        keys = (
            [tuple(every[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])] if pairs else [()] * len(names)
        )
        found = _PairArrays(
            index=index,
            lb=mcp.lb[index],
            equation=np.isinf(mcp.lb[index]) & np.isinf(mcp.ub[index]),
            contact=contact,
            keys=[shared.setdefault(k, k) for k in keys],
            bounds=bounds,
            shift=3 * (np.arange(index.size, dtype=np.int64) - np.asarray(bounds, dtype=np.int64)[contact]),
            widest=int(np.max(np.diff(bounds), initial=0)),
            starts=np.array(bounds[:-1], dtype=np.int64),
            stops=np.array(bounds[1:], dtype=np.int64),
        )
        compiled.derived[key] = found
    return found


def _pair_codes(pa: _PairArrays, x: np.ndarray, F: np.ndarray, eps: np.ndarray) -> np.ndarray:
    """The state of every pair as its position in :data:`_STATES` (see :class:`ContactMode`)."""
    e = eps[pa.contact]
    v = x[pa.index] - pa.lb
    f = F[pa.index]
    v_zero, f_zero = np.abs(v) <= e, np.abs(f) <= e
    code = np.empty(pa.index.shape, dtype=np.int64)
    code.fill(3)  # violated
    code[v_zero & f_zero] = 2
    code[(f > e) & v_zero] = 1
    code[(v > e) & f_zero] = 0
    code[pa.equation] = np.where(f_zero[pa.equation], 4, 5)
    return code


def contact_modes(
    problem,
    solution,
    tol: float = 1e-7,
    compiled=None,
    forces: np.ndarray | None = None,
    accelerations: np.ndarray | None = None,
) -> dict[str, ContactMode]:
    """Mode of every contact of ``solution`` (a Solution of ``problem``, or its MCP point x);
    ``compiled`` is the problem's compiled MCP, ``forces`` the contact forces c at x and
    ``accelerations`` the contact accelerations a at c, when the caller has them (default:
    compile, read c from the model at x, a from the assembly).

    Tolerances are relative to the largest force/acceleration of the contact (at least the
    solution's ``residual_scale``, 1 for a bare point). The pairs' states
    and the physical modes are decided for all contacts at once (numpy), and the pairs' verdict
    once per distinct (law, mode, states); per contact only the result objects are made.
    """
    x = np.asarray(solution.x if hasattr(solution, "x") else solution, dtype=float)
    floor = getattr(solution, "residual_scale", 1.0)
    compiled = problem.compile() if compiled is None else compiled
    if forces is None and problem.assembly.quasistatic:  # velocities: the point's own
        point = problem.interpret(x, compiled)
        forces = point.forces
        accelerations = point.accelerations if accelerations is None else accelerations
    elif forces is None:
        compiled.load(x)
        forces = problem.force_vector()
    return {
        f.name: ContactMode(
            f.name,
            f.mode,
            f.label,
            f.degenerate,
            f.direction,
            f.index,
            f.verdict.pattern,
            dict(zip(f.keys, f.states)),
            list(f.verdict.decided_by),
            list(f.notes),
        )
        for f in found_modes(decide_modes(problem, x, tol, compiled, forces, accelerations, floor=floor))
    }


class Found(NamedTuple):
    """One contact's mode as :func:`decide_modes` decides it (the fields of :class:`ContactMode`;
    ``keys`` and ``states`` its pairs, ``verdict`` what they add)."""

    name: str
    mode: Mode
    label: str
    degenerate: bool
    direction: list[float] | None
    index: str | None
    notes: tuple[str, ...]
    keys: tuple[str, ...]
    states: tuple[str, ...]
    verdict: _Verdict


class Decided(NamedTuple):
    """Every contact's mode at a point, contact j at layout position j (``names[j]``):
    ``physical[j]`` its physical mode (:data:`_Physical`), ``verdicts[j]`` what its pairs add
    (:class:`_Verdict`); ``codes`` each pair's state (a position in :data:`_STATES`) and ``pairs``
    the pair arrays they belong to."""

    names: list[str]
    physical: list[_Physical]
    verdicts: list[_Verdict]
    codes: np.ndarray
    pairs: _PairArrays


def found_modes(d: Decided) -> list[Found]:
    """The modes ``d`` (see :func:`decide_modes`), one :class:`Found` per contact."""
    pa, states_all = d.pairs, [_STATES[k] for k in d.codes.tolist()]
    out: list[Found] = []
    for j, name in enumerate(d.names):
        kind, label, degenerate, direction, index, notes = d.physical[j]
        verdict = d.verdicts[j]
        out.append(
            Found(
                name,
                kind,
                label,
                degenerate or verdict.degenerate,
                direction,
                index,
                notes + verdict.notes if verdict.notes else notes,
                pa.keys[j],
                tuple(states_all[pa.bounds[j] : pa.bounds[j + 1]]),
                verdict,
            )
        )
    return out


def decide_modes(
    problem: Problem,
    x: np.ndarray,
    tol: float,
    compiled: CompiledMCP,
    forces: np.ndarray,
    accelerations: np.ndarray | None = None,
    F: np.ndarray | None = None,
    floor: float = 1.0,
) -> Decided:
    """Every contact's mode at the MCP point x with contact forces ``forces`` (m,) (see
    :func:`contact_modes`) as columns, for the dispatcher to make its results from. ``F``: the
    MCP's F(x), when the caller has it.

    The physical modes are decided with numpy (a sliding or slipping contact's direction contact
    by contact); ``tol`` is relative to the larger of ``floor`` (the problem's residual scale, see
    :attr:`~contactmodel.solution.Solution.residual_scale`) and the contact's largest force or
    acceleration. Contacts are grouped by (friction set, sliding, pair keys, mode, label, pair
    states), packed into one integer per contact, and the pairs' verdict is made once per group
    (and kept with the layout: the same few groups recur solve after solve)."""
    asm = problem.assembly
    c = np.asarray(forces, dtype=float)
    a = asm.contact_accelerations(c) if accelerations is None else np.asarray(accelerations, dtype=float)
    layout = layout_of(problem)
    names = layout.names
    eps = tol * np.maximum(floor, layout.per_contact_max(np.maximum(np.abs(c), np.abs(a))))
    pa = _pair_arrays(problem, compiled, names)
    codes = _pair_codes(pa, x, compiled.mcp.F(x) if F is None else F, eps)
    cn, an = c[layout.normal], a[layout.normal]
    sets = layout.friction_sets()
    separate = (cn <= eps) & (an > eps)
    grazing = cn <= eps
    at, ao = sets.tangential_components(a)
    slipping = ~separate & ~layout.sliding & (np.hypot(at, ao) > eps)
    label = np.where(grazing, 2, 1)  # a position in labels: the mode and label of each contact
    label[separate] = 0
    physical = list(map(_CONSTANT.__getitem__, label.tolist()))
    labels = dict(_CONSTANT_LABELS)
    moving = (~separate & (layout.sliding | slipping)).nonzero()[0]
    # sliding contacts, and slipping ones whose set names no slide: all "slide", decided at once
    found_at = _slides(at, ao, grazing, moving[slipping[moving] & ~sets.named[moving]])
    found_at.update(_sliding_modes(layout, asm, grazing, moving[layout.sliding[moving]]))
    if found_at:
        label[np.fromiter(found_at, dtype=np.int64, count=len(found_at))] = labels.setdefault(
            (Mode.SLIDE, "slide"), len(labels)
        )
        for j, found in found_at.items():
            physical[j] = found
    named = _named_slides(layout, a, grazing, eps, [j for j in moving.tolist() if j not in found_at])
    for j, found in named.items():
        physical[j] = found
        label[j] = labels.setdefault(found[:2], len(labels))
    groups, first = _groups(layout, pa, codes, label, len(labels))
    made = []
    for j in first:
        kind, text = physical[j][:2]
        sliding, fset, keys = bool(layout.sliding[j]), sets.fsets[j], pa.keys[j]
        states = tuple(_STATES[k] for k in codes[pa.bounds[j] : pa.bounds[j + 1]].tolist())
        memo = (id(fset), sliding, kind, text, keys, states)
        verdict = layout.verdicts.get(memo)
        if verdict is None:
            verdict = layout.verdicts[memo] = _verdict(kind, text, fset, sliding, sets.lcp[j], keys, states)
        made.append(verdict)
    verdicts = [made[0]] * len(names) if len(made) == 1 else list(map(made.__getitem__, groups))
    return Decided(names, physical, verdicts, codes, pa)


def _groups(
    layout: Layout, pa: _PairArrays, codes: np.ndarray, label: np.ndarray, nlabels: int
) -> tuple[list[int], list[int]]:
    """(group of each contact, first contact of each group): contacts in one group share their
    friction set, sliding flag, pair keys (the layout's ``signature``), mode and label
    (``label``, one of ``nlabels``) and pair states (``codes``, 3 bits a pair)."""
    signature, kinds = _signatures(layout, pa)
    if not len(layout.names):
        return [], []
    packed = np.zeros(codes.size + 1, dtype=np.int64)
    np.cumsum(codes << pa.shift, out=packed[1:])  # wraps; differences exact
    states = packed[pa.stops] - packed[pa.starts]
    shape = signature * nlabels + label
    if (kinds * nlabels).bit_length() + 3 * pa.widest <= 62:
        key = (shape << 3 * pa.widest) | states
        if len(key) > _FEW_CONTACTS:
            if (key == key[0]).all():
                return [0] * len(key), [0]
            _, first, groups = np.unique(key, return_index=True, return_inverse=True)
            return groups.tolist(), first.tolist()
        keys = key.tolist()  # a few contacts: Python's list beats numpy's per-call cost
        if keys.count(keys[0]) == len(keys):
            return [0] * len(keys), [0]
        return _first_seen(keys)
    seen: dict[tuple, int] = {}  # too many pairs to pack: grouped by (shape, pair codes)
    groups, first = [], []
    every, bounds = codes.tolist(), pa.bounds
    for j, s in enumerate(shape.tolist()):
        g = seen.setdefault((s, tuple(every[bounds[j] : bounds[j + 1]])), len(seen))
        if g == len(first):
            first.append(j)
        groups.append(g)
    return groups, first


#: up to this many contacts, :func:`_groups` numbers the groups in a dict (a few us) rather than
#: with ``np.unique`` (~10 us whatever the size); a contact's group is the same either way
_FEW_CONTACTS = 64


def _first_seen(keys: list) -> tuple[list[int], list[int]]:
    """(group of each entry, first entry of each group) of ``keys``, groups numbered by first
    appearance."""
    seen: dict = {}
    groups, first = [], []
    for j, k in enumerate(keys):
        g = seen.setdefault(k, len(seen))
        if g == len(first):
            first.append(j)
        groups.append(g)
    return groups, first


def _signatures(layout: Layout, pa: _PairArrays) -> tuple[np.ndarray, int]:
    """(nc,) each contact's (friction set, sliding flag, pair keys) as a number, and how many
    distinct ones there are; made once per layout and pair arrays."""
    kept = layout.mode_signatures
    if kept is None or kept[0] is not pa:
        sets = layout.friction_sets()
        fsets, keys = sets.fsets, pa.keys
        if (
            fsets
            and all(map(operator.is_, fsets, itertools.repeat(fsets[0])))
            and not layout.sliding.any()
            and keys.count(keys[0]) == len(keys)
        ):  # one set, no sliding contact, the same pair keys: one signature (most problems)
            kept = layout.mode_signatures = (pa, np.zeros(len(fsets), dtype=np.int64), 1)
            return kept[1], kept[2]
        seen: dict[tuple, int] = {}
        sliding = layout.sliding.tolist()
        numbers = [seen.setdefault((id(f), s, k), len(seen)) for f, s, k in zip(fsets, sliding, keys)]
        kept = layout.mode_signatures = (pa, np.array(numbers, dtype=np.int64), len(seen))
    return kept[1], kept[2]


#: a contact's physical mode: (mode, label, degenerate, direction, index, notes)
_Physical = tuple[Mode, str, bool, "list[float] | None", "str | None", tuple[str, ...]]
_SEPARATE: _Physical = (Mode.SEPARATE, "separate", False, None, None, ())
_ROLL: _Physical = (Mode.ROLL, "roll", False, None, None, ())
_ROLL_GRAZING: _Physical = (
    Mode.ROLL,
    "roll (zero normal force)",
    True,
    None,
    None,
    ("rolling with zero normal force",),
)
#: the physical modes decided without a direction, by their position (see :func:`decide_modes`)
_CONSTANT = (_SEPARATE, _ROLL, _ROLL_GRAZING)
_CONSTANT_LABELS = {p[:2]: k for k, p in enumerate(_CONSTANT)}


def _sliding_mode(velocity: np.ndarray, grazing: bool) -> _Physical:
    """An initially sliding contact slides along its tangential velocity (n, t, o[, r] given)."""
    v = velocity[1:3]
    n = np.linalg.norm(v)
    direction = (v / n).tolist() if n > 0 else None
    return Mode.SLIDE, "slide", grazing, direction, None, _SLIDING_GRAZING if grazing else ()


def _slides(at: np.ndarray, ao: np.ndarray, grazing: np.ndarray, which: np.ndarray) -> dict[int, _Physical]:
    """:func:`_slide` of the contacts ``which`` at once, each an initially rolling, slipping
    contact whose friction set names no slide (``slide_index`` None: the label is "slide"):
    contact -> its physical mode, the direction that of its tangential acceleration (``at``,
    ``ao``: every contact's, :meth:`~contactmodel.layout.SetArrays.tangential_components`)."""
    if not which.size:
        return {}
    full = np.empty((which.size, 2))  # (t, o) of each
    full[:, 0] = at[which]
    full[:, 1] = ao[which]
    norm = np.sqrt(full[:, 0] * full[:, 0] + full[:, 1] * full[:, 1])  # as np.linalg.norm of each
    directions = (full / norm[:, None]).tolist()
    return {
        j: (Mode.SLIDE, "slide", True, d, None, _GRAZING) if g else (Mode.SLIDE, "slide", False, d, None, ())
        for j, g, d in zip(which.tolist(), grazing[which].tolist(), directions)
    }


_GRAZING = ("zero normal force with zero normal acceleration (grazing)",)


def _sliding_modes(
    layout: Layout, asm: ContactAssembly, grazing: np.ndarray, which: np.ndarray
) -> dict[int, _Physical]:
    """:func:`_sliding_mode` of the initially sliding contacts ``which`` at once, by the
    assembly's relative velocities ``asm.v`` (m,) (read only when there are some: a product of
    G): contact -> its physical mode."""
    if not which.size:
        return {}
    v = asm.v
    start = layout.starts[which]
    vt, vo = v[layout.order[start + 1]], v[layout.order[start + 2]]
    norm = np.sqrt(vt * vt + vo * vo)  # as np.linalg.norm of each (t, o)
    moves = norm > 0
    safe = np.where(moves, norm, 1.0)
    directions = np.stack([vt / safe, vo / safe], axis=1).tolist()
    out = {}
    for j, g, m, d in zip(which.tolist(), grazing[which].tolist(), moves.tolist(), directions):
        out[j] = (Mode.SLIDE, "slide", g, d if m else None, None, _SLIDING_GRAZING if g else ())
    return out


_SLIDING_GRAZING = ("zero normal force and zero normal acceleration (grazing)",)


def _slide(fset: FrictionSet, aT: np.ndarray, grazing: bool, eps: float) -> _Physical:
    """A touching, initially rolling contact whose tangential acceleration ``aT`` (over
    ``fset.tangential``) exceeds ``eps``: it slides, in the direction of ``aT``."""
    full = np.zeros(2)
    full[: len(aT)] = aT
    direction = (full / np.linalg.norm(full)).tolist()
    named = fset.slide_index(aT, eps)
    return _slide_mode(direction, None if named is None else (named[0], tuple(named[1])), grazing)


def _slide_mode(
    direction: list[float], named: tuple[str, tuple[str, ...]] | None, grazing: bool
) -> _Physical:
    """The physical mode of a slide in ``direction`` named ``named`` (index, notes; None: not
    named) by its friction set."""
    label, index, degenerate, notes = "slide", None, False, ()
    if named is not None:
        index, notes = named
        label = f"slide {index}"
        degenerate = bool(notes)
    if grazing:
        degenerate = True
        notes += _GRAZING
    return Mode.SLIDE, label, degenerate, direction, index, notes


def _named_slides(
    layout: Layout, a: np.ndarray, grazing: np.ndarray, eps: np.ndarray, which: list[int]
) -> dict[int, _Physical]:
    """:func:`_slide` of the contacts ``which`` (initially rolling, slipping contacts whose friction
    sets name their slides), with each friction set's names made for its contacts at once
    (:meth:`~contactmodel.friction.sets.FrictionSet.slide_indices`): contact -> its physical
    mode, in the order of ``which``."""
    if not which:
        return {}
    sets = layout.friction_sets()
    if len(which) == 1:  # one slide: named alone (the arrays cost more than they save)
        (j,) = which
        aT = a[[layout.rows[j][i] for i in sets.tangential[j]]]
        return {j: _slide(sets.fsets[j], aT, bool(grazing[j]), float(eps[j]))}
    by_set: dict[int, list[int]] = {}
    for j in which:
        by_set.setdefault(id(sets.fsets[j]), []).append(j)
    found: dict[int, _Physical] = {}
    for members in by_set.values():
        fset = sets.fsets[members[0]]
        idx = np.array(members, dtype=np.int64)
        full = np.zeros((idx.size, 2))  # (t, o) of each, o = 0 where the law has no o friction
        full[:, 0] = a[sets.t_row[idx]]
        o = sets.o_row[idx]
        two = len(fset.tangential) > 1
        if two:
            full[:, 1] = a[o]
        named = fset.slide_indices(full if two else full[:, :1], eps[idx])
        norm = np.sqrt(full[:, 0] * full[:, 0] + full[:, 1] * full[:, 1])  # as np.linalg.norm of each
        directions = (full / norm[:, None]).tolist()
        for j, d, n, g in zip(members, directions, named, grazing[idx].tolist()):
            found[j] = _slide_mode(d, n, g)
    return found if len(by_set) == 1 else {j: found[j] for j in which}


@dataclass(frozen=True)
class _Verdict:
    """What a contact's pair states add to its physical mode (see :func:`_verdict`)."""

    decided_by: tuple[str, ...]
    notes: tuple[str, ...]
    degenerate: bool
    pattern: str | None


def _verdict(
    kind: Mode, label: str, fset: FrictionSet, sliding: bool, lcp: bool, keys: tuple, states: tuple
) -> _Verdict:
    """The pairs that decide a contact's mode (``kind``, ``label``), the degeneracy notes its pair
    ``states`` add, and its sign pattern (LCP laws at a rolling contact; None otherwise)."""
    st = dict(zip(keys, states))
    normal = st.get("normal")
    decided_by = ["normal"] if normal else []
    notes: list[str] = []
    degenerate = False
    if normal == "both=0":
        degenerate = True
        notes.append("pair 'normal' weakly complementary: c_n = a_n = 0")
    for key, s in st.items():
        if key != "normal" and s in ("var>0", "expr>0") and kind is not Mode.SEPARATE:
            decided_by.append(key)
        if s == "violated":
            notes.append(f"pair '{key}' violated")
    weak = [k for k, s in st.items() if s == "both=0" and k != "normal"]
    spare = fset.spare_pairs(weak) if weak else []
    if spare and kind is Mode.ROLL:
        notes.append(f"friction force uses fewer directions ({spare} have beta = 0)")
    weak = [k for k in weak if k not in spare]
    if weak and kind is Mode.ROLL:
        notes.append(f"friction at the boundary of its set (weak pairs {weak}): impending slip")
        degenerate = True
    pattern = None
    if not sliding and lcp:
        pattern = "".join(_CODE[s] for s in states)
        if "!" not in pattern and "*" not in pattern:
            lab = fset.pattern_label(sliding, list(keys), pattern)
            if lab.label != label and not (lab.label == "maintain" and kind in (Mode.ROLL, Mode.SLIDE)):
                notes.append(f"sign pattern {pattern} reads '{lab.label}'")
    return _Verdict(tuple(decided_by), tuple(notes), degenerate, pattern)


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
