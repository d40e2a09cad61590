"""
5. A sliding box against the closed form
========================================

A box slides on the floor at :math:`v_0` and nothing pushes it. Coulomb friction decelerates
it at :math:`\\mu g`, so it stops after a time :math:`v_0 / (\\mu g)` and a distance

.. math:: s = \\frac{v_0^2}{2 \\mu g}.

This is a time-stepping run (``cm.simulate``): at every step of length h the library finds
the contacts against the floor plane (the box's corners within a margin), solves the
instantaneous contact problem for impulses and moves the bodies (semi-implicit Euler, see the
:doc:`time-stepping page </timestepping>`). The stopping distance converges at first order in
h.
"""

# %%

import contactmodel as cm
from contactmodel.shapes import Box

V0, MU, G, SIDE = 1.0, 0.3, 9.81, 0.2


def sliding_box() -> cm.System:
    system = cm.System(gravity=(0, 0, -G))
    system.add_body(
        "box",
        1.0,
        cm.inertia.box(1.0, (SIDE,) * 3),
        position=(0.0, 0.0, SIDE / 2),
        velocity=(V0, 0.0, 0.0),
        shape=Box((SIDE,) * 3),
    )
    return system


floor = cm.Plane(normal=(0, 0, 1), name="floor")
closed = V0**2 / (2 * MU * G)
print(f"closed form: stops after {V0 / (MU * G):.4f} s at s = {closed:.5f} m")
for dt in (1e-2, 3e-3, 1e-3):
    traj = cm.simulate(sliding_box(), t_end=0.5, dt=dt, planes=[floor], friction=cm.CoulombCone(MU))
    s = traj.positions[-1, 0, 0]
    print(f"dt = {dt:g} s: s = {s:.5f} m, error {s - closed:+.2e} m (about v0 dt / 2 = {V0 * dt / 2:.1e})")
    assert abs(s - closed) <= V0 * dt

# %%
# The run's pictures
# ------------------
# Energy, contact forces and modes against time. After the box stops, it stands on four
# corners: the split of its weight among them is statically indeterminate (the shaded band,
# "forces not unique"): the solver returns one of many equally valid splits, hence the jumps.
cm.simulation.plot(traj)

# %%
# The film: contact points coloured by their mode, force arrows scaled to the largest
# force, friction cones at 1 N and the velocity arrow (slow motion, 0.25 x).
film = cm.simulation.animate(traj, out=None, fps=12, speed=0.25)

# %%
# ``traj.to_html("run.html")`` writes the same run as an interactive 3D page (rotate, zoom,
# a time slider, play / pause) that works offline; ``contactmodel simulate MODEL.py --out
# run.html`` does it from the command line.
