"""
A cube pushed and twisted by an active rod, on a hump (Trinkle and Pang (1997) §4, Examples 1 and 2)
====================================================================================================

The system of Trinkle and Pang's distributed-contact paper: a uniform cube of side 2 (its
centre at the world origin, faces at x, y, z = +-1) and an active rod whose axis is parallel
to the world x axis. The rod's tip presses on the cube's front face x = +1; its two actuated
joints translate the rod along its axis with a force tau1 (N) and turn it about its axis with
a moment tau2 (N m). Every contact is a soft finger (``torsion=True``): besides the force
(c_n, c_t, c_o) it carries a moment c_r about its normal, and friction follows the
ellipsoidal limit surface c_t^2/e_t^2 + c_o^2/e_o^2 + c_r^2/e_r^2 <= mu^2 c_n^2 (Trinkle and Pang (1997)
(1), ``cm.Ellipsoid(mu, e_t, e_o, e_r)``) with maximum work.

Contacts (points relative to the cube's centre; normals point into the cube, which is the
first body of each contact; o = n x t):

==========  =================================  ===========  ===========  ===========
contact     point (m)                          n            t            o
==========  =================================  ===========  ===========  ===========
rod         (1, eta - 1, zeta - 1)             (-1, 0, 0)   (0, 1, 0)    (0, 0, -1)
hump        (-1, -1, -1) (Ex. 2), (0, 0, -1)   (0, 0, 1)    (0, 1, 0)    (-1, 0, 0)
fixed_rod   (1 - delta, 1, gamma - 1) (Ex. 2)  (0, -1, 0)   (0, 0, -1)   (1, 0, 0)
==========  =================================  ===========  ===========  ===========

The rod's axis passes through its contact point, so turning the rod twists the contact
(relative spin about n) without sliding it. The rod's joint axes both point along -x, into
the cube: a positive tau1 pushes the cube and a positive tau2 turns the rod with the
right-hand rule about n1 = -x. With these signs the jammed equilibrium has c_n1 = tau1 and
c_r1 = tau2, as in the paper's Table 1.

Masses. The paper gives the system mass matrix M = diag(1, 1, 1, 3, 3, 3, 4, 2): cube mass
1 kg and inertia 3 kg m^2 about each axis; rod translation inertia 4 kg (carriage 2 kg plus
rod 2 kg) and rod axial inertia 2 kg m^2. This file builds that M faithfully. Gravity is
g = 10 m/s^2 along -z (the cube weighs 10 N); the rod's joints carry no gravity load.

How this model compares with the paper's Table 1:

* The authors' matrices (``build_authors()``): G with -1 instead of +1 as the y-moment entry
  of the hump's o row (the corner geometry, and display (2) itself, give +1),
  diag(1, 1, 1, 3, 3, 3, 4, 2) used as the INVERSE mass matrix, and friction on the ellipsoid
  parallel to -(a_t, a_o, a_r) (``Ellipsoid(..., direction="opposite")``) rather than maximum
  work's -(e_t^2 a_t, e_o^2 a_o, e_r^2 a_r); the latter law is not the maximum-work law of
  any ellipsoid. ``cm.all_solutions(build_authors())`` finds exactly Table 1's two solutions.
  The sliding one agrees with every printed entry (12 forces, 12 accelerations, the cube's
  linear acceleration) to the printed 4 decimals (largest difference 4.8e-5). The jammed one has
  c_n1 = tau1 = 6 and c_r1 = tau2 = 3 and zero accelerations as in the table; its other 10
  force components differ (by up to 0.59) because the jammed cube is statically indeterminate:
  the jammed forces form a 4-dimensional set (12 unknowns, 8 equations G^T c + f = 0, inside
  the friction sets) of which Table 1's point is one member (``jammed_force_ranges``).
* With maximum work on the authors' matrices the sliding solution moves (c_n = 5.635, 3.911,
  1.860 instead of 5.640, 4.156, 1.702), and with the true M^-1 it moves more (4.874, 4.369,
  2.073), but it persists (``sliding_branch``). The sign of the o2 entry decides: moving it from
  -1 toward +1 the rod contact stops slipping at 23% of the way, and at 30% the hump's and the
  fixed rod's sliding accelerations reach zero as well: the motion dies out into the jam.
  With all three changes made together the same happens (29% and 41%).
* This faithful model only jams: rolling contacts and zero accelerations with c_n1 = tau1 = 6 N
  and c_r1 = tau2 = 3 N m. Table 1's jammed forces leave a y-moment of 2 c_o2 = -5.943 N m on
  the cube in this geometry (``jammed_residual``), but other jammed forces exist. Multistart
  (302 starting points, three Newton settings and IPOPT: 1144 converged solves) finds only the
  jam, and ``mode_search`` finds no solution in any of the 26 other roll/slide/separate
  patterns (4000 sampled sliding directions and 60 least-squares refinements per pattern;
  the same search finds Table 1's sliding solution, and only it, in the authors' matrices).

Example 2 (default): three contacts, eta = zeta = gamma = 1.5, delta = 0.5, mu = 0.9 and
Ellipsoid(0.9, 1, 1, 2) at every contact, tau = (6, 3), bodies at rest. The paper found two
solutions, the system jams or all contacts slide. Example 1: no fixed rod, the hump under the
middle of the bottom face, eta = 1.5, zeta = 2 (or 0: singular Jacobian), tau = (5, 3),
e_r = 1 at the rod and 0.25 at the hump, mu1 and mu2 varied over [0.1, 1.0] in the paper.

The contact Jacobian (8 x 12, Trinkle and Pang (1997) display (2)) is G^T here with its columns ordered
(n1, n2, n3, t1, t2, t3, o1, o2, o3, r1, r2, r3); its cube rows agree with the paper's. Its
two rod rows have the opposite sign: Trinkle et al. (1997) (3) writes the manipulator dynamics as
tau - J^T c = M qddot, while this library writes M qddot = tau + G^T c.

Run it:
    python examples/rod_cube.py            # faithful model, then the authors' matrices vs Table 1
    contactmodel solve examples/rod_cube.py:build_authors --all-solutions
    contactmodel solve examples/rod_cube.py --json
    contactmodel solve examples/rod_cube.py --friction elliptic-torsion:0.9:1:1:2

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import itertools
import sys
import warnings

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
    """The rod-and-cube system of Trinkle and Pang's (1997) Example 2 (default) or Example 1.

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
    Trinkle and Pang (1997) display (2) (cube rows equal, rod rows of opposite sign, see the module
    docstring)."""
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


#: Table 1, Solution 2: the cube's linear acceleration (m/s^2); its angular part and the rod's
#: accelerations did not survive the text extraction.
TABLE1_SLIDING_CUBE_LINEAR = (-1.2926, -0.3194, -0.3431)

#: Example 2's contacts, in the order of Table 1's columns
CONTACTS = ("rod", "hump", "fixed_rod")

#: the paper's diag(1, 1, 1, 3, 3, 3, 4, 2) as the authors evidently used it: as M^-1
AUTHORS_MINV = np.diag([1.0, 1.0, 1.0, 3.0, 3.0, 3.0, 4.0, 2.0])


def authors_matrices(tau: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(G (12 x 8), M^-1 (8 x 8), f (8,)) of Example 2 as the authors evidently used them.

    G is this model's contact Jacobian (rows n, t, o, r per contact in ``CONTACTS`` order,
    columns cube v, cube omega, rod push, rod twist) with the hump's o-row y-moment entry
    negated (-1 where the corner (-1, -1, -1) gives +1); M^-1 is ``AUTHORS_MINV``; f holds the
    cube's weight (N) and the rod efforts ``tau`` (N, N m). Table 1's accelerations are
    a = G M^-1 (G^T c + f) at its forces c.
    """
    asm = cm.assemble(build(tau=tau))
    G = asm.G.toarray()
    G[asm.row("hump", "o"), asm.coordinates.index("cube.wy")] *= -1.0
    return G, AUTHORS_MINV.copy(), asm.f.copy()


