"""The friction-law interface: each law builds its own contact Block.

Formulation calls, per contact: ``build`` (the law declares its variables and returns the
contact force components as linear maps of them), then adds the contact's relative
accelerations ``blk.accel[comp]`` (Pyomo expressions), then ``add_conditions`` (the law's
complementarity pairs and equations). ``lift`` maps a physical point (forces, accelerations)
to values of the law's variables, so any known solution can be substituted into any model.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from contactmodel import validate
from contactmodel._pyomo import add_complementarity, add_expression, add_var, complements, pe
from contactmodel.errors import FrictionLawError
from contactmodel.friction.sets import FrictionSet, SetPart
from contactmodel.mcp.compile import record_pairs

if TYPE_CHECKING:  # annotations only: contactmodel.system imports this module
    from contactmodel.system import Contact

# component -> list of (coefficient, variable); a component absent from the map is zero.
ForceMap = dict[str, list[tuple[float, object]]]

#: values of a law's variables: the variable's name on the contact block (``"c_n"``, ``"beta"``)
#: -> its value, or for an indexed variable a mapping index -> value (``{"beta": {0: 1.5, ...}}``)
Lifted = dict[str, float | dict[object, float]]


_AXIS = {c: i for i, c in enumerate("ntor")}  # an axis letter's position in (n, t, o, r)


@dataclass
class ContactContext:
    """What a law may know about its contact: geometry, relative velocity (n, t, o[, r])."""

    contact: Contact
    velocity: np.ndarray
    rolling_tol: float
    _speeds: dict[str, float] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.contact.name

    def speed(self, components: str) -> float:
        """Norm of the relative velocity over the given components, e.g. ``"to"`` (computed once:
        the laws ask several times per contact)."""
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


@dataclass(frozen=True)
class DirectRows:
    """What a law contributes to the reduced form's MCP at one contact, stated without Pyomo (the
    direct route of :meth:`FrictionLaw.direct_rows`): exactly the rows and variables its
    ``build`` and ``add_conditions`` declare, so that the MCP compiled from these equals, bit for
    bit, the MCP compiled from the built block (tests/test_direct_route.py).

    ``variables`` (local name, lower bound, upper bound) of each scalar variable in declaration
    order; ``force`` the force map (component -> (coefficient, variable position)), as ``build``
    returns it; ``pairs`` (key, variable position, lower bound) of each pair
    ``var >= lower _|_ accel[axis] >= 0``, its axis the pair's ``axis`` (``"n"``, ...), in the
    order stated; ``cone`` the positions of the (n, t, o) force variables of the contact's
    :class:`~contactmodel.mcp.cones.SOCComplementarity` block (its rows ``accel[n|t|o]``) and
    ``mu`` its coefficient, or None without a cone block."""

    variables: tuple[tuple[str, float, float], ...]
    force: dict[str, list[tuple[float, int]]]
    pairs: tuple[tuple[str, int, float, str], ...] = ()
    cone: tuple[int, int, int] | None = None
    mu: float = 0.0

    @functools.cached_property
    def terms(self) -> tuple[list[str], list[int], list[float], list[str]]:
        """The force map's terms as lists: (component, rank of the variable in order of first use,
        coefficient) of each term, in order, and the variables' local names in that order."""
        rank: dict[int, int] = {}
        comps, ranks, coefs = [], [], []
        for comp, terms in self.force.items():
            for coef, pos in terms:
                comps.append(comp)
                ranks.append(rank.setdefault(pos, len(rank)))
                coefs.append(coef)
        return comps, ranks, coefs, [self.variables[pos][0] for pos in rank]

    @functools.cached_property
    def rows(self) -> tuple[tuple[list, ...], tuple[list, ...]]:
        """The MCP rows this contact gives, as lists: for its pairs (keys, variables, lower and
        upper bounds (the pair's and the variable's together), axes, ranks) and for its cone rows
        (variables, axes, ranks), a variable's rank its position in :attr:`terms` order (-1: no
        force variable); checked to name each variable once."""
        keys, pvars, lows, highs, paxes = [], [], [], [], []
        for key, pos, low, axis in self.pairs:
            var, vlb, vub = self.variables[pos]
            keys.append(key)
            pvars.append(var)
            lows.append(max(low, vlb))
            highs.append(min(math.inf, vub))
            paxes.append(axis)
        cvars = [] if self.cone is None else [self.variables[p][0] for p in self.cone]
        caxes = [] if self.cone is None else list("nto")
        if len(set(pvars + cvars)) != len(pvars + cvars):
            raise FrictionLawError(
                f"DirectRows: a variable is matched with more than one row ({pvars + cvars}); give "
                "each pair and cone row its own variable"
            )
        rank = {var: r for r, var in enumerate(self.terms[3])}
        return (
            (keys, pvars, lows, highs, paxes, [rank.get(v, -1) for v in pvars]),
            (cvars, caxes, [rank.get(v, -1) for v in cvars]),
        )


