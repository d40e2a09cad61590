"""Pictures: every example and catalogue case renders; drawn arrows carry the solution's numbers."""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.image as mpimg  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

import contactmodel as cm  # noqa: E402
from contactmodel import catalogue, shapes  # noqa: E402
from contactmodel.cli import main  # noqa: E402
from contactmodel.draw import DPI, SIZE, arrows, draw, friction_sets, save, sweep_plot  # noqa: E402
from contactmodel.errors import DeclarationError  # noqa: E402
from contactmodel.model_file import load_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
PIXELS = (round(SIZE[1] * DPI), round(SIZE[0] * DPI))


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = mpimg.imread(path)
    assert image.shape[:2] == PIXELS
    assert image.std() > 0.01


def drawn_points(artist) -> np.ndarray:
    """(k, 3) world points of a 3D line or (k, 2) points of a 2D line."""
    if hasattr(artist, "get_data_3d"):
        return np.column_stack(artist.get_data_3d())
    return np.asarray(artist.get_xydata())


def by_gid(fig) -> dict:
    return {a.gid: a for a in arrows(fig)}


def check_solution_arrows(fig, system: cm.System, solution: cm.Solution) -> None:
    drawn = by_gid(fig)
    for result in solution.contacts:
        contact = system.contact(result.name)
        force = np.asarray(result.force)
        arrow = drawn[f"force:{result.name}"]
        np.testing.assert_array_equal(arrow.vector, contact.frame.T @ force[:3])
        np.testing.assert_array_equal(arrow.tail, contact.point)
        shaft = arrow.artists[0]
        assert shaft.get_gid() == f"force:{result.name}"
        if hasattr(shaft, "get_data_3d"):
            np.testing.assert_allclose(
                drawn_points(shaft), [contact.point, contact.point + arrow.scale * arrow.vector], atol=1e-12
            )
        friction = drawn[f"friction:{result.name}"]
        np.testing.assert_allclose(friction.vector, contact.frame[1:].T @ force[1:3], atol=1e-12)
        if contact.torsion:
            assert drawn[f"moment:{result.name}"].vector[0] == force[3]
    for body in solution.bodies:
        arrow = drawn[f"acceleration:{body.name}"]
        np.testing.assert_array_equal(arrow.vector, body.linear_acceleration)
        np.testing.assert_array_equal(arrow.tail, system.body(body.name).position)


