"""Quasistatic contact problems (``cm.quasistatic``) and a quasistatic stepper (``cm.push``).

Trinkle, Pang, Sudarsky and Lo ("On dynamic multi-rigid-body contact problems with Coulomb
friction", 1997, §2.5) name the quasistatic variation of their model: the inertia terms are
dropped, the model of slow manipulation (pushing, grasping, assembly); Pang, Trinkle and Lo ("A
complementarity approach to a quasistatic multi-rigid-body contact problem", Computational
Optimization and Applications, 1996) give its complementarity formulation. With nu the
generalized velocities, F the free coordinates and P the driven ones (driven bodies' twists,
joints with an unknown effort, all prescribed), the problem is the project's sparse form with
M = 0, no velocity-dependent bias, and velocities in place of accelerations:

    0 = G_F^T c + f_F                 (equilibrium, matched with the free velocities nu_F)
    v = G_F nu_F + G_P nu_P           (relative contact velocities: the laws' rows)

and at every contact the friction law's rows for a contact at rest, stated on v instead of the
acceleration: 0 <= c_n _|_ v_n >= 0 and maximum dissipation of the friction force against the
sliding velocity (the same :class:`~contactmodel.friction.rows.ContactRows`, so every law and its
one-declaration swap apply). The numbers are a
:class:`~contactmodel.assembly.QuasistaticAssembly`; the MCP is compiled by the same code as the
dynamic sparse form. Its Newton-Euler block is 0, so the free velocities are determined through
the contact rows alone: a body not held by its contacts in some direction (no contact resisting
it) makes the problem singular, and a statically indeterminate one makes its forces non-unique;
the motion may be non-unique too (``cm.decide`` and ``cm.all_solutions`` tell).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation

from contactmodel.assembly import assemble_quasistatic
from contactmodel.constants import Form
from contactmodel.errors import ContactModelError, DeclarationError
from contactmodel.formulation import Problem, formulate
from contactmodel.manipulator import LinkRef
from contactmodel.solution import Solution
from contactmodel.system import Body, System


def quasistatic(system: System, driven=None, friction=None, form: Form | str = Form.SPARSE) -> Problem:
    """The quasistatic problem of ``system`` at its current positions (see the module docstring).

    ``driven`` maps a body's name to its prescribed twist (6 numbers: velocity of the centre of
    mass in m/s, angular velocity in rad/s, world frame) and a manipulator's name to one rate per
    joint (None for a joint left free; a driven joint must be declared with an unknown effort,
    ``efforts[i] = None``; such a joint not driven is held at rate 0). Every other body and joint
    is free: its velocity is unknown and its equilibrium holds. ``friction`` as in
    :func:`~contactmodel.formulation.formulate`. ``form``: only ``"sparse"`` (there is no reduced
    form without inertia).

    :func:`contactmodel.solve` returns a Solution whose bodies carry ``linear_velocity`` and
    ``angular_velocity`` (a driven body its ``driving_wrench``), whose contacts carry their
    relative ``velocity``, and whose modes read at the velocity level (roll: stick, slip: slide,
    separate: v_n > 0).
    """
    form = Form.parse(form)
    if form is not Form.SPARSE:
        raise DeclarationError(
            "quasistatic: form must be 'sparse' (without inertia the velocities cannot be "
            "eliminated, so there is no reduced form)"
        )
    return formulate(assemble_quasistatic(system, driven), friction=friction, form=form)


@dataclass
class PushPath:
    """The positions a quasistatic stepper went through.

    ``times`` (k+1,) s; ``positions`` (k+1, nb, 3) m and ``rotations`` (k+1, nb, 3, 3) of each
    body (``names``) at each time; ``joints`` (k+1, nj) joint positions of the manipulators;
    ``solutions`` the k step solutions; ``system`` the system at the end (a copy of the one given).
    """

    times: np.ndarray
    names: list[str]
    positions: np.ndarray
    rotations: np.ndarray
    joints: np.ndarray
    solutions: list[Solution] = field(repr=False)
    system: System = field(repr=False)

    def position(self, body: str) -> np.ndarray:
        """(k+1, 3) the positions of one body."""
        return self.positions[:, self.names.index(body)]

    def yaw(self, body: str) -> np.ndarray:
        """(k+1,) rad: one body's rotation about the world z axis (unwrapped)."""
        R = self.rotations[:, self.names.index(body)]
        return np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))


class PushError(ContactModelError):
    """A quasistatic step had no accepted solution."""


