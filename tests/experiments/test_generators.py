"""Instance generators: deterministic by seed, exact pyramid LCP sizes, the seeds' families."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.experiments.generators import (
    MU_GRID,
    build_problem,
    random_boxes,
    rod_cube_grid,
    scara_b,
    scara_problem,
    table1_instances,
)


def _numbers(system: cm.System) -> tuple[np.ndarray, np.ndarray, list[str]]:
    asm = cm.assemble(system)
    return asm.A, asm.b, sorted(asm.sliding)


@pytest.mark.parametrize("size", [1, 2, 3, 10, 16, 30, 50, 90, 120, 150, 170, 230])
def test_random_boxes_hit_the_requested_pyramid_lcp_size(size: int) -> None:
    for seed in (0, 1):
        problem = cm.formulate(random_boxes(seed, size, mu=0.4))
        mcp = problem.compile().mcp
        assert mcp.is_lcp
        assert mcp.n == size


def test_random_boxes_are_deterministic_by_seed() -> None:
    a1, b1, s1 = _numbers(random_boxes(3, 40, 0.5))
    a2, b2, s2 = _numbers(random_boxes(3, 40, 0.5))
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(b1, b2)
    assert s1 == s2
    a3, _, _ = _numbers(random_boxes(4, 40, 0.5))
    assert a3.shape != a1.shape or not np.array_equal(a3, a1)


def test_random_boxes_mix_rolling_and_sliding_and_bodies() -> None:
    systems = [random_boxes(seed, 60, 0.5) for seed in range(4)]
    sliding = [len(cm.assemble(s).sliding) for s in systems]
    assert any(0 < n < len(s.contacts) for n, s in zip(sliding, systems))
    assert max(len(s.bodies) for s in systems) >= 3


def test_table1_instances_vary_mu_per_problem() -> None:
    instances = table1_instances({10: 12})
    assert len(instances) == 12
    assert [i["seed"] for i in instances] == [0] * 10 + [1] * 2
    assert len({i["mu"] for i in instances[:10]}) == 10


def test_scara_family_is_seeded_and_sized() -> None:
    np.testing.assert_array_equal(scara_b(7), scara_b(7))
    assert np.all(np.abs(scara_b(7)) <= 5)
    assert not np.array_equal(scara_b(7), scara_b(8))
    assert scara_problem(0, sliding=True).compile().mcp.n == 2
    assert scara_problem(0, sliding=False, friction="pyramid").compile().mcp.n == 10
    rolling = scara_problem(0, sliding=False, friction="cone")
    assert not rolling.compile().mcp.is_lcp


def test_rod_cube_grid_is_seed_002_example_1() -> None:
    assert len(MU_GRID) == 20 and MU_GRID[0] == 0.1 and MU_GRID[-1] == 1.0
    cells = rod_cube_grid(0.0)
    assert len(cells) == 400
    solution = cm.solve(build_problem(cells[0]))
    assert solution.ok
    assert {c.name for c in solution.contacts} == {"rod", "hump"}