def _renderer_after_drawing(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def _along(xy: np.ndarray, step: float = 1.0) -> np.ndarray:
    """Display points along the polyline xy (k, 2), at most ``step`` px apart."""
    pieces = [xy[:1]]
    for a, b in zip(xy[:-1], xy[1:]):
        count = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        pieces.append(a + np.outer(np.arange(1, count + 1) / count, b - a))
    return np.vstack(pieces)


def _display(ax, artist) -> np.ndarray:
    """An outline line's points in display pixels (3D: through the axes' projection)."""
    if hasattr(artist, "get_data_3d"):
        from mpl_toolkits.mplot3d import proj3d

        xs, ys, zs = artist.get_data_3d()
        px, py, _ = proj3d.proj_transform(np.asarray(xs), np.asarray(ys), np.asarray(zs), ax.M)
        xy = np.column_stack([px, py])
    else:
        xy = np.asarray(artist.get_xydata())
    return ax.transData.transform(xy)


def assert_labels_apart(fig) -> None:
    """No two labels' boxes overlap (text and its rounded box); no label covers a friction
    set's outline; the legend lies outside the axes, clear of every text the axes draw."""
    renderer = _renderer_after_drawing(fig)
    ax = fig.axes[0]
    boxes = []
    for text in ax.texts:
        box = text.get_window_extent(renderer)
        patch = text.get_bbox_patch()
        if patch is not None:
            box = Bbox.union([box, patch.get_window_extent(renderer)])
        boxes.append((text.get_text(), box))
    assert boxes
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            assert not box_a.overlaps(box_b), f"labels {a!r} and {b!r} overlap"
    for name, drawn in friction_sets(fig).items():
        outline = _along(_display(ax, drawn.artist))
        for text, box in boxes:
            inside = (
                (outline[:, 0] > box.x0)
                & (outline[:, 0] < box.x1)
                & (outline[:, 1] > box.y0)
                & (outline[:, 1] < box.y1)
            )
            assert not inside.any(), f"label {text!r} covers the friction set of {name}"
    legend = ax.get_legend().get_window_extent(renderer)
    assert not legend.overlaps(ax.bbox), "the legend overlaps the axes"
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1 and legend.y0 >= fig.bbox.y0
    axis_texts = [
        t
        for axis in [ax.xaxis, ax.yaxis, *([ax.zaxis] if ax.name == "3d" else [])]
        for t in [axis.label, *axis.get_ticklabels()]
        if t.get_visible() and t.get_text()
    ]
    for text in [*ax.texts, *axis_texts]:
        box = text.get_window_extent(renderer)
        assert not legend.overlaps(box), f"the legend overlaps {text.get_text()!r}"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_renders(path: Path, tmp_path: Path) -> None:
    system = load_model(path)
    assert_labels_apart(draw(system, out=tmp_path / "system.png"))
    assert_png(tmp_path / "system.png")
    with warnings.catch_warnings():  # the simulation examples' contacts come from their planes
        warnings.filterwarnings("ignore", "formulate: the System has no contacts", UserWarning)
        problem = cm.formulate(system)
    solution = cm.solve(problem)
    fig = draw(problem, solution, out=tmp_path / "solution.png")
    assert_png(tmp_path / "solution.png")
    assert_labels_apart(fig)
    if solution.ok:
        check_solution_arrows(fig, system, solution)
        assert len([a for a in arrows(fig) if a.kind == "force"]) == len(system.contacts)


@pytest.mark.parametrize("name", sorted(catalogue.CASES))
def test_every_catalogue_case_renders(name: str, tmp_path: Path) -> None:
    case = catalogue.get(name)
    assert_labels_apart(draw(case.build(), friction=cm.Pyramid(case.mu), out=tmp_path / "system.png"))
    assert_png(tmp_path / "system.png")
    problem = cm.formulate(case.build(), friction=cm.EllipticTorsion(case.mu, 1.0, 1.0, 0.5))
    solution = cm.solve(problem)
    assert solution.ok
    fig = draw((problem, solution), out=tmp_path / "solution.png")
    assert_png(tmp_path / "solution.png")
    assert_labels_apart(fig)
    check_solution_arrows(fig, problem.system, solution)
    assert {a.name for a in arrows(fig) if a.kind == "force"} == set(case.forces)


HEXAGON = [[np.cos(a), np.sin(a)] for a in np.pi / 3 * np.arange(6)]
LAWS = [
    (cm.CoulombCone(0.5), 0, 64),
    (cm.Pyramid(0.5), 4, 4),
    (cm.Polygonal(0.5, k=6), 6, 6),
    (cm.Polygonal(0.4, k=5, offset=0.3), 5, 5),
    (cm.PolyhedralLimitSurface([[1, 0], [-1, 0], [0, 1], [0, -1]], 0.5), 4, 4),
    (cm.PolyhedralLimitSurface(HEXAGON, 0.5), 6, 6),
    (
        cm.PolyhedralLimitSurface([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 4], [0, 0, -4]], 0.5),
        4,
        4,
    ),
    (cm.Ellipsoid(0.5, 1.0, 0.5, 0.2), 0, 64),
    (cm.EllipticTorsion(0.5, 0.6, 1.0, 0.2), 0, 64),
    (cm.Planar(0.5), 2, 2),
]


@pytest.mark.parametrize("law, vertices, points", LAWS, ids=[repr(law)[:40] for law, _, _ in LAWS])
def test_every_law_draws_its_friction_set(law, vertices: int, points: int) -> None:
    system = catalogue.one_contact_box(law)
    fig = draw(system, view="3d", scale={"friction": 0.1})
    drawn = friction_sets(fig)["c"]
    assert drawn.set.vertices == vertices
    outline = drawn_points(drawn.artist)
    if points > 2:
        np.testing.assert_allclose(outline[0], outline[-1])
        outline = outline[:-1]
    assert len(np.unique(outline.round(12), axis=0)) == points
    contact = system.contact("c")
    rel = (outline - contact.point - 0.1 * contact.normal) / 0.1
    np.testing.assert_allclose(rel @ contact.normal, 0.0, atol=1e-12)
    np.testing.assert_allclose(
        np.column_stack([rel @ contact.frame[1], rel @ contact.frame[2]]), drawn.set.outline, atol=1e-12
    )
    mu = law.mu
    radii = np.linalg.norm(drawn.set.outline, axis=1)
    assert radii.max() <= mu * max(getattr(law, "e_t", 1.0), getattr(law, "e_o", 1.0)) * np.sqrt(2) + 1e-12
    if isinstance(law, cm.Pyramid):
        np.testing.assert_allclose(np.abs(drawn.set.outline), mu)
    if isinstance(law, cm.Polygonal):
        np.testing.assert_allclose(drawn.set.outline, mu * law.directions)
    if isinstance(law, cm.Ellipsoid | cm.EllipticTorsion):
        assert drawn.set.torsion == pytest.approx(mu * law.e_r)
        assert any(a.get_gid() == "torsion-limit:c" for a in fig.axes[0].lines)


