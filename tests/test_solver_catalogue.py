"""Every registered, available solver on the reference catalogue (LCP-capable solvers on the
polyhedral laws' reduced form, the others on every law and form)."""

import numpy as np
import pytest

import contactmodel as cm
from contactmodel import catalogue, solvers

LCP_SOLVERS = [name for name, info in solvers.REGISTRY.items() if info.lcp_only and name != "enumerate"]
NLP_SOLVERS = ["scipy"]
CASES = [catalogue.get(name) for name in catalogue.CASES]


def _available(name: str) -> bool:
    return solvers.REGISTRY[name].available()[0]


def _check(case, solution):
    assert solution.status is cm.Status.SOLVED, solution.message
    for body in solution.bodies:
        got = np.concatenate([body.linear_acceleration, body.angular_acceleration])
        np.testing.assert_allclose(got, case.accelerations[body.name], atol=1e-6)


def _laws(case):
    return [law for law in case.laws() if type(law).__name__ in ("Pyramid", "Polygonal", "Planar")]


@pytest.mark.parametrize("solver", LCP_SOLVERS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_lcp_solvers_on_polyhedral_laws(case, solver):
    if not _available(solver):
        pytest.skip(solvers.REGISTRY[solver].available()[1])
    for law in _laws(case):
        _check(case, cm.solve(cm.formulate(case.build(), friction=law), solver=solver))


@pytest.mark.parametrize("solver", NLP_SOLVERS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_nlp_solvers_on_every_law(case, solver):
    if not _available(solver):
        pytest.skip(solvers.REGISTRY[solver].available()[1])
    for law in case.laws():
        _check(case, cm.solve(cm.formulate(case.build(), friction=law), solver=solver))


def test_enumerate_on_a_small_reference_problem():
    """Two fingers, pyramid law: an LCP of size 10, enumerated exactly."""
    case = catalogue.get("two_finger_grip")
    problem = cm.formulate(case.build(), friction=cm.Pyramid(case.mu))
    assert problem.compile().mcp.n <= 12
    _check(case, cm.solve(problem, solver="enumerate"))
