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
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

from contactmodel.errors import SolverError, did_you_mean


@dataclass(frozen=True)
class SolverInfo:
    """Every fact about one solver, stated once (the rows of :data:`REGISTRY`); the dispatcher,
    the fallbacks and the command line read them from here.

    name: the name given as ``cm.solve(..., solver=name)``.
    module, options: the module with ``solve(mcp, options)`` and its options dataclass.
    description: one line, as ``contactmodel solvers`` prints it.
    lcp_only: accepts LCPs only (affine F, lb = 0, ub = +inf).
    quadratic_only: accepts MCPs whose F is affine or quadratic only (it rebuilds F).
    cones: accepts MCPs with Coulomb cone blocks (``CoulombCone(form="soc")``); a contact problem
        is given to a solver without them with its automatic-form cones in the MNCP form.
    time_limit: its options have a ``time_limit`` field (wall-clock seconds).
    retry_statements: an unsolved answer on a contact problem is solved again in the problem's
        other statements (:mod:`contactmodel.fallback`; ``cm.solve(..., fallback=False)`` turns
        it off).
    fallback_rank: its place (lowest first) in the order solvers are tried one after another to
        find a solution (:func:`fallback_order`); None: not tried so.
    requires: an importable module the solver needs.
    ready: the name of a function of ``module`` that says why the solver cannot run here (an
        expired license, a missing executable) or returns None; :meth:`available` asks it.
    """

    name: str
    module: str
    options: str
    description: str
    lcp_only: bool = False
    quadratic_only: bool = False
    cones: bool = False
    time_limit: bool = False
    retry_statements: bool = False
    fallback_rank: int | None = None
    requires: str | None = None
    ready: str | None = None

    def available(self) -> tuple[bool, str]:
        """(available here, reason when not)."""
        if self.requires and importlib.util.find_spec(self.requires) is None:
            return False, f"needs the Python package providing '{self.requires}'"
        if importlib.util.find_spec(self.module) is None:
            return False, f"module {self.module} is not installed"
        if self.ready:
            why = getattr(importlib.import_module(self.module), self.ready)()
            if why:
                return False, why
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
            time_limit=True,
            retry_statements=True,
            fallback_rank=2,
        ),
        SolverInfo(
            "lemke",
            "contactmodel.solvers.lemke",
            "LemkeOptions",
            "Lemke's complementary pivoting, lexicographic, with restarts",
            lcp_only=True,
            fallback_rank=1,
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
            time_limit=True,
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
            quadratic_only=True,
            time_limit=True,
            ready="ready",
        ),
    )
}

CONFIG_DIR = Path(__file__).resolve().parent / "presets"  # shipped presets (package data)
USER_CONFIG_ENV = "CONTACTMODEL_PRESETS"  # names a directory whose NAME.toml override the shipped ones


def get(name: str) -> SolverInfo:
    try:
        return REGISTRY[name]
    except KeyError:
        raise SolverError(
            f"unknown solver '{name}'{did_you_mean(name, REGISTRY)}; choose one of {sorted(REGISTRY)}"
        ) from None


def takes(info: SolverInfo, lcp: bool, cones: bool = False, polynomial: bool = True) -> bool:
    """Whether the solver of ``info`` accepts an MCP that is an LCP (``lcp``), has cone blocks
    (``cones``), has an affine or quadratic F (``polynomial``), as its row of the registry says."""
    return (
        (lcp or not info.lcp_only) and (polynomial or not info.quadratic_only) and (info.cones or not cones)
    )


def able(lcp: bool, cones: bool = False, polynomial: bool = True) -> list[str]:
    """The solvers that accept such an MCP (see :func:`takes`), in registry order."""
    return [name for name, info in REGISTRY.items() if takes(info, lcp, cones, polynomial)]


def fallback_order(lcp: bool, cones: bool = False) -> list[str]:
    """The solvers to try one after another on an MCP (an LCP when ``lcp``, with cone blocks when
    ``cones``) until one finds a solution: those with a ``fallback_rank`` that accept it, by rank."""
    ranked = [
        info for info in REGISTRY.values() if info.fallback_rank is not None and takes(info, lcp, cones)
    ]
    return [info.name for info in sorted(ranked, key=lambda info: info.fallback_rank)]


_LOADED: dict[str, tuple] = {}  # name -> (module, options class), once imported
_PRESETS: dict[str, tuple[int, dict]] = {}  # preset file -> (its mtime in ns, its values)


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
    return [Path(f) for f in _preset_paths(name)]


def _preset_paths(name: str) -> list[str]:
    """:func:`preset_files` as strings (pathlib costs ~30 us a file, most of a small problem's
    option parsing)."""
    return [path for path, _ in _preset_stamps(name)]


def _candidate_paths(name: str) -> tuple[str, ...]:
    """Where the preset files of ``name`` may be, lowest precedence first (made once per value of
    ``$CONTACTMODEL_PRESETS`` and of :data:`CONFIG_DIR`)."""
    user = os.environ.get(USER_CONFIG_ENV)
    key = (name, CONFIG_DIR, user)
    found = _CANDIDATES.get(key)
    if found is None:
        dirs = [str(CONFIG_DIR)]
        if user:
            dirs.append(os.path.expanduser(user))
        found = _CANDIDATES[key] = tuple(os.path.join(d, f"{name}.toml") for d in dirs)
    return found


