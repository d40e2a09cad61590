"""Typed checks of values at the public boundary.

Every checker takes the value, the ``field`` it came from (named in the message) and the
:class:`~contactmodel.errors.ContactModelError` subclass to raise, and returns the value in
canonical form (a float array, a float, an int, a bool). Messages name the field, what was
given, and the fix.

:func:`check_fields` checks a dataclass's fields against their annotations (``float``, ``int``,
``bool``, ``str``, ``dict``, ``np.ndarray`` and ``X | None``); solver options use it on every
assignment (see :class:`contactmodel.solvers.base.Options`).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import numbers
import sys
import types
import typing
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from contactmodel.errors import ContactModelError, DeclarationError

#: largest magnitude accepted for masses and inertias: their squares and products stay finite
SCALE_MAX = 1e150
#: smallest positive mass or moment accepted: its reciprocal squared stays finite
SCALE_MIN = 1e-150

#: largest friction coefficient (or ellipse weight) accepted: far past any physical value, small
#: enough that mu^2 times a force squared stays finite
COEFFICIENT_MAX = 1e6

Error = type[ContactModelError]


def _given(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


def real_array(
    value,
    field: str,
    *,
    shape: tuple[int | None, ...] | None = None,
    ndim: int | None = None,
    finite: bool = True,
    error: Error = DeclarationError,
    copy: bool = True,
) -> np.ndarray:
    """``value`` as a float array; real numbers only (no strings, bools, complex or ragged lists).

    ``shape``: required shape, ``None`` entries free; ``ndim``: required number of dimensions;
    ``finite``: reject NaN and infinity; ``copy``: False returns a float array given as it is
    (for a caller that only reads it: a dense 1200 x 1200 A is 11.5 MB), True always a copy.
    """
    if isinstance(value, (str, bytes)) or value is None:
        raise error(f"{field} must be an array of real numbers, got {_given(value)}")
    if sp.issparse(value):
        value = value.toarray()
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise error(
            f"{field} is ragged or not numeric ({_given(value)}): give a rectangular array of numbers"
        ) from None
    if arr.dtype.kind == "c":
        raise error(f"{field} is complex: give real numbers (drop the imaginary part yourself if it is zero)")
    if arr.dtype.kind == "O":
        try:
            arr = arr.astype(float)
        except (ValueError, TypeError):
            raise error(f"{field} must hold real numbers only, got {_given(value)}") from None
    elif arr.dtype.kind not in "iuf":
        raise error(f"{field} must hold real numbers, got {_given(value)} of dtype {arr.dtype}")
    arr = arr.astype(float, copy=copy)
    if ndim is not None and arr.ndim != ndim:
        raise error(f"{field} must have {ndim} dimension(s), got shape {arr.shape}")
    if shape is not None and (
        arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape))
    ):
        want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
        raise error(f"{field} must have shape {want}, got shape {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        raise error(f"{field} contains NaN or infinity: give finite numbers")
    return arr


def real(
    value,
    field: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
    error: Error = DeclarationError,
) -> float:
    """``value`` as a real float (not a bool, string or complex) in the range given.

    ``low``/``high`` bound it (``*_open`` excludes the bound); NaN is always rejected, infinity
    unless ``allow_inf``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise error(f"{field} must be a real number, got {_given(value)}")
    x = float(value)
    if np.isnan(x) or (np.isinf(x) and not allow_inf):
        raise error(f"{field} is {x}: give a finite number")
    lo_bad = low is not None and (x <= low if low_open else x < low)
    hi_bad = high is not None and (x >= high if high_open else x > high)
    if lo_bad or hi_bad:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise error(f"{field} must lie in {left}{lo}, {hi}{right}, got {x!r}")
    return x


def integer(value, field: str, *, low: int | None = None, error: Error = DeclarationError) -> int:
    """``value`` as an int (a Python or numpy integer, not a bool or a float), at least ``low``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise error(f"{field} must be an integer, got {_given(value)}")
    if low is not None and value < low:
        raise error(f"{field} must be >= {low}, got {value}")
    return int(value)


def boolean(value, field: str, *, error: Error = DeclarationError) -> bool:
    """``value`` if it is really a bool (``True``/``False`` or a numpy bool), not a string or int."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{field} must be True or False, got {_given(value)}")
    return bool(value)


def choice(value, field: str, choices, *, error: Error = DeclarationError):
    """``value`` if it is one of ``choices`` (names compared exactly)."""
    if not isinstance(value, typing.Hashable) or value not in choices:
        raise error(f"{field} must be one of {sorted(choices)}, got {_given(value)}")
    return value


