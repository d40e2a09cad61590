"""Every setting of simulate is checked before its first step (issue: rejected only at the first
contact, with the trajectory thrown away): a named error saying which field and what to do."""

from __future__ import annotations

import pytest

import contactmodel as cm
from contactmodel.errors import ContactModelError, SolverError
from contactmodel.simulation import simulate
from contactmodel.simulation.settings import SimulationSettingError

from .scenes import sliding_box


def _run(**kwargs):
    system, planes = sliding_box()
    kwargs.setdefault("friction", cm.Pyramid(0.5))
    kwargs.setdefault("t_end", 0.05)
    kwargs.setdefault("dt", 1e-2)
    steps = []
    simulate(system, planes=planes, progress=lambda k, n: steps.append(k), **kwargs)
    return steps


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"friction": "abc"}, SimulationSettingError, "friction='abc'.*accepted forms"),
        ({"friction": 3}, SimulationSettingError, "friction must be"),
        ({"friction": {"x": "nope"}}, SimulationSettingError, r"friction\['x'\]"),
        ({"solver": "nope"}, SolverError, "unknown solver 'nope'"),
        ({"bogus_option": 1}, SolverError, r"unknown option\(s\) \['bogus_option'\]"),
        ({"solver": "lemke", "friction": cm.CoulombCone(0.5)}, SimulationSettingError, "LCPs only"),
        ({"dt": 10.0}, SimulationSettingError, "shorter than one step dt"),
        ({"t_end": 1e-3}, SimulationSettingError, "give t_end >= dt"),
        ({"beta": 5.0}, SimulationSettingError, r"beta = 5 is out of range \[0, 1\]"),
        ({"friction": cm.Ellipsoid(0.5)}, SimulationSettingError, "torsion=True"),
    ],
)
def test_bad_setting_is_named_before_the_first_step(kwargs, error, match):
    steps: list[int] = []
    system, planes = sliding_box()
    kwargs = {"friction": cm.Pyramid(0.5), "t_end": 0.05, "dt": 1e-2, **kwargs}
    with pytest.raises(error, match=match):
        simulate(system, planes=planes, progress=lambda k, n: steps.append(k), **kwargs)
    assert steps == []  # no step was taken


def test_empty_system_is_named():
    with pytest.raises(SimulationSettingError, match="no body and no manipulator"):
        simulate(cm.System(), 0.1, 1e-2)


def test_plane_friction_spec_is_parsed_or_named():
    assert isinstance(cm.Plane(friction="cone:0.5").friction, cm.CoulombCone)
    with pytest.raises(ContactModelError, match="friction"):
        cm.Plane(friction="cone")
    with pytest.raises(ContactModelError, match="friction"):
        cm.Plane(friction=0.5)


def test_torsion_law_runs_with_torsion():
    assert len(_run(friction=cm.Ellipsoid(0.5), torsion=True)) == 5


def test_friction_spec_string_runs():
    assert len(_run(friction="pyramid:0.5")) == 5


def test_save_every_needs_out():
    with pytest.raises(ContactModelError, match="save_every needs out"):
        _run(save_every=2)
