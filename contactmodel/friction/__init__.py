"""Friction laws, one file each; every law builds its own contact Block."""

from contactmodel.friction.base import ContactContext, FrictionLaw
from contactmodel.friction.cone import CoulombCone
from contactmodel.friction.ellipsoid import Ellipsoid
from contactmodel.friction.elliptic_torsion import EllipticTorsion
from contactmodel.friction.frictionless import Frictionless
from contactmodel.friction.planar import Planar
from contactmodel.friction.polygonal import Polygonal
from contactmodel.friction.polyhedral import PolyhedralLimitSurface
from contactmodel.friction.pyramid import Pyramid

__all__ = [
    "ContactContext",
    "CoulombCone",
    "Ellipsoid",
    "EllipticTorsion",
    "FrictionLaw",
    "Frictionless",
    "Planar",
    "Polygonal",
    "PolyhedralLimitSurface",
    "Pyramid",
]
