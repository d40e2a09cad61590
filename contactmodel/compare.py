"""Compare solvers on your own problems: ``cm.compare(problems, solvers)``.

Every (problem, solver variant) pair is one run of the resumable experiment store
(:mod:`contactmodel.experiments.runner`): run in this process (``workers=0``, the default), in a
forked pool (``workers=N``) or on Dask (``scheduler=``), each finished run committed at once, so
a comparison given a ``store`` file resumes where it stopped. ``cm.decide`` runs once per problem
and gives its verdict (unique, multiple, solved with uniqueness open, no solution, undecided); it
is a column of the table, not a solver of the profiles.

Agreement. Answers are compared by what ``cm.decide`` proves unique: the contact forces of a
contact problem, x of a bare MCP. Each solved run's ``distance`` is
``||f - f_ref||_inf / max(1, ||f_ref||_inf)`` to a reference answer (decide's solution, else the
first solved run's); ``agree`` (distance <= ``agree_tol``) is stated only where decide proved the
answer unique: elsewhere two correct answers may differ (statically indeterminate forces).
"""

from __future__ import annotations

import csv
import json
import math
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from contactmodel.constants import TOL
from contactmodel.errors import ContactModelError, OptionError
from contactmodel.experiments import reports, sources
from contactmodel.experiments.runner import DECIDE, Store, Task, run, unpack

#: statuses of a run counted as solved (the dispatcher's; see ``cm.Status``)
SOLVED = ("solved", "solved-inaccurate")
#: how tables abbreviate run statuses and decide's verdicts
STATUS_CODES = {
    "solved": "S",
    "solved-inaccurate": "S~",
    "failed": "F",
    "iteration-limit": "IL",
    "time-limit": "TL",
    "infeasible-certified": "INF",
    "error": "ERR",
    "unsupported": "N/A",
}
VERDICT_CODES = {
    "unique": "uniq",
    "multiple": "mult",
    "solved": "open",
    "no-solution": "none",
    "no-solution-below-bound": "none<N",
    "undecided": "?",
    "time-limit": "TL",
    "error": "ERR",
    "unsupported": "N/A",
}
#: the table's columns: (record key, header)
COLUMNS = (
    ("problem", "problem"),
    ("solver", "solver"),
    ("status", "st"),
    ("residual", "residual"),
    ("law_residual", "law res"),
    ("iterations", "iter"),
    ("seconds", "seconds"),
    ("verdict", "verdict"),
    ("agreement", "agree"),
)
#: messages of runs the solver or reader refuses (an LCP-only solver on a cone problem, a 2D file)
_UNSUPPORTED = ("SolverError", "UnsupportedProblemError")


class CompareError(ContactModelError):
    """A comparison cannot run as asked (no problems, no solvers, repeated labels, every run failed)."""


@dataclass(frozen=True)
class Variant:
    """A solver with options, under its ``label`` in tables and profiles."""

    label: str
    solver: str
    settings: dict = field(default_factory=dict)


def variants(solvers: Any) -> list[Variant]:
    """The solver variants of ``solvers``: names (``"newton"``), pairs (``("newton", {"tol": 1e-10})``,
    labelled ``newton(tol=1e-10)``), triples (``("tight", "newton", {...})``) or a mapping label ->
    name or (name, options)."""
    from contactmodel import solvers as registry

    if isinstance(solvers, str) or isinstance(solvers, Variant):
        solvers = [solvers]
    items = list(solvers.items()) if isinstance(solvers, dict) else list(solvers)
    out = []
    for item in items:
        if isinstance(item, Variant):
            out.append(item)
            continue
        if isinstance(solvers, dict):
            label, spec = item
            name, settings = (spec, {}) if isinstance(spec, str) else spec
        elif isinstance(item, str):
            label, name, settings = item, item, {}
        elif len(item) == 2:
            name, settings = item
            label = name + "(" + ",".join(f"{k}={v}" for k, v in sorted(settings.items())) + ")"
        elif len(item) == 3:
            label, name, settings = item
        else:
            raise OptionError(
                f"compare: solver {item!r} is not a name, (name, options) or (label, name, options)"
            )
        registry.get(name)  # an unknown name fails here, with the closest match
        out.append(Variant(str(label), name, dict(settings)))
    labels = [v.label for v in out]
    if not out:
        raise CompareError("compare: give at least one solver, e.g. solvers=['newton', 'lemke']")
    if len(set(labels)) < len(labels):
        raise CompareError(f"compare: solver labels {labels} repeat; label each variant differently")
    return out


