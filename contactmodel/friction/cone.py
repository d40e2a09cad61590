"""Coulomb's quadratic friction cone (Trinkle et al. (1997) (8)-(11), MNCP (27)-(29); Andreani et al.
(2002) (16)-(19)).

Rolling contact (variables c_n, lambda >= 0; c_t, c_o, a_t, a_o free):
    0 <= c_n    _|_ a_n >= 0
    0 <= lambda _|_ s = mu^2 c_n^2 - c_t^2 - c_o^2 >= 0
    mu c_n a_alpha + c_alpha lambda = 0,   a_alpha = (A c + b)_alpha,   alpha = t, o
Sliding contact: c_alpha = -mu c_n v_alpha / |v_T| (Trinkle et al. (1997) (10)); only c_n is unknown.

``form="soc"`` states the same law at a rolling contact as a second-order-cone complementarity
with De Saxce's modified acceleration (Acary-Brogliato; FCLIB's fc3d), variables c_n, c_t, c_o
free (the cone bounds them):
    c = (c_n, c_t, c_o) in K_mu = {|c_T| <= mu c_n}
    a_hat = (a_n + mu |a_T|, a_t, a_o) in K_mu^* = {|y_T| <= y_n / mu},   c . a_hat = 0
declared as one :class:`~contactmodel.mcp.soc_block.SOCComplementarity` block ``blk.cone`` (compiled
into ``MCP.cones``; only ``newton`` solves it). Equivalent to (27)-(29): separation is c = 0 with
a_n >= 0 (a_hat in K_mu^* since a_hat_n >= mu |a_T|); rolling is a = 0; sliding is c on the
boundary, c_T = -mu c_n a_T / |a_T|, with a_n = 0 (c . a_hat = mu c_n |a_T| + c_T . a_T = 0 forces
c_T opposite to a_T at full length). Unlike the MNCP it has no squared forces, so the natural map
stays well conditioned at separating contacts: with ``newton`` it is faster and more accurate
(``benchmarks/newton_cone.py --form soc``; a box on four corners sliding down a 30 degree incline,
mu = 0.5: 4 iterations and a law residual of 2e-14, against 18 iterations and 2e-13 for the MNCP).

Which form runs. ``form=None`` (the default, "auto") formulates the SOC form, and
:func:`contactmodel.solve` re-formulates those contacts in the MNCP form when the chosen solver takes
no cone blocks (``ipopt``, ``scipy``, ``path``; :func:`contactmodel.mncp_opt` and the LCP-based
analyses do the same); ``slack="norm"`` implies the MNCP. ``form="mncp"`` or ``form="soc"`` fixes the
form for every solver (``soc`` is then refused by solvers without cone support). The form that ran
is ``Solution.cone_form``, printed on the table's solver line and in ``--json``.

``slack="quadratic"`` (``form="mncp"``) is the paper's s above. Its rows square the forces, so an
MCP residual r bounds the cone violation only by ~sqrt(r) where c_n is small. ``slack="norm"`` uses
s = mu c_n - (sqrt(c_t^2 + c_o^2 + eps^2) - eps) instead (eps = ``norm_eps``, N): the same
solutions up to eps, with a cone violation of the order of the residual.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from contactmodel.constants import Choice
from contactmodel.errors import FrictionLawError
from contactmodel.friction.base import (
    ContactContext,
    FrictionLaw,
    Lifted,
    check_coefficient,
)
from contactmodel.friction.rows import (
    NORMAL_PAIR,
    ContactRows,
    Norm,
    RowsBuilder,
    Square,
    add_ellipse,
    sliding_rows,
)
from contactmodel.friction.sets import EllipsoidPart, FrictionSet
from contactmodel.mcp.cones import residual as cone_residual


class ConeForm(Choice):
    """The statement of a rolling contact of a cone law (:class:`CoulombCone`, the weighted cones
    of :class:`~contactmodel.friction.anisotropic.AnisotropicCone` and
    :class:`~contactmodel.friction.elliptic_torsion.EllipticTorsion`, the soft finger's
    :class:`~contactmodel.friction.ellipsoid.Ellipsoid`; see the module docstring)."""

    MNCP = "mncp"  # Trinkle et al. (1997) (27)-(29), any MCP solver
    SOC = "soc"  # the cone complementarity with De Saxce's modified acceleration, newton only


class ConeSlack(Choice):
    """The MNCP's cone slack s (see the module docstring)."""

    QUADRATIC = "quadratic"  # mu^2 c_n^2 - |c_T|^2
    NORM = "norm"  # mu c_n - (sqrt(|c_T|^2 + eps^2) - eps)


#: the two statements of the law at a rolling contact
FORMS = ConeForm.values()


def chosen_form(form: ConeForm | str | None, field: str) -> tuple[bool, ConeForm]:
    """(automatic, the form formulated) of a weighted-cone law given ``form`` (its field
    ``field``): None is automatic, formulated in the SOC form (see :class:`ConeForm`)."""
    if form is None:
        return True, ConeForm.SOC
    return False, ConeForm.parse(form, f"{field} (None: automatic)", FrictionLawError)


