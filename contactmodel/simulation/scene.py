"""The instantaneous contact problem of a simulation scene at its initial state.

A model file for ``contactmodel simulate`` declares its planes (and controllers) in
``simulation()``, not in ``build()``: the contacts against the planes are generated as the
bodies touch them. :func:`instant_system` finds the contacts that touch at t = 0 (declared
ones and those generated against the planes and between shaped bodies, as the first step of
:func:`~contactmodel.simulate` finds them) and returns the System with exactly those
contacts, so that ``contactmodel solve`` and ``draw`` solve the scene the run starts from.
"""

from __future__ import annotations

import inspect

import numpy as np

from contactmodel.system import System

#: the ``simulate`` keywords that shape the contacts at t = 0 (the others are about stepping)
SCENE_KEYWORDS = ("friction", "planes", "margin", "wrenches", "efforts", "torsion", "collide")


def instant_system(system: System, dt: float = 1e-3, **options) -> System:
    """``system`` at t = 0 with the contacts the first step of ``simulate(system, dt=dt,
    **options)`` finds touching (gap at most ``margin``, m): declared contacts at their current
    points and frames, and the contacts generated against ``planes`` and between Box/Sphere
    bodies. Controllers in ``wrenches`` / ``efforts`` are evaluated at t = 0. Keywords other
    than :data:`SCENE_KEYWORDS` are ignored. The bodies are copies of the system's."""
    from contactmodel.simulation.kinematics import step_system
    from contactmodel.simulation.stepper import Simulator

    accepted = set(inspect.signature(Simulator).parameters) & set(SCENE_KEYWORDS)
    sim = Simulator(system, dt, **{k: v for k, v in options.items() if k in accepted})
    state = sim.state()
    for name, fn in sim.wrenches.items():
        body = next(b for b in sim.system.bodies if b.name == name)
        body.wrench = np.asarray(fn(0.0, state), dtype=float)
    for name, fn in sim.efforts.items():
        arm = next(a for a in sim.system.manipulators if a.name == name)
        arm.efforts = list(np.asarray(fn(0.0, state), dtype=float))
    contacts, gaps = sim.contacts()
    touching = [c for c, g in zip(contacts, gaps) if g <= sim.margin]
    instant = step_system(sim.system, touching)
    instant.normal_velocity_tol = system.normal_velocity_tol
    return instant


__all__ = ["SCENE_KEYWORDS", "instant_system"]
