"""What :func:`~contactmodel.draw.draw` put on a figure: every arrow (:class:`Arrow`, with its
physical vector and scale) and every friction set, kept by figure so tests can compare pictures
with numbers."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from contactmodel.friction.sets import Outline


@dataclass
class Arrow:
    """One drawn arrow: ``vector`` is the physical quantity (world frame; N, m/s^2, m/s, or the
    torsional moment (N m) as a 1-vector about n), drawn from ``tail`` (m, world) with length
    ``scale`` m per unit (for a moment, ``scale`` is the arc radius, m); ``artists[0]`` is the
    shaft (or arc) whose gid is ``gid``, ``artists[1]`` the head if the arrow is not empty."""

    gid: str
    kind: str
    name: str
    tail: np.ndarray
    vector: np.ndarray
    scale: float
    artists: list = field(default_factory=list)


@dataclass
class DrawnSet:
    """The friction set drawn at one contact: the set and the outline's artist."""

    contact: str
    set: Outline
    artist: Any


@dataclass
class Drawn:
    """What :func:`draw` put on one figure: its arrows in drawing order and its friction sets by
    contact name."""

    arrows: list[Arrow] = field(default_factory=list)
    sets: dict[str, DrawnSet] = field(default_factory=dict)


#: the figures :func:`draw` drew on -> what it put there (kept here, not on the matplotlib
#: objects; an entry goes with its figure)
DRAWN: weakref.WeakKeyDictionary[Figure, Drawn] = weakref.WeakKeyDictionary()


def arrows(fig: Figure) -> list[Arrow]:
    """Every arrow :func:`draw` put on ``fig``, in drawing order."""
    drawn = DRAWN.get(fig)
    return [] if drawn is None else list(drawn.arrows)


def friction_sets(fig: Figure) -> dict[str, DrawnSet]:
    """The friction sets :func:`draw` put on ``fig``, by contact name."""
    drawn = DRAWN.get(fig)
    return {} if drawn is None else dict(drawn.sets)


def record(fig: Figure, kind: str, name: str, tail, vector, scale: float, artists: list) -> Arrow:
    arrow = Arrow(
        f"{kind}:{name}",
        kind,
        name,
        np.asarray(tail, dtype=float).copy(),
        np.atleast_1d(np.asarray(vector, dtype=float)).copy(),
        float(scale),
        artists,
    )
    DRAWN[fig].arrows.append(arrow)
    return arrow
