"""Each shortcut of the pipeline gives what the long way gives (same model, same MCP, same answer)."""

from __future__ import annotations

import numpy as np
import pytest
from mcp_checks import assert_same_mcp

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.mcp.compile import split_pair
from contactmodel.modes import pairs_of

CASE = catalogue.get("box_push_static")
LAWS = [*CASE.laws(), cm.CoulombCone(CASE.mu, form="soc"), cm.CoulombCone(CASE.mu, form="mncp")]


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_pairs_read_from_the_compilation_match_a_split_of_every_pair(law, form) -> None:
    """The modes take each pair's MCP row from the compiler's record; splitting every pair again
    and looking its variable up (the long way) finds the same rows and variables."""
    problem = cm.formulate(CASE.build(), friction=law, form=form)
    compiled = problem.compile()
    position = {id(v): i for i, v in enumerate(compiled.variables)}
    expected = []
    for name in problem.contact_names:
        comp = problem.block(name).component("pairs")
        for key in comp if comp is not None else []:
            var = split_pair(comp[key])[0]
            expected.append((name, str(key), position[id(var)], id(var)))
    found = [(p.contact, p.key, p.index, id(p.var)) for p in pairs_of(problem, compiled)]
    assert found == expected
    cones = 0 if compiled.mcp.cones is None else compiled.mcp.cones.index.size
    assert sorted(compiled.pair_rows.values()) == list(range(compiled.mcp.n - cones))  # one row each


def test_a_pair_added_after_compiling_is_found_the_long_way() -> None:
    """An entry the compilation did not see (added after it) is split as before."""
    problem = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu))
    compiled = problem.compile()
    name = problem.contact_names[0]
    pairs = problem.block(name).pairs
    key = next(iter(pairs))
    compiled.pair_rows.pop(id(pairs[key]))
    found = {(p.contact, p.key): p.index for p in pairs_of(problem, compiled)}
    var = split_pair(pairs[key])[0]
    assert found[(name, str(key))] == next(i for i, v in enumerate(compiled.variables) if v is var)
    assert np.isfinite(compiled.mcp.lb[found[(name, str(key))]])


@pytest.mark.parametrize("name", ["newton", "lemke", "fip", "ipopt", "path", "scipy", "enumerate"])
def test_options_made_from_a_copy_of_the_defaults_equal_a_construction(name) -> None:
    """make_options copies a made-once default instance and assigns the given values: the result
    equals the options class constructed with them, checks values the same way, and hands out
    containers of its own."""
    from contactmodel import solvers
    from contactmodel.errors import OptionError

    if name not in solvers.REGISTRY or not solvers.get(name).available()[0]:
        pytest.skip(f"solver {name} not available here")
    _, cls = solvers.load(name)
    assert solvers.make_options(name, {}) == cls()
    key = next(k for k, v in vars(cls()).items() if type(v) is float)  # a float option
    assert solvers.make_options(name, {key: 0.125}) == cls(**{key: 0.125})
    with pytest.raises(OptionError, match=key):
        solvers.make_options(name, {key: "tight"})
    first = solvers.make_options(name, {})
    for key, value in vars(first).items():
        if isinstance(value, (dict, list)):
            value.append(1) if isinstance(value, list) else value.update(spoiled=True)
            assert getattr(solvers.make_options(name, {}), key) == getattr(cls(), key)


def test_repeated_options_are_fresh_copies_of_values_checked_once() -> None:
    """make_options keeps the options made from plain overrides: a repeated call hands out an equal
    copy of its own, and a value equal to a kept one but of another type is still checked."""
    from contactmodel import solvers
    from contactmodel.errors import OptionError

    first = solvers.make_options("newton", {"tol": 1e-9, "max_iter": 7})
    again = solvers.make_options("newton", {"max_iter": 7, "tol": 1e-9})
    assert first == again and first is not again
    again.tol = 1e-3
    assert solvers.make_options("newton", {"tol": 1e-9, "max_iter": 7}).tol == 1e-9
    with pytest.raises(OptionError, match="max_iter"):
        solvers.make_options("newton", {"tol": 1e-9, "max_iter": 7.0})


@pytest.mark.parametrize("form", ["reduced", "sparse"])
def test_response_equals_the_accelerations_and_the_motion_apart(form) -> None:
    problem = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu), form=form)
    c = np.random.default_rng(0).uniform(0.0, 2.0, problem.assembly.m)
    a, motion = problem.assembly.response(c)
    np.testing.assert_array_equal(a, problem.assembly.contact_accelerations(c))
    alone = problem.assembly.motion(c)
    np.testing.assert_array_equal(motion.nu_dot, alone.nu_dot)
    np.testing.assert_array_equal(motion.efforts, alone.efforts)
    assert motion.bodies == alone.bodies and motion.joints == alone.joints


def test_a_formulated_model_is_handed_to_the_oldest_generation_and_still_freed(monkeypatch) -> None:
    """After formulate the model's objects sit in the collector's oldest generation (no young pass
    walks them); models built and dropped in a loop are still collected once SETTLE_LIMIT objects
    were settled."""
    import gc
    import weakref

    from contactmodel import memory

    problem = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu))
    model, block = problem.model, problem.block(problem.contact_names[0])  # built when first read
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert id(model) in oldest and id(block) in oldest
    monkeypatch.setattr(memory, "SETTLE_LIMIT", 2000)  # a few small models
    gc.disable()  # only settle's own full collections
    try:
        dropped = []
        for _ in range(8):
            p = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu))
            dropped.append(weakref.ref(p.model))
            del p
        assert any(ref() is None for ref in dropped[:-2])  # cycles freed without gc.enable
    finally:
        gc.enable()