def compare(
    problems: Any,
    solvers: Any = ("newton",),
    *,
    friction: str | Sequence[str] = "model",
    decide: bool = True,
    decide_time_limit: float = 60.0,
    time_limit: float | None = 60.0,
    accept_tol: float = TOL,
    agree_tol: float = 1e-6,
    store: str | os.PathLike | None = None,
    workers: int = 0,
    scheduler: Any = None,
    experiment: str = "compare",
    progress: bool = False,
) -> Comparison:
    """Run every solver variant on every problem (and ``cm.decide`` once per problem) and return
    the :class:`Comparison`.

    ``problems``: see :func:`contactmodel.experiments.sources.sources` (Problems, MCPs, model files,
    FCLIB/Siconos files, folders, ``"catalogue"``); ``solvers``: see :func:`variants`;
    ``friction``: ``"model"`` or friction specs (one or a list: each problem is run under each; a
    spec without MU takes the problem's own mu, see :func:`~contactmodel.experiments.sources.law_for`);
    ``time_limit`` (s) per run, ``decide_time_limit`` (s) per decide run (its MILPs get 40 %);
    ``accept_tol`` the relative residual accepted as solved; ``agree_tol`` the relative distance
    within which two answers agree; ``store`` an SQLite file to keep (and resume) the runs in (by
    default a temporary one); ``workers`` 0 runs in this process, N in a forked pool of N;
    ``scheduler`` a Dask scheduler address or client (Problems given as objects cannot go there).
    """
    found = sources.sources(problems)
    if not found:
        raise CompareError("compare: no problems given")
    chosen = variants(solvers)
    frictions = [friction] if isinstance(friction, str) else list(friction)
    settings_extra = {} if accept_tol == TOL else {"accept_tol": float(accept_tol)}
    tasks: list[Task] = []
    names: dict[str, str] = {}
    for source in found:
        for law in frictions:
            names[_key(source.instance, law)] = (
                source.name if len(frictions) == 1 else f"{source.name} [{law}]"
            )
            for v in chosen:
                settings = {**settings_extra, **v.settings}
                tasks.append(Task(source.instance, v.solver, law, settings, time_limit, experiment, v.label))
            if decide:
                options = {"time_limit": 0.4 * decide_time_limit, "tol": float(accept_tol)}
                tasks.append(
                    Task(source.instance, DECIDE, law, options, decide_time_limit, experiment, DECIDE)
                )
    if scheduler is not None and any(s.instance["family"] == "memory" for s in found):
        raise CompareError(
            "compare: Problems given as objects cannot be sent to Dask workers; give them as model files, "
            "or run with workers=N (a forked pool) instead"
        )
    if scheduler is None:
        warm_up([v.solver for v in chosen])
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(store) if store is not None else Path(scratch) / "compare.sqlite"
        run(tasks, path, workers=workers, scheduler=scheduler, progress=progress, description=experiment)
        keys = {t.key for t in tasks}
        with Store(path) as db:
            rows = [r for r in db.rows() if r["key"] in keys]
    order = {t.key: k for k, t in enumerate(tasks)}
    rows.sort(key=lambda r: order[r["key"]])
    for row in rows:  # a run stored under another label (the label is not part of its key)
        row["label"] = tasks[order[row["key"]]].label or row["solver"]
    return Comparison.from_rows(rows, names, agree_tol)


