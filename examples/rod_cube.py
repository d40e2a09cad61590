"""A cube pushed and twisted by an active rod, resting on a hump (seed 002 §4, Examples 1 and 2).

The system of Trinkle and Pang's distributed-contact paper: a uniform cube of side 2 (its
centre at the world origin, faces at x, y, z = +-1) and an active rod whose axis is parallel
to the world x axis. The rod's tip presses on the cube's front face x = +1; its two actuated
joints translate the rod along its axis with a force tau1 (N) and turn it about its axis with
a moment tau2 (N m). Every contact is a soft finger (``torsion=True``): besides the force
(c_n, c_t, c_o) it carries a moment c_r about its normal, and friction follows the
ellipsoidal limit surface c_t^2/e_t^2 + c_o^2/e_o^2 + c_r^2/e_r^2 <= mu^2 c_n^2 (seed 002
(1), ``cm.Ellipsoid(mu, e_t, e_o, e_r)``) with maximum work.

Contacts (points relative to the cube's centre; normals point into the cube, which is the
first body of each contact; o = n x t):

==========  ================================  ===========  ===========  ===========
contact     point (m)                         n            t            o
==========  ================================  ===========  ===========  ===========
rod         (1, eta - 1, zeta - 1)            (-1, 0, 0)   (0, 1, 0)    (0, 0, -1)
hump        (-1, -1, -1) (Ex. 2), (0, 0, -1)  (0, 0, 1)    (0, 1, 0)    (-1, 0, 0)
fixed_rod   (1 - delta, 1, gamma - 1) (Ex. 2) (0, -1, 0)   (0, 0, -1)   (1, 0, 0)
==========  ================================  ===========  ===========  ===========

The rod's axis passes through its contact point, so turning the rod twists the contact
(relative spin about n) without sliding it. The rod's joint axes both point along -x, into
the cube: a positive tau1 pushes the cube and a positive tau2 turns the rod with the
right-hand rule about n1 = -x. With these signs the jammed equilibrium has c_n1 = tau1 and
c_r1 = tau2, as in the paper's Table 1.

Masses. The paper gives the system mass matrix M = diag(1, 1, 1, 3, 3, 3, 4, 2): cube mass
1 kg and inertia 3 kg m^2 about each axis; rod translation inertia 4 kg (carriage 2 kg plus
rod 2 kg) and rod axial inertia 2 kg m^2. This file builds that M faithfully. Gravity is
g = 10 m/s^2 along -z (the cube weighs 10 N); the rod's joints carry no gravity load.

How this model compares with the paper's Table 1 (see /work/shared/seeds/README.md):

* Table 1's accelerations of the sliding solution are reproduced (to the 4 printed digits)
  only from the matrices the authors evidently used: diag(1, 1, 1, 3, 3, 3, 4, 2) as the
  INVERSE mass matrix and -1 instead of +1 as the y-moment entry of the hump's o column (the
  corner geometry, and display (2) itself, give +1). Their friction is also parallel to
  -(a_t, a_o, a_r) rather than maximum work's -(e_t^2 a_t, e_o^2 a_o, e_r^2 a_r).
* The jammed solution needs no M (all accelerations zero: G^T c + f = 0), but Table 1's jammed
  forces (``TABLE1_JAMMED``) leave a y-moment of 2 c_o2 = -5.943 N m on the cube in this
  geometry, and balance exactly with the o2 entry flipped: the same sign difference.
* This faithful model jams: Newton (and IPOPT and scipy, from 18 starting points we tried)
  find rolling contacts and zero accelerations with c_n1 = tau1 = 6 N and c_r1 = tau2 = 3 N m.
  The other forces differ from Table 1's because a jammed cube is statically indeterminate
  (12 force components, 8 equations). We found no sliding solution of the faithful model.

Example 2 (default): three contacts, eta = zeta = gamma = 1.5, delta = 0.5, mu = 0.9 and
Ellipsoid(0.9, 1, 1, 2) at every contact, tau = (6, 3), bodies at rest. The paper found two
solutions, the system jams or all contacts slide. Example 1: no fixed rod, the hump under the
middle of the bottom face, eta = 1.5, zeta = 2 (or 0: singular Jacobian), tau = (5, 3),
e_r = 1 at the rod and 0.25 at the hump, mu1 and mu2 varied over [0.1, 1.0] in the paper.

The contact Jacobian (8 x 12, seed 002 display (2)) is G^T here with its columns ordered
(n1, n2, n3, t1, t2, t3, o1, o2, o3, r1, r2, r3); its cube rows agree with the paper's. Its
two rod rows have the opposite sign: seed 000 (3) writes the manipulator dynamics as
tau - J^T c = M qddot, while this library writes M qddot = tau + G^T c.

Run it:
    python examples/rod_cube.py
    contactmodel solve examples/rod_cube.py --json
    contactmodel solve examples/rod_cube.py --friction elliptic-torsion:0.9:1:1:2
"""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel.manipulator import Link, Prismatic, Revolute

