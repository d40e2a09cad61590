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


def _peer():
    spec = importlib.util.spec_from_file_location("simulate_peer", PEER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["box_slide", "sphere_bowl"])
def test_trajectories_agree_with_siconos(name):
    peer = _peer()
    missing = peer.siconos_available()
    if missing:
        pytest.skip(f"Siconos peer not available: {missing}")
    h = 2e-3
    (scene,) = peer.scenes([name], boxes=0, t_end=0.25)
    row = peer.compare(scene, h, "cone", peer.siconos(scene, h))
    v0 = 1.0
    assert row["position_gap_m"] <= 3 * v0 * h, row
    assert row["velocity_gap_m_s"] <= 3 * peer.G * h, row
    assert row["ours_vs_exact_m"] <= v0 * h, row
    assert row["siconos_vs_exact_m"] <= v0 * h, row
    assert row["ours_energy_rise"] <= 1e-9, row