def _key(instance: dict, friction: str) -> str:
    return json.dumps([instance, friction], sort_keys=True)


def _status(row: dict) -> str:
    if row["status"] == "error" and str(row.get("message", "")).startswith(_UNSUPPORTED):
        return "unsupported"
    return str(row["status"])


def _answer(row: dict | None) -> np.ndarray | None:
    text = ((row or {}).get("extras") or {}).get("answer")
    return unpack(text) if text else None


@dataclass
class Comparison:
    """The result of :func:`compare`.

    ``records``: one dict per (problem, solver variant) with problem, friction, solver (the label),
    status, residual (relative natural-map residual of the MCP), law_residual (the friction laws',
    relative), iterations, seconds (the solve), size (MCP rows), verdict (decide's, per problem),
    distance (to the reference answer), agree (True/False where the verdict is unique, else None),
    message. ``rows``: the store's rows the records come from (decide's included).
    """

    records: list[dict]
    rows: list[dict]
    verdicts: dict[str, str | None]
    agree_tol: float

    @classmethod
    def from_rows(
        cls, rows: Sequence[dict], names: dict[str, str] | None = None, agree_tol: float = 1e-6
    ) -> Comparison:
        """The comparison of stored runs (:meth:`Store.rows`); ``names`` maps a problem's key
        (instance and friction) to its name in tables (default: the instance's own name or path)."""
        names = names or {}
        problems: dict[str, list[dict]] = {}
        for row in rows:
            problems.setdefault(_key(row["instance"], row["friction"]), []).append(row)
        records: list[dict] = []
        verdicts: dict[str, str | None] = {}
        for key, group in problems.items():
            name = names.get(key) or _default_name(group[0])
            decided = next((r for r in group if r["solver"] == DECIDE), None)
            verdict = None if decided is None else _status(decided)
            verdicts[name] = verdict
            runs = [r for r in group if r["solver"] != DECIDE]
            answers = {r["label"]: _answer(r) for r in runs if r["status"] in SOLVED}
            reference = _answer(decided)
            if reference is None:
                reference = next((a for a in answers.values() if a is not None), None)
            for r in runs:
                answer = answers.get(r["label"])
                distance = None
                if answer is not None and reference is not None and answer.shape == reference.shape:
                    scale = max(1.0, float(np.max(np.abs(reference), initial=0.0)))
                    distance = float(np.max(np.abs(answer - reference), initial=0.0)) / scale
                checks = ((r.get("solution") or {}).get("checks")) or {}
                records.append(
                    {
                        "problem": name,
                        "friction": r["friction"],
                        "solver": r["label"],
                        "status": _status(r),
                        "residual": r["residual"],
                        "law_residual": checks.get("law_residual"),
                        "iterations": r["iterations"],
                        "seconds": r["seconds"],
                        "size": r["size"],
                        "verdict": verdict,
                        "distance": distance,
                        "agree": (distance <= agree_tol)
                        if verdict == "unique" and distance is not None
                        else None,
                        "message": r["message"],
                    }
                )
        return cls(records, list(rows), verdicts, agree_tol)

    # -- summaries ------------------------------------------------------------------------------

    @property
    def solvers(self) -> list[str]:
        return list(dict.fromkeys(r["solver"] for r in self.records))

    @property
    def problems(self) -> list[str]:
        return list(dict.fromkeys(r["problem"] for r in self.records))

    def summary(self) -> list[dict]:
        """Per solver: problems, solved, disagreements where the answer is unique, median seconds
        of the solved runs."""
        out = []
        for label in self.solvers:
            mine = [r for r in self.records if r["solver"] == label]
            solved = [r for r in mine if r["status"] in SOLVED]
            times = [r["seconds"] for r in solved if r["seconds"] is not None]
            out.append(
                {
                    "solver": label,
                    "problems": len(mine),
                    "solved": len(solved),
                    "disagree": sum(r["agree"] is False for r in mine),
                    "median_seconds": float(np.median(times)) if times else None,
                }
            )
        return out

    # -- tables ----------------------------------------------------------------------------------

    def cells(self, width: int = 100, separator: int = 2) -> tuple[list[str], list[list[str]]]:
        """(header, rows) of the table as text cells, problem and solver names shortened so that
        the table is at most ``width`` characters wide with ``separator`` between columns."""
        header = [h for _, h in COLUMNS]
        body = [[_cell(key, r) for key, _ in COLUMNS] for r in self.records]
        widths = [max(len(row[k]) for row in [header, *body]) for k in range(len(header))]
        excess = sum(widths) + separator * (len(widths) - 1) - width
        for k in (0, 1):  # the names give way, the problem's first
            if excess <= 0:
                break
            cut = min(excess, widths[k] - 10)
            if cut > 0:
                widths[k] -= cut
                excess -= cut
        for row in body:
            for k in (0, 1):
                row[k] = _shorten(row[k], widths[k])
        return header, body

    def table(self, width: int = 100) -> str:
        """An aligned text table at most ``width`` characters wide, with a legend of the codes."""
        header, body = self.cells(width)
        widths = [max(len(row[k]) for row in [header, *body]) for k in range(len(header))]
        numeric = {3, 4, 5, 6}
        lines = []
        for row in [header, *body]:
            lines.append(
                "  ".join(
                    c.rjust(w) if k in numeric else c.ljust(w) for k, (c, w) in enumerate(zip(row, widths))
                ).rstrip()
            )
        lines.insert(1, "  ".join("-" * w for w in widths))
        return "\n".join(lines + ["", *self.legend(width)])

    def legend(self, width: int = 100) -> list[str]:
        """What the codes of the tables stand for, wrapped at ``width``."""
        import textwrap

        statuses = ", ".join(f"{code} {name}" for name, code in STATUS_CODES.items())
        verdicts = ", ".join(f"{code} {name}" for name, code in VERDICT_CODES.items())
        text = (
            f"st: {statuses}. verdict (cm.decide): {verdicts}; open: solved, uniqueness not decided. "
            f"agree: yes/no within {self.agree_tol:g} (relative, forces) where the verdict is unique; "
            "(d): the distance d to the reference answer where it is not; -: no solved answer."
        )
        return textwrap.wrap(text, width)

    def to_markdown(self, width: int = 100) -> str:
        """A Markdown table (names shortened to fit ``width``), then the legend."""
        header, body = self.cells(width - 4, separator=3)  # "| " and " |" at the ends
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines + ["", *self.legend(width)])

    def to_latex(self) -> str:
        """A LaTeX ``tabular`` (booktabs rules) of the table."""
        header, body = self.cells(width=10_000)
        spec = "ll" + "l" + "r" * 4 + "ll"

        def tex(text: str) -> str:
            for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"), ("#", r"\#")):
                text = text.replace(a, b)
            return text.replace("~", r"\textasciitilde{}")

        lines = [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", " & ".join(tex(h) for h in header) + r" \\"]
        lines.append("\\midrule")
        lines += [" & ".join(tex(c) for c in row) + r" \\" for row in body]
        lines += ["\\bottomrule", "\\end{tabular}"]
        return "\n".join(lines)

    def to_csv(self, path: str | os.PathLike) -> Path:
        """Every record, full names and numbers, as CSV."""
        path = Path(path)
        keys = list(self.records[0]) if self.records else [k for k, _ in COLUMNS]
        with path.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=keys)
            writer.writeheader()
            writer.writerows(self.records)
        return path

    def to_pandas(self):
        """The records as a pandas DataFrame (needs pandas: ``pip install pandas``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ContactModelError("to_pandas needs pandas: pip install pandas (or use .records)") from None
        return pd.DataFrame.from_records(self.records)

    # -- figures ---------------------------------------------------------------------------------

    def performance_profile(self, path: str | os.PathLike, metric: str = "seconds", title: str = "") -> dict:
        """A Dolan-More performance profile PNG of the solvers (decide left out); see
        :func:`contactmodel.experiments.reports.performance_profile`."""
        return reports.performance_profile(self.rows, Path(path), metric=metric, title=title)

    def data_profile(self, path: str | os.PathLike, metric: str = "seconds", title: str = "") -> dict:
        """A data profile PNG of the solvers (decide left out); see
        :func:`contactmodel.experiments.reports.data_profile`."""
        return reports.data_profile(self.rows, Path(path), metric=metric, title=title)

    def write(self, folder: str | os.PathLike, prefix: str = "compare") -> list[Path]:
        """``PREFIX.csv``, ``.md``, ``.tex``, ``PREFIX_profile.png`` and ``PREFIX_data_profile.png``
        in ``folder``; returns the paths."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        written = [self.to_csv(folder / f"{prefix}.csv")]
        for suffix, text in ((".md", self.to_markdown()), (".tex", self.to_latex())):
            (folder / f"{prefix}{suffix}").write_text(text + "\n")
            written.append(folder / f"{prefix}{suffix}")
        self.performance_profile(folder / f"{prefix}_profile.png")
        self.data_profile(folder / f"{prefix}_data_profile.png")
        return written + [folder / f"{prefix}_profile.png", folder / f"{prefix}_data_profile.png"]


