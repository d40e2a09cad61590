"""Friction laws from short text specs, as given on the command line (``cone:0.5``).

``cone:MU`` is ``CoulombCone(MU)``, whose form is chosen for the solver (the second-order-cone form
for ``newton``, the MNCP of Trinkle et al. (1997) for solvers without cone blocks);
``cone:MU:soc`` and ``cone:MU:mncp`` fix the form, ``CoulombCone(MU, form="soc")`` (solved by
``newton`` only) or ``CoulombCone(MU, form="mncp")``. ``ellipsoid:MU[:E_T:E_O:E_R][:opposite]``
is ``Ellipsoid`` with ``direction="opposite"`` when the last word is given (Table 1 of Trinkle and Pang 1997).

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

from collections.abc import Callable

from contactmodel.constants import ACCEPTED
from contactmodel.constants import FRICTION_SPECS as FORMS  # noqa: F401  (re-exported)
from contactmodel.errors import FrictionLawError
from contactmodel.friction.anisotropic import AnisotropicCone
from contactmodel.friction.base import FrictionLaw
from contactmodel.friction.cone import CoulombCone
from contactmodel.friction.ellipsoid import DIRECTIONS, Ellipsoid
from contactmodel.friction.elliptic_torsion import EllipticTorsion
from contactmodel.friction.frictionless import Frictionless
from contactmodel.friction.planar import Planar
from contactmodel.friction.polygonal import Polygonal
from contactmodel.friction.pyramid import Pyramid


def _cone(mu: str, form: str | None = None) -> CoulombCone:
    form = None if form is None else form.lower()
    if form not in (None, "mncp", "soc"):
        raise FrictionLawError(f"cone form must be 'mncp' or 'soc' (got {form!r}), as in cone:0.5:soc")
    return CoulombCone(_number(mu), form=form)


def _polygon(mu: str, k: str | None = None) -> Polygonal:
    if k is None:
        return Polygonal(_number(mu))
    try:
        sides = int(k)
    except ValueError:
        raise FrictionLawError(f"polygon side count K must be an integer >= 3 (got {k!r})") from None
    return Polygonal(_number(mu), sides)


def _weighted(cls: type[FrictionLaw]) -> Callable[..., FrictionLaw]:
    def make(mu: str, *weights: str, **options) -> FrictionLaw:
        if len(weights) not in (0, 3):
            raise FrictionLawError("give all three weights E_T:E_O:E_R after MU, or none")
        return cls(_number(mu), *(_number(w) for w in weights), **options)

    return make


def _ellipsoid(mu: str, *rest: str) -> Ellipsoid:
    if rest and rest[-1].lower() in DIRECTIONS:
        return _weighted(Ellipsoid)(mu, *rest[:-1], direction=rest[-1].lower())
    return _weighted(Ellipsoid)(mu, *rest)


_LAWS: dict[str, tuple[Callable[..., FrictionLaw], int, int]] = {
    "cone": (_cone, 1, 2),
    "pyramid": (lambda mu: Pyramid(_number(mu)), 1, 1),
    "polygon": (_polygon, 1, 2),
    "frictionless": (Frictionless, 0, 0),
    "planar": (lambda mu: Planar(_number(mu)), 1, 1),
    "ellipsoid": (_ellipsoid, 1, 5),
    "elliptic-torsion": (_weighted(EllipticTorsion), 1, 4),
    "anisotropic": (lambda mu_t, mu_o: AnisotropicCone(_number(mu_t), _number(mu_o)), 2, 2),
}


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise FrictionLawError(f"{text!r} is not a number") from None


def parse_friction(spec: str) -> FrictionLaw:
    """The friction law described by ``spec``, e.g. ``"cone:0.5"`` or ``"polygon:0.5:8"``.

    Raises :class:`FrictionLawError` naming the accepted forms when ``spec`` is not one of them
    or its parameters are invalid.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise FrictionLawError(f"empty friction spec {spec!r}; accepted forms: {ACCEPTED}")
    name, *params = (part.strip() for part in spec.strip().split(":"))
    entry = _LAWS.get(name.lower())
    if entry is None:
        raise FrictionLawError(f"unknown friction law {name!r} in spec {spec!r}; accepted forms: {ACCEPTED}")
    make, low, high = entry
    if not low <= len(params) <= high:
        raise FrictionLawError(
            f"friction spec {spec!r} has {len(params)} parameter(s), {name.lower()} takes "
            f"{low if low == high else f'{low} to {high}'}; accepted forms: {ACCEPTED}"
        )
    try:
        return make(*params)
    except FrictionLawError as exc:
        raise FrictionLawError(f"bad friction spec {spec!r}: {exc}; accepted forms: {ACCEPTED}") from None
