"""Compliant contact: forces that are functions of penetration and its rate, stepped implicitly.

Trinkle, Pang, Sudarsky and Lo ("On dynamic multi-rigid-body contact problems with Coulomb
friction", ZAMM 1997, section 2.5) name compliant contact as the variation of the model that
relaxes the rigid-body assumption. A :class:`Compliant` contact model replaces a contact's
complementarity conditions by explicit forces (contact frame (n, t, o[, r]); penetration
d = -g >= 0 in m, g the gap; its rate d_dot = -v_n in m/s, v_n the relative normal velocity):

- normal force, never pulling (clamped at 0, and 0 while d <= 0):

  * ``linear``: c_n = max(0, k d + c d_dot) (k in N/m, c in N s/m), damped from the step after
    the contact first penetrates (so the force is continuous in the step's new velocities);
  * ``hunt-crossley``: c_n = max(0, k d^n (1 + c d_dot)) (k in N/m^n, c in s/m, default n = 3/2,
    the Hertz exponent). Hunt and Crossley ("Coefficient of restitution interpreted as damping in
    vibroimpact", ASME J. Appl. Mech. 1975) write it k x^n + lambda x^n x_dot with
    lambda = (3/2) alpha k, alpha = (1 - e) / v_in for restitution e at impact speed v_in: so
    c = (3/2) (1 - e) / v_in. The damping vanishes with the penetration, so the force is
    continuous at impact and separation.

- friction from the contact's friction law (the same ``friction=`` declaration as rigid contact):
  maximum dissipation over the law's friction set at the normal force c_n, regularized with a
  velocity scale v_s (m/s, ``friction_regularization``) so the force is a function of the
  sliding velocity u (the relative velocity over the set's components, times the law's
  ``accel_weights``). Per part of the set (:mod:`contactmodel.friction.sets`):

  * round parts (cone, ellipse, ellipsoid: sum (f_i / e_i)^2 <= (mu c_n)^2):
    f = -mu c_n E^2 u / sqrt(|E u|^2 + v_s^2), E = diag(e); the Coulomb cone is
    f_t = -mu c_n v_t / sqrt(|v_t|^2 + v_s^2);
  * interval parts (pyramid, planar, torsional interval |f_i| <= w_i c_n), per axis:
    f_i = -w_i c_n u_i / sqrt(u_i^2 + v_s^2);
  * polygons and polytopes {G f <= h c_n}: the projection onto the set of a viscous force,
    f = P_S(c_n)(-rho c_n u / v_s), rho = min_i h_i / |G_i| (the set's inradius at c_n = 1).

  Every rule has the slope (set size) c_n / v_s at u = 0 and reaches the law's sliding force
  for |u| >> v_s: friction is a stiff damper below v_s (a resting body creeps at speeds of
  order v_s times its load ratio) and the law's own friction above. As v_s -> 0 the force tends
  to the rigid law's sliding force. f.u <= 0 always: friction never adds energy.

The step (free bodies and manipulators, with the generalized velocity nu, mass matrix M and
force f of the rigid step in :mod:`.stepper`) is backward Euler in the compliant forces:

    M nu+ = M nu + h f + G_r^T p_r + h G_c^T lambda(d - h G_n nu+, G_c nu+),

solved for nu+ by Newton's method with a backtracking line search on |R|, its Jacobian
M - h G_c^T D G_c with D = d lambda / d u per contact (u = G_c nu+). The penetration at the end
of the step is d - h u_n (the contact points moving with the new velocities, as the positions do:
x+ = x + h v+). Backward Euler is unconditionally stable, so stiff contacts (k h^2 / m >> 1) do
not blow up at dt = 1e-3; and since the spring energy is convex in d, the normal force never
pulls and friction dissipates, the total energy (kinetic, gravity, and the springs' k d^2 / 2
or k d^(n+1) / (n+1)) does not rise from one step to the next (up to the second-order change
of d along rotations). Rigid contacts of the same scene keep their complementarity step with
impulses p_r; the two are coupled by block Gauss-Seidel sweeps (the rigid step with the
compliant impulses fixed, then the compliant step with the rigid impulses fixed) until the
compliant impulses change by less than ``tol`` relative (one sweep when no body touches both
kinds).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

from contactmodel.constants import Choice
from contactmodel.errors import ContactModelError
from contactmodel.friction.sets import BoxPart, EllipsoidPart, PolytopePart, SetPart
from contactmodel.system import Ground
from contactmodel.validate import real

#: at most this many generalized coordinates: the Newton matrix is solved densely
DENSE_NEWTON = 300
#: the rigid-compliant sweeps of a step stop when the compliant impulses change by at most this
#: (relative to max(1 N s, their largest))
COUPLING_TOL = 1e-10


class CompliantError(ContactModelError):
    """A compliant contact model or its use is invalid (parameters, friction law, mapping)."""


class NormalModel(Choice):
    """The normal force law of :class:`Compliant`: ``linear`` spring-damper or ``hunt-crossley``."""

    LINEAR = "linear"
    HUNT_CROSSLEY = "hunt-crossley"


@dataclass(frozen=True)
class Compliant:
    """A compliant contact model (see the module docstring for the forces).

    ``stiffness`` k: N/m (``linear``) or N/m^n (``hunt-crossley``), > 0. ``damping`` c: N s/m
    (``linear``) or s/m (``hunt-crossley``), >= 0. ``exponent`` n of the Hunt-Crossley law
    (ignored by ``linear``). ``friction_regularization`` v_s (m/s, > 0): the sliding speed below
    which friction acts as a damper. ``tol``: the Newton solve of a step stops when its residual
    (N s) is at most ``tol`` times max(1, |M nu + h f|_inf); ``max_iter`` Newton iterations."""

    stiffness: float
    damping: float = 0.0
    model: NormalModel | str = NormalModel.LINEAR
    exponent: float = 1.5
    friction_regularization: float = 1e-4
    tol: float = 1e-12
    max_iter: int = 100

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(
            self,
            "stiffness",
            real(self.stiffness, "Compliant.stiffness", low=0.0, low_open=True, error=CompliantError),
        )
        set_(self, "damping", real(self.damping, "Compliant.damping", low=0.0, error=CompliantError))
        set_(self, "model", NormalModel.parse(self.model, "Compliant.model", CompliantError))
        set_(self, "exponent", real(self.exponent, "Compliant.exponent", low=1.0, error=CompliantError))
        set_(
            self,
            "friction_regularization",
            real(
                self.friction_regularization,
                "Compliant.friction_regularization (m/s)",
                low=0.0,
                low_open=True,
                error=CompliantError,
            ),
        )
        set_(self, "tol", real(self.tol, "Compliant.tol", low=0.0, low_open=True, error=CompliantError))
        if not isinstance(self.max_iter, int) or self.max_iter < 1:
            raise CompliantError(f"Compliant.max_iter must be a positive integer (got {self.max_iter!r})")

    @property
    def n(self) -> float:
        """The exponent of the penetration in the spring force (1 for ``linear``)."""
        return 1.0 if self.model is NormalModel.LINEAR else self.exponent

    def normal(
        self, d: np.ndarray, ddot: np.ndarray, h: float, touching: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Normal forces c_n (k,) N at penetrations ``d`` (k,) m and rates ``ddot`` (k,) m/s, and
        dc_n/du_n (k,) N s/m where d = d0 - h u_n and d_dot = -u_n (u_n the new normal velocity).
        ``touching`` (k,) bool: the contact penetrated at the start of the step (default: all).
        The linear law damps touching contacts only: its force k d + c d_dot would jump from 0 to
        c d_dot where d crosses 0 while closing, and then the step's equation could have no
        solution; the first step of an impact is undamped instead (Hunt-Crossley's force is
        continuous at d = 0)."""
        k, c = self.stiffness, self.damping
        pos = np.maximum(d, 0.0)
        if self.model is NormalModel.LINEAR:
            damp = c if touching is None else np.where(touching, c, 0.0)
            raw = k * pos + damp * ddot
            slope = -(k * h + damp) * np.ones_like(d)
        else:
            n = self.exponent
            spring = k * pos**n
            raw = spring * (1.0 + c * ddot)
            slope = -k * n * pos ** (n - 1.0) * h * (1.0 + c * ddot) - spring * c
        on = (d > 0) & (raw > 0)
        return np.where(on, raw, 0.0), np.where(on, slope, 0.0)

    def energy(self, d: np.ndarray) -> float:
        """The springs' potential energy (J) at penetrations ``d`` (k,) m: k d^(n+1) / (n+1)."""
        n = self.n
        return float(np.sum(self.stiffness * np.maximum(d, 0.0) ** (n + 1.0) / (n + 1.0)))


