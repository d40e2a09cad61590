"""Pair contact generation (sphere-sphere, sphere-box, box-box), the vectorized step assembly
and the reuse of a compiled step model when A changes, each against an independent
computation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.mcp.compile import compile_model
from contactmodel.mcp.direct import DirectMCP
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation import Plane, simulate
from contactmodel.simulation.collision import frames, pair_candidates
from contactmodel.simulation.stepper import Simulator
from contactmodel.update import AccelerationMap

from .scenes import balls_on_floor

I3 = np.eye(3)


def _pairs(shapes, positions, rotations=None, reach=1e-3):
    n = len(shapes)
    rot = np.array([I3] * n if rotations is None else rotations)
    return pair_candidates(shapes, np.array(positions, float), rot, np.full(n, reach), set())


def test_sphere_sphere_gap_normal_point():
    # centres 0.5 apart, radii 0.3 in total: gap 0.2, within the reach of 0.1 + 0.1
    (c,) = _pairs([Sphere(0.1), Sphere(0.2)], [(0.3, 0.4, 0.0), (0, 0, 0)], reach=0.1)
    assert c.gap == pytest.approx(0.2)
    assert np.allclose(c.normal, (0.6, 0.8, 0.0))
    assert np.allclose(c.point, (0.3, 0.4, 0) - 0.1 * np.array([0.6, 0.8, 0]))
    assert (c.a, c.b) == (0, 1)
    assert _pairs([Sphere(0.1), Sphere(0.2)], [(0.3, 0.4, 0.0), (0, 0, 0)], reach=0.09) == []


def test_sphere_box_face_edge_and_inside():
    box = Box((0.4, 0.2, 0.2))
    # above the top face: gap = 0.15 - 0.1 - 0.05
    (c,) = _pairs([box, Sphere(0.05)], [(0, 0, 0), (0.1, 0, 0.15)])
    assert (c.a, c.b) == (1, 0), "the sphere is body a"
    assert c.gap == pytest.approx(0.0) and np.allclose(c.normal, (0, 0, 1))
    # beyond an edge: nearest box point (0.2, 0, 0.1), distance sqrt(2) * 0.05
    (c,) = _pairs([Sphere(0.05), box], [(0.25, 0, 0.15), (0, 0, 0)], reach=0.02)
    assert c.gap == pytest.approx(np.sqrt(2) * 0.05 - 0.05)
    assert np.allclose(c.normal, np.array([1, 0, 1]) / np.sqrt(2))
    # centre inside, nearest face +y at 0.02: gap -0.02 - r
    (c,) = _pairs([Sphere(0.05), box], [(0.0, 0.08, 0.0), (0, 0, 0)])
    assert c.gap == pytest.approx(-0.02 - 0.05) and np.allclose(c.normal, (0, 1, 0))


def test_box_on_box_face_contacts():
    side = 0.2
    # same size, aligned, 1 mm apart: the 4 corners of the upper face
    found = _pairs([Box((side,) * 3)] * 2, [(0, 0, 0), (0, 0, side + 1e-3)], reach=2e-3)
    assert len(found) == 4
    for c in found:
        # the normal points from body b into body a, whichever box is the reference
        up = 1.0 if c.a == 1 else -1.0
        assert c.gap == pytest.approx(1e-3) and np.allclose(c.normal, (0, 0, up))
        assert abs(abs(c.point[0]) - side / 2) < 1e-12 and abs(abs(c.point[1]) - side / 2) < 1e-12
    # shifted diagonally by (3, 4) cm: the overlap square's 4 corners (2 are edge crossings)
    found = _pairs([Box((side,) * 3)] * 2, [(0, 0, 0), (0.03, 0.04, side)], reach=2e-3)
    corners = sorted(tuple(np.round(c.point[:2], 12)) for c in found)
    assert corners == sorted([(-0.07, -0.06), (0.1, -0.06), (0.1, 0.1), (-0.07, 0.1)])
    # turned about z: the clipped octagon is reduced to 4 points spanning it
    R = Rotation.from_euler("z", 0.3).as_matrix()
    found = _pairs([Box((side,) * 3)] * 2, [(0, 0, 0), (0, 0, side)], [I3, R], reach=2e-3)
    assert len(found) == 4
    pts = np.array([c.point[:2] for c in found])
    assert np.all(np.abs(pts) <= side / 2 + 1e-12)
    # apart: nothing
    assert _pairs([Box((side,) * 3)] * 2, [(0, 0, 0), (0, 0, side + 0.01)], reach=2e-3) == []


def test_box_face_contacts_keep_names_and_frames_under_small_motions():
    """A box resting shifted and turned on another (an overlap with cut corners, more than 4
    clipped points): small motions keep the contacts' names (the same model can be reused) and
    their t axes, which lie along an edge of the reference face."""
    side = 0.2
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(20):
        R0 = Rotation.from_rotvec(rng.normal(scale=1e-4, size=3)).as_matrix()
        R1 = Rotation.from_rotvec([*rng.normal(scale=1e-4, size=2), 0.05]).as_matrix()
        x1 = np.array([0.01, 0.0, side]) + rng.normal(scale=1e-6, size=3)
        found = _pairs([Box((side,) * 3)] * 2, [(0, 0, 0), x1], [R0, R1], reach=2e-3)
        assert len(found) == 4
        seen.add(tuple(sorted(c.label for c in found)))
        for c in found:
            ref = R1 if c.b == 1 else R0
            assert abs(c.tangent @ c.normal) < 1e-12
            assert max(abs(c.tangent @ ref[:, k]) for k in range(3)) == pytest.approx(1.0)
    assert len(seen) == 1


def test_frames_are_right_handed_and_match_contact_frame():
    n = np.array([[0, 0, 1.0], [0.6, 0.8, 0], [1, 1, 1] / np.sqrt(3)])
    F = frames(n)
    for f, normal in zip(F, n):
        assert np.allclose(f @ f.T, I3) and np.isclose(np.linalg.det(f), 1.0)
        assert np.allclose(f, cm.geometry.contact_frame(normal, None, "x"))


def _stack(n: int, tilt: float = 0.01) -> cm.System:
    system = cm.System()
    rng = np.random.default_rng(3)
    for k in range(n):
        R = Rotation.from_rotvec(rng.normal(scale=tilt, size=3)).as_matrix()
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (0.2,) * 3),
            position=(0.01 * k, 0, 0.1 + 0.2 * k - 2e-3),
            orientation=R,
            velocity=rng.normal(scale=0.05, size=3),
            angular_velocity=rng.normal(scale=0.3, size=3),
            shape=Box((0.2,) * 3),
        )
    return system


def test_vectorized_step_assembly_equals_assemble():
    sim = Simulator(
        _stack(3), 1e-3, friction=cm.Pyramid(0.5), planes=[Plane()], restitution=0.3, torsion=True
    )
    contacts, gaps = sim.contacts()
    assert any(c.body_b is not sim.system.ground for c in contacts), "box-box contacts present"
    fast = sim.step_assembly(contacts, gaps)
    sim.kinematics = None
    slow = sim.step_assembly(contacts, gaps)
    assert abs(fast.G - slow.G).max() < 1e-15
    assert np.allclose(fast.A, slow.A, atol=1e-12) and np.allclose(fast.b, slow.b, atol=1e-12)
    assert np.allclose(fast.f, slow.f) and abs(fast.Minv - slow.Minv).max() < 1e-9


@pytest.mark.parametrize("built", [False, True], ids=["arrays", "model"])
@pytest.mark.parametrize(
    "law",
    [cm.Pyramid(0.5), cm.CoulombCone(0.5, form="soc"), cm.AnisotropicCone(0.5, 0.3, form="soc")],
    ids=["pyramid", "soc", "anisotropic-soc"],
)
def test_compiled_model_follows_a_new_A(law, built):
    """The compiled matrix of a reused model with a new A equals a fresh compilation's, whether
    the MCP was made from the arrays or from the built model (its matrix map then probed)."""
    sim = Simulator(_stack(2), 1e-3, friction=law, planes=[Plane()])
    contacts, gaps = sim.contacts()
    step = sim.step_assembly(contacts, gaps)
    problem = sim.rebuild(step)
    if built:
        problem.model  # noqa: B018  (built now: compiled from the model)
    compiled = problem.compile()
    assert isinstance(compiled, DirectMCP) is not built
    sim.advance(np.concatenate([np.r_[b.velocity, b.angular_velocity] for b in sim.system.bodies]))
    step2 = sim.step_assembly(contacts, gaps)  # same contacts, bodies moved: another A
    assert abs(step2.A_sparse - step.A_sparse).max() > 1e-6
    assert problem.reassemble(step2)
    assert problem.compile() is compiled, "the same compiled MCP, its matrix replaced"
    fresh = compile_model(cm.formulate(step2, friction=dict(problem.laws)).model)
    assert [v.name for v in fresh.variables] == [v.name for v in problem.compile().variables]
    assert abs(problem.compile().mcp.M - fresh.mcp.M).max() < 1e-12
    assert np.array_equal(problem.compile().mcp.q, fresh.mcp.q), "the new b, read in place"
    x = np.linspace(0.0, 1.0, fresh.mcp.n)
    assert np.allclose(compiled.mcp.F(x), fresh.mcp.F(x), rtol=0, atol=1e-12), "F reads the new matrix"
    # every contact rolling with the SOC cone: the MCP's matrix is A itself, taken without products
    assert AccelerationMap(problem, compiled, step2.A_sparse).is_A == isinstance(law, cm.CoulombCone)


def test_an_A_within_the_tolerance_stands_for_the_compiled_one_once_compared(monkeypatch):
    """A reused model given an A within 1e-12 of its matrix's keeps its matrix, and that A, handed
    again (a step that keeps its A), is not compared again; an A farther off goes in, and the
    matrix is then a fresh compilation's."""
    import contactmodel.update as update

    sim = Simulator(_stack(2), 1e-3, friction=cm.Pyramid(0.5), planes=[Plane()])
    contacts, gaps = sim.contacts()
    step = sim.step_assembly(contacts, gaps)
    problem = sim.rebuild(step)
    compiled = problem.compile()
    M0 = compiled.mcp.M.copy()
    near = sim.step_assembly(contacts, gaps)
    near.__dict__["A_sparse"] = near.A_sparse.copy()
    near.A_sparse.data *= 1.0 + 1e-14  # within same_matrix's 1e-12
    compared = []
    monkeypatch.setattr(update, "same_matrix", lambda A, B: compared.append(B) or True)
    for _ in range(3):
        assert problem.reassemble(near)
    assert compared == [near.A_sparse], "compared once, then standing"
    monkeypatch.undo()
    assert abs(problem.compile().mcp.M - M0).max() == 0.0, "the matrix made with the first A kept"
    sim.advance(np.concatenate([np.r_[b.velocity, b.angular_velocity] for b in sim.system.bodies]))
    far = sim.step_assembly(contacts, gaps)
    assert problem.reassemble(far) and problem.reassemble(near)
    fresh = cm.formulate(near, friction=dict(problem.laws)).compile()
    assert abs(problem.compile().mcp.M - fresh.mcp.M).max() < 1e-12, "near compared anew, after far"


