"""The ``contactmodel`` command: solve or draw a model file, run an experiment, list the solvers.

Exit codes: 0 solved (or solved-inaccurate), 1 not solved, 2 caller mistake (bad arguments,
bad model file, any :class:`ContactModelError`), 141 standard output closed early (``... | head``).

Heavy modules (Pyomo, SciPy, matplotlib, the experiment machinery) are imported by the command that
needs them, so ``contactmodel --help`` and argument errors answer at once.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from contactmodel.errors import ContactModelError
from contactmodel.model_file import ModelFileError, load_model_and_scene

if TYPE_CHECKING:
    import contactmodel as cm

EXIT_SOLVED = 0
EXIT_NOT_SOLVED = 1
EXIT_USAGE = 2
EXIT_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a writer whose reader went away

QUIET, NORMAL, VERBOSE = -1, 0, 1


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive finite number (got {text})")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {text})")
    return value


def _verbosity(parser: argparse.ArgumentParser, default: int | str) -> None:
    """-q/--quiet and -v/--verbose, accepted before and after the command."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "-q",
        "--quiet",
        dest="verbosity",
        action="store_const",
        const=QUIET,
        default=default,
        help="print only the result's status line (or the --json object) and errors",
    )
    group.add_argument(
        "-v",
        "--verbose",
        dest="verbosity",
        action="store_const",
        const=VERBOSE,
        default=default,
        help="also print the solver's message, the checks, the timings and the solver counters",
    )


def _solve_arguments(solve: argparse.ArgumentParser) -> None:
    from contactmodel.constants import FORMS, TOL
    from contactmodel.friction.registry import ACCEPTED

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
    solve.add_argument(
        "--form", choices=FORMS, help="formulation form (default reduced; sparse for --quasistatic)"
    )
    solve.add_argument("--json", action="store_true", help="print the solution as one JSON object")
    solve.add_argument(
        "--quasistatic",
        action="store_true",
        help="the quasistatic problem (no inertia, velocities unknown): bodies and manipulators driven "
        "by the model file's DRIVEN dict and --drive",
    )
    solve.add_argument(
        "--drive",
        action="append",
        default=[],
        metavar="NAME=V,...",
        help="with --quasistatic: a body's twist vx,vy,vz,wx,wy,wz (m/s, rad/s, world) or a "
        "manipulator's joint rates (one per joint, 'none' for a free joint); repeatable",
    )
    solve.add_argument(
        "--all-solutions",
        action="store_true",
        help="search for every solution (enumeration for small LCPs, multistart otherwise) and print "
        "each one's table",
    )
    solve.add_argument(
        "--decide",
        action="store_true",
        help="decide existence/uniqueness, print the evidence (with -v: its long steps' progress on stderr)",
    )
    solve.add_argument(
        "--tol",
        type=_tolerance,
        default=TOL,
        metavar="T",
        help=f"relative natural-map residual accepted as solved (default {TOL:g})",
    )


def _draw_arguments(draw: argparse.ArgumentParser) -> None:
    from contactmodel.constants import FORMS
    from contactmodel.friction.registry import ACCEPTED

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


def _experiment_arguments(experiment: argparse.ArgumentParser) -> None:
    from contactmodel.experiments.seeds import EXPERIMENTS

    names = "; ".join(f"{e.name}: {e.description}" for e in EXPERIMENTS.values())
    experiment.add_argument("name", metavar="NAME", help=f"{names}; or profile (of a run store)")
    experiment.add_argument("--out", required=True, metavar="DIR", help="output folder")
    experiment.add_argument("--workers", type=int, metavar="N", help="worker processes (default: CPU count)")
    experiment.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler instead")
    experiment.add_argument(
        "--time-limit", type=_tolerance, default=60.0, metavar="S", help="per-run limit in seconds (60)"
    )
    experiment.add_argument(
        "--limit",
        type=_count,
        metavar="K",
        help="use only the first K instances (each instance is run by every solver of the experiment)",
    )
    experiment.add_argument("--store", metavar="FILE", help="profile: run store (default DIR/runs.sqlite)")