def regularized_friction(part: SetPart, u: np.ndarray, vs: float) -> tuple[np.ndarray, np.ndarray]:
    """The friction of ``part`` at unit normal force for sliding velocities ``u`` (k, len(part
    components)) m/s (already weighted by the part's ``accel_weights``), with velocity scale
    ``vs`` (m/s): (forces (k, p), their Jacobians d f / d u (k, p, p)). See the module docstring
    for the rule of each kind of part; the force at normal force c_n is c_n times this one."""
    k, p = u.shape
    if isinstance(part, EllipsoidPart):
        e2 = part.mu * part.e**2
        eu = u * part.e
        s = np.sqrt(np.sum(eu * eu, axis=1) + vs * vs)
        f = -e2 * u / s[:, None]
        jac = -(e2[None, :, None] * np.eye(p)[None]) / s[:, None, None]
        jac += (e2 * u)[:, :, None] * (part.e**2 * u)[:, None, :] / (s**3)[:, None, None]
        return f, jac
    if isinstance(part, BoxPart):
        s = np.sqrt(u * u + vs * vs)
        f = -part.w * u / s
        jac = np.zeros((k, p, p))
        idx = np.arange(p)
        jac[:, idx, idx] = -part.w * vs * vs / s**3
        return f, jac
    if isinstance(part, PolytopePart):
        G, hv = part.G, part.h
        rho = float(np.min(hv / np.linalg.norm(G, axis=1)))
        gain = rho / vs
        f = np.zeros((k, p))
        jac = np.zeros((k, p, p))
        for i in range(k):
            f[i] = part.project(1.0, -gain * u[i])
            active = np.abs(G @ f[i] - hv) <= 1e-10 * max(1.0, float(np.max(np.abs(hv))))
            N = G[active]
            if N.shape[0] == 0:
                J = np.eye(p)
            elif np.linalg.matrix_rank(N) >= p:
                J = np.zeros((p, p))
            else:
                J = np.eye(p) - N.T @ np.linalg.pinv(N @ N.T) @ N
            jac[i] = -gain * J
        return f, jac
    raise CompliantError(
        f"compliant contact cannot regularize a friction set part of kind {type(part).__name__}: "
        "use a law whose set is a cone, ellipsoid, box, polygon or polytope"
    )


