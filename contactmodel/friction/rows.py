"""What a friction law contributes at one contact, stated once, as arrays: :class:`ContactRows`.

A law's :meth:`~contactmodel.friction.base.FrictionLaw.rows` gives, for one contact, its variables
with their bounds, the force map (each force component as a linear map of the variables), its
complementarity pairs and its cone block. Everything else is derived from that one statement:
the contact's Pyomo Block (:func:`contactmodel.model.build_rows`), the numeric MCP made
without Pyomo (:mod:`contactmodel.mcp.direct`), the force matrix T and the way back from a
solver's point. Nothing here imports Pyomo.

A pair's F is a sum of terms ``(coefficient, what)``, in the order written: ``what`` an axis
letter (``"n"``, ``"t"``, ``"o"``, ``"r"``: the contact's relative acceleration ``accel[axis]``),
a variable's position in :attr:`ContactRows.variables`, a :class:`Product` or :class:`Square` of
variables, the smoothed :class:`Norm` of some variables, a :class:`Named` expression of the
contact (:attr:`ContactRows.expressions`), or a tuple of such terms (a group, e.g.
``(-1.0, ((1.0, 3), (1.0, 4)))`` for ``- (beta[0] + beta[1])``).
A variable with lower bound 0 gives the pair ``0 <= var _|_ F >= 0``; a free variable the equation
``F == 0`` matched with it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

from contactmodel.errors import FrictionLawError

#: one term of a row: (coefficient, axis letter | variable position | Product | Square | Norm | Named |
#: group)
Term = tuple[float, object]


class Product(NamedTuple):
    """The product of variables ``a`` and ``b`` (positions), written ``v_a*v_b``."""

    a: int
    b: int


class Square(NamedTuple):
    """The square of variable ``pos``, divided by ``divisor`` when given: ``v**2`` or ``v**2/d``."""

    pos: int
    divisor: float | None = None


class Norm(NamedTuple):
    """The smoothed Euclidean norm of variables ``positions``, ``sqrt(sum v**2 + eps**2) - eps``
    (zero at zero, differentiable everywhere for eps > 0)."""

    positions: tuple[int, ...]
    eps: float


class Named(NamedTuple):
    """The contact's named expression ``name`` (one of :attr:`ContactRows.expressions`)."""

    name: str


#: the normal force variable c_n >= 0 and its pair 0 <= c_n _|_ a_n >= 0 (Trinkle et al. (1997) (29))
NORMAL_VARIABLE = (("c_n", None, 0.0, math.inf),)
NORMAL_PAIR = (("normal", 0, ((1.0, "n"),)),)


