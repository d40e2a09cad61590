"""Solver registry: one row per solver; each solver lives in its own module.

Every solver module exposes an options dataclass and ``solve(mcp, options) -> SolverResult``.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import importlib.util
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
            "feasible interior-point potential reduction (seed 000 appendix)",
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
            "MNCPOpt / LCPOpt (seed 001) through IPOPT",
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

CONFIG_DIR = Path(__file__).resolve().parents[2] / "solvers_config"


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


def _preset(name: str) -> dict:
    """The values of ``solvers_config/NAME.toml`` ({} without one), read again when it changes."""
    path = CONFIG_DIR / f"{name}.toml"
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return {}
    cached = _PRESETS.get(path)
    if cached is None or cached[0] != mtime:
        with path.open("rb") as fh:
            cached = _PRESETS[path] = (mtime, tomllib.load(fh))
    return copy.deepcopy(cached[1])


def make_options(name: str, overrides: dict):
    """Options of solver ``name``: defaults, then ``solvers_config/NAME.toml``, then ``overrides``.

    A ``native`` table in the file or the overrides is passed through to the underlying code.
    """
    _, options_cls = load(name)
    fields = {f.name for f in dataclasses.fields(options_cls)}
    values = _preset(name)
    values.update(overrides)
    unknown = sorted(set(values) - fields)
    if unknown:
        raise SolverError(
            f"unknown option(s) {unknown} for solver '{name}'; its options are {sorted(fields)}"
        )
    return options_cls(**values)
