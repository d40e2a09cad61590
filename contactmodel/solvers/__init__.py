"""Solver registry: one row per solver; each solver lives in its own module.

Every solver module exposes an options dataclass and ``solve(mcp, options) -> SolverResult``.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
"""

from __future__ import annotations

import copy
import importlib
import importlib.util
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from contactmodel.errors import SolverError


@dataclass(frozen=True)
class SolverInfo:
    name: str
    module: str
    options: str
    description: str
    lcp_only: bool = False
    cones: bool = False  # solves MCPs with Coulomb cone blocks (CoulombCone(form="soc"))
    requires: str | None = None  # importable module the solver needs

    def available(self) -> tuple[bool, str]:
        """(available here, reason when not)."""
        if self.requires and importlib.util.find_spec(self.requires) is None:
            return False, f"needs the Python package providing '{self.requires}'"
        if importlib.util.find_spec(self.module) is None:
            return False, f"module {self.module} is not installed"
        return True, ""


REGISTRY: dict[str, SolverInfo] = {
    info.name: info
    for info in (
        SolverInfo(
            "newton",
            "contactmodel.solvers.newton",
            "NewtonOptions",
            "PATH-style nonsmooth Newton for box MCPs (default)",
            cones=True,
        ),
        SolverInfo(
            "lemke",
            "contactmodel.solvers.lemke",
            "LemkeOptions",
            "Lemke's complementary pivoting, lexicographic, with restarts",
            lcp_only=True,
        ),
        SolverInfo(
            "fip",
            "contactmodel.solvers.fip",
            "FIPOptions",
            "feasible interior-point potential reduction (Trinkle et al. (1997) appendix)",
            lcp_only=True,
        ),
        SolverInfo(
            "enumerate",
            "contactmodel.solvers.enumerate",
            "EnumerateOptions",
            "all solutions of a small LCP by complementary bases",
            lcp_only=True,
        ),
        SolverInfo(
            "ipopt",
            "contactmodel.solvers.ipopt",
            "IpoptOptions",
            "MNCPOpt / LCPOpt (Andreani et al. (2002)) through IPOPT",
            requires="cyipopt",
        ),
        SolverInfo(
            "scipy",
            "contactmodel.solvers.scipy_opt",
            "ScipyOptions",
            "MNCPOpt / LCPOpt with scipy's bound-constrained minimizers",
        ),
        SolverInfo(
            "path",
            "contactmodel.solvers.path",
            "PathOptions",
            "PATH through GAMSPy (free license: <= 1000 rows/columns) or Pyomo + pathampl",
            requires="gamspy",
        ),
    )
}

CONFIG_DIR = Path(__file__).resolve().parent / "presets"  # shipped presets (package data)
USER_CONFIG_ENV = "CONTACTMODEL_PRESETS"  # names a directory whose NAME.toml override the shipped ones


def get(name: str) -> SolverInfo:
    try:
        return REGISTRY[name]
    except KeyError:
        raise SolverError(f"unknown solver '{name}'; choose one of {sorted(REGISTRY)}") from None


_LOADED: dict[str, tuple] = {}  # name -> (module, options class), once imported
_PRESETS: dict[Path, tuple[int, dict]] = {}  # preset file -> (its mtime in ns, its values)


def load(name: str):
    """(module, options class) of a registered, available solver."""
    if name in _LOADED:
        return _LOADED[name]
    info = get(name)
    ok, why = info.available()
    if not ok:
        raise SolverError(f"solver '{name}' is not available here: {why}")
    module = importlib.import_module(info.module)
    _LOADED[name] = module, getattr(module, info.options)
    return _LOADED[name]


def preset_files(name: str) -> list[Path]:
    """The preset files of solver ``name`` that exist, lowest precedence first: the shipped
    ``CONFIG_DIR/NAME.toml``, then ``NAME.toml`` in the directory named by ``$CONTACTMODEL_PRESETS``."""
    dirs = [str(CONFIG_DIR)]
    user = os.environ.get(USER_CONFIG_ENV)
    if user:
        dirs.append(os.path.expanduser(user))
    # os.path on strings: pathlib costs ~30 us a file, most of a small problem's option parsing
    files = [os.path.join(d, f"{name}.toml") for d in dirs]
    return [Path(f) for f in files if os.path.isfile(f)]


def _read_preset(path: Path) -> dict:
    """The values of one preset file, read again when its modification time changes."""
    mtime = path.stat().st_mtime_ns
    cached = _PRESETS.get(path)
    if cached is None or cached[0] != mtime:
        try:
            with path.open("rb") as fh:
                cached = _PRESETS[path] = (mtime, tomllib.load(fh))
        except tomllib.TOMLDecodeError as exc:
            raise SolverError(f"preset file {path} is not valid TOML ({exc}); fix or remove it") from None
    return copy.deepcopy(cached[1])


def _preset(name: str) -> dict:
    """The merged values of the preset files of ``name`` ({} without any); see :func:`preset_files`."""
    values: dict = {}
    for path in preset_files(name):
        values.update(_read_preset(path))
    return values


def make_options(name: str, overrides: dict):
    """Options of solver ``name``: class defaults, then its preset files (:func:`preset_files`), then
    ``overrides``.

    A ``native`` table in the file or the overrides is passed through to the underlying code.
    """
    _, options_cls = load(name)
    defaults = _default_options(options_cls)
    values = _preset(name)
    values.update(overrides)
    unknown = sorted(set(values) - defaults.__dict__.keys())
    if unknown:
        raise SolverError(
            f"unknown option(s) {unknown} for solver '{name}' (from keyword arguments or "
            f"{[str(p) for p in preset_files(name)]}); its options are {sorted(defaults.__dict__)}"
        )
    # options_cls(**values) without checking each default again (~0.1 ms a call): a copy of the
    # defaults (containers copied, as default factories would make new ones), then each given
    # value assigned, which checks it as construction does
    options = options_cls.__new__(options_cls)
    options.__dict__.update(
        {k: copy.copy(v) if isinstance(v, (dict, list)) else v for k, v in defaults.__dict__.items()}
    )
    for key, value in values.items():
        setattr(options, key, value)
    return options


_DEFAULTS: dict[type, object] = {}


def _default_options(options_cls: type):
    """An instance of ``options_cls`` with every default (made once; never handed out)."""
    found = _DEFAULTS.get(options_cls)
    if found is None:
        found = _DEFAULTS[options_cls] = options_cls()
    return found
