"""Assembly: numbers only, independent of the friction law.

Generalized velocity nu = [per body: (v, omega) world frame; per manipulator: joint rates].
Newton-Euler: M nu_dot = G^T c + f, with f = gravity + external wrenches + known joint
efforts - velocity-product terms. Contact kinematics: v = G nu (rows n, t, o[, r] per contact)
and a = G nu_dot + G_dot nu. Coordinates whose acceleration is prescribed (joints with an unknown effort;
Trinkle, Pang, Sudarsky and Lo, "On dynamic multi-rigid-body contact problems with Coulomb friction", 1997,
§2.5) are eliminated, so with F = the free coordinates (ibid. (19)-(23)):

    a = A c + b,   A = G_F M_FF^-1 G_F^T,
    b = G_F M_FF^-1 (f_F - M_FP nu_dot_P) + G_P nu_dot_P + G_dot nu.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from contactmodel import validate
from contactmodel.errors import DeclarationError, StateError
from contactmodel.geometry import skew
from contactmodel.manipulator import Manipulator
from contactmodel.solution import BodyResult, JointResult
from contactmodel.sparse_product import csr_times, dense_csr
from contactmodel.system import Body, Contact, Ground, LinkRef, System

COMPONENTS = ("n", "t", "o", "r")


@dataclass
class Motion:
    """The generalized motion that contact forces c produce (empty for a problem given by A, b).

    ``nu_dot`` (nq,) generalized accelerations; ``efforts`` (nq,) the generalized forces the
    prescribed coordinates need (0 elsewhere); ``bodies`` and ``joints`` the same per body
    (world frame, centre of mass) and per joint (with its declared or computed effort).
    """

    nu_dot: np.ndarray
    efforts: np.ndarray
    bodies: list[BodyResult] = field(default_factory=list)
    joints: list[JointResult] = field(default_factory=list)


class ContactAssembly(ABC):
    """What every assembly offers the formulation and the dispatcher: the m contact rows
    (n, t, o[, r] per contact) of a = A c + b, and the motion forces c produce.

    ``rows[k] = (contact name, component)`` names row k of v, b, A; ``contact_rows[name]`` maps a
    component to its row. ``v`` (m,) relative contact velocities; ``A_sparse`` (m, m); ``b`` (m,).
    ``rolling`` / ``sliding`` hold contact names. ``has_dynamics``: M, G and f are known, so the
    sparse form and body/joint results exist.
    """

    system: System
    rows: list[tuple[str, str]]
    contact_rows: dict[str, dict[str, int]]
    rolling: list[str]
    sliding: list[str]
    v: np.ndarray
    A_sparse: sp.csr_matrix
    b: np.ndarray
    has_dynamics: ClassVar[bool]
    #: velocities, not accelerations, are the rows' unknowns (:class:`QuasistaticAssembly`)
    quasistatic: ClassVar[bool] = False

    @property
    def A(self) -> np.ndarray:
        """(m, m) dense A."""
        return self.A_sparse.toarray()

    @property
    def m(self) -> int:
        """Number of contact rows."""
        return len(self.rows)

    def indices(self, contact: str) -> list[int]:
        """The rows of one contact, in (n, t, o[, r]) order."""
        return list(self.contact_rows[contact].values())

    def row(self, contact: str, component: str) -> int:
        return self.contact_rows[contact][component]

    @abstractmethod
    def contact_accelerations(self, c: np.ndarray) -> np.ndarray:
        """(m,) relative contact accelerations a produced by contact forces c (m,)."""

    @abstractmethod
    def motion(self, c: np.ndarray) -> Motion:
        """The generalized motion produced by contact forces c (m,)."""

    def response(self, c: np.ndarray) -> tuple[np.ndarray, Motion]:
        """(:meth:`contact_accelerations`, :meth:`motion`) of forces c (m,), together."""
        return self.contact_accelerations(c), self.motion(c)


@dataclass
class Assembly(ContactAssembly):
    """The contact problem's numbers (see module docstring); shapes in the field docs.

    ``rows[k] = (contact name, component)`` names row k of G, v, b, A (m rows).
    ``coordinates[i]`` names entry i of nu (nq entries). ``contact_rows[name]`` maps a
    component to its row. ``rolling`` / ``sliding`` hold contact names.
    """

    system: System
    coordinates: list[str]
    M: sp.csr_matrix  # (nq, nq) symmetric positive definite
    f: np.ndarray  # (nq,) generalized force without contact forces
    nu: np.ndarray  # (nq,) generalized velocity
    G: sp.csr_matrix  # (m, nq) contact Jacobian
    gdot_nu: np.ndarray  # (m,) G_dot nu (+ user curvature terms)
    rows: list[tuple[str, str]]
    contact_rows: dict[str, dict[str, int]]
    frames: dict[str, np.ndarray]  # contact name -> 3x3 rows (n, t, o)
    prescribed: np.ndarray  # (nq,) bool: acceleration given (unknown effort)
    nu_dot_prescribed: np.ndarray  # (nq,) given accelerations (0 where free)
    rolling: list[str] = field(default_factory=list)
    sliding: list[str] = field(default_factory=list)
    has_dynamics: ClassVar[bool] = True

    @cached_property
    def v(self) -> np.ndarray:
        """(m,) relative contact velocities G nu (computed once: callers index it per contact)."""
        return self.G @ self.nu

    @property
    def free(self) -> np.ndarray:
        """(nq,) bool: coordinates whose acceleration is unknown."""
        return ~self.prescribed

    @cached_property
    def M_free_inverse(self) -> sp.csr_matrix:
        """(nf, nf) M_FF^-1, the inverse of the mass matrix on the free coordinates (formed once,
        block by block)."""
        Mff = self.M[self.free][:, self.free].tocsc()
        return _block_inverse(Mff)

    @cached_property
    def A_sparse(self) -> sp.csr_matrix:
        """(m, m) A = G_F M_FF^-1 G_F^T as a sparse matrix (symmetric PSD)."""
        GF = self.G[:, self.free]
        A = (GF @ self.M_free_inverse @ GF.T).tocsr()
        return ((A + A.T) * 0.5).tocsr()

    @cached_property
    def b(self) -> np.ndarray:
        """(m,) b (see module docstring)."""
        F, P = self.free, self.prescribed
        ndp = self.nu_dot_prescribed[P]
        rhs = self.f[F] - self.M[F][:, P] @ ndp
        return self.G[:, F] @ (self.M_free_inverse @ rhs) + self.G[:, P] @ ndp + self.gdot_nu

    @cached_property
    def _free_parts(self) -> tuple[sp.csr_matrix, sp.csr_matrix, sp.csr_matrix]:
        """(G_F^T, M_FP, G^T): the slices every call of :meth:`accelerations` and :meth:`efforts`
        needs, made once (sparse fancy indexing costs more than the products)."""
        F = self.free
        return self.G[:, F].T.tocsr(), self.M[F][:, self.prescribed].tocsr(), self.G.T.tocsr()

    def accelerations(self, c: np.ndarray) -> np.ndarray:
        """(nq,) nu_dot produced by contact forces c (m,)."""
        GFt, MFP, _ = self._free_parts
        if not self.prescribed.any():  # every coordinate free: no M_FP product, no masks
            return csr_times(self.M_free_inverse, self.f + csr_times(GFt, c))
        F = self.free
        nu_dot = self.nu_dot_prescribed.copy()
        rhs = self.f[F] + GFt @ c - MFP @ nu_dot[self.prescribed]
        nu_dot[F] = self.M_free_inverse @ rhs
        return nu_dot

    def contact_accelerations(self, c: np.ndarray) -> np.ndarray:
        """(m,) relative contact accelerations a = G nu_dot + G_dot nu produced by forces c."""
        return csr_times(self.G, self.accelerations(c)) + self.gdot_nu

    def response(self, c: np.ndarray) -> tuple[np.ndarray, Motion]:
        """(a, motion) of forces c (m,), solving for nu_dot once."""
        motion = self.motion(c)
        return csr_times(self.G, motion.nu_dot) + self.gdot_nu, motion

    def efforts(self, c: np.ndarray, nu_dot: np.ndarray) -> np.ndarray:
        """(nq,) generalized forces the prescribed coordinates need (0 elsewhere)."""
        if not self.prescribed.any():  # nothing prescribed: no products (the same zeros)
            return np.zeros(len(self.prescribed))
        residual = self.M @ nu_dot - self._free_parts[2] @ c - self.f
        return np.where(self.prescribed, residual, 0.0)

    def motion(self, c: np.ndarray) -> Motion:
        """nu_dot and efforts for forces c (m,), with one result per body and per joint: the
        joint's declared effort, or the computed one where it was declared unknown."""
        nu_dot = self.accelerations(c)
        efforts = self.efforts(c, nu_dot)
        named = self.system.bodies
        per_body = nu_dot[: 6 * len(named)].reshape(len(named), 6)  # (v_dot, omega_dot) of body i
        bodies = [
            BodyResult(body.name, linear, angular)
            for body, linear, angular in zip(named, per_body[:, :3].tolist(), per_body[:, 3:].tolist())
        ]
        joints = []
        offset = 6 * len(self.system.bodies)
        for arm in self.system.manipulators:
            for k, declared in enumerate(arm.efforts):
                i = offset + k
                effort = efforts[i] if declared is None else float(declared)
                joints.append(JointResult(self.coordinates[i], float(nu_dot[i]), float(effort)))
            offset += len(arm.joints)
        return Motion(nu_dot, efforts, bodies, joints)


