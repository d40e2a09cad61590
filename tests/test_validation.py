"""Bad input at the public boundary: each class raises a ContactModelError subclass whose message
names the field (one case per class of bad input: wrong type, ragged, complex, NaN, wrong shape,
out of range, unknown name, extreme scale)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.errors import (
    ContactModelError,
    DeclarationError,
    FormulationError,
    FrictionLawError,
    OptionError,
)
from contactmodel.solvers.enumerate import EnumerateOptions
from contactmodel.solvers.fip import FIPOptions
from contactmodel.solvers.ipopt import IpoptOptions
from contactmodel.solvers.lemke import LemkeOptions
from contactmodel.solvers.newton import NewtonOptions
from contactmodel.solvers.path import PathOptions
from contactmodel.solvers.scipy_opt import ScipyOptions

NAN = math.nan
I3 = np.eye(3)


def _system() -> cm.System:
    s = cm.System()
    s.add_body("box", mass=1.0, inertia=[0.1, 0.1, 0.1], position=(0, 0, 0.1))
    return s


def _contact(**kw):
    args = dict(point=(0, 0, 0), normal=(0, 0, 1), friction=cm.Pyramid(0.5))
    args.update(kw)
    return _system().add_contact("box", "ground", **args)


LCP2 = (np.eye(2), np.array([-1.0, 1.0]))

# (what, thunk, error class, regex the message must contain: the field)
CASES = [
    # -- body declarations
    ("inertia string", lambda: _system().add_body("b", mass=1, inertia="eye"), DeclarationError, "inertia"),
    (
        "inertia ragged",
        lambda: _system().add_body("b", mass=1, inertia=[[1, 0], [0, 1, 0], [0]]),
        DeclarationError,
        "inertia",
    ),
    (
        "inertia complex",
        lambda: _system().add_body("b", mass=1, inertia=(1 + 1j) * I3),
        DeclarationError,
        "inertia.*complex",
    ),
    (
        "inertia huge",
        lambda: _system().add_body("b", mass=1, inertia=1e308 * I3),
        DeclarationError,
        "inertia.*range",
    ),
    ("mass string", lambda: _system().add_body("b", mass="1", inertia=I3), DeclarationError, "mass"),
    ("mass bool", lambda: _system().add_body("b", mass=True, inertia=I3), DeclarationError, "mass"),
    ("mass tiny", lambda: _system().add_body("b", mass=1e-300, inertia=I3), DeclarationError, "mass.*range"),
    ("mass nan", lambda: _system().add_body("b", mass=NAN, inertia=I3), DeclarationError, "mass"),
    (
        "position string",
        lambda: _system().add_body("b", mass=1, inertia=I3, position="origin"),
        DeclarationError,
        "position",
    ),
    (
        "wrench ragged",
        lambda: _system().add_body("b", mass=1, inertia=I3, wrench=[0, 0, [1, 2], 0, 0, 0]),
        DeclarationError,
        "wrench",
    ),
    (
        "orientation string",
        lambda: _system().add_body("b", mass=1, inertia=I3, orientation="up"),
        DeclarationError,
        "orientation",
    ),
    # -- contact declarations
    (
        "link tuple by unknown name",
        lambda: _system().add_contact(("arm", 0), "ground", (0, 0, 0), (0, 0, 1)),
        DeclarationError,
        "body_a.*arm",
    ),
    (
        "link tuple of junk",
        lambda: _system().add_contact((3, 0), "ground", (0, 0, 0), (0, 0, 1)),
        DeclarationError,
        "body_a",
    ),
    ("torsion string", lambda: _contact(torsion="no"), DeclarationError, "torsion"),
    ("point string", lambda: _contact(point="here"), DeclarationError, "point"),
    ("normal complex", lambda: _contact(normal=(0, 0, 1j)), DeclarationError, "normal"),
    # -- friction laws
    ("Polygonal offset string", lambda: cm.Polygonal(0.5, 8, "x"), FrictionLawError, "Polygonal.offset"),
    ("Polygonal offset nan", lambda: cm.Polygonal(0.5, 8, NAN), FrictionLawError, "Polygonal.offset"),
    ("mu string", lambda: cm.Pyramid("0.5"), FrictionLawError, "Pyramid.mu"),
    ("mu bool", lambda: cm.CoulombCone(True), FrictionLawError, "CoulombCone.mu"),
    ("mu complex", lambda: cm.Planar(0.5j), FrictionLawError, "Planar.mu"),
    (
        "limit surface strings",
        lambda: cm.PolyhedralLimitSurface([["a", "b"]] * 4),
        FrictionLawError,
        "PolyhedralLimitSurface.G",
    ),
    # -- System options
    (
        "normal_velocity_tol string",
        lambda: cm.System(normal_velocity_tol="x"),
        DeclarationError,
        "normal_velocity_tol",
    ),
    ("rolling_tol negative", lambda: cm.System(rolling_tol=-1), DeclarationError, "rolling_tol"),
    ("rolling_tol nan", lambda: cm.System(rolling_tol=NAN), DeclarationError, "rolling_tol"),
    # -- formulate_from_matrices
    ("A, b strings", lambda: cm.formulate_from_matrices("A", "b", 0.5), DeclarationError, r"\bb\b"),
    (
        "A 3-D",
        lambda: cm.formulate_from_matrices(np.ones((3, 3, 3)), -np.ones(3), 0.5),
        DeclarationError,
        r"\bA\b",
    ),
    (
        "mu wrong length",
        lambda: cm.formulate_from_matrices(np.eye(6), -np.ones(6), [0.5, 0.5, 0.5]),
        FormulationError,
        r"\bmu\b",
    ),
    (
        "mu string",
        lambda: cm.formulate_from_matrices(np.eye(3), -np.ones(3), "0.5"),
        FormulationError,
        r"\bmu\b",
    ),
    (
        "sliding unknown name",
        lambda: cm.formulate_from_matrices(np.eye(3), -np.ones(3), 0.5, sliding=["zz"]),
        FormulationError,
        "sliding.*zz",
    ),
    (
        "sliding non-bool",
        lambda: cm.formulate_from_matrices(np.eye(3), -np.ones(3), 0.5, sliding=[2]),
        FormulationError,
        "sliding",
    ),
    (
        "torsion string",
        lambda: cm.formulate_from_matrices(np.eye(3), -np.ones(3), 0.5, torsion="no"),
        FormulationError,
        "torsion",
    ),
    # -- cm.LCP
    ("LCP strings", lambda: cm.LCP("M", "q"), FormulationError, "LCP q"),
    ("LCP q nan", lambda: cm.LCP(np.eye(2), [NAN, 1.0]), FormulationError, "LCP q"),
    ("LCP M nan", lambda: cm.LCP([[NAN, 0], [0, 1]], [1.0, 1.0]), FormulationError, "LCP M"),
    ("LCP M 3-D", lambda: cm.LCP(np.ones((2, 2, 2)), [1.0, 1.0]), FormulationError, "LCP M"),
    ("LCP M wrong shape", lambda: cm.LCP(np.eye(3), [1.0, 1.0]), FormulationError, "LCP M"),
    ("LCP scalar M", lambda: cm.LCP(2.0, [1.0]), FormulationError, "LCP M"),
    ("LCP scalar q", lambda: cm.LCP(2.0, 1.0), FormulationError, "LCP q"),
    ("LCP q column", lambda: cm.LCP(np.eye(2), np.ones((2, 1))), FormulationError, "LCP q"),
    ("LCP names wrong length", lambda: cm.LCP(*LCP2, names=["a"]), FormulationError, "LCP names"),
    ("LCP names not strings", lambda: cm.LCP(*LCP2, names=[1, 2]), FormulationError, "LCP names"),
    # -- cm.solve keywords and solver options (through cm.solve)
    ("newton tol string", lambda: cm.solve(cm.LCP(*LCP2), tol="tight"), OptionError, "NewtonOptions.tol"),
    (
        "newton max_iter string",
        lambda: cm.solve(cm.LCP(*LCP2), max_iter="x"),
        OptionError,
        "NewtonOptions.max_iter",
    ),
    (
        "newton max_iter None",
        lambda: cm.solve(cm.LCP(*LCP2), max_iter=None),
        OptionError,
        "NewtonOptions.max_iter",
    ),
    (
        "newton max_iter float",
        lambda: cm.solve(cm.LCP(*LCP2), max_iter=10.5),
        OptionError,
        "NewtonOptions.max_iter",
    ),
    (
        "newton newton_reg string",
        lambda: cm.solve(cm.LCP(*LCP2), newton_reg="x"),
        OptionError,
        "NewtonOptions.newton_reg",
    ),
    (
        "newton restarts string",
        lambda: cm.solve(cm.LCP(*LCP2), restarts="yes"),
        OptionError,
        "NewtonOptions.restarts",
    ),
    ("fip tol string", lambda: cm.solve(cm.LCP(*LCP2), solver="fip", tol="x"), OptionError, "FIPOptions.tol"),
    (
        "lemke max_pivots float",
        lambda: cm.solve(cm.LCP(*LCP2), solver="lemke", max_pivots=1.5),
        OptionError,
        "LemkeOptions.max_pivots",
    ),
    (
        "enumerate max_n string",
        lambda: cm.solve(cm.LCP(*LCP2), solver="enumerate", max_n="20"),
        OptionError,
        "EnumerateOptions.max_n",
    ),
    ("accept_tol string", lambda: cm.solve(cm.LCP(*LCP2), accept_tol="x"), OptionError, "accept_tol"),
    ("accept_tol negative", lambda: cm.solve(cm.LCP(*LCP2), accept_tol=-1.0), OptionError, "accept_tol"),
    ("x0 string", lambda: cm.solve(cm.LCP(*LCP2), x0="zero"), OptionError, "x0"),
    ("x0 wrong length", lambda: cm.solve(cm.LCP(*LCP2), x0=[0.0]), OptionError, "x0"),
    ("blas_threads string", lambda: cm.solve(cm.LCP(*LCP2), blas_threads="x"), OptionError, "blas_threads"),
    # -- option classes directly (construction and assignment are both checked)
    ("ipopt time_limit string", lambda: IpoptOptions(time_limit="x"), OptionError, "IpoptOptions.time_limit"),
    (
        "ipopt print_level string",
        lambda: IpoptOptions(print_level="x"),
        OptionError,
        "IpoptOptions.print_level",
    ),
    ("ipopt native list", lambda: IpoptOptions(native=[1]), OptionError, "IpoptOptions.native"),
    ("scipy polish string", lambda: ScipyOptions(polish="no"), OptionError, "ScipyOptions.polish"),
    ("path tol nan", lambda: PathOptions(tol=NAN), OptionError, "PathOptions.tol"),
    ("lemke covering string", lambda: LemkeOptions(covering="ones"), OptionError, "LemkeOptions.covering"),
    ("fip z0 ragged", lambda: FIPOptions(z0=[1.0, [2.0]]), OptionError, "FIPOptions.z0"),
    ("enumerate tol bool", lambda: EnumerateOptions(tol=True), OptionError, "EnumerateOptions.tol"),
    ("newton assignment", lambda: setattr(NewtonOptions(), "tol", "tight"), OptionError, "NewtonOptions.tol"),
]


@pytest.mark.parametrize("thunk, error, field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_a_named_error(thunk, error, field) -> None:
    with pytest.raises(error, match=field):
        thunk()


def test_every_case_is_in_the_tree() -> None:
    assert all(issubclass(c[2], ContactModelError) for c in CASES)
    assert issubclass(OptionError, cm.SolverError)


def test_good_values_still_pass() -> None:
    """The checks keep what was valid: numpy scalars, integer masses, a link as (name, index)
    is resolved, numpy bools, option values from TOML-like ints."""
    s = cm.System(rolling_tol=np.float64(1e-9))
    s.add_body("b", mass=np.int64(2), inertia=np.diag([1, 2, 2.5]))
    c = s.add_contact(
        "b", "ground", (0, 0, 0), (0, 0, 1), friction=cm.Polygonal(0.5, 6, 0.1), torsion=np.bool_(False)
    )
    assert c.torsion is False
    opts = NewtonOptions(tol=1, max_iter=np.int32(5), x0=[0, 1])
    assert opts.tol == 1.0 and opts.max_iter == 5 and opts.x0.dtype == float
    p = cm.formulate_from_matrices(np.eye(6), -np.ones(6), [0.5, 0.2], sliding=["c1"])
    assert p.contact_names == ["c0", "c1"]
    sol = cm.solve(cm.LCP(*LCP2, names=["a", "b"]), solver="lemke", x0=[0, 0])
    assert sol.ok