def _agree(verdict: str | None, distance: float | None, tol: float) -> bool | None:
    """Whether an answer agrees with the reference: stated only where the answer is proven unique."""
    return distance <= tol if verdict == "unique" and distance is not None else None


def warm_up(names: Sequence[str]) -> None:
    """One tiny solve per solver (``names``) in this process before runs are forked from it, so that the
    runs' seconds leave out what only a process's first solve pays (numba's compiled kernels
    loaded, 0.3-1 s)."""
    import contactmodel as cm

    for law in (cm.Pyramid(0.5), cm.CoulombCone(0.5)):
        problem = cm.formulate_from_matrices(np.eye(3), np.array([-1.0, 0.2, 0.0]), friction=law)
        for name in dict.fromkeys(names):
            try:
                cm.solve(problem, solver=name)
            except ContactModelError:  # not installed, or not for this law: its runs will say so
                pass


def _default_name(row: dict) -> str:
    """A name for a stored problem: its name, case or file, else ``family(key=value,...)``, with
    its friction law when not the model's."""
    instance = row["instance"]
    law = "" if row["friction"] == sources.MODEL else f" [{row['friction']}]"
    for key in ("name", "case", "path"):
        if key in instance:
            return (Path(str(instance[key])).name if key == "path" else str(instance[key])) + law
    rest = ",".join(f"{k}={v}" for k, v in sorted(instance.items()) if k != "family")
    return f"{instance.get('family', '')}({rest}){law}"


def _number(value: float | None, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:.{digits}e}"


def _cell(key: str, record: dict) -> str:
    value = record.get(key)
    if key == "status":
        return STATUS_CODES.get(value, value)
    if key == "verdict":
        return "-" if value is None else VERDICT_CODES.get(value, value)
    if key in ("residual", "law_residual"):
        return _number(value)
    if key == "iterations":
        return "-" if value is None else str(value)
    if key == "seconds":
        return "-" if value is None else f"{value:.3g}"
    if key == "agreement":
        if record["agree"] is not None:
            return "yes" if record["agree"] else f"no {record['distance']:.0e}"
        return "-" if record["distance"] is None else f"({record['distance']:.0e})"
    return str(value)


def _shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: its start and end around an ellipsis."""
    if len(text) <= width:
        return text
    tail = (width - 1) // 2
    return text[: width - 1 - tail] + "…" + text[len(text) - tail :]
