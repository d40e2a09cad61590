"""The overlap correction is a position projection: it removes the fraction beta of each
penetration per step without feeding the velocities, so it never adds kinetic energy, and the
potential energy it gives (lifting bodies out of an overlap) is reported per step.

Before, a penetration entered the velocity problem (v_n+ >= beta |g| / h): a box resting 5 mm
into the floor left it at beta * 5 mm / h = 1 m/s, and a 17-box pile with mu = 0 gained up to
3.8e-3 J per step while its boxes overlapped by millimetres."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.shapes import Box

SIDE, DEPTH, DT, BETA = 0.2, 5e-3, 1e-3, 0.2
FRICTIONLESS = cm.PolyhedralLimitSurface([[1, 0], [-1, 0], [0, 1], [0, -1]], 0.0)


def _overlapping(n_boxes: int) -> cm.System:
    """A column of n cubes at rest, each DEPTH into the one below (the first into the floor)."""
    system = cm.System(gravity=(0, 0, -9.81))
    for k in range(n_boxes):
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (SIDE,) * 3),
            position=(0, 0, SIDE / 2 - DEPTH + k * (SIDE - DEPTH)),
            shape=Box((SIDE,) * 3),
        )
    return system


@pytest.mark.parametrize("n_boxes", [1, 2])
def test_overlap_is_removed_without_kinetic_energy(n_boxes):
    steps = 30
    traj = cm.simulate(
        _overlapping(n_boxes), steps * DT, DT, friction=FRICTIONLESS, planes=[cm.Plane()], beta=BETA
    )
    assert traj.ok
    # gravity alone gives a resting body g h of speed per step, which the contact removes: the
    # velocities stay at rest (old scheme: 1 m/s upwards after the first step)
    assert np.max(np.abs(traj.velocities)) < 1e-9
    assert np.max(traj.kinetic) < 1e-15
    # the floor penetration of the lowest box shrinks by (1 - beta) per step
    floor = [name for name in traj.gaps if name.endswith("@plane")]
    g = np.nanmin([traj.gaps[name] for name in floor], axis=0)
    assert g[0] == pytest.approx(-n_boxes * DEPTH if n_boxes == 1 else -DEPTH, rel=1e-9)
    expected = g[0] * (1 - BETA) ** np.arange(len(g))
    np.testing.assert_allclose(g, expected, rtol=0.02, atol=1e-9)
    # the energy balance: each step's rise is the potential energy of the projection's lift
    rise = np.diff(traj.energy) - traj.overlap_lift[1:]
    assert np.max(rise) <= 1e-12
    # box k (from 0) is lifted by beta DEPTH (k + 1): its own overlap and those below it
    lifted = BETA * DEPTH * n_boxes * (n_boxes + 1) / 2
    assert traj.overlap_lift[1] == pytest.approx(9.81 * lifted, rel=1e-6)


def test_beta_zero_only_stops_penetration_growing():
    traj = cm.simulate(_overlapping(1), 10 * DT, DT, friction=FRICTIONLESS, planes=[cm.Plane()], beta=0.0)
    g = next(v for name, v in traj.gaps.items() if name.endswith("@plane"))
    np.testing.assert_allclose(g, -DEPTH, atol=1e-12)
    assert np.all(traj.overlap_lift == 0.0)
