"""A simulation step that newton leaves unsolved goes through the fallback ladder of ``cm.solve``
(``contactmodel.solve.rescue``): the unloaded contacts frictionless, the other statements, newton
from the LCP surrogate's answer, newton's last try; each step's record names the rung that gave
its answer. A step solved at the first try runs none of it."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.fallback import retry_other_statements, worst_residual
from contactmodel.simulation import Plane, simulate
from contactmodel.simulation.stepper import STEP_TOL, Simulator

from .scenes import random_pile, sliding_box

DISPATCHER = importlib.import_module("contactmodel.solve")  # the module (cm.solve is the function)
LCP_RUNG = "from the LCP surrogate's answer"
LAST_RUNG = str(DISPATCHER.NEWTON_LAST_TRY)


def _soft_finger_pile(seed: int = 4):
    """Boxes dropped on the floor under a soft-finger ellipsoid in its MNCP form, torsion contacts:
    20 steps of 5 ms (seed 4: three boxes, mu 0.16; seeds of a search over random piles for steps
    newton leaves unsolved)."""
    rng = np.random.default_rng([7, seed])
    system = random_pile(rng, int(rng.integers(1, 5)))
    rng.integers(3)
    law = cm.Ellipsoid(float(rng.uniform(0.1, 0.9)), e_r=0.05, form="mncp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the overlap projection's notes
        return simulate(system, 0.1, 5e-3, law, planes=[Plane()], torsion=True)


@pytest.mark.parametrize("seed, rung", [(3, LCP_RUNG), (44, LAST_RUNG)], ids=["lcp_start", "last_try"])
def test_steps_other_statements_leave_unsolved_are_rescued_by_the_later_rungs(monkeypatch, seed, rung):
    other_statements = []  # the answers the other statements gave, step by step

    def spy(problem, first, solve_one):
        answer = retry_other_statements(problem, first, solve_one)
        other_statements.append((answer.status, worst_residual(answer)))
        return answer

    monkeypatch.setattr(DISPATCHER, "retry_other_statements", spy)
    traj = _soft_finger_pile(seed)
    assert traj.ok and traj.n_steps == 20
    routes = [f for f in traj.fallback if f]
    later = [f for f in routes if f in (LCP_RUNG, LAST_RUNG)]
    # the LCP surrogate's start, or newton's last try, gave a step's answer ...
    assert rung in later
    # ... after the other statements left those steps neither solved nor within step_tol (the
    # whole of the simulation's retry before)
    unsolved = [s for s, r in other_statements if s is not cm.Status.SOLVED and r > STEP_TOL]
    assert 0 < len(later) <= len(unsolved)
    # and the unloaded contacts stated frictionless gave others
    assert any(f.startswith("with the unloaded contacts") for f in routes)
    for k, route in enumerate(traj.fallback):  # each answer solved, or within step_tol
        if route:
            assert traj.status[k] == "solved" or traj.residual[k] <= STEP_TOL, (k, route, traj.status[k])
    assert "solved" in {traj.status[k] for k, f in enumerate(traj.fallback) if f in later}


def test_settle_is_cm_solves_ladder_and_leaves_the_problem_at_its_answer():
    """On the step problems of a run that went through the fallback, Simulator.settle and cm.solve
    (the same solver options) end at the same rung with the same answer, and settle leaves the
    problem holding that answer (the step's impulses are read from it)."""
    traj = _soft_finger_pile()
    sim = Simulator(cm.System(), 5e-3)
    options = sim.solver_options  # newton's, as the steps run it (no lift-off rounds)
    rungs = set()
    for k in [k for k, f in enumerate(traj.fallback) if f]:
        first = cm.solve(traj.step_model(k), fallback=False, **options)
        if first.status is cm.Status.SOLVED or worst_residual(first) <= STEP_TOL:
            continue  # cold, this step needs no retry
        problem = traj.step_model(k)
        answer = sim.settle(problem, cm.solve(problem, fallback=False, **options))
        direct = cm.solve(traj.step_model(k), **options)
        assert answer.status is direct.status is cm.Status.SOLVED, answer.message
        assert answer.extras["fallback"] == direct.extras["fallback"]
        np.testing.assert_allclose(answer.x, direct.x, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(problem.force_vector(), problem.interpret(answer.x).forces)
        rungs.add(answer.extras["fallback"]["solved_by"])
    assert rungs - {None}, "the run's steps must need the fallback from a cold start too"


def test_a_step_solved_at_the_first_try_runs_no_retry(monkeypatch):
    def no_retry(*args, **kwargs):
        raise AssertionError("the fallback ladder ran on a solved step")

    monkeypatch.setattr(DISPATCHER, "rescue", no_retry)
    system, planes = sliding_box(v0=(0.4, 0.3, 0.0))
    traj = simulate(system, 0.03, 1e-2, cm.Pyramid(0.5), planes=planes)
    assert set(traj.status) == {"solved"} and not any(traj.fallback)


def test_fallback_off_leaves_the_step_as_newton_ended_it(monkeypatch):
    monkeypatch.setattr(DISPATCHER, "rescue", lambda *a, **k: pytest.fail("fallback=False was ignored"))
    system, planes = sliding_box(v0=(0.4, 0.3, 0.0))
    traj = simulate(
        system, 0.03, 1e-2, cm.CoulombCone(0.5, form="soc"), planes=planes, accept_tol=1e-30, fallback=False
    )
    assert "solved-inaccurate" in traj.status and not any(traj.fallback)


def test_steps_failed_by_the_laws_alone_are_solved_with_the_unloaded_contacts_frictionless(monkeypatch):
    """A cube sliding on four corners under the cone's MNCP (mu 0.5): the normal forces are not
    unique, and from newton's own start its answer of some steps leaves one corner unloaded (c_n =
    0) with friction ~sqrt of its MCP residual there, so the answer is solved-inaccurate or
    failed by the laws' residual alone, with the MCP solved. The unloaded contacts stated
    frictionless solve those steps: no other statement is formulated for them. In the run
    itself the steps start from the last answer lifted by the laws, and none needs the ladder."""
    firsts, others = [], []  # (status, MCP residual) of the answers the two rungs were given
    retry_unloaded = DISPATCHER.retry_unloaded

    def spy(problem, solution, tol, solve_one):
        firsts.append((solution.status, solution.residual))
        return retry_unloaded(problem, solution, tol, solve_one)

    def spy_others(problem, solution, solve_one):
        others.append((solution.status, solution.residual))
        return retry_other_statements(problem, solution, solve_one)

    monkeypatch.setattr(DISPATCHER, "retry_unloaded", spy)
    monkeypatch.setattr(DISPATCHER, "retry_other_statements", spy_others)
    system, planes = sliding_box(v0=(1.0, 0.0, 0.0))
    traj = simulate(system, 0.1, 1e-3, cm.CoulombCone(0.5, form="mncp"), planes=planes)
    assert set(traj.status) == {"solved"} and not any(traj.fallback) and not firsts
    unloaded = [k for k in range(traj.n_steps) if min(traj.impulses[c][k, 0] for c in traj.impulses) == 0.0]
    assert len(unloaded) > 10, "the premise: a corner unloaded in some steps"
    options = Simulator(cm.System(), 1e-3).solver_options  # newton's, as the steps run it
    answers = [cm.solve(traj.step_model(k), **options) for k in unloaded[-8:]]
    laws_alone = [s for s, r in firsts if s is not cm.Status.SOLVED and r <= 1e-8]
    assert laws_alone, "the premise: from newton's own start, some step is left unsolved by its laws alone"
    assert not [s for s, r in others if r <= 1e-8]
    routes = [a.extras["fallback"]["solved_by"] for a in answers if "fallback" in a.extras]
    assert sum(f.startswith("with the unloaded contacts") for f in routes) >= len(laws_alone)
    assert all(a.status is cm.Status.SOLVED for a in answers)
