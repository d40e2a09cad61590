"""cm.simulate side by side with Siconos' Moreau-Jean time stepping on the same scenes, in one run.

Scenes (a 1 kg cube of side 0.2 m and a 1 kg sphere of radius 0.1 m on the floor z = 0; an
incline is the floor with gravity tilted by theta about y, which is the same physics):

- ``box_slide``: the cube slides at 1 m/s along x, mu = 0.5: stops after v0 / (mu g) = 0.204 s
  at v0^2 / (2 mu g) = 0.102 m.
- ``box_incline``: the cube released on a 35 deg incline, mu = 0.5 (tan 35 deg = 0.70 > mu):
  slides at g (sin theta - mu cos theta) = 1.61 m/s^2.
- ``sphere_bowl``: the sphere thrown at 1 m/s without spin, mu = 0.2: slides until its speed is
  5/7 v0 at t = 2 v0 / (7 mu g) = 0.146 s, then rolls.
- ``sphere_incline``: the sphere released on a 30 deg incline, mu = 0.5: rolls without slipping
  at 5/7 g sin theta = 3.50 m/s^2.
- ``pile_N`` (``--boxes N``): N cubes in columns of 4 (see :func:`pile`) dropped 1 cm onto the
  floor; box-box contacts from our vertex-face pair tests and Bullet's box-box on Siconos' side.
- ``boxes_N`` (``--boxes N``): N cubes dropped from 0.5 mm above the floor, tilted and spinning
  slowly (the scene of benchmarks/simulate_scale.py), for the time per step at scale.

Ours: ``cm.simulate`` (each island of bodies solved apart; ``--whole-steps``: each step as one
problem) with the Coulomb cone in its second-order-cone form (``--law cone``, solver
newton; the law Siconos' FrictionContact solves) or the pyramid (``--law pyramid``), both solved by newton.
The other laws of :data:`LAWS` (``--law cone_mncp aniso aniso_mncp ellipsoid ellipsoid_mncp elltor
elltor_mncp polygon8``) run ours alone
against Siconos' Coulomb cone: their CPU and accuracy rows are ours; the cone's MNCP is the same law.
Siconos (Debian's python3-siconos, run with ``/usr/bin/python3``; this file is its worker too):
RigidBodyDS (Newton-Euler) bodies, Bullet contact detection against a static box under the floor,
NewtonImpactFrictionNSL(e = 0, mu), MoreauJeanOSI(theta = 0.5), FrictionContact(3) with its
default solver (NSGS) at its default tolerance 1e-4 (Siconos' relative error, 4 orders looser
than the 1e-8 our steps are accepted at: see :data:`SICONOS_TOL`), TimeStepping.
``--siconos-tol 1e-4 1e-8`` times Siconos at both tolerances in one run, and every row reports
the errors Siconos' steps ended with and our steps' largest residual.
Both schemes are first order in h at impacts and stick-slip transitions; the expected gap between
the trajectories is a few v h (m) in position and g h in velocity. Bullet reports the resting
contacts only after the first step, so Siconos' bodies fall for one step and land (a velocity blip
of a few g h): velocities are compared from t = 0.02 s on.

The piles differ by a few mm between the two simulators during and after landing (pile_100,
dt = 1e-3: 7.9e-3 m at most, along the floor, at the top box of a column; about 1 mm vertically).
Neither is wrong: ``--spread`` measures how far each simulator moves from itself, and on
pile_16 (t_end 0.3 s, pyramid, dt = 1e-3) Siconos moves by 4.4e-3 m when its step is halved and by
7.0e-3 m when its theta goes from 0.5 to 1 (9.2e-3 m between those runs), while ours moves by
1.1e-3 m when its step is halved and by 2.6e-5 m without the drift correction (beta = 0); ours
against the four Siconos runs: 3.3e-3 to 8.8e-3 m. A column of 4 boxes lands on the corners the
tilt puts lowest and rocks as one rigid body about the bottom box's floor edges (horizontal speed
proportional to the height, ~0.17 rad/s); the direction and amplitude of that rocking follow
from which corners touch first, which Bullet's contact manifold (boxes with an inside margin, the
contacts of a step reported after the overlap), Moreau-Jean's theta and the step decide. The
vertical part: Siconos keeps the penetration of the landing step (velocity-level constraints
without a drift correction), 0.2 mm per interface at rest (the top boxes 0.7 mm lower); ours
removes it (beta g / h). So the landing gap is within the peer's own discretization spread, not a
fault of ours.

Printed per scene: the largest difference of the centre of mass positions and velocities over the
run (and of ours and Siconos' against the closed form where there is one), and the wall time per
step of each (ours split into contact generation, model update, build and solve), and the CPU
time per step of each (process time, robust to other load on the machine; their ratio).

    python benchmarks/simulate_peer.py                      # the four small scenes, dt = 1e-3
    python benchmarks/simulate_peer.py --dt 1e-2 1e-3 --law cone pyramid
    python benchmarks/simulate_peer.py --scenes boxes --boxes 100 --t-end 0.2
    python benchmarks/simulate_peer.py --scenes pile --boxes 100 --t-end 1.0
    python benchmarks/simulate_peer.py --scenes pile --boxes 100 --t-end 0.3 --law pyramid cone \
        --siconos-tol 1e-4 1e-8
    python benchmarks/simulate_peer.py --scenes pile --boxes 100 --t-end 0.3 --law pyramid --whole-steps
    python benchmarks/simulate_peer.py --scenes pile --boxes 16 --t-end 0.3 --law pyramid --spread

Siconos missing (``/usr/bin/python3 -c "import siconos.kernel"`` fails): its columns say so and
only ours run.

``--contact-models``: instead of Siconos, rigid against compliant contact against MuJoCo
(``pip install -e ".[mujoco]"``; its default soft contacts: solref (0.02, 1), solimp (0.9, 0.95,
0.001), elliptic cone for ``--law cone``, pyramidal for ``--law pyramid``, Euler integrator) on
the box and the pile:
per step CPU time, floor penetration (largest over the run and at the end), and for the box the
stop time and distance (first time its speed is below 1e-3 m/s) against the closed form; for the
pile the largest speed at the end. Ours compliant: ``cm.Compliant(K, C)`` at every contact
(``--stiffness``, ``--damping``) with each friction regularization of ``--vs``:

    python benchmarks/simulate_peer.py --contact-models --scenes box_slide pile --boxes 16
    python benchmarks/simulate_peer.py --contact-models --scenes box_slide --vs 1e-2 1e-3 1e-4 --dt 1e-3 1e-4
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import subprocess
import sys
import time
import warnings
from collections.abc import Sequence

import numpy as np

SYSTEM_PYTHON = "/usr/bin/python3"
G = 9.81
SIDE = 0.2
RADIUS = 0.1
SETTLE = 0.02  # s: velocities are compared after Siconos' first landing (see compare)
#: our runs solve each island of bodies apart (``--whole-steps``: each step as one problem)
ISLANDS = True
#: NSGS' stopping tolerance in the peer runs, Siconos' own default for FrictionContact(3): its
#: error is ||r - proj_K(r - (u + mu ||u_t|| e_n))||_2 / ||q||_2 over all contacts (u the local
#: velocities, q their free part), checked on the last sweep's change and then in full. Ours stops
#: at newton's tol 1e-10 and accepts 1e-8 (||x - mid(lb, x - F, ub)||_inf / ||F(0)||_inf,
#: velocities in m/s, impulses in N s): 4 orders tighter. ``--siconos-tol 1e-4 1e-8`` runs Siconos
#: at both, side by side.
SICONOS_TOL = 1e-4
#: NSGS' sweep limit (Siconos' default is 1000; raised so a tight tol is reached, not cut off)
SICONOS_MAX_ITER = 100_000


def _tilted(theta_deg: float) -> list[float]:
    """Gravity (m/s^2) of the floor tilted by theta about y: downhill is +x."""
    th = math.radians(theta_deg)
    return [G * math.sin(th), 0.0, -G * math.cos(th)]


def _cube(position, velocity=(0.0, 0.0, 0.0), quaternion=(1.0, 0.0, 0.0, 0.0), omega=(0.0, 0.0, 0.0)):
    i = SIDE**2 / 6.0
    return {
        "shape": "box",
        "size": [SIDE] * 3,
        "mass": 1.0,
        "inertia": [i, i, i],
        "position": list(position),
        "quaternion": list(quaternion),
        "velocity": list(velocity),
        "angular_velocity": list(omega),
    }


def _ball(position, velocity=(0.0, 0.0, 0.0)):
    i = 0.4 * RADIUS**2
    return {
        "shape": "sphere",
        "radius": RADIUS,
        "mass": 1.0,
        "inertia": [i, i, i],
        "position": list(position),
        "quaternion": [1.0, 0.0, 0.0, 0.0],
        "velocity": list(velocity),
        "angular_velocity": [0.0, 0.0, 0.0],
    }


def scenes(names: list[str], boxes: int, t_end: float | None) -> list[dict]:
    """The scene specifications (plain data, shared by both interpreters)."""
    out = []
    for name in names:
        if name == "box_slide":
            s = {
                "mu": 0.5,
                "gravity": [0, 0, -G],
                "t_end": 0.3,
                "bodies": [_cube((0, 0, SIDE / 2), (1, 0, 0))],
            }
        elif name == "box_incline":
            s = {"mu": 0.5, "gravity": _tilted(35), "t_end": 0.3, "bodies": [_cube((0, 0, SIDE / 2))]}
        elif name == "sphere_bowl":
            s = {"mu": 0.2, "gravity": [0, 0, -G], "t_end": 0.3, "bodies": [_ball((0, 0, RADIUS), (1, 0, 0))]}
        elif name == "sphere_incline":
            s = {"mu": 0.5, "gravity": _tilted(30), "t_end": 0.3, "bodies": [_ball((0, 0, RADIUS))]}
        elif name == "boxes":
            s = {"mu": 0.5, "gravity": [0, 0, -G], "t_end": 0.2, "bodies": _grid(boxes)}
            name = f"boxes_{boxes}"
        elif name == "pile":
            s = {"mu": 0.5, "gravity": [0, 0, -G], "t_end": 0.2, "bodies": pile(boxes)}
            name = f"pile_{boxes}"
        else:
            raise SystemExit(f"unknown scene {name!r}")
        s["name"] = name
        if t_end is not None:
            s["t_end"] = t_end
        out.append(s)
    return out


def _grid(n: int, seed: int = 0) -> list[dict]:
    """n cubes on a grid, tilted by ~0.02 rad, lowest corner 0.5 mm above the floor."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    bodies = []
    for k in range(n):
        i, j = divmod(k, side)
        rot = Rotation.from_rotvec(rng.normal(scale=0.02, size=3))
        lowest = ((signs * SIDE / 2) @ rot.as_matrix().T)[:, 2].min()
        x, y, z, w = rot.as_quat()
        omega = rng.normal(scale=0.2, size=3)
        bodies.append(_cube((0.3 * i, 0.3 * j, 5e-4 - lowest), (0, 0, 0), (w, x, y, z), omega))
    return bodies