@dataclass
class CompliantForces:
    """Forces of the compliant contacts at contact velocities u: ``force`` (m_c,) N on their rows
    (contact frame, contact after contact) and the block-diagonal Jacobian ``jac`` d force / d u."""

    force: np.ndarray
    jac: sp.csr_matrix


class CompliantContacts:
    """The compliant contacts of one step: their models, laws, penetrations and rows.

    ``contacts`` (with ``gaps`` (k,) m) each with its ``model`` (:class:`Compliant`) and friction
    ``law``; ``rows`` (m_c,) the rows of the step's G that belong to them, in order; ``dims`` (k,)
    the number of rows per contact."""

    def __init__(self, contacts, gaps, models, laws, rows, h: float) -> None:
        self.contacts = contacts
        self.d0 = -np.asarray(gaps, dtype=float)
        self.models = models
        self.laws = laws
        self.rows = np.asarray(rows, dtype=int)
        self.dims = np.array([c.dimension for c in contacts], dtype=int)
        self.starts = np.concatenate([[0], np.cumsum(self.dims)])[:-1]
        self.h = h
        # contacts grouped by (model, law): each group is evaluated vectorized
        groups: dict[tuple[int, int], list[int]] = {}
        for i, (model, law) in enumerate(zip(models, laws)):
            groups.setdefault((id(model), id(law)), []).append(i)
        self.groups = []
        for members in groups.values():
            i0 = members[0]
            parts = law_parts(laws[i0], contacts[i0])
            self.groups.append((np.array(members), models[i0], parts))

    def forces(self, u: np.ndarray) -> CompliantForces:
        """The contact forces at contact velocities ``u`` (m_c,) and their Jacobian."""
        m = len(u)
        force = np.zeros(m)
        blocks = [None] * len(self.contacts)
        h = self.h
        for members, model, parts in self.groups:
            starts = self.starts[members]
            un = u[starts]
            d0 = self.d0[members]
            cn, dcn = model.normal(d0 - h * un, -un, h, d0 > 0)
            force[starts] = cn
            dim = int(self.dims[members[0]])
            J = np.zeros((len(members), dim, dim))
            J[:, 0, 0] = dcn
            for part in parts:
                cols = ["ntor".index(a) for a in part.components]
                weights = np.broadcast_to(np.asarray(part.accel_weights, dtype=float), (len(cols),))
                uf = u[starts[:, None] + np.array(cols)[None, :]] * weights
                phi, dphi = regularized_friction(part, uf, model.friction_regularization)
                force[starts[:, None] + np.array(cols)[None, :]] = cn[:, None] * phi
                for a, ca in enumerate(cols):
                    J[:, ca, 0] = phi[:, a] * dcn
                    for b, cb in enumerate(cols):
                        J[:, ca, cb] = cn * dphi[:, a, b] * weights[b]
            for j, i in enumerate(members):
                blocks[i] = J[j]
        jac = sp.block_diag(blocks, format="csr") if blocks else sp.csr_matrix((0, 0))
        return CompliantForces(force, jac)

    def energy(self) -> float:
        """The springs' energy (J) at the step's start."""
        return sum(model.energy(self.d0[members]) for members, model, _ in self.groups)


