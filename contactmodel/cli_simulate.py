"""``contactmodel simulate MODEL.py``: run :func:`contactmodel.simulate` on a model file.

MODEL.py defines ``build() -> contactmodel.System`` (``MODEL.py:NAME`` calls ``NAME()``) and
optionally ``simulation() -> dict`` of further :func:`~contactmodel.simulate` keywords
(``planes``, ``wrenches``, ``efforts``, ``margin``, ``restitution``, ``friction``, ...).
"""

from __future__ import annotations

import argparse
import runpy
import sys
from pathlib import Path

from contactmodel.errors import ContactModelError
from contactmodel.friction.spec import ACCEPTED, parse_friction
from contactmodel.system import System

#: the files ``--out`` writes, by suffix
OUTPUTS = (".npz", ".h5", ".hdf5", ".csv", ".gif", ".mp4", ".png", ".svg", ".html")


class SimulateCommandError(ContactModelError):
    """MODEL.py or an option of ``contactmodel simulate`` cannot be used."""


def declare(sim: argparse.ArgumentParser) -> None:
    """Declare the ``simulate`` subcommand's arguments on its parser."""
    sim.add_argument(
        "model", metavar="MODEL.py", help="Python file defining build(); MODEL.py:NAME calls NAME()"
    )
    sim.add_argument("--t-end", type=float, default=1.0, metavar="S", help="duration in s (default 1)")
    sim.add_argument("--dt", type=float, default=1e-3, metavar="S", help="step in s (default 1e-3)")
    sim.add_argument("--friction", metavar="LAW", help=f"one law for every contact ({ACCEPTED})")
    sim.add_argument(
        "--contact",
        metavar="SPEC",
        help="compliant:K:C[:MODEL[:VS]] makes every contact compliant (stiffness K, damping C, MODEL linear "
        "or hunt-crossley, friction regularization VS m/s; see cm.Compliant); rigid: rigid contacts",
    )
    sim.add_argument("--solver", default=None, help="solver name (default: the model's, else newton)")
    sim.add_argument(
        "--step-tol",
        type=float,
        default=None,
        metavar="R",
        help="accept a solved-inaccurate step whose residual is at most R (default 1e-6, STEP_TOL in "
        "contactmodel.simulation.stepper; 0 retries every such step in its other statements)",
    )
    sim.add_argument(
        "--out",
        metavar="FILE",
        help="write the run: .npz or .h5 (trajectory), .csv (table), .gif/.mp4 (3D animation), "
        ".png/.svg (energy, forces and modes against time) or .html (interactive 3D replay, needs plotly)",
    )
    sim.add_argument(
        "--fps",
        type=float,
        default=20.0,
        metavar="N",
        help="frames per second of .gif/.mp4/.html (default 20)",
    )
    sim.add_argument(
        "--save-every",
        type=int,
        default=None,
        metavar="N",
        help="with --out FILE.h5 or .npz: write the run every N steps as it goes (default 50), so a "
        "killed run keeps every step up to the last write",
    )
    sim.add_argument(
        "--resume",
        metavar="FILE",
        help="continue the run saved in FILE (.h5 or .npz written with --out) to --t-end; it is "
        "written on to FILE unless --out names another .h5 or .npz file",
    )
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")


def load_scene(target: str) -> tuple[System, dict]:
    """MODEL.py's system and its ``simulation()`` keywords ({} without one)."""
    return _load(target)


def _load(target: str) -> tuple[System, dict]:
    file, sep, func = target.rpartition(":")
    if not (sep and func.isidentifier() and file.endswith(".py")):
        file, func = target, "build"
    path = Path(file)
    if not path.is_file():
        raise SimulateCommandError(f"model file '{file}' not found")
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        namespace = runpy.run_path(str(path), run_name=f"_contactmodel_sim_{path.stem}")
    finally:
        if folder in sys.path:
            sys.path.remove(folder)
    build = namespace.get(func)
    if not callable(build):
        raise SimulateCommandError(f"'{file}' defines no {func}() function returning a contactmodel.System")
    system = build()
    if not isinstance(system, System):
        raise SimulateCommandError(f"{func}() in '{file}' returned {type(system).__name__}; return a System")
    extra = namespace.get("simulation")
    options = dict(extra()) if callable(extra) else {}
    return system, options


def run(args: argparse.Namespace) -> int:
    """Execute the subcommand; 0 when every step was solved, 1 when a step failed."""
    import warnings

    from contactmodel.simulation import simulate

    system, options = _load(args.model)
    if args.friction is not None:
        options["friction"] = parse_friction(args.friction)
    if args.contact is not None:
        from contactmodel.simulation.compliant import parse_contact

        options["contact"] = parse_contact(args.contact)
    if args.solver is not None:
        options["solver"] = args.solver
    if args.step_tol is not None:
        options["step_tol"] = args.step_tol
    out = Path(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in OUTPUTS:
        raise SimulateCommandError(f"--out must end in {', '.join(OUTPUTS)} (got '{out}')")
    if not args.fps > 0:
        raise SimulateCommandError(f"--fps must be positive (got {args.fps})")
    written = out is not None and out.suffix.lower() in (".npz", ".h5", ".hdf5")
    if written:
        options["out"] = out
    if args.save_every is not None:
        if not written:
            raise SimulateCommandError("--save-every needs --out FILE.h5 or FILE.npz")
        options["save_every"] = args.save_every
    if args.resume is not None:
        options["resume"] = args.resume
    bar = None
    if not args.no_progress:
        try:
            from tqdm import tqdm
        except ImportError:
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=int(args.t_end / args.dt + 1e-9), unit="step", file=sys.stderr)
    progress = None if bar is None else (lambda k, n: bar.update(1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        traj = simulate(system, t_end=args.t_end, dt=args.dt, progress=progress, **options)
    if bar is not None:
        bar.close()
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(traj.summary())
    if out is not None:
        suffix = out.suffix.lower()
        if suffix in (".npz", ".h5", ".hdf5"):
            pass  # written by simulate as the run went
        elif suffix == ".csv":
            traj.to_csv(out)
        elif suffix == ".html":
            traj.to_html(out, fps=args.fps)
        elif suffix in (".png", ".svg"):
            from contactmodel.simulation.pictures import plot

            plot(traj, out=out)
        else:
            from contactmodel.simulation.pictures import animate

            animate(traj, out=out, fps=args.fps)
        print(f"wrote {out}")
    return 0 if traj.ok else 1
