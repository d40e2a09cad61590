"""The simulation step's shortcuts against the long way: islands of bodies solved apart against
the whole step solved as one problem, the overlap projection's direct Lemke call against
``cm.solve``, and the reused model's kept layout against a layout made afresh."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.shapes import Box
from contactmodel.simulation import Plane, simulate
from contactmodel.simulation.stepper import Simulator, projection_lcp

from .scenes import balls_on_floor, sliding_box


def _balls() -> cm.System:
    """Four balls on the floor, sliding and spinning: b0 and b1 touching, b2 and b3 touching,
    the two pairs 1 m apart (two islands of two balls)."""
    return balls_on_floor(
        [(0.0, (0.4, 0.1, 0)), (0.2 - 1e-4, (-0.2, 0.0, 0)), (1.2, (0.3, -0.3, 0)), (1.4 - 1e-4, (0, 0, 0))]
    )


def _stacks() -> cm.System:
    """Two columns of two boxes resting 0.5 m apart (two islands), a box beside them alone."""
    system = cm.System()
    for k, (x, z) in enumerate([(0.0, 0.1), (0.01, 0.3), (0.5, 0.1), (0.49, 0.3), (1.0, 0.1)]):
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (0.2,) * 3),
            position=(x, 0.0, z - 1e-4),
            velocity=(0.05 * (k == 4), 0.0, 0.0),
            shape=Box((0.2,) * 3),
        )
    return system


def test_islands_group_the_contacts_of_bodies_joined_by_contacts():
    sim = Simulator(_balls(), 1e-3, friction=cm.Pyramid(0.5), planes=[Plane()])
    contacts, _ = sim.contacts()
    groups = sim.islands(contacts)
    bodies = [
        {b.name for i in g for b in (contacts[i].body_a, contacts[i].body_b)} - {"ground"} for g in groups
    ]
    assert sorted(map(sorted, bodies)) == [["b0", "b1"], ["b2", "b3"]]
    assert sorted(np.concatenate(groups).tolist()) == list(range(len(contacts)))
    sim.split = False
    assert len(sim.islands(contacts)) == 1


def test_an_island_step_holds_its_bodies_and_the_whole_steps_numbers():
    """Each island's step has the columns of its own bodies only, and its A and b are the whole
    step's rows and columns of its contacts (the same products of the same entries)."""
    sim = Simulator(_stacks(), 1e-3, friction=cm.Pyramid(0.5), planes=[Plane()])
    contacts, gaps = sim.contacts()
    step = sim.step_assembly(contacts, gaps)
    groups = sim.islands(contacts)
    assert sorted(len(g) for g in groups) == [4, 8, 8]  # the lone box, two columns of two
    for idx in groups:
        island = sim.island_step(step, contacts, idx)
        names = {b.name for i in idx for b in (contacts[i].body_a, contacts[i].body_b)} - {"ground"}
        assert [b.name for b in island.system.bodies] == sorted(names)
        assert island.G.shape[1] == island.Minv.shape[0] == island.M.shape[0] == 6 * len(names)
        rows = [r for i in idx for r in step.contact_rows[contacts[i].name].values()]
        assert np.abs(island.A - step.A[np.ix_(rows, rows)]).max() <= 1e-14 * np.abs(step.A).max()
        assert np.abs(island.b - step.b[rows]).max() <= 1e-14 * max(1.0, np.abs(step.b).max())


def test_overlap_projection_by_islands_equals_the_whole_projection():
    """The overlap projection's push solved island by island equals the one LCP of every
    penetrating contact (A is block diagonal over the islands; the push M^-1 G_n^T lam is unique
    for this symmetric positive semidefinite LCP even where lam is not)."""
    sim = Simulator(_stacks(), 1e-3, friction=cm.Pyramid(0.5), planes=[Plane()])
    contacts, gaps = sim.contacts()
    assert np.min(gaps) < 0, "the boxes start 0.1 mm into the floor and each other"
    step = sim.step_assembly(contacts, gaps)
    nu = step.accelerations(np.zeros(len(step.rows)))
    by_islands = sim.overlap_push(step, contacts, gaps, nu)
    sim.split = False
    whole = sim.overlap_push(step, contacts, gaps, nu)
    assert whole is not None and by_islands is not None
    assert np.abs(by_islands - whole).max() <= 1e-9 * np.abs(whole).max()