def pile(n: int, layers: int = 4, seed: int = 0) -> list[dict]:
    """n cubes in columns of ``layers`` on a square grid (columns 0.3 m apart), each cube shifted
    by up to 2 cm and turned by up to 0.05 rad about z from the one below, tilted by ~0.005 rad,
    each cube's lowest corner 0.5 mm above the highest of the one under it (the first
    1 cm above the floor): the columns land and settle. Once settled: 4
    floor contacts per column and 4 vertex-face contacts per interface (100 cubes: 400)."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(seed)
    columns = int(np.ceil(n / layers))
    side = int(np.ceil(np.sqrt(columns)))
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float)
    bodies = []
    top = 0.01  # m: the floor clearance of the first cube of each column
    for k in range(n):
        col, level = divmod(k, layers)
        i, j = divmod(col, side)
        if level == 0:
            top = 0.01
        shift = rng.uniform(-0.02, 0.02, size=2) if level else np.zeros(2)
        rot = Rotation.from_rotvec([*rng.normal(scale=0.005, size=2), rng.uniform(-0.05, 0.05)])
        corners = (signs * SIDE / 2) @ rot.as_matrix().T
        z = top + 5e-4 * (level > 0) - corners[:, 2].min()
        top = z + corners[:, 2].max()
        x, y, zq, w = rot.as_quat()
        bodies.append(_cube((0.3 * i + shift[0], 0.3 * j + shift[1], z), (0, 0, 0), (w, x, y, zq)))
    return bodies


def closed_form(scene: dict, t: np.ndarray) -> np.ndarray | None:
    """(len(t), 3) centre-of-mass positions of the single body, or None."""
    name, mu = scene["name"], scene["mu"]
    p0 = np.array(scene["bodies"][0]["position"])
    x = None
    if name == "box_slide":
        v0 = 1.0
        ts = v0 / (mu * G)
        tt = np.minimum(t, ts)
        x = v0 * tt - 0.5 * mu * G * tt**2
    elif name == "box_incline":
        th = math.radians(35)
        x = 0.5 * G * (math.sin(th) - mu * math.cos(th)) * t**2
    elif name == "sphere_bowl":
        v0 = 1.0
        ts = 2 * v0 / (7 * mu * G)
        tt = np.minimum(t, ts)
        x = v0 * tt - 0.5 * mu * G * tt**2 + (5 / 7) * v0 * np.maximum(t - ts, 0.0)
    elif name == "sphere_incline":
        x = 0.5 * (5 / 7) * G * math.sin(math.radians(30)) * t**2
    if x is None:
        return None
    out = np.tile(p0, (len(t), 1))
    out[:, 0] += x
    return out


# -- Siconos (runs under /usr/bin/python3; imports nothing of contactmodel) -----------------------
def run_siconos(
    scene: dict, h: float, theta: float = 0.5, tol: float = SICONOS_TOL, max_iter: int = SICONOS_MAX_ITER
) -> dict:
    """Siconos' run of ``scene``: FrictionContact(3)'s default solver (NSGS) stopped at ``tol``
    (its relative error, see :data:`SICONOS_TOL`) or after ``max_iter`` sweeps; per step the
    error it ended with and its sweeps."""
    import siconos.kernel as sk
    import siconos.numerics as sn
    from siconos.mechanics.collision import (
        RigidBodyDS,
        SiconosBox,
        SiconosContactor,
        SiconosContactorSet,
        SiconosSphere,
    )
    from siconos.mechanics.collision.bullet import SiconosBulletCollisionManager, SiconosBulletOptions

    opts = SiconosBulletOptions()
    opts.worldScale = 1.0
    opts.contactBreakingThreshold = 0.01
    manager = SiconosBulletCollisionManager(opts)
    nsds = sk.NonSmoothDynamicalSystem(0.0, scene["t_end"])
    bodies = []
    for spec in scene["bodies"]:
        q0 = spec["position"] + spec["quaternion"]
        v0 = spec["velocity"] + spec["angular_velocity"]
        body = RigidBodyDS(q0, v0, spec["mass"], np.diag(spec["inertia"]))
        body.setUseContactorInertia(False)
        if spec["shape"] == "box":
            shape = SiconosBox(*spec["size"])
            shape.setInsideMargin(0.01 * min(spec["size"]))
        else:
            shape = SiconosSphere(spec["radius"])
            shape.setInsideMargin(0.0)
        shape.setOutsideMargin(0.0)
        contactors = SiconosContactorSet()
        contactors.append(SiconosContactor(shape))
        body.setContactors(contactors)
        body.setFExtPtr([spec["mass"] * g for g in scene["gravity"]])
        nsds.insertDynamicalSystem(body)
        bodies.append(body)
    floor = SiconosBox(100.0, 100.0, 1.0)
    floor.setInsideMargin(0.01)
    floor.setOutsideMargin(0.0)
    fixed = SiconosContactorSet()
    fixed.append(SiconosContactor(floor))
    manager.insertStaticContactorSet(fixed, [0, 0, -0.5, 1, 0, 0, 0])
    manager.insertNonSmoothLaw(sk.NewtonImpactFrictionNSL(0.0, 0.0, scene["mu"], 3), 0, 0)
    osi = sk.MoreauJeanOSI(theta)
    problem = sk.FrictionContact(3)
    problem.setMStorageType(sn.NM_SPARSE_BLOCK)
    problem.setKeepLambdaAndYState(True)
    options = problem.numericsSolverOptions()
    options.dparam[sn.SICONOS_DPARAM_TOL] = tol
    options.iparam[sn.SICONOS_IPARAM_MAX_ITER] = max_iter
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h))
    sim.insertIntegrator(osi)
    sim.insertNonSmoothProblem(problem)
    sim.insertInteractionManager(manager)
    sim.setNewtonOptions(sk.SICONOS_TS_NONLINEAR)
    sim.setNewtonMaxIteration(1)

    def state():
        return [list(b.q()[:3]) for b in bodies], [list(b.velocity()[:3]) for b in bodies]

    n_steps = int(math.floor(scene["t_end"] / h + 1e-9))
    pos, vel = state()
    positions, velocities, contacts = [pos], [vel], []
    seconds, errors, sweeps = [], [], []
    cpu = 0.0
    for _ in range(n_steps):
        t0, c0 = time.perf_counter(), time.process_time()
        options.dparam[sn.SICONOS_DPARAM_RESIDU] = 0.0
        options.iparam[sn.SICONOS_IPARAM_ITER_DONE] = 0
        sim.computeOneStep()
        sim.nextStep()
        seconds.append(time.perf_counter() - t0)
        cpu += time.process_time() - c0
        errors.append(float(options.dparam[sn.SICONOS_DPARAM_RESIDU]))
        sweeps.append(int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE]))
        pos, vel = state()
        positions.append(pos)
        velocities.append(vel)
        contacts.append(problem.getSizeOutput() // 3)
    return {
        "positions": positions,
        "velocities": velocities,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "contacts": contacts,
        "errors": errors,
        "sweeps": sweeps,
        "tol": tol,
    }


def siconos_available() -> str | None:
    """None when /usr/bin/python3 imports siconos.kernel, else why not."""
    try:
        out = subprocess.run(
            [SYSTEM_PYTHON, "-c", "import siconos.kernel, siconos.mechanics.collision.bullet"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{SYSTEM_PYTHON} cannot run: {exc}"
    if out.returncode:
        return f"{SYSTEM_PYTHON} cannot import siconos.kernel (apt-get install python3-siconos)"
    return None


def siconos(scene: dict, h: float, theta: float = 0.5, tol: float = SICONOS_TOL) -> dict:
    """Run the Siconos worker on one scene (Moreau-Jean's ``theta``, NSGS' ``tol``); arrays as
    numpy."""
    job = {"scene": scene, "h": h, "theta": theta, "tol": tol}
    out = subprocess.run(
        [SYSTEM_PYTHON, __file__, "--worker", json.dumps(job)],
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        raise RuntimeError(f"Siconos worker failed:\n{out.stderr[-2000:]}")
    data = json.loads(out.stdout.strip().splitlines()[-1])
    for key in ("positions", "velocities", "seconds"):
        data[key] = np.asarray(data[key], dtype=float)
    return data


# -- ours ------------------------------------------------------------------------------------
def system_of(scene: dict):
    """The scene as a contactmodel System and the floor plane."""
    import contactmodel as cm
    from contactmodel.shapes import Box, Sphere
    from contactmodel.simulation.stepper import quat_to_matrix

    system = cm.System(gravity=tuple(scene["gravity"]))
    for k, spec in enumerate(scene["bodies"]):
        shape = Box(tuple(spec["size"])) if spec["shape"] == "box" else Sphere(spec["radius"])
        system.add_body(
            f"b{k}",
            spec["mass"],
            np.diag(spec["inertia"]),
            position=spec["position"],
            orientation=quat_to_matrix(np.array(spec["quaternion"])),
            velocity=spec["velocity"],
            angular_velocity=spec["angular_velocity"],
            shape=shape,
        )
    return system, [cm.Plane(tangent=(1.0, 0.0, 0.0))]


#: our friction law of each law name, (contactmodel class, keywords): the peers' two (Siconos and
#: MuJoCo model the cone and the pyramid), then laws of ours alone (benchmarks/small_problems.py);
#: ``aniso`` is ``AnisotropicCone(mu, 0.8 mu)`` (its automatic form: the SOC form for newton),
#: ``aniso_mncp`` the same in the MNCP form (``elltor`` and ``elltor_mncp``, ``ellipsoid`` (the soft
#: finger's cone block of four rows for newton) and ``ellipsoid_mncp`` likewise)
LAWS = {
    "cone": ("CoulombCone", {"form": "soc"}),
    "pyramid": ("Pyramid", {}),
    "polygon8": ("Polygonal", {"k": 8}),
    "cone_mncp": ("CoulombCone", {"form": "mncp"}),
    "aniso": ("AnisotropicCone", {}),
    "aniso_mncp": ("AnisotropicCone", {"form": "mncp"}),
    "ellipsoid": ("Ellipsoid", {}),
    "ellipsoid_mncp": ("Ellipsoid", {"form": "mncp"}),
    "elltor": ("EllipticTorsion", {}),
    "elltor_mncp": ("EllipticTorsion", {"form": "mncp"}),
}
#: the laws whose runs have torsion contacts (soft fingers: a torsional friction row each)
TORSION_LAWS = {"ellipsoid", "ellipsoid_mncp", "elltor", "elltor_mncp"}


def our_law(law: str, mu: float):
    """The friction law named ``law`` (a key of :data:`LAWS`) with coefficient ``mu``."""
    import contactmodel as cm

    name, keywords = LAWS[law]
    if name == "AnisotropicCone":
        return cm.AnisotropicCone(mu, 0.8 * mu, **keywords)
    return getattr(cm, name)(mu, **keywords)


def ours(scene: dict, h: float, law: str, beta: float = 0.2, step_tol: float | None = None) -> dict:
    """Our run of ``scene`` (``step_tol``: simulate's, None for its default)."""
    import contactmodel as cm

    system, planes = system_of(scene)
    mu = scene["mu"]
    friction = our_law(law, mu)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a failed step is reported in the row
        traj = cm.simulate(
            system,
            scene["t_end"],
            h,
            friction=friction,
            solver="newton",
            planes=planes,
            keep_steps=False,
            beta=beta,
            islands=ISLANDS,
            torsion=law in TORSION_LAWS,
            **({} if step_tol is None else {"step_tol": step_tol}),
        )
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "failed_step": traj.failed_step,
        "solver_ms": 1e3 * float(np.mean(traj.seconds)) if traj.n_steps else 0.0,
        "contacts": int(sum(~np.isnan(v[-1, 0]) for v in traj.impulses.values())) if traj.n_steps else 0,
        "positions": traj.positions,
        "velocities": traj.velocities,
        "wall": wall,
        "cpu": cpu,
        "steps": traj.n_steps,
        "timings": {k: float(np.mean(v)) for k, v in traj.timings.items()},
        "energy_rise": float(np.max(np.diff(traj.energy), initial=0.0)),
        "residual_max": float(np.max(traj.residual, initial=0.0)),
        "inaccurate": traj.status.count("solved-inaccurate"),
        "retried": sum(bool(f) for f in traj.fallback),
    }


