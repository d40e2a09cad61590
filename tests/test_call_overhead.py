"""The dispatcher's shortcuts around the solver give the numbers the long way gives: contact modes
grouped by signature and packed pair states against each contact decided alone; kept residual plans
and structure records against fresh ones, and dropped when what they were made from changes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.constants import TOL
from contactmodel.layout import layout_of
from contactmodel.modes import (
    _ROLL,
    _ROLL_GRAZING,
    _SEPARATE,
    _slide,
    _sliding_mode,
    _verdict,
    decide_modes,
    pairs_of,
)

#: (wrench, velocity) of each box: pushed below the friction limit (rolls), pushed past it (slips
#: from rest), sliding, pulled off the ground (separates), resting
BOXES = [
    ((1.0, 0.5, 0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
    ((20.0, 5.0, 0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
    ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), (1.0, -0.5, 0.0)),
    ((0.0, 0.0, 30.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
    ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
]
LAWS = [
    cm.Pyramid(0.5),
    cm.CoulombCone(0.5, form="soc"),
    cm.CoulombCone(0.5),
    cm.Polygonal(0.5, 8),
    cm.Planar(0.5),
]


def _boxes(copies: int = 1) -> cm.System:
    """``copies`` rows of the boxes of BOXES, 1 kg, side 0.2 m, each on its four corners."""
    s = cm.System(gravity=(0, 0, -9.81))
    for i, (wrench, velocity) in enumerate(BOXES * copies):
        box = s.add_body(
            f"box{i}",
            mass=1.0,
            inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
            position=(0.5 * i, 0, 0.1),
            velocity=velocity,
            wrench=wrench,
        )
        for k, (x, y) in enumerate([(0.1, 0.1), (-0.1, 0.1), (-0.1, -0.1), (0.1, -0.1)]):
            s.add_contact(box, s.ground, point=(0.5 * i + x, y, 0), normal=(0, 0, 1), name=f"c{i}_{k}")
    return s


def _one_by_one(problem: cm.Problem, x: np.ndarray, tol: float) -> list[tuple]:
    """Each contact's (name, mode, label, degenerate, direction, decided_by), decided from its own
    rows and pairs alone, with plain comparisons."""
    compiled = problem.compile()
    mcp = compiled.mcp
    F = mcp.F(x)
    point = problem.interpret(x, compiled)
    c, a = point.forces, point.accelerations
    pairs = pairs_of(problem, compiled)
    out = []
    for name in problem.contact_names:
        rows = problem.assembly.indices(name)
        eps = tol * max(1.0, float(np.max(np.maximum(np.abs(c[rows]), np.abs(a[rows])))))
        keys, states = [], []
        for p in (p for p in pairs if p.contact == name):
            v, f = x[p.index] - mcp.lb[p.index], F[p.index]
            if np.isinf(mcp.lb[p.index]) and np.isinf(mcp.ub[p.index]):
                state = "equation" if abs(f) <= eps else "violated"
            elif abs(v) <= eps and abs(f) <= eps:
                state = "both=0"
            elif abs(v) <= eps and f > eps:
                state = "expr>0"
            elif v > eps and abs(f) <= eps:
                state = "var>0"
            else:
                state = "violated"
            keys.append(p.key)
            states.append(state)
        fset = problem.laws[name].friction_set()
        sliding = name in problem.assembly.sliding
        grazing = c[rows[0]] <= eps
        at = [a[rows[i]] for i in fset.tangential]
        if grazing and a[rows[0]] > eps:
            physical = _SEPARATE
        elif sliding:
            physical = _sliding_mode(problem.assembly.v[rows], grazing)
        elif math.hypot(*at) > eps:
            physical = _slide(fset, np.array(at), grazing, eps)
        else:
            physical = _ROLL_GRAZING if grazing else _ROLL
        kind, label, degenerate, direction = physical[:4]
        verdict = _verdict(kind, label, fset, sliding, fset.lcp, tuple(keys), tuple(states))
        out.append((name, kind, label, degenerate or verdict.degenerate, direction, list(verdict.decided_by)))
    return out


def _results(sol: cm.Solution) -> list[tuple]:
    return [(r.name, r.mode, r.label, r.degenerate, r.direction, r.decided_by) for r in sol.contacts]


@pytest.mark.parametrize("law", [*LAWS, "mixed"], ids=repr)
def test_grouped_modes_equal_each_contact_decided_alone(law) -> None:
    friction = law
    if law == "mixed":  # every law among the contacts, in turn
        names = [c.name for c in _boxes(2).contacts]
        friction = {name: LAWS[k % len(LAWS)] for k, name in enumerate(names)}
    problem = cm.formulate(_boxes(2), friction=friction)
    sol = cm.solve(problem)
    assert sol.ok
    tol = 10 * max(TOL, sol.residual, 1e-12)  # the dispatcher's mode tolerance
    expected = _one_by_one(problem, sol.x, tol)
    assert _results(sol) == expected
    assert {r[1] for r in expected} >= {"roll", "slide", "separate"}
    point = problem.interpret(sol.x)
    for r, rows in zip(sol.contacts, layout_of(problem).rows):  # forces and accelerations by row
        assert r.force == point.forces[rows].tolist()
        assert r.acceleration == point.accelerations[rows].tolist()


def test_contacts_with_too_many_pairs_to_pack_are_grouped_by_their_codes() -> None:
    """A 24-sided polygon has 26 pairs a contact, more than 62 bits hold at 3 a pair: the
    contacts are grouped by their states as tuples, with the same results."""
    problem = cm.formulate(_boxes(), friction=cm.Polygonal(0.5, 24))
    sol = cm.solve(problem)
    assert sol.ok
    forces = problem.interpret(sol.x).forces
    assert 3 * decide_modes(problem, sol.x, 1e-7, problem.compile(), forces).pairs.widest > 62
    assert _results(sol) == _one_by_one(problem, sol.x, 10 * max(TOL, sol.residual, 1e-12))


def test_kept_mode_signatures_follow_a_recompilation_and_new_laws() -> None:
    """The signatures kept with the layout are made again for a new compilation (new pair
    arrays) and for new laws (a new layout): after update(mu=...) the box pushed at 1 N slides,
    as on a problem formulated with that mu."""
    problem = cm.formulate(_boxes(), friction=cm.CoulombCone(0.5, form="soc"))
    cm.solve(problem)
    kept = layout_of(problem).mode_signatures
    problem.compile(refresh=True)
    cm.solve(problem)
    assert layout_of(problem).mode_signatures[0] is not kept[0]
    low = {name: 0.05 for name in problem.contact_names if not name.startswith("c2_")}  # box 2 slides
    problem.update(mu=low)
    sol = cm.solve(problem)
    laws = {name: cm.CoulombCone(low.get(name, 0.5), form="soc") for name in problem.contact_names}
    fresh = cm.solve(cm.formulate(_boxes(), friction=laws))
    assert [r.mode for r in sol.contacts] == [r.mode for r in fresh.contacts]
    assert sol.contacts[0].mode == "slide"


@pytest.mark.parametrize("law", [cm.CoulombCone(0.4, form="soc"), cm.CoulombCone(0.4)], ids=repr)
def test_cone_residuals_with_a_kept_plan_equal_those_planned_anew(law) -> None:
    problem = cm.formulate(_boxes(), friction=law)
    rng = np.random.default_rng(5)
    contexts = [problem.contexts[name] for name in problem.contact_names]
    plan = law.residual_plan(contexts)
    assert 0 < plan.rolled < len(contexts)  # rolling and sliding contacts
    for _ in range(3):
        f, a = rng.normal(size=(len(contexts), 3)), rng.normal(size=(len(contexts), 3))
        each = [law.law_residual(ctx, fj, aj) for ctx, fj, aj in zip(contexts, f, a)]
        assert law.law_residuals(contexts, f, a, plan).tolist() == law.law_residuals(contexts, f, a).tolist()
        np.testing.assert_allclose(law.law_residuals(contexts, f, a, plan), each, rtol=1e-12, atol=1e-15)


def test_motion_per_body_and_without_prescribed_coordinates() -> None:
    """Body results are the slices of nu_dot; without prescribed coordinates the efforts are the
    zeros the masked residual gives."""
    asm = cm.assemble(_boxes())
    c = np.random.default_rng(2).normal(size=asm.m)
    motion = asm.motion(c)
    for i, body in enumerate(motion.bodies):
        assert body.linear_acceleration == motion.nu_dot[6 * i : 6 * i + 3].tolist()
        assert body.angular_acceleration == motion.nu_dot[6 * i + 3 : 6 * i + 6].tolist()
    assert not asm.prescribed.any()
    residual = asm.M @ motion.nu_dot - asm.G.T @ c - asm.f
    assert motion.efforts.tolist() == np.where(asm.prescribed, residual, 0.0).tolist()


def test_edits_of_unindexed_cone_blocks_are_noticed_without_their_entry_counts() -> None:
    """The structure record holds the walk's blocks and entries (in another order) and leaves out
    unindexed components' entry counts (always one); it still notices a cone block deactivated
    (its three rows go) and a component added inside one."""
    from contactmodel._pyomo import Complementarity, complements, pe
    from contactmodel.mcp.compile import _walk

    problem = cm.formulate(_boxes(), friction=cm.CoulombCone(0.5, form="soc"))
    compiled = problem.compile()
    walk, kept = _walk(problem.model), compiled.structure  # kept in address order
    assert sorted(map(id, kept.blocks)) == sorted(map(id, walk.blocks))
    assert sorted(map(id, kept.entries)) == sorted(map(id, walk.entries))
    indexed = [comp for comp in walk.components if comp.is_indexed()]
    assert sorted(map(id, kept.components)) == sorted(map(id, indexed)) and indexed
    n = compiled.mcp.n
    cone = problem.block("c0_0").cone
    cone.deactivate()
    for ax in "nto":  # its forces leave the MCP with its rows
        cone.force[ax].expr.fix(0.0)
    assert problem.compile().mcp.n == n - 3
    cone.activate()
    for ax in "nto":
        cone.force[ax].expr.unfix()
    assert problem.compile().mcp.n == n
    cone.p = pe.Var(domain=pe.NonNegativeReals)
    cone.p_pair = Complementarity(expr=complements(cone.p >= 0, cone.p - 1.0 >= 0))
    assert problem.compile().mcp.n == n + 1


@pytest.mark.parametrize("law", [cm.Pyramid(0.5), cm.CoulombCone(0.5, form="soc"), cm.CoulombCone(0.5)])
def test_options_without_a_start_run_as_given_and_answer_as_a_copy_would(law) -> None:
    """The dispatcher hands the solver its options as made when none holds a start (nothing to
    scale): the raw answer is bit for bit the long way's (a checked copy of the options)."""
    import dataclasses
    import importlib

    from contactmodel import solvers
    from contactmodel.mcp.scale import normalized, normalizer

    dispatcher = importlib.import_module("contactmodel.solve")
    problem = cm.formulate(_boxes(), friction=law)
    solution = cm.solve(problem, fallback=False)
    mcp = dispatcher._compile(dispatcher.statement("newton").apply(problem))[1]
    opts = solvers.make_options("newton", {})
    scale = dispatcher.residual_scale(mcp)
    p = normalizer(mcp, scale)
    assert p != 1.0  # the case the shortcut skips a copy in
    module, _ = solvers.load("newton")
    long_way = module.solve(normalized(mcp, p), dataclasses.replace(opts))
    short, _ = dispatcher._run("newton", module, mcp, opts, 1, scale)
    assert short.outcome is long_way.outcome and short.iterations == long_way.iterations
    assert np.array_equal(short.x, np.asarray(long_way.x) * p)
    assert np.array_equal(solution.x, short.x)


