"""
A box sliding across a table, slowed down by Coulomb friction
=============================================================

The same 3 kg cube of side 0.4 m as in box_push.py stands on its four bottom corners, but it is
already sliding along +x at 1 m/s, and nothing pushes it. Friction is Coulomb with mu = 0.3.

Expected answer, derived by hand (g = 9.81 m/s^2, h = 0.2 m the height of the centre of mass
above the table, w = 0.2 m the half-width of the box):

* Every contact slides, so Coulomb's law fixes each friction force against the sliding
  velocity: f_i = -mu N_i along x, where N_i >= 0 is the normal force at corner i.
* The box stays on the table (normal accelerations zero), so vertically
  sum N_i - m g = 0, i.e. sum N_i = m g.
* Horizontally, m a_x = sum f_i = -mu sum N_i = -mu m g, so

      a_x = -mu g = -0.3 * 9.81 = -2.943 m/s^2,   a_y = a_z = 0.

* The friction forces act at the floor, h below the centre of mass, so they tip the box forward
  with a moment mu m g h about y. With no angular acceleration the normal forces balance it by
  shifting weight to the front corners: (N_front - N_back) w = mu m g h, so with
  N_front + N_back = m g, N_front = m g (1 + mu) / 2 = 19.13 N and N_back = m g (1 - mu) / 2 =
  10.30 N (front and back pairs). Both stay positive (mu < w / h), so the box does not tip.
  The moment changes how the normal forces are shared, but not their sum, so a_x is as above.
  (How each pair splits between its left and right corner is not unique: four contacts make
  the stance statically indeterminate.)

Run it:
    python examples/box_slide.py
    contactmodel solve examples/box_slide.py --json
"""

from __future__ import annotations

import contactmodel as cm

MASS = 3.0  # kg
SIDE = 0.4  # m, edge of the cube
MU = 0.3  # Coulomb friction coefficient
SPEED = 1.0  # m/s along +x


def build() -> cm.System:
    """The box sliding along +x on four corner contacts, with no applied force."""
    system = cm.System(gravity=(0.0, 0.0, -9.81))

    # A nonzero tangential velocity at a contact makes it a sliding contact: the friction law
    # then gives the friction force directly, opposite to the sliding direction.
    box = system.add_body(
        "box",
        mass=MASS,
        inertia=cm.inertia.box(MASS, (SIDE, SIDE, SIDE)),
        position=(0.0, 0.0, SIDE / 2),
        velocity=(SPEED, 0.0, 0.0),
    )

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
        title="examples/box_slide.py: " + solution.status.value,
        ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
    )
