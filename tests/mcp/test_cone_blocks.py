"""The Coulomb cone block math (contactmodel.mcp.cones) and its place in the MCP."""

import numpy as np
import pyomo.environ as pe
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import contactmodel as cm
from contactmodel.errors import FormulationError
from contactmodel.io.fclib import fc3d_residual, project_cones
from contactmodel.mcp import cones, soc_block
from contactmodel.mcp.compile import compile_model
from contactmodel.mcp.types import MCP, CoulombBlocks, natural_residual

finite = st.floats(-10.0, 10.0, allow_nan=False)
coef = st.floats(0.05, 2.0)


def _in_cone(p, mu, tol=1e-12):
    return np.hypot(p[1], p[2]) <= mu * p[0] + tol * (1.0 + np.abs(p).max())


@settings(max_examples=80, deadline=None)
@given(z=st.tuples(finite, finite, finite), mu=coef, seed=st.integers(0, 2**31 - 1))
def test_projection_is_the_nearest_point_of_the_cone(z, mu, seed):
    z = np.array(z)
    p = cones.project(z[None], np.array([mu]))[0]
    assert _in_cone(p, mu)
    # Moreau: z - p lies in the polar cone {mu |y_T| <= -y_n} and is orthogonal to p
    y = z - p
    assert mu * np.hypot(y[1], y[2]) <= -y[0] + 1e-9 * (1 + np.abs(z).max())
    assert abs(p @ y) <= 1e-9 * (1 + z @ z)
    # brute force: no point of the cone (random, and on a fine grid of its boundary) is closer
    rng = np.random.default_rng(seed)
    s = np.concatenate([rng.exponential(5.0, 4000), np.linspace(0, 20, 400).repeat(50)])
    th = np.concatenate([rng.uniform(0, 2 * np.pi, 4000), np.tile(np.linspace(0, 2 * np.pi, 50), 400)])
    frac = np.concatenate([rng.uniform(0, 1, 4000), np.ones(20000)])
    q = np.stack([s, frac * mu * s * np.cos(th), frac * mu * s * np.sin(th)], axis=1)
    assert np.linalg.norm(z - p) <= np.min(np.linalg.norm(q - z, axis=1)) + 1e-12
    np.testing.assert_allclose(p, project_cones(z, [mu]), atol=1e-12)


