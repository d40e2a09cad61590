"""The fallback's routes are reduction chains (contactmodel.reductions): the answer a route solved is
that route's problem solved directly, carried back by the route's invert, and the Solution lists
the route's reductions."""

from __future__ import annotations

import numpy as np
import pytest
from scenes import NumpyDraw, draw_scene

import contactmodel as cm
from contactmodel.fallback import alternatives


@pytest.mark.parametrize(
    ("index", "reductions"),
    [
        (540, ["with the cone in the MNCP form"]),
        (2026, ["in the reduced form", "with the cone in the MNCP form"]),
    ],
)
def test_the_route_that_solved_is_its_chain_inverted(index: int, reductions: list[str]) -> None:
    problem = draw_scene(NumpyDraw([1, index])).problem()
    sol = cm.solve(problem, liftoff_rounds=0)
    assert sol.status is cm.Status.SOLVED and sol.extras["reductions"] == reductions
    (route,) = [r for r in alternatives(problem) if r.label == sol.extras["fallback"]["solved_by"]]
    twin = route.apply(problem)
    direct = cm.solve(twin, liftoff_rounds=0, fallback=False)
    assert direct.status is cm.Status.SOLVED and direct.residual == sol.residual
    np.testing.assert_array_equal(route.invert(direct.x), sol.x)