def solver_report(peer: dict) -> dict:
    """A Siconos run's tolerance, CPU ms per step, the errors its steps with contacts ended with
    (median, max), its mean sweeps per step and the steps that ended above the tolerance."""
    touching = np.asarray(peer["contacts"]) > 0
    errors = np.asarray(peer["errors"], dtype=float)[touching]
    return {
        "tol": peer["tol"],
        "cpu_ms": 1e3 * peer["cpu_seconds"] / max(len(peer["seconds"]), 1),
        "error_median": float(np.median(errors)) if errors.size else 0.0,
        "error_max": float(np.max(errors, initial=0.0)),
        "sweeps_mean": float(np.mean(peer["sweeps"])) if peer["sweeps"] else 0.0,
        "unconverged": int(np.count_nonzero(errors > peer["tol"])),
    }


def compare(
    scene: dict,
    h: float,
    law: str,
    peer: dict | None,
    others: Sequence[dict] = (),
    step_tol: float | None = None,
) -> dict:
    """One row: differences (m, m/s) to ``peer`` and times per step (ms); ``others``: Siconos
    runs of the same scene at other tolerances, reported by time and error only."""
    mine = ours(scene, h, law, step_tol=step_tol)
    n = mine["steps"]
    t = h * np.arange(n + 1)
    row = {
        "scene": scene["name"],
        "dt": h,
        "law": law if step_tol is None else f"{law}@{step_tol:g}",
        "ours_failed_step": mine["failed_step"],
        "ours_contacts_at_end": mine["contacts"],
        "ours_solver_ms": mine["solver_ms"],
        "ours_ms": 1e3 * mine["wall"] / max(n, 1),
        "ours_cpu_ms": 1e3 * mine["cpu"] / max(n, 1),
        "ours_split_ms": {k: 1e3 * v for k, v in mine["timings"].items()},
        "ours_energy_rise": mine["energy_rise"],
        "ours_residual_max": mine["residual_max"],
        "ours_inaccurate": mine["inaccurate"],
        "ours_retried": mine["retried"],
    }
    exact = closed_form(scene, t) if len(scene["bodies"]) == 1 else None
    if exact is not None:
        row["ours_vs_exact_m"] = float(np.max(np.abs(mine["positions"][:, 0] - exact)))
    if peer is not None:
        row["siconos_ms"] = 1e3 * float(np.median(peer["seconds"]))
        row["siconos_mean_ms"] = 1e3 * float(np.mean(peer["seconds"]))
        row["siconos_cpu_ms"] = 1e3 * peer["cpu_seconds"] / max(len(peer["seconds"]), 1)
        row["siconos_contacts_at_end"] = int(peer["contacts"][-1]) if peer["contacts"] else 0
        row["siconos"] = [solver_report(run) for run in (peer, *others)]
        k = min(len(peer["positions"]), len(mine["positions"]))
        row["position_gap_m"] = float(np.max(np.abs(mine["positions"][:k] - peer["positions"][:k])))
        # Bullet reports the resting contacts after the first step: Siconos' body falls for a
        # step and lands, so velocities are compared from SETTLE seconds on
        j = min(k - 1, int(round(SETTLE / h)))
        row["velocity_gap_m_s"] = float(np.max(np.abs(mine["velocities"][j:k] - peer["velocities"][j:k])))
        row["final_gap_m"] = float(np.max(np.abs(mine["positions"][k - 1] - peer["positions"][k - 1])))
        if exact is not None:
            row["siconos_vs_exact_m"] = float(np.max(np.abs(peer["positions"][:k, 0] - exact[:k])))
    return row


