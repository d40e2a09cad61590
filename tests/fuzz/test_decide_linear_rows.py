"""cm.decide on mixes of round and polyhedral laws: the relaxation that keeps every contact's
linear rows exact (round_laws.linear_rows_relaxation) contains every solution of the problem, and
proves "no solution" where the normal relaxation (normal complementarity only) has one.

The scenes are fuzz scenes of ``benchmarks/fuzz_run.py --max-boxes 6 --torsion`` (seed 1)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from scenes import ALL_LAWS, NumpyDraw, draw_scene

import contactmodel as cm
from contactmodel.analysis.decide import Status, decide
from contactmodel.analysis.round_laws import NormalRelaxed, linear_rows, linear_rows_relaxation
from contactmodel.solve import relative_residual


def torsion_scene(i: int, form: str | None = None):
    sc = draw_scene(NumpyDraw([1, i]), max_boxes=6, laws=ALL_LAWS)
    if form is not None:
        sc = copy.deepcopy(sc)
        sc.form = form
    return sc


def test_a_mix_without_solution_is_decided_by_the_linear_rows_relaxation() -> None:
    """Scene 2659 (13 contacts: Coulomb cone, EllipticTorsion, Planar, Polygonal, Pyramid; newton
    and every rung of its fallback end unsolved): the normal relaxation has a solution, the
    relaxation keeping the polyhedral contacts' maximum dissipation has none (an exact tree)."""
    problem = torsion_scene(2659, "reduced").problem()
    result = decide(problem, uniqueness=False, time_limit=20.0)
    assert result.status is Status.NO_SOLUTION, result.evidence
    assert result.evidence["relaxation"] == "linear rows kept"
    assert "relaxation keeping the linear rows" in result.evidence["certificate"]
    normal = [t for t in result.tried if t.startswith("relaxation (outer 16-gons, normal complementarity")]
    assert normal and any("solved" in t for t in normal)  # the normal relaxation alone: a solution


@pytest.mark.parametrize("index", [0, 3, 4])
def test_every_solution_solves_the_linear_rows_relaxation(index: int) -> None:
    """Soundness from the definition: the forces of a verified solution, written in the relaxed
    problem's variables (the round contacts' forces in their outer cone's generators), solve the
    relaxed LCP, so no relaxation of a solvable problem can be without solution."""
    sc = torsion_scene(index)
    problem = sc.problem()
    sol = cm.solve(problem)
    assert sol.status is cm.Status.SOLVED  # the premise
    relaxed = linear_rows_relaxation(problem)
    assert relaxed is not None and relaxed.compile().mcp.is_lcp
    laws = relaxed.laws
    kinds = {linear_rows(law.law.rows(problem.contexts[name])) for name, law in laws.items()}
    assert kinds == {True, False}  # some contacts kept exact, some relaxed
    assert all(isinstance(law, NormalRelaxed) for law in laws.values())
    forces = problem.interpret(sol.x).forces
    x = relaxed.point_at(forces)
    assert relative_residual(relaxed.compile().mcp, x) <= 1e-7
    assert decide(relaxed, uniqueness=False, time_limit=20.0).status is not Status.NO_SOLUTION


def test_the_relaxation_is_none_where_it_is_the_normal_relaxation() -> None:
    """A problem whose contacts are all round and rolling keeps no rows: the two relaxations are
    the same LCP, and decide does not state it twice."""
    system = cm.System()
    system.add_body("box", 1.0, np.eye(3) / 6, position=(0, 0, 0.5))
    for k, (x, y) in enumerate([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]):
        system.add_contact(
            "box", "ground", (x, y, 0.0), (0, 0, 1), friction=cm.CoulombCone(0.5), name=f"c{k}"
        )
    assert linear_rows_relaxation(cm.formulate(system)) is None
