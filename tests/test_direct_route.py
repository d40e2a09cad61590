"""A problem made from matrices is compiled from its arrays, without building its Pyomo model
(``contactmodel.mcp.direct``), where every law states its rows (``FrictionLaw.rows``): that
MCP is the one compiling the built model gives (names, order, bounds, pairs, cone blocks, M, q,
the maps back to the model), the model built afterwards is today's, and once built the model is
what ``cm.solve`` reads (edits of it are noticed)."""

from __future__ import annotations

import io

import numpy as np
import pytest

import contactmodel as cm
from contactmodel._pyomo import Complementarity, complements, pe
from contactmodel.analysis.round_laws import NormalRelaxed
from contactmodel.friction.anisotropic import AnisotropicCone
from contactmodel.friction.base import FrictionLaw
from contactmodel.mcp.compile import compile_model
from contactmodel.mcp.direct import DirectMCP
from contactmodel.modes import pairs_of


def _data(nc: int, torsion: bool, seed: int = 3):
    """(A, b) of a dense symmetric positive definite reduced problem, d = 3 or 4 rows a contact."""
    d = 4 if torsion else 3
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((d * nc, d * nc + 2))
    return G @ G.T + 0.1 * np.eye(d * nc), rng.standard_normal(d * nc)


#: every law with the direct route (each law class that overrides rows), as used per contact
LAWS = {
    "cone": lambda: cm.CoulombCone(0.4),
    "cone_soc": lambda: cm.CoulombCone(0.3, form="soc"),
    "cone_mncp": lambda: cm.CoulombCone(0.4, form="mncp"),
    "cone_norm": lambda: cm.CoulombCone(0.4, slack="norm"),
    "frictionless": lambda: cm.Frictionless(),
    "pyramid": lambda: cm.Pyramid(0.45),
    "planar": lambda: cm.Planar(0.35),
    "polygonal": lambda: cm.Polygonal(0.5, 6, offset=0.3),
    "polygonal4": lambda: cm.Polygonal(0.5, 4),  # directions with coefficients 0, 1, -1
    "ellipsoid": lambda: cm.Ellipsoid(0.5, 1.0, 0.7, 0.3, form="mncp"),
    "ellipsoid_opposite": lambda: cm.Ellipsoid(0.4, 1.2, 0.8, 0.2, direction="opposite", form="mncp"),
    "ellipsoid_soc": lambda: cm.Ellipsoid(0.5, 1.0, 0.7, 0.3),
    "ellipsoid_opposite_soc": lambda: cm.Ellipsoid(0.4, 1.2, 0.8, 0.2, direction="opposite"),
    "elliptic_torsion": lambda: cm.EllipticTorsion(0.5, 1.0, 0.6, 0.25),
    "elliptic_torsion_soc": lambda: cm.EllipticTorsion(0.5, 1.0, 0.6, 0.25, form="soc"),
    "anisotropic": lambda: AnisotropicCone(0.3, 0.6, form="mncp"),
    "anisotropic_soc": lambda: AnisotropicCone(0.3, 0.6),
    "polyhedral": lambda: cm.PolyhedralLimitSurface(
        np.array([[1.0, 0.0], [-1.0, 0.5], [0.0, -2.0], [0.3, 1.0]]), 0.5
    ),
    # decide's relaxation (round_laws.linear_rows_relaxation): the cone's generators where rolling
    "normal_relaxed": lambda: NormalRelaxed(cm.CoulombCone(0.4), 6),
}


def test_every_law_with_a_direct_route_is_covered() -> None:
    """A law class of the package that states its own rows must be in LAWS (so this file checks
    it)."""
    own = {
        cls.__name__
        for cls in _subclasses(FrictionLaw)
        if "rows" in vars(cls) and cls.__module__.startswith("contactmodel.")
    }
    assert own <= {type(make()).__name__ for make in LAWS.values()}


