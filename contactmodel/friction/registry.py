"""The friction laws, listed once: :data:`LAWS`, one row per law.

Everything that names the laws is derived from this table: the exports (``contactmodel.friction.__all__``
and ``contactmodel.<Law>``), the command-line specs (:func:`contactmodel.friction.spec.parse_friction`)
and their accepted-forms text (:data:`FRICTION_SPECS`, :data:`ACCEPTED`, shown in error messages and
help texts); ``tests/friction/test_law_table.py`` checks that the documentation lists every row. Adding
a law is its file plus its row.

A row names its class by file and name instead of importing it, so the package, the command line's
help and its argument errors load no NumPy or Pyomo: :attr:`LawEntry.cls` imports the law's file when
first asked. This module imports no law module and no law module imports it, so the import graph
stays one-way (imports for type checkers included).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

from contactmodel.errors import FrictionLawError


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise FrictionLawError(f"{text!r} is not a number") from None


def _numbers(cls: type, *params: str) -> Any:
    """``cls`` called with the spec's parameters as numbers: ``pyramid:0.5`` is ``Pyramid(0.5)``."""
    return cls(*(_number(p) for p in params))


class LawEntry(NamedTuple):
    """One friction law of the table."""

    #: the class's name: ``contactmodel.<name>`` and ``contactmodel.friction.<name>``
    name: str
    #: the file defining the class, ``contactmodel/friction/<module>.py``
    module: str
    #: the command-line name, the spec's first word (``"cone"`` in ``cone:0.5``); None: no spec
    cli: str | None = None
    #: the spec as shown to users, e.g. ``"cone:MU[:mncp|soc]"``
    syntax: str | None = None
    #: the least and the most parameters after the name
    params: tuple[int, int] = (0, 0)
    #: ``make(cls, *params)``: the law a spec's parameters (strings) describe; by default ``cls``
    #: called with them as numbers. Raises FrictionLawError for invalid parameters.
    make: Callable[..., Any] = _numbers

    @property
    def module_name(self) -> str:
        return f"contactmodel.friction.{self.module}"

    @property
    def cls(self) -> type:
        """The law's class (its module imported on first use)."""
        return getattr(importlib.import_module(self.module_name), self.name)

    def parse(self, params: list[str] | tuple[str, ...]) -> Any:
        """The law given by a spec's parameters (its words after the name)."""
        return self.make(self.cls, *params)


#: the words of a spec that choose a cone law's form
_FORM_WORDS = ("mncp", "soc")


def _form_word(word: str | None, law: str, example: str) -> str | None:
    """A spec's form word, lower case (None: automatic), or a FrictionLawError naming the law."""
    form = None if word is None else word.lower()
    if form not in (None, *_FORM_WORDS):
        raise FrictionLawError(f"{law} form must be 'mncp' or 'soc' (got {form!r}), as in {example}")
    return form


def _cone(cls: type, mu: str, form: str | None = None) -> Any:
    return cls(_number(mu), form=_form_word(form, "cone", "cone:0.5:soc"))


def _anisotropic(cls: type, mu_t: str, mu_o: str, form: str | None = None) -> Any:
    return cls(_number(mu_t), _number(mu_o), form=_form_word(form, "anisotropic", "anisotropic:0.2:0.6:soc"))


def _polygon(cls: type, mu: str, k: str | None = None) -> Any:
    if k is None:
        return cls(_number(mu))
    try:
        sides = int(k)
    except ValueError:
        raise FrictionLawError(f"polygon side count K must be an integer >= 3 (got {k!r})") from None
    return cls(_number(mu), sides)


def _weighted(cls: type, mu: str, *rest: str, directions: tuple[str, ...] = ()) -> Any:
    """A soft-finger law from MU[:E_T:E_O:E_R][:DIRECTION][:mncp|soc] (``directions``: the words
    its ``direction`` takes, none when it has no such field)."""
    options = {}
    if rest and rest[-1].lower() in _FORM_WORDS:
        options["form"], rest = rest[-1].lower(), rest[:-1]
    if rest and rest[-1].lower() in directions:
        options["direction"], rest = rest[-1].lower(), rest[:-1]
    if len(rest) not in (0, 3):
        raise FrictionLawError("give all three weights E_T:E_O:E_R after MU, or none")
    return cls(_number(mu), *(_number(w) for w in rest), **options)


def _ellipsoid(cls: type, mu: str, *rest: str) -> Any:
    return _weighted(cls, mu, *rest, directions=sys.modules[cls.__module__].DIRECTIONS)


#: every friction law: class name, its file, and (when the command line takes it) its spec
LAWS: tuple[LawEntry, ...] = (
    LawEntry("CoulombCone", "cone", cli="cone", syntax="cone:MU[:mncp|soc]", params=(1, 2), make=_cone),
    LawEntry("Pyramid", "pyramid", cli="pyramid", syntax="pyramid:MU", params=(1, 1)),
    LawEntry("Polygonal", "polygonal", cli="polygon", syntax="polygon:MU[:K]", params=(1, 2), make=_polygon),
    LawEntry("Frictionless", "frictionless", cli="frictionless", syntax="frictionless"),
    LawEntry("Planar", "planar", cli="planar", syntax="planar:MU", params=(1, 1)),
    LawEntry(
        "Ellipsoid",
        "ellipsoid",
        cli="ellipsoid",
        syntax="ellipsoid:MU[:E_T:E_O:E_R][:max-work|opposite][:mncp|soc]",
        params=(1, 6),
        make=_ellipsoid,
    ),
    LawEntry(
        "EllipticTorsion",
        "elliptic_torsion",
        cli="elliptic-torsion",
        syntax="elliptic-torsion:MU[:E_T:E_O:E_R][:mncp|soc]",
        params=(1, 5),
        make=_weighted,
    ),
    LawEntry("PolyhedralLimitSurface", "polyhedral"),  # no spec: its parameter is a matrix
    LawEntry(
        "AnisotropicCone",
        "anisotropic",
        cli="anisotropic",
        syntax="anisotropic:MU_T:MU_O[:mncp|soc]",
        params=(2, 3),
        make=_anisotropic,
    ),
)


def by_cli(name: str) -> LawEntry | None:
    """The row whose command-line name is ``name`` (any case), or None."""
    name = name.lower()
    return next((law for law in LAWS if law.cli == name), None)


#: every accepted friction spec (:func:`contactmodel.friction.spec.parse_friction`), as shown in
#: error messages and help texts
FRICTION_SPECS: tuple[str, ...] = tuple(law.syntax for law in LAWS if law.syntax is not None)

ACCEPTED = ", ".join(FRICTION_SPECS)