def law_parts(law, contact) -> list[SetPart]:
    """The parts of ``law``'s friction set, for compliant contact ``contact``."""
    if law is None:
        raise CompliantError(
            f"contact '{contact.name}' has no friction law: give friction= to simulate, to the Plane, "
            "or to add_contact (Frictionless() for none)"
        )
    if not law.describes_set:
        raise CompliantError(
            f"contact '{contact.name}': {type(law).__name__} does not describe its friction set, which "
            "compliant contact regularizes; use a law that defines friction_set()"
        )
    law.check_contact(contact)
    return list(law.friction_set().parts)


def model_of(contact, choice) -> Compliant | None:
    """The contact model of ``contact`` under ``simulate``'s ``contact=``: None (rigid), one
    :class:`Compliant` for every contact, or a mapping whose keys are contact names, body names or
    plane names (the contact's own name first, then its first body's, its second body's, and the
    name after '@' in a generated contact's name: the plane or the other body) and whose values
    are :class:`Compliant` or None (rigid)."""
    if choice is None or isinstance(choice, Compliant):
        return choice
    for key in (contact.name, contact.body_a.name, contact.body_b.name, contact.name.rpartition("@")[2]):
        if key in choice:
            return choice[key]
    return None


def check_choice(choice) -> None:
    """Raise :class:`CompliantError` unless ``choice`` is a valid ``contact=`` of simulate."""
    if choice is None or isinstance(choice, Compliant):
        return
    if not isinstance(choice, Mapping):
        raise CompliantError(
            f"simulate: contact must be None (rigid), a Compliant model, or a mapping of contact, body "
            f"or plane names to Compliant models (got {type(choice).__name__})"
        )
    for key, value in choice.items():
        if not isinstance(key, str) or not (value is None or isinstance(value, Compliant)):
            raise CompliantError(
                f"simulate: contact[{key!r}] must map a contact, body or plane name to a Compliant model "
                f"or None (rigid), got {value!r}"
            )


@dataclass
class NewtonReport:
    """How a compliant step's Newton solve ended: ``converged``, the last ``residual`` (N s,
    inf-norm, relative to max(1, |b|_inf)) and the ``iterations``; ``sweeps`` the rigid-compliant
    sweeps of the step and ``coupling`` the relative change of the compliant impulses in the last
    one (0 when one sweep is exact)."""

    converged: bool
    residual: float
    iterations: int
    sweeps: int = 1
    coupling: float = 0.0


