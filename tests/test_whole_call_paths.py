"""The shorter ways of the whole call from (W, q, mu) give the numbers of the long ways: the cone
method's gradient through J's CSC view instead of a CSR copy of its transpose, and a whole solve's
iterates with either kernels."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.mcp.types import MCP, CoulombBlocks
from contactmodel.solvers.newton import NewtonOptions
from contactmodel.solvers.newton import kernels as newton_kernels
from contactmodel.solvers.newton.cones import ConeMethod


def _cone_mcp(seed: int, k: int = 40):
    """A sparse affine MCP of ``k`` cone blocks (rows in block order), 3k x 3k."""
    n = 3 * k
    A = sp.random(n, n, density=0.06, random_state=seed, format="csr")
    M = (A @ A.T + sp.eye(n)).tocsr()
    M.sum_duplicates()
    q = np.random.default_rng(seed).standard_normal(n)
    cones = CoulombBlocks(np.arange(n).reshape(k, 3), np.full(k, 0.4))
    return MCP(
        F=lambda x: M @ x + q,
        J=lambda x: M,
        lb=np.full(n, -np.inf),
        ub=np.full(n, np.inf),
        M=M,
        q=q,
        cones=cones,
    )


@pytest.mark.parametrize("kernels", ["numpy", "auto"])
@pytest.mark.parametrize("seed", range(3))
def test_cone_gradient_through_the_view_is_the_copy_s(seed, kernels) -> None:
    """``H^T Phi`` with J^T read as J's CSC view equals it with a CSR copy of J^T, bit for bit."""
    mcp = _cone_mcp(seed)
    method = ConeMethod(mcp, NewtonOptions(kernels=kernels))
    rng = np.random.default_rng(seed)
    with np.errstate(all="ignore"):
        pt = method.begin_attempt(rng.standard_normal(mcp.n))
        J = method.J(pt.x)
        got = method.gradient(pt, J)
        assert isinstance(method._JT, sp.csc_matrix)
        method._JT = J.T.tocsr()  # the long way: a CSR copy of the transpose
        want = method.gradient(pt, J)
    assert got.tobytes() == want.tobytes()


def test_a_100_contact_fc3d_solve_takes_its_steps() -> None:
    """A sparse-path fc3d problem of 100 contacts (n = 300 > newton's dense threshold) is solved
    with its regularized sparse Newton steps, by the compiled attempt (the kernels) as by the
    numpy path: the same iterations and residuals (to rounding), the same answer."""
    rng = np.random.default_rng(7)
    nc = 100
    n = 3 * nc
    B = sp.random(n, n + 30, density=0.02, random_state=7, format="csr")
    W = (B @ B.T).toarray() + 0.05 * np.eye(n)
    q = rng.standard_normal(n)
    q[0::3] = np.abs(q[0::3]) * np.where(rng.random(nc) < 0.5, -1.0, 1.0)
    mu = rng.uniform(0.2, 0.8, nc)
    fast, plain = (cm.solve(cm.formulate_from_matrices(W, q, mu), kernels=k) for k in ("auto", "numpy"))
    for sol in (fast, plain):
        assert sol.status is cm.Status.SOLVED and sol.extras["regularized"]  # SuperLU's path
    # without numba (the 'fast' extra) both run the numpy path
    assert (fast.extras["compiled_attempts"] >= 1) is newton_kernels.AVAILABLE
    assert plain.extras["compiled_attempts"] == 0
    assert fast.iterations == plain.iterations
    history = fast.extras["residual_history"], plain.extras["residual_history"]
    floor = 8 * np.finfo(float).eps * max(1.0, max(history[1]))  # residuals at the rounding level
    np.testing.assert_allclose(*history, rtol=1e-12, atol=floor)
    np.testing.assert_allclose(fast.x, plain.x, rtol=0, atol=1e-12 * max(1.0, float(np.abs(plain.x).max())))


