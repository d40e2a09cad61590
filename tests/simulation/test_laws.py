"""The same scene under different friction laws gives the differences the laws predict.

A cube slides on the floor at speed v0 along the diagonal of the floor contacts' (t, o) axes.
Coulomb's cone is isotropic: it decelerates at mu g and stops after v0^2 / (2 mu g). The pyramid
|c_t|, |c_o| <= mu c_n with maximum dissipation puts the friction at a corner along the
diagonal: deceleration sqrt(2) mu g, stopping distance smaller by sqrt(2). The 4-sided polygon
with vertices on the t and o axes (a square inscribed in the cone's circle) has a face across the
diagonal at distance mu cos(45 deg): deceleration mu g / sqrt(2), distance larger by sqrt(2).
Planar friction acts along t only: the t component stops, the o component keeps its speed.
Frictionless: no deceleration at all.
"""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.simulation import simulate

from .scenes import G, sliding_box

MU, V0, DT = 0.5, 0.5, 1e-2
D_STAR = V0**2 / (2 * MU * G)


def _run(law, solver, t_end=0.15):
    system, planes = sliding_box((V0 / np.sqrt(2), V0 / np.sqrt(2), 0.0))
    traj = simulate(system, t_end, DT, friction=law, solver=solver, planes=planes)
    assert traj.ok
    assert np.max(np.diff(traj.energy)) <= 1e-9
    return traj.positions[-1, 0, :2] - traj.positions[0, 0, :2], traj.velocities[-1, 0, :2]


@pytest.mark.parametrize(
    ("law", "solver", "factor"),
    [
        (cm.CoulombCone(MU, form="soc"), "newton", 1.0),
        (cm.Pyramid(MU), "lemke", 1 / np.sqrt(2)),
        (cm.Polygonal(MU, k=4), "lemke", np.sqrt(2)),
    ],
    ids=["cone", "pyramid", "polygon4"],
)
def test_diagonal_sliding_stops_where_the_law_says(law, solver, factor):
    moved, v = _run(law, solver)
    assert np.allclose(v, 0.0, atol=1e-9)
    assert abs(moved[0] - moved[1]) < 1e-9, "symmetric laws keep the diagonal"
    distance = np.linalg.norm(moved)
    assert abs(distance - factor * D_STAR) <= V0 * DT


def test_planar_friction_stops_only_the_t_component():
    moved, v = _run(cm.Planar(MU), "lemke")
    assert abs(v[0]) < 1e-9 and abs(v[1] - V0 / np.sqrt(2)) < 1e-9


def test_frictionless_box_keeps_its_speed():
    moved, v = _run(cm.Frictionless(), "lemke")
    assert np.allclose(v, V0 / np.sqrt(2), atol=1e-12)


def test_cone_in_the_seeds_mncp_form_gives_the_cones_answer():
    """The default CoulombCone statement (MNCP (27)-(29)) on the straight slide: d* within v0 dt."""
    system, planes = sliding_box((V0, 0.0, 0.0))
    traj = simulate(system, 0.12, DT, friction=cm.CoulombCone(MU), planes=planes)
    assert traj.ok
    assert abs(traj.positions[-1, 0, 0] - D_STAR) <= V0 * DT
    assert np.max(np.diff(traj.energy)) <= 1e-9


def test_the_anisotropic_cone_moves_alike_in_its_two_forms():
    """Under AnisotropicCone(mu, mu / 2) the diagonal slide bends toward o, where the friction is
    weaker (c_alpha ~ -mu_alpha^2 v_alpha): the o component stops later than the t component.
    The MNCP and the SOC form (a cone block of the scaled friction) give the same path."""
    runs = {f: _run(cm.AnisotropicCone(MU, MU / 2, form=f), "newton", t_end=0.2) for f in ("mncp", "soc")}
    (moved, v), (moved_soc, v_soc) = runs["mncp"], runs["soc"]
    assert np.abs(moved - moved_soc).max() < 1e-8 and np.abs(v - v_soc).max() < 1e-7
    assert moved[1] > moved[0] + V0 * DT, "further along o"