def _block_inverse(M: sp.csc_matrix) -> sp.csr_matrix:
    """Inverse of a block-diagonal SPD sparse matrix, block by block (exact, stays sparse): the
    blocks (connected components of M's pattern) are grouped by size and each group is inverted
    as one stacked array, so the cost is linear in the number of blocks."""
    n = M.shape[0]
    if n == 0:
        return sp.csr_matrix((0, 0))
    ncomp, labels = connected_components(M, directed=False)
    order = np.argsort(labels, kind="stable")
    sizes = np.bincount(labels, minlength=ncomp)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    position = np.empty(n, dtype=np.int64)  # index of each coordinate inside its block
    position[order] = np.arange(n) - starts[labels[order]]
    coo = M.tocoo()
    rows, cols, data = [], [], []
    for size in np.unique(sizes):
        comps = np.flatnonzero(sizes == size)  # the blocks of this size
        slot = np.full(ncomp, -1, dtype=np.int64)
        slot[comps] = np.arange(comps.size)
        stacked = np.zeros((comps.size, size, size))
        keep = slot[labels[coo.row]] >= 0
        r, c = coo.row[keep], coo.col[keep]
        stacked[slot[labels[r]], position[r], position[c]] = coo.data[keep]
        inverse = np.linalg.inv(stacked)
        members = order[starts[comps][:, None] + np.arange(size)]  # (blocks, size) coordinates
        rows.append(np.repeat(members, size, axis=1).ravel())
        cols.append(np.tile(members, (1, size)).ravel())
        data.append(inverse.ravel())
    return sp.csr_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n))


