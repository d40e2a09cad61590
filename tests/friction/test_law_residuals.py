"""Each law's vectorized law_residuals equals its contact-by-contact law_residual, at rolling and
sliding contacts, with and without torsion; Problem.law_residual is their maximum."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.layout import layout_of

LAWS = [
    cm.Frictionless(),
    cm.Pyramid(0.4),
    cm.CoulombCone(0.4),
    cm.CoulombCone(0.4, form="soc"),
    cm.CoulombCone(0.4, slack="norm"),
    cm.Polygonal(0.4, 5),
    cm.Planar(0.4),
]
TORSION_LAWS = [cm.Ellipsoid(0.4, 1.0, 0.5), cm.EllipticTorsion(0.4, 1.0, 1.0, 0.05)]


def _check(problem: cm.Problem, seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = problem.assembly.m
    for scale in (1e-3, 1.0, 1e3):
        c, a = scale * rng.normal(size=m), scale * rng.normal(size=m)
        c[::3] = np.abs(c[::3])  # most normal forces positive, a few points on the boundary
        each = [
            problem.laws[name].law_residual(problem.contexts[name], c[rows], a[rows])
            for name, rows in ((n, problem.assembly.indices(n)) for n in problem.contact_names)
        ]
        np.testing.assert_allclose(layout_of(problem).law_residuals(c, a), each, rtol=1e-12)
        assert problem.law_residual(c, a) == max(each)


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_vectorized_residuals_match_each_contact_at_sliding_and_rolling_contacts(law) -> None:
    problem = cm.formulate(catalogue.sliding_and_rolling_pair(), friction=law)
    assert set(problem.assembly.sliding) == {"S"} and set(problem.assembly.rolling) == {"R"}
    _check(problem, 1)


@pytest.mark.parametrize("law", LAWS + TORSION_LAWS, ids=repr)
def test_vectorized_residuals_match_each_contact_with_torsion(law) -> None:
    _check(cm.formulate(catalogue.one_contact_box(law)), 2)


def test_contacts_with_different_laws_are_checked_each_by_its_own() -> None:
    case = catalogue.get("two_finger_grip")
    names = case.build().contacts
    laws = {
        c.name: (cm.Pyramid(0.3) if k % 2 else cm.CoulombCone(0.6, form="soc")) for k, c in enumerate(names)
    }
    problem = cm.formulate(case.build(), friction=laws)
    assert len(layout_of(problem).groups) == len(names)
    _check(problem, 3)
