"""Serial manipulators: joints, links, world-frame kinematics and joint-space dynamics.

Everything is in the WORLD frame and SI units (m, rad, kg, kg m^2, N, N m, s).

Joints are declared in one of two forms:

* axis form, ``Revolute(axis, origin)`` / ``Prismatic(axis, origin)``: the joint frame sits at
  ``origin`` in the parent link frame with the parent's orientation; at ``q`` the child link
  frame is that frame rotated by ``q`` (rad, right-hand rule) about ``axis`` or translated by
  ``q`` (m) along ``axis``. ``axis`` and ``origin`` are in the parent link frame (the base frame
  for joint 0); the child link frame is the moved joint frame.
* standard (distal) Denavit-Hartenberg form as in Corke's Robotics Toolbox,
  ``Revolute.dh(d, a, alpha, offset)`` / ``Prismatic.dh(theta, a, alpha, offset)``: the child
  link frame is ``T_parent Rz(theta) Tz(d) Tx(a) Rx(alpha)`` with ``theta = q + offset``
  (revolute) or ``d = q + offset`` (prismatic); the joint moves about / along the parent's z.

Link ``i`` is moved by joint ``i``; the parent of link 0 is the base frame. Dynamics follow the
right-hand-side convention ``M(q) qddot = tau + (contact terms) + bias_forces(g)`` where
``bias_forces(g) = gravity_forces(g) + velocity_product_forces()``. In Trinkle, Pang, Sudarsky
and Lo, "On dynamic multi-rigid-body contact problems with Coulomb friction", 1997, eq. (3),
``tau - (J^T c + g_man + h_man) = M_man qddot``, so ``g_man = -gravity_forces(g)`` and
``h_man = -velocity_product_forces()``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from contactmodel.errors import DeclarationError

_TOL = 1e-9


def _finite_vector(value, length: int, field_name: str, fix: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise DeclarationError(f"{field_name} must be {length} numbers (got {value!r}); {fix}") from None
    if arr.shape != (length,):
        raise DeclarationError(f"{field_name} must have shape ({length},) (got shape {arr.shape}); {fix}")
    if not np.all(np.isfinite(arr)):
        raise DeclarationError(f"{field_name} must be finite (got {arr.tolist()}); {fix}")
    return arr


def _finite_scalar(value, field_name: str, fix: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise DeclarationError(f"{field_name} must be a number (got {value!r}); {fix}") from None
    if not np.isfinite(x):
        raise DeclarationError(f"{field_name} must be finite (got {x}); {fix}")
    return x


def _rotation(value, field_name: str) -> np.ndarray:
    fix = "give a proper rotation matrix (orthonormal, det = +1)"
    try:
        R = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise DeclarationError(f"{field_name} must be a 3x3 matrix (got {value!r}); {fix}") from None
    if R.shape != (3, 3):
        raise DeclarationError(f"{field_name} must have shape (3, 3) (got {R.shape}); {fix}")
    if not np.all(np.isfinite(R)):
        raise DeclarationError(f"{field_name} must be finite; {fix}")
    if not np.allclose(R.T @ R, np.eye(3), atol=1e-8) or np.linalg.det(R) < 0:
        raise DeclarationError(f"{field_name} is not a rotation matrix; {fix}")
    return R


def rot(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) of ``angle`` rad about the unit vector ``axis`` (Rodrigues)."""
    x, y, z = axis
    K = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + np.sin(angle) * K + (1.0 - np.cos(angle)) * (K @ K)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a0, a1, a2 = a.tolist()
    b0, b1, b2 = b.tolist()
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def _homogeneous(R: np.ndarray, p: np.ndarray) -> np.ndarray:
    T = np.eye(4)
    T[:3, :3] = R
    T[:3, 3] = p
    return T


