"""Golden files of the Pyomo models' ``pprint``: what ``problem.model.pprint()`` shows for small
catalogue problems with every friction law, in both forms, must not change when the way the
models are built changes (as Pyomo's own ``mpec`` tests keep golden files).

One file per case in ``tests/data/pprint/<case>.txt``. The test only reads them; after an
intended change of the printed models, regenerate them explicitly and review the diff::

    PYTHONPATH=$PWD python tests/test_pprint_golden.py --regenerate

Cases (``<scene>-<law>-<form>``):

- ``box1``: :func:`catalogue.one_contact_box` (one body, one rolling contact with torsion), every law.
- ``pair``: :func:`catalogue.sliding_and_rolling_pair` (two bodies, a sliding contact 'S' and a
  rolling one 'R', no torsion), every law that needs no torsional moment: Ellipsoid and
  EllipticTorsion refuse contacts without torsion (FrictionLawError), and so does a
  PolyhedralLimitSurface with a three-column G.
- ``slide``: the catalogue's ``box_sliding`` case (one body sliding along t on four contacts with
  torsion) for Ellipsoid, EllipticTorsion and the three-column PolyhedralLimitSurface (Ellipsoid's
  "opposite" direction prints the same there, so it is left out).
- ``spin``: the one-contact box sliding obliquely while spinning about the normal, for Ellipsoid
  (both directions), EllipticTorsion and AnisotropicCone, whose sliding maps then differ.
- ``matrices``: :func:`cm.formulate_from_matrices` (reduced form only; its model is built when
  first read), the default cone with one sliding contact and a Pyramid with torsion.

The printed text holds no ids, addresses or unordered sets (checked by generating the files in
two processes and comparing them), so it is compared exactly, character for character.
"""

from __future__ import annotations

import difflib
import io
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

DATA = Path(__file__).parent / "data" / "pprint"
FORMS = ("reduced", "sparse")
DIFF_LINES = 60
REGENERATE = "PYTHONPATH=$PWD python tests/test_pprint_golden.py --regenerate  (from the repository root)"


def _laws() -> dict[str, Callable]:
    """Law name -> factory (a new law object each call; mu = 0.5)."""
    from contactmodel.friction import (
        CoulombCone,
        Ellipsoid,
        EllipticTorsion,
        Frictionless,
        Planar,
        Polygonal,
        PolyhedralLimitSurface,
        Pyramid,
    )
    from contactmodel.friction.anisotropic import AnisotropicCone

    mu = 0.5
    square = [[1, 0], [-1, 0], [0, 1], [0, -1]]
    box3 = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 2], [0, 0, -2]]
    return {
        "cone_soc": lambda: CoulombCone(mu),
        "cone_mncp": lambda: CoulombCone(mu, form="mncp"),
        "cone_norm": lambda: CoulombCone(mu, slack="norm"),
        "pyramid": lambda: Pyramid(mu),
        "polygonal6": lambda: Polygonal(mu, k=6),
        "frictionless": lambda: Frictionless(),
        "planar": lambda: Planar(mu),
        "ellipsoid": lambda: Ellipsoid(mu, 1.0, 1.0, 0.5, form="mncp"),
        "ellipsoid_opposite": lambda: Ellipsoid(mu, 1.0, 1.0, 0.5, direction="opposite", form="mncp"),
        "ellipsoid_soc": lambda: Ellipsoid(mu, 1.0, 0.8, 0.5),
        "elliptic_torsion": lambda: EllipticTorsion(mu, 1.0, 1.0, 0.5, form="mncp"),
        "elliptic_torsion_soc": lambda: EllipticTorsion(mu, 1.0, 1.0, 0.5),
        "polyhedral2": lambda: PolyhedralLimitSurface(square, mu),
        "polyhedral3": lambda: PolyhedralLimitSurface(box3, mu),
        "anisotropic": lambda: AnisotropicCone(mu, 2 * mu, form="mncp"),
        "anisotropic_soc": lambda: AnisotropicCone(mu, 2 * mu),
    }


#: laws that need contacts declared with torsion=True
_TORSION = {
    "ellipsoid",
    "ellipsoid_opposite",
    "ellipsoid_soc",
    "elliptic_torsion",
    "elliptic_torsion_soc",
    "polyhedral3",
}
#: laws on the catalogue's box_sliding (sliding along t: Ellipsoid's two directions coincide there)
_SLIDE = ("ellipsoid", "elliptic_torsion", "polyhedral3")
#: laws on a one-contact box sliding obliquely while spinning (their sliding maps are not the cone's)
_SPIN = ("ellipsoid", "ellipsoid_opposite", "elliptic_torsion", "anisotropic")