#: command -> (one-line help, description, function adding its arguments)
COMMANDS: dict[str, tuple[str, str, Callable[[argparse.ArgumentParser], None] | None]] = {
    "solve": (
        "solve the system returned by build() in MODEL.py",
        "Import MODEL.py, call its build() -> contactmodel.System, formulate and solve it.",
        _solve_arguments,
    ),
    "draw": (
        "draw the system returned by build() in MODEL.py (and its solution with --solver)",
        "Import MODEL.py, call its build() -> contactmodel.System and draw it: bodies, contact "
        "frames, friction sets; with --solver also solve it and draw the forces, accelerations and modes.",
        _draw_arguments,
    ),
    "experiment": (
        "reproduce a published experiment; write runs.sqlite, summary.json/.csv and figures",
        "Run (or resume, from DIR/runs.sqlite) the experiment of a published paper and print our numbers "
        "beside the paper's, or draw a performance profile of a run store (profile).",
        _experiment_arguments,
    ),
    "compare": (
        "compare solvers on your problems: a table, CSV/Markdown/LaTeX, performance and data profiles",
        "Run every solver variant on every problem (model files, FCLIB/Siconos files, folders, the "
        "catalogue) and cm.decide once per problem; print the table and a line per solver.",
        lambda sub: _cli_compare().declare(sub),
    ),
    "solvers": ("list the registered solvers and whether they are available", "", None),
    "simulate": (
        "time-step the system returned by build() in MODEL.py",
        "Import MODEL.py, call build() -> contactmodel.System (and simulation() -> dict of simulate "
        "keywords if defined), simulate it and print a summary table.",
        lambda sub: _cli_simulate().declare(sub),
    ),
}


