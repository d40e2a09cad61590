"""Components declared by copying a prototype (``contactmodel._pyomo.add_*``, STAMPED on) are the
components Pyomo's own declarations make (STAMPED off): the same class, attributes, entries and
place in their block, and whole formulated models print and compile the same."""

from __future__ import annotations

import io

import pytest
from mcp_checks import assert_same_mcp

import contactmodel as cm
from contactmodel import _pyomo, catalogue
from contactmodel._pyomo import complements, pe
from contactmodel.mcp.soc_block import SOCComplementarity

#: attributes that name the component's own parent, entries or initializer (compared separately)
_OWN = {"_parent", "_data", "_rule", "_index_set", "_anonymous_sets", "_decl", "_decl_order", "_ctypes"}
_SLOTS = ("_value", "_lb", "_ub", "_domain", "_fixed", "_args_", "_active", "_index")


@pytest.fixture(params=[False, True], ids=["pyomo", "stamped"])
def stamped(request, monkeypatch):
    monkeypatch.setattr(_pyomo, "STAMPED", request.param)
    return request.param


def _declare_all(model: pe.ConcreteModel) -> None:
    """One component of every kind the helpers declare, on two blocks."""
    model.axes = pe.Set(initialize=("t", "o"), ordered=True)
    model.blk = pe.Block(["a", "b"])
    _pyomo.add_param_vector(model, "b", [1.0, -2.5, 3])
    for blk in model.blk.values():
        x = _pyomo.add_var(blk, "x", nonneg=True)
        y = _pyomo.add_var(blk, "y")
        s = _pyomo.add_var(blk, "s", model.axes, nonneg=True)
        _pyomo.add_var(blk, "f", model.axes)
        _pyomo.add_expression(blk, "e", 2 * x - model.b[1])
        _pyomo.add_expression(blk, "ie", {"t": x + 1, "o": 3.0}, model.axes)
        _pyomo.add_param(blk, "mu", 0.5)
        pairs = {"t": complements(x >= 0, y + s["o"] >= 0), "o": complements(s["t"] - y == 0, y)}
        _pyomo.add_complementarity(blk, "pairs", model.axes, pairs)
        _pyomo.add_block(blk, "cone", SOCComplementarity).set(
            {ax: y for ax in "nto"}, {ax: 2 * y for ax in "nto"}, 0.3
        )


def _build(monkeypatch, stamped: bool, make):
    monkeypatch.setattr(_pyomo, "STAMPED", stamped)
    model = make()
    out = io.StringIO()
    model.pprint(ostream=out)
    return model, out.getvalue()


def _plain_model() -> pe.ConcreteModel:
    model = pe.ConcreteModel(name="m")
    _declare_all(model)
    return model


def _slots(obj) -> dict:
    return {s: getattr(obj, s) for s in _SLOTS if hasattr(obj, s)}


def _state(obj) -> dict:
    slots = [s for k in type(obj).__mro__ for s in getattr(k, "__slots__", ()) if s != "__weakref__"]
    return {**getattr(obj, "__dict__", {}), **{s: getattr(obj, s) for s in slots if hasattr(obj, s)}}


def _same_value(a, b, depth: int = 0) -> bool:
    """Equal, or (objects without an equality of their own, e.g. Pyomo's initializers) of one class
    with equal attributes."""
    if a is b:
        return True
    try:
        if (a == b) is True:  # a Pyomo expression's == builds an expression instead
            return True
    except Exception:
        pass
    if type(a) is not type(b) or depth > 3:
        return False
    sa, sb = _state(a), _state(b)
    return sa.keys() == sb.keys() and all(_same_value(sa[k], sb[k], depth + 1) for k in sa)


def _same_component(ours, theirs) -> None:
    assert type(ours) is type(theirs)
    assert set(vars(ours)) == set(vars(theirs))
    for key in set(vars(ours)) - _OWN:
        if isinstance(vars(theirs)[key], pe.Component):  # a block's child: compared on its own
            continue
        assert _same_value(vars(ours)[key], vars(theirs)[key]), key
    assert ours.name == theirs.name
    assert (ours._anonymous_sets is None) == (theirs._anonymous_sets is None)
    assert [str(i) for i in ours.index_set()] == [str(i) for i in theirs.index_set()]
    assert list(ours.keys()) == list(theirs.keys())
    for k in ours.keys():
        a, b = ours[k], theirs[k]
        assert type(a) is type(b)
        assert a.parent_component() is ours and a.index() == k and a.name == b.name
        sa, sb = _slots(a), _slots(b)
        assert sa.keys() == sb.keys()
        for key in sa:
            if key == "_args_":
                assert [str(e) for e in sa[key]] == [str(e) for e in sb[key]]
            else:
                assert sa[key] == sb[key], key
        if hasattr(a, "_args"):  # a complementarity entry: a block of its own, empty
            assert [str(e) for e in a._args] == [str(e) for e in b._args]
            assert (a._decl, a._decl_order, a._ctypes) == ({}, [], {})
            assert a.model() is ours.model()
        if hasattr(a, "stale"):
            assert a.stale == b.stale


