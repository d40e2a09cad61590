"""Problem.update changes numbers in place (no rebuild, no recompile) and answers exactly like a
problem built with those numbers from scratch; warm starts begin at the last accepted answer."""

from __future__ import annotations

import numpy as np
import pyomo.environ as pe
import pytest

import contactmodel as cm
from contactmodel.assembly import assemble_from_matrices
from contactmodel.catalogue import pushed_boxes
from contactmodel.errors import OptionError


def _forces(solution: cm.Solution) -> np.ndarray:
    return np.array([c.force for c in solution.contacts])


LAWS = [cm.Pyramid(0.5), cm.CoulombCone(0.5, form="soc"), cm.CoulombCone(0.5)]


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_new_b_answers_like_a_problem_built_from_a_and_that_b(law) -> None:
    problem = cm.formulate(pushed_boxes(), friction=law)
    compiled = problem.compile()
    b = problem.assembly.b + np.random.default_rng(4).normal(0.0, 0.3, problem.assembly.m)
    problem.update(b=b)
    solution = cm.solve(problem)
    assert problem.compile() is compiled  # numbers only: the same compilation
    reference = cm.solve(cm.formulate(assemble_from_matrices(problem.assembly.A, b), friction=law))
    assert solution.status is reference.status is cm.Status.SOLVED
    np.testing.assert_allclose(_forces(solution), _forces(reference), atol=1e-7)
    # the checks read the new numbers: a = A c + b at the answer
    c = _forces(solution).reshape(-1)
    a = np.array([r.acceleration for r in solution.contacts]).reshape(-1)
    np.testing.assert_allclose(a, problem.assembly.A @ c + b, atol=1e-9)
    assert solution.checks["law_residual"] <= 1e-8


@pytest.mark.parametrize("form", ["reduced", "sparse"])
@pytest.mark.parametrize("law", LAWS[:2], ids=repr)
def test_new_f_answers_like_the_system_with_those_forces(law, form) -> None:
    problem = cm.formulate(pushed_boxes(), friction=law, form=form)
    compiled = problem.compile()
    f = problem.assembly.f.copy()
    f[0::6] += 2.5  # every body pushed along x (bodies first in the coordinates, 6 each)
    problem.update(f=f)
    solution = cm.solve(problem)
    assert problem.compile() is compiled
    reference = cm.solve(cm.formulate(pushed_boxes(push=2.5), friction=law, form=form))
    assert solution.status is reference.status is cm.Status.SOLVED
    np.testing.assert_allclose(_forces(solution), _forces(reference), atol=1e-7)
    for mine, theirs in zip(solution.bodies, reference.bodies):
        np.testing.assert_allclose(mine.linear_acceleration, theirs.linear_acceleration, atol=1e-7)


def test_new_b_in_the_sparse_form_shifts_the_bias() -> None:
    sparse = cm.formulate(pushed_boxes(), friction=cm.Pyramid(0.5), form="sparse")
    reduced = cm.formulate(pushed_boxes(), friction=cm.Pyramid(0.5))
    b = sparse.assembly.b.copy()
    b[0::3] += 20.0  # every normal acceleration beyond gravity: the boxes lift off
    sparse.update(b=b)
    reduced.update(b=b)
    a, r = cm.solve(sparse), cm.solve(reduced)
    assert a.status is r.status is cm.Status.SOLVED
    np.testing.assert_allclose(_forces(a), _forces(r), atol=1e-8)
    assert {c.mode for c in a.contacts} == {c.mode for c in r.contacts} == {"separate"}


def test_new_mu_of_cone_blocks_answers_like_the_new_law() -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.CoulombCone(0.5, form="soc"))
    compiled = problem.compile()
    names = problem.contact_names
    for mu in (0.05, {names[0]: 0.1}, np.linspace(0.1, 0.3, len(names))):
        problem.update(mu=mu)
        solution = cm.solve(problem)
        assert problem.compile() is compiled
        wanted = {n: problem.laws[n].mu for n in names}
        laws = {n: cm.CoulombCone(wanted[n], form="soc") for n in names}
        reference = cm.solve(cm.formulate(pushed_boxes(), friction=laws))
        np.testing.assert_allclose(_forces(solution), _forces(reference), atol=1e-7)
        np.testing.assert_allclose(compiled.mcp.cones.mu, [wanted[n] for n in names])
    assert problem.laws[names[0]].mu == pytest.approx(0.1)


def test_mu_in_row_coefficients_is_refused_with_the_fix() -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.Pyramid(0.5))
    with pytest.raises(cm.FormulationError, match=r"Pyramid.*reformulate"):
        problem.update(mu=0.3)
    problem.update(mu=0.5)  # the same number: nothing to change


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"b": np.zeros(3), "f": np.zeros(3)}, cm.FormulationError, "b or f, not both"),
        ({"b": np.zeros(2)}, cm.FormulationError, r"Problem.update: b"),
        ({"mu": [0.1, 0.2]}, cm.FormulationError, "one per contact"),
        ({"mu": {"nowhere": 0.1}}, cm.FormulationError, "unknown contact"),
        ({"mu": -1.0}, cm.FrictionLawError, "mu of contact 'c0_0' must be >= 0"),
    ],
)
def test_bad_updates_name_the_field(kwargs, error, match) -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.CoulombCone(0.5, form="soc"))
    with pytest.raises(error, match=match):
        problem.update(**kwargs)


def test_f_of_a_problem_given_by_matrices_is_refused() -> None:
    problem = cm.formulate_from_matrices(np.eye(3), np.array([1.0, 0.0, 0.0]), mu=0.5)
    with pytest.raises(cm.FormulationError, match="update b instead"):
        problem.update(f=np.zeros(3))


def test_warm_start_begins_at_the_last_accepted_answer() -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.CoulombCone(0.5, form="soc"))
    first = cm.solve(problem)
    again = cm.solve(problem, warm_start=True)
    assert again.status is cm.Status.SOLVED and again.iterations <= 1 < first.iterations
    with pytest.raises(OptionError, match="x0 or warm_start"):
        cm.solve(problem, warm_start=True, x0=first.x)


@pytest.mark.parametrize("form", ["reduced", "sparse"])
def test_params_edited_by_hand_are_judged_with_the_numbers_the_mcp_has(form) -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.Pyramid(0.5), form=form)
    reference = cm.formulate(pushed_boxes(), friction=cm.Pyramid(0.5), form=form)
    m = problem.model
    if form == "reduced":  # the documented route: a = A c + b with b a mutable Param
        b = problem.assembly.b.copy()
        b[1::3] += 0.3
        for r, value in enumerate(b):
            m.b[r] = float(value)
        reference.update(b=b)
    else:  # one Newton-Euler constant: model.f[k] = -(f_k - ...), so f_k grows by 0.4
        m.f[0] = m.f[0].value - 0.4
        f = reference.assembly.f.copy()
        f[0] += 0.4
        reference.update(f=f)
    solution, expected = cm.solve(problem), cm.solve(reference)
    assert solution.status is cm.Status.SOLVED and solution.checks["law_residual"] <= 1e-9
    np.testing.assert_allclose(problem.assembly.b, reference.assembly.b, atol=1e-12)
    np.testing.assert_allclose(_forces(solution), _forces(expected), atol=1e-8)


def test_a_param_of_the_users_own_named_like_the_forms_is_left_alone() -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.Pyramid(0.5))  # reduced: only model.b is read
    problem.model.f = pe.Param(initialize=2.0, mutable=True)
    problem.model.f = 3.0
    assert cm.solve(problem).status is cm.Status.SOLVED