GRAVITY = 10.0  # m/s^2 along -z; the paper's cube weighs 10 N
CUBE_MASS = 1.0  # kg
CUBE_INERTIA = 3.0  # kg m^2 about each axis (the paper's M, not a uniform cube's 2/3)
CARRIAGE_MASS = 2.0  # kg; with the rod, the translation inertia is 4 kg
ROD_MASS = 2.0  # kg
ROD_AXIAL_INERTIA = 2.0  # kg m^2, the rotation inertia of the paper's M
ROD_LENGTH = 1.0  # m; any length gives the same M (the rod's centre of mass is on its axis)

EXAMPLE_1 = {"eta": 1.5, "zeta": 2.0, "tau": (5.0, 3.0), "mu": (0.5, 0.5), "e_r": (1.0, 0.25)}
EXAMPLE_2 = {
    "eta": 1.5,
    "zeta": 1.5,
    "gamma": 1.5,
    "delta": 0.5,
    "tau": (6.0, 3.0),
    "mu": (0.9, 0.9, 0.9),
    "e_r": (2.0, 2.0, 2.0),
}

#: Table 1, Solution 1 (jamming): (c_n, c_t, c_o, c_r) per contact of Example 2, N and N m.
TABLE1_JAMMED = {
    "rod": (6.0, 1.5767, -4.1892, 3.0),
    "hump": (4.2039, 2.3350, -2.9716, -0.2292),
    "fixed_rod": (3.9117, -1.6069, 3.0284, 0.6971),
}

#: Table 1, Solution 2 (all sliding) as printed, for comparison with this model's answers.
TABLE1_SLIDING = {
    "rod": {"force": (5.6399, -0.8763, -4.8224, 2.6394), "accel": (0.0, 0.0815, 0.4483, -0.2454)},
    "hump": {"force": (4.1562, 2.2585, -2.9756, -0.3840), "accel": (0.0, -0.9582, 1.2624, 0.1629)},
    "fixed_rod": {"force": (1.7016, -0.6783, 1.3717, -0.1196), "accel": (0.0, 0.7526, -1.5219, 0.1327)},
}


def build(
    example: int = 2,
    mu: tuple[float, ...] | None = None,
    zeta: float | None = None,
    tau: tuple[float, float] | None = None,
) -> cm.System:
    """The rod-and-cube system of seed 002's Example 2 (default) or Example 1.

    ``mu``: one friction coefficient per contact (default: the example's); ``zeta`` (m): the
    height parameter of the rod's contact, z = zeta - 1 on the front face (Example 1 uses 2
    and 0); ``tau``: (rod force N, rod moment N m).
    """
    if example not in (1, 2):
        raise ValueError(f"example must be 1 or 2 (got {example!r})")
    data = dict(EXAMPLE_1 if example == 1 else EXAMPLE_2)
    if mu is not None:
        if len(mu) != len(data["mu"]):
            raise ValueError(f"Example {example} has {len(data['mu'])} contacts: give one mu per contact")
        data["mu"] = tuple(mu)
    if zeta is not None:
        data["zeta"] = zeta
    if tau is not None:
        data["tau"] = tuple(tau)
    eta, zeta_ = data["eta"], data["zeta"]
    laws = [cm.Ellipsoid(m, 1.0, 1.0, e) for m, e in zip(data["mu"], data["e_r"])]

    system = cm.System(gravity=(0.0, 0.0, -GRAVITY))
    cube = system.add_body("cube", mass=CUBE_MASS, inertia=np.full(3, CUBE_INERTIA))

    # The rod lies along +x beyond the front face; its joints push and turn it along -x.
    tip = np.array([1.0, eta - 1.0, zeta_ - 1.0])
    along = (-1.0, 0.0, 0.0)
    rod = system.add_manipulator(
        "rod",
        joints=[Prismatic(axis=along, name="push"), Revolute(axis=along, name="twist")],
        links=[
            Link(CARRIAGE_MASS, np.diag([1.0, 1.0, 1.0]), name="carriage"),
            Link(
                ROD_MASS, np.diag([ROD_AXIAL_INERTIA, 1.0, 1.0]), com=(-ROD_LENGTH / 2, 0.0, 0.0), name="rod"
            ),
        ],
        q=[0.0, 0.0],
        base=(tip + (ROD_LENGTH, 0.0, 0.0), np.eye(3)),
        efforts=list(data["tau"]),
    )

    system.add_contact(
        cube,
        rod.link("rod"),
        point=tip,
        normal=(-1, 0, 0),
        tangent=(0, 1, 0),
        friction=laws[0],
        name="rod",
        torsion=True,
    )
    hump = (-1.0, -1.0, -1.0) if example == 2 else (0.0, 0.0, -1.0)
    system.add_contact(
        cube,
        system.ground,
        point=hump,
        normal=(0, 0, 1),
        tangent=(0, 1, 0),
        friction=laws[1],
        name="hump",
        torsion=True,
    )
    if example == 2:
        system.add_contact(
            cube,
            system.ground,
            point=(1.0 - data["delta"], 1.0, data["gamma"] - 1.0),
            normal=(0, -1, 0),
            tangent=(0, 0, -1),
            friction=laws[2],
            name="fixed_rod",
            torsion=True,
        )
    return system


