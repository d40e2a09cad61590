"""Solution.table(problem=...) notes statically indeterminate contact forces: the loaded contacts'
Jacobian rows are rank deficient, so many splits of the forces give the same motion."""

from __future__ import annotations

import numpy as np
import pytest
from boxes import TRIANGLE, box_on_corners

import contactmodel as cm
from contactmodel.analysis.indeterminate import indeterminacy

NOTE = "the contact forces are not unique"


def _text(solution, problem=None) -> str:
    """The table with its line breaks as spaces (the note is wrapped)."""
    return " ".join(solution.table(problem=problem).split())


def test_solution_table_notes_a_box_resting_on_four_corners():
    """Twelve rows (n, t, o of four corners) on six freedoms: six internal-force directions. Two
    solvers return two different splits with one and the same motion."""
    problem = box_on_corners(cm.Pyramid(0.5))
    solution = cm.solve(problem, solver="newton")
    assert solution.ok and indeterminacy(problem, solution) == 6
    table = _text(solution, problem)
    assert NOTE in table and "6 internal-force directions" in table
    assert NOTE not in _text(solution), "without the problem the table cannot tell"
    other = cm.solve(box_on_corners(cm.Pyramid(0.5)), solver="lemke")
    ours = np.array([c.force for c in solution.contacts])
    theirs = np.array([c.force for c in other.contacts])
    assert np.abs(ours - theirs).max() > 1e-3, "two splits of the load"
    np.testing.assert_allclose(
        solution.bodies[0].linear_acceleration, other.bodies[0].linear_acceleration, atol=1e-9
    )
    np.testing.assert_allclose(ours[:, 0].sum(), 2.0 * 9.81, rtol=1e-9)


def test_solution_table_notes_a_box_sliding_on_four_corners():
    """Sliding along t on pyramid contacts: each corner's combined row G_n - mu G_t and its o row,
    inside its interval, can change; eight rows of rank five (F_x is tied to F_z)."""
    problem = box_on_corners(cm.Pyramid(0.5), push=30.0)
    solution = cm.solve(problem)
    assert solution.ok and all(c.mode == "slide" for c in solution.contacts)
    assert indeterminacy(problem, solution) == 3
    assert NOTE in _text(solution, problem)


@pytest.mark.parametrize(
    ("law", "corners"),
    [(cm.Pyramid(0.5), [(0.0, 0.0)]), (cm.CoulombCone(0.5), [(0.0, 0.0)]), (cm.Frictionless(), TRIANGLE)],
    ids=["one contact, pyramid", "one contact, cone", "three frictionless corners"],
)
def test_solution_table_has_no_note_when_the_forces_are_determined(law, corners):
    """One contact under the centre of mass (three independent rows) and three frictionless
    corners (three independent normal rows; the tangential rows carry no force)."""
    problem = box_on_corners(law, corners=corners)
    solution = cm.solve(problem)
    assert solution.ok and indeterminacy(problem, solution) == 0
    assert NOTE not in _text(solution, problem)


def test_solution_table_notes_friction_of_three_rolling_corners():
    """Three rolling corners with friction: the normal forces are determined (three independent
    normal rows), the tangential ones are not (nine rows, rank six): three directions, all in
    the ground plane."""
    problem = box_on_corners(cm.Pyramid(0.5), corners=TRIANGLE)
    solution = cm.solve(problem)
    np.testing.assert_allclose([c.force[0] for c in solution.contacts], [2.0 * 9.81 / 3] * 3, rtol=1e-9)
    assert indeterminacy(problem, solution) == 3
    assert "3 internal-force directions" in _text(solution, problem)
