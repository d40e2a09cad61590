"""Small geometric helpers: input checking of vectors, rotations and contact frames."""

from __future__ import annotations

import sys

import numpy as np

from contactmodel import validate
from contactmodel.errors import DeclarationError

UNIT_TOL = 1e-6


def vector(value, length: int, field: str, default=None) -> np.ndarray:
    """``value`` as a finite float array of the given length, or a DeclarationError naming ``field``."""
    if value is None:
        if default is None:
            raise DeclarationError(f"{field} is required: give {length} numbers")
        value = default
    arr = validate.real_array(value, field, finite=False).reshape(-1)
    if arr.shape != (length,):
        raise DeclarationError(f"{field} must have {length} entries (got shape {np.shape(value)})")
    if not np.all(np.isfinite(arr)):
        raise DeclarationError(f"{field} contains NaN or infinity ({arr.tolist()}): give finite numbers")
    return arr


def rotation_matrix(value, field: str) -> np.ndarray:
    """A 3x3 rotation from a rotation matrix or a unit quaternion (w, x, y, z); None is identity."""
    if value is None:
        return np.eye(3)
    # scipy.spatial costs ~0.2 s to import: a scipy Rotation can only exist once it is imported
    transform = sys.modules.get("scipy.spatial.transform")
    if transform is not None and isinstance(value, transform.Rotation):
        return value.as_matrix()
    arr = validate.real_array(value, field)
    if arr.shape == (4,):
        norm = np.linalg.norm(arr)
        if abs(norm - 1.0) > UNIT_TOL:
            raise DeclarationError(
                f"{field}: quaternion (w, x, y, z) must have unit norm (got {norm:.6g}); normalize it"
            )
        from scipy.spatial.transform import Rotation

        w, x, y, z = arr
        return Rotation.from_quat([x, y, z, w]).as_matrix()
    if arr.shape == (3, 3):
        if not np.allclose(arr.T @ arr, np.eye(3), atol=1e-8) or np.linalg.det(arr) < 0:
            raise DeclarationError(
                f"{field}: a 3x3 orientation must be a proper rotation (R^T R = I, det R = +1)"
            )
        return arr.copy()
    raise DeclarationError(
        f"{field} must be a 3x3 rotation matrix or a quaternion (w, x, y, z) (got shape {arr.shape})"
    )


def skew(v: np.ndarray) -> np.ndarray:
    """The 3x3 matrix [v]x with [v]x w = v x w."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def contact_frame(normal, tangent, field: str) -> np.ndarray:
    """Rows (n, t, o) of the contact frame, o = n x t.

    ``normal`` must be unit length; ``tangent`` (optional) must be unit and orthogonal to it.
    Without a tangent, t is the unit projection of the world axis least aligned with n, so the
    choice is deterministic.
    """
    n = vector(normal, 3, f"{field}.normal")
    norm = np.linalg.norm(n)
    if norm < 1e-12:
        raise DeclarationError(f"{field}.normal is zero: give the unit normal pointing into the first body")
    if abs(norm - 1.0) > UNIT_TOL:
        raise DeclarationError(
            f"{field}.normal must be a unit vector (its norm is {norm:.6g}); divide it by its norm"
        )
    if tangent is None:
        axis = np.eye(3)[int(np.argmin(np.abs(n)))]
        t = axis - (axis @ n) * n
        t /= np.linalg.norm(t)
    else:
        t = vector(tangent, 3, f"{field}.tangent")
        tnorm = np.linalg.norm(t)
        if abs(tnorm - 1.0) > UNIT_TOL:
            raise DeclarationError(
                f"{field}.tangent must be a unit vector (its norm is {tnorm:.6g}); divide it by its norm"
            )
        if abs(t @ n) > UNIT_TOL:
            raise DeclarationError(
                f"{field}.tangent is not orthogonal to the normal (t.n = {t @ n:.3g}); "
                "give a tangent in the contact plane or omit it"
            )
        t = t - (t @ n) * n
        t /= np.linalg.norm(t)
    return np.vstack([n, t, np.cross(n, t)])
