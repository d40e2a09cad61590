"""Fuzz benchmark: random valid scenes through the public API, every applicable solver, a table.

Usage:
    python benchmarks/fuzz_run.py --n 10000 --seed 1 [--solvers newton lemke ...] [--max-iter 200]
                                  [--max-boxes 4] [--max-contacts 8] [--jsonl out.jsonl [--resume]]
    python benchmarks/fuzz_run.py --classify out.jsonl [--seed 1] [--solver newton]
    python benchmarks/fuzz_run.py --summary out.jsonl [more.jsonl ...]
    python benchmarks/fuzz_run.py --rerun before.jsonl --jsonl after.jsonl [--torsion ...] --solvers newton
    python benchmarks/fuzz_run.py ... --torsion [--torsion-form auto] [--ellipsoid-form soc]

``--jsonl`` writes one line per run as it goes; ``--resume`` appends to it and skips the
(scene, solver) runs it already holds, so a long run can be stopped (even by kill -9) and
continued, or split into chunks (``--start``, ``--n``) run by separate processes whose files
``--summary`` reads together. ``--classify`` decides each scene a solver did not solve (a
solved-inaccurate answer counts as not solved) and writes ``out.classified.jsonl`` (resumable
too): ``no-solution`` (``cm.decide`` proved it, on the scene's reduced form, which has the same
solutions as the sparse one: exactly for polyhedral laws, through the normal relaxation for round
ones), ``solution-exists`` (``cm.decide`` found one, or another route did: the cone in the other
form, ipopt, newton with ten times the iterations; each answer passes the independent check), or
``undecided``. ``--summary`` then adds that split.

Scene i is drawn by ``tests/fuzz/scenes.py`` from ``numpy.random.default_rng([seed, i])`` (1-4 boxes
on the ground or stacked, 1-8 contacts each, every friction law or a mix, reduced or sparse form,
tilted ground, sliding or resting; ``--torsion`` adds the soft-finger laws on torsion contacts,
which changes the scenes a seed draws). Each applicable solver (LCP-only solvers on LCPs, cone solvers
on second-order-cone contacts, ``enumerate`` up to 12 variables) solves it; the outcome is one of
the named statuses, ``unhandled-exception`` (anything raised, ContactModelError included: these
scenes are valid) or ``solved-but-wrong`` (a solved or solved-inaccurate answer that fails the
independent check of ``scenes.check_answer``: 1e-6 for solved, 1e-2 for solved-inaccurate).
Prints a table by solver, then newton's not-solved counts by law and form.

Work per run is bounded by iteration counts (each solver's ``max_iter``, ``--max-iter`` for
newton and ipopt), not by the wall clock, so an outcome does not depend on the load of the machine
and a rerun of a scene reproduces it; ``--time-limit`` (wall seconds, off by default) exists only
as a guard for interactive use. Each row records ``cpu_seconds`` (process time of the solve).

Measured (newton, seed 1, scenes 0-2999; ``--classify`` then ``--summary``):

=======================================  ===========================  ===========================
                                         before                       after
=======================================  ===========================  ===========================
default scenes: not solved               27 (0.90 %): 12 iteration-   24 (0.80 %): 7 iteration-
                                         limit, 15 failed             limit, 17 failed
  no-solution / solution-exists /        14 / 5 / 8                   14 / 2 / 8
  undecided
  not decided to have no solution        13 (0.43 %)                  10 (0.33 %)
``--max-boxes 6 --torsion``: not solved  216 (7.2 %): 81 solved-       162 (5.4 %): 59 solved-
(not classified)                         inaccurate, 92 iteration-    inaccurate, 57 iteration-
                                         limit, 43 failed             limit, 46 failed
=======================================  ===========================  ===========================

Before: soft-finger laws with mu = 0 stated as a degenerate MNCP; restarts starved by slow earlier
attempts. After: those laws state frictionless rows; each restart gets a share of the iterations
left; a last try as stated with the penalized merit (``contactmodel.solve.NEWTON_LAST_TRY``).
The undecided default scenes are 293 (pyramid, 105 LCP variables: the pattern MILP and the exact
tree stop at the time limit) and 510, 697, 871, 1016, 1435, 2489, 2524 (Coulomb cones: the normal
relaxation has a solution, and no solver finds one of the problem). With ``--torsion``, 69 scenes
were gained and 15 lost (13 of them now solved-inaccurate: ellipsoid contacts at c_n = 0 whose
forces stay ~sqrt of the MCP residual off, met on another path).

Then two more tries of ``cm.solve``'s fallback (``contactmodel.fallback``): a solved-inaccurate
answer with friction at unloaded contacts solved again with them frictionless
(``retry_unloaded``), and newton from the answer of the LCP surrogate (the pyramid of each round
law, Lemke's method; ``lcp_start``). ``--max-boxes 6 --torsion``, scenes 0-999 run again: 54 not
solved (16 solved-inaccurate, 23 iteration-limit, 15 failed) -> 18 (0 / 8 / 10), none solved
before lost. The 162 of scenes 0-2999 run again: 61 not solved (2.0 %; 0 solved-inaccurate, 27
iteration-limit, 34 failed). Of a sample of 36 of the 162 classified before (8 no-solution, 16
solution-exists, 12 undecided), the 16 and 4 of the undecided are now solved. The 61 classified:
24 no-solution, 4 solution-exists (1638, 1790, 1958, 2129), 33 undecided: 37 (1.23 %) not solved
and not decided to have no solution. ``decide`` took 2 s (median) where it proved no solution,
23 s (median; up to 194 s) where it left a scene undecided.

Then two more rungs of the ladder after newton's last try (newton from the LCP surrogate's answer
with the last-try options; from the end of a friction continuation,
``fallback.friction_continuation``), and in ``decide`` the relaxation that keeps every contact's
linear rows exact (``round_laws.linear_rows_relaxation``: a polyhedral law's maximum dissipation
kept, only the nonlinear contacts relaxed). ``--max-boxes 6 --torsion``, seed 1, scenes 0-2999
(before: the tree before these changes, run whole; after: ``--rerun`` of its not-solved scenes,
exact here since the new rungs come after every old one; both classified by ``--classify``):

=======================================  ===========================  ===========================
                                         before                       after
=======================================  ===========================  ===========================
not solved                               61 (2.03 %): 27 iteration-   56 (1.87 %): 23 iteration-
                                         limit, 34 failed             limit, 33 failed
  no-solution / solution-exists /        23 / 5 / 33                  34 / 1 / 21
  undecided
  not decided to have no solution        38 (1.27 %)                  22 (0.73 %)
=======================================  ===========================  ===========================

Gained by the rungs: 1598, 1638, 2129 (the continuation), 1325, 1958 (the LCP surrogate's answer
with the last-try options). Decided by the tighter relaxation (no solution, an exact tree in
exact geometry): 338, 432, 598, 1384, 1417, 1573, 1622, 1649, 2125, 2550, 2659 (mixes, and
EllipticTorsion scenes whose sliding contacts keep the torsional interval's rows). Left: 1790
(ipopt finds a solution; newton from every start tried does not) and 21 undecided: round laws
throughout or relaxations with a solution (newton from up to three of the normal relaxation's
solutions, k = 16 and 6, both forms, solved none of 7 tried; outer 64-gons decided none of 5).
``decide`` took 5 s (median) where it proved no solution, 28 s (median; up to 147 s) where it
left a scene undecided. Commands::

    python benchmarks/fuzz_run.py --n 3000 --seed 1 --solvers newton --max-boxes 6 --torsion --jsonl b.jsonl
    python benchmarks/fuzz_run.py --seed 1 --solvers newton --max-boxes 6 --torsion --rerun b.jsonl \
        --jsonl a.jsonl
    python benchmarks/fuzz_run.py --seed 1 --max-boxes 6 --torsion --classify a.jsonl   # (and b.jsonl)
    python benchmarks/fuzz_run.py --summary a.jsonl

One whole fresh run of every scene afterwards (no ``--rerun``; machine at load 1, 291 s for the
runs, 19 min for ``--classify``): ``--max-boxes 6 --torsion``: 56 not solved (23 iteration-limit,
33 failed), classified 36 no-solution / 1 solution-exists (1790) / 19 undecided, so **20 (0.67 %)
not decided to have no solution**; the default scenes: 21 not solved, 15 / 0 / 6, so **6
(0.20 %)**. (``decide`` stops at wall-clock time limits, so two scenes undecided above were
decided here.) Commands: the first and third above on a whole file, and, for the default scenes,
``--n 3000 --seed 1 --solvers newton --jsonl d.jsonl`` then ``--seed 1 --classify d.jsonl``.

The soft-finger laws' cone-block forms on the same scenes (seed 1, 3000 scenes, ``--max-boxes 6
--torsion --solvers newton``): ``--torsion-form auto`` (EllipticTorsion in its automatic form,
the cone block for newton) 2944 solved as with its MNCP, none wrong, 155 s against 205 s;
``--ellipsoid-form soc`` (``Ellipsoid(form="soc")`` where no cone block of three rows is in the
scene) 2945 solved, none wrong: scene 1790, which no start of newton solved as the MNCP, is
solved; 1865 and 1891 stay unsolved (iteration limit and failure trade places); its 158
Ellipsoid-only scenes 20.4 s of CPU against 24.2.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import sys
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
sys.path.insert(0, str(ROOT))

from scenes import ALL_LAWS, CONE_NAMES, LAWS, LawSpec, NumpyDraw, applicable, check_answer, draw_scene  # noqa: E402

import contactmodel as cm  # noqa: E402
from contactmodel import solvers  # noqa: E402

COLUMNS = (
    "solved",
    "solved-inaccurate",
    "iteration-limit",
    "time-limit",
    "failed",
    "infeasible-certified",
    "unhandled-exception",
    "solved-but-wrong",
)
CHECK_TOL = {cm.Status.SOLVED: 1e-6, cm.Status.SOLVED_INACCURATE: 1e-2}


def law_label(scene) -> str:
    laws = scene.laws
    return next(iter(laws)) if len(laws) == 1 else "mix"


def solver_options(solver: str, max_iter: int | None, time_limit: float | None) -> dict:
    """Options bounding one run of ``solver`` (one whose options have a time limit): iterations
    always, wall time only when asked."""
    if not solvers.get(solver).time_limit:
        return {}
    options: dict = {} if max_iter is None else {"max_iter": max_iter}
    if time_limit is not None:
        options["time_limit"] = time_limit
    return options


def run_one(
    scene, solver: str, time_limit: float | None = None, problem=None, max_iter: int | None = None
) -> dict:
    """One solve of ``scene`` (or of its already formulated ``problem``) and its checked outcome."""
    row = {"solver": solver}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        options = solver_options(solver, max_iter, time_limit)
        sol = cm.solve(problem if problem is not None else scene.problem(), solver=solver, **options)
        row["outcome"] = sol.status.value
        row["iterations"] = sol.iterations
        if sol.status in CHECK_TOL:
            verdict = check_answer(scene, sol, CHECK_TOL[sol.status])
            if not verdict.ok:
                row["outcome"] = "solved-but-wrong"
                row["check"] = f"{verdict.worst}: {verdict.value:.2e}"
        elif not sol.message:
            row["outcome"] = "unhandled-exception"
            row["error"] = f"status {sol.status.value} without a message"
        else:
            row["message"] = sol.message[:200]
    except Exception as err:  # noqa: BLE001 - the point is to count them
        row["outcome"] = "unhandled-exception"
        row["error"] = "".join(traceback.format_exception_only(err)).strip()[:300]
    row["seconds"] = time.perf_counter() - t0
    row["cpu_seconds"] = time.process_time() - c0
    return row


def summarize(rows: list[dict], classes: list[dict] | None = None) -> str:
    by_solver: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for r in rows:
        by_solver[r["solver"]][r["outcome"]] += 1
    width = max(len(c) for c in COLUMNS) + 2
    lines = [f"{'solver':<10}{'runs':>7}" + "".join(f"{c:>{width}}" for c in COLUMNS)]
    for solver, counts in sorted(by_solver.items()):
        total = sum(counts.values())
        lines.append(f"{solver:<10}{total:>7}" + "".join(f"{counts[c]:>{width}}" for c in COLUMNS))
    newton = [r for r in rows if r["solver"] == "newton"]
    if newton:
        lines.append("")
        lines.append(
            "newton by law and form: runs, not solved (solved-inaccurate / iteration-limit / time-limit / "
            "failed / infeasible)"
        )
        groups: dict[tuple, collections.Counter] = collections.defaultdict(collections.Counter)
        for r in newton:
            groups[(r["law"], r["form"])][r["outcome"]] += 1
        for (law, form), counts in sorted(groups.items()):
            total = sum(counts.values())
            bad = total - counts["solved"]
            lines.append(
                f"  {law:<17}{form:<9}{total:>6}{bad:>6}   ({counts['solved-inaccurate']} / "
                f"{counts['iteration-limit']} / "
                f"{counts['time-limit']} / {counts['failed']} / {counts['infeasible-certified']})"
            )
    if newton and classes:
        verdict = {(c["scene"], c["solver"]): c["class"] for c in classes}
        missed = [r for r in newton if r["outcome"] != "solved"]  # solved-inaccurate is not solved
        split = collections.Counter(verdict.get((r["scene"], "newton"), "not classified") for r in missed)
        lines.append("")
        lines.append(
            f"newton not solved: {len(missed)} of {len(newton)} ({100 * len(missed) / len(newton):.2f}%): "
            + ", ".join(f"{k} {v}" for k, v in sorted(split.items()))
        )
        unexplained = len(missed) - split["no-solution"]
        lines.append(
            f"newton not solved and not decided to have no solution: {unexplained} "
            f"({100 * unexplained / len(newton):.2f}%)"
        )
    wrong = [r for r in rows if r["outcome"] in ("solved-but-wrong", "unhandled-exception")]
    for r in wrong[:20]:
        lines.append(f"  scene {r['scene']} {r['solver']}: {r.get('check') or r.get('error')}")
    return "\n".join(lines)


def _read(paths: list[Path]) -> list[dict]:
    rows = []
    for path in paths:
        if path.exists():
            rows.extend(json.loads(line) for line in path.read_text().splitlines() if line.strip())
    return rows


def _scene(args, i: int):
    laws = ALL_LAWS if args.torsion else LAWS
    scene = draw_scene(
        NumpyDraw([args.seed, i]), max_boxes=args.max_boxes, max_contacts=args.max_contacts, laws=laws
    )
    if args.torsion_form == "auto":
        for contact in scene.contacts:
            if contact.law.name == "elliptic-torsion":
                contact.law.form = None
    three_row_blocks = {"cone", "cone-soc"} | ({"elliptic-torsion"} if args.torsion_form == "auto" else set())
    if args.ellipsoid_form == "soc" and not scene.laws & three_row_blocks:
        for contact in scene.contacts:
            if contact.law.name == "ellipsoid":
                contact.law.form = "soc"
    return scene


def _verified(scene, sol) -> bool:
    return sol.status in CHECK_TOL and check_answer(scene, sol, CHECK_TOL[sol.status]).ok


def _with_cone(scene, name: str):
    """A copy of ``scene`` whose Coulomb-cone contacts have the law ``name`` (a form of the cone)."""
    twin = copy.deepcopy(scene)
    for c in twin.contacts:
        if c.law.name in CONE_NAMES:
            c.law = LawSpec(name, c.law.mu)
    return twin


def classify_scene(scene) -> dict:
    """How an unsolved scene stands: ``no-solution`` / ``solution-exists`` / ``undecided``, with
    the evidence (see the module docstring)."""
    reduced = copy.deepcopy(scene)
    reduced.form = "reduced"
    ex = cm.decide(reduced.problem(), uniqueness=False, time_limit=20.0)
    status = ex.status.value
    if status == "no-solution":
        return {"class": "no-solution", "by": f"decide: {ex.evidence.get('certificate', '')[:120]}"}
    if status in ("solved", "unique", "multiple"):
        return {"class": "solution-exists", "by": "decide (a verified solution of the reduced form)"}
    tried = ["decide: " + str(ex.evidence.get("reason", "; ".join(ex.tried)))[:160]]
    routes = []
    if scene.laws & set(CONE_NAMES):
        routes.append(("newton, cone in the MNCP form", _with_cone(scene, "cone-mncp"), "newton", {}))
        routes.append(("newton, cone in the SOC form", _with_cone(scene, "cone-soc"), "newton", {}))
        routes.append(("ipopt, cone in the MNCP form", _with_cone(scene, "cone-mncp"), "ipopt", {}))
    else:
        routes.append(("ipopt", scene, "ipopt", {}))
    routes.append(("newton, max_iter 2000", scene, "newton", {"max_iter": 2000}))
    for label, sc, solver, options in routes:
        try:
            sol = cm.solve(sc.problem(), solver=solver, **options)
        except cm.ContactModelError as err:
            tried.append(f"{label}: {type(err).__name__}")
            continue
        if _verified(sc, sol):
            return {"class": "solution-exists", "by": label}
        tried.append(f"{label}: {sol.status.value}")
    return {"class": "undecided", "by": "; ".join(tried)}


def classify(args) -> int:
    """Classify the not-solved runs of ``args.solver`` in ``args.classify`` (resumable)."""
    out_path = args.classify.with_suffix(".classified.jsonl")
    done = {(r["scene"], r["solver"]) for r in _read([out_path])}
    todo = [
        r
        for r in _read([args.classify])
        if r["solver"] == args.solver
        and r["outcome"] != "solved"  # solved-inaccurate counts as not solved
        and (r["scene"], r["solver"]) not in done
    ]
    with out_path.open("a") as out:
        for r in todo:
            t0 = time.perf_counter()
            try:
                verdict = classify_scene(_scene(args, r["scene"]))
            except Exception as err:  # noqa: BLE001 - reported, not fatal to the run
                verdict = {"class": "undecided", "by": f"classification raised {type(err).__name__}: {err}"}
            row = {"scene": r["scene"], "solver": r["solver"], **verdict, "seconds": time.perf_counter() - t0}
            out.write(json.dumps(row) + "\n")
            out.flush()
    print(f"classified {len(todo)} runs into {out_path}")
    return 0


def _rerun_split(rows: list[dict], solvers: list[str]) -> tuple[list[dict], list[int]]:
    """(the rows kept as they are, the scenes to run again): every scene with a run of one of
    ``solvers`` that did not end solved is run again for all of ``solvers``."""
    again = sorted({r["scene"] for r in rows if r["solver"] in solvers and r["outcome"] != "solved"})
    redo = set(again)
    return [r for r in rows if not (r["scene"] in redo and r["solver"] in solvers)], again


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="number of scenes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first scene index")
    ap.add_argument("--solvers", nargs="+", default=["newton", "lemke", "fip", "enumerate", "ipopt", "scipy"])
    ap.add_argument(
        "--time-limit",
        type=float,
        default=None,
        help="wall seconds per newton/ipopt run (off: load-dependent)",
    )
    ap.add_argument("--max-iter", type=int, default=None, help="newton/ipopt iteration limit (their default)")
    ap.add_argument("--max-boxes", type=int, default=4)
    ap.add_argument("--max-contacts", type=int, default=8)
    ap.add_argument(
        "--torsion",
        action="store_true",
        help="add the soft-finger laws (other scenes)",
    )
    ap.add_argument(
        "--torsion-form",
        choices=("mncp", "auto"),
        default="mncp",
        help="EllipticTorsion's form: its MNCP (as the sets were drawn) or its automatic form (the cone "
        "block for newton); the same scenes",
    )
    ap.add_argument(
        "--ellipsoid-form",
        choices=("mncp", "soc"),
        default="mncp",
        help="Ellipsoid's form: its MNCP (as drawn) or its cone block of four rows, in the scenes without "
        "cone blocks of three rows (a problem's blocks have one size); the same scenes",
    )
    ap.add_argument("--jsonl", type=Path, help="write one JSON line per run")
    ap.add_argument("--resume", action="store_true", help="append to --jsonl, skipping runs it holds")
    ap.add_argument("--summary", type=Path, nargs="+", help="print the table of earlier --jsonl files")
    ap.add_argument("--classify", type=Path, help="classify the not-solved runs of a --jsonl file")
    ap.add_argument("--solver", default="newton", help="the solver whose runs --classify reads")
    ap.add_argument(
        "--rerun",
        type=Path,
        help="run again only the scenes an earlier --jsonl file's runs did not solve (solved-inaccurate "
        "included); --jsonl then gets that file's other rows and the new runs (exact for a change that "
        "only adds retries after the first solve: the scenes solved before keep their answers)",
    )
    args = ap.parse_args(argv)
    if args.summary:
        rows = _read(args.summary)
        classes = _read([p.with_suffix(".classified.jsonl") for p in args.summary])
        print(summarize(rows, classes))
        return 0
    if args.classify:
        return classify(args)
    rows = []
    done = {(r["scene"], r["solver"]) for r in _read([args.jsonl])} if args.jsonl and args.resume else set()
    out = args.jsonl.open("a" if args.resume else "w") if args.jsonl else None
    t0 = time.perf_counter()
    scenes: Iterable[int] = range(args.start, args.start + args.n)
    if args.rerun:
        kept, scenes = _rerun_split(_read([args.rerun]), args.solvers)
        if out:
            for row in kept:
                out.write(json.dumps(row) + "\n")
        print(f"{len(scenes)} scenes of {args.rerun} run again")
    for i in scenes:
        wanted = [s for s in args.solvers if (i, s) not in done]
        if not wanted:
            continue
        scene = _scene(args, i)
        base = {"scene": i, "law": law_label(scene), "form": scene.form, "contacts": len(scene.contacts)}
        problem = None
        try:
            problem = scene.problem()
            names = applicable(problem, wanted)
        except Exception as err:  # noqa: BLE001
            names = []
            rows.append(
                {**base, "solver": "formulate", "outcome": "unhandled-exception", "error": repr(err)[:300]}
            )
        for solver in names:
            rows.append({**base, **run_one(scene, solver, args.time_limit, problem, args.max_iter)})
            if out:
                out.write(json.dumps(rows[-1]) + "\n")
                out.flush()
    print(f"{args.n} scenes, seed {args.seed}, {time.perf_counter() - t0:.0f} s")
    print(summarize(_read([args.jsonl]) if args.jsonl else rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