def names(value, field: str, length: int, *, error: Error = DeclarationError) -> list[str]:
    """``value`` as a list of ``length`` distinct non-empty strings."""
    if isinstance(value, (str, bytes)):
        raise error(f"{field} must be a list of {length} names, got the single string {value!r}")
    try:
        out = list(value)
    except TypeError:
        raise error(f"{field} must be a list of {length} names, got {_given(value)}") from None
    if len(out) != length:
        raise error(f"{field} has {len(out)} names for {length} entries: give one name per entry")
    bad = [v for v in out if not isinstance(v, str) or not v]
    if bad:
        raise error(f"{field} must hold non-empty strings, got {_given(bad[0])}")
    if len(set(out)) != len(out):
        raise error(f"{field} has duplicate names: give each entry its own name")
    return out


def index_set(value, field: str, *, error: Error = DeclarationError) -> np.ndarray:
    """``value`` as a 1-D array of integers (indices) or bools (a mask)."""
    if isinstance(value, (str, bytes)):
        raise error(f"{field} must be a boolean mask or a list of indices, got {_given(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError):
        raise error(f"{field} is ragged: give a boolean mask or a list of indices") from None
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "biu"):
        raise error(f"{field} must be a boolean mask or a list of indices, got {_given(value)}")
    return arr if arr.size else arr.astype(int)


def scale(value: float, field: str, *, error: Error = DeclarationError) -> float:
    """``value`` if its magnitude lies in [SCALE_MIN, SCALE_MAX] (masses, principal moments):
    outside it, squares and reciprocals in the solvers overflow."""
    if not SCALE_MIN <= abs(value) <= SCALE_MAX:
        raise error(
            f"{field} = {value:g} is outside the supported range [{SCALE_MIN:g}, {SCALE_MAX:g}]: "
            "choose units (e.g. g or t instead of kg, mm instead of m) that bring it into range"
        )
    return value


# -- dataclass fields checked against their annotations ------------------------------------------


@functools.cache
def _hints(cls: type) -> dict[str, object]:
    module = sys.modules.get(cls.__module__)
    hints = typing.get_type_hints(cls, globalns=vars(module) if module else None)
    return {f.name: hints.get(f.name, typing.Any) for f in dataclasses.fields(cls)}


def _members(tp) -> tuple:
    if isinstance(tp, types.UnionType) or typing.get_origin(tp) is typing.Union:
        return typing.get_args(tp)
    return (tp,)


def check_field(obj, name: str, value, error: Error):
    """``value`` for field ``name`` of dataclass instance ``obj``, checked against its annotation:
    ``float`` (a real number, not NaN), ``int``, ``bool``, ``str``, ``dict``, ``np.ndarray`` (a
    finite real vector), each optionally ``| None``; other annotations are not checked."""
    optional, check = _field_checker(type(obj), name)
    label = f"{type(obj).__name__}.{name}"
    if value is None:
        if optional:
            return None
        raise error(f"{label} must not be None; leave it out for its default")
    return check(value, label, error)


@functools.cache
def _field_checker(cls: type, name: str) -> tuple[bool, Callable]:
    """(None allowed, check(value, label, error)) for one field: the annotation is read once."""
    members = _members(_hints(cls).get(name, typing.Any))
    kinds = [m for m in members if m is not type(None)]
    origin = [typing.get_origin(m) or m for m in kinds]
    optional = type(None) in members
    if set(origin) == {np.ndarray, collections.abc.Sequence}:  # a boolean mask or an index set
        return optional, lambda v, label, error: index_set(v, label, error=error)
    if len(origin) != 1 or origin[0] not in (float, int, bool, str, dict, np.ndarray):
        return optional, lambda v, label, error: v  # unions of several kinds: checked by their users
    kind = origin[0]
    if kind is float:
        return optional, lambda v, label, error: real(v, label, allow_inf=True, error=error)
    if kind is int:
        return optional, lambda v, label, error: integer(v, label, error=error)
    if kind is bool:
        return optional, lambda v, label, error: boolean(v, label, error=error)
    if kind is np.ndarray:
        return optional, lambda v, label, error: real_array(v, label, ndim=1, error=error)

    def instance(v, label, error):
        if not isinstance(v, kind):
            raise error(f"{label} must be a {kind.__name__}, got {_given(v)}")
        return v

    return optional, instance
