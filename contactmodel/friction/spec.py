"""Friction laws from short text specs, as given on the command line (``cone:0.5``).

The specs are the rows of :data:`contactmodel.friction.registry.LAWS` that have one (their name,
syntax and parameter parser).

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

from typing import TYPE_CHECKING

from contactmodel.errors import FrictionLawError, did_you_mean
from contactmodel.friction.registry import ACCEPTED, LAWS, by_cli
from contactmodel.friction.registry import FRICTION_SPECS as FORMS  # noqa: F401  (re-exported)

if TYPE_CHECKING:
    from contactmodel.friction.base import FrictionLaw


def parse_friction(spec: str) -> FrictionLaw:
    """The friction law described by ``spec``, e.g. ``"cone:0.5"`` or ``"polygon:0.5:8"``.

    Raises :class:`FrictionLawError` naming the accepted forms when ``spec`` is not one of them
    or its parameters are invalid.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise FrictionLawError(f"empty friction spec {spec!r}; accepted forms: {ACCEPTED}")
    name, *params = (part.strip() for part in spec.strip().split(":"))
    law = by_cli(name)
    if law is None:
        hint = did_you_mean(name, [law.cli for law in LAWS if law.cli])
        raise FrictionLawError(
            f"unknown friction law {name!r} in spec {spec!r}{hint} (accepted forms: {ACCEPTED})"
        )
    low, high = law.params
    if not low <= len(params) <= high:
        raise FrictionLawError(
            f"friction spec {spec!r} has {len(params)} parameter(s), {name.lower()} takes "
            f"{low if low == high else f'{low} to {high}'}; accepted forms: {ACCEPTED}"
        )
    try:
        return law.parse(params)
    except FrictionLawError as exc:
        raise FrictionLawError(f"bad friction spec {spec!r}: {exc}; accepted forms: {ACCEPTED}") from None