def solve_compliant(
    M: sp.spmatrix, b: np.ndarray, G: sp.csr_matrix, soft: CompliantContacts, nu0: np.ndarray
) -> tuple[np.ndarray, np.ndarray, NewtonReport]:
    """Backward Euler in the compliant forces: nu+ with M nu+ = b + h G^T lambda(G nu+), by Newton
    from ``nu0``. ``G`` (m_c, nq): the compliant contacts' rows. Returns (nu+, impulses
    h lambda (m_c,) N s, report)."""
    h = soft.h
    tol = min(model.tol for _, model, _ in soft.groups)
    max_iter = max(model.max_iter for _, model, _ in soft.groups)
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
    dense = M.shape[0] <= DENSE_NEWTON
    Md = M.toarray() if dense else M.tocsc()
    Gd = G.toarray() if dense else G

    def residual(nu):
        cf = soft.forces(Gd @ nu)
        return Md @ nu - b - h * (Gd.T @ cf.force), cf

    nu = np.array(nu0, dtype=float)
    R, cf = residual(nu)
    norm = float(np.max(np.abs(R), initial=0.0))
    iterations = 0
    while norm > tol * scale and iterations < max_iter:
        iterations += 1
        if dense:
            J = Md - h * (Gd.T @ (cf.jac @ Gd))
            step = np.linalg.solve(J, -R)
        else:
            J = (Md - h * (G.T @ cf.jac @ G)).tocsc()
            step = spsolve(J, -R)
        alpha = 1.0
        merit = float(R @ R)
        while True:
            trial = nu + alpha * step
            R_new, cf_new = residual(trial)
            if float(R_new @ R_new) <= (1.0 - 1e-4 * alpha) * merit or alpha < 1e-6:
                break
            alpha *= 0.5
        nu, R, cf = trial, R_new, cf_new
        norm = float(np.max(np.abs(R), initial=0.0))
    return nu, h * cf.force, NewtonReport(norm <= tol * scale, norm / scale, iterations)


def rows_of(step, contacts) -> list[int]:
    """The rows of ``step``'s G of ``contacts``, contact after contact, in (n, t, o[, r]) order."""
    return [r for c in contacts for r in step.contact_rows[c.name].values()]


def compliant_step(sim, step, contacts, gaps, models, laws, max_sweeps: int = 50):
    """One step with compliant contacts (``models[i]`` not None) beside rigid ones: see the module
    docstring. ``sim`` is the :class:`~.stepper.Simulator` (its rigid step: ``step_assembly``,
    ``problem_for``, ``start``, ``solve``, ``rebuild``, ``solved``), ``step`` the step of all
    ``contacts``, ``laws`` their friction laws. Returns (impulses p on every row of ``step``, the
    rigid Problem or None, reused, the rigid Solution or None, the NewtonReport of the last
    compliant solve, the rigid contacts' step or None): that step is the complementarity problem
    the step stated, the rigid contacts' Assembly with the compliant contacts' impulses of the
    step (p on their rows) as a load in its generalized force, ``M nu + h f + G_c^T p_c``; its
    answer is p on the rigid rows and its "accelerations" are the step's nu+ (to
    :data:`COUPLING_TOL` when a body touches both kinds)."""
    soft_idx = [i for i, m in enumerate(models) if m is not None]
    hard_idx = [i for i, m in enumerate(models) if m is None]
    soft_contacts = [contacts[i] for i in soft_idx]
    soft_rows = rows_of(step, soft_contacts)
    soft = CompliantContacts(
        soft_contacts,
        gaps[soft_idx],
        [models[i] for i in soft_idx],
        [laws[i] for i in soft_idx],
        soft_rows,
        sim.h,
    )
    G = step.G.tocsr()
    Gc = G[soft_rows]
    base = step.f  # M nu + h f
    last = sim.compliant_impulses
    p_c = (
        np.concatenate([last.get(c.name, np.zeros(c.dimension)) for c in soft_contacts])
        if soft_contacts
        else np.zeros(0)
    )
    p = np.zeros(G.shape[0])
    problem = solution = None
    reused = False
    rigid = [contacts[i] for i in hard_idx]
    hard_rows = rows_of(step, rigid)
    nu0 = step.Minv @ (base + Gc.T @ p_c)
    if rigid:
        rigid_step = sim.step_assembly(rigid, gaps[hard_idx])
    report = NewtonReport(True, 0.0, 0)
    # the sweeps are needed only when a body has contacts of both kinds
    coupled = bool(_bodies(soft_contacts) & _bodies(rigid))
    change, sweeps = 0.0, 0
    while sweeps < max_sweeps:
        sweeps += 1
        extra = np.zeros_like(base)
        if rigid:
            loaded = dataclasses.replace(rigid_step, f=rigid_step.f + Gc.T @ p_c)
            problem, reused = sim.problem_for(loaded, rigid)
            x0 = sim.start(problem, reused) if sim.warm_start else None
            solution = sim.solve(problem, x0)
            if not solution.ok and (reused or x0 is not None):
                problem, reused = sim.rebuild(loaded), False
                solution = sim.solve(problem)
            if not solution.ok:
                return p, problem, reused, solution, report, None
            sim.solved(problem, solution.x)
            p_r = problem.force_vector()
            p[hard_rows] = p_r
            extra = G[hard_rows].T @ p_r
        nu, p_new, report = solve_compliant(step.M, base + extra, Gc, soft, nu0)
        if not report.converged:
            break
        change = float(np.max(np.abs(p_new - p_c), initial=0.0)) / max(
            1.0, float(np.max(np.abs(p_new), initial=0.0))
        )
        p_c, nu0 = p_new, nu
        if not coupled:
            change = 0.0
        if change <= COUPLING_TOL:
            break
    report.sweeps, report.coupling = sweeps, change
    p[soft_rows] = p_c
    offsets = np.concatenate([[0], np.cumsum(soft.dims)])
    sim.compliant_impulses = {
        c.name: p_c[offsets[i] : offsets[i + 1]].copy() for i, c in enumerate(soft_contacts)
    }
    stated = dataclasses.replace(rigid_step, f=rigid_step.f + Gc.T @ p_c) if rigid else None
    return p, problem, reused, solution, report, stated