def assemble(system: System) -> Assembly:
    """Build M, f, G, G_dot nu and the rolling/sliding sets of ``system`` at its current state."""
    g = np.asarray(system.gravity, dtype=float)
    blocks = [_body_block(body, g) for body in system.bodies]
    blocks += [_arm_block(arm, g) for arm in system.manipulators]
    offsets = _offsets(system, blocks)
    nq = sum(len(b.names) for b in blocks)
    contacts = _contact_rows(system, offsets, nq)
    assembly = Assembly(
        system=system,
        coordinates=[name for b in blocks for name in b.names],
        M=_block_diagonal([b.M for b in blocks]),
        f=_stack([b.f for b in blocks], float),
        nu=_stack([b.nu for b in blocks], float),
        G=contacts.G,
        gdot_nu=contacts.gdot_nu,
        rows=contacts.rows,
        contact_rows=contacts.contact_rows,
        frames=contacts.frames,
        prescribed=_stack([b.prescribed for b in blocks], bool),
        nu_dot_prescribed=_stack([b.nu_dot_prescribed for b in blocks], float),
    )
    _classify(system, assembly)
    return assembly


@dataclass
class _Block:
    """The generalized coordinates of one body (6) or manipulator (its joints): names, mass
    matrix block, force without contacts, velocity, which accelerations are prescribed and to
    what."""

    names: list[str]
    M: np.ndarray  # dense (k, k)
    f: np.ndarray
    nu: np.ndarray
    prescribed: np.ndarray
    nu_dot_prescribed: np.ndarray


def _body_block(body: Body, g: np.ndarray) -> _Block:
    """(v, omega) of a free body: M = diag(m I, I_world), f = (m g + force, torque - w x I w)."""
    Iw = body.inertia_world
    w = body.angular_velocity
    M = np.zeros((6, 6))
    M[:3, :3] = body.mass * np.eye(3)
    M[3:, 3:] = Iw
    return _Block(
        names=[f"{body.name}.{s}" for s in ("vx", "vy", "vz", "wx", "wy", "wz")],
        M=M,
        f=np.concatenate([body.wrench[:3] + body.mass * g, body.wrench[3:] - skew(w) @ (Iw @ w)]),
        nu=np.concatenate([body.velocity, w]),
        prescribed=np.zeros(6, dtype=bool),
        nu_dot_prescribed=np.zeros(6),
    )


def _arm_block(arm: Manipulator, g: np.ndarray) -> _Block:
    """The joints of a manipulator: a joint with an unknown effort (None) has its acceleration
    prescribed instead."""
    unknown = np.array([e is None for e in arm.efforts], dtype=bool)
    efforts = np.array([0.0 if e is None else e for e in arm.efforts], dtype=float)
    given = [
        0.0 if a is None or not unknown[i] else float(a) for i, a in enumerate(arm.prescribed_accelerations)
    ]
    return _Block(
        names=[f"{arm.name}.{arm.joint_name(i)}" for i in range(len(arm.joints))],
        M=np.asarray(arm.mass_matrix(), dtype=float),
        f=arm.bias_forces(g) + efforts,
        nu=np.asarray(arm.qdot, dtype=float),
        prescribed=unknown,
        nu_dot_prescribed=np.array(given, dtype=float),
    )


