"""Trajectory pictures: frames end at t_end at the chosen rate, the mode panel has one colour per
mode, force arrows follow the recorded forces, statically indeterminate steps are found, the
``simulate --out`` pictures and ``solve`` on a scene file use the scene's planes."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import contactmodel as cm  # noqa: E402
from contactmodel.analysis.indeterminate import internal_force_directions  # noqa: E402
from contactmodel.cli import main  # noqa: E402
from contactmodel.simulation import pictures, simulate  # noqa: E402
from tests.simulation.scenes import box_on_incline, sliding_box  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def sliding():
    system, planes = sliding_box()
    return simulate(system, t_end=1.0, dt=1e-2, planes=planes, friction=cm.CoulombCone(0.3))


def test_frames_end_at_t_end_at_the_chosen_rate(sliding) -> None:
    frames = pictures.frame_indices(sliding, fps=30)
    assert frames[0] == 0 and frames[-1] == sliding.n_steps
    assert sliding.times[frames[-1]] == pytest.approx(1.0)
    assert len(frames) == 31  # 1 s at 30 frames per second, both ends included
    assert len(pictures.frame_indices(sliding, fps=10)) == 11
    assert len(pictures.frame_indices(sliding, fps=10, speed=0.5)) == 21


def test_animation_writes_a_gif_with_the_frames(sliding, tmp_path) -> None:
    from PIL import Image

    gif = pictures.animate(sliding, out=tmp_path / "run.gif", fps=5)
    with Image.open(gif) as image:
        assert image.n_frames == len(pictures.frame_indices(sliding, fps=5)) == 6


def test_mode_panel_has_one_colour_per_mode(sliding) -> None:
    fig = pictures.plot(sliding)
    panel = fig.axes[2]
    by_label = {}
    for coll in panel.collections:
        if len(coll.get_offsets()) == 0:
            continue
        colour = tuple(np.round(coll.get_facecolor()[0], 6))
        ys = set(np.asarray(coll.get_offsets())[:, 1].tolist())
        by_label.setdefault(colour, set()).update(ys)
    legend = {
        t.get_text(): tuple(np.round(h.get_facecolor()[0], 6))
        for t, h in zip(panel.get_legend().get_texts(), panel.get_legend().legend_handles)
    }
    # every drawn mark has a legend colour, and each mode's colour is the fixed one
    assert set(by_label) <= set(legend.values())
    for mode, colour in legend.items():
        assert colour == tuple(np.round(matplotlib.colors.to_rgba(pictures.mode_colour(mode)), 6))
    matplotlib.pyplot.close(fig)


def test_snapshot_force_arrows_follow_the_recorded_forces(sliding) -> None:
    fig = pictures.snapshot(sliding, k=5, view="xz", velocities=False, friction=False)
    forces = [pictures.world_forces(sliding, name)[5] for name in sliding.impulses]
    total = np.nansum(forces, axis=0)
    # the box slides on the floor: the normal forces carry the weight, friction is mu of it
    assert total[2] == pytest.approx(9.81, rel=1e-6)
    assert abs(total[0]) == pytest.approx(0.3 * 9.81, rel=1e-6)
    assert len(fig.axes[0].lines) >= len(sliding.impulses)
    matplotlib.pyplot.close(fig)


def test_indeterminate_steps_on_four_corners(sliding) -> None:
    system, planes, _ = box_on_incline(np.radians(10.0))
    resting = simulate(system, t_end=0.05, dt=1e-2, planes=planes, friction=cm.CoulombCone(0.8))
    loose = pictures.indeterminate_steps(resting)
    # four rolling corners, 12 force components against 6 body coordinates: 6 internal directions
    assert loose[-1] == 6
    # sliding contacts fix their friction by their normal force: while the box slides (until
    # v0 / (mu g) = 0.17 s) only the split of its weight among the four corners is free (4
    # normal forces, 3 equations: 1 direction); once it stands, 12 components against 6
    flagged = pictures.indeterminate_steps(sliding)
    assert np.all(flagged[:15] == 1) and np.all(flagged[20:] == 6)
    # one sliding contact under a sphere is determined
    from tests.simulation.scenes import sphere_on_incline

    system, planes, _ = sphere_on_incline(np.radians(30.0))
    rolling = simulate(system, t_end=0.05, dt=1e-2, planes=planes, friction=cm.CoulombCone(0.1))
    assert np.all(pictures.indeterminate_steps(rolling) == 0)
    G = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert internal_force_directions(G, [0, 1, 2]) == 1
    assert internal_force_directions(G, [0, 2]) == 0
    assert internal_force_directions(G) == 1


def test_simulate_out_png_and_html(tmp_path, capsys) -> None:
    png = tmp_path / "run.png"
    assert (
        main(
            [
                "simulate",
                str(EXAMPLES / "sim_box_slide.py"),
                "--t-end",
                "0.05",
                "--dt",
                "1e-2",
                "--no-progress",
                "--out",
                str(png),
            ]
        )
        == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pytest.importorskip("plotly")
    html = tmp_path / "run.html"
    assert (
        main(
            [
                "simulate",
                str(EXAMPLES / "sim_box_slide.py"),
                "--t-end",
                "0.05",
                "--dt",
                "1e-2",
                "--no-progress",
                "--out",
                str(html),
                "--fps",
                "50",
            ]
        )
        == 0
    )
    text = html.read_text(encoding="utf-8")
    assert "Plotly.newPlot" in text and '<script src="http' not in text  # embedded, offline


def test_solve_uses_the_scene_planes(capsys) -> None:
    assert main(["solve", str(EXAMPLES / "sim_incline.py"), "--json"]) == 0
    out = capsys.readouterr()
    import json

    solution = json.loads(out.out)
    assert len(solution["contacts"]) == 4 and "scene" in out.err
    # sliding down a 35 degree incline, mu 0.5: a = g (sin - mu cos) = 1.6088 m/s^2 downhill
    a = np.array(solution["bodies"][0]["linear_acceleration"])
    assert np.linalg.norm(a) == pytest.approx(
        9.81 * (np.sin(np.radians(35)) - 0.5 * np.cos(np.radians(35))), rel=1e-6
    )


def test_solve_refuses_a_scene_in_free_flight(tmp_path, capsys) -> None:
    model = tmp_path / "falling.py"
    model.write_text(
        "import contactmodel as cm\n"
        "from contactmodel.shapes import Box\n"
        "def build():\n"
        "    s = cm.System(gravity=(0, 0, -9.81))\n"
        "    shape = Box((0.2,) * 3)\n"
        "    s.add_body('box', 1.0, cm.inertia.box(1.0, (0.2,) * 3), position=(0, 0, 1.0), shape=shape)\n"
        "    return s\n"
        "def simulation():\n"
        "    return {'planes': [cm.Plane(normal=(0, 0, 1))]}\n",
        encoding="utf-8",
    )
    assert main(["solve", str(model)]) != 0
    assert "free flight" in capsys.readouterr().err