#: one step of a law's residual plan: a part of its friction set, the mask of the contacts it
#: decides, its components' positions in (n, t, o, r)
_PlanStep = tuple[SetPart, np.ndarray, list[int]]


class FrictionLaw(ABC):
    """Base of every friction law (one file per law in this package)."""

    #: the law acts on the torsional component r: contacts must be declared with torsion=True
    needs_torsion: bool = False

    def check_contact(self, contact: Contact) -> None:
        """Raise FrictionLawError when this law cannot be used on ``contact``."""
        if self.needs_torsion and not contact.torsion:
            raise FrictionLawError(
                f"contact '{contact.name}': {type(self).__name__} needs a torsional moment about the "
                "normal; declare the contact with torsion=True (soft finger / distributed contact)"
            )

    @abstractmethod
    def build(self, blk: pe.Block, ctx: ContactContext) -> ForceMap:
        """Declare variables on ``blk``, name the forces ``blk.c_n``, ``blk.c_t``...; return them."""

    @abstractmethod
    def add_conditions(self, blk: pe.Block, ctx: ContactContext) -> None:
        """Add this contact's complementarity pairs, using ``blk.accel[comp]``."""

    def direct_rows(self, ctx: ContactContext) -> DirectRows | None:
        """The rows ``build`` and ``add_conditions`` declare at ``ctx``, stated without Pyomo
        (:class:`DirectRows`), so a problem of such contacts is compiled without building its
        model; None (the default) when this law has no such statement here: the model is built."""
        return None

    @abstractmethod
    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        """Values of this law's variables at a physical point (see :data:`Lifted`): ``force``
        and ``accel`` are (n, t, o[, r]) in the contact frame."""

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
        residual, one friction set), however many law objects were declared."""
        return (type(self), *((k, _hashable(v)) for k, v in vars(self).items() if not k.startswith("_")))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


def _hashable(value) -> object:
    """``value`` as a hashable key part: arrays by dtype, shape and bytes, sequences as tuples, laws
    by their :attr:`FrictionLaw.key`."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(map(_hashable, value))
    if isinstance(value, dict):
        return tuple((k, _hashable(v)) for k, v in value.items())
    if isinstance(value, FrictionLaw):
        return value.key
    return value


# -- small builders shared by the laws ------------------------------------------------------
def axes_set(blk: pe.Block, axes: str) -> pe.Set:
    """The ordered Set of the given axis letters (``"to"`` -> {t, o}) on the top model, created on
    first use and shared by every contact block: a Set of its own per block (what a list index
    makes) cost more than the block's variables."""
    return _shared_set(blk.model(), f"axes_{axes}", tuple(axes), "axes of the contact blocks' components")


def _shared_set(model: pe.Block, name: str, members: tuple, doc: str) -> pe.Set:
    found = model.component(name)
    if found is None:
        found = pe.Set(initialize=members, ordered=True, doc=doc)
        model.add_component(name, found)
    return found


#: the pairs a law has stated on a contact block and :func:`declare_pairs` has not yet declared
_PENDING = "_contact_pairs_pending"
#: name of a dict on the model: the pairs' keys -> the Set ``pair_keys_<i>`` holding them
_PAIR_SETS = "_contact_pair_sets"


def _add_pair(blk: pe.Block, name: str, pair) -> None:
    pending = blk.__dict__.setdefault(_PENDING, {})
    if name in pending:
        raise FrictionLawError(
            f"contact block '{blk.name}': pair '{name}' stated twice; give each pair its own key"
        )
    pending[name] = pair