def push(
    system: System,
    driven,
    dt: float,
    steps: int,
    friction=None,
    solver: str = "newton",
    contacts: Callable[[System], None] | None = None,
    separate_tol: float = 1e-9,
    **options,
) -> PushPath:
    """Integrate positions under the driven motion, one quasistatic problem per step.

    Each step solves :func:`quasistatic` at the current positions, then moves every body by its
    twist over ``dt`` s (an exact rigid motion: the position by v dt, the rotation by the rotation
    vector omega dt) and every joint by its rate. ``driven``: as for :func:`quasistatic`, or a
    function of time (s) returning such a mapping. Contacts follow the bodies: a contact's point
    moves with ``body_a`` (put the body whose vertex touches first, e.g. a box corner on the
    ground) and its frame turns with ``body_b`` (the surface it touches); a contact separating
    (v_n > ``separate_tol``) is dropped. ``contacts(system)``, when given, is called after each
    move instead, to declare the contacts anew (e.g. from the shapes). ``system`` is not changed:
    the stepper works on a copy (returned in the path). A step without an accepted solution raises
    :class:`PushError`. Extra keywords go to :func:`contactmodel.solve`.
    """
    from contactmodel.solve import solve

    if not (isinstance(steps, int) and steps >= 0):
        raise DeclarationError(f"push: steps must be a whole number >= 0 (got {steps!r})")
    if not (np.isfinite(dt) and dt > 0):
        raise DeclarationError(f"push: dt must be a positive time step in s (got {dt!r})")
    system = copy.deepcopy(system)
    names = [b.name for b in system.bodies]
    positions, rotations, joints, solutions = [], [], [], []

    def record() -> None:
        positions.append([b.position.copy() for b in system.bodies])
        rotations.append([b.rotation.copy() for b in system.bodies])
        joints.append(np.concatenate([np.asarray(a.q, dtype=float) for a in system.manipulators] or [[]]))

    record()
    for k in range(steps):
        twists = driven(k * dt) if callable(driven) else driven
        problem = quasistatic(system, twists, friction=friction)
        sol = solve(problem, solver=solver, **options)
        if not sol.ok:
            raise PushError(
                f"push: step {k} (t = {k * dt:g} s) has no accepted solution ({sol.status.value}, "
                f"residual {sol.residual:.1e}); try a smaller dt, another solver, or check that every "
                "free body is held by its contacts"
            )
        solutions.append(sol)
        nu = problem.interpret(sol.x).motion.nu_dot
        _move(system, problem, nu, dt, sol, separate_tol, contacts)
        record()
    nb = len(names)
    return PushPath(
        times=dt * np.arange(steps + 1),
        names=names,
        positions=np.array(positions).reshape(steps + 1, nb, 3),
        rotations=np.array(rotations).reshape(steps + 1, nb, 3, 3),
        joints=np.array(joints),
        solutions=solutions,
        system=system,
    )


def _move(system: System, problem: Problem, nu: np.ndarray, dt: float, sol: Solution, tol: float, contacts):
    """Move the bodies, joints and contacts of ``system`` by the velocities nu over dt."""
    increments = {}
    for i, body in enumerate(system.bodies):
        v, w = nu[6 * i : 6 * i + 3], nu[6 * i + 3 : 6 * i + 6]
        R = Rotation.from_rotvec(w * dt).as_matrix()
        increments[id(body)] = (body.position.copy(), v * dt, R)
    offset = 6 * len(system.bodies)
    before = {id(a): (a, np.asarray(a.q, dtype=float).copy()) for a in system.manipulators}
    for body in system.bodies:
        x0, dx, R = increments[id(body)]
        body.position = x0 + dx
        body.rotation = R @ body.rotation
    if contacts is not None:
        for arm in system.manipulators:
            n = len(arm.joints)
            arm.q = np.asarray(arm.q, dtype=float) + dt * nu[offset : offset + n]
            offset += n
        system.contacts.clear()
        contacts(system)
        return
    # contacts follow their bodies: point with body_a, frame with body_b (before the joints move)
    moved = []
    for contact, result in zip(list(system.contacts), sol.contacts):
        if result.velocity is not None and result.velocity[0] > tol:
            continue  # separating
        contact.point = _carry(contact.body_a, contact.point, increments, nu, dt, problem)
        turn = _turn(contact.body_b, increments, nu, dt, problem)
        if turn is not None:
            contact.frame = contact.frame @ turn.T
        moved.append(contact)
    system.contacts[:] = moved
    for arm, q0 in before.values():
        n = len(arm.joints)
        arm.q = q0 + dt * nu[offset : offset + n]
        offset += n


def _carry(
    body, point: np.ndarray, increments: dict, nu: np.ndarray, dt: float, problem: Problem
) -> np.ndarray:
    """Where a material point of ``body`` goes over the step."""
    if isinstance(body, Body):
        x0, dx, R = increments[id(body)]
        return x0 + dx + R @ (point - x0)
    if isinstance(body, LinkRef):
        arm = body.manipulator
        qdot = _rates(arm, nu, problem)
        return point + dt * (arm.point_jacobian(body.index, point) @ qdot)
    return point


def _turn(body, increments: dict, nu: np.ndarray, dt: float, problem: Problem) -> np.ndarray | None:
    """The rotation of ``body`` over the step (None for the ground)."""
    if isinstance(body, Body):
        return increments[id(body)][2]
    if isinstance(body, LinkRef):
        arm = body.manipulator
        w = arm.angular_jacobian(body.index) @ _rates(arm, nu, problem)
        return Rotation.from_rotvec(w * dt).as_matrix()
    return None


def _rates(arm, nu: np.ndarray, problem: Problem) -> np.ndarray:
    """The joint rates of manipulator ``arm`` in nu."""
    coords = problem.assembly.coordinates
    start = coords.index(f"{arm.name}.{arm.joint_name(0)}")
    return nu[start : start + len(arm.joints)]
