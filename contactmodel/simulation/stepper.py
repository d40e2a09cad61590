"""Velocity-level time stepping (Stewart-Trinkle / Anitescu-Potra) with the same formulation.

One step of length h from velocities nu to nu+ with contact impulses p (N s) is the
instantaneous contact problem with every active contact rolling, read at another level:

    M nu+ = M nu + h f + G^T p,      v+ = G nu+ = A p + b,
    A = G M^-1 G^T,                  b = G nu + h G M^-1 f + d.

Forces become impulses and accelerations become post-step relative velocities, so each friction
law's rolling-contact conditions apply unchanged to (p, v+). The step is built by giving
:func:`contactmodel.formulate` an :class:`~contactmodel.assembly.Assembly` whose generalized
force is ``M nu + h f`` and whose velocity is zero (so every contact is rolling): its
"accelerations" are then exactly nu+.

The term d on the normal rows handles gaps and drift (gap g in m, negative when penetrating):
``d_n = g / h`` for an open contact (g > 0: the contact may close during the step but not pass
through) and ``d_n = 0`` for a penetrating one (the penetration stops growing). A fraction
``beta`` of each penetration is then removed by a position projection that does not feed the
velocities (split impulse: the frictionless LCP  A_nn lam + q >= 0 _|_ lam >= 0 on the normal rows
gives a pseudo-velocity M^-1 G_n^T lam added to nu+ in the pose update only; see
:meth:`Simulator.overlap_push`), so the correction never adds kinetic energy: putting a
penetration in the velocity problem instead (Baumgarte) launched overlapping boxes, a pile gaining
up to 3.8e-3 J per step. With Newton restitution ``e`` a closing
contact that reaches the surface during the step (g + h v_n <= 0) gets ``e v_n`` instead of
g / h (added to the penetration term): v_n+ >= -e v_n, the impact taken at the start of the step.
This holds for approach speeds above 10 h |g| only: slower impacts (a resting contact gains g h
of approach speed every step) are inelastic, so resting contacts do not chatter. Poses are
integrated semi-implicitly (new velocities, then positions; x+ = x + h v+,
q+ = exp(h omega+ / 2) q, renormalized).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial.transform import Rotation

from contactmodel import solvers
from contactmodel.assembly import Assembly, assemble
from contactmodel.constants import TOL, TOL_INACCURATE, Choice
from contactmodel.errors import ContactModelError, SolverError
from contactmodel.fallback import worth_retrying
from contactmodel.formulation import Problem, formulate
from contactmodel.friction.base import FrictionLaw
from contactmodel.mcp.types import MCP
from contactmodel.simulation import compliant
from contactmodel.simulation.collision import (
    Plane,
    PlaneCandidates,
    bounding_radius,
    frames,
    pair_candidates,
)
from contactmodel.simulation.kinematics import BodyKinematics, cross, step_system
from contactmodel.simulation.settings import SimulationSettingError, check_settings, friction_setting
from contactmodel.simulation.trajectory import HDF5_SUFFIXES, Journal, Trajectory, load
from contactmodel.solution import Solution
from contactmodel.solvers.base import Outcome, Status
from contactmodel.sparse_product import DenseCSR, csr_times, csr_transpose_times, dense_csr, index_dtype
from contactmodel.system import Body, Contact, Ground, LinkRef, System
from contactmodel.validate import integer, real

#: largest G (rows x columns) whose A = G M^-1 G^T is formed densely
DENSE_A = 20_000
#: the simulation tolerance (default ``step_tol`` of :func:`simulate`): a step that the solver leaves
#: solved-inaccurate (relative natural residual r between the dispatcher's ``accept_tol``, 1e-8, and 1e-5)
#: is accepted as it is when r <= step_tol, and only above it is the fallback ladder of ``cm.solve`` tried
#: (:func:`contactmodel.solve.rescue`; among its rungs cold re-solves of the whole step in the other form
#: and cone form: 6 s each on a 100-box pile). The residual is in the MCP's units, relative to s =
#: ||F(0)||_inf (``Solution.residual_scale``): for a step, post-step velocities (m/s) and impulses (N s), so
#: r <= 1e-6 leaves every contact's velocity within 1e-6 s m/s of the law (a position error of at most h r s
#: per step, 1e-9 s m at h = 1e-3 s), five orders below the scheme's own error of order g h per step when s
#: (a velocity and impulse scale) is order 1. Such steps keep their status "solved-inaccurate" and residual
#: in the Trajectory.
STEP_TOL = 1e-6
#: steps between two writes of a run given ``out=`` (see :func:`simulate`)
SAVE_EVERY = 50


class OnFailure(Choice):
    """What :func:`simulate` does at a step no solver solved: ``stop`` (keep the trajectory so
    far, ``trajectory.failed_problem`` holding that step's Problem) or ``raise``."""

    STOP = "stop"
    RAISE = "raise"


#: the fields of an Assembly, which a StepAssembly takes over
_ASSEMBLY_FIELDS = tuple(f.name for f in dataclasses.fields(Assembly))


@dataclass
class StepAssembly(Assembly):
    """A step's Assembly: generalized force ``M nu + h f`` and zero velocity (every contact
    rolling), so its "accelerations" are the post-step velocities nu+ and its b is
    G nu + h G M^-1 f + d. M^-1 is formed body block by body block (no coordinate is prescribed
    in a simulation), and the products below avoid sparse fancy indexing."""

    Minv: sp.csr_matrix | None = None
    #: makes the dense A's CSR matrix: the simulator's, kept from step to step (A keeps its pattern)
    to_csr: DenseCSR | None = None

    @classmethod
    def of(
        cls,
        asm: Assembly,
        h: float,
        d: np.ndarray,
        Minv: sp.csr_matrix | None = None,
        to_csr: DenseCSR | None = None,
    ) -> StepAssembly:
        """The step of length ``h`` (s) from the instantaneous assembly ``asm`` with drift terms
        ``d`` (m,) on its rows; ``Minv`` the inverse of ``asm.M`` when already known; ``to_csr``
        see :attr:`to_csr`."""
        fields = {name: getattr(asm, name) for name in _ASSEMBLY_FIELDS}
        fields.update(
            f=csr_times(asm.M, asm.nu) + h * asm.f,
            nu=np.zeros(len(asm.nu)),
            gdot_nu=d,
            rolling=[c.name for c in asm.system.contacts],
            sliding=[],
        )
        if Minv is None:
            sysm = asm.system
            inverses = []
            for body in sysm.bodies:
                inverses += [np.diag(np.full(3, 1.0 / body.mass)), np.linalg.inv(body.inertia_world)]
            inverses += [np.linalg.inv(arm.mass_matrix()) for arm in sysm.manipulators]
            Minv = sp.block_diag(inverses, format="csr") if inverses else sp.csr_matrix((0, 0))
        return cls(**fields, Minv=Minv, to_csr=to_csr)

    @property
    def M_free_inverse(self) -> sp.csr_matrix:
        """M^-1: every coordinate is free in a step."""
        return self.Minv

    @cached_property
    def G_dense(self) -> np.ndarray | sp.csr_matrix:
        """G as a dense array when it has at most :data:`DENSE_A` entries (the same numbers),
        else G itself; made once for the step's A and its overlap projection."""
        G = self.G
        return G.toarray() if G.shape[0] * G.shape[1] <= DENSE_A else G

    @cached_property
    def A_sparse(self) -> sp.csr_matrix:
        G = self.G
        if G.shape[0] * G.shape[1] <= DENSE_A:  # scipy's sparse products cost ~1 ms when small
            Gd = self.G_dense
            A = Gd @ (self.Minv @ Gd.T)
            return (self.to_csr or dense_csr)((A + A.T) * 0.5)  # sp.csr_matrix of it, faster
        A = (G @ self.Minv @ G.T).tocsr()
        return ((A + A.T) * 0.5).tocsr()

    @cached_property
    def b(self) -> np.ndarray:
        return csr_times(self.G, csr_times(self.Minv, self.f)) + self.gdot_nu

    def accelerations(self, c: np.ndarray) -> np.ndarray:
        """(nq,) post-step velocities nu+ = M^-1 (M nu + h f + G^T p) for impulses p (m,); the
        last answer is kept (the dispatcher's check, the pose update and the record all ask
        for the same p)."""
        last = self.__dict__.get("_last")
        if last is not None and np.array_equal(last[0], c):
            return last[1].copy()
        nu = csr_times(self.Minv, self.f + csr_transpose_times(self.G, np.asarray(c, dtype=float)))
        self.__dict__["_last"] = (np.array(c, dtype=float), nu)
        return nu.copy()

    def efforts(self, c: np.ndarray, nu_dot: np.ndarray) -> np.ndarray:
        """(nq,) zeros: no coordinate is prescribed in a step (simulate needs every effort)."""
        if self.prescribed.any():
            return super().efforts(c, nu_dot)
        return np.zeros(len(nu_dot))

    def contact_accelerations(self, c: np.ndarray) -> np.ndarray:
        """(m,) post-step relative velocities G nu+ + d for impulses p."""
        return csr_times(self.G, self.accelerations(c)) + self.gdot_nu


def projection_lcp(A: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """lam (k,) of the overlap projection's LCP  A lam + q >= 0 _|_ lam >= 0 (A dense, symmetric)
    by Lemke's method, or None when no accepted answer: what ``cm.solve(cm.LCP(A, q),
    solver="lemke", fallback=False)`` returns and accepts (the same solver on the same numbers,
    its answer held to the dispatcher's limit on the relative natural residual
    ||lam - max(0, lam - (A lam + q))||_inf / max(1, ||q||_inf)), without the dispatcher's
    per-call work (options, reductions, a Solution), which was a fifth of a small step."""
    module, options = _projection_solver()
    n = len(q)
    mcp = MCP(
        F=lambda x: A @ x + q,
        J=lambda x: A,
        lb=np.zeros(n),
        ub=np.full(n, np.inf),
        x0=np.zeros(n),
        M=A,
        q=q,
    )
    result = module.solve(mcp, copy.copy(options))
    if result.outcome is Outcome.INFEASIBLE or result.x is None:
        return None
    x = np.asarray(result.x, dtype=float)
    scale = max(1.0, float(np.max(np.abs(q), initial=0.0)))
    residual = np.max(np.abs(x - np.maximum(x - (A @ x + q), 0.0)), initial=0.0) / scale
    if not residual <= max(TOL, TOL_INACCURATE):  # NaN included
        return None
    return x


def island_labels(a: np.ndarray, b: np.ndarray, nb: int) -> np.ndarray:
    """(nb,) island label of each body, bodies joined by the contacts between bodies ``a[i]`` and
    ``b[i]`` (-1: the ground) being in one island: scipy's ``connected_components`` labels.
    Without a contact between two bodies every body is an island of its own, labelled by its
    index as ``connected_components`` labels an edgeless graph; that case (bodies on the floor
    only) skips building the graph, a third of a one-box step's overhead."""
    both = (a >= 0) & (b >= 0)
    if not both.any():
        return np.arange(nb)
    graph = sp.csr_matrix((np.ones(int(both.sum())), (a[both], b[both])), shape=(nb, nb))
    return connected_components(graph, directed=False)[1]


def projection_is_zero(q: np.ndarray) -> bool:
    """Whether lam = 0 is the answer :func:`projection_lcp` gives for ``q`` (k,), whatever A is:
    Lemke's method stops before its first pivot, at z = 0, when min(q) >= -zero_tol * max(1,
    ||q||_inf), and z = 0 then passes the residual check (its relative natural residual is at most
    zero_tol). A box resting or sliding on the floor has q of a few -1e-15 m/s on every step:
    this test spares building A and calling Lemke for that zero."""
    _, options = _projection_solver()
    if options.warm_start_basis is not None or not options.zero_tol <= max(TOL, TOL_INACCURATE):
        return False
    q_max = float(np.max(np.abs(q), initial=0.0))
    return bool(np.min(q, initial=0.0) >= -options.zero_tol * max(1.0, q_max))


_PROJECTION: list = []


def _projection_solver() -> tuple:
    """(lemke's module, its options as ``cm.solve`` makes them), made once."""
    if not _PROJECTION:
        module, _ = solvers.load("lemke")
        _PROJECTION.extend([module, solvers.make_options("lemke", {})])
    return _PROJECTION[0], _PROJECTION[1]


class SimulationError(ContactModelError):
    """A simulation input is invalid (step, duration, state, controller output)."""


@dataclass
class State:
    """What a controller sees at time ``t`` (s): per body name its ``position`` (3,), unit
    ``quaternion`` (w, x, y, z), ``velocity`` (3,) and ``angular_velocity`` (3,) in world axes;
    per manipulator name its joint ``q`` (n,) and ``qdot`` (n,)."""

    t: float
    position: dict[str, np.ndarray] = field(default_factory=dict)
    quaternion: dict[str, np.ndarray] = field(default_factory=dict)
    velocity: dict[str, np.ndarray] = field(default_factory=dict)
    angular_velocity: dict[str, np.ndarray] = field(default_factory=dict)
    q: dict[str, np.ndarray] = field(default_factory=dict)
    qdot: dict[str, np.ndarray] = field(default_factory=dict)


def quat_from_matrix(R: np.ndarray) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation matrix, with w >= 0."""
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    q = np.array([w, x, y, z])
    return q if w >= 0 else -q


def quat_to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrix of a unit quaternion (w, x, y, z)."""
    return quat_matrices(np.asarray(q, dtype=float)[None, :])[0]


def quat_matrices(Q: np.ndarray) -> np.ndarray:
    """(k, 3, 3) rotation matrices of k unit quaternions (k, 4), rows (w, x, y, z). One
    quaternion is done in Python floats: the same operations, without numpy's cost per call
    (a fiftieth of a one-body step)."""
    if len(Q) == 1:
        return np.array(_rotation_entries(*Q[0].tolist())).reshape(1, 3, 3)
    out = np.empty((len(Q), 9))
    for k, entry in enumerate(_rotation_entries(*Q.T)):
        out[:, k] = entry
    return out.reshape(-1, 3, 3)


def _rotation_entries(w, x, y, z) -> tuple:
    """The rotation matrix's nine entries, row by row, of the unit quaternion (w, x, y, z):
    floats, or arrays of k quaternions' components."""
    return (
        1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w),
        2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w),
        2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y),
    )  # fmt: skip


