"""Random physically meaningful problems: every solution of every solver gets a mode for every
contact and a verification report; pyramid solutions outside the Coulomb cone are counted."""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel.analysis import contact_modes, verify

SOLVERS = {"pyramid": ("lemke", "newton", "fip"), "cone": ("newton", "scipy")}


def random_problem(rng: np.random.Generator, law: str):
    """A box at rest on two random feet (possibly tilted normals), with gravity and a random wrench."""
    mu = float(rng.uniform(0.1, 1.0))
    s = cm.System(gravity=(0.0, 0.0, -9.81))
    mass = float(rng.uniform(0.5, 3.0))
    box = s.add_body(
        "box",
        mass=mass,
        inertia=cm.inertia.box(mass, rng.uniform(0.2, 0.6, size=3)),
        position=(0.0, 0.0, 0.3),
        wrench=np.r_[rng.normal(scale=5.0, size=3), rng.normal(scale=0.5, size=3)],
    )
    for k in range(2):
        point = np.r_[rng.uniform(-0.3, 0.3, size=2), 0.0]
        normal = np.r_[rng.normal(scale=0.2, size=2), 1.0]
        normal /= np.linalg.norm(normal)
        friction = cm.Pyramid(mu) if law == "pyramid" else cm.CoulombCone(mu)
        s.add_contact(box, s.ground, point=point, normal=normal, friction=friction, name=f"foot{k}")
    return cm.formulate(s)


def study(n: int, seed: int = 0) -> dict:
    """Solve n random problems per law with every solver; count modes, reports, outside-cone forces."""
    rng = np.random.default_rng(seed)
    stats = {
        "solutions": 0,
        "modes": 0,
        "reports": 0,
        "verified": 0,
        "pyramid_contacts": [0, 0],
        "outside": [0, 0],
    }
    for _ in range(n):
        for law, solvers in SOLVERS.items():
            problem = random_problem(rng, law)
            for solver in solvers:
                sol = cm.solve(problem, solver=solver)
                if not sol.ok:
                    continue
                stats["solutions"] += 1
                modes = contact_modes(problem, sol)
                stats["modes"] += all(n in modes and modes[n].mode for n in problem.contact_names)
                report = verify(sol, problem)
                stats["reports"] += bool(report.summary())
                stats["verified"] += report.ok
                if law == "pyramid":
                    for k, f in enumerate(report.friction):
                        stats["pyramid_contacts"][k] += 1
                        stats["outside"][k] += not f.inside_cone
    return stats


def test_every_solution_has_modes_and_a_report() -> None:
    stats = study(6)
    assert stats["solutions"] > 20
    assert stats["modes"] == stats["solutions"] == stats["reports"]
    assert stats["verified"] >= stats["solutions"] - 2