def _offsets(system: System, blocks: list[_Block]) -> dict[int, int]:
    """id(body or manipulator) -> index of its first coordinate in nu."""
    owners = [*system.bodies, *system.manipulators]
    starts = np.cumsum([0] + [len(b.names) for b in blocks])
    return {id(owner): int(start) for owner, start in zip(owners, starts)}


def _block_diagonal(blocks: list[np.ndarray]) -> sp.csr_matrix:
    """The block-diagonal CSR matrix of dense square blocks, their zeros not stored (one COO
    build: ``sp.block_diag`` per body cost more than the rest of the assembly)."""
    data, ri, ci, start = [], [], [], 0
    for block in blocks:
        r, c = np.nonzero(block)
        data.append(block[r, c])
        ri.append(r + start)
        ci.append(c + start)
        start += block.shape[0]
    return sp.csr_matrix(
        (_stack(data, float), (_stack(ri, np.int64), _stack(ci, np.int64))), shape=(start, start)
    )


def _stack(parts: list[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)


@dataclass
class _ContactRows:
    """The m contact rows: names, per-contact row maps and frames, G (m, nq), G_dot nu (m,)."""

    rows: list[tuple[str, str]]
    contact_rows: dict[str, dict[str, int]]
    frames: dict[str, np.ndarray]
    G: sp.csr_matrix
    gdot_nu: np.ndarray


def _contact_rows(system: System, offsets: dict[int, int], nq: int) -> _ContactRows:
    """Rows (n, t, o[, r]) per contact of G and G_dot nu: body_a's material point minus body_b's.
    The terms of free bodies are computed for all contacts at once (:func:`_body_terms`, the same
    floating-point operations as :func:`_point_terms` per contact), a manipulator link's one
    contact at a time."""
    rows: list[tuple[str, str]] = []
    contact_rows: dict[str, dict[str, int]] = {}
    frames: dict[str, np.ndarray] = {}
    contacts = system.contacts
    bases = np.zeros(len(contacts), dtype=np.int64)
    for j, contact in enumerate(contacts):
        comps = COMPONENTS[: contact.dimension]
        base = bases[j] = len(rows)
        contact_rows[contact.name] = {c: base + k for k, c in enumerate(comps)}
        rows += [(contact.name, c) for c in comps]
        frames[contact.name] = contact.frame
    data, ri, ci = [], [], []
    gdot = np.zeros(len(rows))
    for side, sign in (("body_a", 1.0), ("body_b", -1.0)):  # body_a's terms first, as summed before
        bodies = [getattr(c, side) for c in contacts]
        free = [j for j, body in enumerate(bodies) if isinstance(body, Body)]
        if free:
            _body_terms([contacts[j] for j in free], bases[free], sign, offsets, (data, ri, ci), gdot)
        for j, body in enumerate(bodies):
            if isinstance(body, (Body, Ground)):
                continue
            cols, jac, acc = _point_terms(body, contacts[j], offsets)
            block = sign * jac  # (dim, ncols)
            r_idx, c_idx = np.nonzero(block)
            data.append(block[r_idx, c_idx])
            ri.append(bases[j] + r_idx)
            ci.append(cols[c_idx])
            gdot[bases[j] : bases[j] + len(acc)] += sign * acc
    for j, contact in enumerate(contacts):
        if contact.curvature is not None:
            gdot[bases[j] : bases[j] + contact.dimension] += contact.curvature
    G = sp.csr_matrix(
        (_stack(data, float), (_stack(ri, np.int64), _stack(ci, np.int64))),
        shape=(len(rows), nq),
    )
    return _ContactRows(rows, contact_rows, frames, G, gdot)


def _body_terms(contacts: list[Contact], bases: np.ndarray, sign: float, offsets, entries, gdot) -> None:
    """The terms of one side's free bodies at ``contacts`` (their first rows ``bases``), signed:
    G's nonzero entries appended to ``entries`` (data, rows, columns) and the bias accelerations
    added to ``gdot``. Row by row the operations of :func:`_point_terms` (stacked 3x3 products
    are the same products), so G and G_dot nu do not depend on how many contacts there are."""
    side = "body_a" if sign > 0 else "body_b"
    bodies = [getattr(c, side) for c in contacts]
    C = np.array([c.frame for c in contacts])  # (k, 3, 3)
    r = np.array([c.point for c in contacts]) - np.array([b.position for b in bodies])
    w = np.array([b.angular_velocity for b in bodies])
    lin = np.concatenate([C, -np.matmul(C, _skews(r))], axis=2)  # (k, 3, 6)
    W = _skews(w)
    acc = np.matmul(C, np.matmul(W, np.matmul(W, r[:, :, None])))[:, :, 0]  # w x (w x r)
    starts = np.array([offsets[id(b)] for b in bodies], dtype=np.int64)
    data, ri, ci = entries
    block = sign * lin
    k_idx, r_idx, c_idx = np.nonzero(block)
    data.append(block[k_idx, r_idx, c_idx])
    ri.append(bases[k_idx] + r_idx)
    ci.append(starts[k_idx] + c_idx)
    torsion = np.array([c.torsion for c in contacts], dtype=bool)
    if torsion.any():  # the r row: the angular velocity about n
        twist = sign * np.concatenate([np.zeros((int(torsion.sum()), 3)), C[torsion, 0]], axis=1)
        k_idx, c_idx = np.nonzero(twist)
        data.append(twist[k_idx, c_idx])
        ri.append(bases[torsion][k_idx] + 3)
        ci.append(starts[torsion][k_idx] + c_idx)
    rows3 = bases[:, None] + np.arange(3)
    gdot[rows3] += sign * acc  # each row once per side: no two contacts share a row


def _skews(v: np.ndarray) -> np.ndarray:
    """(k, 3, 3) the matrices [v_i]x of the rows of ``v`` (k, 3), entries as :func:`skew` makes them."""
    out = np.zeros((v.shape[0], 3, 3))
    out[:, 0, 1], out[:, 0, 2] = -v[:, 2], v[:, 1]
    out[:, 1, 0], out[:, 1, 2] = v[:, 2], -v[:, 0]
    out[:, 2, 0], out[:, 2, 1] = -v[:, 1], v[:, 0]
    return out


def _point_terms(body, contact: Contact, offsets: dict[int, int]):
    """Columns, Jacobian rows (dim x ncols) and bias acceleration (dim,) of ``body``'s material
    point at the contact, in the contact frame."""
    C = contact.frame
    p = contact.point
    if isinstance(body, Body):
        r = p - body.position
        w = body.angular_velocity
        lin = np.hstack([C, -C @ skew(r)])  # d.(v + w x r) = d.v - d.(r x w)
        rows = [lin]
        if contact.torsion:
            rows.append(np.concatenate([np.zeros(3), C[0]])[None, :])
        W = skew(w)
        acc = [C @ (W @ (W @ r))]  # w x (w x r)
        if contact.torsion:
            acc.append(np.zeros(1))
        start = offsets[id(body)]
        return np.arange(start, start + 6), np.vstack(rows), np.concatenate(acc)
    if isinstance(body, LinkRef):
        arm, k = body.manipulator, body.index
        Jv = arm.point_jacobian(k, p)
        rows = [C @ Jv]
        acc = [C @ arm.point_bias_acceleration(k, p)]
        if contact.torsion:
            rows.append((C[0] @ arm.angular_jacobian(k))[None, :])
            acc.append(np.array([C[0] @ arm.angular_bias_acceleration(k)]))
        start = offsets[id(arm)]
        return np.arange(start, start + len(arm.joints)), np.vstack(rows), np.concatenate(acc)
    raise DeclarationError(
        f"contact '{contact.name}': {body!r} is not a contact body; declare contacts with "
        "System.add_contact, between a Body, system.ground or a manipulator link"
    )


def _classify(system: System, assembly: Assembly) -> None:
    """Refuse approaching or separating contacts; sort the others into rolling and sliding by the
    norm of their tangential relative velocity (t, o[, r]), all contacts at once."""
    v = assembly.v
    contacts = system.contacts
    first = np.array([assembly.contact_rows[c.name]["n"] for c in contacts], dtype=np.int64)
    dims = np.array([c.dimension for c in contacts], dtype=np.int64)
    vn = v[first] if len(contacts) else np.zeros(0)
    for j in np.flatnonzero(np.abs(vn) > system.normal_velocity_tol)[:1]:
        raise StateError(
            f"contact '{contacts[j].name}': normal relative velocity is {vn[j]:.6g} m/s; the model "
            "holds only for persisting contacts (v_n = 0): fix the body velocities or drop "
            "the contact"
        )
    speed = np.zeros(len(contacts))
    for d in np.unique(dims):
        mine = np.flatnonzero(dims == d)
        tangential = v[first[mine, None] + np.arange(1, d)]
        speed[mine] = np.sqrt(np.sum(tangential * tangential, axis=1))
    for contact, rolls in zip(contacts, (speed <= system.rolling_tol).tolist()):
        (assembly.rolling if rolls else assembly.sliding).append(contact.name)


@dataclass
class MatrixAssembly(ContactAssembly):
    """A contact problem given directly by A (m x m) and b (m,), with no bodies behind it: only
    the reduced form, and no body or joint results. Rows are (n, t, o[, r]) per contact in
    ``rows`` order.
    """

    system: System
    A_sparse: sp.csr_matrix
    b: np.ndarray
    v: np.ndarray
    rows: list[tuple[str, str]]
    contact_rows: dict[str, dict[str, int]]
    rolling: list[str] = field(default_factory=list)
    sliding: list[str] = field(default_factory=list)
    has_dynamics: ClassVar[bool] = False

    def contact_accelerations(self, c: np.ndarray) -> np.ndarray:
        """(m,) a = A c + b."""
        return self.A_sparse @ c + self.b

    def motion(self, c: np.ndarray) -> Motion:
        """No generalized coordinates behind A and b: an empty motion."""
        return Motion(np.zeros(0), np.zeros(0))


def assemble_from_matrices(
    A,
    b,
    *,
    velocities=None,
    torsion: bool = False,
    names=None,
    rolling_tol: float = 1e-9,
    check_symmetric: bool = True,
) -> MatrixAssembly:
    """A :class:`MatrixAssembly` from A, b with d = 3 (or 4 with ``torsion``) rows per contact.

    ``velocities`` (nc, d-1): tangential (and twisting) relative velocities; contacts whose
    speed exceeds ``rolling_tol`` are sliding. Default: all rolling. A = G M^-1 G^T of a rigid
    body system is symmetric, so a non-symmetric A (relative 1e-9) is refused unless
    ``check_symmetric=False``, for problems whose A is not such a product (e.g. FCLIB W).
    """
    A = validate.real_array(A, "A", ndim=2, finite=False, copy=False)  # read only: A_sparse is a copy
    b = validate.real_array(b, "b", ndim=1, finite=False)
    d = 4 if torsion else 3
    m = b.shape[0]
    if A.shape != (m, m) or m % d:
        raise DeclarationError(
            f"A must be square with as many rows as b, a multiple of {d} (rows n, t, o"
            f"{', r' if torsion else ''} per contact); got A {A.shape}, b ({m},)"
        )
    A_sparse = dense_csr(A)  # A's nonzeros: NaN and infinity among them, zeros finite
    if not (np.all(np.isfinite(A_sparse.data)) and np.all(np.isfinite(b))):
        raise DeclarationError("A and b must be finite: remove NaN or infinity")
    if check_symmetric and not _symmetric(A, A_sparse):
        raise DeclarationError(
            "A must be symmetric (A = G M^-1 G^T); check its source, or pass check_symmetric=False "
            "to solve with a non-symmetric A as given"
        )
    nc = m // d
    names = validate.names(names, "names", nc) if names is not None else [f"c{j}" for j in range(nc)]
    if len(names) != nc or len(set(names)) != nc:
        raise DeclarationError(f"names must be {nc} distinct contact names (got {names})")
    vel = np.zeros((nc, d - 1)) if velocities is None else validate.real_array(velocities, "velocities")
    if vel.shape != (nc, d - 1):
        raise DeclarationError(f"velocities must have shape ({nc}, {d - 1}) (got {vel.shape})")
    system = System(rolling_tol=rolling_tol)
    comps = COMPONENTS[:d]
    contact_rows = {name: {c: d * j + k for k, c in enumerate(comps)} for j, name in enumerate(names)}
    rows = [(name, c) for name in names for c in comps]
    v = np.zeros((nc, d))
    v[:, 1:] = vel
    # no geometry behind the contacts: each at the origin in the world frame (shared, read-only)
    origin, world = _ORIGIN, _WORLD
    system.contacts.extend(
        Contact(name=name, body_a=None, body_b=None, point=origin, frame=world, torsion=torsion)
        for name in names
    )
    assembly = MatrixAssembly(system, A_sparse, b, v.reshape(-1), rows, contact_rows)
    sliding = (np.linalg.norm(vel, axis=1) > rolling_tol).tolist()
    assembly.sliding.extend(name for name, s in zip(names, sliding) if s)
    assembly.rolling.extend(name for name, s in zip(names, sliding) if not s)
    return assembly


_ORIGIN = np.zeros(3)
_WORLD = np.eye(3)
_ORIGIN.flags.writeable = _WORLD.flags.writeable = False


def _symmetric(A: np.ndarray, A_sparse: sp.csr_matrix) -> bool:
    """Whether A (m, m) is symmetric to 1e-9 relative to its largest entry; exactly, at once, on
    its nonzeros ``A_sparse`` (canonical CSR), first."""
    # exactly symmetric iff A[j, i] == A[i, j] at every nonzero (i, j) (A is finite here): the
    # mirror entries read at once, without a transposed copy
    rows = np.repeat(np.arange(A.shape[0], dtype=A_sparse.indices.dtype), np.diff(A_sparse.indptr))
    if np.array_equal(A[A_sparse.indices, rows], A_sparse.data):
        return True
    return bool(np.abs(A - A.T).max(initial=0.0) <= 1e-9 * max(1.0, np.abs(A).max(initial=0.0)))


@dataclass
class QuasistaticAssembly(Assembly):
    """The numbers of a quasistatic problem (Trinkle, Pang, Sudarsky and Lo 1997, §2.5; Pang,
    Trinkle and Lo, "A complementarity approach to a quasistatic multi-rigid-body contact problem",
    1996): the inertia terms are dropped and the unknowns are velocities, not accelerations.

    The fields keep the dynamic :class:`Assembly`'s names, read at the velocity level: ``M`` is 0
    (no inertia), ``f`` (nq,) gravity, external wrenches and known joint efforts (no
    velocity-product terms), ``nu`` 0 (every contact's law is stated for a contact at rest: the
    unknown relative velocities G nu take the place of the accelerations), ``gdot_nu`` 0,
    ``prescribed`` the driven coordinates (driven bodies; joints with an unknown effort) and
    ``nu_dot_prescribed`` their velocities (m/s, rad/s). The sparse form of these numbers is the
    quasistatic problem: rows a = G_F nu_F + G_P nu_P (relative contact velocities) and
    equilibrium -G_F^T c - f_F = 0 matched with the free velocities nu_F. There is no reduced
    form (M_FF has no inverse): ``A_sparse``, ``b`` and the motion of forces alone are refused.
    """

    quasistatic: ClassVar[bool] = True

    @property
    def M_free_inverse(self) -> sp.csr_matrix:
        raise _no_reduced_form("M_FF^-1")

    @property
    def A_sparse(self) -> sp.csr_matrix:
        raise _no_reduced_form("A")

    @property
    def b(self) -> np.ndarray:
        raise _no_reduced_form("b")

    def accelerations(self, c: np.ndarray) -> np.ndarray:
        raise _no_reduced_form("the motion of forces c alone")

    def contact_accelerations(self, c: np.ndarray) -> np.ndarray:
        raise _no_reduced_form("the contact velocities of forces c alone")

    def motion(self, c: np.ndarray) -> Motion:
        raise _no_reduced_form("the motion of forces c alone")

    def response(self, c: np.ndarray) -> tuple[np.ndarray, Motion]:
        raise _no_reduced_form("the motion of forces c alone")

    def response_at(self, c: np.ndarray, nu: np.ndarray) -> tuple[np.ndarray, Motion]:
        """(relative contact velocities G nu (m,), the motion) at contact forces c (m,) and
        generalized velocities nu (nq,) (the driven ones among them as prescribed). The motion's
        ``nu_dot`` holds nu, its ``efforts`` the wrenches and joint efforts the driven coordinates
        need, -G^T c - f there (0 elsewhere; on a driven body: force (N) and torque (N m) about its
        centre of mass, world frame, that the driver applies); each body's result carries its
        velocities and zero accelerations."""
        nu = np.asarray(nu, dtype=float)
        efforts = np.where(self.prescribed, -(self._free_parts[2] @ c) - self.f, 0.0)
        named = self.system.bodies
        per_body = nu[: 6 * len(named)].reshape(len(named), 6)
        wrenches = efforts[: 6 * len(named)].reshape(len(named), 6)
        driven = self.prescribed[: 6 * len(named)].reshape(len(named), 6).any(axis=1)
        bodies = [
            BodyResult(
                body.name, [0.0] * 3, [0.0] * 3, v[:3].tolist(), v[3:].tolist(), w.tolist() if d else None
            )
            for body, v, w, d in zip(named, per_body, wrenches, driven)
        ]
        joints = []
        offset = 6 * len(named)
        for arm in self.system.manipulators:
            for k, declared in enumerate(arm.efforts):
                i = offset + k
                effort = efforts[i] if self.prescribed[i] else float(declared or 0.0)
                joints.append(JointResult(self.coordinates[i], 0.0, float(effort), float(nu[i])))
            offset += len(arm.joints)
        return self.G @ nu, Motion(nu, efforts, bodies, joints)


def _no_reduced_form(what: str) -> StateError:
    return StateError(
        f"a quasistatic problem has no {what}: without inertia the velocities are unknowns of the "
        "MCP (sparse form), not a function of the contact forces; read them from a Solution "
        "(solution.bodies[i].linear_velocity) or Problem.interpret(x)"
    )


def assemble_quasistatic(system: System, driven=None) -> QuasistaticAssembly:
    """The :class:`QuasistaticAssembly` of ``system`` at its current positions (its velocities
    are not read).

    ``driven`` maps a body's name to its prescribed twist, 6 numbers (velocity of the centre of
    mass (m/s), angular velocity (rad/s), world frame), and a manipulator's name to one joint rate
    per joint (rad/s or m/s; None for a joint left free). A driven joint must have an unknown
    effort (None); a joint with an unknown effort that is not driven is held (rate 0). Every
    other body and joint is free: its velocity is an unknown, and its equilibrium a row.
    """
    driven = {} if driven is None else driven
    if not isinstance(driven, dict):
        raise DeclarationError(
            f"driven must be a dict mapping body or manipulator names to twists (got {type(driven).__name__})"
        )
    owners = {b.name: b for b in system.bodies} | {a.name: a for a in system.manipulators}
    for name in driven:
        if name not in owners:
            raise DeclarationError(
                f"driven names {name!r}, which is no body or manipulator of the system (bodies: "
                f"{[b.name for b in system.bodies]}, manipulators: {[a.name for a in system.manipulators]})"
            )
    g = np.asarray(system.gravity, dtype=float)
    blocks = [_quasistatic_body_block(body, g, driven.get(body.name)) for body in system.bodies]
    blocks += [_quasistatic_arm_block(arm, g, driven.get(arm.name)) for arm in system.manipulators]
    offsets = _offsets(system, blocks)
    nq = sum(len(b.names) for b in blocks)
    contacts = _contact_rows(system, offsets, nq)
    assembly = QuasistaticAssembly(
        system=system,
        coordinates=[name for b in blocks for name in b.names],
        M=sp.csr_matrix((nq, nq)),
        f=_stack([b.f for b in blocks], float),
        nu=np.zeros(nq),
        G=contacts.G,
        gdot_nu=np.zeros(len(contacts.rows)),
        rows=contacts.rows,
        contact_rows=contacts.contact_rows,
        frames=contacts.frames,
        prescribed=_stack([b.prescribed for b in blocks], bool),
        nu_dot_prescribed=_stack([b.nu_dot_prescribed for b in blocks], float),
    )
    _classify(system, assembly)  # nu = 0: every contact's law is stated for a contact at rest
    return assembly


def _quasistatic_body_block(body: Body, g: np.ndarray, twist) -> _Block:
    """A body's coordinates without inertia: f = (m g + force, torque); prescribed when driven."""
    f = np.concatenate([body.wrench[:3] + body.mass * g, body.wrench[3:]])
    given = twist is not None
    rates = np.zeros(6)
    if given:
        rates = validate.real_array(twist, f"driven['{body.name}']", error=DeclarationError)
    if rates.shape != (6,):
        raise DeclarationError(
            f"driven['{body.name}'] must be a twist of 6 numbers (velocity of the centre of mass, m/s; "
            f"angular velocity, rad/s; world frame), got shape {rates.shape}"
        )
    return _Block(
        names=[f"{body.name}.{s}" for s in ("vx", "vy", "vz", "wx", "wy", "wz")],
        M=np.zeros((6, 6)),
        f=f,
        nu=np.zeros(6),
        prescribed=np.full(6, given),
        nu_dot_prescribed=rates,
    )


def _quasistatic_arm_block(arm: Manipulator, g: np.ndarray, rates) -> _Block:
    """A manipulator's joints without inertia: f = gravity + known efforts; a joint with an unknown
    effort has its rate prescribed (``rates[i]``, default 0)."""
    n = len(arm.joints)
    unknown = np.array([e is None for e in arm.efforts], dtype=bool)
    try:
        given = [None] * n if rates is None else list(rates)
    except TypeError:
        given = [rates]
    if len(given) != n:
        raise DeclarationError(
            f"driven['{arm.name}'] must give one joint rate per joint ({n}; None for a free joint), "
            f"got {len(given)}"
        )
    prescribed = np.zeros(n)
    for i, rate in enumerate(given):
        if rate is None:
            continue
        if not unknown[i]:
            raise DeclarationError(
                f"driven['{arm.name}'][{i}]: joint '{arm.joint_name(i)}' has a known effort; declare "
                "its effort unknown (None) to drive it, or give None here to leave it free"
            )
        prescribed[i] = validate.real(rate, f"driven['{arm.name}'][{i}]", error=DeclarationError)
    efforts = np.array([0.0 if e is None else e for e in arm.efforts], dtype=float)
    return _Block(
        names=[f"{arm.name}.{arm.joint_name(i)}" for i in range(n)],
        M=np.zeros((n, n)),
        f=arm.gravity_forces(g) + efforts,
        nu=np.zeros(n),
        prescribed=unknown,
        nu_dot_prescribed=prescribed,
    )