def test_solved_torsion_and_sliding_arrows_match() -> None:
    system = catalogue.one_contact_box(cm.Ellipsoid(0.5, 1.0, 1.0, 0.2))
    system.bodies[0].wrench = np.array([0.5, 0.2, 0.0, 0.0, 0.0, 0.05])
    problem = cm.formulate(system)
    solution = cm.solve(problem)
    assert solution.ok
    fig = draw(problem, solution)
    check_solution_arrows(fig, system, solution)
    label = [t for t in fig.axes[0].texts if t.get_gid() == "label:c"][0]
    assert solution.contact("c").mode in label.get_text()


def test_planar_view_projects_onto_the_contact_plane(tmp_path: Path) -> None:
    case = catalogue.get("two_finger_grip")
    problem = cm.formulate(case.build(), friction=cm.Planar(case.mu))
    solution = cm.solve(problem)
    fig = draw(problem, solution, out=tmp_path / "planar.png")
    assert_png(tmp_path / "planar.png")
    assert fig.axes[0].name != "3d"
    for arrow in arrows(fig):
        if arrow.kind != "force":
            continue
        xy = drawn_points(arrow.artists[0])
        ends = np.array([arrow.tail, arrow.tail + arrow.scale * arrow.vector])
        np.testing.assert_allclose(xy, ends[:, [0, 2]], atol=1e-12)
    assert draw(problem, solution, view="3d").axes[0].name == "3d"


def test_same_input_gives_identical_svg_and_png(tmp_path: Path) -> None:
    path = EXAMPLES[0]
    for suffix in ("svg", "png"):
        outs = []
        for k in range(2):
            system = load_model(path)
            problem = cm.formulate(system, friction=cm.Pyramid(0.5))
            out = tmp_path / f"{k}.{suffix}"
            draw(problem, cm.solve(problem, solver="lemke"), out=out)
            outs.append(out.read_bytes())
        assert outs[0] == outs[1]
        if suffix == "svg":
            assert b"<dc:date>" not in outs[0]


def test_shapes_render_and_validate(tmp_path: Path) -> None:
    system = cm.System()
    inertia = cm.inertia.box(1.0, (0.2, 0.2, 0.2))
    system.add_body("ball", 1.0, inertia, position=(0, 0, 0.1), shape=shapes.Sphere(0.1))
    system.add_body("can", 1.0, inertia, position=(0.4, 0, 0.1), shape=shapes.Cylinder(0.05, 0.2))
    system.add_body("brick", 1.0, inertia, position=(0.8, 0, 0.1), shape=shapes.Box((0.3, 0.1, 0.2)))
    system.add_body("blob", 1.0, inertia, position=(1.2, 0, 0.1))
    fig = draw(system, out=tmp_path / "shapes.svg")
    assert (tmp_path / "shapes.svg").read_bytes().startswith(b"<?xml")
    assert [t.get_text().strip() for t in fig.axes[0].texts] == ["ball", "can", "brick", "blob"]
    assert shapes.box_from_inertia(1.0, inertia).size == pytest.approx((0.2, 0.2, 0.2))
    for bad in (lambda: shapes.Sphere(0), lambda: shapes.Box((1, 2)), lambda: shapes.Cylinder(0.1, -1)):
        with pytest.raises(DeclarationError):
            bad()
    with pytest.raises(TypeError, match="geometry"):
        draw(cm.solve(cm.formulate(catalogue.get("box_sliding").build(), friction=cm.CoulombCone(0.3))))