@pytest.mark.parametrize("law", [cm.Pyramid(0.5), cm.CoulombCone(0.5, form="soc")], ids=["pyramid", "soc"])
def test_one_step_by_islands_equals_the_whole_step(law):
    """The islands' impulses give the post-step velocities of the whole step solved as one
    problem, to the solver's tolerance, and each contact's law holds."""
    sim = Simulator(_balls(), 1e-3, friction=law, planes=[Plane()], warm_start=False)
    contacts, gaps = sim.contacts()
    step = sim.step_assembly(contacts, gaps)
    groups = sim.islands(contacts)
    assert len(groups) == 2
    p, solution, reused, failed, _ = sim.solve_islands(step, contacts, groups)
    assert failed is None and solution.ok and not reused
    assert solution.extras["islands"] == 2 and len(solution.contacts) == len(contacts)
    whole = sim.rebuild(step)
    answer = sim.solve(whole)
    assert answer.ok
    p_whole = whole.force_vector()
    assert np.abs(step.accelerations(p) - step.accelerations(p_whole)).max() < 1e-8
    assert np.abs(p - p_whole).max() < 1e-8  # spheres: unique impulses
    assert whole.law_residual(p, step.contact_accelerations(p)) < 1e-8


def _active(traj, k: int) -> set[str]:
    return {name for name, imp in traj.impulses.items() if not np.isnan(imp[k, 0])}


@pytest.mark.parametrize(
    "scene, law",
    [("balls", cm.CoulombCone(0.5, form="soc")), ("balls", cm.Pyramid(0.5)), ("stacks", cm.Pyramid(0.5))],
    ids=["balls-soc", "balls-pyramid", "stacks-pyramid"],
)
def test_run_by_islands_matches_the_run_as_one_problem(scene, law):
    """A run whose islands are solved apart against the same run solved as one problem per step:
    the same states to the solver's tolerance (1e-8 m, 1e-6 m/s), the islands' models reused.
    The balls have the same contacts in every step; the boxes' face contacts may be generated
    with other corner labels (which corners of two coplanar faces are kept turns on differences
    of 1e-11 m/s), the states agreeing all the same."""
    system = _balls() if scene == "balls" else _stacks()
    run = {"planes": [Plane()], "friction": law, "keep_steps": False}
    apart = simulate(system, 0.03, 1e-3, **run)
    whole = simulate(system, 0.03, 1e-3, islands=False, **run)
    assert apart.ok and whole.ok and apart.n_steps == whole.n_steps == 30
    assert apart.reused.any()
    if scene == "balls":  # the same contacts every step: the islands' models reused as the whole's
        assert apart.reused.sum() >= whole.reused.sum() // 3
        assert all(_active(apart, k) == _active(whole, k) for k in range(whole.n_steps))
    assert np.abs(apart.positions - whole.positions).max() < 1e-8
    assert np.abs(apart.velocities - whole.velocities).max() < 1e-6
    assert np.abs(apart.angular_velocities - whole.angular_velocities).max() < 1e-5


def test_projection_lcp_is_cm_solve_lemke():
    """The overlap projection's direct Lemke call returns cm.solve's answer bit for bit, and
    None where cm.solve does not accept one."""
    rng = np.random.default_rng(7)
    for n in (1, 3, 4, 8):
        for _ in range(5):
            G = rng.normal(size=(n, 6))
            A = G @ G.T + 1e-3 * np.eye(n)
            A = 0.5 * (A + A.T)
            q = rng.normal(size=n)
            ours = projection_lcp(A, q)
            theirs = cm.solve(cm.LCP(A, q), solver="lemke", fallback=False)
            assert theirs.ok and ours is not None
            assert np.array_equal(ours, theirs.x)
    A, q = -np.eye(2), np.array([-1.0, -1.0])  # no solution: a ray
    assert not cm.solve(cm.LCP(A, q), solver="lemke", fallback=False).ok
    assert projection_lcp(A, q) is None


def test_reused_step_model_keeps_its_layout():
    """A reused step model keeps its layout (made once for the contact set) and gives the
    answers of a model formulated afresh for the same step."""
    system, planes = sliding_box()
    sim = Simulator(system, 1e-3, friction=cm.CoulombCone(0.5, form="soc"), planes=planes)
    layouts = []
    for _ in range(4):
        contacts, gaps = sim.contacts()
        step = sim.step_assembly(contacts, gaps)
        problem, reused = sim.problem_for(step, contacts)
        solution = sim.solve(problem)
        assert solution.ok
        layouts.append(problem.layout)
        fresh = cm.formulate(step, friction=dict(problem.laws))
        again = cm.solve(fresh, fallback=False)
        assert (
            np.abs(
                step.accelerations(problem.force_vector()) - step.accelerations(fresh.force_vector())
            ).max()
            < 1e-8
        )
        assert [c.mode for c in solution.contacts] == [c.mode for c in again.contacts]
        sim.solved(problem, solution.x)
        sim.advance(step.accelerations(problem.force_vector()))
    assert reused and layouts[1] is layouts[2] is layouts[3]
