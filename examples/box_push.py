"""
A box resting on a table, pushed sideways too gently to move it
===============================================================

A 3 kg cube of side 0.4 m stands on the table (the ground) on its four bottom corners. A
horizontal force of 10 N along +x acts at its centre of mass. Each corner has Coulomb friction
with mu = 0.5, so the table can hold at most mu m g = 0.5 * 3 * 9.81 = 14.715 N of sideways
force, and the box would only tip about its front edge under a push of m g * 0.2 / 0.2 = 29.43 N.
The push is below both limits, so the box stays put.

Expected answer: every contact rolls (sticks), the box's linear and angular accelerations are
zero, the normal forces add up to m g = 29.43 N and the friction forces to 10 N against the
push (force components are (n, t, o) in each contact frame; here t = +x, o = +y).

The four-contact stance is statically indeterminate: many sets of contact forces hold the box
still (the solver returns one of them, and different solvers or laws may return different
ones). The accelerations are unique, and so are the totals above.

Run it:
    python examples/box_push.py
    contactmodel solve examples/box_push.py
    contactmodel solve examples/box_push.py --friction pyramid:0.5 --solver lemke
"""

from __future__ import annotations

import contactmodel as cm

MASS = 3.0  # kg
SIDE = 0.4  # m, edge of the cube
MU = 0.5  # friction coefficient at each corner
PUSH = 10.0  # N along +x; below MU * MASS * 9.81 = 14.715 N, so no sliding


def build() -> cm.System:
    """The box on the table with four corner contacts and a 10 N push."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))

    # The wrench (force, torque) acts at the centre of mass, in world axes, on top of gravity.
    box = system.add_body(
        "box",
        mass=MASS,
        inertia=cm.inertia.box(MASS, (SIDE, SIDE, SIDE)),
        position=(0.0, 0.0, SIDE / 2),
        wrench=(PUSH, 0.0, 0.0, 0.0, 0.0, 0.0),
    )

    # One contact per bottom corner. The moving body comes first and the normal points into
    # it (up, out of the table). Each contact carries its own friction law; to try another law
    # without editing this file, override it for every contact in one line, either with
    # `--friction pyramid:0.5` on the command line or in Python with
    # `cm.formulate(system, friction=cm.Pyramid(0.5))`.
    half = SIDE / 2
    corners = [(half, half), (-half, half), (-half, -half), (half, -half)]
    for i, (x, y) in enumerate(corners):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0.0),
            normal=(0.0, 0.0, 1.0),
            friction=cm.CoulombCone(MU),
            name=f"corner{i}",
        )
    return system


if __name__ == "__main__":
    problem = cm.formulate(build())
    solution = cm.solve(problem)
    print(solution.table())
    import matplotlib.pyplot as plt

    # drawn into a pyplot figure, so that notebooks and the docs show it
    cm.draw(
        problem,
        solution,
        title="examples/box_push.py: " + solution.status.value,
        ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
    )
