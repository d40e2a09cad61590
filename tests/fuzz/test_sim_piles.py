"""Simulation fuzz, sized to CI: random piles of boxes dropped on the floor under random laws.

Each run: no NaN, no body through the floor, penetration bounded, a run written as it goes
loads back whole; no step gains energy beyond the potential energy of the overlap projection's
lift (Trajectory.overlap_lift)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.shapes import Box
from contactmodel.simulation import load

SIDE = 0.2


def random_pile(rng: np.random.Generator, n: int) -> cm.System:
    """n unit-mass cubes in columns of up to 3, each shifted and turned from the one below and
    dropped from a few mm above it."""
    from scipy.spatial.transform import Rotation

    system = cm.System(gravity=(0, 0, -9.81))
    top = 0.0
    for k in range(n):
        column, level = divmod(k, 3)
        if level == 0:
            top = 0.0
        rot = Rotation.from_rotvec([*rng.normal(scale=0.01, size=2), rng.uniform(-0.1, 0.1)])
        corners = (np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]) * SIDE / 2) @ (
            rot.as_matrix().T
        )
        z = top + rng.uniform(1e-3, 5e-3) - corners[:, 2].min()
        top = z + corners[:, 2].max()
        shift = rng.uniform(-0.03, 0.03, size=2) if level else np.zeros(2)
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (SIDE,) * 3),
            position=(0.35 * column + shift[0], shift[1], z),
            orientation=rot.as_matrix(),
            velocity=rng.normal(scale=0.1, size=3),
            shape=Box((SIDE,) * 3),
        )
    return system


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