class _Version(argparse.Action):
    """--version, reading the installed version only when asked (importlib.metadata costs ~50 ms)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args) -> None:
        from contactmodel import __version__

        print(f"{parser.prog} {__version__}")
        parser.exit()


def _parser(command: str | None = None) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and one parser per command; only ``command``'s arguments are declared
    (declaring them imports what their help cites, e.g. the formulation forms)."""
    parser = argparse.ArgumentParser(
        prog="contactmodel",
        description="Multi-rigid-body contact problems with friction: formulate, solve, verify.",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    _verbosity(parser, NORMAL)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    subparsers = {}
    for name, (help_text, description, declare) in COMMANDS.items():
        sub = commands.add_parser(name, help=help_text, description=description or help_text)
        _verbosity(sub, argparse.SUPPRESS)
        if declare is not None and name == command:
            declare(sub)
        subparsers[name] = sub
    return parser, subparsers


def _command_of(argv: Sequence[str]) -> str | None:
    return next((a for a in argv if a in COMMANDS), None)


def _solve(args: argparse.Namespace) -> int:
    import contactmodel as cm
    from contactmodel.friction.spec import parse_friction

    friction = parse_friction(args.friction) if args.friction is not None else None
    model, scene, driven = load_model_and_scene(args.model, "DRIVEN")
    model, friction = _scene_system(model, scene, friction, args.verbosity)
    if args.drive and not args.quasistatic:
        raise ModelFileError("--drive gives the driven motion of a quasistatic problem: add --quasistatic")
    if args.quasistatic:
        if isinstance(model, cm.Problem):
            raise ModelFileError(
                f"--quasistatic needs build() to return a contactmodel.System ('{args.model}' returned a "
                "formulated Problem; return cm.quasistatic(...) from it and drop --quasistatic instead)"
            )
        driven = {**(driven or {}), **_drives(args.drive)}
        problem = cm.quasistatic(model, driven=driven, friction=friction, form=args.form or "sparse")
    elif isinstance(model, cm.Problem):
        changed = friction is not None or (args.form is not None and args.form != model.form)
        problem = model.reformulate(friction=friction, form=args.form) if changed else model
    else:
        problem = cm.formulate(model, friction=friction, form=args.form or "reduced")
    if args.decide:
        if args.verbosity == VERBOSE:  # the long steps' progress (trees, exact LPs) on stderr
            logger = logging.getLogger("contactmodel")
            logger.setLevel(logging.INFO)
            if not logger.handlers:
                logger.addHandler(logging.StreamHandler(sys.stderr))
        verdict = cm.decide(problem, tol=args.tol)
        print(json.dumps(verdict.to_json()) if args.json else verdict.summary())
        return EXIT_SOLVED if verdict.solutions else EXIT_NOT_SOLVED
    if args.all_solutions:
        found = cm.all_solutions(problem, tol=args.tol)
        if args.json:
            print(json.dumps(found.to_json()))
        else:
            print(found.summary())
            for k, solution in enumerate(found.solutions if args.verbosity != QUIET else ()):
                print(f"\nsolution {k}:\n{_report(solution, args.verbosity, problem)}")
        return EXIT_SOLVED if len(found.solutions) else EXIT_NOT_SOLVED
    solution = cm.solve(problem, solver=args.solver, accept_tol=args.tol)
    print(json.dumps(solution.to_json()) if args.json else _report(solution, args.verbosity, problem))
    return EXIT_SOLVED if solution.ok else EXIT_NOT_SOLVED


def _scene_system(model, scene: dict, friction, verbosity: int):
    """A model file whose ``simulation()`` declares planes (or controllers) describes a scene:
    its problem at t = 0 has the contacts touching then (``contactmodel.simulation.scene``),
    with the scene's friction unless --friction is given. Returns (model, friction)."""
    import contactmodel as cm

    if not scene or not isinstance(model, cm.System):
        return model, friction
    from contactmodel.simulation.scene import instant_system

    instant = instant_system(model, **scene)
    added = len(instant.contacts) - sum(1 for c in model.contacts)
    if verbosity != QUIET:
        print(
            f"scene: the file's simulation() declares {len(scene.get('planes', ()))} plane(s); solving "
            f"the state at t = 0 with the {len(instant.contacts)} contact(s) touching then "
            f"({max(added, 0)} generated)",
            file=sys.stderr,
        )
    if not instant.contacts:
        raise ModelFileError(
            "the scene has no contact touching at t = 0 (every body is in free flight): nothing to "
            "solve; run it with 'contactmodel simulate'"
        )
    scene_friction = scene.get("friction")
    return instant, friction if friction is not None else scene_friction


def _drives(items: list[str]) -> dict[str, list]:
    """``--drive NAME=V,...`` options as ``driven`` entries (``none``: a free joint)."""
    out: dict[str, list] = {}
    for item in items:
        name, sep, values = item.partition("=")
        try:
            rates = [None if v.strip().lower() == "none" else float(v) for v in values.split(",")]
        except ValueError:
            rates = None
        if not (sep and name) or rates is None:
            raise ModelFileError(
                f"--drive {item!r}: write NAME=V1,V2,... (a body's 6 twist numbers, or one rate per joint)"
            )
        out[name] = rates
    return out


def _report(solution: cm.Solution, verbosity: int, problem: cm.Problem | None = None) -> str:
    """The solution's table at the asked verbosity (with the note on non-unique forces of
    ``problem``): the status line only when quiet."""
    if verbosity == QUIET:
        return solution.status_line()
    return solution.table(verbose=verbosity == VERBOSE, problem=problem)


def _draw(args: argparse.Namespace) -> int:
    try:
        import matplotlib
    except ImportError:
        raise ContactModelError("drawing needs matplotlib: pip install 'contactmodel[plot]'") from None
    matplotlib.use("Agg")
    import contactmodel as cm
    from contactmodel.draw import draw
    from contactmodel.friction.spec import parse_friction

    out = Path(args.out) if args.out else Path(Path(args.model).stem + ".png")
    if out.suffix.lower() not in (".png", ".svg"):
        raise ModelFileError(f"--out must end in .png or .svg (got '{out}')")
    friction = parse_friction(args.friction) if args.friction is not None else None
    system, scene = load_model_and_scene(args.model)
    system, friction = _scene_system(system, scene, friction, args.verbosity)
    if not isinstance(system, cm.System):
        raise ModelFileError(
            f"draw needs a contactmodel.System from '{args.model}' (got a formulated Problem)"
        )
    if args.solver is None:
        draw(system, friction=friction, view=args.view, out=out, title=Path(args.model).name)
        if args.verbosity != QUIET:
            print(f"wrote {out}")
        return EXIT_SOLVED
    problem = cm.formulate(system, friction=friction, form=args.form)
    solution = cm.solve(problem, solver=args.solver)
    title = f"{Path(args.model).name}: {solution.solver}, {solution.status.value}"
    draw(problem, solution, view=args.view, out=out, title=title)
    if args.verbosity != QUIET:
        print(f"wrote {out}")
    return EXIT_SOLVED if solution.ok else EXIT_NOT_SOLVED


def _experiment(args: argparse.Namespace) -> int:
    import time

    from contactmodel.experiments import seeds

    out = Path(args.out)
    if args.name == "profile":
        store = Path(args.store) if args.store else out / seeds.STORE
        if not store.is_file():
            raise ContactModelError(f"no run store at '{store}'; give --store FILE or the --out of a run")
        out.mkdir(parents=True, exist_ok=True)
        seeds.profile_from_store(store, out / "profile.png")
        if args.verbosity != QUIET:
            print(f"wrote {out / 'profile.png'}")
        return EXIT_SOLVED
    experiment = seeds.resolve(args.name)
    started = time.time()

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    quiet = args.verbosity == QUIET
    summary = seeds.run_experiment(
        experiment.name,
        out,
        args.workers,
        args.scheduler,
        time_limit=args.time_limit,
        limit=args.limit,
        progress=not quiet,
        log=None if quiet else log,
    )
    if not quiet:
        print(seeds.table(experiment.name, summary))
        written = [out / seeds.STORE] + sorted(
            p for p in out.iterdir() if p.suffix in (".json", ".csv", ".png") and p.stat().st_mtime >= started
        )
        print("\nwrote " + "\n      ".join(str(p) for p in written))
    return EXIT_SOLVED


def _solvers() -> int:
    from contactmodel import solvers

    width = max(len(name) for name in solvers.REGISTRY) + 2
    for name, info in solvers.REGISTRY.items():
        ok, why = info.available()
        flag = "yes" if ok else "no"
        reason = "" if ok else f"[{why}]  "
        print(f"{name:<{width}}{flag:<5}{reason}{info.description}")
    return EXIT_SOLVED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, subparsers = _parser(_command_of(argv))
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # reported by the command's own parser, with the command's usage
            subparsers[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:
        if exc.code is None:
            return EXIT_SOLVED
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        code = _dispatch(args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        # the reader (e.g. `head`) has gone: stop quietly; point stdout at /dev/null so that the
        # interpreter's final flush does not raise again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE
    except ContactModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if getattr(args, "json", False):  # a reader of --json output gets the error as JSON too
            print(json.dumps({"status": "error", "error": type(exc).__name__, "message": str(exc)}))
        return EXIT_USAGE


def _cli_compare():
    from contactmodel import cli_compare

    return cli_compare


def _cli_simulate():
    from contactmodel import cli_simulate

    return cli_simulate


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "simulate":
        return _cli_simulate().run(args)
    if args.command == "compare":
        return _cli_compare().run(args)
    if args.command == "solvers":
        return _solvers()
    if args.command == "experiment":
        return _experiment(args)
    if args.command == "draw":
        return _draw(args)
    return _solve(args)


if __name__ == "__main__":
    sys.exit(main())