def quat_step(q: np.ndarray, omega: np.ndarray, h: float) -> np.ndarray:
    """q+ = exp(h omega / 2) (x) q for a world-frame angular velocity omega (rad/s), renormalized."""
    return quat_steps(np.asarray(q, dtype=float)[None, :], np.asarray(omega, dtype=float)[None, :], h)[0]


def quat_steps(Q: np.ndarray, W: np.ndarray, h: float) -> np.ndarray:
    """:func:`quat_step` of k quaternions (k, 4) with angular velocities (k, 3) (rad/s). One
    quaternion is done in Python floats (``math``): the same operations in the same order,
    without numpy's cost per call (a fortieth of a one-body step). The sums of three and four
    squares or products are added in the order numpy's ``einsum`` adds them (these numbers were
    its before), stated so that both ways give the same bits."""
    if len(Q) == 1:
        a, b, c = W[0].tolist()
        speed = math.sqrt(a * a + c * c + b * b)
        half = 0.5 * h * speed
        if speed * h >= 1e-300:
            axis, dw = (a / speed, b / speed, c / speed), math.cos(half)
        else:
            axis, dw = (0.0, 0.0, 0.0), 1.0
        out = _turned(*Q[0].tolist(), *axis, dw, math.sin(half))
        norm = math.sqrt(_square_sum(out))
        return np.array([[e / norm for e in out]])
    a, b, c = W.T
    speed = np.sqrt(a * a + c * c + b * b)
    half = 0.5 * h * speed
    turning = speed * h >= 1e-300
    axis = np.zeros_like(W)
    np.divide(W, speed[:, None], out=axis, where=turning[:, None])
    out = np.stack(_turned(*Q.T, *axis.T, np.where(turning, np.cos(half), 1.0), np.sin(half)), axis=1)
    return out / np.sqrt(_square_sum(out.T))[:, None]


def _turned(w, x, y, z, ax, ay, az, dw, sh) -> tuple:
    """exp(h omega / 2) (x) q, not normalized, of q = (w, x, y, z), the unit axis (ax, ay, az) of
    omega, dw = cos(h |omega| / 2) and sh = sin(h |omega| / 2): floats, or arrays of k
    quaternions' components."""
    vx, vy, vz = sh * ax, sh * ay, sh * az
    return (
        dw * w - (vx * x + vz * z + vy * y),
        dw * x + w * vx + (vy * z - vz * y),
        dw * y + w * vy + (vz * x - vx * z),
        dw * z + w * vz + (vx * y - vy * x),
    )


def _square_sum(q) -> float | np.ndarray:
    """w^2 + x^2 + y^2 + z^2 of q = (w, x, y, z) (floats or arrays), summed as (w^2 + y^2) +
    (x^2 + z^2)."""
    w, x, y, z = q
    return (w * w + y * y) + (x * x + z * z)


@dataclass
class _Tracked:
    """A hand-declared contact followed as a pair of material points (one on each body) with
    the frame fixed in body_b (the world for the ground)."""

    contact: Contact
    local_a: np.ndarray
    local_b: np.ndarray
    frame_b: np.ndarray