def spread(scene: dict, h: float, law: str) -> tuple[list[str], np.ndarray]:
    """How far each simulator moves from itself: Siconos with theta 0.5 (the peer run's) and 1,
    each at h and h / 2, and ours at h and h / 2 with beta = 0.2 (default) and 0 (no drift
    correction). Returns the run labels and the (r, r) matrix of the largest difference (m) of
    any body's centre of mass between two runs, at the times t = k h of the coarse step."""
    runs: dict[str, np.ndarray] = {}
    for theta in (0.5, 1.0):
        for step in (h, h / 2):
            peer = siconos(scene, step, theta)
            runs[f"Siconos theta={theta:g} dt={step:g}"] = peer["positions"][:: int(round(h / step))]
    for step in (h, h / 2):
        for beta in (0.2, 0.0):
            mine = ours(scene, step, law, beta)
            runs[f"ours dt={step:g} beta={beta:g}"] = mine["positions"][:: int(round(h / step))]
    k = min(len(v) for v in runs.values())
    names = list(runs)
    gaps = np.array([[np.abs(runs[a][:k] - runs[b][:k]).max() for b in names] for a in names])
    return names, gaps


# -- rigid against compliant against MuJoCo -----------------------------------------------------
def box_corners(positions: np.ndarray, quaternions: np.ndarray) -> np.ndarray:
    """(N, nb, 8, 3) corners of the cubes from centres (N, nb, 3) and quaternions (N, nb, 4) (w, x, y, z)."""
    from contactmodel.simulation.stepper import quat_matrices

    n, nb = positions.shape[:2]
    R = quat_matrices(quaternions.reshape(-1, 4)).reshape(n, nb, 3, 3)
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)], dtype=float) * SIDE / 2
    return positions[:, :, None, :] + np.einsum("nbij,vj->nbvi", R, signs)


