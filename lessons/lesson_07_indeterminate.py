"""
7. Statically indeterminate forces: what the solvers return
===========================================================

A 3 kg box stands on its four bottom corners and is pushed sideways by 10 N, too gently to
move it (:math:`\\mu m g = 14.7` N). The motion is determined (nothing moves), but the
contact forces are not: twelve force components balance six equations of the box's
equilibrium, so six independent combinations of them (*internal forces*, for example more
weight on one diagonal and less on the other) change nothing. Every force distribution that
balances the box and stays inside the friction cones is a solution.

What does a solver return then? One of the solutions, which one depending on the method and
its starting point. It is not a bug when two solvers disagree on forces here: both are right.
The library can tell:

* ``contactmodel.analysis.indeterminate`` counts the internal-force directions among the
  contacts that carry load (the null space of their rows of the contact Jacobian; a sliding
  contact counts as one row, its friction being fixed by its normal force, plus the row of any
  friction component still inside its interval), and ``solution.table(problem=problem)`` prints
  a note under the forces when there is one;
* ``cm.decide`` proves non-uniqueness: it finds a second verified solution and shows that
  every point between the two solves too (a continuum).
"""

# %%
import numpy as np

import contactmodel as cm
from contactmodel.analysis.indeterminate import indeterminacy, note


def pushed_box() -> cm.System:
    system = cm.System(gravity=(0.0, 0.0, -9.81))
    box = system.add_body(
        "box",
        mass=3.0,
        inertia=cm.inertia.box(3.0, (0.4, 0.4, 0.4)),
        position=(0, 0, 0.2),
        wrench=(10.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    )
    for i, (x, y) in enumerate([(0.2, 0.2), (-0.2, 0.2), (-0.2, -0.2), (0.2, -0.2)]):
        system.add_contact(
            box,
            system.ground,
            point=(x, y, 0),
            normal=(0, 0, 1),
            friction=cm.CoulombCone(0.5),
            name=f"corner{i}",
        )
    return system


problem = cm.formulate(pushed_box())
answers = {}
for solver in ("newton", "lemke", "ipopt"):
    law = None if solver != "lemke" else cm.Pyramid(0.5)
    p = problem if law is None else cm.formulate(pushed_box(), friction=law)
    solution = cm.solve(p, solver=solver)
    assert solution.ok, (solver, solution.status)
    answers[solver] = solution
    normals = [round(c.force[0], 3) for c in solution.contacts]
    print(
        f"{solver:7} normal forces {normals}  sum {sum(normals):.3f} N"
        f"   box a = {solution.bodies[0].linear_acceleration}"
    )

# %%
# The same motion, the same total (29.43 N), different splits. The library's count:
solution = answers["newton"]
directions = indeterminacy(problem, solution)
print(directions, "internal-force directions")
print(note(directions))
assert directions == 6
print(solution.table(problem=problem))

# %%
# ``cm.decide`` proves it: two verified solutions, and every convex combination solves.
verdict = cm.decide(problem)
print(verdict.summary())

# %%
# In a picture: the normal forces of each solver at each corner.
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(6, 3.5))
width = 0.25
for k, (solver, sol) in enumerate(answers.items()):
    ax.bar(np.arange(4) + (k - 1) * width, [c.force[0] for c in sol.contacts], width, label=solver)
ax.set_xticks(range(4), [c.name for c in solution.contacts])
ax.set_ylabel("normal force (N)")
ax.set_title("forces not unique: " + f"{directions} internal-force directions", fontsize=10)
ax.legend()
fig.tight_layout()

# %%
# In a simulation
# ---------------
# The same happens at every step of a run where a box rests on a plane: the force plot shows
# the indeterminate steps shaded, so its jumps between steps are not mistaken for a bug.
from contactmodel.shapes import Box  # noqa: E402

system = cm.System(gravity=(0, 0, -9.81))
system.add_body("box", 3.0, cm.inertia.box(3.0, (0.4,) * 3), position=(0, 0, 0.2), shape=Box((0.4,) * 3))
traj = cm.simulate(
    system, t_end=0.1, dt=1e-3, planes=[cm.Plane(normal=(0, 0, 1))], friction=cm.CoulombCone(0.5)
)
cm.simulation.plot(traj)