def _pose(body) -> tuple[np.ndarray, np.ndarray]:
    """World (R, p) of a contact body's frame: a body's centre of mass, a link's frame, the world."""
    if isinstance(body, Ground):
        return np.eye(3), np.zeros(3)
    if isinstance(body, Body):
        return body.rotation, body.position
    if isinstance(body, LinkRef):
        R, p = body.manipulator.link_frames()[body.index]
        return R, p
    raise SimulationError(f"not a contact body: {body!r}; contacts join bodies, links or the ground")


def _track(contact: Contact) -> _Tracked:
    Ra, pa = _pose(contact.body_a)
    Rb, pb = _pose(contact.body_b)
    return _Tracked(contact, Ra.T @ (contact.point - pa), Rb.T @ (contact.point - pb), contact.frame @ Rb)


def _finite_state(system: System) -> None:
    """:func:`_finite_bodies` of the bodies' current state."""
    bodies = system.bodies
    if bodies:
        twist = np.array([np.r_[b.velocity, b.angular_velocity] for b in bodies], dtype=float)
        positions = np.array([b.position for b in bodies], dtype=float)
        _finite_bodies(bodies, positions, twist, np.array([b.rotation for b in bodies], dtype=float))


def _finite_bodies(bodies: list[Body], positions, twist, rotations) -> None:
    """Raise :class:`SimulationError` naming the first body (and field) whose state, positions
    (nb, 3), twists (nb, 6) and rotations (nb, 3, 3), is not finite: the pose update checks the
    new state before writing it (the bodies keep their last finite one)."""
    fields = {
        "position": positions,
        "velocity": twist[:, :3],
        "angular_velocity": twist[:, 3:],
        "rotation": rotations.reshape(len(bodies), 9),
    }
    if all(np.isfinite(v).all() for v in fields.values()):
        return
    for i, body in enumerate(bodies):
        for name, values in fields.items():
            if not np.isfinite(values[i]).all():
                raise SimulationError(f"body '{body.name}'.{name} is not finite: give finite numbers")


