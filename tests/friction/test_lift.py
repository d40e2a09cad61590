"""``lift`` returns structured values: a block component's name -> a number, or for an indexed
component a mapping index -> number, never names such as ``"beta[2]"`` to parse back."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pytest
from pyomo.core.base.indexed_component import IndexedComponent

import contactmodel as cm
from contactmodel import catalogue

CASE = catalogue.get("box_push_static")


@pytest.mark.parametrize("law", CASE.laws(), ids=repr)
def test_lift_names_components_and_indices(law) -> None:
    problem = cm.formulate(CASE.build(), friction=law)
    asm = problem.assembly
    problem.load_forces(CASE.forces)
    c = problem.force_vector()
    a = asm.contact_accelerations(c)
    for name in problem.contact_names:
        rows = list(asm.contact_rows[name].values())
        values = law.lift(problem.contexts[name], c[rows], a[rows])
        blk = problem.block(name)
        for key, value in values.items():
            assert "[" not in key
            comp = blk.component(key)
            assert comp is not None, key
            if isinstance(value, Mapping):
                assert isinstance(comp, IndexedComponent) and comp.is_indexed()
                assert set(value) <= set(comp.index_set())
                for index, v in value.items():
                    assert comp[index].value == pytest.approx(v)
            else:
                assert np.isscalar(value) and comp.value == pytest.approx(value)


def test_polygon_lift_by_hand() -> None:
    """A friction (0.1, 0.1) on the 4-gon with directions +t, +o, -t, -o is 0.1 d_0 + 0.1 d_1."""
    problem = cm.formulate(CASE.build(), friction=cm.Polygonal(0.5, k=4))
    name = problem.contact_names[0]
    values = problem.laws[name].lift(problem.contexts[name], np.array([1.0, 0.1, 0.1, 0.0]), np.zeros(4))
    np.testing.assert_allclose([values["beta"][i] for i in range(4)], [0.1, 0.1, 0.0, 0.0], atol=1e-15)
    assert values["c_n"] == 1.0 and values["lam"] == 0.0