def test_large_contact_results_are_handed_to_the_oldest_generation(monkeypatch) -> None:
    """The contact results of an answer of at least SETTLED_CONTACTS contacts are made with the
    collector paused and settled (frozen, then unfrozen, into the oldest generation), without
    counting toward settle's own full collections; smaller answers are left to the collector."""
    import gc
    import importlib

    from contactmodel import memory

    dispatcher = importlib.import_module("contactmodel.solve")
    problem = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu))
    first = cm.solve(problem)
    freezes = []
    real_freeze = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (freezes.append(1), real_freeze()))
    counted = memory._settled["objects"]
    for least, settled in ((10**9, False), (0, True)):
        monkeypatch.setattr(dispatcher, "SETTLED_CONTACTS", least)
        freezes.clear()
        again = cm.solve(problem)  # compiled already: settling can only come from the results
        assert bool(freezes) is settled
        assert memory._settled["objects"] in (counted, 0)  # not counted (0: a full pass ran)
        assert [(c.name, c.mode, c.force) for c in again.contacts] == [
            (c.name, c.mode, c.force) for c in first.contacts
        ]


def _same_mcp(a, b) -> None:
    assert_same_mcp(a, b, seed=5, high=2.0)


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_rows_recorded_at_formulation_compile_like_rows_read_term_by_term(law, form) -> None:
    """The formulation records its array-built rows for the compiler; without the record (every
    term read from the expressions) the MCP is the same, and so are its constants after an edit."""
    from contactmodel.mcp.compile import LINEAR_ROWS, PAIR_SPLITS, compile_model

    problem = cm.formulate(CASE.build(), friction=law, form=form)
    fast = compile_model(problem.model)  # the accelerations not built yet: read from their matrix
    for name in problem.contact_names:  # built (as an eager build holds them), and recorded
        [e.expr for e in problem.block(name).accel.values()]
    assert problem.model.__dict__[LINEAR_ROWS]
    record = problem.model.__dict__.pop(LINEAR_ROWS)
    splits = problem.model.__dict__.pop(PAIR_SPLITS, {})  # none when every row is a cone block's
    slow = compile_model(problem.model)
    assert [id(v) for v in fast.variables] == [id(v) for v in slow.variables]
    assert fast.pair_rows == slow.pair_rows
    _same_mcp(fast.mcp, slow.mcp)
    param = problem.model.b if form == "reduced" else problem.model.f
    param[0] = param[0].value + 0.75
    fast.update()
    slow.update()
    _same_mcp(fast.mcp, slow.mcp)
    problem.model.__dict__[LINEAR_ROWS] = record
    problem.model.__dict__[PAIR_SPLITS] = splits


def test_a_recorded_pair_changed_or_fixed_after_formulation_is_split_again() -> None:
    """A pair given new arguments is read from them; a pair whose variable was fixed is refused
    as the compiler always did."""
    from contactmodel._pyomo import complements
    from contactmodel.errors import FormulationError

    problem = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu))
    blk = problem.block(problem.contact_names[0])
    blk.pairs["normal"].set_value(complements(blk.c_n >= 0, blk.accel["n"] + 3.0 >= 0))
    compiled = problem.compile(refresh=True)
    row = compiled.pair_rows[id(blk.pairs["normal"])]
    before = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu)).compile().mcp
    assert compiled.mcp.F(np.zeros(compiled.mcp.n))[row] == pytest.approx(
        before.F(np.zeros(before.n))[row] + 3.0
    )
    blk.c_n.fix(0.0)
    with pytest.raises(FormulationError, match="unsupported shape"):
        problem.compile(refresh=True)


def test_a_row_replaced_after_formulation_is_read_from_the_model() -> None:
    """An acceleration expression replaced by hand is not in the record: the new one is read."""
    problem = cm.formulate(CASE.build(), friction=cm.Pyramid(CASE.mu))
    name = problem.contact_names[0]
    before = problem.compile().mcp
    row = next(i for i, v in enumerate(problem.compile().variables) if v is problem.block(name).c_n)
    blk = problem.block(name)
    blk.accel["n"] = blk.accel["n"].expr + 2.0
    after = problem.compile(refresh=True).mcp
    x = np.zeros(after.n)
    assert after.F(x)[row] == pytest.approx(before.F(x)[row] + 2.0)


@pytest.mark.parametrize("form", ["reduced", "sparse"])
def test_residual_scale_read_from_q_equals_F_at_zero(form) -> None:
    from contactmodel.solve import residual_scale

    for law in LAWS:
        mcp = cm.formulate(CASE.build(), friction=law, form=form).compile().mcp
        expected = max(1.0, float(np.max(np.abs(mcp.F(np.zeros(mcp.n))), initial=0.0)))
        assert residual_scale(mcp) == expected


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_law_residuals_with_a_kept_plan_equal_the_contact_by_contact_residual(law) -> None:
    """The layout keeps what each law's residual decides (its plan) for the next points: at
    several points the result is each contact's own law_residual."""
    from contactmodel.layout import layout_of

    problem = cm.formulate(CASE.build(), friction=law)
    layout = layout_of(problem)
    rng = np.random.default_rng(11)
    for _ in range(3):
        c, a = rng.normal(size=problem.assembly.m), rng.normal(size=problem.assembly.m)
        each = [
            law.law_residual(problem.contexts[name], c[rows], a[rows])
            for name, rows in zip(layout.names, layout.rows)
        ]
        np.testing.assert_allclose(layout.law_residuals(c, a), each, rtol=1e-12, atol=1e-15)
    assert all(g.planned for g in layout.groups)
