"""Each law's friction set is one object: its membership, projection, polyhedral rows and outline
agree with each other, and a law that does not describe its set gets a clear error."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.analysis.verify import friction_excess
from contactmodel.draw import friction_set as drawn_set
from contactmodel.errors import ContactModelError, FrictionLawError
from contactmodel.friction.base import ContactContext, FrictionLaw
from contactmodel.friction.rows import normal_rows

HEXAGON = [[np.cos(a), np.sin(a)] for a in np.arange(6) * np.pi / 3]
LAWS = [
    cm.CoulombCone(0.5),
    cm.Pyramid(0.4),
    cm.Polygonal(0.5, k=6),
    cm.Polygonal(0.3, k=5, offset=0.2),
    cm.Planar(0.6),
    cm.Frictionless(),
    cm.Ellipsoid(0.5, 1.0, 0.5, 0.2),
    cm.EllipticTorsion(0.5, 0.6, 1.0, 0.2),
    cm.PolyhedralLimitSurface(HEXAGON, 0.5),
    cm.PolyhedralLimitSurface([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 4], [0, 0, -4]], 0.5),
]


def _points(law, count: int = 300) -> np.ndarray:
    """Random contact forces (n, t, o, r) with c_n = 1 and zero components the law does not bound."""
    rng = np.random.default_rng(7)
    f = rng.uniform(-0.8, 0.8, size=(count, 4))
    f[:, 0] = 1.0
    for i, axis in enumerate("tor", start=1):
        if axis not in law.friction_set().components:
            f[:, i] = 0.0
    return f


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_membership_agrees_with_projection(law) -> None:
    """f is in the set (excess <= 0) iff each part's projection leaves it where it is."""
    fset = law.friction_set()
    for f in _points(law):
        fixed = all(
            np.allclose(
                part.project(1.0, f[["ntor".index(a) for a in part.components]]),
                f[["ntor".index(a) for a in part.components]],
                atol=1e-12,
            )
            for part in fset.parts
        )
        excess = fset.excess(f)
        if abs(excess) > 1e-9:
            assert fixed == (excess < 0), (f, excess)


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_inner_rows_inside_set_inside_outer_rows(law) -> None:
    fset = law.friction_set()
    inner = np.array(fset.rows(4, outer=False))
    outer = np.array(fset.rows(4, outer=True))
    for f in _points(law):
        if np.all(inner @ f <= -1e-9):
            assert fset.excess(f) <= 1e-9
        if fset.excess(f) <= -1e-9:
            assert np.all(outer @ f <= 1e-9)


def test_hand_values() -> None:
    """Excess by hand: the 4-gon |t| + |o| <= mu c_n rotated by 45 degrees is the pyramid's inner
    square; the planar law bounds t by mu c_n and forbids o."""
    square = cm.Polygonal(1.0, k=4)  # vertices (1, 0), (0, 1), ...: faces t + o <= 1 etc.
    assert friction_excess(square, [1.0, 0.5, 0.5, 0.0]) == pytest.approx(0.0, abs=1e-12)
    assert friction_excess(square, [1.0, 1.0, 1.0, 0.0]) == pytest.approx(np.sqrt(2) - 1 / np.sqrt(2))
    assert friction_excess(cm.Planar(0.5), [2.0, 0.5, 0.25]) == pytest.approx(0.25)
    assert friction_excess(cm.CoulombCone(0.5), [2.0, 0.6, 0.8]) == pytest.approx(0.0)
    outline = cm.Pyramid(0.5).friction_set().outline()
    assert outline.vertices == 4 and np.abs(outline.outline).max() == 0.5 and outline.torsion is None
    assert cm.EllipticTorsion(0.5, 1.0, 1.0, 0.2).friction_set().outline().torsion == pytest.approx(0.1)


class Bare(FrictionLaw):
    """A law that states only its normal pair and does not describe a friction set."""

    def rows(self, ctx: ContactContext):
        return normal_rows()

    def lift(self, ctx, force, accel):
        return {"c_n": float(force[0])}


def test_unknown_law_gets_a_clear_error() -> None:
    law = Bare()
    with pytest.raises(FrictionLawError, match=r"Bare\.friction_set\(\)"):
        friction_excess(law, [1.0, 0.0, 0.0])
    with pytest.raises(ContactModelError, match="Bare"):
        law.friction_set()
    assert drawn_set(law) is None  # drawn by its class name instead


def test_sign_patterns_only_for_lcp_laws() -> None:
    fset = cm.CoulombCone(0.5).friction_set()
    with pytest.raises(FrictionLawError, match="no sign patterns"):
        fset.pattern_label(False, ["normal", "cone"], "11")
    label = (
        cm.Pyramid(0.5)
        .friction_set()
        .pattern_label(False, ["normal", "plus_t", "minus_t", "plus_o", "minus_o"], "10010")
    )
    assert (label.mode, label.label, label.degenerate) == ("slide", "slide +t", True)


@pytest.mark.parametrize("k", [3, 4, 8, 17])
def test_polygon_projection_of_many_points_is_each_projected_alone(k):
    """PolygonPart.project_many (by the side nearest each point's direction) against
    project_polygon of each point over every side: inside, outside, near corners, at c_n = 0."""
    rng = np.random.default_rng(k)
    part = cm.Polygonal(0.5, k, offset=rng.uniform(0, 7)).friction_set().parts[0]
    for trial in range(200):
        m = int(rng.integers(1, 6))
        cn = rng.uniform(0, 2, m) * (rng.random(m) > 0.2)
        y = rng.normal(size=(m, 2)) * rng.choice([1e-3, 1.0, 10.0])
        if trial % 3 == 0:  # about the corners
            y = part.mu * cn[:, None] * part.directions[rng.integers(0, k, m)] * rng.uniform(0.9, 1.1, (m, 1))
        alone = np.array([part.project(c, p) for c, p in zip(cn, y)])
        assert np.abs(part.project_many(cn, y) - alone).max() <= 1e-14 * max(1.0, np.abs(y).max())


@pytest.mark.parametrize(
    "law", [cm.Pyramid(0.5), cm.Planar(0.5), cm.Polygonal(0.5, 8), cm.Polygonal(0.4, 5, 0.3)]
)
def test_slide_names_of_many_slides_are_each_named_alone(law):
    """FrictionSet.slide_indices (kept names, one pass) against slide_index of each slide, on
    random accelerations and on the ties: along the axes, the friction directions and between two."""
    fset = law.friction_set()
    d = len(fset.tangential)
    rng = np.random.default_rng(1)
    aT = rng.normal(size=(60, d))
    th = np.arange(16) * np.pi / 8
    ties = np.column_stack([np.cos(th), np.sin(th)])[:, :d]
    if isinstance(law, cm.Polygonal):
        ties = np.vstack([law.directions, -law.directions, law.directions + np.roll(law.directions, -1, 0)])
    aT = np.vstack([aT, ties, 1e-9 * ties])
    eps = np.full(len(aT), 1e-8)
    alone = [fset.slide_index(a, e) for a, e in zip(aT, eps)]
    assert fset.slide_indices(aT, eps) == [(i, tuple(n)) for i, n in alone]
    assert fset.slide_indices(aT, eps) == [(i, tuple(n)) for i, n in alone]  # the kept names
