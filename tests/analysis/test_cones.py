"""Complementary cones of contact modes: Berard et al.'s (2004) counts, span/face conversion, the disc."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.analysis import (
    disc_cones,
    enumerate_modes,
    face_form,
    mode_census,
    mode_cone,
    plot_disc_cones,
    span_form,
)
from contactmodel.analysis.cones import single_contact_problem


def test_planar_rolling_contact_has_four_of_eight() -> None:
    """Seed 003 §V-A: 2^3 patterns, four feasible: roll, slide left/right, separate."""
    c = mode_census(cm.Planar(0.4))
    assert c.counts()["patterns"] == 8
    assert sorted(c.feasible) == ["roll", "separate", "slide +t", "slide -t"]
    assert c.approach_feasible


def test_pyramid_rolling_contact_has_ten_of_32_six_non_degenerate() -> None:
    c = mode_census(cm.Pyramid(0.5))
    assert c.counts()["patterns"] == 32
    assert len(c.feasible) == 10
    assert sorted(c.non_degenerate) == sorted(
        ["roll", "separate", "slide +t+o", "slide +t-o", "slide -t+o", "slide -t-o"]
    )
    assert {"slide +t", "slide -t", "slide +o", "slide -o"} <= set(c.feasible)


@pytest.mark.parametrize("k", [4, 5, 6])
def test_polygonal_counts(k: int) -> None:
    """At mu > 0 the strictly complementary patterns are roll, k slides, k two-direction slides and
    separate (2k + 2 of 2^(k+2)); Berard et al.'s (2004) 2k + 4 adds approach and the friction-free
    slide that is feasible only at mu = 0."""
    pos = mode_census(cm.Polygonal(0.5, k=k))
    assert pos.patterns == 2 ** (k + 2)
    assert len(pos.feasible) == 2 * k + 2
    assert len(pos.non_degenerate) == k + 2
    zero = mode_census(cm.Polygonal(0.0, k=k))
    modes = set(pos.feasible) | set(zero.feasible) | ({"approach"} if pos.approach_feasible else set())
    assert "slide (no friction force)" in modes
    assert len(modes) == 2 * k + 4


def test_face_and_span_forms_agree() -> None:
    rays = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    F, h, E, e = face_form(np.zeros((0, 3)), rays, np.zeros((0, 3)))
    assert len(F) == 3 and not len(E) and np.allclose(h, 0)
    assert np.all(F @ rays.T <= 1e-9)
    v, r, lin = span_form(F, h)
    assert len(r) == 3 and not len(lin)
    unit = rays / np.linalg.norm(rays, axis=1, keepdims=True)
    for g in unit:
        assert np.min(np.linalg.norm(r - g, axis=1)) < 1e-9


def test_cone_membership_matches_solver() -> None:
    """A wrench inside a mode's cone is solved into that mode; the pattern cones of the pyramid
    contact cover the wrench space."""
    problem = single_contact_problem(cm.Pyramid(0.5))
    cones = [c for c in enumerate_modes(problem, body="box") if c.feasible]
    assert len(cones) == 10
    rng = np.random.default_rng(3)
    for _ in range(10):
        w = rng.normal(size=6)
        inside = [c for c in cones if c.contains(w)]
        assert inside
        box = problem.system.bodies[0]
        box.wrench = w.copy()
        p = cm.formulate(problem.system, friction=cm.Pyramid(0.5))
        sol = cm.solve(p, solver="lemke")
        label = sol.contacts[0].mode
        assert any(c.labels["c"].mode == label.split()[0] for c in inside)
    problem.system.bodies[0].wrench = np.zeros(6)


def test_infeasible_pattern_is_reported_empty() -> None:
    problem = single_contact_problem(cm.Pyramid(0.5))
    cone = mode_cone(problem, {"c": "10110"}, body="box")
    assert not cone.feasible and cone.dimension == -1 and "infeasible" in cone.summary()


def test_unknown_mode_names_the_choices() -> None:
    problem = single_contact_problem(cm.Pyramid(0.5))
    with pytest.raises(cm.FormulationError, match="slide \\+t\\+o"):
        mode_cone(problem, {"c": "fly"}, body="box")


def test_disc_example_fig2(tmp_path) -> None:
    """Seed 003 Fig. 2: slide at disc 1 with approach at disc 2 is a 3-generator cone; one
    generator is a push into disc 1 along the edge of its friction cone (mu = 0.4), through the
    contact point (the disc stays at rest under it)."""
    cones = {tuple(c.assignment.values()): c for c in disc_cones(0.4)}
    assert all(c.feasible and c.homogeneous for c in cones.values())
    for slide in ("slide +t", "slide -t"):
        cone = cones[(slide, "approach")]
        assert cone.dimension == 3 and len(cone.rays) == 3
        edge_found = False
        th = np.radians(-50.0)
        n = -np.array([np.cos(th), np.sin(th)])
        t = np.array([-n[1], n[0]])
        for g in cone.rays:
            f = g[:2]
            cn, ct = -(f @ n), -(f @ t)
            moment = np.cos(th) * f[1] - np.sin(th) * f[0]
            if cn > 0 and abs(abs(ct) - 0.4 * cn) < 1e-6 and abs(g[2] - moment) < 1e-6:
                edge_found = True
        assert edge_found
    path = tmp_path / "disc.png"
    plot_disc_cones(path)
    assert path.stat().st_size > 10_000