def test_a_start_among_the_options_is_still_scaled_with_the_problem() -> None:
    """fip's start ``z0`` is divided by the scale the MCP is divided by (the copy is still made)."""
    import importlib

    from contactmodel import solvers
    from contactmodel.mcp.scale import normalizer
    from contactmodel.solvers.base import Outcome, SolverResult

    dispatcher = importlib.import_module("contactmodel.solve")
    M = np.array([[2.0, 1.0], [1.0, 2.0]]) * 1e3
    q = np.array([-1.0, -1.0]) * 1e3
    mcp = cm.LCP(M, q)
    scale = dispatcher.residual_scale(mcp)
    p = normalizer(mcp, scale)
    assert p != 1.0
    opts = solvers.make_options("fip", {"z0": [1.0, 1.0]})
    seen = {}

    class Spy:  # a solver module that records the start it is given
        @staticmethod
        def solve(_mcp, options):
            seen["z0"] = options.z0
            return SolverResult(None, Outcome.FAILED)

    dispatcher._run("fip", Spy, mcp, opts, None, scale)
    assert np.array_equal(seen["z0"], np.array([1.0, 1.0]) / p)
    assert np.array_equal(opts.z0, [1.0, 1.0])  # the options made are left as they were


def test_preset_files_are_found_with_one_stat_as_isfile_finds_them(tmp_path, monkeypatch) -> None:
    """The preset files the options are made from are those ``os.path.isfile`` finds (a folder of
    the name is not one), in order, and a new user file is noticed on the next call."""
    import os

    from contactmodel import solvers

    monkeypatch.setenv(solvers.USER_CONFIG_ENV, str(tmp_path))
    (tmp_path / "newton.toml").mkdir()  # a directory, not a preset file
    shipped = [str(solvers.CONFIG_DIR / "newton.toml")]
    assert [str(f) for f in solvers.preset_files("newton")] == [f for f in shipped if os.path.isfile(f)]
    tol = solvers.make_options("newton", {}).tol
    (tmp_path / "newton.toml").rmdir()
    (tmp_path / "newton.toml").write_text(f"tol = {tol / 10!r}\n")
    assert [str(f) for f in solvers.preset_files("newton")][-1] == str(tmp_path / "newton.toml")
    assert solvers.make_options("newton", {}).tol == tol / 10
    monkeypatch.delenv(solvers.USER_CONFIG_ENV)
    assert solvers.make_options("newton", {}).tol == tol


