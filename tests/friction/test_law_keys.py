"""Contacts whose laws have equal class and parameters are handled as one group, however many law
objects were declared (a law object per contact, as in the README, checks as fast as one shared law)."""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel.catalogue import pushed_boxes
from contactmodel.layout import layout_of


def _problem(laws):
    system = pushed_boxes(2, push=1.0)
    names = [c.name for c in system.contacts]
    return cm.formulate(system, friction=dict(zip(names, laws(len(names)))))


def test_equal_laws_have_equal_keys_and_different_ones_do_not():
    assert cm.Pyramid(0.5).key == cm.Pyramid(0.5).key
    assert cm.Pyramid(0.5).key != cm.Pyramid(0.4).key
    assert cm.Pyramid(0.5).key != cm.Planar(0.5).key
    assert cm.CoulombCone(0.5).key != cm.CoulombCone(0.5, form="mncp").key
    assert cm.Polygonal(0.5, 6).key != cm.Polygonal(0.5, 8).key
    G = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    one, two = cm.PolyhedralLimitSurface(G, 0.5), cm.PolyhedralLimitSurface(G.copy(), 0.5)
    assert one.key == two.key and hash(one.key) == hash(two.key)
    assert one.key != cm.PolyhedralLimitSurface(2 * G, 0.5).key


def test_one_group_per_key_not_per_object():
    each = _problem(lambda n: [cm.CoulombCone(0.5) for _ in range(n)])
    assert len(layout_of(each).groups) == 1
    mixed = _problem(lambda n: [cm.Pyramid(0.5 if j % 2 else 0.3) for j in range(n)])
    groups = layout_of(mixed).groups
    assert len(groups) == 2
    assert sorted(len(g.contacts) for g in groups) == [4, 4]
    for g in groups:  # every contact of a group has a law of the group's key
        assert {mixed.laws[mixed.contact_names[j]].mu for j in g.contacts} == {g.law.mu}


def test_per_contact_objects_solve_as_one_shared_law():
    shared_law = cm.Pyramid(0.5)
    each = _problem(lambda n: [cm.Pyramid(0.5) for _ in range(n)])
    shared = _problem(lambda n: [shared_law] * n)
    a, b = cm.solve(each), cm.solve(shared)
    assert a.status == b.status == cm.Status.SOLVED
    np.testing.assert_allclose(a.x, b.x, atol=1e-12)
    assert a.checks == b.checks
    assert [(c.mode, c.label) for c in a.contacts] == [(c.mode, c.label) for c in b.contacts]
