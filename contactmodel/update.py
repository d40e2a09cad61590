"""New numbers for a formulated Problem without rebuilding or recompiling it (:meth:`Problem.update
<contactmodel.formulation.Problem.update>`).

The model keeps every number that may change in mutable Params: ``model.b`` (reduced form),
``model.f`` and ``model.bias`` (sparse form) and each cone block's ``mu``
(``CoulombCone(mu, form="soc")``). An update writes them, gives the problem an assembly copy
with the same numbers (the dispatcher's checks, :meth:`Problem.interpret
<contactmodel.formulation.Problem.interpret>` and the modes read the assembly) and, for ``mu``,
law objects with the new coefficient. The next :meth:`Problem.compile
<contactmodel.formulation.Problem.compile>` re-reads the Params into the same compiled MCP.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from contactmodel import validate
from contactmodel.errors import FormulationError
from contactmodel.friction.base import check_coefficient

if TYPE_CHECKING:  # annotations only: formulation imports this module
    from contactmodel.assembly import ContactAssembly
    from contactmodel.interfaces import ContactProblem as Problem

#: the keywords of Problem.update
FIELDS = ("b", "f", "mu")


def update(problem: Problem, b=None, f=None, mu=None) -> None:
    """See :meth:`Problem.update <contactmodel.formulation.Problem.update>`."""
    if b is not None and f is not None:
        raise FormulationError(
            "Problem.update: give b or f, not both (b follows from f); update f, then b if the "
            "accelerations need a further offset"
        )
    asm = problem.assembly
    if b is not None:
        b = validate.real_array(b, "Problem.update: b", shape=(asm.m,), error=FormulationError)
        _replace_assembly(problem, _with_b(asm, b))
    if f is not None:
        if not asm.has_dynamics:
            raise FormulationError(
                "Problem.update: f needs a problem built from a System (bodies, masses, forces); "
                "a problem given by A and b has no f: update b instead"
            )
        f = validate.real_array(f, "Problem.update: f", shape=asm.f.shape, error=FormulationError)
        _replace_assembly(problem, _with_f(asm, f))
    if mu is not None:
        _update_mu(problem, mu)


def adopt_param_edits(problem: Problem) -> None:
    """Take edits of the model's mutable Params (``model.b[r] = ...``; ``model.f``, ``model.bias``)
    made by hand since the last call into the problem's assembly, so the dispatcher's checks
    and modes judge an answer against the numbers the MCP was built with. Params are taken to
    match the assembly whenever the assembly was replaced (by :func:`update` or the time
    stepper); reading them costs ~0.1 ms for 1000 contacts. Nothing to take before the model is
    built (its Params are then made from the assembly)."""
    if not problem.built:
        return
    model = problem.model
    now = {name: _read(model.component(name)) for name in _params(problem)}
    seen = problem._params_seen
    if seen is not None and seen[0] is problem.assembly:
        before = seen[1]
        asm = problem.assembly
        if "b" in now and not np.array_equal(now["b"], before["b"]):
            asm = _with_b(asm, now["b"])
        if "f" in now and not np.array_equal(now["f"], before["f"]):
            f = asm.f.copy()
            f[asm.free] -= now["f"] - before["f"]  # model.f = -(f_F - M_FP nu_dot_P)
            asm = _with_f(asm, f)
        if "bias" in now and not np.array_equal(now["bias"], before["bias"]):
            asm = _with_gdot_nu(asm, asm.gdot_nu + (now["bias"] - before["bias"]))
        if asm is not problem.assembly:
            _adopt(problem, asm)
    problem._params_seen = (problem.assembly, now)


def _params(problem: Problem) -> tuple[str, ...]:
    """The model's mutable Params that hold assembly numbers: b (reduced form); f and bias
    (sparse form). Components of the user's own with these names elsewhere are not read."""
    return ("b",) if problem.form == "reduced" else ("f", "bias")


def _with_gdot_nu(asm: ContactAssembly, gdot_nu: np.ndarray) -> ContactAssembly:
    new = copy.copy(asm)
    new.gdot_nu = gdot_nu
    new.__dict__.pop("b", None)
    return new