def test_csr_times_is_the_sparse_product_bit_for_bit() -> None:
    """SciPy's kernel called directly gives ``A @ x`` exactly; other inputs go through ``@``."""
    import scipy.sparse as sp

    from contactmodel.sparse_product import csr_times

    rng = np.random.default_rng(7)
    for m, n, density in [(12, 6, 0.5), (40, 40, 0.1), (0, 3, 0.5), (5, 0, 0.5), (7, 9, 0.0)]:
        A = sp.random(m, n, density=density, format="csr", random_state=rng) * 1e3
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        assert np.array_equal(csr_times(A, x), A @ x)
        assert np.array_equal(csr_times(A, x[::-1].copy()[::-1]), A @ x)  # a strided vector
        assert np.array_equal(csr_times(A.tocsc(), x), A.tocsc() @ x)
        assert np.array_equal(csr_times(A, list(x)), A @ x)
        X = rng.standard_normal((n, 2))
        assert np.array_equal(csr_times(A, X), A @ X)
    with pytest.raises(ValueError):
        csr_times(sp.csr_matrix(np.eye(3)), np.ones(2))


def test_csr_transpose_times_is_the_transposed_product_bit_for_bit() -> None:
    """``A.T @ x`` from A's own arrays (no transpose made) gives the operator's numbers exactly."""
    import scipy.sparse as sp

    from contactmodel.sparse_product import csr_transpose_times

    rng = np.random.default_rng(8)
    for m, n, density in [(12, 6, 0.5), (40, 40, 0.1), (0, 3, 0.5), (5, 0, 0.5), (7, 9, 0.0)]:
        A = sp.random(m, n, density=density, format="csr", random_state=rng) * 1e3
        x = rng.standard_normal(m) * 10.0 ** rng.integers(-8, 8, m)
        assert np.array_equal(csr_transpose_times(A, x), A.T @ x)
        assert np.array_equal(csr_transpose_times(A, x[::-1].copy()[::-1]), A.T @ x)
        assert np.array_equal(csr_transpose_times(A.tocsc(), x), A.tocsc().T @ x)
        assert np.array_equal(csr_transpose_times(A, list(x)), A.T @ x)
    with pytest.raises(ValueError):
        csr_transpose_times(sp.csr_matrix(np.ones((3, 2))), np.ones(2))


