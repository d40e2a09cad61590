"""A step's active-set start (newton's ``active_set_steps``, on in ``cm.simulate``) against the
long way: the same runs with it off, where every step is solved by newton's iteration. Affine
MCPs (the pyramid, polygons) and MCPs with quadratic rows (the cone's MNCP, the anisotropic cone:
a Newton step on the active set)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.mcp.compiled import Functions, Terms
from contactmodel.mcp.types import MCP
from contactmodel.solvers.newton import NewtonOptions, solve

from .scenes import box_on_incline, sliding_box

LAWS = [
    cm.Polygonal(0.5, 8),
    cm.Pyramid(0.5),
    cm.CoulombCone(0.5, form="mncp"),
    cm.AnisotropicCone(0.5, 0.4, form="mncp"),
]


def _scene(name: str):
    if name == "slide":
        return sliding_box((1.0, 0.3, 0.0))
    system, planes, _ = box_on_incline(np.radians(35))
    return system, planes


@pytest.mark.parametrize("law", LAWS, ids=repr)
@pytest.mark.parametrize("scene", ["slide", "incline"])
def test_steps_from_the_active_set_move_as_the_iterated_steps(law, scene) -> None:
    """Positions and velocities of 120 steps (a slide slowing down, a slide speeding up down an
    incline) agree to the steps' tolerance; most steps end at the active-set point, in one or two
    linear solves, where the long way iterates."""
    runs = {}
    for steps in (0, 2):
        system, planes = _scene(scene)
        runs[steps] = cm.simulate(system, 0.12, 1e-3, friction=law, planes=planes, active_set_steps=steps)
        assert runs[steps].failed_step is None
    short, long = runs[2], runs[0]
    assert np.abs(short.positions - long.positions).max() < 1e-9
    assert np.abs(short.velocities - long.velocities).max() < 1e-8
    iterated = np.count_nonzero(long.iterations)
    assert np.count_nonzero(short.iterations > 2) < iterated / 4 or iterated < 10


def test_the_active_set_point_solves_a_nearby_lcp_and_else_changes_nothing() -> None:
    """From the answer of an LCP, the LCP with a slightly changed q is solved by one active-set
    step (an exact solution, reported as one iteration); from a start whose active set is wrong
    the run is the run without the option, iterate for iterate."""
    rng = np.random.default_rng(7)
    A = rng.normal(size=(12, 12))
    M = A @ A.T + 0.1 * np.eye(12)  # positive definite: one solution
    q = rng.normal(size=12)
    first = solve(MCP.from_lcp(M, q))
    assert first.outcome.value == "converged"
    near = q + 1e-4 * rng.normal(size=12)
    found = solve(MCP.from_lcp(M, near), NewtonOptions(x0=first.x, active_set_steps=2))
    assert found.extras["active_set_steps"] == 1 and found.iterations == 1
    x = found.x
    assert np.abs(np.minimum(x, M @ x + near)).max() < 1e-12
    iterated = solve(MCP.from_lcp(M, near), NewtonOptions(x0=first.x))
    assert iterated.iterations >= 1 and np.abs(iterated.x - x).max() < 1e-9
    far = -q  # another active set altogether
    on = solve(MCP.from_lcp(M, far), NewtonOptions(x0=first.x, active_set_steps=2))
    off = solve(MCP.from_lcp(M, far), NewtonOptions(x0=first.x))
    if "active_set_steps" not in on.extras:
        assert on.iterations == off.iterations and np.array_equal(on.x, off.x)


def test_a_nearby_quadratic_mcp_is_solved_by_one_newton_step_on_the_active_set() -> None:
    """F(x) = M x + q + a quadratic term per row, x >= 0: from the answer of one q, the MCP with a
    slightly changed q (a start within sqrt(tol)) is solved by one step on the start's active
    set (J at the start, reported as one iteration and one J evaluation), to the iterated
    answer's accuracy; farther away, the run is the run without the option."""
    rng = np.random.default_rng(11)
    n = 10
    A = rng.normal(size=(n, n))
    M = A @ A.T + 0.5 * np.eye(n)
    rows = np.arange(n)

    def mcp(q, x0=None):
        f = Functions(Terms(sp.csr_matrix(M), rows, rows, rows, np.full(n, 0.3), []), q)
        return MCP(F=f.F, J=f.J, lb=np.zeros(n), ub=np.full(n, np.inf), x0=x0, hess=f.hess)

    q = rng.normal(size=n)
    first = solve(mcp(q))
    assert first.outcome.value == "converged" and 0 < np.count_nonzero(first.x) < n
    near = q + 1e-7 * rng.normal(size=n)  # a start within sqrt(tol)
    found = solve(mcp(near), NewtonOptions(x0=first.x, active_set_steps=2))
    assert found.extras["active_set_steps"] == 1 and found.iterations == 1 and found.extras["j_evals"] == 1
    iterated = solve(mcp(near), NewtonOptions(x0=first.x))
    assert iterated.iterations >= 1 and "active_set_steps" not in iterated.extras
    assert np.abs(found.x - iterated.x).max() < 1e-9
    F = mcp(near).F(found.x)
    assert np.abs(np.minimum(found.x, F)).max() <= 1e-10
    farther = q + 1e-3 * rng.normal(size=n)  # a start past sqrt(tol): the iteration alone
    on = solve(mcp(farther), NewtonOptions(x0=first.x, active_set_steps=2))
    off = solve(mcp(farther), NewtonOptions(x0=first.x))
    assert "active_set_steps" not in on.extras and on.iterations == off.iterations > 0
    assert np.array_equal(on.x, off.x)