def _subclasses(cls) -> set:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def _problems(law: str, torsion: bool, sliding: str, names=None):
    """(lazy problem, eagerly built twin) of 6 contacts with the law, some sliding."""
    nc = 6
    A, b = _data(nc, torsion)
    flags = {"none": [False] * nc, "some": [True, False, False, True, False, True], "all": [True] * nc}[
        sliding
    ]
    make = LAWS[law]
    laws = [make() for _ in range(nc)] if law != "cone" else make()
    kwargs = dict(friction=laws, sliding=flags, torsion=torsion, names=names)
    lazy = cm.formulate_from_matrices(A, b, **kwargs)
    eager = cm.formulate_from_matrices(A, b, **kwargs)
    eager.model  # noqa: B018  (built now: compiled from the model)
    return lazy, eager


#: laws whose rows have terms other than linear and quadratic ones (the norm slack's square root):
#: the MCP made from arrays evaluates them in its own order, equal to the model's to rounding
ROUNDED = {"cone_norm"}


def _equal(x: np.ndarray, y: np.ndarray, exact: bool) -> None:
    if exact:
        assert x.tobytes() == y.tobytes()
    else:
        np.testing.assert_allclose(x, y, rtol=1e-14, atol=1e-15)


def _same(direct, compiled, problem, eager, exact: bool = True) -> None:
    """``direct`` (made from arrays for ``problem``) is ``compiled`` (the model of ``eager``'s)
    bit for bit (``exact``; else its F, J and Hessian to rounding, see :data:`ROUNDED`)."""
    a, b = direct.mcp, compiled.mcp
    assert list(a.names) == list(b.names)
    for f in ("lb", "ub", "x0"):
        x, y = getattr(a, f), getattr(b, f)
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)
    assert (a.q is None) == (b.q is None) and (a.M is None) == (b.M is None)
    if a.q is not None:  # linear rows: the LCP data
        assert a.q.dtype == b.q.dtype and a.q.tobytes() == b.q.tobytes()
        assert (a.M != b.M).nnz == 0 and a.M.dtype == b.M.dtype and a.M.has_canonical_format
        np.testing.assert_array_equal(a.M.indptr, b.M.indptr)
        np.testing.assert_array_equal(a.M.indices, b.M.indices)
        assert a.M.data.tobytes() == b.M.data.tobytes()
        assert a.hess is None and b.hess is None
    assert (a.cones is None) == (b.cones is None)
    if a.cones is not None:
        np.testing.assert_array_equal(a.cones.index, b.cones.index)
        assert a.cones.mu.tobytes() == b.cones.mu.tobytes()
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, a.n)
    _equal(a.F(x), b.F(x), exact)
    _equal(a.J(x).toarray(), b.J(x).toarray(), exact)
    if a.hess is not None:  # quadratic rows (MNCP): the weighted Hessian too
        w = rng.uniform(-1, 1, a.n)
        _equal(a.hess(x, w).toarray(), b.hess(x, w).toarray(), exact)
    # the maps back: force columns, pairs
    assert (problem.T != eager.T).nnz == 0 and problem.T.data.tobytes() == eager.T.data.tobytes()
    found = [(p.contact, p.key, p.index) for p in pairs_of(problem, direct)]
    assert found == [(p.contact, p.key, p.index) for p in pairs_of(eager, compiled)]


@pytest.mark.parametrize("sliding", ["none", "some", "all"])
@pytest.mark.parametrize("torsion", [False, True])
@pytest.mark.parametrize("law", list(LAWS))
def test_the_mcp_made_from_arrays_is_the_built_models(law, torsion, sliding) -> None:
    if torsion and law.startswith("cone") and sliding != "all":
        pytest.skip("a rolling CoulombCone contact takes no torsion row")
    if not torsion and LAWS[law]().needs_torsion:
        pytest.skip("the law needs contacts with a torsion row")
    lazy, eager = _problems(law, torsion, sliding)
    expected = _text(eager)  # before its nonlinear rows are evaluated (which writes its variables)
    direct = lazy.compile()
    assert isinstance(direct, DirectMCP) and not lazy.built
    exact = law not in ROUNDED
    _same(direct, eager.compile(), lazy, eager, exact)
    # the model built afterwards is today's model, and compiles to the same MCP
    assert _text(lazy) == expected
    _same(direct, compile_model(lazy.model), lazy, lazy, exact)
    assert [v.name for v in direct.variables] == [v.name for v in eager.compile().variables]
    assert [v.name for v in lazy.variables] == [v.name for v in eager.variables]


