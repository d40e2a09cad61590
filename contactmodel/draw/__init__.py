"""Pictures of contact problems for teaching and checking (matplotlib); see :mod:`contactmodel.draw.elements`."""

from contactmodel.draw.elements import (
    COLOURS,
    DPI,
    DRAWN,
    HASHSALT,
    NOISE,
    SIZE,
    VIEW_3D,
    Arrow,
    Drawn,
    DrawnSet,
    arrows,
    draw,
    friction_set,
    friction_sets,
    save,
    sweep_plot,
)

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

for _function in (arrows, draw, friction_set, friction_sets, save, sweep_plot):
    _function.__module__ = __name__  # documented and shown as contactmodel.draw.NAME
del _function
