"""The compiler's one-pass walk (``mcp.compile._walk``) finds what Pyomo's own walks find, in the
same order: every block and every Block / Complementarity / Constraint component with its entries
(active or not), and the active candidate rows under active blocks."""

from __future__ import annotations

import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel._pyomo import Complementarity, complements, pe
from contactmodel.mcp.compile import Structure, _walk

_KINDS = (Complementarity, pe.Constraint, pe.Block)


def _pyomo_walk(model) -> tuple[list, list, list, list]:
    blocks = list(model.block_data_objects(active=None, descend_into=True))
    components = list(model.component_objects(Structure._CTYPES, active=None, descend_into=True))
    entries = [d for comp in components for d in comp.values()]
    rows = list(model.component_data_objects(_KINDS, active=True, descend_into=True))
    return blocks, components, entries, rows


def _same_walk(model) -> None:
    walk = _walk(model)
    blocks, components, entries, rows = _pyomo_walk(model)
    assert list(map(id, walk.blocks)) == list(map(id, blocks))
    assert list(map(id, walk.components)) == list(map(id, components))
    assert list(map(id, walk.entries)) == list(map(id, entries))
    assert list(map(id, walk.rows)) == list(map(id, rows))


_CASE = catalogue.get("box_push_static")
_LAWS = [cm.Pyramid(_CASE.mu), cm.CoulombCone(_CASE.mu, form="soc"), cm.CoulombCone(_CASE.mu, form="mncp")]
_LAWS += [cm.Polygonal(_CASE.mu, k=6), cm.Ellipsoid(_CASE.mu, 1.0, 1.0, 0.5)]


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("law", _LAWS, ids=repr)
def test_walk_of_formulated_models(law, form) -> None:
    for system in (_CASE.build(), catalogue.sliding_and_rolling_pair()):
        if law.needs_torsion and not all(c.torsion for c in system.contacts):
            continue
        _same_walk(cm.formulate(system, friction=law, form=form).model)


def test_walk_of_edited_models() -> None:
    """User blocks nested in contact blocks, model-level pairs and constraints, deactivated
    blocks, components and entries, a deleted component and a Reference to pairs seen twice."""
    problem = cm.formulate(_CASE.build(), friction=cm.CoulombCone(_CASE.mu, form="soc"), form="sparse")
    model = problem.model
    names = problem.contact_names
    _same_walk(model)
    model.extra = pe.Var(initialize=0.0)
    model.user = pe.Block()
    model.user.inner = pe.Block([1, 2])
    model.user.inner[2].z = pe.Var()
    model.user.inner[2].pair = Complementarity(expr=complements(model.user.inner[2].z >= 0, model.extra >= 0))
    model.user.con = pe.Constraint(expr=model.extra == 1)
    model.mine = Complementarity(expr=complements(model.extra == 0, model.user.inner[2].z))
    _same_walk(model)
    model.contact[names[0]].deactivate()
    model.user.inner[1].deactivate()
    model.mine.deactivate()
    _same_walk(model)
    model.newton_euler[0].deactivate()
    model.contact[names[1]].cone.deactivate()
    model.contact[names[0]].activate()
    _same_walk(model)
    model.del_component(model.user)
    model.twice = pe.Reference(model.newton_euler)
    _same_walk(model)
    model.deactivate()
    _same_walk(model)