@dataclass(frozen=True)
class ContactRows:
    """One contact's statement (see the module docstring).

    ``variables``: (name, index, lower, upper) of each scalar variable in declaration order; index
    None for a scalar component, an axis letter or an integer for an entry of an indexed one
    (``("s_plus", "t", 0.0, inf)`` is ``s_plus[t]``); lower 0 or -inf, upper inf. ``force``: the
    force map, component (``"n"``, ``"t"``, ...) -> (coefficient, variable position) terms; a
    component that is not one variable named ``c_<component>`` is declared as the Expression
    ``c_<component>``. ``pairs``: (key, variable position, terms of F) in order. ``cone``: the
    positions of the free (n, t, o) variables of a Coulomb cone block with coefficient ``mu``
    (rows ``cone_scale[k] * accel[n|t|o]``), or of its four (n, t, o, r) variables (a soft
    finger's block, rows ``cone_scale[k] * accel[n|t|o|r]``), or None. ``expressions``: (name,
    terms) of named expressions declared on the block before its pairs (a pair may use one by
    :class:`Named`).

    ``cone_scale`` (s_n, s_t, s_o[, s_r]), all 1 for the Coulomb cone, states a weighted cone in
    scaled variables: with the force map c_k = s_k u_k, the block {u in K_mu, (s_n a_n + mu |(s_t a_t,
    s_o a_o)|, s_t a_t, s_o a_o) in K_mu^*, complementary} is the law whose friction set is
    {|(c_t / s_t, c_o / s_o)| <= mu c_n / s_n} with maximum dissipation (the anisotropic cone).
    """

    variables: tuple[tuple[str, object, float, float], ...]
    force: dict[str, list[tuple[float, int]]]
    pairs: tuple[tuple[str, int, tuple[Term, ...]], ...] = ()
    cone: tuple[int, ...] | None = None
    mu: float = 0.0
    cone_scale: tuple[float, ...] = (1.0, 1.0, 1.0)
    expressions: tuple[tuple[str, tuple[Term, ...]], ...] = field(default=())
    #: force component -> how many variables come before its expression ``c_<component>`` on the
    #: block (default: all of them)
    force_marks: dict[str, int] = field(default_factory=dict)

    def local(self, pos: int) -> str:
        """The local name of variable ``pos`` on the contact block: ``c_n``, ``s_plus[t]``."""
        name, index = self.variables[pos][:2]
        return name if index is None else f"{name}[{index}]"

    @functools.cached_property
    def terms(self) -> tuple[list[str], list[int], list[float], list[int]]:
        """The force map's terms as lists: (component, rank of the variable in order of first use,
        coefficient) of each term, in order, and the variables' positions in that order."""
        rank: dict[int, int] = {}
        comps, ranks, coefs = [], [], []
        for comp, terms in self.force.items():
            for coef, pos in terms:
                comps.append(comp)
                ranks.append(rank.setdefault(pos, len(rank)))
                coefs.append(coef)
        return comps, ranks, coefs, list(rank)

    @functools.cached_property
    def rows(self) -> tuple[tuple[list, ...], tuple[list, ...]]:
        """The MCP rows this contact gives, as lists: for its pairs (keys, variable positions,
        lower and upper bounds, flat terms of F (see :func:`flatten`), ranks) and for its cone
        rows (variable positions, axes, ranks, coefficients of the accelerations), a
        variable's rank its position in :attr:`terms` order (-1: no force variable); checked to
        match each variable with one row."""
        keys, pvars, lows, highs, flat = [], [], [], [], []
        named = dict(self.expressions)
        for key, pos, terms in self.pairs:
            _, _, low, high = self.variables[pos]
            keys.append(key)
            pvars.append(pos)
            lows.append(low)
            highs.append(high)
            flat.append(flatten(terms, named))
        cvars = [] if self.cone is None else list(self.cone)
        caxes = list("ntor"[: len(cvars)])
        if cvars and (len(cvars) not in (3, 4) or len(self.cone_scale) != len(cvars)):
            raise FrictionLawError(
                f"ContactRows: a cone block has 3 (n, t, o) or 4 (n, t, o, r) variables and one scale "
                f"each (got {len(cvars)} variables, {len(self.cone_scale)} scales)"
            )
        matched = pvars + cvars
        if len(set(matched)) != len(matched) or len(matched) != len(self.variables):
            raise FrictionLawError(
                f"ContactRows: each variable must be matched with exactly one row (variables "
                f"{[self.local(p) for p in range(len(self.variables))]}, rows of "
                f"{[self.local(p) for p in matched]}); give each pair and cone row its own variable"
            )
        rank = {pos: r for r, pos in enumerate(self.terms[3])}
        return (
            (keys, pvars, lows, highs, flat, [rank.get(p, -1) for p in pvars]),
            (cvars, caxes, [rank.get(p, -1) for p in cvars], list(self.cone_scale) if cvars else []),
        )


def flatten(terms, named: dict, scale: float = 1.0) -> tuple[list, list, list, list]:
    """(acceleration terms [(coefficient, axis)], linear terms [(coefficient, position)], quadratic
    terms [(coefficient, position, position)], other terms [(coefficient, Norm)]) of a row's terms,
    groups and ``named`` expressions (name -> terms) multiplied out, in order."""
    accel: list[tuple[float, str]] = []
    var: list[tuple[float, int]] = []
    quad: list[tuple[float, int, int]] = []
    other: list[tuple[float, Norm]] = []
    for coef, what in terms:
        k = scale * coef
        if isinstance(what, Product):
            quad.append((k, what.a, what.b))
        elif isinstance(what, Square):
            quad.append((k if what.divisor is None else k * (1.0 / what.divisor), what.pos, what.pos))
        elif isinstance(what, Norm):
            other.append((k, what))
        elif isinstance(what, (Named, tuple)):
            a, v, q, o = flatten(named[what.name] if isinstance(what, Named) else what, named, k)
            accel.extend(a)
            var.extend(v)
            quad.extend(q)
            other.extend(o)
        elif isinstance(what, str):
            accel.append((k, what))
        else:
            var.append((k, what))
    return accel, var, quad, other


