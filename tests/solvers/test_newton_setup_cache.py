"""newton's set-up kept between solves of a small affine problem (``core.setup_cache``) changes
no number: the same iterates, iterations and answers as a solve that makes its set-up afresh, and
a matrix changed in place is noticed."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.mcp.types import MCP, CoulombBlocks
from contactmodel.solvers.newton import NewtonOptions, solve
from contactmodel.solvers.newton.core import clear_setup_cache, setup_cache


def box_on_table(friction) -> cm.Problem:
    """A 3 kg cube on four corner contacts pushed sideways by 10 N (examples/box_push.py)."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    box = system.add_body(
        "box", mass=3.0, inertia=cm.inertia.box(3.0, (0.4, 0.4, 0.4)), position=(0.0, 0.0, 0.2),
        wrench=(10.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    )  # fmt: skip
    for i, (x, y) in enumerate([(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]):
        system.add_contact(box, system.ground, point=(x, y, 0.0), normal=(0.0, 0.0, 1.0), name=f"c{i}")
    return cm.formulate(system, friction=friction)


def cone_mcp(seed: int, k: int) -> MCP:
    """An fc3d problem of k contacts: W = G G^T + 0.1 I (3k x 3k), q random, mu in [0.2, 1]."""
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(3 * k, 6))
    W = sp.csr_matrix(G @ G.T + 0.1 * np.eye(3 * k))
    q = rng.normal(size=3 * k)
    q[::3] -= 1.0
    n = 3 * k
    cones = CoulombBlocks(np.arange(n).reshape(k, 3), rng.uniform(0.2, 1.0, k))
    return MCP(F=lambda x: W @ x + q, J=lambda x: W, lb=np.full(n, -np.inf), ub=np.full(n, np.inf),
               M=W, q=q, cones=cones)  # fmt: skip


def same_run(a, b) -> None:
    assert np.array_equal(a.x, b.x)
    assert a.iterations == b.iterations and a.outcome is b.outcome
    for key in ("residual_history", "factorizations", "f_evals", "j_evals", "lm_steps"):
        assert a.extras[key] == b.extras[key], key


@pytest.mark.parametrize("kernels", ["numpy", "auto"])
@pytest.mark.parametrize("seed,k", [(1, 1), (2, 4), (3, 12)])
def test_cone_solves_with_the_kept_setup_repeat_the_fresh_one(seed, k, kernels):
    mcp = cone_mcp(seed, k)
    opt = NewtonOptions(kernels=kernels)
    clear_setup_cache()
    fresh = solve(mcp, opt)
    assert setup_cache(mcp.M)["cone"]  # the first solve left its set-up
    again = solve(mcp, NewtonOptions(kernels=kernels))
    same_run(fresh, again)


@pytest.mark.parametrize("friction", [cm.Pyramid(0.5), cm.CoulombCone(0.5, form="soc")])
def test_box_on_table_resolves_repeat_the_first_solve(friction):
    problem = box_on_table(friction)
    clear_setup_cache()
    first = cm.solve(problem, solver="newton")
    second = cm.solve(problem, solver="newton")
    assert first.ok and np.array_equal(first.x, second.x) and first.iterations == second.iterations
    assert first.extras["residual_history"] == second.extras["residual_history"]


def test_a_matrix_changed_in_place_gets_a_new_setup():
    mcp = cone_mcp(4, 3)
    opt = NewtonOptions()
    clear_setup_cache()
    solve(mcp, opt)
    kept = setup_cache(mcp.M)
    kept["marker"] = True
    mcp.M.data *= 2.0  # same object, new entries: what was kept no longer holds
    assert "marker" not in setup_cache(mcp.M)
    changed = solve(mcp, opt)
    clear_setup_cache()
    fresh = solve(mcp, opt)
    same_run(fresh, changed)


def test_large_or_non_affine_problems_keep_nothing():
    assert setup_cache(None) is None
    assert setup_cache(sp.identity(1000, format="csr")) is None
    assert setup_cache(sp.identity(10, format="csc")) is None


@pytest.mark.parametrize("kind", ["cone", "box"])
def test_the_kept_setup_lets_the_matrix_go(kind):
    mcp = cone_mcp(5, 2) if kind == "cone" else MCP.from_lcp(np.eye(4) + 0.1, -np.ones(4))
    M = weakref.ref(mcp.M)
    solve(mcp, NewtonOptions())
    assert setup_cache(mcp.M)  # something was kept
    del mcp
    gc.collect()
    assert M() is None
