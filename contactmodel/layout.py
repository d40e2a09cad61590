"""Index arrays of a contact Problem, recorded once for the dispatcher's checks and modes.

A :class:`Layout` holds what the law residual, :meth:`Problem.interpret
<contactmodel.formulation.Problem.interpret>` and the contact modes need about a problem's
contacts as numpy index arrays: each contact's assembly rows, its normal and tangential rows,
its law, its context and whether it slides, with contacts grouped by (law, rows per contact) so
that each law checks all its contacts in one vectorized call. It is rebuilt only when the
problem's contact rows, sliding contacts, laws or contexts are replaced (the time stepper replaces
them; :meth:`Problem.update <contactmodel.formulation.Problem.update>` gives the problem an
assembly with other numbers, the same rows); the same objects give the same layout.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only: formulation imports this module
    from contactmodel.friction.base import ContactContext, FrictionLaw
    from contactmodel.friction.sets import FrictionSet
    from contactmodel.interfaces import ContactProblem as Problem


@dataclass
class LawGroup:
    """Contacts whose laws share one :attr:`~contactmodel.friction.base.FrictionLaw.key` (class and
    parameters, whatever the law objects) and one row count d: ``law`` the first of them,
    ``contacts`` (k,) their positions in the layout, ``rows`` (k, d) their assembly rows,
    ``contexts`` their contexts."""

    law: FrictionLaw
    contacts: np.ndarray
    rows: np.ndarray
    contexts: list[ContactContext]
    plan: list | None = field(default=None, repr=False)  # the law's residual_plan, once asked
    planned: bool = field(default=False, repr=False)


@dataclass
class SetArrays:
    """Per contact: its friction set, whether the set is an LCP's, its tangential components
    (indices in n, t, o[, r]); and its t row and o row (-1 when the law has no o friction)."""

    fsets: list[FrictionSet]
    lcp: list[bool]
    tangential: list[list[int]]
    t_row: np.ndarray
    o_row: np.ndarray
    #: (nc,) bool: the set names its slides (one LCP part: :meth:`FrictionSet.slide_index`)
    named: np.ndarray

    def tangential_components(self, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(nc,) each contact's t and o acceleration, o = 0 where its law has no o friction."""
        return a[self.t_row], np.where(self.o_row >= 0, a[np.maximum(self.o_row, 0)], 0.0)

    def tangential_norm(self, a: np.ndarray) -> np.ndarray:
        """(nc,) the norm of each contact's tangential acceleration (over its law's components)."""
        return np.hypot(*self.tangential_components(a))