def test_a_matrix_with_a_templates_pattern_is_the_constructors_and_cannot_change_it() -> None:
    import scipy.sparse as sp

    from contactmodel.sparse_product import pattern_of, with_data

    rng = np.random.default_rng(8)
    for m, n in [(1, 1), (5, 7), (12, 6)]:
        dense = rng.normal(size=(m, n)) * (rng.random((m, n)) < 0.5)
        template = pattern_of(sp.csr_matrix(dense))
        data = rng.normal(size=template.nnz)
        made = with_data(template, data)
        built = sp.csr_matrix((data, template.indices, template.indptr), shape=(m, n))
        assert made.shape == built.shape and made.data is data
        for name in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(made, name), getattr(built, name)), name
        assert np.array_equal(made.toarray(), built.toarray())
        assert not np.any(template.data != sp.csr_matrix(dense).data)  # the template unchanged
        made.data[:] = 0.0
        with pytest.raises(ValueError):  # a pattern shared by every copy cannot be edited in place
            made.eliminate_zeros()


@pytest.mark.parametrize("law", LAWS)
def test_interpretation_equals_the_sparse_products_bit_for_bit(law) -> None:
    """The forces, accelerations and motion of an answer are those of the plain ``@`` products."""
    problem = cm.formulate(_boxes(), friction=law)
    solution = cm.solve(problem)
    compiled = problem.compile()
    point = problem.interpret(solution.x, compiled)
    asm = problem.assembly
    c = problem.T @ solution.x[compiled.derived["force_columns"]]
    nu_dot = asm.M_free_inverse @ (asm.f + asm.G.T @ c)
    assert np.array_equal(point.forces, c)
    assert np.array_equal(point.motion.nu_dot, nu_dot)
    assert np.array_equal(point.accelerations, asm.G @ nu_dot + asm.gdot_nu)
    assert np.array_equal(asm.contact_accelerations(c), asm.G @ nu_dot + asm.gdot_nu)


