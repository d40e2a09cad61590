"""Problems given by the user, as instances of the run store: model files, FCLIB and Siconos files,
folders of them, the reference catalogue and Problems in memory.

Each input becomes a :class:`Source`: a name for tables and an instance description (plain JSON,
part of a run's key, see :class:`contactmodel.experiments.runner.Task`) from which :func:`build`
makes the problem again, in this process or in a worker:

- ``{"family": "model", "path": ..., "sha256": ...}``: a model file ``FILE.py`` (or ``FILE.py:NAME``)
  whose ``build()`` returns a System or a Problem (:func:`contactmodel.model_file.load_model`);
- ``{"family": "fclib", "path": ..., "format": "hdf5" | "siconos"}``: an FCLIB HDF5 file or a Siconos
  frictional contact text file, read by :mod:`contactmodel.io` and formulated by
  :func:`contactmodel.io.fclib.to_problem` from (W, q / ||q||_2): the reactions scale by ||q|| and
  the cone conditions are positively homogeneous, so the solutions are the file's divided by ||q||;
  without the division, files with ||q|| ~ 1e-12 would pass the relative residual test at r = 0;
- ``{"family": "lcp", "path": ...}``: a Siconos LCP text file (``lcp_*.dat``), ``cm.LCP(M, q)``;
- ``{"family": "catalogue", "case": NAME}``: a hand-derived case of :mod:`contactmodel.catalogue`
  under ``CoulombCone(mu)`` with the case's mu;
- ``{"family": "memory", "name": ..., "digest": ...}``: a Problem or MCP object, kept in this
  process's :data:`MEMORY` (a forked worker inherits it; a Dask worker does not).

A run's ``friction`` is ``"model"`` (the laws the source declares) or a spec of
:func:`contactmodel.friction.spec.parse_friction`; a spec without MU (``"pyramid"``, or
``"cone::soc"`` with the MU slot empty) takes each contact's own mu where the source has one (the
catalogue, FCLIB files).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from contactmodel.errors import DeclarationError, UnknownNameError, did_you_mean

#: file suffixes a folder is searched for
SUFFIXES = (".py", ".hdf5", ".dat")
#: Problems and MCPs given as objects, by digest (see :func:`memory_instance`)
MEMORY: dict[str, Any] = {}
MODEL = "model"
FAMILIES = ("model", "fclib", "lcp", "catalogue", "memory")


@dataclass(frozen=True)
class Source:
    """One problem to compare: ``name`` as tables show it, ``instance`` as the store keys it."""

    name: str
    instance: dict


def _digest_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _file_source(path: Path, func: str | None = None) -> Source:
    resolved = path.resolve()
    suffix = path.suffix.lower()
    if suffix == ".py":
        target = f"{resolved}:{func}" if func else str(resolved)
        instance = {"family": "model", "path": target, "sha256": _digest_file(resolved)}
        return Source(path.name + (f":{func}" if func else ""), instance)
    if suffix == ".hdf5":
        fmt = "hdf5"
    elif suffix == ".dat" and path.name.lower().startswith("lcp"):
        return Source(path.name, {"family": "lcp", "path": str(resolved), "sha256": _digest_file(resolved)})
    elif suffix == ".dat":
        fmt = "siconos"
    else:
        raise DeclarationError(
            f"compare: cannot tell what '{path}' holds; give a model file (.py), an FCLIB file (.hdf5), "
            "a Siconos file (.dat) or a folder of them"
        )
    return Source(
        path.name, {"family": "fclib", "path": str(resolved), "format": fmt, "sha256": _digest_file(resolved)}
    )


def _catalogue_sources(spec: str) -> list[Source]:
    from contactmodel import catalogue

    _, _, name = spec.partition(":")
    names = [name] if name else list(catalogue.CASES)
    for n in names:
        if n not in catalogue.CASES:
            raise UnknownNameError(
                f"no catalogue case {n!r}{did_you_mean(n, catalogue.CASES)}; the cases: "
                f"{sorted(catalogue.CASES)}"
            )
    return [Source(n, {"family": "catalogue", "case": n}) for n in names]


def memory_instance(problem: Any, name: str) -> dict:
    """The instance of a Problem or MCP object: its digest (the MCP's size, bounds and F at two
    points) names it in the store, and :data:`MEMORY` keeps the object for :func:`build`."""
    from contactmodel.formulation import Problem
    from contactmodel.mcp.types import MCP

    if isinstance(problem, Problem):
        mcp = problem.compile().mcp
        laws = sorted(f"{k}={v!r}" for k, v in problem.laws.items())
    elif isinstance(problem, MCP):
        mcp, laws = problem, []
    else:
        raise DeclarationError(
            f"compare: problem {name!r} is a {type(problem).__name__}; give a contactmodel Problem, an MCP "
            "(cm.LCP(M, q)), a model file, an FCLIB or Siconos file, a folder of them, or 'catalogue'"
        )
    x = np.random.default_rng(0).standard_normal(mcp.n)
    digest = hashlib.sha256()
    for part in (np.asarray(mcp.lb), np.asarray(mcp.ub), mcp.F(np.zeros(mcp.n)), mcp.F(x)):
        digest.update(np.ascontiguousarray(part, dtype=float).tobytes())
    digest.update(repr((list(mcp.names), laws, getattr(problem, "form", None))).encode())
    key = digest.hexdigest()[:16]
    MEMORY[key] = problem
    return {"family": "memory", "name": name, "digest": key}


def sources(problems: Any) -> list[Source]:
    """The :class:`Source` of every problem in ``problems``: one item or a list of them, or a mapping
    name -> item. An item is a Problem or MCP, a catalogue ``Case``, ``"catalogue"`` (every case) or
    ``"catalogue:NAME"``, a file path (``FILE.py``, ``FILE.py:NAME``, ``.hdf5``, ``.dat``) or a folder
    (its ``.py``, ``.hdf5`` and ``.dat`` files, sorted by name)."""
    if isinstance(problems, Mapping):
        items: Iterable[tuple[str | None, Any]] = list(problems.items())
    elif isinstance(problems, (str, os.PathLike)) or not isinstance(problems, Iterable):
        items = [(None, problems)]
    else:
        items = [(None, p) for p in problems]
    out: list[Source] = []
    for index, (name, item) in enumerate(items):
        found = _sources_of(item, name or f"problem{index}")
        if name is not None and len(found) == 1:
            found = [replace(found[0], name=str(name))]
        out.extend(found)
    names = [s.name for s in out]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise DeclarationError(f"compare: problem names {repeated} repeat; give a mapping name -> problem")
    return out


def _sources_of(item: Any, name: str) -> list[Source]:
    from contactmodel.catalogue import Case

    if isinstance(item, Case):
        return [Source(item.name, {"family": "catalogue", "case": item.name})]
    if isinstance(item, str) and (item == "catalogue" or item.startswith("catalogue:")):
        return _catalogue_sources(item)
    if isinstance(item, (str, os.PathLike)):
        text = str(item)
        file, sep, func = text.rpartition(":")
        if sep and func.isidentifier() and file.endswith(".py"):
            path, function = Path(file), func
        else:
            path, function = Path(text), None
        if path.is_dir():
            files = sorted(p for p in path.iterdir() if p.suffix.lower() in SUFFIXES and p.is_file())
            if not files:
                raise DeclarationError(f"compare: folder '{path}' holds no .py, .hdf5 or .dat file")
            return [_file_source(p) for p in files]
        if not path.is_file():
            raise DeclarationError(f"compare: no file or folder '{path}'")
        return [_file_source(path, function)]
    return [Source(name, memory_instance(item, name))]


def law_for(spec: str, mu: float | None):
    """The friction law of ``spec``; a spec without MU (``"pyramid"``, ``"cone::soc"``) takes ``mu``."""
    from contactmodel.friction.spec import parse_friction

    name, *params = spec.split(":")
    if mu is not None and (not params or params[0] == ""):
        spec = ":".join([name, f"{float(mu)!r}", *params[1:]])
    return parse_friction(spec)


def build(instance: dict, friction: str = MODEL):
    """The Problem (or MCP) an instance of this module stands for, under ``friction``."""
    import contactmodel as cm

    family = instance["family"]
    if family == "model":
        from contactmodel.model_file import load_model

        model = load_model(instance["path"])
        law = None if friction == MODEL else law_for(friction, None)
        if isinstance(model, cm.Problem):
            return model if law is None else model.reformulate(friction=law)
        return cm.formulate(model, friction=law)
    if family == "fclib":
        from contactmodel.io.fclib import read_fclib, to_problem
        from contactmodel.io.siconos_fc import read_siconos

        path = instance["path"]
        fp = read_fclib(path) if instance["format"] == "hdf5" else read_siconos(path)
        loc = fp.to_local()
        scale = float(np.linalg.norm(loc.q)) or 1.0
        laws = None if friction == MODEL else [law_for(friction, m) for m in loc.mu]
        return to_problem(replace(loc, q=loc.q / scale), friction=laws)
    if family == "lcp":
        from contactmodel.io.siconos_lcp import read_lcp

        return cm.LCP(*read_lcp(instance["path"]))
    if family == "catalogue":
        from contactmodel import catalogue

        case = catalogue.get(instance["case"])
        law = cm.CoulombCone(case.mu) if friction == MODEL else law_for(friction, case.mu)
        return cm.formulate(case.build(), friction=law)
    if family == "memory":
        problem = MEMORY.get(instance["digest"])
        if problem is None:
            raise UnknownNameError(
                f"problem {instance['name']!r} was given as an object in another process; run it in this "
                "process or a forked pool (workers), or give it as a model file for Dask"
            )
        if friction == MODEL or not isinstance(problem, cm.Problem):
            return problem
        return problem.reformulate(friction=law_for(friction, None))
    raise UnknownNameError(f"unknown instance family {family!r}: use one of {FAMILIES}")


def answer_vector(problem: Any, x: np.ndarray) -> np.ndarray:
    """What answers are compared by: the contact forces c of a Problem at the MCP point ``x`` (the
    quantity ``cm.decide`` proves unique), ``x`` itself for a bare MCP."""
    x = np.asarray(x, dtype=float)
    if hasattr(problem, "force_vector"):
        problem.compile().load(x)
        return np.asarray(problem.force_vector(), dtype=float)
    return x