@dataclass
class Layout:
    """The contacts of a problem as arrays (see the module docstring); contact j is
    ``names[j]``, with assembly rows ``rows[j]`` (n, t, o[, r]) and normal row ``normal[j]``."""

    #: the assembly's ``contact_rows`` and ``sliding`` this was made from (an assembly with other
    #: numbers that shares them, e.g. after :meth:`Problem.update`, keeps the layout current)
    contact_rows: dict = field(repr=False)
    sliding_names: list = field(repr=False)
    laws: list = field(repr=False)
    keys: list = field(repr=False)  # each contact's law key, or a number standing for it
    contexts: dict = field(repr=False)
    names: list[str]
    rows: list[list[int]]
    normal: np.ndarray
    order: np.ndarray  # every contact's rows, contact after contact
    starts: np.ndarray  # (nc,) where each contact's rows start in ``order``
    sliding: np.ndarray  # (nc,) bool: the assembly says the contact slides
    groups: list[LawGroup]
    rows_by_name: dict[str, list[int]] = field(repr=False)
    spans: list[tuple[int, int]] = field(repr=False)  # each contact's (start, stop) in ``order``
    width: int = field(repr=False)  # the rows of every contact when all have as many, else 0
    #: each law key's friction set (:meth:`friction_set`), made on first use
    fsets_by_key: dict = field(default_factory=dict, repr=False)
    #: the modes' pair verdicts by (friction set, sliding, mode, label, keys, states), made once
    verdicts: dict = field(default_factory=dict, repr=False)
    #: the modes' (pair arrays, each contact's (friction set, sliding, pair keys) as a number,
    #: how many distinct), made once per pair arrays (see :func:`contactmodel.modes._signatures`)
    mode_signatures: tuple | None = field(default=None, repr=False)
    #: what the dispatcher computes once per layout from its laws (e.g. the CoulombCone form)
    kept: dict = field(default_factory=dict, repr=False)
    #: what the modes read of every contact's friction set (:meth:`friction_sets`), made on first use
    set_arrays: SetArrays | None = field(default=None, repr=False)

    @classmethod
    def of(cls, problem: Problem, previous: Layout | None = None) -> Layout:
        """The layout of ``problem``; what ``previous`` (the problem's last layout) made once
        from its laws and rows alone (friction sets, the modes' verdicts and signatures, the
        dispatcher's facts) is carried over when the two have the same contacts, rows, sliding
        contacts and law objects (a time step with an unchanged contact set: other contexts and
        numbers). The law groups' residual plans, made from the contexts, are not."""
        layout = cls._made(problem)
        if previous is not None and layout.same_laws_and_rows(previous):
            layout.fsets_by_key, layout.set_arrays = previous.fsets_by_key, previous.set_arrays
            layout.verdicts, layout.kept = previous.verdicts, previous.kept
            layout.mode_signatures = previous.mode_signatures
        return layout

    def same_laws_and_rows(self, other: Layout) -> bool:
        """True when ``other`` has this layout's contacts, rows, sliding contacts and law objects."""
        return (
            self.names == other.names
            and self.rows == other.rows
            and self.sliding_names == other.sliding_names
            and len(self.laws) == len(other.laws)
            and all(map(operator.is_, self.laws, other.laws))
        )

    @classmethod
    def _made(cls, problem: Problem) -> Layout:
        asm = problem.assembly
        names = problem.contact_names
        contact_rows = asm.contact_rows
        rows = [list(contact_rows[name].values()) for name in names]  # asm.indices of each
        sizes = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        even = len(rows) and (sizes == sizes[0]).all()  # one (nc, d) array of the rows
        table = np.array(rows, dtype=np.int64) if even else None
        if even:
            order = table.reshape(-1)
        else:
            order = np.fromiter((i for r in rows for i in r), dtype=np.int64, count=int(sizes.sum()))
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        sliding_names = set(asm.sliding)
        by_key: dict[tuple, list[int]] = {}
        laws = list(problem.laws.values())  # in the order of the names
        keys = _law_keys(laws)
        if even and keys.count(keys[0]) == len(keys):  # one group, every contact in order
            by_key[keys[0], len(rows[0])] = list(range(len(keys)))
        else:
            for j, key in enumerate(keys):
                by_key.setdefault((key, len(rows[j])), []).append(j)
        contexts = list(problem.contexts.values()) if list(problem.contexts) == names else None
        groups = []
        for js in by_key.values():
            every = len(js) == len(names)  # the one group, contacts in order
            groups.append(
                LawGroup(
                    laws[js[0]],
                    np.arange(len(js), dtype=np.int64) if every else np.array(js, dtype=np.int64),
                    table if every and even else np.array([rows[j] for j in js], dtype=np.int64),
                    contexts if every and contexts is not None else [problem.contexts[names[j]] for j in js],
                )
            )
        return cls(
            contact_rows=contact_rows,
            sliding_names=asm.sliding,
            laws=laws,
            keys=keys,
            contexts=problem.contexts,
            names=names,
            rows=rows,
            normal=order[starts] if len(names) else np.zeros(0, dtype=np.int64),
            order=order,
            starts=starts,
            sliding=np.array([name in sliding_names for name in names], dtype=bool)
            if sliding_names
            else np.zeros(len(names), dtype=bool),
            groups=groups,
            rows_by_name=dict(zip(names, rows)),
            spans=list(zip(starts.tolist(), (starts + sizes).tolist())),
            width=int(sizes[0]) if even else 0,
        )

    def current(self, problem: Problem) -> bool:
        """True while the problem still has the contacts' rows and sliding contacts (of its
        assembly), the laws and the contexts this was built from."""
        asm = problem.assembly
        return (
            asm.contact_rows is self.contact_rows
            and asm.sliding is self.sliding_names
            and problem.contexts is self.contexts
            and len(problem.laws) == len(self.laws)
            and all(map(operator.is_, problem.laws.values(), self.laws))
        )

    def friction_set(self, j: int) -> FrictionSet:
        """The friction set of contact j (one per law key, made on first use)."""
        key = self.keys[j]
        fset = self.fsets_by_key.get(key)
        if fset is None:
            fset = self.fsets_by_key[key] = self.laws[j].friction_set()
        return fset

    def friction_sets(self) -> SetArrays:
        """Every contact's friction set and what the modes read of it, made on first use."""
        if self.set_arrays is None:
            by_law: dict = {}  # law key -> its set's position in ``own`` (made once)
            own: list[FrictionSet] = []
            for j, key in enumerate(self.keys):
                if key not in by_law:
                    by_law[key] = len(own)
                    own.append(self.friction_set(j))
            which = np.fromiter(map(by_law.__getitem__, self.keys), dtype=np.int64, count=len(self.laws))
            k = which.tolist()
            fsets = list(map(own.__getitem__, k))
            lcp = [f.lcp for f in own]
            tangential = [f.tangential for f in own]  # shared lists: read, never changed
            two = np.array([len(t) > 1 for t in tangential], dtype=bool)[which]
            named = np.array([len(f.parts) == 1 and f.lcp for f in own], dtype=bool)[which]
            if self.width >= 3:  # every contact's rows at once
                table = self.order.reshape(-1, self.width)
                t_row, o_row = table[:, 1].copy(), np.where(two, table[:, 2], -1)
            else:
                t_row = np.array([r[1] for r in self.rows], dtype=np.int64)
                o_row = np.array([r[2] if t else -1 for r, t in zip(self.rows, two.tolist())], dtype=np.int64)
            self.set_arrays = SetArrays(
                fsets,
                list(map(lcp.__getitem__, k)),
                list(map(tangential.__getitem__, k)),
                t_row,
                o_row,
                named,
            )
        return self.set_arrays

    def per_contact_max(self, values: np.ndarray) -> np.ndarray:
        """(nc,) the largest entry of ``values`` (m,) over each contact's rows."""
        if not self.names:
            return np.zeros(0)
        return np.maximum.reduceat(values[self.order], self.starts)

    def per_contact(self, values: np.ndarray) -> list[list[float]]:
        """Each contact's entries of ``values`` (m,), its rows in order, as a list of floats."""
        if self.width:  # every contact has ``width`` rows: one (nc, width) array
            return values[self.order].reshape(-1, self.width).tolist()
        flat = values[self.order].tolist()
        return [flat[lo:hi] for lo, hi in self.spans]

    def law_residuals(self, c: np.ndarray, a: np.ndarray) -> np.ndarray:
        """(nc,) each contact's law residual at forces ``c`` and accelerations ``a`` (m,), absolute
        (:meth:`~contactmodel.friction.base.FrictionLaw.law_residuals`, one call per group, with
        the group's residual plan made on its first call)."""
        out = np.zeros(len(self.names))
        for g in self.groups:
            if not g.planned:
                g.plan, g.planned = g.law.residual_plan(g.contexts), True
            out[g.contacts] = g.law.law_residuals(g.contexts, c[g.rows], a[g.rows], g.plan)
        return out


def _law_keys(laws: list) -> list:
    """Each law's :attr:`~contactmodel.friction.base.FrictionLaw.key`, asked once per law object
    (a problem often shares one object among many contacts)."""
    if laws and all(map(operator.is_, laws, itertools.repeat(laws[0]))):  # one object (one mu)
        return [laws[0].key] * len(laws)
    by_object: dict[int, tuple] = {}
    out = []
    for law in laws:
        key = by_object.get(id(law))
        if key is None:
            key = by_object[id(law)] = law.key
        out.append(key)
    return out


def layout_of(problem: Problem) -> Layout:
    """The problem's :class:`Layout` (:attr:`Problem.layout
    <contactmodel.formulation.Problem.layout>`), rebuilt only when its contacts' rows, sliding
    contacts, laws or contexts were replaced."""
    return problem.layout
