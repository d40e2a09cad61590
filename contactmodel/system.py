"""Declarations: the system, its rigid bodies, manipulators and contacts.

Conventions (SI units throughout):
- Body state is in the world frame: ``position`` of the centre of mass, ``orientation`` (body
  to world rotation), ``velocity`` of the centre of mass, ``angular_velocity``; ``wrench`` =
  (force, torque about the centre of mass), world frame, in addition to gravity.
- ``inertia`` is about the centre of mass in the body frame.
- A contact joins ``body_a`` and ``body_b`` at ``point`` (world). Its ``normal`` points into
  ``body_a`` (from b to a); the contact force (c_n, c_t, c_o[, c_r]) acts on ``body_a`` and its
  opposite on ``body_b``. Relative velocity/acceleration is that of a's material point minus
  b's, in the frame (n, t, o), o = n x t, and (r) the relative angular velocity about n.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contactmodel import validate
from contactmodel.errors import DeclarationError
from contactmodel.friction.base import FrictionLaw
from contactmodel.geometry import contact_frame, rotation_matrix, vector
from contactmodel.manipulator import LinkRef, Manipulator
from contactmodel.shapes import Box, Cylinder, Sphere

__all__ = ["Body", "Contact", "ContactBody", "Ground", "LinkRef", "System", "check_inertia", "check_mass"]


def check_inertia(inertia, field_name: str) -> np.ndarray:
    """A symmetric positive definite 3x3 inertia tensor, or a DeclarationError naming the field."""
    arr = validate.real_array(inertia, field_name)
    if arr.shape == (3,):
        arr = np.diag(arr)
    if arr.shape != (3, 3):
        raise DeclarationError(
            f"{field_name} must be a 3x3 matrix or 3 principal moments (got shape {arr.shape})"
        )
    scale = validate.scale(max(np.abs(arr).max(), 1e-300), f"{field_name} (largest entry)")
    if np.abs(arr - arr.T).max() > 1e-9 * scale:
        raise DeclarationError(
            f"{field_name} is not symmetric: an inertia tensor satisfies I = I^T; "
            "check the off-diagonal products of inertia"
        )
    eig = np.linalg.eigvalsh(0.5 * (arr + arr.T))
    if eig.min() <= 1e-12 * scale:
        raise DeclarationError(
            f"{field_name} is not positive definite (eigenvalues {np.round(eig, 12).tolist()}): "
            "principal moments must be positive; use contactmodel.inertia.box/sphere/cylinder"
        )
    if eig[0] + eig[1] < eig[2] * (1 - 1e-9):
        raise DeclarationError(
            f"{field_name} violates the triangle inequality of principal moments "
            f"({np.round(eig, 12).tolist()}): no rigid body has this inertia; "
            "use contactmodel.inertia.box/sphere/cylinder or check the moments"
        )
    return 0.5 * (arr + arr.T)


def check_mass(mass, field_name: str) -> float:
    value = validate.real(mass, f"{field_name} (kg)")
    if value <= 0:
        raise DeclarationError(f"{field_name} must be positive (got {value}); give the mass in kg")
    return validate.scale(value, field_name)


@dataclass(eq=False)
class Ground:
    """The fixed world: zero velocity and acceleration, infinite mass."""

    name: str = "ground"


@dataclass(eq=False)
class Body:
    """A free rigid body (6 degrees of freedom). Create it with :meth:`System.add_body`."""

    name: str
    mass: float
    inertia: np.ndarray
    position: np.ndarray
    rotation: np.ndarray
    velocity: np.ndarray
    angular_velocity: np.ndarray
    wrench: np.ndarray
    shape: object | None = None

    @property
    def inertia_world(self) -> np.ndarray:
        """Inertia about the centre of mass in world axes, R I R^T (kg m^2)."""
        return self.rotation @ self.inertia @ self.rotation.T


ContactBody = Body | Ground | LinkRef


@dataclass(eq=False)
class Contact:
    """A point contact (or soft-finger / distributed contact when ``torsion``).

    ``frame`` rows are (n, t, o) in world coordinates. ``curvature`` is an optional extra
    relative-acceleration term (n, t, o[, r]) that the rigid material-point terms do not
    capture (the rolling-contact curvature terms of curved surfaces), added to G_dot nu.
    """

    name: str
    body_a: ContactBody
    body_b: ContactBody
    point: np.ndarray
    frame: np.ndarray
    friction: FrictionLaw | None = None
    torsion: bool = False
    curvature: np.ndarray | None = None

    @property
    def normal(self) -> np.ndarray:
        return self.frame[0]

    @property
    def tangent(self) -> np.ndarray:
        return self.frame[1]

    @property
    def dimension(self) -> int:
        """Rows of this contact in G: 3, or 4 with the torsional row r."""
        return 4 if self.torsion else 3


@dataclass
class System:
    """A set of rigid bodies, manipulators and contacts at one instant.

    ``gravity`` (m/s^2, world frame) acts on every body and link. A contact is rolling when its
    tangential (and, for torsion contacts, twisting) relative speed is at most ``rolling_tol``;
    every contact's normal relative speed must be at most ``normal_velocity_tol``.
    """

    gravity: tuple[float, float, float] | np.ndarray = (0.0, 0.0, -9.81)
    rolling_tol: float = 1e-9
    normal_velocity_tol: float = 1e-8
    bodies: list[Body] = field(default_factory=list)
    manipulators: list[Manipulator] = field(default_factory=list)
    contacts: list[Contact] = field(default_factory=list)
    ground: Ground = field(default_factory=Ground)

    def __post_init__(self) -> None:
        self.gravity = vector(self.gravity, 3, "System.gravity")
        self.rolling_tol = validate.real(
            self.rolling_tol, "System.rolling_tol (m/s)", low=0.0, allow_inf=True
        )
        self.normal_velocity_tol = validate.real(
            self.normal_velocity_tol, "System.normal_velocity_tol (m/s)", low=0.0, allow_inf=True
        )

    # -- declarations -------------------------------------------------------------------
    def add_body(
        self,
        name: str,
        mass: float,
        inertia,
        position=(0.0, 0.0, 0.0),
        orientation=None,
        velocity=(0.0, 0.0, 0.0),
        angular_velocity=(0.0, 0.0, 0.0),
        wrench=(0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        shape=None,
    ) -> Body:
        """Declare a free rigid body; see the module docstring for frames and units."""
        self._check_new_name(name)
        field_ = f"body '{name}'"
        if shape is not None and not isinstance(shape, (Box, Sphere, Cylinder)):
            raise DeclarationError(
                f"{field_}.shape must be a shape such as cm.shapes.Box((lx, ly, lz)), "
                f"cm.shapes.Sphere(r) or cm.shapes.Cylinder(r, h), or None (got {shape!r})"
            )
        body = Body(
            name=name,
            mass=check_mass(mass, f"{field_}.mass"),
            inertia=check_inertia(inertia, f"{field_}.inertia"),
            position=vector(position, 3, f"{field_}.position"),
            rotation=rotation_matrix(orientation, f"{field_}.orientation"),
            velocity=vector(velocity, 3, f"{field_}.velocity"),
            angular_velocity=vector(angular_velocity, 3, f"{field_}.angular_velocity"),
            wrench=vector(wrench, 6, f"{field_}.wrench"),
            shape=shape,
        )
        self.bodies.append(body)
        return body

    def add_manipulator(self, name: str, joints, links, q, qdot=None, efforts=None, **kwargs):
        """Declare a serial chain of 1-DOF joints; returns a :class:`Manipulator`.

        ``efforts[i] = None`` declares joint i's effort unknown; its acceleration must then be
        given in ``prescribed_accelerations[i]`` (Trinkle, Pang, Sudarsky and Lo 1997, §2.5).
        """
        self._check_new_name(name)
        arm = Manipulator(name=name, joints=joints, links=links, q=q, qdot=qdot, efforts=efforts, **kwargs)
        self.manipulators.append(arm)
        return arm

    def add_contact(
        self,
        body_a,
        body_b,
        point,
        normal,
        tangent=None,
        friction: FrictionLaw | None = None,
        name: str | None = None,
        torsion: bool = False,
        curvature=None,
    ) -> Contact:
        """Declare a contact; ``normal`` points into ``body_a``; see the module docstring."""
        if name is None:
            name = f"c{len(self.contacts)}"
        if not isinstance(name, str) or not name:
            raise DeclarationError(f"contact name must be a non-empty string (got {name!r})")
        if any(c.name == name for c in self.contacts):
            raise DeclarationError(f"duplicate contact name '{name}': give each contact its own name")
        field_ = f"contact '{name}'"
        a = self._resolve_body(body_a, f"{field_}.body_a")
        b = self._resolve_body(body_b, f"{field_}.body_b")
        if a == b or a is b:
            raise DeclarationError(
                f"{field_} joins '{a.name}' to itself: a contact needs two different bodies"
            )
        if isinstance(a, Ground):
            raise DeclarationError(
                f"{field_}: body_a is the ground; put the moving body first and the ground second "
                "(the normal points into body_a)"
            )
        torsion = validate.boolean(torsion, f"{field_}.torsion")
        dim = 4 if torsion else 3
        contact = Contact(
            name=name,
            body_a=a,
            body_b=b,
            point=vector(point, 3, f"{field_}.point"),
            frame=contact_frame(normal, tangent, field_),
            friction=friction,
            torsion=torsion,
            curvature=None if curvature is None else vector(curvature, dim, f"{field_}.curvature"),
        )
        if friction is not None:
            if not isinstance(friction, FrictionLaw):
                raise DeclarationError(
                    f"{field_}.friction must be a friction law such as cm.CoulombCone(0.5) or "
                    f"cm.Pyramid(0.5) (got {friction!r})"
                )
            friction.check_contact(contact)
        self.contacts.append(contact)
        return contact

    # -- lookups ------------------------------------------------------------------------
    def body(self, name: str) -> ContactBody:
        """The body, link (``"arm.link"``) or ground with this name."""
        return self._resolve_body(name, "name")

    def contact(self, name: str) -> Contact:
        for c in self.contacts:
            if c.name == name:
                return c
        raise DeclarationError(f"no contact named '{name}' (contacts: {[c.name for c in self.contacts]})")

    def _check_new_name(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise DeclarationError(f"a body or manipulator name must be a non-empty string (got {name!r})")
        taken = {b.name for b in self.bodies} | {m.name for m in self.manipulators} | {self.ground.name}
        if name in taken:
            raise DeclarationError(
                f"duplicate name '{name}': bodies, manipulators and the ground need distinct names"
            )

    def _resolve_body(self, body, field_name: str) -> ContactBody:
        if isinstance(body, str):
            if body == self.ground.name:
                return self.ground
            for b in self.bodies:
                if b.name == body:
                    return b
            for arm in self.manipulators:
                for i in range(len(arm.links)):
                    ref = LinkRef(arm, i)
                    if ref.name == body:
                        return ref
            declared = [b.name for b in self.bodies] + [self.ground.name]
            raise DeclarationError(
                f"{field_name}: no body named '{body}' is declared in this system (declared: "
                f"{declared}); create it with system.add_body first"
            )
        if isinstance(body, tuple) and len(body) == 2:
            arm, index = body
            if isinstance(arm, str):
                found = [m for m in self.manipulators if m.name == arm]
                if not found:
                    raise DeclarationError(
                        f"{field_name}: no manipulator named '{arm}' is declared in this system "
                        f"(declared: {[m.name for m in self.manipulators]})"
                    )
                arm = found[0]
            if not isinstance(arm, Manipulator):
                raise DeclarationError(
                    f"{field_name}: a link is (manipulator or its name, link index), got {body!r}"
                )
            body = LinkRef(arm, validate.integer(index, f"{field_name} link index"))
        if isinstance(body, Ground):
            if body is not self.ground:
                raise DeclarationError(
                    f"{field_name}: that ground belongs to another system; use system.ground"
                )
            return body
        if isinstance(body, Body):
            if not any(b is body for b in self.bodies):
                raise DeclarationError(
                    f"{field_name}: body '{body.name}' is not declared in this system; "
                    "create it with system.add_body"
                )
            return body
        if isinstance(body, LinkRef):
            if not any(m is body.manipulator for m in self.manipulators):
                raise DeclarationError(
                    f"{field_name}: manipulator '{body.manipulator.name}' is not declared in this system"
                )
            if not 0 <= body.index < len(body.manipulator.links):
                raise DeclarationError(
                    f"{field_name}: manipulator '{body.manipulator.name}' has no link {body.index}"
                )
            return body
        raise DeclarationError(
            f"{field_name} must be a Body, system.ground, a manipulator link or a body name (got {body!r})"
        )