@pytest.mark.parametrize("seed", range(4))
def test_the_kept_block_factored_by_gstrf_is_splu_s(seed) -> None:
    """SuperLU's ``gstrf`` called directly on a canonical CSC matrix (the kept block of a sparse
    Newton matrix) gives spla.splu's solution bit for bit, and raises on a singular one as it does."""
    from contactmodel.solvers.newton import small

    m = 150
    A = sp.random(m, m, density=0.08, random_state=seed, format="csc") + sp.eye(m, format="csc")
    A = sp.csc_matrix(A)
    A.sort_indices()
    data, rows, indptr = A.data, A.indices.astype(np.intc), A.indptr.astype(np.intc)
    rhs = np.random.default_rng(seed).standard_normal(m)
    got = small.canonical_solve(data, rows, indptr, rhs)
    want = small.csc_solve(data, rows, indptr, rhs)  # the long way: spla.splu of a SciPy matrix
    assert got.tobytes() == want.tobytes()
    np.testing.assert_allclose(A @ got, rhs, atol=1e-8 * max(1.0, np.abs(got).max()))
    wide = small.canonical_solve(data, rows.astype(np.int64), indptr.astype(np.int64), rhs)  # splu's way
    assert wide.tobytes() == want.tobytes()
    S = A.tolil()
    S[:, 3] = 0.0  # an empty column: singular
    S = sp.csc_matrix(S)
    S.eliminate_zeros()
    sdata, srows, sptr = S.data, S.indices.astype(np.intc), S.indptr.astype(np.intc)
    with pytest.raises(RuntimeError):
        small.csc_solve(sdata, srows, sptr, rhs)
    with pytest.raises(RuntimeError):
        small.canonical_solve(sdata, srows, sptr, rhs)
    assert small._solve_kept(sdata, srows, sptr, rhs) is None


def _compiled_both_ways(make, monkeypatch):
    """The compiled MCP and force matrix T of ``make()`` with and without the uniform path of
    contactmodel.mcp.direct (every contact stating one shared ContactRows)."""
    from contactmodel.mcp import direct

    out = []
    for uniform in (False, True):
        monkeypatch.setattr(direct, "UNIFORM_PATH", uniform)
        problem = make()
        out.append((problem.T, problem.compile().mcp))
    return out


@pytest.mark.parametrize(
    "friction",
    [None, cm.CoulombCone(0.4, form="mncp"), cm.Pyramid(0.5), "sliding"],
    ids=["soc", "mncp", "pyramid", "some-sliding"],
)
def test_one_shared_statement_compiles_as_the_loop_s(friction, monkeypatch) -> None:
    """Contacts sharing one statement (the rolling contacts of one law) give the same force matrix
    and MCP (F, J, bounds, names, cone blocks) at once as contact by contact."""
    rng = np.random.default_rng(3)
    nc = 14
    B = rng.standard_normal((3 * nc, 3 * nc + 6))
    W, q, mu = B @ B.T, rng.standard_normal(3 * nc), np.full(nc, 0.4)
    if friction == "sliding":
        velocities = np.zeros((nc, 2))
        velocities[::3, 0] = 1.0

        def make():
            return cm.formulate_from_matrices(W, q, mu, velocities=velocities)
    else:

        def make():
            return cm.formulate_from_matrices(W, q, mu, friction=friction)

    (T0, m0), (T1, m1) = _compiled_both_ways(make, monkeypatch)
    assert T0.shape == T1.shape and (T0 != T1).nnz == 0
    x = rng.standard_normal(m0.n)
    assert m0.F(x).tobytes() == m1.F(x).tobytes()
    assert (m0.J(x) != m1.J(x)).nnz == 0
    assert m0.lb.tobytes() == m1.lb.tobytes() and m0.ub.tobytes() == m1.ub.tobytes()
    assert list(m0.names) == list(m1.names)
    assert (m0.cones is None) == (m1.cones is None)
    if m0.cones is not None:
        assert np.array_equal(m0.cones.index, m1.cones.index) and np.array_equal(m0.cones.mu, m1.cones.mu)