def motion_report(scene: dict, times, positions, quaternions, velocities, cpu: float) -> dict:
    """Per step CPU time, floor penetration and, for one body, the stop time and distance."""
    corners = box_corners(np.asarray(positions), np.asarray(quaternions))
    depth = np.maximum(-corners[..., 2].min(axis=(1, 2)), 0.0)  # (N,) deepest corner below z = 0
    speed = np.linalg.norm(np.asarray(velocities), axis=2)  # (N, nb)
    row = {
        "cpu_ms": 1e3 * cpu / max(len(times) - 1, 1),
        "penetration_max_m": float(depth.max()),
        "penetration_end_m": float(depth[-1]),
        "speed_end": float(speed[-1].max()),
    }
    if len(scene["bodies"]) == 1:
        stopped = np.flatnonzero(speed[:, 0] < 1e-3)
        k = int(stopped[0]) if stopped.size else len(times) - 1
        row["stop_s"] = float(times[k])
        row["stop_m"] = float(positions[k][0][0] - positions[0][0][0])
    return row


def ours_contact(scene: dict, h: float, law: str, contact) -> dict:
    """Our run of ``scene`` with ``contact`` (None: rigid; a cm.Compliant)."""
    import contactmodel as cm

    system, planes = system_of(scene)
    mu = scene["mu"]
    friction = our_law(law, mu)
    c0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        traj = cm.simulate(
            system, scene["t_end"], h, friction=friction, planes=planes, keep_steps=False, contact=contact
        )
    cpu = time.process_time() - c0
    row = motion_report(scene, traj.times, traj.positions, traj.quaternions, traj.velocities, cpu)
    row["energy_rise"] = float(np.max(np.diff(traj.energy), initial=0.0))
    row["failed_step"] = traj.failed_step
    return row