def nonneg_pair(blk: pe.Block, name: str, var, expr) -> None:
    """``pairs[name]``: ``0 <= var  _|_  expr >= 0``."""
    _add_pair(blk, name, complements(var >= 0, expr >= 0))


def equation(blk: pe.Block, name: str, expr, var) -> None:
    """``pairs[name]``: ``expr == 0`` matched with the free variable ``var``."""
    _add_pair(blk, name, complements(expr == 0, var))


def declare_pairs(blk: pe.Block) -> None:
    """Declare the pairs stated on ``blk`` (by :func:`nonneg_pair`, :func:`equation`) as one
    component, ``blk.pairs[key]``, indexed by a Set of exactly these keys in the order stated,
    shared by every block with the same keys (``model.pair_keys_<i>``). The formulation calls it
    after each law's ``add_conditions``. A finite index keeps walks over the model cheap: Pyomo
    names the component and builds a Set on every iteration of one indexed by ``Any``."""
    pending = blk.__dict__.pop(_PENDING, None)
    if not pending:
        return
    keys = tuple(pending)
    model = blk.model()
    known = model.__dict__.setdefault(_PAIR_SETS, {})  # keys -> their Set, found before
    index = known.get(keys)
    if index is None or model.component(index.local_name) is not index or tuple(index) != keys:
        i = 0
        while (index := model.component(f"pair_keys_{i}")) is not None and tuple(index) != keys:
            i += 1
        index = known[keys] = _shared_set(model, f"pair_keys_{i}", keys, "keys of the contact blocks' pairs")
    record_pairs(model, add_complementarity(blk, "pairs", index, pending).values())


def normal_force(blk: pe.Block) -> pe.Var:
    return add_var(blk, "c_n", nonneg=True)


def normal_pair(blk: pe.Block) -> None:
    """Trinkle et al. (1997) (29): 0 <= c_n _|_ a_n >= 0."""
    nonneg_pair(blk, "normal", blk.c_n, blk.accel["n"])


def sliding_map(blk: pe.Block, ctx: ContactContext, weights: dict[str, float], mu: float) -> ForceMap:
    """Maximum-work friction at a sliding contact, linear in c_n (Trinkle et al. (1997) (10), Trinkle and
    Pang (1997) KKT): c_alpha = -mu e_alpha^2 v_alpha / sqrt(sum e^2 v^2) c_n over the given components."""
    fmap: ForceMap = {"n": [(1.0, blk.c_n)]}
    for c, k in sliding_coefficients(ctx, weights, mu).items():
        add_expression(blk, f"c_{c}", k * blk.c_n)
        fmap[c] = [(k, blk.c_n)]
    return fmap


def sliding_coefficients(ctx: ContactContext, weights: dict[str, float], mu: float) -> dict[str, float]:
    """The coefficients k_alpha of :func:`sliding_map`, c_alpha = k_alpha c_n, in the order of
    ``weights``."""
    comps = "".join(weights)
    v = {c: ctx.velocity["ntor".index(c)] for c in comps}
    norm = math.sqrt(sum(weights[c] ** 2 * v[c] ** 2 for c in comps))
    return {c: -mu * weights[c] ** 2 * v[c] / norm for c in comps}


def sliding_direct_rows(ctx: ContactContext, weights: dict[str, float], mu: float) -> DirectRows:
    """:class:`DirectRows` of a sliding contact built by :func:`normal_force`, :func:`sliding_map`
    and :func:`normal_pair`: c_n >= 0 _|_ a_n >= 0, the friction forces k_alpha c_n."""
    force = {"n": [(1.0, 0)]}
    for c, k in sliding_coefficients(ctx, weights, mu).items():
        force[c] = [(k, 0)]
    return DirectRows(NORMAL_VARIABLE, force, NORMAL_PAIR)


#: the normal force variable and pair of :func:`normal_force` and :func:`normal_pair`
NORMAL_VARIABLE = (("c_n", 0.0, math.inf),)
NORMAL_PAIR = (("normal", 0, 0.0, "n"),)