def test_sweep_plot_line_and_heat_map(tmp_path: Path) -> None:
    x = np.linspace(0.0, 30.0, 7)
    z = np.maximum(x - 14.7, 0.0) / 3
    modes = np.where(x > 14.7, "slide", "roll")
    ax = sweep_plot(x, z, modes=modes, xlabel="push [N]", zlabel="a_x [m/s²]")
    assert len(ax.lines) == 1
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), z)
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["roll", "slide"]
    y = np.linspace(0.2, 0.8, 4)
    zz = np.maximum(x[None, :] - y[:, None] * 29.43, 0.0)
    mm = np.where(zz > 0, "slide", "roll")
    ax = sweep_plot(x, zz, y, modes=mm, xlabel="push [N]", ylabel="mu", out=tmp_path / "sweep.png")
    assert ax.images[0].get_array().shape == (len(y), len(x))
    assert any(c.get_gid() == "mode-boundaries" for c in ax.collections)
    assert {t.get_text() for t in ax.texts} == {"roll", "slide"}
    assert mpimg.imread(tmp_path / "sweep.png").shape[:2] == (480, 640)
    with pytest.raises(ValueError):
        sweep_plot(x, zz.T, y)


def test_cli_draw(tmp_path: Path, capsys) -> None:
    model = str(EXAMPLES[0])
    assert main(["draw", model, "--out", str(tmp_path / "s.png")]) == 0
    assert_png(tmp_path / "s.png")
    code = main(
        ["draw", model, "--friction", "pyramid:0.5", "--solver", "lemke", "--out", str(tmp_path / "x.svg")]
    )
    assert code == 0
    assert (tmp_path / "x.svg").read_bytes().startswith(b"<?xml")
    assert main(["draw", model, "--out", str(tmp_path / "x.jpg")]) == 2
    assert "png or .svg" in capsys.readouterr().err
    fig = draw(load_model(model))
    save(fig, tmp_path / "again.png")
    assert_png(tmp_path / "again.png")


def test_registry_and_user_axes() -> None:
    from matplotlib.figure import Figure

    from contactmodel.draw import friction_set
    from contactmodel.friction.sets import FrictionSet, PolytopePart

    class Sticky(cm.Pyramid):
        pass

    assert friction_set(Sticky(0.3)).vertices == 4

    class Triangle(cm.Pyramid):
        def friction_set(self) -> FrictionSet:
            return FrictionSet([PolytopePart("to", [[-1.0, 0.0], [0.0, -1.0], [1.0, 1.0]], self.mu)], "tri")

    assert friction_set(Triangle(0.3)).vertices == 3
    fig = Figure(figsize=SIZE, dpi=DPI)
    left = fig.add_subplot(1, 2, 1, projection="3d")
    right = fig.add_subplot(1, 2, 2)
    draw(catalogue.one_contact_box(Triangle(0.3)), ax=left)
    draw(catalogue.one_contact_box(cm.Planar(0.3)), ax=right)
    assert right.name != "3d" and left.name == "3d"
    assert {a.gid for a in arrows(fig)} >= {"frame-n:c", "frame-t:c", "frame-o:c"}


GALLERY = [
    ("box_slide_pyramid", "examples/box_slide.py", cm.Pyramid(0.3), "lemke"),
    ("two_finger_grip_planar", "two_finger_grip", cm.Planar(catalogue.get("two_finger_grip").mu), "newton"),
]


@pytest.mark.parametrize("name, source, law, solver", GALLERY, ids=[g[0] for g in GALLERY])
def test_gallery_labels_stay_apart(name: str, source: str, law, solver: str) -> None:
    system = load_model(ROOT / source) if source.endswith(".py") else catalogue.get(source).build()
    problem = cm.formulate(system, friction=law)
    solution = cm.solve(problem, solver=solver)
    assert solution.ok
    fig = draw(problem, solution)
    assert_labels_apart(fig)
    labels = {t.get_gid(): t for t in fig.axes[0].texts if t.get_gid()}
    assert {f"label:{c.name}" for c in system.contacts} <= set(labels)


def test_labels_offset_along_their_arrow() -> None:
    system = load_model(ROOT / "examples" / "box_slide.py")
    problem = cm.formulate(system, friction=cm.Pyramid(0.3))
    solution = cm.solve(problem, solver="lemke")
    fig = draw(problem, solution)
    _renderer_after_drawing(fig)
    ax = fig.axes[0]
    (accel,) = [t for t in ax.texts if t.get_text().startswith("a = ")]
    # the acceleration (-2.94, 0, 0) points to -x, which this view draws leftwards
    head = ax.transData.transform(accel.xy)
    tail = _display(ax, by_gid(fig)["acceleration:box"].artists[0])[0]
    arrow = head - tail
    offset = np.asarray(accel.xyann)
    assert arrow[0] < 0
    assert offset @ arrow > 0.5 * np.linalg.norm(offset) * np.linalg.norm(arrow)