def mujoco_model(scene: dict, h: float, law: str) -> str:
    """The scene as MJCF: the floor plane, each cube a free body with its mass and inertia; MuJoCo's
    default contact parameters."""
    mu = scene["mu"]
    cone = "elliptic" if law == "cone" else "pyramidal"
    gx, gy, gz = scene["gravity"]
    bodies = []
    for k, spec in enumerate(scene["bodies"]):
        x, y, z = spec["position"]
        w, qx, qy, qz = spec["quaternion"]
        half = " ".join(str(a / 2) for a in spec["size"])
        inertia = " ".join(str(i) for i in spec["inertia"])
        bodies.append(
            f'<body name="b{k}" pos="{x} {y} {z}" quat="{w} {qx} {qy} {qz}"><freejoint/>'
            f'<inertial pos="0 0 0" mass="{spec["mass"]}" diaginertia="{inertia}"/>'
            f'<geom type="box" size="{half}" friction="{mu} 0 0"/></body>'
        )
    return (
        f'<mujoco><option timestep="{h}" gravity="{gx} {gy} {gz}" cone="{cone}"/><worldbody>'
        f'<geom type="plane" size="50 50 0.1" friction="{mu} 0 0"/>{"".join(bodies)}</worldbody></mujoco>'
    )


def run_mujoco(scene: dict, h: float, law: str) -> dict | None:
    """MuJoCo's run of ``scene`` (None when mujoco is not installed)."""
    try:
        import mujoco
    except ImportError:
        return None
    from contactmodel.simulation.stepper import quat_matrices

    model = mujoco.MjModel.from_xml_string(mujoco_model(scene, h, law))
    data = mujoco.MjData(model)
    nb = len(scene["bodies"])
    for k, spec in enumerate(scene["bodies"]):
        R = quat_matrices(np.array([spec["quaternion"]], dtype=float))[0]
        data.qvel[6 * k : 6 * k + 3] = spec["velocity"]
        data.qvel[6 * k + 3 : 6 * k + 6] = R.T @ np.asarray(spec["angular_velocity"])  # body frame
    mujoco.mj_forward(model, data)
    n_steps = int(math.floor(scene["t_end"] / h + 1e-9))

    def state():
        q = data.qpos.reshape(nb, 7)
        v = data.qvel.reshape(nb, 6)
        return q[:, :3].copy(), q[:, 3:].copy(), v[:, :3].copy()

    positions, quaternions, velocities = [], [], []
    cpu = 0.0
    for k in range(n_steps + 1):
        p, q, v = state()
        positions.append(p)
        quaternions.append(q)
        velocities.append(v)
        if k < n_steps:
            c0 = time.process_time()
            mujoco.mj_step(model, data)
            cpu += time.process_time() - c0
    times = h * np.arange(n_steps + 1)
    return motion_report(scene, times, np.array(positions), np.array(quaternions), np.array(velocities), cpu)