def build_authors(mu: tuple[float, ...] | None = None, tau: tuple[float, float] | None = None) -> cm.Problem:
    """Example 2 as the authors solved it: A = G M^-1 G^T and b = G M^-1 f from
    :func:`authors_matrices`, with friction on the e-ellipsoid parallel to -(a_t, a_o, a_r)
    (``Ellipsoid(..., direction="opposite")``, the law Table 1's sliding solution obeys). Both
    of Table 1's solutions solve it; ``cm.all_solutions(build_authors())`` finds both.

    From the shell: ``contactmodel solve examples/rod_cube.py:build_authors --all-solutions``.
    """
    mus = tuple(EXAMPLE_2["mu"] if mu is None else mu)
    if len(mus) != len(CONTACTS):
        raise ValueError(f"Example 2 has {len(CONTACTS)} contacts: give one mu per contact")
    G, Minv, f = authors_matrices(tau)
    laws = [cm.Ellipsoid(m, 1.0, 1.0, e, direction="opposite") for m, e in zip(mus, EXAMPLE_2["e_r"])]
    return cm.formulate_from_matrices(
        G @ Minv @ G.T, G @ Minv @ f, friction=laws, torsion=True, names=list(CONTACTS)
    )


def classify(solution: cm.Solution, tol: float = 1e-7) -> str:
    """``"jammed"`` (every relative acceleration zero), ``"sliding"`` (every contact slides) or
    ``"other"``."""
    if all(np.abs(c.acceleration).max() <= tol for c in solution.contacts):
        return "jammed"
    if all(c.mode == "slide" for c in solution.contacts):
        return "sliding"
    return "other"