def _fd(fun, x, h=1e-7):
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((fun(x + e) - fun(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


def _check_natural_map_jacobian(c, a, mu, rho) -> None:
    """The natural map's Jacobian element (Da, Db) at (c, a) (one block of d rows) against central
    finite differences, at differentiable points only: a_T away from 0, the projected point away
    from the borders between the projection's cases."""
    c, a = np.array(c), np.array(a)
    assume(np.linalg.norm(a[1:]) > 1e-2)
    ah, _ = cones.desaxce(a[None], np.array([mu]))
    z = c - rho * ah[0]
    r = np.linalg.norm(z[1:])
    assume(abs(r - mu * z[0]) > 1e-3 and abs(mu * r + z[0]) > 1e-3 and r > 1e-3)
    R, Da, Db = cones.natural_map(c[None], a[None], np.array([mu]), rho)
    assert R.shape == (1, c.size) and Da.shape == Db.shape == (1, c.size, c.size)

    def by_c(v):
        return cones.natural_map(v[None], a[None], np.array([mu]), rho)[0][0]

    def by_a(v):
        return cones.natural_map(c[None], v[None], np.array([mu]), rho)[0][0]

    np.testing.assert_allclose(Da[0], _fd(by_c, c), atol=1e-5)
    np.testing.assert_allclose(Db[0], _fd(by_a, a), atol=1e-5)
    # rho = 1: the residual the dispatcher checks answers with is the same map
    residual = cones.residual(c[None], a[None], [mu])
    np.testing.assert_array_equal(residual, cones.natural_map(c[None], a[None], [mu])[0])


@settings(max_examples=200, deadline=None)
@given(
    c=st.tuples(finite, finite, finite),
    a=st.tuples(finite, finite, finite),
    mu=coef,
    rho=st.floats(0.1, 10.0),
)
def test_natural_map_jacobian_matches_finite_differences(c, a, mu, rho):
    _check_natural_map_jacobian(c, a, mu, rho)


def test_jacobian_at_the_kinks_is_an_element_of_the_generalized_jacobian():
    mu = np.array([0.5, 0.5, 0.5])
    # rolling (a = 0, c inside): Da = 0, Db = I; separating (c = 0, a_n > 0): Da = I, Db = 0
    c = np.array([[1.0, 0.1, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    a = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    R, Da, Db = cones.natural_map(c, a, mu)
    np.testing.assert_allclose(R, 0.0, atol=1e-15)
    np.testing.assert_allclose(Da[0], 0.0)
    np.testing.assert_allclose(Db[0], np.eye(3))
    np.testing.assert_allclose(Da[1], np.eye(3))
    np.testing.assert_allclose(Db[1], 0.0)
    # the apex c = a = 0: P'(0) = I is chosen (0 lies in K): the rows read a = 0
    np.testing.assert_allclose(Db[2], np.eye(3))
    assert np.all(np.isfinite(Da)) and np.all(np.isfinite(Db))


def _block_mcp(A, b, mu):
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    return MCP(
        F=lambda x: A @ x + b,
        J=lambda x: A,
        lb=np.full(n, -np.inf),
        ub=np.full(n, np.inf),
        cones=CoulombBlocks(np.arange(n).reshape(-1, 3), np.full(n // 3, mu)),
    )


def test_natural_residual_uses_the_fc3d_map_at_cone_blocks():
    rng = np.random.default_rng(3)
    G = rng.normal(size=(6, 6))
    W, q, mu = G @ G.T + np.eye(6), rng.normal(size=6), np.array([0.3, 0.7])
    mcp = _block_mcp(W, q, 0.0)
    mcp = MCP(**{**mcp.__dict__, "cones": CoulombBlocks(np.arange(6).reshape(2, 3), mu)})
    r = rng.normal(size=6)
    res = natural_residual(mcp, r)
    assert np.linalg.norm(res) / np.linalg.norm(q) == pytest.approx(fc3d_residual(W, q, mu, r))
    # the box formula would differ: it reads the cone rows as equations F = 0
    assert not np.allclose(res, W @ r + q)
    assert not mcp.is_lcp


def test_blocks_validate_their_shapes():
    with pytest.raises(FormulationError, match="mu"):
        CoulombBlocks(np.arange(6).reshape(2, 3), [0.5])
    with pytest.raises(FormulationError, match="3 or 4 columns"):
        CoulombBlocks(np.arange(10).reshape(2, 5), [0.5, 0.5])
    assert CoulombBlocks(np.arange(8).reshape(2, 4), [0.5, 0.2]).d == 4
    assert CoulombBlocks(np.arange(6), [0.5, 0.2]).d == 3  # a flat index: blocks of three


# -- blocks of four components (n, t, o, r): the soft finger's cone block ------------------------


@settings(max_examples=80, deadline=None)
@given(z=st.tuples(finite, finite, finite, finite), mu=coef, seed=st.integers(0, 2**31 - 1))
def test_a_four_component_projection_is_the_nearest_point_of_the_cone(z, mu, seed):
    z = np.array(z)
    p = cones.project(z[None], np.array([mu]))[0]
    scale = 1.0 + np.abs(z).max()
    assert np.linalg.norm(p[1:]) <= mu * p[0] + 1e-12 * scale
    y = z - p  # Moreau: in the polar cone and orthogonal to p
    assert mu * np.linalg.norm(y[1:]) <= -y[0] + 1e-9 * scale
    assert abs(p @ y) <= 1e-9 * (1 + z @ z)
    rng = np.random.default_rng(seed)  # no random point of the cone (inside or on it) is closer
    s = rng.exponential(5.0, 20000)
    u = rng.normal(size=(20000, 3))
    u *= (rng.uniform(0, 1, 20000) ** (rng.integers(0, 2, 20000)) / np.linalg.norm(u, axis=1))[:, None]
    q = np.concatenate([s[:, None], (mu * s)[:, None] * u], axis=1)
    assert np.linalg.norm(z - p) <= np.min(np.linalg.norm(q - z, axis=1)) + 1e-12


@settings(max_examples=200, deadline=None)
@given(
    c=st.tuples(finite, finite, finite, finite),
    a=st.tuples(finite, finite, finite, finite),
    mu=coef,
    rho=st.floats(0.1, 10.0),
)
def test_the_four_component_natural_map_jacobian_matches_finite_differences(c, a, mu, rho):
    _check_natural_map_jacobian(c, a, mu, rho)


def test_a_four_component_block_with_no_moment_is_the_three_component_one():
    """r = 0 in both force and acceleration: the block is the Coulomb cone's of (n, t, o)."""
    rng = np.random.default_rng(4)
    c3, a3, mu = rng.normal(size=(50, 3)), rng.normal(size=(50, 3)), rng.uniform(0.1, 1.5, 50)
    pad = np.zeros((50, 1))
    R4 = cones.residual(np.hstack([c3, pad]), np.hstack([a3, pad]), mu)
    np.testing.assert_allclose(R4[:, :3], cones.residual(c3, a3, mu), atol=1e-14)
    assert not R4[:, 3].any()


def test_compile_reads_the_cone_block_and_never_mutates_the_model():
    m = pe.ConcreteModel()
    m.c = pe.Var(["n", "t", "o"], initialize=0.0)
    m.cone = soc_block.SOCComplementarity()
    acc = {"n": m.c["n"] - 1.0, "t": 2 * m.c["t"] + 0.5, "o": m.c["o"]}
    m.cone.set({ax: m.c[ax] for ax in "nto"}, acc, 0.4)
    before = sorted(str(v) for v in m.component_data_objects(pe.Component))
    compiled = compile_model(m)
    assert sorted(str(v) for v in m.component_data_objects(pe.Component)) == before
    mcp = compiled.mcp
    assert mcp.cones.k == 1 and mcp.cones.mu[0] == 0.4
    assert [mcp.names[i] for i in mcp.cones.index[0]] == ["c[n]", "c[t]", "c[o]"]
    assert np.all(np.isinf(mcp.lb)) and np.all(np.isinf(mcp.ub))
    np.testing.assert_allclose(mcp.F(np.zeros(3))[mcp.cones.index[0]], [-1.0, 0.5, 0.0])
    # solved by newton: a_n = c_n - 1 >= 0 pushes c_n to 1; friction opposes a_t = 2 c_t + 0.5
    sol = cm.solve(mcp, solver="newton")
    assert sol.status is cm.Status.SOLVED
    x = sol.x[mcp.cones.index[0]]
    assert x[0] == pytest.approx(1.0) and x[1] == pytest.approx(-0.25) and abs(x[2]) < 1e-12


def test_a_bounded_cone_variable_is_refused():
    m = pe.ConcreteModel()
    m.c = pe.Var(["n", "t", "o"], initialize=0.0)
    m.c["n"].setlb(0.0)
    m.cone = soc_block.SOCComplementarity()
    m.cone.set({ax: m.c[ax] for ax in "nto"}, {ax: m.c[ax] for ax in "nto"}, 0.4)
    with pytest.raises(FormulationError, match=r"force\[n\].*domain=Reals"):
        compile_model(m)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            *[st.floats(-10, 10, allow_nan=False) | st.sampled_from([0.0, 1.0, -1.0]) for _ in range(6)]
        ),
        min_size=1,
        max_size=12,
    ),
    st.floats(0.0, 2.0) | st.sampled_from([0.0, 0.5, 1.0]),
)
def test_projection_and_residual_without_jacobians_equal_the_jacobian_route(rows, mu):
    """cones.project and cones.residual (no Jacobians formed) give the very numbers of
    project_jacobian and desaxce, on the borders between the cases too."""

    data = np.array(rows, dtype=float)
    c, a = data[:, :3], data[:, 3:]
    mus = np.full(len(c), mu)
    np.testing.assert_array_equal(cones.project(c, mus), cones.project_jacobian(c, mus)[0])
    ah = cones.desaxce(a, mus)[0]
    np.testing.assert_array_equal(cones.residual(c, a, mus), c - cones.project_jacobian(c - ah, mus)[0])
