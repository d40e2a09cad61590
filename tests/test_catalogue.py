"""Hand-derived reference problems: the known solution satisfies every model; a wrong one does not;
solvers reproduce the known accelerations."""

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue
from contactmodel.mcp import natural_residual

CASES = [catalogue.get(name) for name in catalogue.CASES]
PAIRS = [(case, law) for case in CASES for law in case.laws()]
IDS = [f"{case.name}-{type(law).__name__}{getattr(law, 'k', '')}" for case, law in PAIRS]


def _residual(problem, forces) -> float:
    problem.load_forces(forces)
    compiled = problem.compile()
    return float(np.abs(natural_residual(compiled.mcp, compiled.values())).max())


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize(("case", "law"), PAIRS, ids=IDS)
def test_known_solution_has_zero_residual(case, law, form):
    problem = cm.formulate(case.build(), friction=law, form=form)
    assert _residual(problem, case.forces) < 1e-9


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize(("case", "law"), PAIRS, ids=IDS)
def test_wrong_solutions_have_nonzero_residual(case, law, form):
    problem = cm.formulate(case.build(), friction=law, form=form)
    doubled_normal = {k: [2 * v[0], *v[1:]] for k, v in case.forces.items()}
    assert _residual(problem, doubled_normal) > 1e-2
    # at initially sliding contacts friction is a function of c_n, so only rolling ones can be flipped
    if not problem.assembly.sliding and any(abs(v[1]) > 0 for v in case.forces.values()):
        flipped_friction = {k: [v[0], -v[1], *v[2:]] for k, v in case.forces.items()}
        assert _residual(problem, flipped_friction) > 1e-2


# Solver weaknesses measured on these cases (the models are right: the known solution has zero
# residual in them and other solvers solve them); each must keep failing until the solver is fixed.
KNOWN_SOLVER_FAILURES: dict[tuple[str, str, str, str], str] = {}


@pytest.mark.parametrize("solver", ["newton", "ipopt"])
@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize(("case", "law"), PAIRS, ids=IDS)
def test_solvers_reproduce_known_accelerations(case, law, form, solver, request):
    reason = KNOWN_SOLVER_FAILURES.get((case.name, type(law).__name__, form, solver))
    if reason:
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    problem = cm.formulate(case.build(), friction=law, form=form)
    solution = cm.solve(problem, solver=solver)
    assert solution.status is cm.Status.SOLVED, solution.message
    for body in solution.bodies:
        expected = np.array(case.accelerations[body.name])
        got = np.concatenate([body.linear_acceleration, body.angular_acceleration])
        np.testing.assert_allclose(got, expected, atol=1e-7)
    # the normal forces of each box sum to its supported weight whatever the distribution
    for name in case.forces:
        assert solution.contact(name).force[0] >= -1e-9


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_modes_of_known_cases(case):
    solution = cm.solve(cm.formulate(case.build(), friction=cm.CoulombCone(case.mu)), solver="newton")
    sliding = case.accelerations.get("box", [0.0])[0] != 0.0
    assert {c.mode for c in solution.contacts} == ({"slide"} if sliding else {"roll"})