def table1_comparison(solution: cm.Solution, kind: str) -> list[tuple[str, str, float, float]]:
    """Rows (quantity, contact or body, ours, Table 1) for the ``"jammed"`` or ``"sliding"``
    solution of :func:`build_authors`: forces and relative accelerations per contact and, for the
    sliding solution, the cube's linear acceleration M^-1 (G^T c + f)[:3]."""
    rows = []
    for c in solution.contacts:
        paper_force = TABLE1_JAMMED[c.name] if kind == "jammed" else TABLE1_SLIDING[c.name]["force"]
        paper_accel = (0.0,) * 4 if kind == "jammed" else TABLE1_SLIDING[c.name]["accel"]
        for comp, ours, theirs in zip("ntor", c.force, paper_force):
            rows.append((f"c_{comp}", c.name, float(ours), float(theirs)))
        for comp, ours, theirs in zip("ntor", c.acceleration, paper_accel):
            rows.append((f"a_{comp}", c.name, float(ours), float(theirs)))
    if kind == "sliding":
        G, Minv, f = authors_matrices()
        force = np.concatenate([c.force for c in solution.contacts])
        qdd = Minv @ (G.T @ force + f)
        paper = TABLE1_SLIDING_CUBE_LINEAR
        rows += [(f"qdd_{axis}", "cube", float(v), p) for axis, v, p in zip("xyz", qdd, paper)]
    return rows


def jammed_force_ranges(
    G: np.ndarray, f: np.ndarray, mu: float = 0.9, e: tuple[float, float, float] = (1.0, 1.0, 2.0)
) -> np.ndarray:
    """(12, 2) smallest and largest value of each force component (rows of G) over the jammed
    solutions: G^T c + f = 0 with every contact's (c_t, c_o, c_r) in its e-ellipsoid. The jammed
    cube is statically indeterminate (12 unknowns, 8 equations), so only the components fixed by
    the equations (here c_n1 = tau1 and c_r1 = tau2) have a zero-width range."""
    from scipy.optimize import minimize

    w = np.asarray(e, dtype=float)
    nc = G.shape[0] // 4
    cons = [{"type": "eq", "fun": lambda c: G.T @ c + f, "jac": lambda c: G.T}]
    for i in range(nc):
        sl = slice(4 * i + 1, 4 * i + 4)
        cons.append(
            {
                "type": "ineq",
                "fun": lambda c, i=i, sl=sl: (mu * c[4 * i]) ** 2 - np.sum((c[sl] / w) ** 2),
            }
        )
    # c_n >= 0 keeps each friction set the convex cone (not its mirror image): a convex
    # program with a linear objective, so SLSQP's local optimum is the global one
    bounds = [(0.0, None) if k % 4 == 0 else (None, None) for k in range(G.shape[0])]
    start = np.linalg.lstsq(G.T, -f, rcond=None)[0]
    out = np.zeros((G.shape[0], 2))
    for j in range(G.shape[0]):
        for side, sign in enumerate((1.0, -1.0)):
            g = sign * np.eye(len(start))[j]
            res = minimize(
                lambda c, g=g: g @ c,
                start,
                jac=lambda c, g=g: g,
                constraints=cons,
                bounds=bounds,
                method="SLSQP",
                options={"maxiter": 500, "ftol": 1e-12},
            )
            out[j, side] = res.x[j]
    return out