_EX = np.array([1.0, 0.0, 0.0])
_EZ = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class DHParams:
    """Standard (distal) DH parameters of one link: ``Rz(theta) Tz(d) Tx(a) Rx(alpha)``.

    For a revolute joint ``theta`` is the joint variable (the stored value is ignored); for a
    prismatic joint ``d`` is. ``offset`` is added to the joint variable. Lengths m, angles rad.
    """

    theta: float
    d: float
    a: float
    alpha: float
    offset: float = 0.0


@dataclass(eq=False)
class _Joint:
    axis: Sequence[float] = (0.0, 0.0, 1.0)
    origin: Sequence[float] = (0.0, 0.0, 0.0)
    name: str | None = None
    dh_params: DHParams | None = field(default=None, repr=False)

    kind = "joint"

    def __post_init__(self) -> None:
        label = f"{self.kind} joint {self.name!r}" if self.name else f"{self.kind} joint"
        axis = _finite_vector(
            self.axis, 3, f"{label}: axis", "give the joint axis as 3 numbers in the parent frame"
        )
        norm = float(np.linalg.norm(axis))
        if norm < 1e-12:
            raise DeclarationError(
                f"{label}: axis must be nonzero (got {axis.tolist()}); give a direction vector"
            )
        self.axis = axis / norm
        self.origin = _finite_vector(
            self.origin, 3, f"{label}: origin", "give the joint origin in the parent frame (m)"
        )
        if self.dh_params is not None:
            if not (np.allclose(self.axis, _EZ) and np.allclose(self.origin, 0.0)):
                raise DeclarationError(
                    f"{label}: give either axis/origin (axis form) or dh_params (DH form), not"
                    " both; a DH joint moves about / along the parent's z axis"
                )
            p = self.dh_params
            for fname in ("theta", "d", "a", "alpha", "offset"):
                _finite_scalar(getattr(p, fname), f"{label}: DH {fname}", "give a finite number")

    def _fixed(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Fixed parts: (R_pre, p_pre, R_post, p_post) so that the child frame is
        ``T_parent T_pre Motion(axis, q) T_post``."""
        p = self.dh_params
        if p is None:
            return np.eye(3), np.asarray(self.origin), np.eye(3), np.zeros(3)
        R_post = rot(_EX, p.alpha)
        p_post = np.array([p.a, 0.0, 0.0])
        if self.kind == "revolute":
            return rot(_EZ, p.offset), np.array([0.0, 0.0, p.d]), R_post, p_post
        return rot(_EZ, p.theta), np.array([0.0, 0.0, p.offset]), R_post, p_post


@dataclass(eq=False)
class Revolute(_Joint):
    """Revolute joint: ``q`` in rad, positive by the right-hand rule about ``axis``.

    Axis form: ``axis`` (3,) and ``origin`` (3,) in the parent link frame at q = 0.
    DH form: :meth:`Revolute.dh`. The effort is a torque (N m).
    """

    kind = "revolute"

    @classmethod
    def dh(cls, d: float, a: float, alpha: float, offset: float = 0.0, name: str | None = None) -> Revolute:
        """Standard DH revolute link, child = parent Rz(q + offset) Tz(d) Tx(a) Rx(alpha)."""
        return cls(name=name, dh_params=DHParams(0.0, d, a, alpha, offset))


@dataclass(eq=False)
class Prismatic(_Joint):
    """Prismatic joint: ``q`` in m along ``axis``.

    Axis form: ``axis`` (3,) and ``origin`` (3,) in the parent link frame at q = 0.
    DH form: :meth:`Prismatic.dh`. The effort is a force (N).
    """

    kind = "prismatic"

    @classmethod
    def dh(
        cls, theta: float, a: float, alpha: float, offset: float = 0.0, name: str | None = None
    ) -> Prismatic:
        """Standard DH prismatic link, child = parent Rz(theta) Tz(q + offset) Tx(a) Rx(alpha)."""
        return cls(name=name, dh_params=DHParams(theta, 0.0, a, alpha, offset))


Joint = Revolute | Prismatic


@dataclass(eq=False)
class Link:
    """Rigid link: ``mass`` (kg) > 0, ``inertia`` (3, 3) kg m^2 about the centre of mass in the
    link frame (symmetric positive semidefinite), ``com`` (3,) m in the link frame."""

    mass: float
    inertia: Sequence[Sequence[float]] | np.ndarray
    com: Sequence[float] = (0.0, 0.0, 0.0)
    name: str | None = None

    def __post_init__(self) -> None:
        label = f"link {self.name!r}" if self.name else "link"
        try:
            mass = float(self.mass)
        except (TypeError, ValueError):
            raise DeclarationError(
                f"{label}: mass must be a number (got {self.mass!r}); give the link's mass in kg"
            ) from None
        if not np.isfinite(mass) or mass <= 0:
            raise DeclarationError(
                f"{label}: mass must be > 0 and finite (got {mass}); give the link's mass in kg"
            )
        self.mass = mass
        fix = "give the 3x3 inertia tensor about the centre of mass in the link frame (kg m^2)"
        try:
            inertia = np.asarray(self.inertia, dtype=float)
        except (TypeError, ValueError):
            raise DeclarationError(f"{label}: inertia must be a 3x3 matrix; {fix}") from None
        if inertia.shape != (3, 3):
            raise DeclarationError(f"{label}: inertia must have shape (3, 3) (got {inertia.shape}); {fix}")
        if not np.all(np.isfinite(inertia)):
            raise DeclarationError(f"{label}: inertia must be finite; {fix}")
        scale = max(float(np.max(np.abs(inertia))), 1e-300)
        if np.max(np.abs(inertia - inertia.T)) > _TOL * scale:
            raise DeclarationError(f"{label}: inertia must be symmetric; {fix}")
        inertia = 0.5 * (inertia + inertia.T)
        lowest = float(np.linalg.eigvalsh(inertia)[0])
        if lowest < -_TOL * scale:
            raise DeclarationError(
                f"{label}: inertia must be positive semidefinite (smallest eigenvalue {lowest:g}); {fix}"
            )
        self.inertia = inertia
        self.com = _finite_vector(
            self.com, 3, f"{label}: com", "give the centre of mass in the link frame (m)"
        )


@dataclass
class _Pass:
    R: np.ndarray
    p: np.ndarray
    z: np.ndarray
    o: np.ndarray
    revolute: np.ndarray
    w: np.ndarray
    v: np.ndarray
    alpha: np.ndarray
    acc: np.ndarray


class Manipulator:
    """Serial chain: joint ``i`` moves link ``i`` relative to link ``i - 1`` (or the base).

    Parameters:

    - ``name``: label used in messages.
    - ``joints``, ``links``: equal-length lists of :class:`Revolute` / :class:`Prismatic` and
      :class:`Link`.
    - ``q``, ``qdot``: (n,) joint positions (rad or m) and rates (rad/s or m/s).
    - ``base``: world pose of the base frame, a (4, 4) homogeneous transform or a pair
      ``(position (3,), rotation (3, 3))``; identity if None.
    - ``efforts``: (n,) joint efforts tau (N m or N); an entry None means "unknown effort", and
      then ``prescribed_accelerations`` gives that joint's qddot. ``None`` for the whole list
      means all efforts are known and zero.
    - ``prescribed_accelerations``: list aligned with the joints (None where not prescribed) or
      a dict ``{joint index or joint name: qddot}``; exactly the unknown-effort joints.
    """

    def __init__(
        self,
        name: str,
        joints: Sequence[Joint],
        links: Sequence[Link],
        q: Sequence[float],
        qdot: Sequence[float] | None = None,
        base=None,
        efforts: Sequence[float | None] | None = None,
        prescribed_accelerations: Sequence[float | None] | Mapping | None = None,
    ) -> None:
        self.name = str(name)
        label = f"manipulator {self.name!r}"
        joints = list(joints)
        links = list(links)
        if not joints:
            raise DeclarationError(f"{label}: joints must not be empty; give at least one joint")
        for i, j in enumerate(joints):
            if not isinstance(j, Revolute | Prismatic):
                raise DeclarationError(
                    f"{label}: joints[{i}] must be a Revolute or Prismatic (got {type(j).__name__})"
                )
        n = len(joints)
        if len(links) != n:
            raise DeclarationError(
                f"{label}: links must have length {n} (one per joint), got {len(links)};"
                " link i is the body moved by joint i"
            )
        for i, lk in enumerate(links):
            if not isinstance(lk, Link):
                raise DeclarationError(f"{label}: links[{i}] must be a Link (got {type(lk).__name__})")
        self.joints: list[Joint] = joints
        self.links: list[Link] = links
        self._label = label
        self.q = q
        self.qdot = np.zeros(n) if qdot is None else qdot
        self.base = base
        self.efforts, self.prescribed_accelerations = self._check_efforts(efforts, prescribed_accelerations)
        fixed = [j._fixed() for j in joints]
        self._R_pre = np.array([f[0] for f in fixed])
        self._p_pre = np.array([f[1] for f in fixed])
        self._R_post = np.array([f[2] for f in fixed])
        self._p_post = np.array([f[3] for f in fixed])
        self._axis = np.array([j.axis for j in joints])
        self._is_rev = np.array([isinstance(j, Revolute) for j in joints])
        self._mass = np.array([lk.mass for lk in links])
        self._inertia = np.array([lk.inertia for lk in links])
        self._com = np.array([lk.com for lk in links])

    @property
    def n(self) -> int:
        """Number of joints (degrees of freedom)."""
        return len(self.joints)

    @property
    def q(self) -> np.ndarray:
        """(n,) joint positions, rad or m."""
        return self._q

    @q.setter
    def q(self, value) -> None:
        self._q = _finite_vector(value, self.n, f"{self._label}: q", "give one joint position per joint")

    @property
    def qdot(self) -> np.ndarray:
        """(n,) joint rates, rad/s or m/s."""
        return self._qdot

    @qdot.setter
    def qdot(self, value) -> None:
        self._qdot = _finite_vector(value, self.n, f"{self._label}: qdot", "give one joint rate per joint")

    @property
    def base(self) -> np.ndarray:
        """(4, 4) world pose of the base frame."""
        return self._base

    @base.setter
    def base(self, value) -> None:
        field_name = f"{self._label}: base"
        if value is None:
            self._base = np.eye(4)
            return
        if isinstance(value, tuple | list) and len(value) == 2:
            p = _finite_vector(value[0], 3, f"{field_name} position", "give 3 numbers (m)")
            R = _rotation(value[1], f"{field_name} rotation")
            self._base = _homogeneous(R, p)
            return
        fix = "give a 4x4 homogeneous transform or a (position, rotation) pair"
        try:
            T = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise DeclarationError(f"{field_name} is not a transform; {fix}") from None
        if T.shape != (4, 4):
            raise DeclarationError(f"{field_name} must have shape (4, 4) (got {T.shape}); {fix}")
        if not np.all(np.isfinite(T)) or not np.allclose(T[3], [0, 0, 0, 1]):
            raise DeclarationError(f"{field_name} must be finite with last row 0 0 0 1; {fix}")
        self._base = _homogeneous(_rotation(T[:3, :3], f"{field_name} rotation"), T[:3, 3])

    def joint_name(self, i: int) -> str:
        """Name of joint i (its declared name, else ``q1``, ``q2``, ...)."""
        return self.joints[i].name or f"q{i + 1}"

    def link(self, index):
        """Link ``index`` (an int or a link name) as a contact body for ``System.add_contact``."""
        return LinkRef(self, self._link_index(index))

    def _joint_label(self, i: int) -> str:
        nm = self.joints[i].name
        return f"{self._label} joint {i}" + (f" ({nm!r})" if nm else "")

    def _check_efforts(self, efforts, prescribed) -> tuple[list, list]:
        n = self.n
        if efforts is None:
            eff: list[float | None] = [0.0] * n
        else:
            eff = list(efforts)
            if len(eff) != n:
                raise DeclarationError(
                    f"{self._label}: efforts must have length {n} (one per joint), got {len(eff)};"
                    " use None for a joint whose effort is unknown"
                )
            eff = [
                None if e is None else _finite_scalar(e, f"{self._joint_label(i)}: effort", "give N m or N")
                for i, e in enumerate(eff)
            ]
        acc: list[float | None] = [None] * n
        if prescribed is None:
            pass
        elif isinstance(prescribed, Mapping):
            names = {j.name: i for i, j in enumerate(self.joints) if j.name is not None}
            for key, value in prescribed.items():
                if isinstance(key, str) and key in names:
                    i = names[key]
                elif isinstance(key, int | np.integer) and -n <= int(key) < n:
                    i = int(key) % n
                else:
                    raise DeclarationError(
                        f"{self._label}: prescribed_accelerations key {key!r} is not a joint index"
                        f" (0..{n - 1}) or joint name"
                    )
                acc[i] = value
        else:
            acc = list(prescribed)
            if len(acc) != n:
                raise DeclarationError(
                    f"{self._label}: prescribed_accelerations must have length {n} (one per"
                    f" joint, None where not prescribed), got {len(acc)}"
                )
        for i in range(n):
            if acc[i] is not None:
                acc[i] = _finite_scalar(
                    acc[i],
                    f"{self._joint_label(i)}: prescribed acceleration",
                    "give rad/s^2 or m/s^2",
                )
            if eff[i] is None and acc[i] is None:
                raise DeclarationError(
                    f"{self._joint_label(i)}: effort is unknown (None), so prescribed_accelerations"
                    " must give its qddot"
                )
            if eff[i] is not None and acc[i] is not None:
                raise DeclarationError(
                    f"{self._joint_label(i)}: both an effort and a prescribed acceleration are"
                    " given; set the effort to None to prescribe qddot, or drop the acceleration"
                )
        return eff, acc

    @property
    def unknown_efforts(self) -> np.ndarray:
        """(n,) bool mask of joints whose effort is unknown (qddot prescribed instead)."""
        return np.array([e is None for e in self.efforts])

    def with_state(self, q=None, qdot=None) -> Manipulator:
        """Shallow copy with new ``q`` and/or ``qdot`` (declarations are shared)."""
        other = copy.copy(self)
        if q is not None:
            other.q = q
        if qdot is not None:
            other.qdot = qdot
        return other

    def _link_index(self, link) -> int:
        n = self.n
        if isinstance(link, str):
            for i, lk in enumerate(self.links):
                if lk.name == link:
                    return i
            raise DeclarationError(f"{self._label}: no link named {link!r}")
        if isinstance(link, int | np.integer) and -n <= int(link) < n:
            return int(link) % n
        raise DeclarationError(
            f"{self._label}: link_index must be an int in 0..{n - 1} or a link name (got {link!r})"
        )

    def _forward(self, rates: bool = True) -> _Pass:
        """Recursive pass base -> tip: link poses, joint axes z and axis points o, and (if
        ``rates``) link angular velocity, origin velocity and their qddot = 0 accelerations."""
        n = self.n
        R = np.empty((n, 3, 3))
        p = np.empty((n, 3))
        z = np.empty((n, 3))
        o = np.empty((n, 3))
        w = np.zeros((n, 3))
        v = np.zeros((n, 3))
        al = np.zeros((n, 3))
        acc = np.zeros((n, 3))
        Rp, pp = self._base[:3, :3], self._base[:3, 3]
        wp = vp = alp = ap = np.zeros(3)
        for i in range(n):
            qi, qdi, rev = self._q[i], self._qdot[i], self._is_rev[i]
            Rj = Rp @ self._R_pre[i]
            oi = pp + Rp @ self._p_pre[i]
            zi = Rj @ self._axis[i]
            if rev:
                Rm, pm = Rj @ rot(self._axis[i], qi), oi
            else:
                Rm, pm = Rj, oi + zi * qi
            Ri = Rm @ self._R_post[i]
            pi = pm + Rm @ self._p_post[i]
            R[i], p[i], z[i], o[i] = Ri, pi, zi, oi
            if rates:
                r, d = oi - pp, pi - oi
                vo = vp + _cross(wp, r)
                ao = ap + _cross(alp, r) + _cross(wp, _cross(wp, r))
                if rev:
                    wi = wp + zi * qdi
                    ali = alp + _cross(wp, zi) * qdi
                    vi = vo + _cross(wi, d)
                    ai = ao + _cross(ali, d) + _cross(wi, _cross(wi, d))
                else:
                    wi, ali = wp, alp
                    vi = vo + _cross(wp, d) + zi * qdi
                    ai = ao + _cross(alp, d) + _cross(wp, _cross(wp, d) + 2.0 * zi * qdi)
                w[i], v[i], al[i], acc[i] = wi, vi, ali, ai
                wp, vp, alp, ap = wi, vi, ali, ai
            Rp, pp = Ri, pi
        return _Pass(R, p, z, o, self._is_rev.copy(), w, v, al, acc)

    @staticmethod
    def _jacobians(fp: _Pass, links: np.ndarray, points: np.ndarray) -> tuple:
        """Stacked (m, 3, n) linear and angular Jacobians of ``points`` (m, 3) on ``links``."""
        n = fp.z.shape[0]
        cols = np.arange(n)
        mask = (cols[None, :] <= links[:, None]).astype(float)
        lin = np.where(
            fp.revolute[None, :, None],
            np.cross(fp.z[None, :, :], points[:, None, :] - fp.o[None, :, :]),
            fp.z[None, :, :],
        )
        ang = fp.z[None, :, :] * fp.revolute[None, :, None]
        Jv = (lin * mask[:, :, None]).transpose(0, 2, 1)
        Jw = (ang * mask[:, :, None]).transpose(0, 2, 1)
        return Jv, Jw

    def link_frames(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """World pose ``(R (3, 3), p (3,) m)`` of each link frame at the current ``q``."""
        fp = self._forward(rates=False)
        return [(fp.R[i].copy(), fp.p[i].copy()) for i in range(self.n)]

    def joint_axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(o, z, revolute)`` at the current ``q``: each joint's axis point (n, 3) m and unit
        axis (n, 3), world frame, and whether it is revolute (n,) (else prismatic)."""
        fp = self._forward(rates=False)
        return fp.o.copy(), fp.z.copy(), fp.revolute.copy()

    def potential_energy(self, gravity) -> float:
        """The links' gravitational potential energy (J) for the gravity vector ``gravity`` (3,)
        m/s^2: minus the sum over links of mass times gravity dotted with the centre of mass
        (zero at the world origin)."""
        g = np.asarray(gravity, dtype=float)
        return -float(np.sum(self._mass * (self.com_positions() @ g)))

    def com_positions(self) -> np.ndarray:
        """(n, 3) world positions of the link centres of mass, m."""
        fp = self._forward(rates=False)
        return fp.p + np.einsum("nij,nj->ni", fp.R, self._com)

    def link_velocities(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(v (3,) m/s of the link-frame origin, omega (3,) rad/s)`` of each link, world frame."""
        fp = self._forward()
        return [(fp.v[i].copy(), fp.w[i].copy()) for i in range(self.n)]

    def _point(self, point) -> np.ndarray:
        return _finite_vector(
            point, 3, f"{self._label}: point_world", "give the point's world coordinates (m)"
        )

    def point_jacobian(self, link_index, point_world) -> np.ndarray:
        """(3, n) Jacobian: velocity (m/s) of the material point of link ``link_index`` now at
        ``point_world`` (m, world) is ``J @ qdot``."""
        k = self._link_index(link_index)
        fp = self._forward(rates=False)
        Jv, _ = self._jacobians(fp, np.array([k]), self._point(point_world)[None])
        return Jv[0]

    def angular_jacobian(self, link_index) -> np.ndarray:
        """(3, n) Jacobian: angular velocity (rad/s, world) of the link is ``J @ qdot``."""
        k = self._link_index(link_index)
        fp = self._forward(rates=False)
        _, Jw = self._jacobians(fp, np.array([k]), fp.p[k][None])
        return Jw[0]

    def point_velocity(self, link_index, point_world) -> np.ndarray:
        """(3,) velocity (m/s, world) of the material point of ``link_index`` at ``point_world``."""
        k = self._link_index(link_index)
        fp = self._forward()
        return fp.v[k] + np.cross(fp.w[k], self._point(point_world) - fp.p[k])

    def point_bias_acceleration(self, link_index, point_world) -> np.ndarray:
        """(3,) ``Jdot @ qdot`` (m/s^2, world): acceleration of the material point of link
        ``link_index`` at ``point_world`` when ``qddot = 0``."""
        k = self._link_index(link_index)
        fp = self._forward()
        r = self._point(point_world) - fp.p[k]
        return fp.acc[k] + np.cross(fp.alpha[k], r) + np.cross(fp.w[k], np.cross(fp.w[k], r))

    def angular_bias_acceleration(self, link_index) -> np.ndarray:
        """(3,) ``Jdot_w @ qdot`` (rad/s^2, world): link angular acceleration at qddot = 0."""
        return self._forward().alpha[self._link_index(link_index)].copy()

    def _com_terms(self, rates: bool = False) -> tuple:
        fp = self._forward(rates)
        c = fp.p + np.einsum("nij,nj->ni", fp.R, self._com)
        Jv, Jw = self._jacobians(fp, np.arange(self.n), c)
        Iw = np.einsum("nij,njk,nlk->nil", fp.R, self._inertia, fp.R)
        return fp, c, Jv, Jw, Iw

    def mass_matrix(self) -> np.ndarray:
        """(n, n) joint-space mass matrix, ``sum_l m_l Jv_l^T Jv_l + Jw_l^T I_l,world Jw_l``
        (Jv at the centre of mass); symmetric, kg / kg m / kg m^2 entries."""
        _, _, Jv, Jw, Iw = self._com_terms()
        M = np.einsum("l,lai,laj->ij", self._mass, Jv, Jv) + np.einsum("lai,lab,lbj->ij", Jw, Iw, Jw)
        return 0.5 * (M + M.T)

    def gravity_forces(self, gravity) -> np.ndarray:
        """(n,) generalized gravity force ``sum_l Jv_l^T m_l g`` (N m or N); ``gravity`` (3,) in
        m/s^2, world, e.g. (0, 0, -9.81). Equals ``-g_man`` of Trinkle et al. (1997) eq. (3)."""
        g = _finite_vector(gravity, 3, f"{self._label}: gravity", "give 3 numbers in m/s^2")
        _, _, Jv, _, _ = self._com_terms()
        return np.einsum("l,lai,a->i", self._mass, Jv, g)

    def velocity_product_forces(self) -> np.ndarray:
        """(n,) ``-C(q, qdot) qdot`` (N m or N): minus the projection onto the joints of each
        link's Newton-Euler bias ``(m a_c,bias, I alpha_bias + omega x I omega)``. Equals
        ``-h_man`` of Trinkle et al. (1997) eq. (3)."""
        fp, c, Jv, Jw, Iw = self._com_terms(rates=True)
        r = c - fp.p
        a_c = fp.acc + np.cross(fp.alpha, r) + np.cross(fp.w, np.cross(fp.w, r))
        Iw_w = np.einsum("nij,nj->ni", Iw, fp.w)
        force = self._mass[:, None] * a_c
        torque = np.einsum("nij,nj->ni", Iw, fp.alpha) + np.cross(fp.w, Iw_w)
        return -(np.einsum("lai,la->i", Jv, force) + np.einsum("lai,la->i", Jw, torque))

    def bias_forces(self, gravity) -> np.ndarray:
        """(n,) ``f_man = gravity_forces(g) + velocity_product_forces()`` so that
        ``M qddot = tau + (contact terms) + f_man``; ``gravity`` (3,) m/s^2, world."""
        return self.gravity_forces(gravity) + self.velocity_product_forces()


def scara(
    name: str,
    l1: float,
    l2: float,
    l3: float = 0.0,
    q: Sequence[float] = (0.0, 0.0, 0.0, 0.0),
    qdot: Sequence[float] | None = None,
    base=None,
    d1: float = 0.0,
    masses: Sequence[float] = (1.0, 1.0, 0.1, 0.1),
    efforts: Sequence[float | None] | None = None,
    prescribed_accelerations: Sequence[float | None] | Mapping | None = None,
) -> Manipulator:
    """SCARA arm in standard DH form (Robotics Toolbox style): R(d1, l1, 0), R(0, l2, 0),
    P(theta 0, a 0, alpha 0), R(d = l3, 0, 0). Joints 1, 2, 4 turn about the vertical base z;
    joint 3 (m) slides along +z. Links 1, 2 are uniform thin rods (centre of mass at their
    midpoint, ``masses`` in kg); links 3, 4 are small spheres of radius 0.02 m at their origins.
    The tool point is the origin of link 4's frame."""
    joints = [
        Revolute.dh(d=d1, a=l1, alpha=0.0, name="shoulder"),
        Revolute.dh(d=0.0, a=l2, alpha=0.0, name="elbow"),
        Prismatic.dh(theta=0.0, a=0.0, alpha=0.0, name="vertical"),
        Revolute.dh(d=l3, a=0.0, alpha=0.0, name="wrist"),
    ]
    m = [float(x) for x in masses]
    if len(m) != 4:
        raise DeclarationError(f"scara {name!r}: masses must have length 4 (got {len(m)})")

    def rod_x(mass: float, length: float) -> np.ndarray:
        side = mass * length**2 / 12.0
        return np.diag([1e-9 * mass * max(length, 1e-3) ** 2, side, side])

    def ball(mass: float) -> np.ndarray:
        return 0.4 * mass * 0.02**2 * np.eye(3)

    links = [
        Link(m[0], rod_x(m[0], l1), com=(-l1 / 2, 0.0, 0.0), name="upper"),
        Link(m[1], rod_x(m[1], l2), com=(-l2 / 2, 0.0, 0.0), name="forearm"),
        Link(m[2], ball(m[2]), name="quill"),
        Link(m[3], ball(m[3]), name="tool"),
    ]
    return Manipulator(
        name,
        joints,
        links,
        q,
        qdot,
        base=base,
        efforts=efforts,
        prescribed_accelerations=prescribed_accelerations,
    )


@dataclass(eq=False, frozen=True)
class LinkRef:
    """Link ``index`` of a manipulator, usable as a contact body."""

    manipulator: Manipulator
    index: int

    @property
    def name(self) -> str:
        link = self.manipulator.links[self.index]
        return f"{self.manipulator.name}.{link.name or self.index}"

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, LinkRef) and other.manipulator is self.manipulator and other.index == self.index
        )

    def __hash__(self) -> int:
        return hash((id(self.manipulator), self.index))
