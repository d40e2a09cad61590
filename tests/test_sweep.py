"""solve_many runs one compiled problem over many parameter sets, in process, in a forked pool
and on Dask, each run checked and reported like the experiment runner reports a run."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.catalogue import pushed_boxes
from contactmodel.errors import OptionError


def _updates(problem: cm.Problem, count: int = 6) -> list[dict]:
    b0 = problem.assembly.b
    return [{"b": b0 * (1.0 + 0.2 * k)} for k in range(count)]


@pytest.fixture(params=[cm.Pyramid(0.5), cm.CoulombCone(0.5, form="soc")], ids=repr)
def problem(request) -> cm.Problem:
    return cm.formulate(pushed_boxes(), friction=request.param)


def test_each_run_answers_like_one_solve_and_the_problem_keeps_its_numbers(problem) -> None:
    b0 = problem.assembly.b.copy()
    updates = _updates(problem)
    sweep = cm.solve_many(problem, updates)
    assert sweep.ok and sweep.counts() == {"solved": len(updates)}
    np.testing.assert_array_equal(problem.assembly.b, b0)
    np.testing.assert_array_equal([problem.model.b[i].value for i in range(b0.size)], b0)
    for run, upd in zip(sweep.runs, updates):
        alone = cm.formulate(pushed_boxes(), friction=problem.laws["c0_0"])
        alone.update(**upd)
        reference = cm.solve(alone)
        assert run.status == reference.status.value == "solved"
        assert run.residual == run.solution.residual <= 1e-8
        assert run.law_residual == run.solution.checks["law_residual"]
        assert run.seconds == run.solution.seconds and run.wall_seconds >= run.seconds
        got = np.array([c.force for c in run.solution.contacts])
        want = np.array([c.force for c in reference.contacts])
        # the boxes' four corners share the load in many ways: compare each box's total force
        np.testing.assert_allclose(
            got.reshape(2, 4, 3).sum(axis=1), want.reshape(2, 4, 3).sum(axis=1), atol=1e-7
        )
    assert sweep.solver_seconds() == pytest.approx(sum(r.seconds for r in sweep.runs))
    assert [r["index"] for r in sweep.records()] == list(range(len(updates)))


def test_warm_starts_follow_the_sequence(problem) -> None:
    cm.solve(problem)
    warm = cm.solve_many(problem, _updates(problem))
    cold = cm.solve_many(problem, _updates(problem), warm_start=False)
    assert warm.runs[0].iterations <= 1  # the first set is the problem's own numbers, just solved
    assert sum(r.iterations for r in warm.runs) <= sum(r.iterations for r in cold.runs)


def test_a_run_that_raises_is_an_error_and_the_sweep_goes_on(problem) -> None:
    updates = _updates(problem, 3)
    updates[1] = {"b": np.zeros(5)}
    sweep = cm.solve_many(problem, updates, keep_solutions=False)
    assert [r.status for r in sweep.runs] == ["solved", "error", "solved"]
    assert "Problem.update: b" in sweep.runs[1].message and sweep.runs[1].solution is None
    assert not sweep.ok and sweep.counts() == {"solved": 2, "error": 1}
    assert all(r.solution is None for r in sweep.runs)


def test_mu_sweep_of_cone_blocks_restores_the_laws() -> None:
    problem = cm.formulate(pushed_boxes(), friction=cm.CoulombCone(0.5, form="soc"))
    sweep = cm.solve_many(problem, [{"mu": mu} for mu in (0.1, 0.3, 0.8)])
    assert sweep.ok
    assert {law.mu for law in problem.laws.values()} == {0.5}
    np.testing.assert_allclose(problem.compile().mcp.cones.mu, 0.5)


def test_process_pool_gives_the_in_process_answers(problem) -> None:
    updates = _updates(problem, 8)
    here = cm.solve_many(problem, updates, warm_start=False)
    pooled = cm.solve_many(problem, updates, warm_start=False, workers=2)
    assert [r.index for r in pooled.runs] == list(range(8))
    assert [r.status for r in pooled.runs] == [r.status for r in here.runs]
    for a, b in zip(pooled.runs, here.runs):
        np.testing.assert_allclose(a.solution.x, b.solution.x, atol=1e-12)


def test_dask_cluster_gives_the_in_process_answers(problem) -> None:
    distributed = pytest.importorskip("distributed")
    updates = _updates(problem, 4)
    here = cm.solve_many(problem, updates, warm_start=False)
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as lc,
        distributed.Client(lc) as client,
    ):
        remote = cm.solve_many(problem, updates, warm_start=False, scheduler=client)
    assert [r.status for r in remote.runs] == [r.status for r in here.runs]
    for a, b in zip(remote.runs, here.runs):
        np.testing.assert_allclose(a.solution.x, b.solution.x, atol=1e-12)


@pytest.mark.parametrize(
    ("updates", "match"),
    [
        ({"b": [0.0]}, "list of parameter sets"),
        ([1.0], r"updates\[0\] must be a mapping"),
        ([{"q": 1}], "unknown keys"),
    ],
)
def test_bad_updates_are_refused_before_any_run(problem, updates, match) -> None:
    with pytest.raises(OptionError, match=match):
        cm.solve_many(problem, updates)


def test_an_mcp_is_refused_with_the_fix() -> None:
    with pytest.raises(OptionError, match="cm.formulate"):
        cm.solve_many(cm.LCP(np.eye(2), np.ones(2)), [{}])