def seed_jacobian(system: cm.System) -> np.ndarray:
    """G^T with the columns in the paper's order (all n, all t, all o, all r): compare with
    seed 002 display (2) (cube rows equal, rod rows of opposite sign, see the module docstring)."""
    asm = cm.assemble(system)
    names = [c.name for c in system.contacts]
    order = [asm.row(name, comp) for comp in "ntor" for name in names]
    return asm.G.toarray()[order].T


def jammed_residual(system: cm.System) -> np.ndarray:
    """G^T c + f (N, N m) at Table 1's jammed forces: zero when they hold every body still."""
    asm = cm.assemble(system)
    c = np.zeros(len(asm.rows))
    for name, force in TABLE1_JAMMED.items():
        for comp, value in zip("ntor", force):
            c[asm.row(name, comp)] = value
    return asm.G.T @ c + asm.f


def _print_comparison(solution: cm.Solution) -> None:
    print(f"\n{'contact':<11}{'':<7}{'this model (n, t, o, r)':<46}Table 1 sliding solution")
    for c in solution.contacts:
        paper = TABLE1_SLIDING[c.name]
        for label, ours, theirs in (
            ("force", c.force, paper["force"]),
            ("accel", c.acceleration, paper["accel"]),
        ):
            row = "(" + ", ".join(f"{v:8.4f}" for v in ours) + ")"
            print(f"{c.name:<11}{label:<7}{row:<46}{theirs}")


if __name__ == "__main__":
    np.set_printoptions(precision=3, suppress=True, linewidth=120)
    system = build()
    print("Example 2: G^T in the paper's column order (n1 n2 n3 t1 t2 t3 o1 o2 o3 r1 r2 r3)")
    print(seed_jacobian(system))

    print(f"\nTable 1 jammed forces: Newton-Euler residual G^T c + f = {jammed_residual(system)}")

    problem = cm.formulate(system)

    solution = cm.solve(problem)
    print("\nExample 2 (mu = 0.9, tau = (6, 3)), newton from zero:")
    print(solution.table())
    if solution.ok:
        _print_comparison(solution)

    print("\nExample 1 (zeta = 2): tangential acceleration of the hump contact over (mu1, mu2)")
    grid = (0.1, 0.4, 0.7, 1.0)
    print("mu1 \\ mu2 " + "".join(f"{m2:>10.1f}" for m2 in grid))
    for m1 in grid:
        cells = []
        for m2 in grid:
            sol = cm.solve(cm.formulate(build(example=1, mu=(m1, m2))))
            a = sol.contact("hump").acceleration if sol.ok else None
            cells.append(f"{np.hypot(a[1], a[2]):>10.4f}" if a is not None else f"{sol.status.value:>10}")
        print(f"{m1:<10.1f}" + "".join(cells))
