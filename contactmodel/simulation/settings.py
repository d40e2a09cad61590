"""Checks of :func:`contactmodel.simulate`'s settings made before its first step.

A setting that cannot work (an unknown friction spec, solver or solver option, a law the solver
cannot take, a step longer than the run, ...) is reported before any time is spent stepping,
as a :class:`~contactmodel.errors.ContactModelError` naming the field and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from contactmodel import solvers
from contactmodel.errors import ContactModelError, FrictionLawError
from contactmodel.friction.base import FrictionLaw
from contactmodel.friction.spec import parse_friction

#: largest valid ``beta``: the drift term removes the fraction beta of a penetration per step,
#: so beta > 1 would push a contact past the surface (an overlap turned into a gap)
BETA_MAX = 1.0


class SimulationSettingError(ContactModelError):
    """A setting of :func:`contactmodel.simulate` cannot be used (checked before the first step)."""


def friction_setting(friction) -> FrictionLaw | Mapping | None:
    """``simulate``'s ``friction`` with spec strings (``"cone:0.5"``) parsed: a law, a mapping
    contact name -> law, or None; anything else raises :class:`SimulationSettingError`."""
    if friction is None or isinstance(friction, FrictionLaw):
        return friction
    if isinstance(friction, str):
        try:
            return parse_friction(friction)
        except FrictionLawError as exc:
            raise SimulationSettingError(f"simulate: friction={friction!r}: {exc}") from None
    if isinstance(friction, Mapping):
        return {name: friction_setting_of(name, law) for name, law in friction.items()}
    raise SimulationSettingError(
        f"simulate: friction must be a friction law, a spec such as 'cone:0.5', a mapping contact "
        f"name -> law, or None (got {type(friction).__name__})"
    )


def friction_setting_of(name: str, law) -> FrictionLaw:
    if isinstance(law, str):
        try:
            return parse_friction(law)
        except FrictionLawError as exc:
            raise SimulationSettingError(f"simulate: friction['{name}']={law!r}: {exc}") from None
    if not isinstance(law, FrictionLaw):
        raise SimulationSettingError(
            f"simulate: friction['{name}'] must be a friction law or a spec such as 'cone:0.5' "
            f"(got {type(law).__name__})"
        )
    return law


def check_steps(t_end: float, dt: float) -> int:
    """The number of steps of a run of ``t_end`` s in steps of ``dt`` s (at least one)."""
    if not (math.isfinite(dt) and dt > 0):
        raise SimulationSettingError(f"simulate: dt must be a finite step > 0 s (got {dt})")
    if not math.isfinite(t_end):
        raise SimulationSettingError(f"simulate: t_end must be a finite duration in s (got {t_end})")
    n_steps = int(np.floor(t_end / dt + 1e-9))
    if n_steps < 1:
        raise SimulationSettingError(
            f"simulate: t_end = {t_end:g} s is shorter than one step dt = {dt:g} s: give t_end >= dt "
            "(or a smaller dt)"
        )
    return n_steps


def check_settings(sim, t_end: float) -> int:
    """Check a :class:`~contactmodel.simulation.stepper.Simulator`'s settings before its first
    step; the number of steps of the run."""
    n_steps = check_steps(t_end, sim.h)
    system = sim.system
    if not system.bodies and not system.manipulators:
        raise SimulationSettingError(
            "simulate: the system has no body and no manipulator: nothing moves; add bodies "
            "(system.add_body) or manipulators before simulating"
        )
    if not 0.0 <= sim.beta <= BETA_MAX:
        raise SimulationSettingError(
            f"simulate: beta = {sim.beta:g} is out of range [0, {BETA_MAX:g}]: beta is the fraction of a "
            "penetration removed per step (Baumgarte-like overlap correction; 0 only stops it "
            "growing, 1 removes it in one step, more would push the bodies apart past the surface)"
        )
    info = solvers.get(sim.solver)
    solvers.make_options(
        sim.solver, {k: v for k, v in sim.solver_options.items() if k not in _dispatcher_keywords()}
    )
    for where, law, torsion in laws_in_use(sim):
        if law.needs_torsion and not torsion:
            fix = (
                "declare the contact with torsion=True"
                if where.startswith("contact")
                else "pass torsion=True to simulate (generated contacts then carry a torsional row)"
            )
            raise SimulationSettingError(
                f"simulate: {where} uses {type(law).__name__}, which needs a torsional moment about "
                f"the normal: {fix}"
            )
    if info.lcp_only or not info.cones or info.quadratic_only:
        for where, law, torsion in _distinct(laws_in_use(sim)):
            _check_fit(sim.solver, law, torsion, where)
    return n_steps


def laws_in_use(sim) -> list[tuple[str, FrictionLaw, bool]]:
    """(where, law, torsion) of every law a run may use: declared contacts' (after ``friction``)
    and the planes' generated contacts'. A contact left without a law raises."""
    out = []
    friction = sim.friction
    for tracked in sim.tracked:
        contact = tracked.contact
        out.append((f"contact '{contact.name}'", sim.law_of(contact), contact.torsion))
    generated = sim.planes or sim.collide
    for plane in sim.planes:
        law = plane.friction if plane.friction is not None else friction
        if isinstance(law, Mapping):
            out += [(f"friction['{name}']", each, sim.torsion) for name, each in law.items()]
        elif law is None:
            raise SimulationSettingError(
                f"simulate: the contacts generated on Plane '{plane.name}' have no friction law: give "
                "friction= to simulate or to the Plane"
            )
        else:
            out.append((f"Plane '{plane.name}'", law, sim.torsion))
    if generated and isinstance(friction, FrictionLaw):
        out.append(("friction", friction, sim.torsion))
    return out


def _dispatcher_keywords() -> set[str]:
    """The keywords of ``cm.solve`` itself (``accept_tol``, ``fallback``, ...): the others are
    the solver's options."""
    import inspect

    from contactmodel.solve import solve

    params = inspect.signature(solve).parameters.values()
    return {p.name for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD}


def _distinct(entries: Iterable[tuple[str, FrictionLaw, bool]]) -> list[tuple[str, FrictionLaw, bool]]:
    seen, out = set(), []
    for where, law, torsion in entries:
        key = (law.key, torsion)
        if key not in seen:
            seen.add(key)
            out.append((where, law, torsion))
    return out


def _check_fit(solver: str, law: FrictionLaw, torsion: bool, where: str) -> None:
    """Raise when ``solver`` cannot solve a contact under ``law`` (one box on the ground, at
    rest, as ``cm.solve`` would state it for that solver)."""
    from contactmodel.formulation import formulate
    from contactmodel.solve import check_solver_fits
    from contactmodel.system import System

    probe = System()
    box = probe.add_body("probe", 1.0, np.eye(3))
    probe.add_contact(box, probe.ground, point=(0, 0, 0), normal=(0, 0, 1), friction=law, torsion=torsion)
    try:
        check_solver_fits(solver, formulate(probe))
    except ContactModelError as exc:
        raise SimulationSettingError(f"simulate: {where} ({type(law).__name__}) and solver: {exc}") from None
