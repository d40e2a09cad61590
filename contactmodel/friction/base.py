"""The friction-law interface: each law states its contact's rows once.

A law's :meth:`FrictionLaw.rows` gives one contact's statement as arrays
(:class:`~contactmodel.friction.rows.ContactRows`: variables, force map, pairs, cone block). From
it the numeric MCP is compiled without Pyomo (:mod:`contactmodel.mcp.direct`), and the contact's
Pyomo Block is built when the model is read (:mod:`contactmodel.model`). Nothing here imports
Pyomo. ``lift`` maps a physical point (forces, accelerations) to values of the law's variables,
so any known solution can be substituted into any model.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import copy
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from contactmodel import validate
from contactmodel.errors import FrictionLawError
from contactmodel.friction.rows import ContactRows
from contactmodel.friction.sets import FrictionSet, SetPart


class DeclaredContact(Protocol):
    """What a law reads of a declared contact (:class:`contactmodel.system.Contact`, which imports
    this module): its name and whether it has a torsion row."""

    name: str
    torsion: bool


#: values of a law's variables: the variable's name on the contact block (``"c_n"``, ``"beta"``)
#: -> its value, or for an indexed variable a mapping index -> value (``{"beta": {0: 1.5, ...}}``)
Lifted = dict[str, float | dict[object, float]]


_AXIS = {c: i for i, c in enumerate("ntor")}  # an axis letter's position in (n, t, o, r)


@dataclass
class ContactContext:
    """What a law may know about its contact: geometry, relative velocity (n, t, o[, r])."""

    contact: DeclaredContact
    velocity: np.ndarray
    rolling_tol: float
    #: True when every entry of ``velocity`` is 0 (known to the caller): every speed is then 0
    still: bool = False
    _speeds: dict[str, float] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.contact.name

    def speed(self, components: str) -> float:
        """Norm of the relative velocity over the given components, e.g. ``"to"`` (computed once:
        the laws ask several times per contact)."""
        if self.still:  # the norm of zeros, without computing it (most contacts of most problems)
            return 0.0
        speed = self._speeds.get(components)
        if speed is None:
            v = self.velocity.tolist()
            speed = self._speeds[components] = math.sqrt(sum([v[_AXIS[c]] ** 2 for c in components]))
        return speed

    def sliding(self, components: str) -> bool:
        return self.speed(components) > self.rolling_tol


def check_coefficient(value, field: str, positive: bool = False) -> float:
    """A finite friction coefficient >= 0 (> 0 when ``positive``), at most ``validate.COEFFICIENT_MAX``."""
    v = validate.real(value, field, high=validate.COEFFICIENT_MAX, error=FrictionLawError)
    if v < 0 or (positive and v == 0):
        bound = "> 0" if positive else ">= 0"
        raise FrictionLawError(f"{field} must be {bound} (got {v})")
    return v


def check_semi_axes(law: str, e_t, e_o, e_r) -> tuple[float, float, float]:
    """The semi-axes (e_t, e_o, e_r) of a soft finger's limit surface (``law``: its class name for
    the messages), each a coefficient > 0 (e_r a length in m)."""
    return tuple(
        check_coefficient(e, f"{law}.{name}", positive=True)
        for e, name in zip((e_t, e_o, e_r), ("e_t", "e_o", "e_r"))
    )


#: the rows of rolling contacts by law key (see :meth:`FrictionLaw.cached_rows`)
_SHARED_ROWS: dict[tuple, ContactRows] = {}

#: one step of a law's residual plan: a part of its friction set, the mask of the contacts it
#: decides, its components' positions in (n, t, o, r)
_PlanStep = tuple[SetPart, np.ndarray, list[int]]


class FrictionLaw(ABC):
    """Base of every friction law (one file per law in this package)."""

    #: the law acts on the torsional component r: contacts must be declared with torsion=True
    needs_torsion: bool = False
    #: the law chose its cone form itself (a law with a ``form``, given ``form=None``): a solver
    #: without cone blocks gets its MNCP form (:func:`contactmodel.reductions.without_cone_blocks`),
    #: and so do its contacts beside cone blocks of another size
    #: (:func:`~contactmodel.mcp.direct.one_block_size`)
    auto: bool = False
    #: the statement of its rolling contacts, for a law that has two (a ``ConeForm``: ``"soc"`` a
    #: cone block, ``"mncp"`` the mixed NCP; CoulombCone, AnisotropicCone, EllipticTorsion,
    #: Ellipsoid); None for a law with one (``Solution.cone_form`` reports the forms that ran)
    form: str | None = None

    def check_contact(self, contact: DeclaredContact) -> None:
        """Raise FrictionLawError when this law cannot be used on ``contact``."""
        if self.needs_torsion and not contact.torsion:
            raise FrictionLawError(
                f"contact '{contact.name}': {type(self).__name__} needs a torsional moment about the "
                "normal; declare the contact with torsion=True (soft finger / distributed contact)"
            )

    @abstractmethod
    def rows(self, ctx: ContactContext) -> ContactRows:
        """This law's statement at ``ctx`` (:class:`~contactmodel.friction.rows.ContactRows`):
        variables, force map, pairs, cone block. The contact's Pyomo Block
        (:func:`contactmodel.model.build_rows`) and the MCP made without Pyomo are both derived
        from it."""

    def cached_rows(self, make) -> ContactRows:
        """``make()``, made once per law parameters (:attr:`key`): the rows of a rolling contact depend
        on the law alone, and every contact whose law has the same key shares them."""
        key = self.key
        rows = _SHARED_ROWS.get(key)
        if rows is None:
            if len(_SHARED_ROWS) >= 4096:  # many distinct laws (a sweep over mu): start over
                _SHARED_ROWS.clear()
            rows = _SHARED_ROWS[key] = make()
        return rows

    @abstractmethod
    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        """Values of this law's variables at a physical point (see :data:`Lifted`): ``force``
        and ``accel`` are (n, t, o[, r]) in the contact frame."""

    def scaled(self, factor: float) -> FrictionLaw:
        """This law with its friction coefficient ``mu`` times ``factor`` (> 0), a copy (its key, and
        so its shared rows, follow the new mu); a law without friction (no ``mu`` or 0) itself.
        A law whose coefficients are other fields overrides it (the fallback's friction
        continuation scales every law of a problem)."""
        mu = self.__dict__.get("mu")
        if not mu:
            return self
        twin = copy.copy(self)
        twin.mu = mu * factor
        return twin

    def restated(self, form: str) -> FrictionLaw | None:
        """This law with its rolling contacts stated in ``form`` (``"soc"``: a cone block, or
        ``"mncp"``, see :class:`~contactmodel.friction.cone.ConeForm`), for a law that has both
        statements and is not in ``form`` already; else None (the fallback's retry in the other
        cone form, :class:`~contactmodel.reductions.ConeFormSwitch`)."""
        return None

    def friction_set(self) -> FrictionSet:
        """The law's friction set (one object: projection, membership, polyhedral rows, outline,
        mode names); see :class:`~contactmodel.friction.sets.FrictionSet`."""
        raise FrictionLawError(
            f"{type(self).__name__} does not describe its friction set: define "
            f"{type(self).__name__}.friction_set() returning a contactmodel.friction.sets.FrictionSet"
        )

    @property
    def describes_set(self) -> bool:
        """The law defines :meth:`friction_set` (the analysis and pictures need it)."""
        return type(self).friction_set is not FrictionLaw.friction_set

    def friction_sets(self, ctx: ContactContext) -> list[SetPart]:
        """The parts of the friction set this law decides at ``ctx`` (none where the sliding
        velocity fixes the friction, or where the law has no friction); see :meth:`law_residual`.
        A law that does not define :meth:`friction_set` checks only its normal pair."""
        if not self.describes_set:
            return []
        return [p for p in self.friction_set().parts if not ctx.sliding(p.components)]

    def law_residual(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> float:
        """How far a physical point is from this law, whatever the formulation (absolute, inf-norm).

        ``force`` and ``accel`` are (n, t, o[, r]) in the contact frame. The normal part is
        ``|min(c_n, a_n)|``; each friction part decided here adds ``|f - P_S(f - k a_f)|`` with S
        the friction set at ``c_n`` (maximum work: friction = argmin over S of f . k a_f, which holds
        iff f = P_S(f - k a_f)). Zero exactly at points that satisfy the law. The dispatcher
        computes it for every solver, so an MCP residual that understates the physical error
        (e.g. the cone MNCP's squared rows near c_n = 0) cannot pass as solved.
        """
        res = abs(min(float(force[0]), float(accel[0])))
        cn = max(float(force[0]), 0.0)
        for part in self.friction_sets(ctx):
            idx = ["ntor".index(c) for c in part.components]
            f = np.asarray(force, dtype=float)[idx]
            y = f - part.accel_weights * np.asarray(accel, dtype=float)[idx]
            res = max(res, float(np.max(np.abs(f - part.project(cn, y)))))
        return res

    def law_residuals(
        self, contexts: list[ContactContext], force: np.ndarray, accel: np.ndarray, plan=None
    ) -> np.ndarray:
        """(k,) :meth:`law_residual` of k contacts with this law at once: ``force`` and ``accel``
        (k, d), row j in contact j's frame; ``plan`` their :meth:`residual_plan`, when the caller
        kept it. Vectorized over the contacts for laws that keep the base :meth:`law_residual`; a
        law with its own :meth:`law_residual` is asked contact by contact unless it overrides this
        method too."""
        if type(self).law_residual is not FrictionLaw.law_residual:
            return np.array([self.law_residual(c, f, a) for c, f, a in zip(contexts, force, accel)])
        return self._set_residuals(contexts, force, accel, plan)

    def residual_plan(self, contexts: list[ContactContext]) -> list[_PlanStep] | None:
        """What the base :meth:`law_residual` of these contacts decides, independent of the point:
        each part of the friction set with the mask of the contacts it decides (some) and its
        components' positions in (n, t, o, r); kept by the caller for the next points and handed
        to :meth:`law_residuals`. None for a law with a :meth:`law_residual` or
        :meth:`law_residuals` of its own (unless it makes a plan of its own too)."""
        cls = type(self)
        own = cls.law_residual is not FrictionLaw.law_residual
        if own or cls.law_residuals is not FrictionLaw.law_residuals:
            return None
        return self._plan(contexts)

    def _plan(self, contexts: list[ContactContext]) -> list[_PlanStep]:
        """:meth:`residual_plan` of the base residual, for any law."""
        if not self.describes_set or not len(contexts):
            return []
        plan = []
        for part in self.friction_set().parts:
            decided = np.array([not ctx.sliding(part.components) for ctx in contexts], dtype=bool)
            if decided.any():
                plan.append((part, decided, ["ntor".index(c) for c in part.components]))
        return plan

    def _set_residuals(
        self,
        contexts: list[ContactContext],
        force: np.ndarray,
        accel: np.ndarray,
        plan: list[_PlanStep] | None = None,
    ) -> np.ndarray:
        """The base :meth:`law_residual` of k contacts, vectorized: (k,) (``plan``: their
        :meth:`residual_plan`, when the caller kept it)."""
        force = np.asarray(force, dtype=float).reshape(len(contexts), -1)
        accel = np.asarray(accel, dtype=float).reshape(force.shape)
        res = np.abs(np.minimum(force[:, 0], accel[:, 0]))
        if not self.describes_set or not len(contexts):
            return res
        cn = np.maximum(force[:, 0], 0.0)
        for part, decided, idx in self._plan(contexts) if plan is None else plan:
            f = force[decided][:, idx]
            y = f - part.accel_weights * accel[decided][:, idx]
            gap = np.abs(f - part.project_many(cn[decided], y)).max(axis=1)
            res[decided] = np.maximum(res[decided], gap)
        return res

    @property
    def key(self) -> tuple:
        """What makes this law behave as it does: its class and its public fields (numbers, strings,
        arrays by shape and bytes). Laws with equal keys state the same rows and check the same
        conditions, so contacts whose laws share a key are handled together (one vectorized
        residual, one friction set), however many law objects were declared. Kept until a field
        is set."""
        key = self.__dict__.get("_key")
        if key is None:
            fields = [(k, _hashable(v)) for k, v in vars(self).items() if k[0] != "_"]
            key = self.__dict__["_key"] = (type(self), *fields)
        return key

    def __setattr__(self, name: str, value) -> None:
        self.__dict__.pop("_key", None)  # a new field value: a new key
        super().__setattr__(name, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


_PLAIN = frozenset((float, int, str, bool, type(None)))


def _hashable(value) -> object:
    """``value`` as a hashable key part: arrays by dtype, shape and bytes, sequences as tuples, laws
    by their :attr:`FrictionLaw.key`."""
    if value.__class__ in _PLAIN or isinstance(value, str):  # a Choice (StrEnum) member too
        return value
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(map(_hashable, value))
    if isinstance(value, dict):
        return tuple((k, _hashable(v)) for k, v in value.items())
    if isinstance(value, FrictionLaw):
        return value.key
    return value
