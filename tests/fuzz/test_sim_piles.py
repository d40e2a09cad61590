"""Simulation fuzz, sized to CI: random piles of boxes dropped on the floor under random laws.

Each run: no NaN, no body through the floor, penetration bounded, a run written as it goes
loads back whole; no step gains energy beyond the potential energy of the overlap projection's
lift (Trajectory.overlap_lift)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.simulation import load
from tests.simulation.scenes import SIDE, random_pile

LAWS = [
    lambda mu: cm.Pyramid(mu),
    lambda mu: cm.CoulombCone(mu),
    lambda mu: cm.Polygonal(mu, k=6),
    lambda mu: cm.PolyhedralLimitSurface([[1, 0], [-1, 0], [0, 1], [0, -1]], mu),
]


@pytest.mark.parametrize("seed", range(4))
def test_random_pile(seed, tmp_path):
    rng = np.random.default_rng([37, seed])
    system = random_pile(rng, int(rng.integers(2, 5)))
    law = LAWS[seed % len(LAWS)](float(rng.choice([0.0, 0.3, 0.8])))
    out = tmp_path / "pile.npz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a failed step ends the run: checked below
        traj = cm.simulate(system, 0.05, 5e-3, friction=law, planes=[cm.Plane()], out=out, save_every=4)
    assert traj.n_steps > 0
    for name in ("positions", "velocities", "quaternions", "kinetic", "potential"):
        assert np.all(np.isfinite(getattr(traj, name))), name
    lowest = traj.positions[:, :, 2].min()
    assert lowest > SIDE / 2 * 0.8  # no body through the floor (a centre stays above it)
    gaps = [np.nanmin(g) for g in traj.gaps.values() if np.isfinite(g).any()]
    assert min(gaps, default=0.0) > -0.02  # m: overlaps stay small
    saved = load(out)
    assert saved.n_steps == traj.n_steps
    np.testing.assert_array_equal(saved.positions, traj.positions)


@pytest.mark.parametrize("seed", range(2))
def test_random_pile_gains_no_energy_beyond_the_overlap_lift(seed):
    rng = np.random.default_rng([96, seed])
    system = random_pile(rng, 3)
    law = cm.PolyhedralLimitSurface([[1, 0], [-1, 0], [0, 1], [0, -1]], 0.0)
    traj = cm.simulate(system, 0.1, 5e-3, friction=law, planes=[cm.Plane()])
    assert traj.ok
    assert np.max(np.diff(traj.energy) - traj.overlap_lift[1:]) <= 1e-8  # J