def _scene(torsion: bool, moving: bool):
    """Two boxes (one on the other, on the ground), pushed; ``moving``: the top box slides and spins."""
    s = cm.System(gravity=(0, 0, -9.81))
    low = s.add_body("low", mass=2.0, inertia=cm.inertia.box(2.0, (0.4, 0.4, 0.2)), position=(0, 0, 0.1))
    top = s.add_body(
        "top",
        mass=1.0,
        inertia=cm.inertia.box(1.0, (0.2, 0.2, 0.2)),
        position=(0, 0, 0.3),
        velocity=(0.4, 0.1, 0) if moving else (0, 0, 0),
        angular_velocity=(0, 0, 0.7) if moving else (0, 0, 0),
        wrench=(1.0, 0.4, 0, 0, 0, 0.2),
    )
    for i, (x, y) in enumerate([(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]):
        s.add_contact(low, s.ground, point=(x, y, 0), normal=(0, 0, 1), torsion=torsion, name=f"g{i}")
    for i, (x, y) in enumerate([(0.1, 0.1), (-0.1, -0.1)]):
        s.add_contact(top, low, point=(x, y, 0.2), normal=(0, 0, 1), torsion=torsion, name=f"b{i}")
    return s


@pytest.mark.parametrize("moving", [False, True])
@pytest.mark.parametrize("torsion", [False, True])
@pytest.mark.parametrize("form", ["sparse", "reduced"])
@pytest.mark.parametrize("law", list(LAWS))
def test_systems_in_both_forms_are_compiled_from_arrays(law, form, torsion, moving) -> None:
    """formulate(System) in either form compiles from the arrays, bit for bit the built model's
    MCP, and solves to the same answer."""
    make = LAWS[law]
    if (not torsion and make().needs_torsion) or (torsion and law.startswith("cone") and not moving):
        pytest.skip("the law and the contacts' torsion rows do not go together")
    lazy, eager = (cm.formulate(_scene(torsion, moving), friction=make(), form=form) for _ in range(2))
    eager.model  # noqa: B018  (built now: compiled from the model)
    direct = lazy.compile()
    assert isinstance(direct, DirectMCP) and not lazy.built
    compiled = eager.compile()
    assert not isinstance(compiled, DirectMCP)
    exact = law not in ROUNDED
    _same(direct, compiled, lazy, eager, exact)
    a, b = cm.solve(lazy, solver="newton"), cm.solve(eager, solver="newton")
    assert a.status == b.status and a.iterations == b.iterations
    if exact:
        assert a.x.tobytes() == b.x.tobytes() and a.checks == b.checks and a.residual == b.residual
    else:  # the same Newton path to rounding; four corners leave the friction forces a little free
        assert a.residual < 1e-9 and b.residual < 1e-9
        np.testing.assert_allclose(a.x, b.x, rtol=1e-6, atol=1e-7)
    assert not lazy.built
    if exact:  # both models hold the same answer
        assert _text(lazy) == _text(eager)
    else:  # the model built afterwards has the same rows (its values are the two answers')
        assert list(compile_model(lazy.model).mcp.names) == list(direct.mcp.names)


def _text(problem) -> str:
    out = io.StringIO()
    problem.model.pprint(ostream=out)
    return out.getvalue()


def test_names_of_any_contact_are_pyomos() -> None:
    """Contact names Pyomo quotes in an index are written as Pyomo writes them."""
    names = ["a b", "x[1]", "q'r", "3", "c,d", "c0"]
    lazy, eager = _problems("cone_soc", False, "some", names=names)
    assert list(lazy.compile().mcp.names) == list(eager.compile().mcp.names)


def _solve_pair(make):
    lazy, eager = make()
    return cm.solve(lazy, solver="newton"), cm.solve(eager, solver="newton"), lazy, eager


@pytest.mark.parametrize("sliding", ["none", "some"])
def test_answers_are_the_built_models(sliding) -> None:
    """cm.solve gives the same answer, residuals, checks and modes without the model."""
    a, b, lazy, eager = _solve_pair(lambda: _problems("cone", False, sliding))
    assert not lazy.built
    assert a.status == b.status and a.x.tobytes() == b.x.tobytes()
    assert a.residual == b.residual and a.checks == b.checks
    assert [(c.name, c.mode, c.label, c.force, c.acceleration) for c in a.contacts] == [
        (c.name, c.mode, c.label, c.force, c.acceleration) for c in b.contacts
    ]
    assert "law_residual" in a.checks
    # the point is written into the model when it is built
    values = [v.value for v in lazy.compile().variables]
    assert values == a.x.tolist()


def test_updates_before_and_after_the_build() -> None:
    """update(b=, mu=) on the unbuilt problem are the numbers of the model built afterwards."""
    lazy, eager = _problems("cone_soc", False, "some")
    with pytest.raises(cm.ContactModelError, match="c0"):  # sliding: no cone block
        lazy.update(mu={"c0": 0.35})
    assert not lazy.built
    rng = np.random.default_rng(5)
    b = rng.standard_normal(lazy.assembly.m)
    mu = {"c1": 0.7, "c2": 0.2}
    for p in (lazy, eager):
        p.update(b=b, mu=mu)
    direct = lazy.compile()
    assert not lazy.built
    _same(direct, eager.compile(), lazy, eager)
    a = cm.solve(lazy, solver="newton")
    assert a.x.tobytes() == cm.solve(eager, solver="newton").x.tobytes()
    assert _text(lazy) == _text(eager)


def test_edits_of_the_built_model_are_read() -> None:
    """Reading the model builds it without recompiling: the MCP made from the arrays stays, and
    reads a hand edit of b or of a cone's mu; a pair added (a structural edit) makes cm.solve
    compile the model. The last accepted answer (warm starts) is carried over the build."""
    lazy, _ = _problems("cone_soc", False, "none")
    direct = lazy.compile()
    first = cm.solve(lazy, solver="newton")
    model = lazy.model
    assert lazy.built and lazy.compile() is direct
    np.testing.assert_array_equal(lazy.compile().derived["last_x"], first.x)
    for r in range(0, lazy.assembly.m, 3):  # every contact pressed harder
        model.b[r] = model.b[r].value - 1.0
    again = cm.solve(lazy, solver="newton")
    assert lazy.compile() is direct
    assert lazy.assembly.b[0] == model.b[0].value  # the edit was taken into the assembly
    assert again.ok and not np.array_equal(again.x, first.x)
    np.testing.assert_array_equal(direct.mcp.q, compile_model(model).mcp.q)
    model.contact["c0"].cone.mu = 0.05
    assert lazy.compile().mcp.cones.mu[0] == 0.05 == compile_model(model).mcp.cones.mu[0]
    n = lazy.compile().mcp.n
    model.extra_x = pe.Var()
    model.extra = Complementarity(expr=complements(model.extra_x >= 0, model.extra_x + 1 >= 0))
    assert not isinstance(lazy.compile(), DirectMCP)
    assert lazy.compile().mcp.n == n + 1
    extra = list(lazy.compile().mcp.names).index("extra_x")
    assert cm.solve(lazy, solver="newton").x[extra] == 0.0


@pytest.mark.parametrize("form", ["sparse", "reduced"])
@pytest.mark.parametrize("law", list(LAWS))
def test_a_point_at_given_forces_is_the_built_models(law, form) -> None:
    """``Problem.point_at(c)`` made from the rows (the model not built) is the point the built
    model holds after ``load_forces(c)``: each law's lift and the sparse form's nu_dot, column
    for column."""
    make = LAWS[law]
    torsion = make().needs_torsion
    lazy, eager = (cm.formulate(_scene(torsion, True), friction=make(), form=form) for _ in range(2))
    c = np.random.default_rng(4).uniform(0.0, 2.0, lazy.assembly.m)
    point = lazy.point_at(c)
    assert not lazy.built
    eager.load_forces(c)
    expected = eager.compile().values()
    assert [v.name for v in lazy.compile().variables] == [v.name for v in eager.compile().variables]
    assert point.tobytes() == expected.tobytes()


@pytest.mark.parametrize("built", [False, True], ids=["lazy", "built"])
@pytest.mark.parametrize("law", list(LAWS))
def test_forces_at_a_point_are_interprets_and_leave_the_model_alone(law, built) -> None:
    """``Problem.forces_at(x)`` is ``interpret(x).forces`` bit for bit, at a point not yet
    loaded, and writes nothing: the point last loaded stays the model's."""
    make = LAWS[law]
    problem = cm.formulate(_scene(make().needs_torsion, True), friction=make())
    if built:
        problem.model  # noqa: B018 (builds it)
    n = problem.compile().mcp.n
    x = np.random.default_rng(5).uniform(0.0, 2.0, n)
    before = problem.force_vector()
    forces = problem.forces_at(x)
    np.testing.assert_array_equal(problem.force_vector(), before)
    assert forces.tobytes() == problem.interpret(x).forces.tobytes()
    assert np.any(forces != before)


@pytest.mark.parametrize("form", ["sparse", "reduced"])
@pytest.mark.parametrize("law", ["cone_soc", "pyramid", "cone"])
def test_force_vector_before_the_model_is_built_is_the_built_models(law, form) -> None:
    """Problem.force_vector reads the point last loaded without building the model (a time step
    asks for it every step), and gives the forces the built model's variables give."""
    problem = cm.formulate(_scene(False, True), friction=LAWS[law](), form=form)
    assert cm.solve(problem, solver="newton").ok
    lazy = problem.force_vector()
    assert not problem.built
    problem.model  # noqa: B018  (built now: the variables take the point loaded)
    np.testing.assert_array_equal(lazy, problem.force_vector())
    assert np.abs(lazy).max() > 0.0


@pytest.mark.parametrize("sliding", ["none", "some"])
def test_cone_blocks_among_other_laws_are_the_built_models(sliding) -> None:
    """Cone blocks after the pairs of other laws (linear, quadratic and norm rows) in one problem:
    the cone rows, made apart from the pairs' rows, land where the built model puts them."""
    nc = 6
    A, b = _data(nc, False, seed=5)
    flags = {"none": [False] * nc, "some": [True, False, False, True, False, True]}[sliding]
    kinds = ["cone_soc", "pyramid", "cone_soc", "cone_mncp", "cone_norm", "cone_soc"]
    kwargs = dict(friction=[LAWS[k]() for k in kinds], sliding=flags)
    lazy = cm.formulate_from_matrices(A, b, **kwargs)
    eager = cm.formulate_from_matrices(A, b, **kwargs)
    eager.model  # noqa: B018  (built now: compiled from the model)
    direct = lazy.compile()
    assert isinstance(direct, DirectMCP) and direct.mcp.cones is not None
    _same(direct, eager.compile(), lazy, eager, exact=False)


def test_the_identity_coefficients_are_the_general_constructions() -> None:
    """The acceleration coefficients of rows that each read their own row (every contact rolling
    in the SOC form) are made directly; the same matrix, index type and flags as the general
    construction of ``mcp.direct``."""
    from contactmodel.mcp.direct import _csr, _identity_csr

    lazy, eager = _problems("cone_soc", False, "none")
    direct = lazy.compile()
    assert direct.identity_rows == (18, 18)
    slow = _csr(np.arange(18), np.arange(18), np.ones(18), (18, 18))
    assert (direct.rows_b != slow).nnz == 0 and direct.rows_b.indices.dtype == slow.indices.dtype
    assert direct.mcp.q.tobytes() == eager.compile().mcp.q.tobytes()
    for n, m in [(0, 0), (3, 3), (12, 12), (6, 9)]:
        fast = _identity_csr(n, m)
        rows = np.arange(n, dtype=np.int64)
        slow = _csr(rows, rows.copy(), np.ones(n), (n, m))
        assert fast.shape == slow.shape and fast.indices.dtype == slow.indices.dtype
        assert fast.indptr.dtype == slow.indptr.dtype and fast.has_canonical_format
        for f in ("data", "indices", "indptr"):
            assert getattr(fast, f).tobytes() == getattr(slow, f).tobytes()
