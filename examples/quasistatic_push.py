"""
A finger pushing a box slowly, off its centre: which way does the box turn?
===========================================================================

A 2 kg box, 0.2 m x 0.2 m x 0.1 m, stands on the table on its four bottom corners (Coulomb
friction mu = 0.4). A frictionless finger (a driven body) touches the middle of its back face
(x = -0.1 m) at centroid height, ``OFFSET`` = 0.05 m to the left of the centre line (+y), and
moves along +x at 0.1 m/s. Pushing is slow, so inertia is negligible: the problem is quasistatic
(``cm.quasistatic``), its unknowns the box's twist and the contact forces.

Expected answer (hand-checkable):

- pushed through the centre (``OFFSET = 0``) the box moves with the finger at 0.1 m/s without
  turning, every corner slides, and the finger pushes with mu m g = 0.4 * 2 * 9.81 = 7.848 N;
- pushed off the centre to the left, the box turns clockwise seen from above (angular velocity
  about +z negative): the push's moment about the centre of mass decides the sense of rotation
  whatever the support pressure (Mason's voting theorem, "Mechanics and planning of manipulator
  pushing operations", 1986), and the twist is the one of least frictional power among those the
  finger allows (Goyal, Ruina and Papadopoulos, "Planar sliding with dry friction", 1991).

The four-corner support is statically indeterminate: the normal forces are not unique, and
with the round cone nor is the rotation rate (``cm.decide`` says MULTIPLE and gives two
answers); its sense is the same in every answer.

Run it:
    python examples/quasistatic_push.py
    contactmodel solve examples/quasistatic_push.py --quasistatic
    contactmodel solve examples/quasistatic_push.py --quasistatic --friction pyramid:0.4 --decide
"""

from __future__ import annotations

import numpy as np

import contactmodel as cm

MASS = 2.0  # kg
LENGTH, WIDTH, HEIGHT = 0.2, 0.2, 0.1  # m
MU = 0.4  # table friction at each corner
SPEED = 0.1  # m/s, the finger along +x
OFFSET = 0.05  # m, the finger to the left (+y) of the centre line

#: the driven motion ``contactmodel solve --quasistatic`` reads: the finger's twist
DRIVEN = {"finger": [SPEED, 0.0, 0.0, 0.0, 0.0, 0.0]}


def build(law: cm.FrictionLaw | None = None, offset: float = OFFSET) -> cm.System:
    """The box on its four corners and the finger touching its back face at ``offset`` (m)."""
    law = cm.CoulombCone(MU) if law is None else law
    system = cm.System()
    box = system.add_body(
        "box",
        MASS,
        cm.inertia.box(MASS, (LENGTH, WIDTH, HEIGHT)),
        position=(0.0, 0.0, HEIGHT / 2),
        shape=cm.shapes.Box((LENGTH, WIDTH, HEIGHT)),
    )
    finger = system.add_body(
        "finger", 0.1, np.diag([1e-5] * 3), position=(-LENGTH / 2 - 0.01, offset, HEIGHT / 2)
    )
    corners = [(-1, -1), (1, -1), (1, 1), (-1, 1)]
    for k, (sx, sy) in enumerate(corners):
        point = (sx * LENGTH / 2, sy * WIDTH / 2, 0.0)
        system.add_contact(box, system.ground, point, (0, 0, 1), (1, 0, 0), friction=law, name=f"corner{k}")
    # the finger first: its tip is the touching point, the box face the surface (``cm.push`` moves
    # a contact's point with body_a and turns its frame with body_b); the normal points into body_a
    system.add_contact(
        finger,
        box,
        (-LENGTH / 2, offset, HEIGHT / 2),
        (-1, 0, 0),
        (0, 1, 0),
        friction=cm.Frictionless(),
        name="finger",
    )
    return system


def main() -> None:
    for offset in (0.0, OFFSET):
        problem = cm.quasistatic(build(offset=offset), driven=DRIVEN)
        solution = cm.solve(problem)
        push = solution.contact("finger")
        twist = next(b for b in solution.bodies if b.name == "box")
        print(
            f"finger {offset:+.2f} m off the centre line: "
            f"box velocity {np.round(twist.linear_velocity, 4)} m/s, "
            f"angular velocity {twist.angular_velocity[2]:+.4f} rad/s, finger force {push.force[0]:.4f} N"
        )
    path = cm.push(build(), DRIVEN, dt=0.05, steps=20)
    print(
        f"after {path.times[-1]:.1f} s the box is at {np.round(path.position('box')[-1], 4)} m, "
        f"turned {np.degrees(path.yaw('box')[-1]):+.1f} degrees"
    )


if __name__ == "__main__":
    main()