def contact_models(args) -> None:
    """The ``--contact-models`` table: rigid, compliant (each v_s of ``--vs``) and MuJoCo."""
    import contactmodel as cm

    head = (
        f"{'scene':<10}{'dt':>7} {'law':<8}{'contact':<26}{'CPU ms/step':>12}{'pen. max m':>12}"
        f"{'pen. end m':>12}{'stop s':>9}{'stop m':>10}{'dist. err':>10}{'speed end':>11}{'E rise J':>10}"
    )
    print(head)
    for scene in scenes(args.scenes, args.boxes, args.t_end):
        exact = None
        if scene["name"] == "box_slide":
            exact = (1.0 / (scene["mu"] * G), 1.0 / (2 * scene["mu"] * G))
        for h, law in itertools.product(args.dt, args.law):
            runs = [("rigid", ours_contact(scene, h, law, None))]
            for vs in args.vs:
                model = cm.Compliant(args.stiffness, args.damping, friction_regularization=vs)
                runs.append((f"compliant v_s={vs:g}", ours_contact(scene, h, law, model)))
            peer = run_mujoco(scene, h, law)
            runs.append(("MuJoCo (default soft)", peer) if peer else ("MuJoCo: not installed", None))
            for label, r in runs:
                if r is None:
                    print(f"{scene['name']:<10}{h:>7g} {law:<8}{label:<26}")
                    continue
                err = None if exact is None else r["stop_m"] / exact[1] - 1.0
                print(
                    f"{scene['name']:<10}{h:>7g} {law:<8}{label:<26}{r['cpu_ms']:>12.3f}"
                    f"{r['penetration_max_m']:>12.2e}{r['penetration_end_m']:>12.2e}"
                    f"{_f(r.get('stop_s'), '.4f'):>9}{_f(r.get('stop_m'), '.5f'):>10}"
                    f"{_f(err, '+.2%'):>10}{r['speed_end']:>11.1e}{_f(r.get('energy_rise'), '.1e'):>10}"
                    + ("" if r.get("failed_step") is None else f"  FAILED at step {r['failed_step']}")
                )
            if exact is not None:
                print(f"{'':<10}closed form: stops at {exact[0]:.4f} s after {exact[1]:.5f} m")
    print(f"compliant: cm.Compliant({args.stiffness:g} N/m, {args.damping:g} N s/m) per contact")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenes", nargs="+", default=["box_slide", "box_incline", "sphere_bowl", "sphere_incline"]
    )
    parser.add_argument("--dt", nargs="+", type=float, default=[1e-3])
    parser.add_argument("--law", nargs="+", default=["cone"], choices=list(LAWS))
    parser.add_argument("--boxes", type=int, default=100)
    parser.add_argument("--t-end", type=float, default=None)
    parser.add_argument(
        "--step-tol",
        nargs="+",
        type=float,
        default=None,
        help="our runs' simulation tolerance (simulate's step_tol; default its own, 1e-6): one run "
        "per value and law, e.g. 0 1e-6 for the retried and the accepted solved-inaccurate steps",
    )
    parser.add_argument(
        "--siconos-tol",
        nargs="+",
        type=float,
        default=[SICONOS_TOL],
        help="NSGS tolerances of the Siconos runs (default: Siconos' own, 1e-4); the first is the "
        "trajectory compared, each is timed (e.g. 1e-4 1e-8)",
    )
    parser.add_argument(
        "--whole-steps",
        action="store_true",
        help="our runs solve each step as one problem (simulate's islands=False) instead of island by island",
    )
    parser.add_argument("--json", action="store_true", help="one JSON line per row instead of the table")
    parser.add_argument(
        "--spread",
        action="store_true",
        help="instead of the comparison: each simulator against itself at dt and dt/2 (and Siconos' "
        "theta 0.5 and 1, our beta 0.2 and 0), the largest position difference between any two runs",
    )
    parser.add_argument(
        "--contact-models",
        action="store_true",
        help="instead of Siconos: rigid against compliant contact against MuJoCo (see the docstring)",
    )
    parser.add_argument("--stiffness", type=float, default=1e5, help="compliant K, N/m (default 1e5)")
    parser.add_argument("--damping", type=float, default=300.0, help="compliant C, N s/m (default 300)")
    parser.add_argument(
        "--vs", nargs="+", type=float, default=[1e-4], help="compliant friction regularizations, m/s"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    global ISLANDS
    ISLANDS = not args.whole_steps
    if args.contact_models:
        if args.scenes == parser.get_default("scenes"):
            args.scenes = ["box_slide", "pile"]
        contact_models(args)
        return
    if args.worker:
        job = json.loads(args.worker)
        print(json.dumps(run_siconos(job["scene"], job["h"], job["theta"], job["tol"])))
        return
    missing = siconos_available()
    if missing:
        print(f"Siconos skipped: {missing}")
    if args.spread:
        if missing:
            raise SystemExit(f"--spread needs Siconos: {missing}")
        for scene in scenes(args.scenes, args.boxes, args.t_end):
            for h in args.dt:
                names, gaps = spread(scene, h, args.law[0])
                print(f"{scene['name']}, {args.law[0]}: largest |x_a - x_b| (m) over the run")
                for a, row in zip(names, gaps):
                    print(f"{a:<30}" + " ".join(f"{g:9.2e}" for g in row))
        return
    rows = []
    for scene in scenes(args.scenes, args.boxes, args.t_end):
        for h in args.dt:
            peers = [] if missing else [siconos(scene, h, tol=tol) for tol in args.siconos_tol]
            for law, step_tol in itertools.product(args.law, args.step_tol or [None]):
                row = compare(scene, h, law, peers[0] if peers else None, peers[1:], step_tol)
                rows.append(row)
                if args.json:
                    print(json.dumps(row))
    if args.json:
        return
    head = (
        f"{'scene':<16}{'dt':>7} {'law':<8}{'|dx| vs Siconos':>16}{'|dv| vs Siconos':>16}"
        f"{'ours vs exact':>14}{'Siconos vs exact':>17}{'ours ms/step':>13}{'Siconos ms/step':>16}"
    )
    print(head)
    for r in rows:
        print(
            f"{r['scene']:<16}{r['dt']:>7g} {r['law']:<8}{_f(r.get('position_gap_m')):>16}"
            f"{_f(r.get('velocity_gap_m_s')):>16}{_f(r.get('ours_vs_exact_m')):>14}"
            f"{_f(r.get('siconos_vs_exact_m')):>17}{r['ours_ms']:>13.2f}{_f(r.get('siconos_ms'), '.2f'):>16}"
        )
    for r in rows:
        ratio = r["ours_cpu_ms"] / r["siconos_cpu_ms"] if r.get("siconos_cpu_ms") else None
        failed = r["ours_failed_step"]
        print(
            f"{r['scene']} {r['law']} dt={r['dt']:g}: contacts at the end ours {r['ours_contacts_at_end']}"
            f" / Siconos {r.get('siconos_contacts_at_end', '-')}; our solver {r['ours_solver_ms']:.2f}"
            f" ms/step; Siconos mean {_f(r.get('siconos_mean_ms'), '.2f')} ms/step; CPU per step ours"
            f" {r['ours_cpu_ms']:.2f} ms / Siconos {_f(r.get('siconos_cpu_ms'), '.2f')} ms"
            f" = {_f(ratio, '.1f')}" + ("" if failed is None else f"; OUR RUN FAILED at step {failed}")
        )
    for r in rows:
        print(
            f"{r['scene']} {r['law']} dt={r['dt']:g} accuracy: ours step residuals at most "
            f"{r['ours_residual_max']:.1e} ({r['ours_inaccurate']} steps solved-inaccurate, "
            f"{r['ours_retried']} retried in other statements)"
        )
        for s in r.get("siconos", []):
            print(
                f"  Siconos NSGS tol {s['tol']:g}: CPU {s['cpu_ms']:.2f} ms/step (ours / Siconos = "
                f"{r['ours_cpu_ms'] / s['cpu_ms']:.1f}); error median {s['error_median']:.1e}, max "
                f"{s['error_max']:.1e}; {s['sweeps_mean']:.0f} sweeps/step; {s['unconverged']} steps "
                "above the tolerance"
            )
    print(
        "ours per step (ms): "
        + "; ".join(
            f"{r['scene']} {r['law']} dt={r['dt']:g}: "
            + ", ".join(f"{k} {v:.2f}" for k, v in r["ours_split_ms"].items())
            for r in rows
        )
    )


def _f(value, spec: str = ".2e") -> str:
    return "-" if value is None else format(value, spec)


if __name__ == "__main__":
    sys.exit(main())
