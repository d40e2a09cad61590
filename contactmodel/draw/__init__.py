"""Pictures of contact problems for teaching and checking (matplotlib).

:func:`draw` shows a system (bodies, manipulator links and joint axes, the ground, each
contact's frame (n, t, o) and friction set) and, given a solution, the contact forces, the
torsional moments, the body accelerations and each contact's mode. :func:`sweep_plot` shows
a scalar over one or two swept parameters, with the contact-mode boundaries.

Conventions: SI units, world frame. A contact's force (c_n, c_t, c_o) acts on ``body_a`` and
is drawn at the contact point as ``frame.T @ force[:3]``; its friction set is drawn at unit
normal force as a cone of height ``L`` along n with the set ``{friction : c_n = 1 N}`` at its
top, 1 N drawn as ``L`` metres, so its opening angle is the true one. Force arrows use
``scale["force"]`` m per N, acceleration arrows ``scale["acceleration"]`` m per m/s^2. A
torsional moment c_r is an arc about n (right-hand rule) sweeping 270 degrees times
|c_r| / (the law's torsional limit at this c_n); the limit itself is the dotted arc at the
top of the friction set, labelled with its value per newton of normal force.

Every arrow drawn is listed in ``arrows(fig)`` (:class:`Arrow`: its physical vector, tail and
scale, and its artists, whose gid is ``"KIND:NAME"``, e.g. ``"force:corner0"``), and every
friction set in ``friction_sets(fig)``, so tests can compare pictures with numbers.
Output is deterministic: fixed view, no timestamps (see :func:`save`).

The package's modules, from the entry points down: ``picture`` (:func:`draw`), ``sweeps``
(:func:`sweep_plot`), ``framing`` (axes, legend, title, caption), ``elements`` (what each part of
the scene looks like), ``labels`` (label placement), ``scene`` (what is drawn and at which scale),
``record`` (what was drawn, per figure) and ``canvas`` (the 2D/3D drawing surface, :func:`save`).
"""

from contactmodel.draw.canvas import COLOURS, DPI, HASHSALT, NOISE, SIZE, VIEW_3D, save
from contactmodel.draw.elements import friction_set
from contactmodel.draw.picture import draw
from contactmodel.draw.record import DRAWN, Arrow, Drawn, DrawnSet, arrows, friction_sets
from contactmodel.draw.sweeps import sweep_plot

__all__ = [
    "COLOURS",
    "DPI",
    "DRAWN",
    "HASHSALT",
    "NOISE",
    "SIZE",
    "VIEW_3D",
    "Arrow",
    "Drawn",
    "DrawnSet",
    "arrows",
    "draw",
    "friction_set",
    "friction_sets",
    "save",
    "sweep_plot",
]

# The functions are documented and shown as contactmodel.draw.NAME, where users import them from
# (the classes keep their own module, where their annotations resolve).
for _function in (arrows, draw, friction_set, friction_sets, save, sweep_plot):
    _function.__module__ = __name__
del _function