def test_pile_dissipates_and_reuses_models():
    """Two columns of boxes dropped on the floor: box-box and floor contacts, energy never
    increasing, models reused while only A changes."""
    system = _stack(3, tilt=0.005)
    for b in system.bodies:
        b.velocity[:] = 0
        b.angular_velocity[:] = 0
        b.position[2] += 0.005 * (1 + int(b.name[1:]))  # every gap open: no penetration to correct
    traj = simulate(system, 0.06, 1e-3, friction=cm.Pyramid(0.5), planes=[Plane()], keep_steps=False)
    assert traj.ok
    assert np.max(np.diff(traj.energy)) <= 1e-9
    assert any("@b" in name for name in traj.impulses), "box-box contacts were generated"
    assert traj.reused.sum() > traj.n_steps // 2
    assert np.abs(traj.velocities[-1]).max() < 0.05


def _active(traj, k: int) -> set[str]:
    return {name for name, imp in traj.impulses.items() if not np.isnan(imp[k, 0])}


def _balls() -> cm.System:
    """Three balls on the floor, sliding and spinning, the first two touching."""
    return balls_on_floor([(0.0, (0.4, 0.1, 0)), (0.2 - 1e-4, (-0.2, 0.0, 0)), (0.6, (0.3, -0.3, 0))])