def mode_search(
    A: np.ndarray,
    b: np.ndarray,
    mu: float = 0.9,
    e: tuple[float, float, float] = (1.0, 1.0, 2.0),
    direction: str = "max-work",
    samples: int = 4000,
    refine: int = 60,
    seed: int = 0,
) -> dict[str, list[np.ndarray]]:
    """Solutions of a = A c + b (rows n, t, o, r per contact) for every contact-mode pattern.

    Each contact rolls (R: a = 0, c in the e-ellipsoid), slides (S: a_n = 0, a_f != 0, c on
    the ellipsoid with (c_t, c_o, c_r) = -mu c_n E u, u a unit vector parallel to E a_f
    (``"max-work"``) or E^-1 a_f (``"opposite"``), E = diag(e)) or separates (X: c = 0,
    a_n >= 0). Given the sliding directions u the pattern's equations are linear in the
    forces; the directions are found by least squares from the ``refine`` best of ``samples``
    random directions. Returns pattern (e.g. ``"RSS"``: rod, hump, fixed rod) -> the distinct
    feasible points, each (c, a) concatenated. A search, not a proof: a pattern with no point
    found has none near any tried direction. The all-rolling pattern (the jam, whose forces
    form a continuum: see :func:`jammed_force_ranges`) is left out; where another pattern's
    linear equations are singular only their least-squares point is checked.
    """
    from scipy.optimize import least_squares

    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    nc = len(b) // 4
    E = np.asarray(e, dtype=float)
    W = E if direction == "max-work" else 1.0 / E  # u is parallel to W a_f
    rng = np.random.default_rng(seed)
    out: dict[str, list[np.ndarray]] = {}
    for pattern in itertools.product("RSX", repeat=nc):
        if set(pattern) == {"R"}:
            continue
        R, S, X = ([i for i, m in enumerate(pattern) if m == kind] for kind in "RSX")
        rows = [4 * i + j for i in R for j in range(4)] + [4 * i for i in S]

        def point(u: np.ndarray, R=R, S=S, rows=rows) -> tuple[np.ndarray, np.ndarray, float]:
            """(c, a, equation residual) for sliding directions u (|S|, 3)."""
            basis = []
            for i in R:
                basis += [np.eye(4 * nc)[4 * i + j] for j in range(4)]
            for s, i in enumerate(S):
                col = np.zeros(4 * nc)
                col[4 * i], col[4 * i + 1 : 4 * i + 4] = 1.0, -mu * E * u[s]
                basis.append(col)
            c = np.zeros(4 * nc)
            if basis:
                B = np.array(basis).T
                z = np.linalg.lstsq(A[rows] @ B, -b[rows], rcond=None)[0]
                c = B @ z
            a = A @ c + b
            return c, a, float(np.abs(a[rows]).max(initial=0.0))

        def direction_residual(x: np.ndarray, S=S, point=point) -> np.ndarray:
            u = x.reshape(len(S), 3)
            u = u / np.linalg.norm(u, axis=1, keepdims=True)
            _, a, _ = point(u)
            r = [W * a[4 * i + 1 : 4 * i + 4] for i in S]
            return np.concatenate([v / max(np.linalg.norm(v), 1e-300) - us for v, us in zip(r, u)])

        if S:
            starts = rng.normal(size=(samples, len(S) * 3))
            scores = [np.linalg.norm(direction_residual(x)) for x in starts]
            candidates = []
            for x in starts[np.argsort(scores)[:refine]]:
                fit = least_squares(direction_residual, x, xtol=1e-15, ftol=1e-15, gtol=1e-15)
                if np.abs(fit.fun).max() < 1e-9:
                    u = fit.x.reshape(len(S), 3)
                    candidates.append(u / np.linalg.norm(u, axis=1, keepdims=True))
        else:
            candidates = [np.zeros((0, 3))]
        found: list[np.ndarray] = []
        for u in candidates:
            c, a, res = point(u)
            ok = res < 1e-9
            ok &= all(
                c[4 * i] >= -1e-9 and np.linalg.norm(c[4 * i + 1 : 4 * i + 4] / E) <= mu * c[4 * i] + 1e-9
                for i in R
            )
            ok &= all(c[4 * i] >= -1e-9 and np.linalg.norm(a[4 * i + 1 : 4 * i + 4]) > 1e-7 for i in S)
            ok &= all(a[4 * i] >= -1e-9 for i in X)
            if ok and not any(np.abs(np.r_[c, a] - f).max() < 1e-6 for f in found):
                found.append(np.r_[c, a])
        out["".join(pattern)] = found
    return out


