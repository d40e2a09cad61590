"""``contactmodel compare PROBLEM... --solvers ...``: :func:`contactmodel.compare` from the command line.

Prints the comparison's table (fitted to ``--width``) and a line per solver; with ``--out DIR``
writes ``compare.csv``, ``.md``, ``.tex`` and the performance and data profiles there. Exit code
0 when every problem was solved by some solver, 1 otherwise; 2 when every run failed (the first
error is printed).
"""

from __future__ import annotations

import argparse
import json
import sys

from contactmodel.errors import ContactModelError


class CompareCommandError(ContactModelError):
    """An argument of ``contactmodel compare`` cannot be used."""


def declare(sub: argparse.ArgumentParser) -> None:
    """Declare the ``compare`` subcommand's arguments on its parser."""
    sub.add_argument(
        "problems",
        nargs="+",
        metavar="PROBLEM",
        help="model files (.py, FILE.py:NAME), FCLIB (.hdf5) or Siconos (.dat) files, folders of them, "
        "'catalogue' or 'catalogue:NAME'",
    )
    sub.add_argument(
        "--solvers",
        nargs="+",
        default=["newton"],
        metavar="SOLVER",
        help="solver variants: NAME, or LABEL=NAME:JSON with the options as a JSON object, e.g. "
        "'tight=newton:{\"tol\": 1e-12}' (default newton)",
    )
    sub.add_argument(
        "--friction",
        nargs="+",
        default=["model"],
        metavar="LAW",
        help="'model' (each problem's own laws) or friction specs; without MU ('pyramid', 'cone::soc') "
        "each contact's own mu (default model)",
    )
    sub.add_argument("--out", metavar="DIR", help="write compare.csv/.md/.tex and the profiles (PNG) here")
    sub.add_argument(
        "--store", metavar="FILE", help="SQLite run store to keep and resume (default: temporary)"
    )
    sub.add_argument(
        "--workers", type=int, default=0, metavar="N", help="forked worker processes (0: inline)"
    )
    sub.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler instead")
    sub.add_argument("--time-limit", type=float, default=60.0, metavar="S", help="per-run limit in s (60)")
    sub.add_argument("--no-decide", action="store_true", help="leave out cm.decide's verdict per problem")
    sub.add_argument(
        "--decide-time-limit",
        type=float,
        default=60.0,
        metavar="S",
        help="per-problem decide limit in s (60)",
    )
    sub.add_argument("--width", type=int, default=100, metavar="COLUMNS", help="table width (default 100)")


def parse_solver(text: str) -> tuple[str, str, dict]:
    """``NAME`` or ``LABEL=NAME:JSON`` -> (label, name, options)."""
    label, sep, rest = text.partition("=")
    if not sep:
        label, rest = "", text
    name, sep, options = rest.partition(":")
    settings = {}
    if sep:
        try:
            settings = json.loads(options)
        except json.JSONDecodeError as exc:
            raise CompareCommandError(
                f"--solvers {text!r}: the options are not a JSON object ({exc})"
            ) from None
        if not isinstance(settings, dict):
            raise CompareCommandError(
                f'--solvers {text!r}: the options must be a JSON object, e.g. {{"tol": 1e-10}}'
            )
    return label or (name if not settings else text), name, settings


def run(args: argparse.Namespace) -> int:
    from contactmodel.compare import CompareError, compare

    quiet = getattr(args, "verbosity", 0) < 0
    comparison = compare(
        args.problems,
        [parse_solver(s) for s in args.solvers],
        friction=args.friction,
        decide=not args.no_decide,
        decide_time_limit=args.decide_time_limit,
        time_limit=args.time_limit,
        store=args.store,
        workers=args.workers,
        scheduler=args.scheduler,
        progress=not quiet,
    )
    records = comparison.records
    if records and all(r["status"] == "error" for r in records):
        raise CompareError(f"every one of the {len(records)} runs failed; the first: {records[0]['message']}")
    if not quiet:
        print(comparison.table(args.width))
        print()
        for entry in comparison.summary():
            median = entry["median_seconds"]
            print(
                f"{entry['solver']}: solved {entry['solved']} / {entry['problems']}, "
                f"{entry['disagree']} disagreeing where unique, median "
                f"{'-' if median is None else f'{median:.3g} s'}"
            )
    if args.out:
        written = comparison.write(args.out)
        if not quiet:
            print("\nwrote " + "\n      ".join(str(p) for p in written))
    solved = {r["problem"] for r in records if r["status"] in ("solved", "solved-inaccurate")}
    sys.stdout.flush()
    return 0 if solved == set(comparison.problems) else 1