class Simulator:
    """The stepper behind :func:`simulate`; see the module docstring for the scheme."""

    def __init__(
        self,
        system: System,
        dt: float,
        friction=None,
        solver: str = "newton",
        planes: Sequence[Plane] = (),
        margin: float = 1e-3,
        beta: float = 0.2,
        restitution: float = 0.0,
        wrenches: Mapping[str, Callable] | None = None,
        efforts: Mapping[str, Callable] | None = None,
        torsion: bool = False,
        solver_options: Mapping | None = None,
        warm_start: bool = True,
        collide: bool = True,
        reuse: bool = True,
        step_tol: float = STEP_TOL,
        contact=None,
        islands: bool = True,
    ) -> None:
        if not isinstance(system, System):
            raise SimulationError(f"simulate needs a contactmodel.System (got {type(system).__name__})")
        self.h = real(dt, "dt (s)", low=0.0, low_open=True, error=SimulationError)
        self.system = copy.deepcopy(system)
        self.system.normal_velocity_tol = np.inf
        _finite_state(self.system)
        self.friction = friction
        self.solver = solver
        self.planes = list(planes)
        for k, plane in enumerate(self.planes):
            if not isinstance(plane, Plane):
                raise SimulationError(f"planes[{k}] must be a contactmodel Plane (got {plane!r})")
        self._plane_frames = [plane.frame for plane in self.planes]
        self._candidates: PlaneCandidates | None = None  # the bodies' points against a plane
        self.margin = real(margin, "margin", low=0.0, error=SimulationError)
        self.beta = real(beta, "beta", low=0.0, error=SimulationError)
        self.restitution = real(restitution, "restitution", low=0.0, high=1.0, error=SimulationError)
        #: m/s: slower impacts are inelastic, so resting contacts do not chatter (see the docstring)
        self.bounce_speed = 10.0 * self.h * float(np.linalg.norm(self.system.gravity))
        self.torsion = bool(torsion)
        self.solver_options = dict(solver_options or {})
        self._solve_call = None  # the settings of the steps' solves, checked once (see solve)
        self._nonlinear_of: tuple[Problem, bool] | None = None  # (problem, see _nonlinear)
        if hasattr(solvers.load(solver)[1], "liftoff_rounds"):
            # newton's lift-off rounds, a last resort for hard static problems, would run on every
            # step newton leaves solved-inaccurate, which step_tol then accepts (16-box cone
            # pile: 1.7x the CPU per step): off in the steps unless asked for
            self.solver_options.setdefault("liftoff_rounds", 0)
        if hasattr(solvers.load(solver)[1], "active_set_steps"):
            # a step's warm start is the last step's answer: where the motion keeps its mode (a
            # slide slowing down) its active set gives the step's answer in one or two linear
            # solves, where the iteration needs five to eight (the sliding box's polygonal cone)
            self.solver_options.setdefault("active_set_steps", 2)
        self.step_tol = real(step_tol, "step_tol", low=0.0, high=TOL_INACCURATE, error=SimulationError)
        self.warm_start = warm_start
        self.reuse = bool(reuse)
        #: solve each island of bodies (see :meth:`islands`) as a problem of its own
        self.split = bool(islands)
        #: the islands' models of the last step: contact-set key -> (Problem, its last answer x)
        self._island_models: dict[tuple, tuple[Problem, np.ndarray]] = {}
        #: the laws of the last step's contacts when its islands were solved apart (else None:
        #: the laws of ``problem``)
        self._island_laws: dict[str, FrictionLaw] | None = None
        names = {b.name for b in self.system.bodies}
        arms = {a.name: a for a in self.system.manipulators}
        self.wrenches = dict(wrenches or {})
        for name, fn in self.wrenches.items():
            if name not in names or not callable(fn):
                raise SimulationError(
                    f"wrenches['{name}'] must map a declared body name to a callable (t, state)"
                )
        self.efforts = dict(efforts or {})
        for name, fn in self.efforts.items():
            if name not in arms or not callable(fn):
                raise SimulationError(
                    f"efforts['{name}'] must map a declared manipulator name to a callable (t, state)"
                )
        for arm in self.system.manipulators:
            if any(e is None for e in arm.efforts):
                raise SimulationError(
                    f"manipulator '{arm.name}' has unknown efforts (None); simulate needs every joint "
                    "effort: give numbers or a controller in efforts={name: callable}"
                )
        self.tracked = [_track(c) for c in self.system.contacts]
        self.kinematics = None if self.system.manipulators else BodyKinematics(self.system)
        self.collide = bool(collide)
        index = {id(b): i for i, b in enumerate(self.system.bodies)}
        joined = [(index.get(id(c.body_a)), index.get(id(c.body_b))) for c in self.system.contacts]
        self._hand_pairs = {(min(p), max(p)) for p in joined if None not in p}
        self.quaternions = [quat_from_matrix(b.rotation) for b in self.system.bodies]
        self.problem: Problem | None = None
        self._key: tuple | None = None
        #: (G, M^-1, the step, G's and M^-1's largest |entry|) of the last step whose A was formed
        #: (see adopt_A)
        self._A_source: tuple | None = None
        self._to_csr = DenseCSR()  # the formed A's CSR matrices (see StepAssembly.to_csr)
        self._x: np.ndarray | None = None  # the last step's answer, in its MCP's order
        self._names: list[str] | None = None  # that MCP's variable names
        self.t = 0.0
        compliant.check_choice(contact)
        #: None (rigid), a Compliant model, or contact/body/plane name -> model (see compliant.model_of)
        self.contact = contact
        #: the last step's impulses (N s) of the compliant contacts, by name (their warm start)
        self.compliant_impulses: dict[str, np.ndarray] = {}
        #: J: potential energy the overlap projection gave in the last step (bodies; 0 without it)
        self.overlap_lift = 0.0

    # -- state --------------------------------------------------------------------------
    @property
    def warm_state(self) -> tuple[np.ndarray, list[str]] | None:
        """(x, names): the last step's answer and its MCP's variable names (the next step's warm
        start), None before the first solved step."""
        return None if self._x is None else (self._x.copy(), list(self._names))

    def restore(self, saved: Trajectory) -> None:
        """Continue from the last state of ``saved`` (a run of this system with this step):
        time, poses, velocities, joint states and the warm start of the next step, as the
        stepper carries them from one step to the next (the next step builds its model afresh)."""
        if saved.body_names != [b.name for b in self.system.bodies]:
            raise SimulationError(
                f"resume: the saved run has bodies {saved.body_names}, this system "
                f"{[b.name for b in self.system.bodies]}: resume with the system that made the run"
            )
        if saved.dt != self.h:
            raise SimulationError(
                f"resume: the saved run has dt = {saved.dt:g} s, not {self.h:g} s: give the same dt"
            )
        arms = {a.name for a in self.system.manipulators}
        if set(saved.q) != arms:
            raise SimulationError(
                f"resume: the saved run has manipulators {sorted(saved.q)}, this system {sorted(arms)}"
            )
        if saved.failed_step is not None:
            raise SimulationError(
                f"resume: the saved run stopped at a failed step ({saved.failed_step}); rerun it with "
                "other settings instead"
            )
        if saved.n_steps == 0:
            return  # only the initial state: start as from the system
        self.t = float(saved.times[-1])
        self.quaternions = list(np.array(saved.quaternions[-1], dtype=float))
        rotations = quat_matrices(np.array(self.quaternions))
        for i, body in enumerate(self.system.bodies):
            body.position = np.array(saved.positions[-1, i], dtype=float)
            body.velocity = np.array(saved.velocities[-1, i], dtype=float)
            body.angular_velocity = np.array(saved.angular_velocities[-1, i], dtype=float)
            body.rotation = rotations[i]
        for arm in self.system.manipulators:
            arm.q = np.array(saved.q[arm.name][-1], dtype=float)
            arm.qdot = np.array(saved.qdot[arm.name][-1], dtype=float)
        if saved.warm_start is not None:
            self._x, self._names = np.array(saved.warm_start[0], dtype=float), list(saved.warm_start[1])
        self.forget_model()

    def forget_model(self) -> None:
        """Build the next step's model afresh (as a resumed run does; see :func:`simulate`)."""
        self.problem, self._key = None, None
        self._island_models = {}
        self._A_source = None

    @property
    def step_laws(self) -> dict[str, FrictionLaw]:
        """Contact name -> law of the last solved step (of its islands' problems together)."""
        if self._island_laws is not None:
            return self._island_laws
        return self.problem.laws if self.problem is not None else {}

    def state(self) -> State:
        s = State(self.t)
        for body, q in zip(self.system.bodies, self.quaternions):
            s.position[body.name] = body.position.copy()
            s.quaternion[body.name] = q.copy()
            s.velocity[body.name] = body.velocity.copy()
            s.angular_velocity[body.name] = body.angular_velocity.copy()
        for arm in self.system.manipulators:
            s.q[arm.name] = arm.q.copy()
            s.qdot[arm.name] = arm.qdot.copy()
        return s

    def energy(self, assembly: Assembly | None = None) -> tuple[float, float]:
        """(kinetic, potential) energy in J; potential of gravity relative to the world origin,
        plus the compliant contacts' spring energy (:mod:`.compliant`)."""
        g = np.asarray(self.system.gravity)
        kinetic = 0.0
        potential = 0.0
        bodies = self.system.bodies
        if bodies:  # all bodies at once: 1/2 m v.v + 1/2 w.(R I R^T) w, and -m g.x
            mass = np.array([b.mass for b in bodies])
            v = np.array([b.velocity for b in bodies])
            R = np.array([b.rotation for b in bodies])
            inertia = np.array([b.inertia for b in bodies])
            spin = np.einsum("kji,kj->ki", R, np.array([b.angular_velocity for b in bodies]))  # R^T w
            kinetic = 0.5 * float(mass @ np.einsum("ki,ki->k", v, v))
            kinetic += 0.5 * float(np.einsum("ki,kij,kj->", spin, inertia, spin))
            potential = -float(mass @ (np.array([b.position for b in bodies]) @ g))
        for arm in self.system.manipulators:
            kinetic += 0.5 * arm.qdot @ arm.mass_matrix() @ arm.qdot
            potential += arm.potential_energy(g)
        if self.contact is not None:
            contacts, gaps = self.contacts()
            potential += compliant.spring_energy(contacts, gaps, self.contact_models(contacts))
        return float(kinetic), float(potential)

    def contact_models(self, contacts: list[Contact]) -> list[compliant.Compliant | None]:
        """Each contact's model under ``contact=``: a Compliant model, or None (rigid)."""
        if self.contact is None:
            return [None] * len(contacts)
        return [compliant.model_of(c, self.contact) for c in contacts]

    def _apply_controllers(self) -> None:
        if not self.wrenches and not self.efforts:
            return
        state = self.state()
        for name, fn in self.wrenches.items():
            body = next(b for b in self.system.bodies if b.name == name)
            body.wrench = _call(fn, self.t, state, 6, f"wrenches['{name}']")
        for name, fn in self.efforts.items():
            arm = next(a for a in self.system.manipulators if a.name == name)
            arm.efforts = list(_call(fn, self.t, state, arm.n, f"efforts['{name}']"))

    # -- contacts -----------------------------------------------------------------------
    def contacts(self) -> tuple[list[Contact], np.ndarray]:
        """The active contacts at the current state and their gaps (m)."""
        h = self.h
        out: list[Contact] = []
        gaps: list[float] = []
        for tr in self.tracked:
            c = tr.contact
            Ra, pa = _pose(c.body_a)
            Rb, pb = _pose(c.body_b)
            wa, wb = pa + Ra @ tr.local_a, pb + Rb @ tr.local_b
            frame = tr.frame_b @ Rb.T
            gap = float(frame[0] @ (wa - wb))
            vn = frame[0] @ (_point_velocity(c.body_a, wa) - _point_velocity(c.body_b, wb))
            if gap <= self.margin + h * max(0.0, -vn):
                out.append(dataclasses.replace(c, point=wa, frame=frame))
                gaps.append(gap)
        bodies = self.system.bodies
        if self.planes and bodies:
            shapes = [b.shape for b in bodies]
            x = np.array([b.position for b in bodies])
            R = np.array([b.rotation for b in bodies])
            v = np.array([b.velocity for b in bodies])
            w = np.array([b.angular_velocity for b in bodies])
        for plane, frame in zip(self.planes, self._plane_frames) if bodies else ():
            normal = frame[0]
            law = plane.friction if plane.friction is not None else self.friction
            candidates = self._candidates
            if candidates is None or not candidates.fits(shapes):
                candidates = self._candidates = PlaneCandidates(shapes)
            owner, labels, points = candidates.owner, candidates.labels, candidates.points(x, R, normal)
            dist = plane.distance(points) if len(owner) else np.zeros(0)
            # normal speed of each point: n . (v + w x r) = n . v + (r x n) . w
            r_x_n = cross(points - x[owner], normal)
            vn = v[owner] @ normal + np.sum(r_x_n * w[owner], axis=1)
            for k in np.flatnonzero(dist <= self.margin + h * np.maximum(0.0, -vn)):
                body = bodies[owner[k]]
                out.append(
                    Contact(
                        name=f"{body.name}.{labels[k]}@{plane.name}",
                        body_a=body,
                        body_b=self.system.ground,
                        point=points[k],
                        frame=frame,
                        friction=law,
                        torsion=self.torsion,
                    )
                )
                gaps.append(float(dist[k]))
        if self.collide:
            self._pair_contacts(out, gaps)
        return out, np.asarray(gaps, dtype=float)

    def _pair_contacts(self, out: list[Contact], gaps: list[float]) -> None:
        """Append the active contacts between shaped bodies (see :mod:`.collision`)."""
        bodies = self.system.bodies
        if len(bodies) < 2:
            return
        shapes = [b.shape for b in bodies]
        x = np.array([b.position for b in bodies])
        R = np.array([b.rotation for b in bodies])
        v = np.array([b.velocity for b in bodies])
        w = np.array([b.angular_velocity for b in bodies])
        radius = np.array([bounding_radius(s) for s in shapes])
        reach = self.margin + self.h * (np.linalg.norm(v, axis=1) + radius * np.linalg.norm(w, axis=1))
        found = pair_candidates(shapes, x, R, reach, self._hand_pairs)
        if not found:
            return
        normals = np.array([c.normal for c in found])
        points = np.array([c.point for c in found])
        ia = np.array([c.a for c in found])
        ib = np.array([c.b for c in found])
        va = v[ia] + cross(w[ia], points - x[ia])
        vb = v[ib] + cross(w[ib], points - x[ib])
        vn = np.sum(normals * (va - vb), axis=1)
        gap = np.array([c.gap for c in found])
        active = gap <= self.margin + self.h * np.maximum(0.0, -vn)
        law = None if isinstance(self.friction, Mapping) else self.friction
        chosen = np.flatnonzero(active)
        for k, frame in zip(chosen, _frames([found[k] for k in chosen], normals[chosen])):
            c = found[k]
            a, b = bodies[c.a], bodies[c.b]
            out.append(
                Contact(
                    name=f"{a.name}.{c.label}@{b.name}",
                    body_a=a,
                    body_b=b,
                    point=c.point,
                    frame=frame,
                    friction=law,
                    torsion=self.torsion,
                )
            )
            gaps.append(float(gap[k]))

    # -- one step -----------------------------------------------------------------------
    def step_assembly(self, contacts: list[Contact], gaps: np.ndarray) -> Assembly:
        """The step's Assembly (see the module docstring): its b is G nu + h G M^-1 f + d.
        Free bodies only: built vectorized (:mod:`.kinematics`); with manipulators by
        :func:`~contactmodel.assembly.assemble`."""
        sysm = step_system(self.system, contacts)
        kin = self.kinematics
        Minv = None
        if kin is not None and kin.supported(contacts):
            M, Minv, f, nu = kin.state(np.asarray(self.system.gravity, dtype=float))
            G, rows, contact_rows, frames = kin.jacobian(contacts)
            nq = len(nu)
            asm = Assembly(
                system=sysm,
                coordinates=kin.coordinates,
                M=M,
                f=f,
                nu=nu,
                G=G,
                gdot_nu=np.zeros(G.shape[0]),
                rows=rows,
                contact_rows=contact_rows,
                frames=frames,
                prescribed=np.zeros(nq, dtype=bool),
                nu_dot_prescribed=np.zeros(nq),
            )
        else:
            asm = assemble(sysm)
        h = self.h
        d = np.zeros(len(asm.rows))
        if contacts:
            normal = np.array([asm.contact_rows[c.name]["n"] for c in contacts])
            drift = np.where(gaps > 0, gaps / h, 0.0)  # penetrations: overlap_push
            if self.restitution > 0:
                vn = asm.v[normal]
                bounce = (vn < -self.bounce_speed) & (gaps + h * vn <= 0)
                drift = np.where(bounce, np.minimum(drift, 0.0) + self.restitution * vn, drift)
            d[normal] = drift
        step = StepAssembly.of(asm, h, d, Minv, self._to_csr)
        self.adopt_A(step)
        return step

    def adopt_A(self, step: StepAssembly) -> None:
        """Give ``step`` the A = G M^-1 G^T of the last step it was formed for when ``step``'s G and
        M^-1 are that step's within :data:`A_RTOL` (relative to their largest entries, the same
        pattern): A is then that step's to a few 1e-13 relative, inside the 1e-12 within which a
        reused model keeps its compiled matrix (:meth:`Problem.reassemble
        <contactmodel.formulation.Problem.reassemble>`), and forming it (a tenth of a one-box step)
        is skipped. A box at rest or sliding without turning keeps its A, also when the answers'
        rounding turns it by 1e-14 a step (the cone's MNCP). The step's own G and M^-1 give its b,
        velocities and checks."""
        source = self._A_source
        if source is not None and "A_sparse" in source[2].__dict__:
            if _near(step.G, source[0], source[3]) and _near(step.Minv, source[1], source[4]):
                step.__dict__["A_sparse"] = source[2].__dict__["A_sparse"]
                return
        scales = (float(np.max(np.abs(m.data), initial=0.0)) for m in (step.G, step.Minv))
        self._A_source = (step.G, step.Minv, step, *scales)

    def problem_for(self, step: Assembly, contacts: list[Contact]) -> tuple[Problem, bool]:
        """The step's Problem: the previous one when the contact set and laws are unchanged (no
        Pyomo rebuild, the compiled structure reused: :meth:`Problem.reassemble
        <contactmodel.formulation.Problem.reassemble>` takes the new b and, when A changed, the
        compiled matrix of the new A), else a new one."""
        laws = {c.name: self.law_of(c) for c in contacts}
        key = tuple((c.name, id(laws[c.name]), c.torsion) for c in contacts)
        old = self.problem
        if self.reuse and old is not None and key == self._key:
            # the step's contexts are every contact rolling at zero velocity, and the laws read
            # of a context's contact only its name: the model's own contexts stand for this step's.
            # The same rows and sliding contacts, handed over as the model's own objects, keep the
            # problem's layout (and the laws' residual plans) current instead of made anew
            held = old.assembly
            if step.contact_rows == held.contact_rows and list(step.sliding) == list(held.sliding):
                step.contact_rows, step.rows, step.sliding = held.contact_rows, held.rows, held.sliding
            if old.reassemble(step, None):
                return old, True
        return self.rebuild(step, laws), False

    def rebuild(self, step: Assembly, laws: Mapping[str, FrictionLaw] | None = None) -> Problem:
        """A new Problem for ``step`` (Pyomo model built from its exact A and b)."""
        if laws is None:
            laws = {c.name: self.law_of(c) for c in step.system.contacts}
        problem = formulate(step, friction=dict(laws))
        key = tuple((c.name, id(laws[c.name]), c.torsion) for c in step.system.contacts)
        self.problem, self._key = problem, key
        return problem

    def start(self, problem: Problem, reused: bool) -> np.ndarray | None:
        """The warm start of ``problem``: the last step's answer when its model is reused, else
        that answer carried over by variable name (a contact that stays keeps its impulses and
        multipliers; a new contact starts at 0), either :meth:`lifted`. Without a last answer,
        :meth:`cold_start`."""
        if self._x is None:
            return self.cold_start(problem)
        if reused:
            return self.lifted(problem, self._x)
        last = dict(zip(self._names, self._x.tolist()))
        return self.lifted(problem, np.array([last.get(name, 0.0) for name in problem.compile().mcp.names]))

    def _nonlinear(self, problem: Problem) -> bool:
        """newton solves the steps and ``problem``'s MCP has nonlinear rows (kept for the problem
        last asked about: a reused problem keeps its laws and compiled MCP)."""
        known = self._nonlinear_of
        if known is None or known[0] is not problem:
            nonlinear = self.solver == "newton" and not problem.compile().mcp.is_linear
            known = self._nonlinear_of = (problem, nonlinear)
        return known[1]

    def lifted(self, problem: Problem, x: np.ndarray) -> np.ndarray:
        """The warm start ``x`` of ``problem`` (its MCP's order), for newton on an MCP with
        nonlinear rows: the point of the forces at ``x`` with every law's variables lifted
        from them and this step's accelerations (:meth:`Problem.point_at
        <contactmodel.formulation.Problem.point_at>`); ``x`` itself for other problems.

        At a contact whose normal force is 0 any slip multiplier lambda >= 0 solves the
        quadratic-slack MNCPs (cone, anisotropic cone, soft-finger ellipsoids), and newton's
        answer leaves it near 0; started there, the rows that hold the friction, the slack
        ``mu^2 c_n^2 - |c_f|^2`` and ``mu c_n a_f + c_f lambda``, have no derivative in ``c_f``
        but the slack's own, and newton reaches ``c_f = 0`` only linearly (15-20 iterations a
        step), or not within the laws' tolerance (the fallback ladder's unloaded-contacts rung).
        The laws' lift sets lambda to the slip speed ``|a_f|``: the box sliding of
        ``benchmarks/simulate_peer.py`` then takes 0-1 iterations a step and no step goes to
        the ladder (19 of 200 before under the cone's MNCP)."""
        if not self._nonlinear(problem):
            return x
        return problem.point_at(problem.forces_at(x))

    def cold_start(self, problem: Problem) -> np.ndarray | None:
        """A start for a step with no last answer (the first), when newton solves an MCP with
        nonlinear rows (the quadratic slack of the cone MNCP, the anisotropic cone, the
        soft-finger ellipsoids): the answer of the step's LCP surrogate, the pyramid of each
        round law, lifted to the laws' variables (:func:`contactmodel.fallback.lcp_start`); None
        (the solver's own start) for other problems or when Lemke's method does not solve the
        surrogate. At newton's own start, 0, the slack ``mu^2 c_n^2 - |c_f|^2`` and the slip
        rows ``mu c_n a_f + c_f lambda`` have no derivative, and the first step of the box
        sliding (``benchmarks/simulate_peer.py``) took newton's 200 iterations and three
        restarts before the fallback ladder solved it (150-285 ms); from the surrogate's answer,
        4 iterations."""
        if not self._nonlinear(problem):
            return None
        from contactmodel.fallback import lcp_start
        from contactmodel.solve import solve

        return lcp_start(problem, lambda surrogate: solve(surrogate, "lemke", fallback=False))

    def solve(self, problem: Problem, x0: np.ndarray | None = None) -> Solution:
        """The step's answer: ``cm.solve`` without its fallback (the run's settings checked once,
        :class:`~contactmodel.solve.SolveCall`), then :meth:`settle`."""
        if self._solve_call is None:
            from contactmodel.solve import SolveCall

            options = {k: v for k, v in self.solver_options.items() if k != "fallback"}
            self._solve_call = SolveCall.of(self.solver, **options)
        return self.settle(problem, self._solve_call.run(problem, x0))

    def settle(self, problem: Problem, first: Solution) -> Solution:
        """``first``, or the better answer of the fallback ladder ``cm.solve`` runs
        (:func:`contactmodel.solve.rescue`: the unloaded contacts frictionless, the step's other
        statements, newton from the LCP surrogate's answer, newton's last try): it runs when
        ``first`` is neither solved nor solved-inaccurate within ``step_tol`` (and the solver is
        one whose answers are retried and ``fallback`` was not turned off), and stops at the
        first answer within ``step_tol``. The problem is left holding the answer's point (the
        rungs load their own), which :meth:`Problem.force_vector` then reads."""
        if not self.solver_options.get("fallback", True) or not worth_retrying(
            first, self.solver, self.step_tol
        ):
            return first
        from contactmodel.solve import rescue

        options = {k: v for k, v in self.solver_options.items() if k != "fallback"}
        answer = rescue(problem, first, self.solver, tolerance=self.step_tol, **options)
        if answer.x is not None:
            problem.compile().load(answer.x)
        return answer

    def solved(self, problem: Problem, x: np.ndarray) -> None:
        """Keep the step's answer ``x`` (``problem``'s MCP order) for the next warm start."""
        self._x, self._names = x, problem.compile().mcp.names
        self._island_models, self._island_laws = {}, None

    def islands(self, contacts: list[Contact]) -> list[np.ndarray]:
        """The step's contacts grouped by island, each group the (sorted) indices into
        ``contacts``: two bodies are in one island when a contact joins them (the ground joins
        nothing). The islands' step problems share no body, so A is block diagonal over them and
        each island is a problem of its own with the answer of the whole step. One group (all
        contacts) when ``islands=False``, with manipulators, with one body, or with fewer than two
        contacts."""
        kin = self.kinematics
        whole = [np.arange(len(contacts))]
        if not self.split or kin is None or len(contacts) < 2 or len(kin.bodies) < 2:
            return whole  # one body: one island
        if not kin.supported(contacts):
            return whole
        a = np.array([kin.index.get(id(c.body_a), -1) for c in contacts])
        b = np.array([kin.index.get(id(c.body_b), -1) for c in contacts])
        if np.any((a < 0) & (b < 0)):
            return whole
        owner = island_labels(a, b, len(kin.bodies))[np.where(a >= 0, a, b)]
        if np.all(owner == owner[0]):
            return whole
        order = np.argsort(owner, kind="stable")
        cuts = np.flatnonzero(np.diff(owner[order])) + 1
        return np.split(order, cuts)

    def island_step(self, step: StepAssembly, contacts: list[Contact], idx: np.ndarray) -> StepAssembly:
        """The part of ``step`` on the contacts ``idx`` (an island): their rows of G and d on
        the columns of the island's bodies, and those bodies' blocks of M, M^-1 and the
        generalized force (the other bodies take no part in the island's problem; each row's
        entries keep their order, so its A and b are the whole step's numbers)."""
        sub = [contacts[i] for i in idx]
        rows: list[int] = []
        contact_rows: dict[str, dict[str, int]] = {}
        for c in sub:
            own = step.contact_rows[c.name]
            contact_rows[c.name] = {comp: len(rows) + k for k, comp in enumerate(own)}
            rows += own.values()
        cols, new_col = self._columns_of(sub, step.G.shape[1])
        every = self.system.bodies
        bodies = cols[::6] // 6
        return dataclasses.replace(
            step,
            system=step_system(self.system, sub, [every[i] for i in bodies]),
            coordinates=[step.coordinates[i] for i in cols],
            M=_submatrix(step.M, cols, new_col),
            Minv=_submatrix(step.Minv, cols, new_col),
            f=step.f[cols],
            nu=step.nu[cols],
            G=_submatrix(step.G, rows, new_col),
            gdot_nu=step.gdot_nu[rows],
            rows=[step.rows[r] for r in rows],
            contact_rows=contact_rows,
            frames={c.name: step.frames[c.name] for c in sub},
            rolling=[c.name for c in sub],
            sliding=[],
            prescribed=step.prescribed[cols],
            nu_dot_prescribed=step.nu_dot_prescribed[cols],
        )

    def _columns_of(self, contacts: list[Contact], width: int) -> tuple[np.ndarray, np.ndarray]:
        """(the columns of the bodies ``contacts`` touch, sorted; each of the ``width`` columns'
        position among them, -1 for the others)."""
        index = self.kinematics.index
        bodies = sorted({index[id(b)] for c in contacts for b in (c.body_a, c.body_b) if id(b) in index})
        cols = (6 * np.array(bodies, dtype=np.int64)[:, None] + np.arange(6)).reshape(-1)
        new_col = np.full(width, -1, dtype=index_dtype(width))
        new_col[cols] = np.arange(cols.size, dtype=new_col.dtype)
        return cols, new_col

    def solve_islands(self, step: StepAssembly, contacts: list[Contact], groups: list[np.ndarray]):
        """Solve the step island by island (:meth:`islands`): each island's problem is kept,
        reused and warm started as the whole step's is. Returns (p (m,) in ``step``'s rows, the
        step's Solution (the islands' contacts, the worst status, the largest residual, the
        summed iterations and seconds), whether every island's model was reused, the
        (problem, solution) of a failed island or None, and the seconds spent building models)."""
        p = np.zeros(len(step.rows))
        held, kept = self._island_models, {}
        parts, x_all, names_all, laws = [], [], [], {}
        all_reused, built = True, 0.0
        for idx in groups:
            sub = [contacts[i] for i in idx]
            island = self.island_step(step, contacts, idx)
            key = tuple((c.name, id(self.law_of(c)), c.torsion) for c in sub)
            t0 = time.perf_counter()
            self.problem, self._key = held.get(key, (None, None))[0], key if key in held else None
            problem, reused = self.problem_for(island, sub)
            if not reused:
                built += time.perf_counter() - t0
            x0 = None
            if self.warm_start and reused:
                x0 = self.lifted(problem, held[key][1])
            elif self.warm_start:
                x0 = self.start(problem, False)
            solution = self.solve(problem, x0)
            if not solution.ok and (reused or x0 is not None):
                problem, reused = self.rebuild(island), False
                solution = self.solve(problem)
            if not solution.ok:
                self.problem, self._key, self._island_models = None, None, {}
                return p, solution, False, (problem, solution), built
            all_reused &= reused
            kept[key] = (problem, solution.x)
            x_all.append(solution.x)
            names_all += problem.compile().mcp.names
            laws.update(problem.laws)
            mine = [r for c in sub for r in step.contact_rows[c.name].values()]
            p[mine] = problem.force_vector()
            parts.append(solution)
        self.problem, self._key, self._island_models = None, None, kept
        self._x, self._names, self._island_laws = np.concatenate(x_all), names_all, laws
        statuses = {s.status for s in parts}
        first = parts[0]
        solution = Solution(
            status=Status.SOLVED if statuses == {Status.SOLVED} else Status.SOLVED_INACCURATE,
            solver=first.solver,
            residual=max(s.residual for s in parts),
            iterations=sum(s.iterations for s in parts),
            seconds=sum(s.seconds for s in parts),
            message=f"{len(parts)} islands solved apart",
            contacts=[c for s in parts for c in s.contacts],
            extras={"islands": len(parts)},
        )
        retried = [s.extras["fallback"] for s in parts if "fallback" in s.extras]
        if retried:
            solution.extras["fallback"] = retried[0]
        return p, solution, all_reused, None, built

    def law_of(self, contact: Contact) -> FrictionLaw:
        """The law of ``contact`` in this run: ``friction`` given as one law replaces every
        contact's; as a mapping, the named ones' (a SimulationSettingError when none is left)."""
        f = self.friction
        if isinstance(f, Mapping):
            law = f.get(contact.name, contact.friction)
        else:
            law = f if f is not None else contact.friction
        if law is None:
            raise SimulationSettingError(
                f"simulate: contact '{contact.name}' has no friction law: give friction= to simulate, "
                "to the Plane, or to add_contact"
            )
        return law

    def overlap_push(
        self,
        step: StepAssembly,
        contacts: list[Contact],
        gaps: np.ndarray,
        nu_new: np.ndarray,
        rigid: Sequence[bool] | None = None,
        groups: list[np.ndarray] | None = None,
    ):
        """(nq,) pseudo-velocity (m/s, rad/s) that removes the fraction ``beta`` of each rigid
        contact's penetration in the pose update of this step, or None (no penetration, beta = 0,
        or the projection LCP not solved: the penetrations then only stop growing this step).
        ``rigid`` (one flag per contact, default all): compliant contacts penetrate by their law
        and are left out.

        The normal rows' gaps after the pose update are g + h (v_n+ + G_n u), with u = M^-1 G_n^T
        lam; lam >= 0 solves A_nn lam + q >= 0 _|_ lam, q = v_n+ + beta g / h on penetrating rows
        and v_n+ + g / h on the others (pushing one overlap out never pushes another contact
        in). u moves the poses only: velocities stay nu+, so no kinetic energy is added. The
        LCP is solved island by island (:meth:`islands`: A is block diagonal over them); an
        island whose LCP is not solved gets no push; ``groups``: the step's :meth:`islands` of
        ``contacts``, when the caller has them (made here otherwise, and when ``rigid`` leaves
        some contacts out)."""
        if rigid is not None and not all(rigid):
            keep = np.flatnonzero(np.asarray(rigid, dtype=bool))
            contacts, gaps, groups = [contacts[i] for i in keep], np.asarray(gaps)[keep], None
        if not contacts or self.beta == 0.0 or not np.any(gaps < 0.0):
            return None
        normal = np.array([step.contact_rows[c.name]["n"] for c in contacts])
        groups = self.islands(contacts) if groups is None else groups
        if len(groups) == 1:
            Gn = step.G_dense[normal] if isinstance(step, StepAssembly) else step.G[normal]
            Gn = Gn.toarray() if sp.issparse(Gn) else np.asarray(Gn)
            q = Gn @ nu_new + np.where(gaps < 0.0, self.beta * gaps, gaps) / self.h
            return None if projection_is_zero(q) else _projection_push(Gn, step.Minv, q)
        # A is block diagonal over the islands (no body in two): one LCP per island
        q = csr_times(step.G, nu_new)[normal] + np.where(gaps < 0.0, self.beta * gaps, gaps) / self.h
        push, pushed = np.zeros(len(nu_new)), False
        for idx in groups:
            if projection_is_zero(q[idx]):
                continue
            cols, new_col = self._columns_of([contacts[i] for i in idx], step.G.shape[1])
            Gn = _submatrix(step.G, normal[idx], new_col).toarray()
            u = _projection_push(Gn, _submatrix(step.Minv, cols, new_col), q[idx])
            if u is not None:
                push[cols] += u
                pushed = True
        return push if pushed else None

    def advance(self, nu_new: np.ndarray, push: np.ndarray | None = None) -> None:
        """Semi-implicit pose update with the post-step velocities ``nu_new`` (and the
        pseudo-velocity ``push`` of :meth:`overlap_push`, poses only)."""
        h = self.h
        bodies = self.system.bodies
        move = nu_new if push is None else nu_new + push
        self.overlap_lift = 0.0
        if push is not None and bodies:
            g = np.asarray(self.system.gravity, dtype=float)
            masses = np.array([b.mass for b in bodies])
            self.overlap_lift = float(-h * masses @ (push[: 6 * len(bodies)].reshape(-1, 6)[:, :3] @ g))
        if bodies:
            twist = nu_new[: 6 * len(bodies)].reshape(-1, 6)
            shift = move[: 6 * len(bodies)].reshape(-1, 6)
            quaternions = quat_steps(np.array(self.quaternions), shift[:, 3:], h)
            rotations = quat_matrices(quaternions)
            positions = np.array([b.position for b in bodies]) + h * shift[:, :3]
            _finite_bodies(bodies, positions, twist, rotations)
            self.quaternions = list(quaternions)
            for i, body in enumerate(bodies):
                body.velocity = twist[i, :3].copy()
                body.angular_velocity = twist[i, 3:].copy()
                body.position = positions[i]
                body.rotation = rotations[i]
        offset = 6 * len(self.system.bodies)
        for arm in self.system.manipulators:
            arm.qdot = nu_new[offset : offset + arm.n]
            arm.q = arm.q + h * move[offset : offset + arm.n]
            offset += arm.n
        self.t += h


