"""Assertions shared by test modules (not collected: no ``test_`` prefix)."""

from __future__ import annotations

import numpy as np


def assert_same_mcp(a, b, *, seed: int, low: float = -1.0, high: float = 1.0) -> None:
    """``a`` and ``b`` are the same MCP: names, bounds, and F and J bit for bit at one random point
    drawn uniformly from [low, high)^n with ``seed``."""
    assert list(a.names) == list(b.names)
    np.testing.assert_array_equal(a.lb, b.lb)
    np.testing.assert_array_equal(a.ub, b.ub)
    x = np.random.default_rng(seed).uniform(low, high, a.n)
    np.testing.assert_array_equal(a.F(x), b.F(x))
    np.testing.assert_array_equal(a.J(x).toarray(), b.J(x).toarray())
