"""Render the documentation's static pictures into docs/gallery/*.png (the examples' and
lessons' pictures are drawn when the docs build, by sphinx-gallery).

Run from the repository root:

    python docs/make_gallery.py

Every picture is deterministic (fixed view, fixed size, no timestamps), so re-running it on an
unchanged tree rewrites identical files.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import contactmodel as cm  # noqa: E402
from contactmodel import catalogue  # noqa: E402
from contactmodel.draw import draw, save, sweep_plot  # noqa: E402
from contactmodel.model_file import load_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "gallery"
PUSH_MODEL = ROOT / "examples" / "box_push.py"
SLIDE_MODEL = ROOT / "examples" / "box_slide.py"
sys.path.insert(0, str(ROOT / "examples"))
from friction_comparison import LAWS, push_response  # noqa: E402


def solved(system: cm.System, law: cm.FrictionLaw | None = None, solver: str = "newton"):
    problem = cm.formulate(system, friction=law)
    solution = cm.solve(problem, solver=solver)
    if not solution.ok:
        raise RuntimeError(f"gallery case not solved: {solution.status.value} ({solution.message})")
    return problem, solution


def pictures() -> list[Path]:
    """Draw the gallery; returns the files written."""
    OUT.mkdir(parents=True, exist_ok=True)
    written = []

    push = load_model(PUSH_MODEL)
    draw(
        push, out=OUT / "box_push_system.png", title="examples/box_push.py: contact frames and friction cones"
    )
    written.append(OUT / "box_push_system.png")
    problem, solution = solved(push)
    draw(
        problem,
        solution,
        out=OUT / "box_push_solution.png",
        title="examples/box_push.py solved: 10 N push, every corner rolls (sticks)",
    )
    written.append(OUT / "box_push_solution.png")

    problem, solution = solved(load_model(SLIDE_MODEL), cm.Pyramid(0.3), "lemke")
    draw(
        problem,
        solution,
        out=OUT / "box_slide_pyramid.png",
        title="examples/box_slide.py with Pyramid(0.3): sliding, a = -mu g",
    )
    written.append(OUT / "box_slide_pyramid.png")

    grip = catalogue.get("two_finger_grip")
    problem, solution = solved(grip.build(), cm.EllipticTorsion(grip.mu, 1.0, 1.0, 0.5))
    draw(
        problem,
        solution,
        out=OUT / "two_finger_grip.png",
        title="catalogue two_finger_grip, EllipticTorsion: friction carries the weight",
    )
    written.append(OUT / "two_finger_grip.png")
    problem, solution = solved(grip.build(), cm.Planar(grip.mu))
    draw(
        problem,
        solution,
        out=OUT / "two_finger_grip_planar.png",
        title="catalogue two_finger_grip, Planar law: the 2D view",
    )
    written.append(OUT / "two_finger_grip_planar.png")

    angles = np.linspace(0.0, 90.0, 37)
    ax = None
    for name in LAWS:
        values = [push_response(name, a)[0] for a in angles]
        ax = sweep_plot(
            angles,
            values,
            ax=ax,
            label=name,
            xlabel="push direction from the t axis [deg]",
            zlabel="|box acceleration| [m/s²]",
            title="16 N push turning in the floor plane (mu m g = 14.7 N): the pyramid's anisotropy",
        )
    save(ax.figure, OUT / "sweep_push_direction.png")
    written.append(OUT / "sweep_push_direction.png")

    angles = np.linspace(0.0, 90.0, 19)
    forces = np.linspace(10.0, 24.0, 15)
    accel = np.zeros((len(forces), len(angles)))
    modes = np.empty(accel.shape, dtype=object)
    for j, f in enumerate(forces):
        for i, a in enumerate(angles):
            accel[j, i], modes[j, i] = push_response("pyramid", a, f)
    sweep_plot(
        angles,
        accel,
        forces,
        modes=modes.astype(str),
        xlabel="push direction from t [deg]",
        ylabel="push [N]",
        zlabel="|box acceleration| [m/s²]",
        title="Pyramid(0.5): roll / slide map",
        out=OUT / "sweep_push_map.png",
    )
    written.append(OUT / "sweep_push_map.png")
    return written


#: the friction-law pictures of the documentation: file stem -> law
LAW_PICTURES = {
    "law_cone": cm.CoulombCone(0.5),
    "law_pyramid": cm.Pyramid(0.5),
    "law_polygonal": cm.Polygonal(0.5, k=6),
    "law_ellipsoid": cm.Ellipsoid(0.5, 1.0, 0.5, 0.2),
    "law_elliptic_torsion": cm.EllipticTorsion(0.5, 0.6, 1.0, 0.2),
    "law_polyhedral": cm.PolyhedralLimitSurface(
        [
            [1, 0, 0],
            [-1, 0, 0],
            [0.5, 1, 0],
            [0.5, -1, 0],
            [-0.5, 1, 0],
            [-0.5, -1, 0],
            [0, 0, 4],
            [0, 0, -4],
        ],
        0.5,
    ),
    "law_planar": cm.Planar(0.5),
    "law_frictionless": cm.Frictionless(),
}


def law_pictures() -> list[Path]:
    """One contact drawn with each friction law (3D view, friction set at c_n = 1 N)."""
    written = []
    for stem, law in LAW_PICTURES.items():
        path = OUT / f"{stem}.png"
        draw(
            catalogue.one_contact_box(law),
            view="3d",
            scale={"friction": 0.1},
            out=path,
            title=f"{type(law).__name__}",
        )
        written.append(path)
    return written


def main() -> int:
    for path in [*pictures(), *law_pictures()]:
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