#: relative change of G and M^-1 within which a step keeps the last formed A (see Simulator.adopt_A)
A_RTOL = 1e-13


def _near(X: sp.csr_matrix, Y: sp.csr_matrix, scale: float) -> bool:
    """Whether CSR ``X`` has ``Y``'s shape and pattern and its entries within :data:`A_RTOL` times
    ``scale``, ``Y``'s largest |entry|."""
    if X.shape != Y.shape or X.data.shape != Y.data.shape:
        return False
    if not (X.indptr is Y.indptr or np.array_equal(X.indptr, Y.indptr)):
        return False
    if not (X.indices is Y.indices or np.array_equal(X.indices, Y.indices)):
        return False
    return float(np.max(np.abs(X.data - Y.data), initial=0.0)) <= A_RTOL * scale


def _projection_push(Gn: np.ndarray, Minv, q: np.ndarray) -> np.ndarray | None:
    """The pseudo-velocity M^-1 Gn^T lam of the overlap projection's LCP on the normal rows Gn
    (k, nq) dense, lam of :func:`projection_lcp` with A = Gn M^-1 Gn^T; None when not solved."""
    MGt = Minv @ Gn.T
    A = Gn @ MGt
    x = projection_lcp(0.5 * (A + A.T), q)
    return None if x is None else MGt @ np.maximum(x, 0.0)


