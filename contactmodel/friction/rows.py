"""What a friction law contributes at one contact, stated once, as arrays: :class:`ContactRows`.

A law's :meth:`~contactmodel.friction.base.FrictionLaw.rows` gives, for one contact, its variables
with their bounds, the force map (each force component as a linear map of the variables), its
complementarity pairs and its cone block. Everything else is derived from that one statement:
the contact's Pyomo Block (:func:`contactmodel.friction.base.build_rows`), the numeric MCP made
without Pyomo (:mod:`contactmodel.mcp.direct`), the force matrix T and the way back from a
solver's point. Nothing here imports Pyomo.

A pair's F is a sum of terms ``(coefficient, what)``, in the order written: ``what`` an axis
letter (``"n"``, ``"t"``, ``"o"``, ``"r"``: the contact's relative acceleration ``accel[axis]``),
a variable's position in :attr:`ContactRows.variables`, or a tuple of such terms (a group, e.g.
``(-1.0, ((1.0, 3), (1.0, 4)))`` for ``- (beta[0] + beta[1])``). A variable with lower bound 0
gives the pair ``0 <= var _|_ F >= 0``; a free variable the equation ``F == 0`` matched with it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from contactmodel.errors import FrictionLawError

#: one term of a row: (coefficient, axis letter | variable position | group of terms)
Term = tuple[float, object]

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
    positions of the free (n, t, o) force variables of a Coulomb cone block with coefficient ``mu``
    (rows ``accel[n|t|o]``), or None.
    """

    variables: tuple[tuple[str, object, float, float], ...]
    force: dict[str, list[tuple[float, int]]]
    pairs: tuple[tuple[str, int, tuple[Term, ...]], ...] = ()
    cone: tuple[int, int, int] | None = None
    mu: float = 0.0

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
        lower and upper bounds, flat terms ([(coefficient, axis)], [(coefficient, variable
        position)]) of F, ranks) and for its cone rows (variable positions, axes, ranks), a
        variable's rank its position in :attr:`terms` order (-1: no force variable); checked to
        match each variable with one row."""
        keys, pvars, lows, highs, flat = [], [], [], [], []
        for key, pos, terms in self.pairs:
            _, _, low, high = self.variables[pos]
            keys.append(key)
            pvars.append(pos)
            lows.append(low)
            highs.append(high)
            flat.append(flatten(terms))
        cvars = [] if self.cone is None else list(self.cone)
        caxes = [] if self.cone is None else list("nto")
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
            (cvars, caxes, [rank.get(p, -1) for p in cvars]),
        )


def flatten(terms, scale: float = 1.0) -> tuple[list[tuple[float, str]], list[tuple[float, int]]]:
    """(acceleration terms [(coefficient, axis)], variable terms [(coefficient, position)]) of a
    row's terms, groups multiplied out, in order."""
    accel: list[tuple[float, str]] = []
    var: list[tuple[float, int]] = []
    for coef, what in terms:
        if isinstance(what, tuple):
            a, v = flatten(what, scale * coef)
            accel.extend(a)
            var.extend(v)
        elif isinstance(what, str):
            accel.append((scale * coef, what))
        else:
            var.append((scale * coef, what))
    return accel, var


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
    Trinkle et al. (1997) (30)-(35)): variables c_n, s_plus[alpha], a_minus[alpha] >= 0,
    c_alpha = s_plus[alpha] - bound_alpha c_n, and the pairs
    ``0 <= c_n _|_ a_n``, ``0 <= s_plus[alpha] _|_ a_alpha + a_minus[alpha]``,
    ``0 <= a_minus[alpha] _|_ 2 bound_alpha c_n - s_plus[alpha]``."""
    inf = math.inf
    variables = [("c_n", None, 0.0, inf)]
    variables += [("s_plus", a, 0.0, inf) for a in axes]
    variables += [("a_minus", a, 0.0, inf) for a in axes]
    plus = {a: 1 + i for i, a in enumerate(axes)}
    minus = {a: 1 + len(axes) + i for i, a in enumerate(axes)}
    force: dict[str, list[tuple[float, int]]] = {a: [(1.0, plus[a]), (-bound[a], 0)] for a in axes}
    force["n"] = [(1.0, 0)]
    pairs = [NORMAL_PAIR[0]]
    for a in axes:
        k = bound[a]
        pairs.append((f"plus_{a}", plus[a], ((1.0, a), (1.0, minus[a]))))
        pairs.append((f"minus_{a}", minus[a], ((2 * k, 0), (-1.0, plus[a]))))
    return ContactRows(tuple(variables), force, tuple(pairs))