@pytest.mark.parametrize("seed", range(6))
def test_the_exact_symmetry_test_is_the_transpose_s(seed) -> None:
    """assembly's exact test on the nonzeros (each one's mirror entry) says what A == A.T says;
    the 1e-9 tolerance after it is unchanged."""
    from contactmodel.assembly import _symmetric
    from contactmodel.sparse_product import dense_csr

    rng = np.random.default_rng(seed)
    B = rng.standard_normal((9, 9)) * (rng.random((9, 9)) < 0.4)
    A = B + B.T
    cases = [A, B, A.copy(), A.copy(), A.copy()]
    cases[2][1, 4] = 0.0  # a nonzero whose mirror is zero
    cases[2][4, 1] = 3.0
    cases[3][2, 5] += 1e-12 * max(1.0, np.abs(A).max())  # symmetric within the tolerance only
    cases[4][3, 3] = -0.0
    for M in cases:
        want = np.array_equal(M, M.T) or np.abs(M - M.T).max() <= 1e-9 * max(1.0, np.abs(M).max())
        assert _symmetric(M, dense_csr(M)) == want


def test_a_still_contact_s_speeds_are_the_computed_ones() -> None:
    """Contexts made by formulate know which contacts have zero velocity (-0.0 too, NaN not): their
    speeds, 0 without computing them, are the norms a context computes without that knowledge."""
    from contactmodel.friction.base import ContactContext

    nc = 6
    velocities = np.zeros((nc, 3))
    velocities[1] = [0.0, 2.0, 0.0]
    velocities[2] = [-0.0, 0.0, -0.0]
    velocities[3] = [0.0, 1e-12, 3e-12]
    velocities[4] = [0.5, 0.0, 0.0]
    problem = cm.formulate_from_matrices(
        np.eye(4 * nc), np.zeros(4 * nc), 0.5, velocities=velocities, torsion=True
    )
    still = [ctx.still for ctx in problem.contexts.values()]
    assert still == [True, False, True, False, False, True]
    for ctx in problem.contexts.values():
        long_way = ContactContext(ctx.contact, ctx.velocity, ctx.rolling_tol)
        for comps in ("t", "to", "tor", "r"):
            assert ctx.speed(comps) == long_way.speed(comps)
            assert ctx.sliding(comps) == long_way.sliding(comps)


@pytest.mark.parametrize("laws", ["one object", "equal objects", "two laws", "some sliding"])
def test_one_law_object_groups_as_the_loops_s(laws) -> None:
    """The layout's law groups and the modes' signatures of contacts sharing one law object (the
    shortcut) are those of the contact-by-contact grouping."""
    from contactmodel import modes

    rng = np.random.default_rng(5)
    nc = 9
    B = rng.standard_normal((3 * nc, 3 * nc + 3))
    W, q = B @ B.T, rng.standard_normal(3 * nc)
    velocities = None
    if laws == "one object":
        friction = cm.CoulombCone(0.5)
    elif laws == "equal objects":
        friction = [cm.CoulombCone(0.5) for _ in range(nc)]
    elif laws == "two laws":
        friction = [cm.CoulombCone(0.5 if j % 3 else 0.2) for j in range(nc)]
    else:
        friction = cm.CoulombCone(0.5)
        velocities = np.zeros((nc, 2))
        velocities[::4, 1] = 1.0
    problem = cm.formulate_from_matrices(W, q, friction=friction, velocities=velocities)
    sol = cm.solve(problem)
    assert sol.ok
    layout = problem.layout
    names = problem.contact_names
    by_key: dict = {}
    for j, law in enumerate(problem.laws.values()):
        by_key.setdefault((law.key, len(layout.rows[j])), []).append(j)
    assert [g.contacts.tolist() for g in layout.groups] == list(by_key.values())
    assert [g.law.key for g in layout.groups] == [k for k, _ in by_key]
    compiled = problem.compile()
    pa = modes._pair_arrays(problem, compiled, names)
    numbers, count = modes._signatures(layout, pa)
    seen: dict = {}
    sets = layout.friction_sets()
    want = [
        seen.setdefault((id(f), s, k), len(seen))
        for f, s, k in zip(sets.fsets, layout.sliding.tolist(), pa.keys)
    ]
    assert numbers.tolist() == want and count == len(seen)
