"""Other statements of one contact problem, each with a way back (after cvxpy's reduction chain).

One physical problem has several MCPs: the reduced or the sparse form (see
:mod:`contactmodel.formulation`), and each :class:`~contactmodel.CoulombCone` contact as a
second-order-cone block or as the MNCP of Trinkle et al. (1997) (see
:mod:`contactmodel.friction.cone`). A :class:`Reduction` states a problem in one of them:
:meth:`~Reduction.apply` gives the new :class:`~contactmodel.formulation.Problem` (the problem
itself when nothing changes) and remembers both ends; :meth:`~Reduction.forward` carries a point
of the source's MCP (a starting point) to the target's variables, :meth:`~Reduction.invert` an
answer of the target back to the source's. A :class:`Chain` applies several in turn.

- :class:`ConeFormSwitch` puts CoulombCone contacts in the SOC or the MNCP form: ``ConeFormSwitch("mncp",
  automatic_only=True)`` is what :func:`contactmodel.solve` applies for a solver that takes no cone
  blocks (also :func:`without_cone_blocks`), ``ConeFormSwitch(form)`` a retry of :mod:`contactmodel.fallback`.
- :class:`FormSwitch` puts the problem in the reduced or the sparse form.
- :class:`Unloaded` states named contacts frictionless (a retry of :mod:`contactmodel.fallback` for
  contacts at c_n = 0, where every law's friction is 0 too).

A point is carried physically, not by variable name: the forces of the point (the source's
:meth:`~contactmodel.formulation.Problem.interpret`) are lifted by the target's laws to its own
variables (:meth:`~contactmodel.formulation.Problem.load_forces`) and read back in the target's
MCP order. Both problems are left holding the point. A chain carries between its two ends in one
lift (the forces are the same physical quantity in every statement, so the intermediate problems
add nothing); a reduction that changed nothing carries nothing (the point is returned as given).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from contactmodel.constants import Form
from contactmodel.errors import ContactModelError
from contactmodel.formulation import Problem
from contactmodel.friction.base import FrictionLaw
from contactmodel.friction.cone import ConeForm
from contactmodel.friction.frictionless import Frictionless

__all__ = ["Chain", "ConeFormSwitch", "FormSwitch", "Reduction", "Unloaded", "without_cone_blocks"]


class Reduction:
    """One change of statement of a contact :class:`~contactmodel.formulation.Problem`.

    Subclasses say what they do in :attr:`label` and state the problem in :meth:`state`. After
    :meth:`apply`, :attr:`source` and :attr:`target` are the two problems; :meth:`forward` and
    :meth:`invert` carry points between their MCPs (see the module docstring). Applying again
    re-binds the reduction to the new problem."""

    label: str = ""

    def __init__(self) -> None:
        self.source: Problem | None = None
        self.target: Problem | None = None

    def accepts(self, problem) -> bool:
        """Whether this reduction applies to ``problem``: a contact Problem (a bare MCP has one
        statement only)."""
        return isinstance(problem, Problem)

    def state(self, problem: Problem) -> Problem:
        """``problem`` in this reduction's statement; ``problem`` itself when nothing changes."""
        raise NotImplementedError

    def apply(self, problem: Problem) -> Problem:
        """The problem in this reduction's statement (:meth:`state`), both ends remembered."""
        if not self.accepts(problem):
            raise ContactModelError(f"{type(self).__name__} applies to a contact Problem, not {problem!r}")
        target = self.state(problem)
        self.source, self.target = problem, target
        return target

    @property
    def changed(self) -> bool:
        """Whether the last :meth:`apply` stated a problem of its own (else both ends are one)."""
        return self.target is not self.source

    def forward(self, x: np.ndarray) -> np.ndarray:
        """A point of the source's MCP carried to the target's variables (e.g. a starting point)."""
        return _carry(self.source, self.target, x) if self._applied().changed else x

    def invert(self, x: np.ndarray) -> np.ndarray:
        """A point of the target's MCP (e.g. the answer of a solver) carried back to the source's."""
        return _carry(self.target, self.source, x) if self._applied().changed else x

    def _applied(self) -> Reduction:
        if self.source is None:
            raise ContactModelError(f"{type(self).__name__}: apply it to a problem first")
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r})"


