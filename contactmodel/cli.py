"""The ``contactmodel`` command: solve or draw a model file, list the solvers.

Exit codes: 0 solved (or solved-inaccurate), 1 not solved, 2 caller mistake (bad arguments,
bad model file, any :class:`ContactModelError`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import contactmodel as cm
from contactmodel import solvers
from contactmodel.errors import ContactModelError
from contactmodel.formulation import FORMS
from contactmodel.friction.spec import ACCEPTED, parse_friction
from contactmodel.solve import TOL

EXIT_SOLVED = 0
EXIT_NOT_SOLVED = 1
EXIT_USAGE = 2


class ModelFileError(ContactModelError):
    """MODEL.py cannot be loaded or has no usable ``build()``."""


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive finite number (got {text})")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contactmodel",
        description="Multi-rigid-body contact problems with friction: formulate, solve, verify.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    solve = commands.add_parser(
        "solve",
        help="solve the system returned by build() in MODEL.py",
        description="Import MODEL.py, call its build() -> contactmodel.System, formulate and solve it.",
    )
    solve.add_argument(
        "model",
        metavar="MODEL.py",
        help="Python file defining build() -> contactmodel.System; MODEL.py:NAME calls NAME() instead, "
        "which may also return a formulated contactmodel.Problem",
    )
    solve.add_argument(
        "--friction",
        metavar="LAW",
        help=f"one friction law for every contact, overriding the model's ({ACCEPTED})",
    )
    solve.add_argument(
        "--solver", default="newton", help="solver name (see 'contactmodel solvers'; default newton)"
    )
    solve.add_argument("--form", choices=FORMS, default="reduced", help="formulation form (default reduced)")
    solve.add_argument("--json", action="store_true", help="print the solution as one JSON object")
    solve.add_argument(
        "--all-solutions",
        action="store_true",
        help="search for every solution (enumeration for small LCPs, multistart otherwise)",
    )
    solve.add_argument(
        "--decide", action="store_true", help="decide existence/uniqueness, print the evidence"
    )
    solve.add_argument(
        "--tol",
        type=_tolerance,
        default=TOL,
        metavar="T",
        help=f"relative natural-map residual accepted as solved (default {TOL:g})",
    )

    draw = commands.add_parser(
        "draw",
        help="draw the system returned by build() in MODEL.py (and its solution with --solver)",
        description="Import MODEL.py, call its build() -> contactmodel.System and draw it: bodies, contact "
        "frames, friction sets; with --solver also solve it and draw the forces, accelerations and modes.",
    )
    draw.add_argument("model", metavar="MODEL.py", help="Python file defining build() -> contactmodel.System")
    draw.add_argument(
        "--friction",
        metavar="LAW",
        help=f"one friction law for every contact, overriding the model's ({ACCEPTED})",
    )
    draw.add_argument("--solver", help="solve with this solver and draw the solution (default: system only)")
    draw.add_argument("--form", choices=FORMS, default="reduced", help="formulation form (default reduced)")
    draw.add_argument("--view", choices=("3d", "planar"), help="force the 3D or the planar view")
    draw.add_argument(
        "--out",
        metavar="FILE",
        help="image file to write, .png or .svg (default: MODEL's stem + .png, in the current directory)",
    )

    experiment = commands.add_parser(
        "experiment",
        help="run (or resume) one of the seeds' experiments; write runs.sqlite, summary.json and figures",
        description="Run a seed experiment (seed000-table1, seed001-scara, seed002-example1), resuming from "
        "DIR/runs.sqlite, or draw a performance profile of a store (profile).",
    )
    experiment.add_argument(
        "name", metavar="NAME", help="seed000-table1, seed001-scara, seed002-example1 or profile"
    )
    experiment.add_argument("--out", required=True, metavar="DIR", help="output folder")
    experiment.add_argument("--workers", type=int, metavar="N", help="worker processes (default: CPU count)")
    experiment.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler instead")
    experiment.add_argument(
        "--time-limit", type=_tolerance, default=60.0, metavar="S", help="per-run limit in seconds (60)"
    )
    experiment.add_argument("--limit", type=int, metavar="K", help="use only the first K instances")
    experiment.add_argument("--store", metavar="FILE", help="profile: run store (default DIR/runs.sqlite)")

    commands.add_parser("solvers", help="list the registered solvers and whether they are available")
    return parser


def load_model(path: str | Path) -> cm.System | cm.Problem:
    """Import ``path`` as a module and return what its ``build()`` returns; ``FILE.py:NAME``
    calls ``NAME()`` instead (a System or a formulated Problem)."""
    file, func = _split_target(path)
    if not file.is_file():
        raise ModelFileError(f"model file '{path}' not found")
    module_name = f"_contactmodel_model_{file.stem}"
    spec = importlib.util.spec_from_file_location(module_name, file)
    if spec is None or spec.loader is None:
        raise ModelFileError(f"cannot import '{path}' as a Python module; give a .py file")
    module = importlib.util.module_from_spec(spec)
    folder = str(file.resolve().parent)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
        return _build(module, file, func)
    finally:
        sys.modules.pop(module_name, None)
        if folder in sys.path:
            sys.path.remove(folder)


def _split_target(path: str | Path) -> tuple[Path, str]:
    """``FILE.py:NAME`` -> (FILE.py, NAME); anything else -> (path, "build")."""
    file, sep, func = str(path).rpartition(":")
    if sep and func.isidentifier() and file.endswith(".py"):
        return Path(file), func
    return Path(path), "build"


def _build(module: ModuleType, path: str | Path, func: str = "build") -> cm.System | cm.Problem:
    build = getattr(module, func, None)
    if not callable(build):
        raise ModelFileError(
            f"'{path}' defines no {func}() function; it must define {func}() -> contactmodel.System"
        )
    system = build()
    if not isinstance(system, (cm.System, cm.Problem)):
        raise ModelFileError(
            f"{func}() in '{path}' returned {type(system).__name__}; it must return a contactmodel.System "
            "(or a formulated contactmodel.Problem)"
        )
    return system


def _solve(args: argparse.Namespace) -> int:
    friction = parse_friction(args.friction) if args.friction is not None else None
    model = load_model(args.model)
    if isinstance(model, cm.Problem):
        changed = friction is not None or args.form != model.form
        problem = model.reformulate(friction=friction, form=args.form) if changed else model
    else:
        problem = cm.formulate(model, friction=friction, form=args.form)
    if args.decide:
        verdict = cm.decide(problem, tol=args.tol)
        print(json.dumps(verdict.to_json()) if args.json else verdict.summary())
        return EXIT_SOLVED if verdict.solutions else EXIT_NOT_SOLVED
    if args.all_solutions:
        found = cm.all_solutions(problem, tol=args.tol)
        print(json.dumps(found.to_json()) if args.json else found.summary())
        return EXIT_SOLVED if len(found.solutions) else EXIT_NOT_SOLVED
    solution = cm.solve(problem, solver=args.solver, accept_tol=args.tol)
    print(json.dumps(solution.to_json()) if args.json else solution.table())
    return EXIT_SOLVED if solution.ok else EXIT_NOT_SOLVED


def _draw(args: argparse.Namespace) -> int:
    try:
        import matplotlib
    except ImportError:
        raise ContactModelError("drawing needs matplotlib: pip install 'contactmodel[plot]'") from None
    matplotlib.use("Agg")
    from contactmodel.draw import draw

    out = Path(args.out) if args.out else Path(Path(args.model).stem + ".png")
    if out.suffix.lower() not in (".png", ".svg"):
        raise ModelFileError(f"--out must end in .png or .svg (got '{out}')")
    friction = parse_friction(args.friction) if args.friction is not None else None
    system = load_model(args.model)
    if not isinstance(system, cm.System):
        raise ModelFileError(
            f"draw needs a contactmodel.System from '{args.model}' (got a formulated Problem)"
        )
    if args.solver is None:
        draw(system, friction=friction, view=args.view, out=out, title=Path(args.model).name)
        print(f"wrote {out}")
        return EXIT_SOLVED
    problem = cm.formulate(system, friction=friction, form=args.form)
    solution = cm.solve(problem, solver=args.solver)
    title = f"{Path(args.model).name}: {solution.solver}, {solution.status.value}"
    draw(problem, solution, view=args.view, out=out, title=title)
    print(f"wrote {out}")
    return EXIT_SOLVED if solution.ok else EXIT_NOT_SOLVED


def _experiment(args: argparse.Namespace) -> int:
    from contactmodel.experiments import seeds

    out = Path(args.out)
    if args.name == "profile":
        store = Path(args.store) if args.store else out / seeds.STORE
        if not store.is_file():
            raise ContactModelError(f"no run store at '{store}'")
        out.mkdir(parents=True, exist_ok=True)
        seeds.profile_from_store(store, out / "profile.png")
        print(f"wrote {out / 'profile.png'}")
        return EXIT_SOLVED
    if args.name not in seeds.EXPERIMENTS:
        raise ContactModelError(f"unknown experiment '{args.name}'; one of {sorted(seeds.EXPERIMENTS)}")
    summary = seeds.run_experiment(
        args.name, out, args.workers, args.scheduler, time_limit=args.time_limit, limit=args.limit
    )
    print(json.dumps(summary, indent=1))
    print(f"wrote {out / 'summary.json'}, {out / seeds.STORE} and figures", file=sys.stderr)
    return EXIT_SOLVED


def _solvers() -> int:
    width = max(len(name) for name in solvers.REGISTRY) + 2
    for name, info in solvers.REGISTRY.items():
        ok, why = info.available()
        flag = "yes" if ok else "no"
        reason = "" if ok else f"[{why}]  "
        print(f"{name:<{width}}{flag:<5}{reason}{info.description}")
    return EXIT_SOLVED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        if exc.code is None:
            return EXIT_SOLVED
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        if args.command == "solvers":
            return _solvers()
        if args.command == "experiment":
            return _experiment(args)
        if args.command == "draw":
            return _draw(args)
        return _solve(args)
    except ContactModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