def _with_b(asm: ContactAssembly, b: np.ndarray) -> ContactAssembly:
    """A copy of ``asm`` whose a = A c + b has the given b. With bodies behind it, the change
    goes into ``gdot_nu`` (the velocity-product term of a = G nu_dot + gdot_nu), so the motion,
    the sparse form and every check agree with it."""
    new = copy.copy(asm)  # cached A, M^-1 stay shared
    if asm.has_dynamics:
        new.gdot_nu = asm.gdot_nu + (b - asm.b)
    new.__dict__["b"] = b.copy()
    return new


def _with_f(asm: ContactAssembly, f: np.ndarray) -> ContactAssembly:
    """A copy of ``asm`` with generalized forces ``f``; its b is recomputed on first use."""
    new = copy.copy(asm)
    new.f = f.copy()
    new.__dict__.pop("b", None)
    return new


def _replace_assembly(problem: Problem, new: ContactAssembly) -> None:
    """Give the problem the assembly ``new`` (same rows, other numbers) and write the model's
    Params to match: ``b`` (reduced); ``f`` and ``bias`` shifted by the change (sparse)."""
    old = problem.assembly
    model = problem.model if problem.built else None  # an unbuilt model takes the new assembly's
    if model is None:
        pass
    elif problem.form == "reduced":
        _write(model.b, new.b)
    else:
        _write(model.bias, _read(model.bias) + (new.gdot_nu - old.gdot_nu))
        _write(model.f, _read(model.f) - (new.f - old.f)[old.free])  # model.f = -(f_F - M_FP nu_dot_P)
    _adopt(problem, new)


def _adopt(problem: Problem, new: ContactAssembly) -> None:
    """Give the problem the assembly ``new`` (same rows, names and sliding contacts: a current
    layout stays valid)."""
    layout = problem._layout
    current = layout is not None and layout.current(problem)
    problem.assembly = new
    if current:
        layout.assembly = new


def _read(param) -> np.ndarray:
    return np.array([p._value for p in param._data.values()], dtype=float)


def _write(param, values: np.ndarray) -> None:
    """Write an indexed mutable Param's entries in index order: its stored values, directly
    (Pyomo's item assignment costs ~5 us per entry, 15 ms for 1000 contacts; the formulation
    makes these Params indexed by range(len), in order)."""
    for p, v in zip(param._data.values(), np.asarray(values, dtype=float).tolist()):
        p._value = v


def _update_mu(problem: Problem, mu) -> None:
    """New friction coefficients for cone-block contacts (see :meth:`Problem.update`)."""
    from contactmodel.friction.cone import CoulombCone

    names = problem.contact_names
    if isinstance(mu, Mapping):
        unknown = sorted(set(mu) - set(names))
        if unknown:
            raise FormulationError(
                f"Problem.update: mu names unknown contact(s) {unknown}; the contacts are {names}"
            )
        wanted = {name: mu[name] for name in names if name in mu}
    else:
        values = validate.real_array(mu, "Problem.update: mu", error=FormulationError)
        if values.ndim > 1 or (values.ndim == 1 and values.shape != (len(names),)):
            raise FormulationError(
                f"Problem.update: mu must be one number, one per contact ({len(names)}) or a mapping "
                f"contact name -> mu (got shape {values.shape})"
            )
        wanted = dict(zip(names, np.broadcast_to(values, (len(names),)).tolist()))
    laws = dict(problem.laws)
    made: dict[tuple[int, float], CoulombCone] = {}
    for name, value in wanted.items():
        value = check_coefficient(value, f"Problem.update: mu of contact '{name}'")
        law = laws[name]
        if getattr(law, "mu", None) == value:
            continue
        if problem.built:
            cone = problem.block(name).component("cone")
            has_cone = cone is not None
        else:  # the rows the model would be built with
            cone, has_cone = None, problem.rows_statement[name].cone is not None
        if not isinstance(law, CoulombCone) or not has_cone:
            raise FormulationError(
                f"Problem.update: contact '{name}' has {law!r}, whose mu is a coefficient of the "
                "model's rows (or a sliding contact's force map), not a number the model re-reads; "
                "only CoulombCone(mu, form='soc') at a rolling contact takes a new mu in place. "
                "Build the problem with the new law: problem.reformulate(friction=...)"
            )
        new = made.get((id(law), value))
        if new is None:
            new = made[(id(law), value)] = copy.copy(law)
            new.mu = value
        laws[name] = new
        if cone is not None:
            cone.mu._value = value
        else:  # the rows the model will be built with, and the MCP made without it reads
            problem.rows_statement[name] = new.rows(problem.contexts[name])
    problem.laws = laws