class RowsBuilder:
    """Collects a contact's variables, force map, named expressions and pairs in the order stated,
    for laws that put their rows together from parts (:func:`add_interval`, :func:`add_ellipse`)."""

    def __init__(self) -> None:
        self.variables: list[tuple[str, object, float, float]] = []
        self.force: dict[str, list[tuple[float, int]]] = {}
        self.expressions: list[tuple[str, tuple]] = []
        self.pairs: list[tuple[str, int, tuple]] = []
        #: a cone block: its (n, t, o[, r]) variables, mu and row scales (see :class:`ContactRows`)
        self.cone: tuple[int, ...] | None = None
        self.mu = 0.0
        self.cone_scale = (1.0, 1.0, 1.0)

        self.marks: dict[str, int] = {}

    def var(self, name: str, index=None, free: bool = False) -> int:
        """A new variable (>= 0, or free), its position."""
        self.variables.append((name, index, -math.inf if free else 0.0, math.inf))
        return len(self.variables) - 1

    def set_force(self, component: str, terms: list[tuple[float, int]]) -> None:
        """The force component as (coefficient, variable) terms; its expression (where it needs one)
        comes after the variables stated so far."""
        self.force[component] = terms
        self.marks[component] = len(self.variables)

    def rows(self) -> ContactRows:
        return ContactRows(
            tuple(self.variables),
            self.force,
            tuple(self.pairs),
            cone=self.cone,
            mu=self.mu,
            cone_scale=self.cone_scale,
            expressions=tuple(self.expressions),
            force_marks=self.marks,
        )


def normal_rows() -> ContactRows:
    """The rows of a contact with a normal force only: 0 <= c_n _|_ a_n >= 0."""
    return ContactRows(NORMAL_VARIABLE, {"n": [(1.0, 0)]}, NORMAL_PAIR)


def sliding_coefficients(velocity, weights: dict[str, float], mu: float) -> dict[str, float]:
    """Maximum-work friction at a sliding contact, linear in c_n (Trinkle et al. (1997) (10), Trinkle
    and Pang (1997) KKT): c_alpha = k_alpha c_n with k_alpha = -mu e_alpha^2 v_alpha /
    sqrt(sum e^2 v^2) over the components of ``weights`` (in their order); ``velocity`` the
    contact's relative velocity (n, t, o[, r])."""
    comps = "".join(weights)
    v = {c: velocity["ntor".index(c)] for c in comps}
    norm = math.sqrt(sum(weights[c] ** 2 * v[c] ** 2 for c in comps))
    return {c: -mu * weights[c] ** 2 * v[c] / norm for c in comps}


def sliding_rows(velocity, weights: dict[str, float], mu: float) -> ContactRows:
    """The rows of a sliding contact: c_n >= 0 _|_ a_n >= 0, the friction forces k_alpha c_n (see
    :func:`sliding_coefficients`)."""
    force = {"n": [(1.0, 0)]}
    for c, k in sliding_coefficients(velocity, weights, mu).items():
        force[c] = [(k, 0)]
    return ContactRows(NORMAL_VARIABLE, force, NORMAL_PAIR)


def interval_rows(axes: str, bound: dict[str, float]) -> ContactRows:
    """A rolling contact with |c_alpha| <= bound_alpha c_n on each axis (the pyramid trick,
    Trinkle et al. (1997) (30)-(35)): c_n >= 0, its normal pair and :func:`add_interval`."""
    rows = RowsBuilder()
    cn = rows.var("c_n")
    pairs = add_interval(rows, axes, bound, cn)
    rows.set_force("n", [(1.0, cn)])
    rows.pairs = [NORMAL_PAIR[0], *pairs]
    return rows.rows()