class ConeFormSwitch(Reduction):
    """The contacts of laws with two statements (CoulombCone, AnisotropicCone, EllipticTorsion,
    Ellipsoid; see :meth:`~contactmodel.friction.base.FrictionLaw.restated`) in ``form``
    (:class:`~contactmodel.friction.cone.ConeForm`). ``automatic_only``: only the automatic-form
    contacts (``form=None``: ``CoulombCone(mu)``, ``AnisotropicCone(mu_t, mu_o)``,
    ``EllipticTorsion(mu)``, ``Ellipsoid(mu)``, formulated in the SOC form) change, to the MNCP
    form; what :func:`contactmodel.solve` does for a solver without cone blocks. Otherwise every
    contact whose law :meth:`~contactmodel.friction.base.FrictionLaw.restated` states in ``form``
    changes (a retry of :mod:`contactmodel.fallback`; not a CoulombCone MNCP with
    ``slack="norm"``, which has no SOC statement). The new problem is formulated from the same
    assembly and given the source model's mutable parameters (``b``, ``f``, ``bias``: changed in
    place by re-solving code); its variables and so its MCP order are the new form's."""

    def __init__(self, form: ConeForm | str, automatic_only: bool = False) -> None:
        super().__init__()
        form = ConeForm.parse(form, "ConeFormSwitch.form", ContactModelError)
        if automatic_only and form != "mncp":
            raise ContactModelError("ConeFormSwitch: automatic_only swaps the automatic SOC contacts to MNCP")
        self.form, self.automatic_only = form, automatic_only
        self.label = f"with the cone in the {form.upper()} form"

    def swap(self, problem: Problem) -> dict[str, FrictionLaw]:
        """The contacts this reduction restates: name -> the law in the new form."""
        laws = problem.laws
        if self.automatic_only:
            return {
                name: law.restated("mncp") for name, law in laws.items() if law.auto and law.form == "soc"
            }
        restated = {name: law.restated(self.form) for name, law in laws.items()}
        return {name: law for name, law in restated.items() if law is not None}

    def state(self, problem: Problem) -> Problem:
        return _with_laws(problem, self.swap(problem))


class FormSwitch(Reduction):
    """The problem in ``form`` (:class:`~contactmodel.constants.Form`: reduced or sparse),
    formulated again from the same assembly with the same laws."""

    def __init__(self, form: Form | str) -> None:
        super().__init__()
        self.form = Form(form)
        self.label = f"in the {self.form} form"

    def state(self, problem: Problem) -> Problem:
        return problem if Form(problem.form) is self.form else problem.reformulate(form=self.form)


class Unloaded(Reduction):
    """The contacts ``names`` frictionless (:class:`~contactmodel.friction.frictionless.Frictionless`),
    the others as they are. A point of the new problem whose forces at those contacts are 0 is a
    point of the source's as well, with the same residuals: a law's friction set at c_n = 0 is
    {0}. Used where a law's rows are degenerate at c_n = 0 (the quadratic slack of the soft-finger
    and cone MNCPs), which leaves a Newton method's friction forces there ~sqrt of its residual
    off; the frictionless rows are not."""

    def __init__(self, names: Iterable[str]) -> None:
        super().__init__()
        self.names = tuple(names)
        more = len(self.names) - 4
        shown = ", ".join(self.names[:4]) + (f" and {more} more" if more > 0 else "")
        self.label = f"with the unloaded contacts {shown} frictionless"

    def state(self, problem: Problem) -> Problem:
        return _with_laws(problem, {name: Frictionless() for name in self.names})


class Chain(Reduction):
    """Reductions applied in turn, each to the problem the last one stated; those that do not
    accept a problem (e.g. any of them, given a bare MCP) are passed over. Points are carried
    between the chain's two ends in one lift (see the module docstring)."""

    def __init__(self, reductions: Iterable[Reduction] = ()) -> None:
        super().__init__()
        self.reductions = tuple(reductions)
        self.label = " ".join(r.label for r in self.reductions)

    def accepts(self, problem) -> bool:
        return True

    def state(self, problem):
        for reduction in self.reductions:
            reduction.source = reduction.target = None
            if reduction.accepts(problem):
                problem = reduction.apply(problem)
        return problem

    @property
    def applied(self) -> list[Reduction]:
        """The reductions of the last :meth:`apply` that changed the problem, in order."""
        return [r for r in self.reductions if r.source is not None and r.changed]

    def __repr__(self) -> str:
        return f"Chain({list(self.reductions)!r})"


def without_cone_blocks(problem: Problem) -> Problem:
    """``problem`` with its automatic-form cone contacts in the MNCP form, for a consumer that
    takes no cone blocks (``ConeFormSwitch("mncp", automatic_only=True)``); ``problem`` itself when it has
    none."""
    return ConeFormSwitch("mncp", automatic_only=True).apply(problem)


def _with_laws(problem: Problem, swap: Mapping[str, FrictionLaw]) -> Problem:
    """``problem`` reformulated with the laws ``swap`` (contact name -> law) in place of its own,
    the mutable parameters copied over; ``problem`` itself when ``swap`` is empty."""
    if not swap:
        return problem
    twin = problem.reformulate(friction={**problem.laws, **swap})
    if not problem.built:  # its numbers are the assembly's, which the twin is formulated from
        return twin
    from contactmodel._pyomo import pe  # the model is built: Pyomo is loaded

    for param in problem.model.component_objects(pe.Param, descend_into=False):
        if param.mutable:
            target = twin.model.component(param.local_name)
            for index in param:
                target[index] = pe.value(param[index])
    return twin


def _carry(source: Problem, target: Problem, x: np.ndarray) -> np.ndarray:
    """The point of ``target``'s MCP (its variable order) with the physical values of the point ``x``
    of ``source``'s MCP: the forces at ``x``, lifted by ``target``'s laws to their own variables
    (both formulated from the same assembly). Both problems are left holding the point."""
    forces = source.interpret(np.asarray(x, dtype=float)).forces
    point = target.point_at(forces)
    target.compile().load(point)
    return point