def _submatrix(matrix: sp.csr_matrix, rows, new_col: np.ndarray) -> sp.csr_matrix:
    """Rows ``rows`` of ``matrix`` (CSR) with column j renumbered ``new_col[j]``, for columns
    that every such row's entries lie in (e.g. the rows of G or M^-1 of an island's bodies);
    each row's entries keep their order. SciPy's fancy indexing does the same in two passes."""
    rows = np.asarray(rows, dtype=np.int64)
    starts, stops = matrix.indptr[rows], matrix.indptr[rows + 1]
    lengths = stops - starts
    indptr = np.zeros(rows.size + 1, dtype=matrix.indptr.dtype)
    np.cumsum(lengths, out=indptr[1:])
    at = np.repeat(starts - indptr[:-1], lengths) + np.arange(int(indptr[-1]))
    width = int(np.count_nonzero(new_col >= 0))
    return sp.csr_matrix((matrix.data[at], new_col[matrix.indices[at]], indptr), shape=(rows.size, width))


def _frames(found: list, normals: np.ndarray) -> np.ndarray:
    """(k, 3, 3) frames (rows n, t, o) of pair candidates: their own t axis where they carry one
    (box faces), else the rule of :func:`~.collision.frames`."""
    out = frames(normals) if len(found) else np.zeros((0, 3, 3))
    own = [i for i, c in enumerate(found) if c.tangent is not None]
    if own:
        t = np.array([found[i].tangent for i in own])
        out[own, 1] = t
        out[own, 2] = cross(out[own, 0], t)
    return out