def test_each_kind_equals_pyomos_own_declaration(monkeypatch) -> None:
    theirs, text_theirs = _build(monkeypatch, False, _plain_model)
    ours, text_ours = _build(monkeypatch, True, _plain_model)
    assert text_ours == text_theirs
    _same_component(ours.b, theirs.b)
    for name in ("a", "b"):
        a, b = ours.blk[name], theirs.blk[name]
        assert a._decl == b._decl
        assert a._ctypes == b._ctypes
        assert [(c.name, nxt) for c, nxt in a._decl_order] == [(c.name, nxt) for c, nxt in b._decl_order]
        for comp_name in b._decl:
            _same_component(a.component(comp_name), b.component(comp_name))
            assert a.component(comp_name).parent_block() is a
        cone_a, cone_b = a.cone, b.cone
        assert cone_a._decl == cone_b._decl and cone_a._ctypes == cone_b._ctypes
        for comp_name in cone_b._decl:
            _same_component(cone_a.component(comp_name), cone_b.component(comp_name))


def test_stamped_components_behave_as_pyomos(monkeypatch) -> None:
    """Values are entries of their own; a deep copy (clone), deletion, fixing and walks work."""
    model, _ = _build(monkeypatch, True, _plain_model)
    a, b = model.blk["a"], model.blk["b"]
    a.s["t"].set_value(2.0)
    a.x.fix(1.5)
    assert (b.s["t"].value, b.x.value, b.x.fixed) == (0.0, 0.0, False)
    assert a.s["t"].lb == 0 and a.y.lb is None
    assert a.x.domain is pe.NonNegativeReals and a.f["o"].domain is pe.Reals
    a.mu.set_value(0.7)
    model.b[1] = 4.0
    assert (b.mu.value, pe.value(a.e)) == (0.5, 2 * 1.5 - 4.0)
    clone = model.clone()
    assert clone.blk["a"].s["t"].value == 2.0 and clone.blk["a"].pairs["t"].model() is clone
    a.del_component("e")
    assert a.component("e") is None and b.component("e") is not None
    names = [c.name for c in model.component_objects(pe.Var, descend_into=True)]
    assert names == [
        "blk[a].x",
        "blk[a].y",
        "blk[a].s",
        "blk[a].f",
        "blk[b].x",
        "blk[b].y",
        "blk[b].s",
        "blk[b].f",
    ]
    with pytest.raises(RuntimeError, match="already defined"):
        _pyomo.add_var(a, "x")
    with pytest.raises(ValueError, match="numeric"):
        _pyomo.add_expression(a, "bad", a.x >= 0)


_CASE = catalogue.get("box_push_static")
_LAWS = [*_CASE.laws(), cm.CoulombCone(_CASE.mu, form="soc"), cm.CoulombCone(_CASE.mu, form="mncp")]
_LAWS.append(cm.CoulombCone(_CASE.mu, form="mncp", slack="norm"))


def _problem_text(problem) -> str:
    out = io.StringIO()
    problem.model.pprint(ostream=out)
    return out.getvalue()


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("law", _LAWS, ids=repr)
def test_formulated_models_equal_pyomos_own(monkeypatch, law, form) -> None:
    """Every law and form, rolling (box_push_static) and sliding (sliding_and_rolling_pair)
    contacts: the same printed model, the same compiled MCP."""
    for system in (_CASE.build(), catalogue.sliding_and_rolling_pair()):
        if law.needs_torsion and not all(c.torsion for c in system.contacts):
            continue
        made = {}
        for stamped in (False, True):
            monkeypatch.setattr(_pyomo, "STAMPED", stamped)
            problem = cm.formulate(system, friction=law, form=form)
            made[stamped] = (problem, _problem_text(problem), problem.compile().mcp)
        (_, text0, mcp0), (_, text1, mcp1) = made[False], made[True]
        assert text1 == text0
        assert_same_mcp(mcp1, mcp0, seed=1)


def test_a_kind_whose_copies_would_share_a_container_is_declared_by_pyomo(monkeypatch) -> None:
    """A prototype with a container among the attributes copies would share (as a Pyomo version's
    new attribute could be) is not copied: the component is Pyomo's own declaration."""
    monkeypatch.setattr(_pyomo, "_PROTOTYPES", {})
    real = pe.Var.__init__

    def with_a_list(self, *args, **kwargs):
        real(self, *args, **kwargs)
        self._new_list = []

    monkeypatch.setattr(pe.Var, "__init__", with_a_list)
    model = pe.ConcreteModel()
    model.blk = pe.Block()
    first = _pyomo.add_var(model.blk, "x")
    second = _pyomo.add_var(model.blk, "y")
    assert _pyomo._PROTOTYPES[("var", True, False)] is False
    assert first._new_list is not second._new_list
    assert first.name == "blk.x" and second.parent_block() is model.blk


def test_a_pyomo_whose_blocks_keep_other_records_gets_its_own_declarations(monkeypatch) -> None:
    """If _attach's records differ from Block.add_component's (here: a Pyomo whose blocks keep one
    more record), copying is off: components are Pyomo's own declarations, the block intact."""
    assert _pyomo._attach_agrees()  # the installed Pyomo
    real = _pyomo._attach

    def attach_without_ctype_chain(blk, name, obj):
        chains = {ctype: list(chain) for ctype, chain in blk._ctypes.items()}
        real(blk, name, obj)
        blk._ctypes.clear()
        blk._ctypes.update(chains)

    monkeypatch.setattr(_pyomo, "_attach", attach_without_ctype_chain)
    monkeypatch.setattr(_pyomo, "_PROTOTYPES", {})
    _pyomo._attach_agrees.cache_clear()
    try:
        assert not _pyomo._attach_agrees()
        model = pe.ConcreteModel()
        x = _pyomo.add_var(model, "x")
        assert _pyomo._PROTOTYPES == {}
        assert list(model.component_objects(pe.Var)) == [x]
    finally:
        _pyomo._attach_agrees.cache_clear()