@pytest.mark.parametrize(
    "law, balls",
    [(cm.Pyramid(0.5), False), (cm.CoulombCone(0.5, form="soc"), True)],
    ids=["pyramid-pile", "soc-balls"],
)
def test_reused_warm_started_run_matches_a_from_scratch_run(law, balls):
    """Reusing the compiled model and warm-starting each step (also across rebuilds, by
    variable name) change the work, not the motion. Against the same run with a new model and
    a cold start every step: with reuse alone and with warm starts too, the states agree (to
    1e-8 m; velocities to 1e-5 m/s, as nearly degenerate steps of the pile amplify the solver's
    tolerance) up to the first step whose generated contact set differs, if any (a contact
    generated on differences that small parts the motions, as in any two runs at the solver's
    tolerance). The cone is compared on balls:
    with boxes, a step under the cone can have several solutions with different velocities (a
    box sliding on 4 coplanar corners: the normal impulses, hence the friction's torque, are not
    unique), and two starts may pick different ones, both verified. The pyramid pile has such a
    step too once its lowest box lands on the floor (step 26: the warm and the cold start end in
    the same modes with impulses 3e-3 N s and velocities 6e-5 m/s apart, both solved to 1e-10):
    the pile is compared up to it."""
    if balls:
        system = _balls()
    else:
        system = _stack(3, tilt=0.005)
        for b in system.bodies:
            b.position[2] += 0.002 * (1 + int(b.name[1:]))
    run = {"planes": [Plane()], "friction": law, "keep_steps": False}
    slow = simulate(system, 0.05, 1e-3, reuse=False, warm_start=False, **run)
    reused = simulate(system, 0.05, 1e-3, warm_start=False, **run)
    fast = simulate(system, 0.05, 1e-3, **run)
    assert fast.ok and slow.ok and reused.ok
    assert not slow.reused.any() and reused.reused.sum() > reused.n_steps // 2
    assert fast.reused.sum() > fast.n_steps // 2
    for run in (reused, fast):
        same = 0
        while same < slow.n_steps and _active(run, same) == _active(slow, same):
            same += 1
        assert same >= 25 and any("@b" in name for name in _active(slow, same - 1)), "pair contacts"
        k = same + 1  # the state after the last step with the same contacts
        if not balls:
            k = min(k, 27)  # step 26 has several solutions (see the docstring)
        assert np.abs(run.positions[:k] - slow.positions[:k]).max() < 1e-8
        assert np.abs(run.velocities[:k] - slow.velocities[:k]).max() < 1e-5
        assert np.abs(run.angular_velocities[:k] - slow.angular_velocities[:k]).max() < 1e-4
    assert fast.iterations.sum() < slow.iterations.sum(), "warm starts save iterations"


