"""CoulombCone's two slack rows: the seed's quadratic one and the norm one give the same
solutions; the norm one keeps the cone violation of the order of the residual."""

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue


@pytest.mark.parametrize("name", list(catalogue.CASES))
def test_known_solutions_satisfy_the_norm_slack_model(name):
    case = catalogue.get(name)
    for form in ("reduced", "sparse"):
        problem = cm.formulate(case.build(), friction=cm.CoulombCone(case.mu, slack="norm"), form=form)
        problem.load_forces(case.forces)
        compiled = problem.compile()
        assert np.abs(cm.mcp.natural_residual(compiled.mcp, compiled.values())).max() < 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_norm_slack_bounds_the_cone_violation_by_the_residual(seed):
    rng = np.random.default_rng(seed)
    nc = 6
    G = rng.normal(size=(3 * nc, 3 * nc + 4))
    mu = rng.uniform(0.2, 0.8, nc)
    problem = cm.formulate_from_matrices(
        G @ G.T, rng.uniform(-5, 5, 3 * nc), friction=[cm.CoulombCone(m, slack="norm") for m in mu]
    )
    solution = cm.solve(problem, solver="newton")
    assert solution.status is cm.Status.SOLVED
    for m, contact in zip(mu, solution.contacts):
        c_n, c_t, c_o = contact.force
        assert np.hypot(c_t, c_o) - m * c_n <= 1e-9


def test_bad_slack_name():
    with pytest.raises(cm.FrictionLawError, match="slack"):
        cm.CoulombCone(0.5, slack="cubic")
