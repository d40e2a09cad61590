"""The overlap projection's shortcut against the long way: when Lemke's method would stop at
lam = 0 before its first pivot (no contact penetrates beyond round-off, e.g. a box resting or
sliding on the floor), the step skips building the projection's LCP and calling Lemke. The
trajectories must then be the same bit for bit as with Lemke called on every step."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation import Plane, simulate, stepper
from contactmodel.simulation.stepper import island_labels, projection_is_zero, projection_lcp

from .scenes import box_on_incline, sliding_box


def _ball() -> tuple[cm.System, list[Plane]]:
    """A ball thrown along the floor without spin (slides, then rolls)."""
    system = cm.System()
    system.add_body(
        "ball", 1.0, cm.inertia.sphere(1.0, 0.1), position=(0, 0, 0.1), velocity=(1, 0, 0), shape=Sphere(0.1)
    )
    return system, [Plane(tangent=(1.0, 0.0, 0.0))]


def _boxes(drop: float) -> tuple[cm.System, list[Plane]]:
    """Two columns of two boxes, the upper ones offset, ``drop`` (m) above their supports
    (negative: overlapping by that much, which the projection removes)."""
    system = cm.System()
    for k, (x, z) in enumerate([(0.0, 0.1), (0.01, 0.3), (0.5, 0.1), (0.49, 0.3)]):
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (0.2,) * 3),
            position=(x, 0.0, z + (k + 1) * drop),
            velocity=(0.05 * (k == 3), 0.0, 0.0),
            shape=Box((0.2,) * 3),
        )
    return system, [Plane(tangent=(1.0, 0.0, 0.0))]


SCENES = {
    "box_slide": lambda: sliding_box((1.0, 0.0, 0.0)),
    "incline": lambda: box_on_incline(np.radians(35.0))[:2],
    "sphere": _ball,
    "stacks": lambda: _boxes(-1e-4),
    "pile": lambda: _boxes(2e-3),
}


def _run(scene: str, law, monkeypatch, skip: bool):
    """The run of ``scene`` and how many steps called Lemke for the projection."""
    calls = []

    def counted(A, q):
        calls.append(len(q))
        return projection_lcp(A, q)

    with monkeypatch.context() as m:
        m.setattr(stepper, "projection_lcp", counted)
        if not skip:
            m.setattr(stepper, "projection_is_zero", lambda q: bool(np.all(q >= 0.0)))
        system, planes = SCENES[scene]()
        traj = simulate(system, 0.06, 1e-3, friction=law, solver="newton", planes=planes)
    return traj, len(calls)


@pytest.mark.parametrize("scene", list(SCENES))
@pytest.mark.parametrize("law", [cm.CoulombCone(0.5, form="soc"), cm.Pyramid(0.5)], ids=["cone", "pyramid"])
def test_skipped_projection_leaves_the_trajectory_bit_for_bit(scene, law, monkeypatch):
    short, short_calls = _run(scene, law, monkeypatch, skip=True)
    long, long_calls = _run(scene, law, monkeypatch, skip=False)
    assert short.failed_step is None and long.failed_step is None
    for name in ("positions", "quaternions", "velocities", "angular_velocities", "overlap_lift"):
        assert np.array_equal(getattr(short, name), getattr(long, name)), name
    assert short.impulses.keys() == long.impulses.keys()
    for name in short.impulses:
        assert np.array_equal(short.impulses[name], long.impulses[name], equal_nan=True), name
    assert short_calls <= long_calls
    if scene in ("box_slide", "incline"):
        assert short_calls < long_calls  # the shortcut was taken on these resting contacts
    if scene == "stacks":
        assert short_calls > 0 and np.max(short.overlap_lift) > 0.0  # the overlaps were pushed out


def test_projection_is_zero_exactly_when_lemke_stops_at_zero():
    rng = np.random.default_rng(3)
    for _ in range(200):
        k = int(rng.integers(1, 6))
        B = rng.normal(size=(k, 6))
        A = B @ B.T + 1e-3 * np.eye(k)
        q = rng.normal(size=k) * 10.0 ** rng.integers(-16, 1, size=k)
        if projection_is_zero(q):
            x = projection_lcp(A, q)
            assert x is not None and np.array_equal(x, np.zeros(k))
    assert projection_is_zero(np.array([1e-14, -5e-15]))
    assert not projection_is_zero(np.array([1e-14, -1e-9]))


def test_island_labels_without_body_contacts_are_connected_components_labels():
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(5)
    for nb in (1, 2, 5, 30):
        a = rng.integers(-1, nb, size=3 * nb)
        b = np.where(a >= 0, -1, rng.integers(0, nb, size=3 * nb))  # each contact touches the ground
        graph = sp.csr_matrix((nb, nb))
        assert np.array_equal(island_labels(a, b, nb), connected_components(graph, directed=False)[1])
    a, b = np.array([0, 1, 2]), np.array([-1, 2, -1])  # bodies 1 and 2 touch: the graph decides
    labels = island_labels(a, b, 3)
    assert labels[1] == labels[2] != labels[0]