def sliding_branch(
    flip: bool = True, true_mass: bool = False, max_work: bool = False, step: float = 5e-4
) -> list[tuple[float, str, np.ndarray, np.ndarray]]:
    """Follow Table 1's sliding solution from the authors' data toward the faithful model.

    Along t in [0, 1] the selected changes are made gradually: ``flip``: the hump's o-row
    y-moment entry goes from -1 to +1 (the corner's value); ``true_mass``: M^-1 goes from
    diag(1, 1, 1, 3, 3, 3, 4, 2) to its inverse; ``max_work``: the direction weights k go from
    1 ("opposite") to e^2 (maximum work), k = e^(2 t). At each step the solution of the current
    mode pattern (S sliding, R rolling per contact) is continued by Newton (``fsolve``); a
    sliding contact whose relative acceleration reaches zero becomes rolling. Returns
    (t, pattern, c, a) at every step; the list stops early where the branch ends: when its
    sliding accelerations reach zero (the motion dies out into the jammed set) or its forces
    leave the friction sets.
    """
    from scipy.optimize import fsolve

    G0, Minv0, f = authors_matrices()
    e = np.array([1.0, 1.0, 2.0])
    mu = EXAMPLE_2["mu"][0]
    o2 = (CONTACTS.index("hump") * 4 + 2, 4)

    def model(t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        G = G0.copy()
        G[o2] = -1.0 + 2.0 * t if flip else -1.0
        Minv = (1 - t) * Minv0 + t * np.linalg.inv(Minv0) if true_mass else Minv0
        return G @ Minv @ G.T, G @ Minv @ f, e ** (2 * t) if max_work else np.ones(3)

    def unpack(x: np.ndarray, modes: str, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c, a = np.zeros(12), np.zeros(12)
        for i, m in enumerate(modes):
            y = x[4 * i : 4 * i + 4]
            if m == "R":
                c[4 * i : 4 * i + 4] = y
            else:  # y = (c_n, a_t, a_o, a_r); friction on the ellipsoid along -k a_f
                w = k * y[1:]
                c[4 * i], c[4 * i + 1 : 4 * i + 4] = y[0], -mu * y[0] * w / np.linalg.norm(w / e)
                a[4 * i + 1 : 4 * i + 4] = y[1:]
        return c, a

    def residual(x: np.ndarray, modes: str, A: np.ndarray, b: np.ndarray, k: np.ndarray) -> np.ndarray:
        c, a = unpack(x, modes, k)
        return A @ c + b - a

    def attempt(x0: np.ndarray, modes: str, t: float, c_prev: np.ndarray | None):
        """(x, c, a) of ``modes`` at t continued from x0, or None (no solution on the branch)."""
        A, b, k = model(t)
        with warnings.catch_warnings():  # a failed step is detected by its residual below
            warnings.simplefilter("ignore", RuntimeWarning)
            x = fsolve(residual, x0, args=(modes, A, b, k), xtol=1e-13)
        c, a = unpack(x, modes, k)
        ok = np.abs(residual(x, modes, A, b, k)).max() < 1e-9
        ok &= all(
            c[4 * i] >= 0 and np.linalg.norm(c[4 * i + 1 : 4 * i + 4] / e) <= mu * c[4 * i] + 1e-9
            for i in range(3)
        )
        ok &= c_prev is None or np.abs(c - c_prev).max() < 0.1  # the same branch: forces continuous in t
        return (x, c, a) if ok else None

    flat = np.concatenate([TABLE1_SLIDING[n]["force"][:1] + TABLE1_SLIDING[n]["accel"][1:] for n in CONTACTS])
    modes, t, out = "SSS", 0.0, []
    x, c, a = attempt(flat, modes, 0.0, None)
    while t <= 1.0:
        got = attempt(x, modes, t, c)
        if got is None:  # a slow sliding contact may have stopped: continue it as rolling
            speeds = {i: np.linalg.norm(a[4 * i + 1 : 4 * i + 4]) for i, m in enumerate(modes) if m == "S"}
            slow = [i for i, v in speeds.items() if v < 0.05]
            stopped = "".join("R" if i in slow else m for i, m in enumerate(modes))
            if not slow or stopped == "R" * len(modes):
                break  # the branch ends (into the jam when every contact has stopped)
            x0 = np.concatenate(
                [c[4 * i : 4 * i + 4] if m == "R" else x[4 * i : 4 * i + 4] for i, m in enumerate(stopped)]
            )
            got = attempt(x0, stopped, t, c)
            if got is None:
                break
            modes = stopped
        x, c, a = got
        out.append((t, modes, c, a))
        t = round(t + step, 12)
    return out


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
    import matplotlib.pyplot as plt

    # drawn into a pyplot figure, so that notebooks and the docs show it
    cm.draw(
        problem,
        solution,
        title=f"Example 2, newton: {solution.status.value}",
        ax=plt.figure(figsize=(8, 6)).add_subplot(projection="3d"),
    )
    if solution.ok:
        _print_comparison(solution)

    print("\nFaithful model, all_solutions (multistart):")
    print(cm.all_solutions(problem).summary())

    print("\nExample 2 with the authors' matrices (build_authors), all_solutions:")
    found = cm.all_solutions(build_authors())
    print(found.summary())
    G_auth, _, f_auth = authors_matrices()
    ranges = jammed_force_ranges(G_auth, f_auth)
    for sol in found:
        kind = classify(sol)
        rows = table1_comparison(sol, kind)
        worst = max(abs(ours - paper) for _, _, ours, paper in rows)
        print(f"\n{kind} solution: ours vs Table 1 (max |difference| {worst:.2e})")
        extra = "   jammed-set range" if kind == "jammed" else ""
        print(f"{'':<8}{'contact':<11}{'ours':>10}{'Table 1':>10}{'diff':>10}{extra}")
        for quantity, where, ours, paper in rows:
            line = f"{quantity:<8}{where:<11}{ours:>10.4f}{paper:>10.4f}{ours - paper:>10.1e}"
            if kind == "jammed" and quantity.startswith("c_"):
                j = 4 * CONTACTS.index(where) + "ntor".index(quantity[2])
                line += f"   [{ranges[j, 0]:.4f}, {ranges[j, 1]:.4f}]"
            print(line)

    print("\nTable 1's sliding solution followed from the authors' data toward the faithful model:")
    for label, options in (
        ("law -> maximum work, M^-1 -> true inverse", {"flip": False, "true_mass": True, "max_work": True}),
        ("hump o2 entry -1 -> +1", {"flip": True}),
        ("all three together", {"flip": True, "true_mass": True, "max_work": True}),
    ):
        branch = sliding_branch(**options)
        changes = [
            f"{m} from t = {t:.4f}"
            for k, (t, m, _, _) in enumerate(branch)
            if k == 0 or m != branch[k - 1][1]
        ]
        t, m, c, a = branch[-1]
        speeds = [float(np.linalg.norm(a[4 * i + 1 : 4 * i + 4])) for i in range(len(CONTACTS))]
        print(f"  {label}: {', '.join(changes)}; last point t = {t:.4f}, |a_f| = {np.round(speeds, 4)}")

    if "--modes" in sys.argv:  # slow: a few minutes
        asm = cm.assemble(system)
        Minv = np.linalg.inv(asm.M.toarray())
        G = asm.G.toarray()
        print(
            "\nFaithful model, mode_search (rod, hump, fixed_rod; R roll, S slide, X separate; RRR left out):"
        )
        for pattern, points in mode_search(G @ Minv @ G.T, G @ Minv @ asm.f).items():
            print(f"  {pattern}: {len(points)} solution(s)")

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
