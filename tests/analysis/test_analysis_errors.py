"""Caller mistakes in the analysis and the pictures raise ContactModelError subclasses that name
the argument and the fix."""

from __future__ import annotations

import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.analysis import all_solutions, diagnose
from contactmodel.analysis.cones import single_contact_problem
from contactmodel.draw import draw
from contactmodel.errors import (
    ArgumentKindError,
    ContactModelError,
    DrawingError,
    SolverError,
    UnknownNameError,
)


def test_all_solutions_argument_errors() -> None:
    with pytest.raises(ArgumentKindError, match="all_solutions") as err:
        all_solutions("not a problem")
    assert isinstance(err.value, TypeError) and isinstance(err.value, ContactModelError)
    cone = single_contact_problem(cm.CoulombCone(0.5))
    with pytest.raises(SolverError, match="method='multistart'"):
        all_solutions(cone, method="enumerate")


def test_drawing_and_diagnosis_errors() -> None:
    system = catalogue.get("box_sliding").build()
    with pytest.raises(DrawingError, match="view"):
        draw(system, view="sideways")
    with pytest.raises(DrawingError, match="scale"):
        draw(system, scale={"forse": 1.0})
    d = diagnose(single_contact_problem(cm.Pyramid(0.5)), lcp_checks=False)
    with pytest.raises(UnknownNameError, match="no condition named 'nope'"):
        d.condition("nope")
