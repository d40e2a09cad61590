"""
Cone, pyramid and polygon compared: the same push, turning in the floor plane
=============================================================================

The box of ``box_push.py`` (3 kg, mu = 0.5, so mu m g = 14.7 N) is pushed at its centre of
mass by a 16 N horizontal force whose direction turns from the contacts' t axis (x) towards o
(y). Coulomb's cone is isotropic: the push exceeds the friction limit in every direction, the
box slides and abs(a) = (16 - 14.7) / 3 = 0.43 m/s^2 whatever the angle. The 4-sided pyramid
abs(c_t), abs(c_o) <= mu c_n is larger along its diagonals (up to sqrt(2) mu c_n), so near 45 deg
the same push cannot move the box. The inscribed 8-gon is smaller than the cone between its
vertices (at multiples of 45 deg), so the box slides faster there. The friction set's shape,
not only mu, decides the motion.

    contactmodel solve examples/friction_comparison.py --friction pyramid:0.5
    python examples/friction_comparison.py          # the sweep table, and a plot if asked:
    python examples/friction_comparison.py --plot sweep.png
"""

from __future__ import annotations

import sys

import numpy as np

import contactmodel as cm

MU = 0.5
PUSH = 16.0  # N
LAWS = {"cone": cm.CoulombCone(MU), "pyramid": cm.Pyramid(MU), "8-gon": cm.Polygonal(MU, k=8)}
SOLVERS = {"cone": "newton", "pyramid": "lemke", "8-gon": "lemke"}


def build(angle_deg: float = 30.0, push: float = PUSH) -> cm.System:
    """The box on four corner contacts (tangent t = x), pushed at ``angle_deg`` from x."""
    system = cm.System(gravity=(0, 0, -9.81))
    angle = np.radians(angle_deg)
    box = system.add_body(
        "box",
        mass=3.0,
        inertia=cm.inertia.box(3.0, (0.4, 0.4, 0.4)),
        position=(0, 0, 0.2),
        wrench=(push * np.cos(angle), push * np.sin(angle), 0, 0, 0, 0),
    )
    for i, (x, y) in enumerate([(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0),
            normal=(0, 0, 1),
            tangent=(1, 0, 0),
            friction=cm.CoulombCone(MU),
            name=f"corner{i}",
        )
    return system


def push_response(law: str, angle_deg: float, push: float = PUSH) -> tuple[float, str]:
    """(|box acceleration| in m/s^2, mode of corner0) under the named law."""
    problem = cm.formulate(build(angle_deg, push), friction=LAWS[law])
    solution = cm.solve(problem, solver=SOLVERS[law])
    if not solution.ok:
        raise RuntimeError(f"{law} at {angle_deg} deg: {solution.status.value} ({solution.message})")
    return float(np.linalg.norm(solution.bodies[0].linear_acceleration)), solution.contacts[0].mode


def sweep(angles_deg) -> dict[str, np.ndarray]:
    """|a| for each law over the given push angles."""
    return {law: np.array([push_response(law, a)[0] for a in angles_deg]) for law in LAWS}


if __name__ == "__main__":
    angles = np.linspace(0.0, 90.0, 19)
    table = sweep(angles)
    print(f"{'angle [deg]':>12}" + "".join(f"{law:>10}" for law in LAWS))
    for i, a in enumerate(angles):
        print(f"{a:>12.1f}" + "".join(f"{table[law][i]:>10.4f}" for law in LAWS))
    import matplotlib.pyplot as plt

    ax = plt.figure(figsize=(8, 5)).add_subplot()  # a pyplot figure: shown in notebooks and the docs
    for law, values in table.items():
        ax = cm.sweep_plot(
            angles,
            values,
            ax=ax,
            label=law,
            xlabel="push direction from t [deg]",
            zlabel="|box acceleration| [m/s^2]",
            title=f"{PUSH:g} N push turning",
        )
    if "--plot" in sys.argv:
        out = sys.argv[sys.argv.index("--plot") + 1]
        ax = None
        for law, values in table.items():
            ax = cm.sweep_plot(
                angles,
                values,
                ax=ax,
                label=law,
                xlabel="push direction from t [deg]",
                zlabel="|box acceleration| [m/s^2]",
                title=f"{PUSH:g} N push turning",
            )
        ax.figure.savefig(out)
        print(f"wrote {out}")