_CANDIDATES: dict[tuple, tuple[str, ...]] = {}


def _preset_stamps(name: str) -> tuple[tuple[str, int], ...]:
    """(path, modification time in ns) of each preset file of ``name`` that exists (a regular
    file, as ``os.path.isfile`` says), lowest precedence first: one ``stat`` a candidate."""
    out = []
    for path in _candidate_paths(name):
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(st.st_mode):
            out.append((path, st.st_mtime_ns))
    return tuple(out)


def _read_preset(path: str) -> tuple[int, dict]:
    """(modification time, values) of one preset file, read again when its time changes."""
    mtime = os.stat(path).st_mtime_ns
    cached = _PRESETS.get(path)
    if cached is None or cached[0] != mtime:
        try:
            with open(path, "rb") as fh:
                cached = _PRESETS[path] = (mtime, tomllib.load(fh))
        except tomllib.TOMLDecodeError as exc:
            raise SolverError(f"preset file {path} is not valid TOML ({exc}); fix or remove it") from None
    return cached


def make_options(name: str, overrides: dict):
    """Options of solver ``name``: class defaults, then its preset files (:func:`preset_files`), then
    ``overrides``.

    A ``native`` table in the file or the overrides is passed through to the underlying code.
    """
    _, options_cls = load(name)
    base = _preset_options(name, options_cls)
    made_key = _made_key(name, overrides)
    made = _MADE.get(made_key) if made_key is not None else None
    if made is not None and made[0] is base:  # these overrides were checked on this base before
        options = copy.copy(made[1])
        options.__dict__.update({k: copy.deepcopy(made[1].__dict__[k]) for k in made[2]})
        return options
    _refuse_unknown(name, overrides, base)
    # options_cls(**values) without checking the defaults and the preset again (~0.2 ms a call): a
    # copy of the options made from them (containers copied deeply, as default factories and
    # the preset's own copy would give new ones), then each override assigned, which checks it
    # as construction does
    options = options_cls.__new__(options_cls)
    options.__dict__.update(
        {k: copy.deepcopy(v) if isinstance(v, (dict, list)) else v for k, v in base.__dict__.items()}
    )
    for key, value in overrides.items():
        setattr(options, key, value)
    if overrides:  # each value is checked on assignment; the checks across fields run here
        options.validate()
    if made_key is not None:
        if len(_MADE) >= _MADE_SIZE:
            _MADE.pop(next(iter(_MADE), None), None)  # the oldest (a pop: solves may run in threads)
        containers = [k for k, v in options.__dict__.items() if isinstance(v, (dict, list))]
        _MADE[made_key] = (base, copy.copy(options), containers)
        options.__dict__.update({k: copy.deepcopy(options.__dict__[k]) for k in containers})
    return options


#: (solver, overrides) -> (the preset options they were made on, the options made, their container
#: fields): a repeated call (each step of a simulation, a re-solve) copies the options made before
#: instead of checking the same overrides again (~40 us); only overrides of plain hashable values
_MADE: dict[tuple, tuple] = {}
_MADE_SIZE = 64


def _made_key(name: str, overrides: dict) -> tuple | None:
    """The key of ``overrides`` in :data:`_MADE`, None when a value is not a plain scalar."""
    if not all(type(v) in (int, float, str, bool, type(None)) for v in overrides.values()):
        return None
    # the type is part of the key: 1, 1.0 and True are equal keys but not equally valid values
    return (name, tuple(sorted((k, type(v).__name__, v) for k, v in overrides.items())))


def _refuse_unknown(name: str, values: dict, base) -> None:
    unknown = sorted(set(values) - base.__dict__.keys())
    if unknown:
        raise SolverError(
            f"unknown option(s) {unknown} for solver '{name}' (from keyword arguments or "
            f"{[str(p) for p in preset_files(name)]}); its options are {sorted(base.__dict__)}"
        )


_PRESET_OPTIONS: dict[tuple, object] = {}


def _preset_options(name: str, options_cls: type):
    """``options_cls`` with the values of the preset files of ``name``, checked; made again when
    the files or their modification times change (never handed out)."""
    key = (options_cls, _preset_stamps(name))  # the files are read only when a stamp is new
    found = _PRESET_OPTIONS.get(key)
    if found is None:
        values: dict = {}
        for path, _ in key[1]:
            values.update(copy.deepcopy(_read_preset(path)[1]))
        _refuse_unknown(name, values, _default_options(options_cls))
        found = _PRESET_OPTIONS[key] = options_cls(**values)
    return found


_DEFAULTS: dict[type, object] = {}


def _default_options(options_cls: type):
    """An instance of ``options_cls`` with every default (made once; never handed out)."""
    found = _DEFAULTS.get(options_cls)
    if found is None:
        found = _DEFAULTS[options_cls] = options_cls()
    return found