def ellipse_rows(axes: str, weights: dict[str, float], mu: float, k: dict[str, float]) -> ContactRows:
    """A rolling contact of a weighted (elliptic) cone over ``axes``: c_n >= 0 and its normal pair,
    :func:`ellipse_variables` and :func:`add_ellipse`."""
    rows = RowsBuilder()
    cn = rows.var("c_n")
    variables = ellipse_variables(rows, axes)
    rows.set_force("n", [(1.0, cn)])
    rows.pairs.append(NORMAL_PAIR[0])
    add_ellipse(rows, axes, weights, mu, k, cn, variables)
    return rows.rows()


def add_interval(rows: RowsBuilder, axes: str, bound: dict[str, float], cn: int) -> list:
    """|c_alpha| <= bound_alpha c_n on each axis: variables s_plus[alpha], a_minus[alpha] >= 0 and
    c_alpha = s_plus[alpha] - bound_alpha c_n added to ``rows``; returned, the pairs (for the caller
    to place) ``0 <= s_plus[alpha] _|_ a_alpha + a_minus[alpha]``,
    ``0 <= a_minus[alpha] _|_ 2 bound_alpha c_n - s_plus[alpha]``."""
    plus = {a: rows.var("s_plus", a) for a in axes}
    minus = {a: rows.var("a_minus", a) for a in axes}
    pairs = []
    for a in axes:
        rows.set_force(a, [(1.0, plus[a]), (-bound[a], cn)])
    for a in axes:
        k = bound[a]
        pairs.append((f"plus_{a}", plus[a], ((1.0, a), (1.0, minus[a]))))
        pairs.append((f"minus_{a}", minus[a], ((2 * k, cn), (-1.0, plus[a]))))
    return pairs


def ellipse_variables(rows: RowsBuilder, axes: str) -> tuple[int, dict[str, int], dict[str, int]]:
    """lam >= 0 and free c_alpha, a_alpha for each axis (c_alpha the friction force, a_alpha a copy
    of the acceleration); (lam, c, a) positions. The force map takes c_alpha."""
    lam = rows.var("lam")
    c, acc = {}, {}
    for a in axes:
        c[a] = rows.var(f"c_{a}", free=True)
        acc[a] = rows.var(f"a_{a}", free=True)
        rows.set_force(a, [(1.0, c[a])])
    return lam, c, acc


def add_ellipse(
    rows: RowsBuilder,
    axes: str,
    weights: dict[str, float],
    mu: float,
    k: dict[str, float],
    cn: int,
    variables: tuple[int, dict[str, int], dict[str, int]],
    squares=None,
    key: str = "ellipse",
    slack=None,
) -> None:
    """The weighted-cone MNCP rows over ``axes`` (Trinkle et al. (1997) (27)-(29) with weights;
    ``variables`` from :func:`ellipse_variables` or the law's own): the expression
    ``s = mu^2 c_n^2 - sum c_alpha^2 / weights_alpha^2`` (``squares``: its terms after the first,
    when written otherwise; ``slack``: all of its terms, for another slack), ``0 <= lam _|_ s``
    (pair ``key``), and per axis
    ``k_alpha mu c_n a_alpha + c_alpha lam == 0`` matched with c_alpha and
    ``a_alpha - accel_alpha == 0`` matched with a_alpha."""
    lam, c, acc = variables
    if squares is None:
        squares = ((-1.0, tuple((1.0, Square(c[a], weights[a] ** 2)) for a in axes)),)
    if slack is None:
        slack = ((mu**2, Square(cn)), *squares)
    rows.expressions.append(("s", tuple(slack)))
    rows.pairs.append((key, lam, ((1.0, Named("s")),)))
    for a in axes:
        work = ((k[a] * mu, Product(cn, acc[a])), (1.0, Product(c[a], lam)))
        rows.pairs.append((f"max_work_{a}", c[a], work))
        rows.pairs.append((f"accel_{a}", acc[a], ((1.0, acc[a]), (-1.0, a))))
