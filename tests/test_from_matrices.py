"""Problems given as matrices: cm.formulate_from_matrices builds the same model as formulate."""

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.catalogue import sliding_and_rolling_pair


@pytest.mark.parametrize("law", [cm.Pyramid(0.4), cm.CoulombCone(0.4), cm.Polygonal(0.4, k=6)])
def test_same_model_as_from_the_system(law):
    from_system = cm.formulate(sliding_and_rolling_pair(), friction=law)
    asm = from_system.assembly
    velocities = np.array([asm.v[[rows["t"], rows["o"]]] for rows in asm.contact_rows.values()])
    from_matrices = cm.formulate_from_matrices(
        asm.A, asm.b, friction=law, velocities=velocities, names=list(asm.contact_rows)
    )
    a, b = from_system.compile().mcp, from_matrices.compile().mcp
    assert list(a.names) == list(b.names)
    x = np.random.default_rng(0).uniform(0, 1, a.n)
    np.testing.assert_allclose(a.F(x), b.F(x), atol=1e-12)
    np.testing.assert_allclose(a.J(x).toarray(), b.J(x).toarray(), atol=1e-12)


def test_random_data_set_solves_and_is_verified():
    rng = np.random.default_rng(3)
    G = rng.normal(size=(6, 8))
    problem = cm.formulate_from_matrices(G @ G.T, rng.uniform(-5, 5, 6), mu=[0.1, 0.2])
    solution = cm.solve(problem, solver="newton")
    assert solution.status is cm.Status.SOLVED
    c = np.concatenate([contact.force for contact in solution.contacts])
    a = np.concatenate([contact.acceleration for contact in solution.contacts])
    np.testing.assert_allclose(a, G @ G.T @ c + problem.assembly.b, atol=1e-8)
    # the MNCP's cone row s = mu^2 c_n^2 - |c_T|^2 squares the forces, so a residual r bounds
    # the cone violation only by ~sqrt(r)
    for mu, contact in zip((0.1, 0.2), solution.contacts):
        c_n, c_t, c_o = contact.force
        assert c_n >= -1e-9 and np.hypot(c_t, c_o) <= mu * c_n + 1e-5


def test_bad_matrices_and_sparse_form_are_refused():
    with pytest.raises(cm.DeclarationError, match="symmetric.*check_symmetric=False"):
        cm.formulate_from_matrices(np.triu(np.ones((3, 3))), np.zeros(3), mu=0.5)
    for check in (True, False):
        with pytest.raises(cm.DeclarationError, match="multiple of 3"):
            cm.formulate_from_matrices(np.eye(4), np.zeros(4), mu=0.5, check_symmetric=check)
        with pytest.raises(cm.DeclarationError, match="NaN"):
            cm.formulate_from_matrices(np.full((3, 3), np.nan), np.zeros(3), mu=0.5, check_symmetric=check)
        with pytest.raises(cm.DeclarationError, match="square"):
            cm.formulate_from_matrices(np.eye(6)[:, :3], np.zeros(6), mu=0.5, check_symmetric=check)
    problem = cm.formulate_from_matrices(np.eye(3), np.zeros(3), mu=0.5)
    with pytest.raises(cm.FormulationError, match="reduced"):
        problem.reformulate(form="sparse")


def test_nonsymmetric_a_is_used_as_given():
    """A general A (not G M^-1 G^T) is accepted with check_symmetric=False and kept exactly."""
    rng = np.random.default_rng(4)
    G = rng.normal(size=(6, 8))
    A = G @ G.T + np.eye(6) + 0.5 * rng.normal(size=(6, 6))
    b = rng.uniform(-5, 5, 6)
    problem = cm.formulate_from_matrices(A, b, mu=[0.3, 0.5], check_symmetric=False)
    assert np.array_equal(problem.assembly.A, A)
    solution = cm.solve(problem, solver="newton")
    assert solution.status is cm.Status.SOLVED
    c = np.concatenate([contact.force for contact in solution.contacts])
    a = np.concatenate([contact.acceleration for contact in solution.contacts])
    np.testing.assert_allclose(a, A @ c + b, atol=1e-8)
    assert not np.allclose(a, (A + A.T) / 2 @ c + b, atol=1e-3)


def test_contacts_with_one_mu_share_one_law_and_residuals_are_unchanged():
    """mu given per contact: one CoulombCone per distinct value (the law residual is then one
    vectorized call per value), with the same per-contact residuals as one law per contact."""
    from contactmodel.layout import layout_of

    rng = np.random.default_rng(5)
    G = rng.normal(size=(12, 15))
    mu = [0.3, 0.5, 0.3, 0.5]
    problem = cm.formulate_from_matrices(G @ G.T, rng.uniform(-5, 5, 12), mu=mu)
    laws = [problem.laws[name] for name in problem.contact_names]
    assert [law.mu for law in laws] == mu
    assert laws[0] is laws[2] and laws[1] is laws[3] and laws[0] is not laws[1]
    assert len(layout_of(problem).groups) == 2
    apart = cm.formulate_from_matrices(
        G @ G.T, problem.assembly.b, friction=[cm.CoulombCone(m) for m in mu], names=problem.contact_names
    )
    m = problem.assembly.m
    c, a = rng.normal(size=m), rng.normal(size=m)
    np.testing.assert_allclose(
        layout_of(problem).law_residuals(c, a), layout_of(apart).law_residuals(c, a), rtol=0, atol=1e-15
    )
    problem.update(mu=[0.3, 0.5, 0.4, 0.5])  # a shared law is copied, not changed for every contact
    assert [problem.laws[name].mu for name in problem.contact_names] == [0.3, 0.5, 0.4, 0.5]
