"""A box resting on point contacts at corners of its base: the statically indeterminate cases of
the decide tests (imported by name, like tests/mcp_checks.py)."""

from __future__ import annotations

import contactmodel as cm

SQUARE = [(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]
TRIANGLE = [(0.2, 0.0), (-0.1, 0.17), (-0.1, -0.17)]


def box_on_corners(law, push: float = 0.0, torsion: bool = False, corners=SQUARE) -> cm.Problem:
    """A 2 kg box (0.4 m cube) at rest on contacts at ``corners`` (x, y) of its base, optionally
    pushed along x at its centre of mass (N). On the four corners: twelve contact rows, six
    freedoms, statically indeterminate also in the normal forces; on a triangle: nine rows, three
    internal force directions, all in the ground plane (the normal forces are determinate)."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    box = system.add_body(
        "box",
        mass=2.0,
        inertia=cm.inertia.box(2.0, (0.4, 0.4, 0.4)),
        position=(0.0, 0.0, 0.2),
        wrench=(push, 0.0, 0.0, 0.0, 0.0, 0.0),
    )
    for i, (x, y) in enumerate(corners):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0.0),
            normal=(0.0, 0.0, 1.0),
            friction=law,
            name=f"c{i}",
            torsion=torsion,
        )
    return cm.formulate(system)