def _point_velocity(body, point: np.ndarray) -> np.ndarray:
    if isinstance(body, Ground):
        return np.zeros(3)
    if isinstance(body, Body):
        return body.velocity + cross(body.angular_velocity, point - body.position)
    return body.manipulator.point_velocity(body.index, point)


def _call(fn: Callable, t: float, state: State, size: int, field_name: str) -> np.ndarray:
    try:
        value = fn(t, state)
    except ContactModelError:
        raise
    except Exception as exc:  # a controller's own failure is reported with its name
        raise SimulationError(f"{field_name} raised {type(exc).__name__}: {exc} (at t = {t:.6g} s)") from exc
    try:
        arr = np.asarray(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise SimulationError(f"{field_name} returned {value!r}: return {size} numbers") from None
    if arr.shape != (size,):
        raise SimulationError(
            f"{field_name} returned {arr.size} values at t = {t:.6g} s: return {size} numbers"
        )
    if not np.all(np.isfinite(arr)):
        raise SimulationError(
            f"{field_name} returned NaN or infinity at t = {t:.6g} s: return finite numbers"
        )
    return arr


def _stop_run(message: str, on_failure: OnFailure) -> None:
    """End a run at a step that failed: raise :class:`SolverError` or warn, as ``on_failure`` says."""
    if on_failure is OnFailure.RAISE:
        raise SolverError(message)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def simulate(
    system: System,
    t_end: float,
    dt: float,
    friction=None,
    solver: str = "newton",
    planes: Sequence[Plane] = (),
    margin: float = 1e-3,
    beta: float = 0.2,
    restitution: float = 0.0,
    wrenches: Mapping[str, Callable] | None = None,
    efforts: Mapping[str, Callable] | None = None,
    torsion: bool = False,
    keep_steps: bool = True,
    on_failure: OnFailure | str = "stop",
    progress: Callable[[int, int], None] | None = None,
    warm_start: bool = True,
    collide: bool = True,
    reuse: bool = True,
    step_tol: float = STEP_TOL,
    contact=None,
    out=None,
    save_every: int | None = None,
    resume=None,
    islands: bool = True,
    **solver_options,
) -> Trajectory:
    """Simulate ``system`` from t = 0 to ``t_end`` (s) with steps of ``dt`` (s).

    ``friction``: the law of every contact (one declaration swaps the law of the whole run), a
    mapping contact name -> law, or None (each contact's own law; generated contacts take their
    Plane's law). ``planes``: fixed planes against which Box and Sphere bodies get contacts
    generated (see :mod:`contactmodel.simulation.collision`, ``margin`` in m); contacts declared
    with ``system.add_contact`` follow their material points. ``beta``: fraction of a
    penetration removed per step; ``restitution``: Newton's coefficient (0 = inelastic).
    ``wrenches`` / ``efforts``: controllers, body name / manipulator name -> ``f(t, state)``
    returning 6 numbers (force, torque; world) or one effort per joint.
    ``collide``: generate contacts between every two Box/Sphere bodies (box-box vertex-face,
    sphere-box, sphere-sphere; pairs already joined by a declared contact are skipped).
    ``keep_steps`` keeps each step's Assembly so ``trajectory.step_model(k)`` can rebuild it.
    ``warm_start``: each step's solve starts from the previous step's answer (the same model
    reused, or carried over by contact and variable name after a rebuild). ``reuse``: keep the
    previous step's model while the contact set and laws stay (False: a new model every step).
    ``step_tol``: the simulation tolerance, see :data:`STEP_TOL` (0: every solved-inaccurate
    step goes through ``cm.solve``'s fallback ladder, :func:`contactmodel.solve.rescue`).
    ``islands``: solve each island of bodies (bodies joined through contacts; the ground joins
    none) as a problem of its own, so one hard island does not slow the others; False solves
    every step's contacts as one problem (the answers agree to the solver's tolerance).
    ``contact``: None (rigid contact, the complementarity step), a
    :class:`~contactmodel.simulation.compliant.Compliant` model for every contact, or a mapping of
    contact, body or plane names to Compliant models (None: rigid), so rigid and compliant
    contacts run side by side; compliant contacts are stepped implicitly
    (:mod:`contactmodel.simulation.compliant`) and their impulses are h times their forces.
    A step whose solver fails ends the run: the partial trajectory is returned (with a warning)
    and ``trajectory.failed_problem`` holds that step's Problem; ``on_failure="raise"`` raises
    :class:`~contactmodel.errors.SolverError` instead. Other keywords go to :func:`cm.solve`
    (newton's ``liftoff_rounds`` is 0 and its ``active_set_steps`` 2 in the steps unless given).

    ``out`` (``.h5`` / ``.hdf5`` or ``.npz``) with ``save_every`` (steps, default
    :data:`SAVE_EVERY`): the run is written as it goes, every ``save_every`` steps and at the
    end, so a killed run leaves a file that :func:`~contactmodel.simulation.load` reads, with
    every step up to the last write (:class:`~contactmodel.simulation.trajectory.Journal`).
    ``resume``: such a file of this system and ``dt``; the run continues from its last state
    (with the warm start the next step needs), gives the same trajectory as an uninterrupted run,
    and is written on to ``resume`` unless ``out`` names another file. Every setting is checked
    before the first step (:mod:`contactmodel.simulation.settings`).
    """

    t_end = real(t_end, "t_end (s)", low=0.0, error=SimulationError)
    on_failure = OnFailure.parse(on_failure, "simulate: on_failure", SimulationError)
    sim = Simulator(
        system,
        dt,
        friction_setting(friction),
        solver,
        planes,
        margin,
        beta,
        restitution,
        wrenches,
        efforts,
        torsion,
        solver_options,
        warm_start,
        collide,
        reuse,
        step_tol,
        contact,
        islands,
    )
    n_steps = check_settings(sim, t_end)
    if save_every is not None:
        save_every = integer(save_every, "simulate: save_every (steps)", low=1, error=SimulationError)
        if out is None:
            raise SimulationError("simulate: save_every needs out= (the .h5 or .npz file to write)")
    prefix = resumed_every = None
    if resume is not None:
        prefix = load(resume)
        resumed_every = prefix.save_every
        sim.restore(prefix)
        if out is None:
            out = resume
    first = 0 if prefix is None else prefix.n_steps
    traj = Trajectory.start(sim, solver, record=prefix is None or first == 0)
    journal = None
    if out is not None:
        same = resume is not None and Path(out).resolve() == Path(resume).resolve()
        if first == 0:
            prefix = None
        if save_every is None:  # a resumed run writes as often as it did (the same steps rebuild)
            save_every = resumed_every if resumed_every is not None else SAVE_EVERY
        traj.save_every = save_every
        journal = Journal(out, prefix, appending=same and Path(out).suffix.lower() in HDF5_SUFFIXES)
        journal.flush(traj, sim.warm_state)
    for k in range(first, n_steps):
        t0 = time.perf_counter()
        sim._apply_controllers()
        contacts, gaps = sim.contacts()
        t1 = time.perf_counter()
        step = sim.step_assembly(contacts, gaps)
        t2 = time.perf_counter()
        models = sim.contact_models(contacts)
        stated, soft = step, [c.name for c, m in zip(contacts, models) if m is not None]
        groups = None
        if soft:  # compliant contacts: their implicit step
            laws = [sim.law_of(c) for c in contacts]
            p, problem, reused, solution, newton, stated = compliant.compliant_step(
                sim, step, contacts, gaps, models, laws
            )
            t3 = t2
            failure = compliant.failure(newton, solution, solver)
            if failure:
                traj.fail(k, problem, solution)
                message = f"step {k} (t = {sim.t:.6g} s): {failure}. The run stops here"
                _stop_run(message, on_failure)
                break
        elif len(groups := sim.islands(contacts)) > 1:
            t3 = time.perf_counter()
            p, solution, reused, failed, built = sim.solve_islands(step, contacts, groups)
            if failed is not None:
                traj.fail(k, *failed)
                message = (
                    f"step {k} (t = {sim.t:.6g} s): solver '{solver}' returned {failed[1].status.value} on "
                    f"an island of {len(failed[0].contact_names)} contacts (residual "
                    f"{failed[1].residual:.3g}); {failed[1].message}. The run stops here: "
                    "trajectory.failed_problem holds that island's model"
                )
                _stop_run(message, on_failure)
                break
            problem, t3 = None, t3 + built  # the islands' model builds count as build time
        elif contacts:
            problem, reused = sim.problem_for(step, contacts)
            t3 = time.perf_counter()
            x0 = sim.start(problem, reused) if warm_start else None
            solution = sim.solve(problem, x0)
            if not solution.ok and (reused or x0 is not None):
                # the reused model or the warm start failed: solve the step once more on a model
                # built afresh, from the solver's own start
                problem, reused = sim.rebuild(step), False
                solution = sim.solve(problem)
            if not solution.ok:
                traj.fail(k, problem, solution)
                message = (
                    f"step {k} (t = {sim.t:.6g} s): solver '{solver}' returned {solution.status.value} "
                    f"(residual {solution.residual:.3g}); {solution.message}. The run stops here: "
                    "trajectory.failed_problem holds the step's model"
                )
                _stop_run(message, on_failure)
                break
            sim.solved(problem, solution.x)
            p = problem.force_vector()
        else:
            problem, reused, solution, t3 = None, False, None, time.perf_counter()
            p = np.zeros(0)
        nu_new = step.accelerations(p)
        t4 = time.perf_counter()
        traj.record_step(
            sim,
            step,
            contacts,
            gaps,
            p,
            solution,
            reused,
            keep_steps,
            {
                "contacts": t1 - t0,
                "update": t2 - t1 + (t3 - t2 if reused else 0.0),
                "build": 0.0 if reused or (problem is None and len(contacts) < 2) else t3 - t2,
                "solve": t4 - t3,
            },
            stated,
            soft,
        )
        rigid = [m is None for m in models]
        sim.advance(nu_new, sim.overlap_push(step, contacts, gaps, nu_new, rigid, groups))
        traj.record_state(sim)
        if journal is not None and (k + 1) % save_every == 0:
            journal.flush(traj, sim.warm_state)
            # the next step builds its model afresh, as a run resumed from this write does: the
            # two then take the same path (a reused model's answers differ from a rebuilt one's
            # within the solver's tolerance, 1e-10 m/s on the stack, and would not match bit for bit)
            sim.forget_model()
        if progress is not None:
            progress(k + 1, n_steps)
    if journal is not None:
        journal.flush(traj, sim.warm_state)
    result = traj.finish()
    return result if prefix is None else Trajectory.joined([prefix, result])


__all__ = ["STEP_TOL", "Plane", "SimulationError", "Simulator", "State", "simulate"]