def restated_copy(law: FrictionLaw, form: str) -> FrictionLaw | None:
    """:meth:`~contactmodel.friction.base.FrictionLaw.restated` of a law whose statement is its
    field ``form`` alone: a copy in ``form`` (automatic when ``law`` is), None in it already."""
    if law.form == form:
        return None
    twin = copy.copy(law)  # setting a field gives it a new key (and so its own shared rows)
    twin.form = ConeForm.parse(form, f"{type(law).__name__}.form", FrictionLawError)
    return twin


class _ConePlan(NamedTuple):
    """What :meth:`CoulombCone.law_residuals` decides of its contacts before any point: which roll
    (``rolling`` (k,) bool, all of them, how many), the others' contexts and their base plan."""

    rolling: np.ndarray
    all_rolling: bool
    rolled: int
    slid: list[ContactContext]
    slid_plan: list


class CoulombCone(FrictionLaw):
    """Isotropic Coulomb friction cone |c_T| <= mu c_n with maximum dissipation.

    ``form``: None (default, "auto": the second-order-cone form, or the MNCP where the solver
    needs it, see the module docstring), ``"mncp"`` (the MNCP (27)-(29) of Trinkle et al. 1997, any
    MCP solver) or ``"soc"`` (the cone complementarity with De Saxce's modified acceleration,
    ``newton`` only). ``self.form`` is the form this law formulates (``"soc"`` or ``"mncp"``) and
    ``self.auto`` whether it was left to choose. ``slack`` and ``norm_eps`` choose the MNCP's
    cone slack (see the module docstring); ``slack="norm"`` with ``form=None`` is the MNCP.
    """

    def __init__(
        self,
        mu: float,
        slack: ConeSlack | str = ConeSlack.QUADRATIC,
        norm_eps: float = 1e-12,
        form: ConeForm | str | None = None,
    ):
        self.mu = check_coefficient(mu, "CoulombCone.mu")
        if form is not None:
            form = ConeForm.parse(form, "CoulombCone.form (None: automatic)", FrictionLawError)
        slack = ConeSlack.parse(slack, "CoulombCone.slack", FrictionLawError)
        if form == "soc" and slack != "quadratic":
            raise FrictionLawError(
                "CoulombCone.slack applies to form='mncp' only (form='soc' has no slack row); drop slack"
            )
        self.auto = form is None
        self.form = form if form is not None else (ConeForm.SOC if slack == "quadratic" else ConeForm.MNCP)
        self.slack = slack
        self.norm_eps = check_coefficient(norm_eps, "CoulombCone.norm_eps", positive=True)

    def as_mncp(self) -> CoulombCone:
        """The same law in the MNCP form, still marked automatic (``auto``) when this one is."""
        return self.in_form("mncp")

    def in_form(self, form: str) -> CoulombCone:
        """The same law in ``form`` ("soc" or "mncp"), still marked automatic (``auto``) when this
        one is; ``form="soc"`` needs ``slack="quadratic"`` (the SOC form has no slack row)."""
        law = CoulombCone(self.mu, self.slack, self.norm_eps, form=form)
        law.auto = self.auto
        return law

    def restated(self, form: str) -> CoulombCone | None:
        """:meth:`in_form` ``form``; None in that form already, or for ``"soc"`` with
        ``slack="norm"`` (the SOC form has no slack row)."""
        if self.form == form or (form == ConeForm.SOC and self.slack != "quadratic"):
            return None
        return self.in_form(form)

    def rows(self, ctx: ContactContext) -> ContactRows:
        """A sliding contact (either form); a rolling one in the SOC form (free c_n, c_t, c_o in one
        cone block) or the MNCP form (27)-(29) with its slack."""
        if ctx.sliding("to"):
            return sliding_rows(ctx.velocity, {"t": 1.0, "o": 1.0}, self.mu)
        if self.form == "soc":
            return self.cached_rows(self._soc_rows)
        return self.cached_rows(self._mncp_rows)

    def _soc_rows(self) -> ContactRows:
        free = (-math.inf, math.inf)
        return ContactRows(
            tuple((f"c_{ax}", None, *free) for ax in "nto"),
            {"n": [(1.0, 0)], "t": [(1.0, 1)], "o": [(1.0, 2)]},
            cone=(0, 1, 2),
            mu=self.mu,
        )

    def _mncp_rows(self) -> ContactRows:
        """c_n, lam >= 0, free c_t, c_o, a_t, a_o; s = mu^2 c_n^2 - c_t^2 - c_o^2 (or, with
        ``slack="norm"``, s = mu c_n - (sqrt(c_t^2 + c_o^2 + eps^2) - eps)); the pairs
        0 <= c_n _|_ a_n, 0 <= lam _|_ s, mu c_n a_alpha + c_alpha lam == 0 (with c_alpha) and
        a_alpha - accel_alpha == 0 (with a_alpha)."""
        rows = RowsBuilder()
        cn = rows.var("c_n")
        c = {a: rows.var(f"c_{a}", free=True) for a in "to"}
        lam = rows.var("lam")
        acc = {a: rows.var(f"a_{a}", free=True) for a in "to"}
        for a, pos in (("n", cn), ("t", c["t"]), ("o", c["o"])):
            rows.set_force(a, [(1.0, pos)])
        rows.pairs.append(NORMAL_PAIR[0])
        squares = tuple((-1.0, Square(c[a])) for a in "to")
        slack = None
        if self.slack == "norm":
            slack = ((self.mu, cn), (-1.0, Norm((c["t"], c["o"]), self.norm_eps)))
        add_ellipse(
            rows, "to", {}, self.mu, {"t": 1.0, "o": 1.0}, cn, (lam, c, acc), squares, key="cone", slack=slack
        )
        return rows.rows()

    def friction_set(self) -> FrictionSet:
        from contactmodel.friction.pyramid import Pyramid

        return FrictionSet(
            [EllipsoidPart("to", self.mu, 1.0)], f"cone mu={self.mu:g}", lcp_law=Pyramid(self.mu)
        )

    def law_residual(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> float:
        """At a rolling contact, the FCLIB natural map ``|c - P_K(c - a_hat)|`` with De Saxce's
        ``a_hat`` (both forms): it also counts a sliding acceleration at a contact whose friction is
        inside the cone, which the projection form of the base class weighs by ``mu c_n`` only."""
        if ctx.sliding("to"):
            return super().law_residual(ctx, force, accel)
        # one 3-vector: scalar arithmetic (the vectorized cones.residual costs ~0.1 ms per call)
        mu = self.mu
        cn, ct, co = (float(v) for v in force[:3])
        an, at, ao = (float(v) for v in accel[:3])
        zn, zt, zo = cn - (an + mu * math.hypot(at, ao)), ct - at, co - ao
        r = math.hypot(zt, zo)
        if r <= mu * zn:
            pn, pt, po = zn, zt, zo
        elif mu * r <= -zn:
            pn = pt = po = 0.0
        else:
            pn = (zn + mu * r) / (1.0 + mu * mu)
            pt, po = mu * pn * zt / r, mu * pn * zo / r
        return max(abs(cn - pn), abs(ct - pt), abs(co - po))

    def residual_plan(self, contexts: list[ContactContext]) -> _ConePlan:
        """Which of these contacts roll (checked against the cone by :func:`cones.residual`) and the
        base residual's plan of the others; independent of the point."""
        rolling = np.array([not ctx.sliding("to") for ctx in contexts], dtype=bool)
        slid = [ctx for ctx, r in zip(contexts, rolling) if not r]
        return _ConePlan(rolling, bool(rolling.all()), int(rolling.sum()), slid, self._plan(slid))

    def law_residuals(
        self, contexts: list[ContactContext], force: np.ndarray, accel: np.ndarray, plan=None
    ) -> np.ndarray:
        """:meth:`law_residual` of k contacts, vectorized (the rolling ones by :func:`cones.residual`);
        ``plan``: their :meth:`residual_plan`, when the caller kept it."""
        plan = self.residual_plan(contexts) if plan is None else plan
        force = np.asarray(force, dtype=float).reshape(len(contexts), -1)
        accel = np.asarray(accel, dtype=float).reshape(force.shape)
        mu = np.full(plan.rolled, self.mu)
        if plan.all_rolling:
            return np.abs(cone_residual(force[:, :3], accel[:, :3], mu)).max(axis=1)
        rolling = plan.rolling
        out = np.zeros(len(contexts))
        if plan.rolled:
            out[rolling] = np.abs(cone_residual(force[rolling, :3], accel[rolling, :3], mu)).max(axis=1)
        out[~rolling] = self._set_residuals(plan.slid, force[~rolling], accel[~rolling], plan.slid_plan)
        return out

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        values = {"c_n": float(force[0])}
        if self.form == "soc" and not ctx.sliding("to"):
            values.update(c_t=float(force[1]), c_o=float(force[2]))
        elif not ctx.sliding("to"):
            values.update(
                c_t=float(force[1]),
                c_o=float(force[2]),
                a_t=float(accel[1]),
                a_o=float(accel[2]),
                lam=float(np.hypot(accel[1], accel[2])),
            )
        return values


def cone_form(laws: Mapping[str, FrictionLaw]) -> str | None:
    """The form of the contacts among ``laws`` (name -> law) whose law has two statements
    (:attr:`~contactmodel.friction.base.FrictionLaw.form`: CoulombCone, AnisotropicCone,
    EllipticTorsion, Ellipsoid): ``"soc"``, ``"mncp"``, ``"soc+mncp"`` when both occur, None when
    no law has a form."""
    forms = {law.form for law in laws.values() if law.form is not None}
    return "+".join(sorted(forms, reverse=True)) if forms else None
