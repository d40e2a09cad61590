"""cm.simulate against Siconos' Moreau-Jean time stepping (benchmarks/simulate_peer.py).

Skipped when ``/usr/bin/python3`` cannot import ``siconos.kernel`` (Debian's python3-siconos is
not a dependency of the project). Both schemes are first order, so the two trajectories of the
sliding cube must stay within a few v0 h in position and g h in velocity of each other, and
each within v0 h of the closed-form motion.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

PEER = Path(__file__).resolve().parents[2] / "benchmarks" / "simulate_peer.py"


@pytest.fixture
def peer():
    """benchmarks/simulate_peer.py as a module; the test is skipped when Siconos is not there."""
    spec = importlib.util.spec_from_file_location("simulate_peer", PEER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    missing = module.siconos_available()
    if missing:
        pytest.skip(f"Siconos peer not available: {missing}")
    return module


@pytest.mark.parametrize("name", ["box_slide", "sphere_bowl"])
def test_trajectories_agree_with_siconos(peer, name):
    h = 2e-3
    (scene,) = peer.scenes([name], boxes=0, t_end=0.25)
    row = peer.compare(scene, h, "cone", peer.siconos(scene, h))
    v0 = 1.0
    assert row["position_gap_m"] <= 3 * v0 * h, row
    assert row["velocity_gap_m_s"] <= 3 * peer.G * h, row
    assert row["ours_vs_exact_m"] <= v0 * h, row
    assert row["siconos_vs_exact_m"] <= v0 * h, row
    assert row["ours_energy_rise"] <= 1e-9, row


def test_spread_measures_each_simulator_against_itself(peer):
    """--spread's matrix: zero on the diagonal, symmetric, one row per run; on the sliding cube
    (closed form known) every run is within the first-order error of every other (v0 h at the
    coarse step, twice for two runs), and our theta-free runs differ from each other by halving
    the step only (beta does not act on a cube resting on its face)."""
    h = 2e-3
    (scene,) = peer.scenes(["box_slide"], boxes=0, t_end=0.1)
    names, gaps = peer.spread(scene, h, "cone")
    assert len(names) == 8 and gaps.shape == (8, 8)
    assert (gaps.diagonal() == 0).all() and (gaps == gaps.T).all()
    assert gaps.max() <= 2 * 1.0 * h
    ours = [k for k, name in enumerate(names) if name.startswith("ours")]
    assert gaps[ours[0], ours[1]] < 1e-9, "beta changes nothing without penetration"
    assert gaps[ours[0], ours[2]] > 0, "halving the step changes our trajectory"


def test_siconos_tolerance_is_set_and_reported(peer):
    """--siconos-tol reaches NSGS: at 1e-8 every step with contacts ends at an error of at most
    1e-8 and takes more sweeps than at Siconos' default 1e-4; each row reports both runs."""
    h = 2e-3
    (scene,) = peer.scenes(["box_slide"], boxes=0, t_end=0.05)
    loose, tight = peer.siconos(scene, h, tol=1e-4), peer.siconos(scene, h, tol=1e-8)
    row = peer.compare(scene, h, "cone", loose, [tight])
    reports = row["siconos"]
    assert [r["tol"] for r in reports] == [1e-4, 1e-8]
    assert reports[1]["error_max"] <= 1e-8 and reports[1]["unconverged"] == 0
    assert reports[0]["error_max"] > reports[1]["error_max"]
    assert reports[1]["sweeps_mean"] > reports[0]["sweeps_mean"]
    assert row["ours_residual_max"] <= 1e-8 and row["ours_inaccurate"] == 0
