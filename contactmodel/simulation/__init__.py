"""Time stepping with the instantaneous contact models: :func:`simulate` -> :class:`Trajectory`.

See :mod:`contactmodel.simulation.stepper` for the scheme, :mod:`.collision` for contact
generation, :mod:`.compliant` for compliant contact, :mod:`.trajectory` for the result,
:mod:`.pictures` for pictures, :mod:`.replay` for the interactive HTML replay and :mod:`.scene` for
a scene's instantaneous problem.
"""

from contactmodel.simulation.collision import Plane
from contactmodel.simulation.compliant import Compliant
from contactmodel.simulation.pictures import animate, plot, snapshot
from contactmodel.simulation.stepper import SimulationError, State, simulate
from contactmodel.simulation.trajectory import Trajectory, load

__all__ = [
    "Compliant",
    "Plane",
    "SimulationError",
    "State",
    "Trajectory",
    "animate",
    "load",
    "plot",
    "simulate",
    "snapshot",
]