def _spinning_box(law):
    """:func:`catalogue.one_contact_box` with the box sliding along (0.3, 0.4, 0) m/s and spinning
    at 2 rad/s about the normal: the contact slides obliquely in (t, o) and turns in r."""
    from contactmodel import inertia, shapes
    from contactmodel.system import System

    s = System()
    box = s.add_body(
        "box",
        1.0,
        inertia.box(1.0, (0.2, 0.2, 0.2)),
        position=(0, 0, 0.1),
        velocity=(0.3, 0.4, 0.0),
        angular_velocity=(0.0, 0.0, 2.0),
        shape=shapes.Box((0.2, 0.2, 0.2)),
    )
    s.add_contact(
        box, s.ground, (0.05, 0.0, 0.0), (0, 0, 1), tangent=(1, 0, 0), friction=law, name="c", torsion=True
    )
    return s


def _scene_problem(scene: str, law: str, form: str):
    import contactmodel as cm
    from contactmodel import catalogue

    make = _laws()[law]
    if scene == "box1":
        return cm.formulate(catalogue.one_contact_box(make()), form=form)
    if scene == "spin":
        return cm.formulate(_spinning_box(make()), form=form)
    if scene == "pair":
        return cm.formulate(catalogue.sliding_and_rolling_pair(), friction=make(), form=form)
    if scene == "slide":
        return cm.formulate(catalogue.get("box_sliding").build(), friction=make(), form=form)
    raise ValueError(scene)


def _matrices(torsion: bool):
    import contactmodel as cm
    from contactmodel.friction import Pyramid

    d = 4 if torsion else 3
    rng = np.random.default_rng(7)
    J = rng.standard_normal((2 * d, 6))
    A = np.round(J @ J.T / 6, 3)
    b = np.round(rng.standard_normal(2 * d), 3)
    if torsion:
        return cm.formulate_from_matrices(A, b, friction=Pyramid(0.4), torsion=True, names=["p", "q"])
    return cm.formulate_from_matrices(A, b, mu=[0.3, 0.6], sliding=[False, True])


def _cases() -> dict[str, Callable]:
    cases: dict[str, Callable] = {}
    for law in _laws():
        for form in FORMS:
            cases[f"box1-{law}-{form}"] = lambda law=law, form=form: _scene_problem("box1", law, form)
            for scene, used in (
                ("pair", law not in _TORSION),
                ("slide", law in _SLIDE),
                ("spin", law in _SPIN),
            ):
                if used:
                    cases[f"{scene}-{law}-{form}"] = lambda s=scene, law=law, form=form: _scene_problem(
                        s, law, form
                    )
    cases["matrices-cone_soc-reduced"] = lambda: _matrices(torsion=False)
    cases["matrices-pyramid-reduced"] = lambda: _matrices(torsion=True)
    return cases


CASES = _cases()


def render(case: str) -> str:
    """The case's ``problem.model.pprint()``, as printed."""
    problem = CASES[case]()
    buf = io.StringIO()
    problem.model.pprint(ostream=buf)
    return buf.getvalue()


def _path(case: str) -> Path:
    return DATA / f"{case}.txt"


@pytest.mark.parametrize("case", sorted(CASES))
def test_pprint_matches_golden(case):
    path = _path(case)
    if not path.exists():
        pytest.fail(f"no golden file {path}; create it with: {REGENERATE}")
    expected = path.read_text(encoding="utf-8")
    actual = render(case)
    if actual != expected:
        diff = list(
            difflib.unified_diff(
                expected.splitlines(), actual.splitlines(), str(path), f"{case} (now)", lineterm="", n=2
            )
        )
        shown = "\n".join(diff[:DIFF_LINES])
        more = f"\n... ({len(diff) - DIFF_LINES} more diff lines)" if len(diff) > DIFF_LINES else ""
        pytest.fail(
            f"pprint of {case} differs from its golden file:\n{shown}{more}\n"
            f"If the change is intended, regenerate the files and review their diff: {REGENERATE}",
            pytrace=False,
        )


@pytest.mark.parametrize("law", sorted(_TORSION))
def test_torsion_laws_refuse_the_pair(law):
    """Why ``pair`` leaves these laws out: its contacts have no torsion."""
    from contactmodel.errors import FrictionLawError

    with pytest.raises(FrictionLawError, match="needs a torsional moment"):
        _scene_problem("pair", law, "reduced")


def test_no_stray_golden_files():
    stray = sorted(p.stem for p in DATA.glob("*.txt") if p.stem not in CASES)
    assert not stray, f"golden files of no case: {stray}; remove them with: {REGENERATE}"


def regenerate() -> None:
    """Write every case's golden file (and remove files of cases no longer listed)."""
    DATA.mkdir(parents=True, exist_ok=True)
    for case in sorted(CASES):
        _path(case).write_text(render(case), encoding="utf-8", newline="\n")
    for path in DATA.glob("*.txt"):
        if path.stem not in CASES:
            path.unlink()
    print(f"wrote {len(CASES)} files to {DATA}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(f"usage: python {sys.argv[0]} --regenerate   (writes {DATA}/*.txt)")
    regenerate()
