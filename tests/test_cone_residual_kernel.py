"""The cone blocks' natural-map residual (``contactmodel.mcp.cones.residual``, run by the
dispatcher on every answer and every time step) gives the numbers of its numpy code bit for bit,
compiled (numba) or as the plain loop."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.mcp import cones


def blocks(seed: int, k: int, d: int = 3):
    """Forces and accelerations (k, d) with zero, tiny, huge, negative and non-finite entries."""
    rng = np.random.default_rng(seed)
    scales = np.array([0.0, 1.0, 1e-300, 1e8, -1.0])
    c = rng.normal(size=(k, d)) * rng.choice(scales, size=(k, d))
    a = rng.normal(size=(k, d)) * rng.choice(scales, size=(k, d))
    mu = np.where(rng.random(k) < 0.15, 0.0, rng.uniform(0.0, 2.0, k))
    if k and rng.random() < 0.2:
        c[rng.integers(k), rng.integers(d)] = rng.choice([np.nan, np.inf, -np.inf])
    return c, a, mu


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 100_000), k=st.integers(0, 25), d=st.sampled_from([3, 4]))
def test_the_loop_and_the_compiled_residual_are_the_numpy_one(seed, k, d):
    c, a, mu = blocks(seed, k, d)
    with np.errstate(all="ignore"):
        expected = cones.residual_numpy(c, a, mu)
        for found in (cones.residual(c, a, mu), cones.residual_loop(c, a, mu)):
            assert found.shape == expected.shape == (k, d)
            assert np.array_equal(found, expected, equal_nan=True)
            assert np.array_equal(np.signbit(found), np.signbit(expected))


def test_one_mu_for_every_block_and_flat_input():
    c, a, mu = blocks(7, 5)
    np.testing.assert_array_equal(cones.residual(c.ravel(), a.ravel(), 0.4), cones.residual_numpy(c, a, 0.4))