@pytest.mark.parametrize("law", LAWS)
def test_groups_numbered_in_a_dict_give_each_contact_the_verdict_np_unique_gives(law, monkeypatch) -> None:
    """A few contacts are grouped by first appearance, many with ``np.unique``: each contact's
    physical mode and verdict are the same either way."""
    from contactmodel import modes

    problem = cm.formulate(_boxes(2), friction=law)
    solution = cm.solve(problem)
    compiled = problem.compile()
    point = problem.interpret(solution.x, compiled)
    args = (problem, solution.x, 1e-7, compiled, point.forces, point.accelerations)
    few = decide_modes(*args)
    monkeypatch.setattr(modes, "_FEW_CONTACTS", 0)
    many = decide_modes(*args)
    assert few.physical == many.physical
    assert few.verdicts == many.verdicts
    assert np.array_equal(few.codes, many.codes)
    assert len(set(map(id, few.verdicts))) > 1  # the boxes make more than one group


def _fields(sol: cm.Solution) -> tuple:
    """Every field of a Solution the shortcuts could change (timings aside)."""
    checks = sorted(sol.checks.items())
    results = (sol.contacts, sol.bodies, sol.joints)
    return (sol.status, sol.residual, sol.iterations, sol.x.tobytes(), checks, *results)


def _long_way(monkeypatch) -> None:
    """Every shortcut of the dispatcher's path off: the sparse products through ``@``, the modes'
    groups numbered by ``np.unique``, the options copied with their start scaled."""
    import dataclasses
    import importlib

    from contactmodel import modes, sparse_product

    dispatcher = importlib.import_module("contactmodel.solve")
    monkeypatch.setattr(sparse_product, "_csr_matvec", None)
    monkeypatch.setattr(modes, "_FEW_CONTACTS", 0)
    run = dispatcher._run

    def copied(solver, module, mcp, opts, *args):
        return run(solver, module, mcp, dataclasses.replace(opts), *args)

    monkeypatch.setattr(dispatcher, "_run", copied)


def _catalogue_and_random_problems() -> list:
    from contactmodel import catalogue

    problems = []
    for name in catalogue.CASES:
        case = catalogue.get(name)
        for law in case.laws()[:4]:
            problems.append(cm.formulate(case.build(), friction=law))
    rng = np.random.default_rng(3)
    for law in LAWS:
        s = _boxes()
        for body in s.bodies:
            body.wrench = tuple(rng.normal(0.0, 5.0, 6))
        problems.append(cm.formulate(s, friction=law))
    return problems


def test_solutions_equal_the_long_ways_bit_for_bit(monkeypatch) -> None:
    """Status, residuals, checks, contact modes, labels, forces and body results of the catalogue
    problems and random pushes of the boxes, with every shortcut and without."""
    short = [_fields(cm.solve(p)) for p in _catalogue_and_random_problems()]
    _long_way(monkeypatch)
    long = [_fields(cm.solve(p)) for p in _catalogue_and_random_problems()]
    assert short == long
    assert all(s[0] is cm.Status.SOLVED for s in short)
    assert {c.mode for s in short for c in s[5]} >= {"roll", "slide", "separate"}  # every kind of mode