@pytest.mark.parametrize(
    "law",
    [
        cm.CoulombCone(0.5, form="mncp"),
        cm.AnisotropicCone(0.5, 0.4, form="mncp"),
        cm.Ellipsoid(0.5, form="mncp"),
    ],
    ids=["cone_mncp", "anisotropic", "ellipsoid"],
)
def test_quadratic_rows_follow_a_new_A(law):
    """A law with quadratic rows (the MNCP's cone slack and slip rows) made from the arrays: the
    reused MCP takes a new A in its linear part, keeps its quadratic terms, and its F and J are a
    fresh formulation's."""
    sim = Simulator(_stack(2), 1e-3, friction=law, planes=[Plane()], torsion=isinstance(law, cm.Ellipsoid))
    contacts, gaps = sim.contacts()
    step = sim.step_assembly(contacts, gaps)
    problem = sim.rebuild(step)
    compiled = problem.compile()
    assert isinstance(compiled, DirectMCP) and compiled.mcp.M is None, "quadratic terms: not affine"
    sim.advance(np.concatenate([np.r_[b.velocity, b.angular_velocity] for b in sim.system.bodies]))
    step2 = sim.step_assembly(contacts, gaps)
    assert abs(step2.A_sparse - step.A_sparse).max() > 1e-6
    assert problem.reassemble(step2)
    assert problem.compile() is compiled, "the same compiled MCP, its linear part replaced"
    fresh_problem = cm.formulate(step2, friction=dict(problem.laws))
    fresh = fresh_problem.compile()
    assert list(fresh.mcp.names) == list(compiled.mcp.names)
    rng = np.random.default_rng(3)
    for _ in range(3):
        x = rng.uniform(-1.0, 1.0, fresh.mcp.n)
        assert np.allclose(compiled.mcp.F(x), fresh.mcp.F(x), rtol=0, atol=1e-12)
        assert abs(compiled.mcp.J(x) - fresh.mcp.J(x)).max() < 1e-12
    reused, anew = cm.solve(problem), cm.solve(fresh_problem)
    assert reused.ok and anew.ok
    for mine, theirs in zip(reused.bodies, anew.bodies):
        assert np.allclose(mine.linear_acceleration, theirs.linear_acceleration, rtol=1e-6, atol=1e-6)