def failure(newton: NewtonReport, solution, solver: str) -> str:
    """Why a compliant step failed ('' when it did not): its Newton solve or the rigid solve."""
    if newton.converged and newton.coupling > COUPLING_TOL:
        return (
            f"the rigid and compliant contacts did not agree after {newton.sweeps} Gauss-Seidel sweeps "
            f"(the compliant impulses still changed by {newton.coupling:.3g}, relative)"
        )
    if not newton.converged:
        return (
            f"the compliant contacts' Newton solve did not converge (residual {newton.residual:.3g} after "
            f"{newton.iterations} iterations)"
        )
    if solution is not None and not solution.ok:
        return (
            f"solver '{solver}' returned {solution.status.value} for the rigid contacts (residual "
            f"{solution.residual:.3g}); {solution.message}"
        )
    return ""


def _bodies(contacts) -> set[int]:
    """The ids of the moving bodies (not the ground) of ``contacts``."""
    return {id(b) for c in contacts for b in (c.body_a, c.body_b) if not isinstance(b, Ground)}


def spring_energy(contacts, gaps, models) -> float:
    """The springs' potential energy (J) of the compliant contacts among ``contacts`` at ``gaps``."""
    total = 0.0
    for g, model in zip(gaps, models):
        if model is not None:
            total += model.energy(np.array([-g]))
    return total


def parse_contact(spec: str) -> Compliant | None:
    """A :class:`Compliant` from the command line's ``compliant:K:C[:MODEL[:VS]]``: stiffness K,
    damping C, MODEL ``linear`` (default) or ``hunt-crossley``, friction regularization VS (m/s);
    None (rigid contact) for ``rigid``."""
    name, *params = (s.strip() for s in str(spec).split(":"))
    if name.lower() == "rigid" and not params:
        return None
    if name.lower() != "compliant" or not 2 <= len(params) <= 4:
        raise CompliantError(
            f"contact spec {spec!r}: use rigid or compliant:K:C[:MODEL[:VS]] (stiffness K, damping C, "
            "MODEL linear or hunt-crossley, friction regularization VS in m/s), e.g. compliant:1e5:100"
        )
    try:
        numbers = [float(params[0]), float(params[1])]
        vs = float(params[3]) if len(params) == 4 else None
    except ValueError:
        raise CompliantError(
            f"contact spec {spec!r}: K, C and VS must be numbers, as in compliant:K:C[:MODEL[:VS]]"
        ) from None
    kwargs = {"model": params[2]} if len(params) >= 3 else {}
    if vs is not None:
        kwargs["friction_regularization"] = vs
    return Compliant(numbers[0], numbers[1], **kwargs)


__all__ = [
    "Compliant",
    "CompliantError",
    "NormalModel",
    "compliant_step",
    "failure",
    "model_of",
    "parse_contact",
    "regularized_friction",
    "spring_energy",
]
