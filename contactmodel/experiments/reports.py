"""Tables and figures from stored runs: the papers' tables beside ours, heat maps, profiles.

Every function takes the rows of :meth:`runner.Store.rows` (plain dicts). A run counts as
solved when its status is ``solved`` or ``solved-inaccurate`` (relative natural-map residual
at most 1e-5; ``strict`` counts only ``solved``, at most 1e-8).

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from contactmodel.experiments.runner import DECIDE

OK = ("solved", "solved-inaccurate", "unique", "multiple")  # the last two: cm.decide verdicts

#: Trinkle et al. (1997) Table 1: size -> (# data sets, Lemke frac, restarts, iter, FIP frac, FIP iter)
PAPER_TABLE1: dict[int, tuple] = {
    2: (20, 1.00, 1.0, 2.0, 0.50, 8.4),
    10: (60, 0.92, 1.3, 8.9, 0.35, 10.4),
    16: (10, 1.00, 1.4, 20.0, 1.00, 17.2),
    30: (26, 0.62, 1.7, 44.1, 0.42, 19.6),
    50: (20, 0.35, 2.0, 107.4, 0.30, 61.1),
    90: (23, 0.00, None, None, 0.35, 30.4),
    120: (10, 0.10, 1.0, "< 100", 0.70, "< 300"),
    150: (6, 0.00, None, None, 0.50, 46.3),
    170: (10, 0.00, None, None, 0.00, None),
}

#: Andreani et al. (2002) §4: (family, friction) -> what the paper reports
PAPER_SCARA: dict[tuple[str, str], dict[str, Any]] = {
    ("sliding", "cone"): {"formulation": "LCPOpt (all sliding, LCP of size 2)", "solved": 200},
    ("rolling", "cone"): {
        "formulation": "MNCPOpt (all rolling, Coulomb cone)",
        "solved": 183,
        "cpu_min": 0.0,
        "cpu_avg": 0.200,
        "cpu_max": 8.740,
        "outer_iterations": 57.3,
        "colinear_cp1": 122,
        "colinear_cp2": 128,
    },
    ("rolling", "pyramid"): {
        "formulation": "LCPOpt (all rolling, friction pyramid)",
        "solved": 194,
        "cpu_min": 0.0,
        "cpu_avg": 0.030,
        "cpu_max": 0.170,
        "outer_iterations": 7.5,
        "colinear_cp1": 97,
        "colinear_cp2": 153,
        "outside_cone_cp1": 106,
        "outside_cone_cp2": 53,
    },
}
PAPER_TRANSITIONS = {"both_solved": 178, "agree_cp1": 0.98, "agree_cp2": 0.96}


def ok(row: dict) -> bool:
    return row["status"] in OK


def _mean(values: Iterable[float]) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _r(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(float(value), digits)


def _by(rows: Iterable[dict], *fields: str) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        groups[tuple(_field(row, f) for f in fields)].append(row)
    return groups


def _field(row: dict, name: str):
    if name.startswith("instance."):
        return row["instance"].get(name.split(".", 1)[1])
    return row[name]


def _problem_id(row: dict) -> str:
    return json.dumps([row["instance"], row["friction"]], sort_keys=True)


def table1(rows: Sequence[dict]) -> list[dict]:
    """Trinkle et al. (1997) Table 1 per size: our fraction solved, Lemke starts, iterations, the
    paper's beside."""
    labels = sorted({r["label"] for r in rows})
    solved_by_any = {_problem_id(r) for r in rows if ok(r)}
    out = []
    sizes = sorted({r["instance"]["size"] for r in rows})
    groups = _by(rows, "instance.size", "label")
    for size in sizes + ["all"]:
        entry: dict[str, Any] = {"size": size}
        subset = [r for r in rows if size == "all" or r["instance"]["size"] == size]
        ids = {_problem_id(r) for r in subset}
        entry["data_sets"] = len(ids)
        paper = PAPER_TABLE1.get(size) if size != "all" else None
        entry["paper_data_sets"] = paper[0] if paper else (328 if size == "all" else None)
        for label in labels:
            runs = (
                groups.get((size, label), []) if size != "all" else [r for r in rows if r["label"] == label]
            )
            if not runs:
                continue
            good = [r for r in runs if ok(r)]
            key = label.replace("-", "_")
            entry[f"{key}_frac_solved"] = _r(len(good) / len(runs))
            entry[f"{key}_frac_solved_strict"] = _r(sum(r["status"] == "solved" for r in runs) / len(runs))
            if runs[0]["solver"] == "lemke":
                entry[f"{key}_ave_starts"] = _r(_mean(r["extras"].get("starts") for r in good), 2)
                entry[f"{key}_ave_iter"] = _r(_mean(r["extras"].get("pivots") for r in good), 1)
                entry[f"{key}_certified_infeasible"] = sum(
                    r["status"] == "infeasible-certified" for r in runs
                )
            else:
                entry[f"{key}_ave_iter"] = _r(_mean(r["iterations"] for r in good), 1)
            entry[f"{key}_ave_seconds"] = _r(_mean(r["seconds"] for r in good), 4)
        entry["any_frac_solved"] = _r(len(ids & solved_by_any) / len(ids)) if ids else None
        verdicts = [r["status"] for r in subset if r["solver"] == "decide"]
        if verdicts:  # cm.decide per data set: proven unsolvable, bounded and undecided apart
            entry["proven_unsolvable"] = verdicts.count("no-solution")
            # "no solution with ||z||_1 below a proven bound": existence still open
            entry["no_solution_below_bound"] = verdicts.count("no-solution-below-bound")
            entry["undecided"] = sum(
                v not in ("no-solution", "no-solution-below-bound", "solved", "unique", "multiple")
                for v in verdicts
            )
        if paper:
            entry.update(
                paper_lemke_frac_solved=paper[1],
                paper_lemke_ave_restarts=paper[2],
                paper_lemke_ave_iter=paper[3],
                paper_fip_frac_solved=paper[4],
                paper_fip_ave_iter=paper[5],
            )
        elif size == "all":
            entry["paper_any_frac_solved"] = round(229 / 328, 3)
        out.append(entry)
    return out


def _tangential(c: dict) -> tuple[np.ndarray, np.ndarray, float]:
    force, accel = np.asarray(c["force"], float), np.asarray(c["acceleration"], float)
    return force[1:3], accel[1:3], float(force[0])


def colinear(c: dict, tol: float = 1e-6) -> bool:
    """Tangential acceleration directly opposed to the tangential force (Andreani et al. (2002) §4.2.3);
    vacuously true when either is zero (rolling on, or separating with no force)."""
    f, a, _ = _tangential(c)
    na, nf = np.linalg.norm(a), np.linalg.norm(f)
    if na <= tol * max(1.0, nf) or nf <= tol * max(1.0, na):
        return True
    return bool(-(a @ f) / (na * nf) >= 1.0 - tol)


def opposed_componentwise(c: dict, tol: float = 1e-6) -> bool:
    """a_t c_t <= 0 and a_o c_o <= 0: the opposition the friction pyramid enforces."""
    f, a, _ = _tangential(c)
    scale = tol * max(1.0, float(np.linalg.norm(a)), float(np.linalg.norm(f)))
    return bool(np.all(a * f <= scale))


def outside_cone(c: dict, mu: float, tol: float = 1e-6) -> bool:
    f, _, cn = _tangential(c)
    return bool(np.linalg.norm(f) > mu * cn * (1 + tol) + tol)


def _mode(c: dict) -> str:
    mode = c["mode"]
    return "roll" if mode.startswith("roll") else mode


def scara(rows: Sequence[dict]) -> list[dict]:
    """Andreani et al. (2002) §4: solved counts, times, colinearity, pyramid forces outside the cone,
    per variant."""
    from contactmodel.experiments.generators import SCARA_MU

    out = []
    for (sliding, friction, label), runs in sorted(
        _by(rows, "instance.sliding", "friction", "label").items()
    ):
        family = "sliding" if sliding else "rolling"
        good = [r for r in runs if ok(r)]
        times = [r["seconds"] for r in good]
        entry: dict[str, Any] = {
            "family": family,
            "friction": friction,
            "solver": label,
            "data_sets": len(runs),
            "solved": len(good),
            "solved_strict": sum(r["status"] == "solved" for r in runs),
            "cpu_min": _r(min(times), 4) if times else None,
            "cpu_avg": _r(_mean(times), 4),
            "cpu_max": _r(max(times), 4) if times else None,
            "ave_iterations": _r(_mean(r["iterations"] for r in good), 1),
        }
        if family == "rolling":
            for k in (0, 1):
                contacts = [r["solution"]["contacts"][k] for r in good]
                entry[f"colinear_cp{k + 1}"] = sum(colinear(c) for c in contacts)
                entry[f"opposed_componentwise_cp{k + 1}"] = sum(opposed_componentwise(c) for c in contacts)
                for mode in ("roll", "slide", "separate"):
                    entry[f"{mode}_cp{k + 1}"] = sum(_mode(c) == mode for c in contacts)
                if friction == "pyramid":
                    entry[f"outside_cone_cp{k + 1}"] = sum(outside_cone(c, SCARA_MU[k]) for c in contacts)
        paper = PAPER_SCARA.get((family, friction), {})
        if paper and label.startswith("ipopt"):
            entry.update({f"paper_{k}": v for k, v in paper.items()})
            entry["paper_data_sets"] = 200
        out.append(entry)
    out.extend(_transitions(rows))
    return out


def _transitions(rows: Sequence[dict]) -> list[dict]:
    rolling = [r for r in rows if not r["instance"].get("sliding")]
    out = []
    for label in sorted({r["label"] for r in rolling}):
        mine = [r for r in rolling if r["label"] == label]
        cone = {r["instance"]["seed"]: r for r in mine if r["friction"] == "cone"}
        pyr = {r["instance"]["seed"]: r for r in mine if r["friction"] == "pyramid"}
        both = [s for s in cone if s in pyr and ok(cone[s]) and ok(pyr[s])]
        if not both:
            continue
        entry: dict[str, Any] = {"comparison": f"transition agreement, cone vs pyramid, {label}"}
        entry["both_solved"] = len(both)
        for k in (0, 1):
            same = sum(
                _mode(cone[s]["solution"]["contacts"][k]) == _mode(pyr[s]["solution"]["contacts"][k])
                for s in both
            )
            entry[f"agree_cp{k + 1}"] = _r(same / len(both))
        if label == "ipopt":
            entry.update({f"paper_{k}": v for k, v in PAPER_TRANSITIONS.items()})
        out.append(entry)
    return out


def example1(rows: Sequence[dict], out: Path | None = None, prefix: str = "rod-cube") -> list[dict]:
    """Trinkle and Pang 1997, Example 1: per (zeta, solver) counts and the range of |a_t| at contact 2;
    heat maps and grids as ``out/<prefix>_fig3_<zeta>_<solver>.png`` and ``..._grid_....csv``."""
    from contactmodel.experiments.generators import MU_GRID

    summary = []
    groups = _by(rows, "instance.zeta", "label")
    for (zeta, label), runs in sorted(groups.items(), key=lambda kv: (-kv[0][0], kv[0][1])):
        grid = _grid(runs, MU_GRID)
        good = [r for r in runs if ok(r)]
        modes = [_mode(_contact(r, "hump")) for r in good]
        summary.append(
            {
                "zeta": zeta,
                "solver": label,
                "data_sets": len(runs),
                "solved": len(good),
                "paper_solved": 400,
                "paper_data_sets": 400,
                "hump_at_min": _r(np.nanmin(grid), 4) if np.isfinite(grid).any() else None,
                "hump_at_max": _r(np.nanmax(grid), 4) if np.isfinite(grid).any() else None,
                "hump_sliding": sum(m == "slide" for m in modes),
                "largest_sliding_mu2_per_mu1": _thresholds(grid, MU_GRID),
                "ave_iterations": _r(_mean(r["iterations"] for r in good), 1),
                "ave_seconds": _r(_mean(r["seconds"] for r in good), 4),
            }
        )
        if out is not None:
            tag = f"zeta{zeta:g}_{label}".replace(" ", "_")
            heatmap(
                grid,
                MU_GRID,
                out / f"{prefix}_fig3_{tag}.png",
                f"|a_t| at contact 2, zeta = {zeta:g}, {label}",
            )
            np.savetxt(
                out / f"{prefix}_grid_{tag}.csv",
                grid,
                delimiter=",",
                fmt="%.6g",
                header="rows mu1, columns mu2 over " + " ".join(f"{m:g}" for m in MU_GRID),
            )
    return summary


def _thresholds(grid: np.ndarray, mus: Sequence[float], tol: float = 1e-6) -> list[float | None]:
    """For each mu1 row: the largest mu2 at which contact 2 still accelerates tangentially."""
    out: list[float | None] = []
    for row in grid:
        moving = [m for m, v in zip(mus, row) if np.isfinite(v) and v > tol]
        out.append(max(moving) if moving else None)
    return out


def _contact(row: dict, name: str) -> dict:
    return next(c for c in row["solution"]["contacts"] if c["name"] == name)


def _grid(runs: Sequence[dict], mus: Sequence[float]) -> np.ndarray:
    index = {round(m, 6): i for i, m in enumerate(mus)}
    grid = np.full((len(mus), len(mus)), np.nan)
    for r in runs:
        if ok(r):
            a = _contact(r, "hump")["acceleration"]
            i, j = index[round(r["instance"]["mu1"], 6)], index[round(r["instance"]["mu2"], 6)]
            grid[i, j] = math.hypot(a[1], a[2])
    return grid


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def heatmap(grid: np.ndarray, mus: Sequence[float], path: Path, title: str) -> None:
    """|a_t| over (mu1, mu2) as a colour map (mu2 across, mu1 up); unsolved cells blank."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    step = (mus[1] - mus[0]) / 2 if len(mus) > 1 else 0.05
    extent = (mus[0] - step, mus[-1] + step, mus[0] - step, mus[-1] + step)
    image = ax.imshow(grid, origin="lower", extent=extent, cmap="viridis", aspect="auto")
    fig.colorbar(image, ax=ax, label="|a_t| at contact 2 (m/s^2)")
    ax.set_xlabel("mu2 (hump)")
    ax.set_ylabel("mu1 (rod)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def table1_figure(summary: Sequence[dict], path: Path) -> None:
    """Fraction solved per size: ours (every solver) and the paper's Lemke and FIP."""
    plt = _pyplot()
    rows = [r for r in summary if r["size"] != "all"]
    sizes = [r["size"] for r in rows]
    keys = sorted(
        {k for r in rows for k in r if k.endswith("_frac_solved") and not k.startswith(("paper", "any"))}
    )
    fig, ax = plt.subplots(figsize=(7, 4))
    x = np.arange(len(sizes))
    for key in keys:
        ax.plot(x, [r.get(key, np.nan) for r in rows], marker="o", label=f"ours: {key[:-12]}")
    for key, style in (("paper_lemke_frac_solved", "k--"), ("paper_fip_frac_solved", "k:")):
        ax.plot(
            x, [r.get(key, np.nan) for r in rows], style, marker="s", label=key.replace("_frac_solved", "")
        )
    ax.set_xticks(x, [str(s) for s in sizes])
    ax.set_xlabel("LCP size")
    ax.set_ylabel("fraction solved")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=7)
    ax.set_title("Trinkle et al. (1997) Table 1: random multi-box problems, friction pyramid", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def residual_histogram(rows: Sequence[dict], path: Path) -> None:
    """Counts of floor(-log10 residual) per variant (the analogue of Andreani et al. (2002) Figures 3-5)."""
    plt = _pyplot()
    groups = _by([r for r in rows if r["residual"] is not None], "instance.sliding", "friction", "label")
    fig, ax = plt.subplots(figsize=(7, 4))
    bins = np.arange(0, 19)
    for (sliding, friction, label), runs in sorted(groups.items()):
        values = [min(18, math.floor(-math.log10(max(r["residual"], 1e-18)))) for r in runs]
        counts = np.bincount(np.clip(values, 0, 18), minlength=19)
        ax.plot(bins, counts, marker=".", label=f"{'sliding' if sliding else 'rolling'} {friction} {label}")
    ax.set_xlabel("floor(-log10 relative natural residual)")
    ax.set_ylabel("data sets")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def solver_costs(rows: Sequence[dict], metric: str = "seconds") -> dict[str, dict[str, float]]:
    """{problem: {solver label: cost}} of the solver runs among ``rows`` (``cm.decide`` runs, a
    verdict and not a solver, left out): ``metric`` of a solved run (at least 1e-6), infinity for
    any other. A problem is (instance, friction law)."""
    cost: dict[str, dict[str, float]] = defaultdict(dict)
    for r in rows:
        if r["solver"] == DECIDE:
            continue
        value = r.get(metric)
        solved = ok(r) and value is not None
        cost[_problem_id(r)][r["label"]] = max(float(value), 1e-6) if solved else math.inf
    return cost


def performance_profile(
    rows: Sequence[dict], path: Path, metric: str = "seconds", title: str = ""
) -> dict[str, list[float]]:
    """Dolan-More profile of the solver runs among ``rows``: fraction of problems each solver
    solves within tau x the best (E. D. Dolan and J. J. More, "Benchmarking optimization software
    with performance profiles", Math. Programming 91, 2002).

    A problem is (instance, friction law); a run that is not solved has ratio infinity. Problems
    no solver solved are left out; ``cm.decide`` runs are not a solver. Returns {label: fractions
    at tau = 2^0 .. 2^k}.
    """
    plt = _pyplot()
    cost = solver_costs(rows, metric)
    labels = sorted({label for per in cost.values() for label in per})
    ratios: dict[str, list[float]] = {label: [] for label in labels}
    for per in cost.values():
        best = min(per.values())
        if not math.isfinite(best):
            continue
        for label in labels:
            ratios[label].append(per.get(label, math.inf) / best)
    top = max([max([v for v in r if math.isfinite(v)], default=1.0) for r in ratios.values()] + [2.0])
    taus = np.logspace(0, math.log2(top) * 1.05 + 0.1, 200, base=2)
    curves = {}
    fig, ax = plt.subplots(figsize=(6, 4))
    for label in labels:
        r = np.asarray(ratios[label])
        if r.size == 0:
            continue
        frac = [(r <= t).mean() for t in taus]
        ax.step(taus, frac, where="post", label=label)
        curves[label] = [float((r <= 2.0**k).mean()) for k in range(int(math.log2(top)) + 2)]
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"tau ({metric} within tau x the best)")
    _save_profile(fig, ax, path, "fraction of problems", title or f"performance profile ({metric})")
    return curves


def _save_profile(fig, ax, path: Path, ylabel: str, title: str) -> None:
    """A profile's common finish: fractions on y, the legend, the title; written to ``path``."""
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    _pyplot().close(fig)


def data_profile(
    rows: Sequence[dict], path: Path, metric: str = "seconds", title: str = ""
) -> dict[str, list[tuple[float, float]]]:
    """Data profile of the solver runs among ``rows``: the fraction of all problems each solver
    solves within a budget of ``metric`` (seconds or iterations), against the budget (J. J. More
    and S. M. Wild, "Benchmarking derivative-free optimization algorithms", SIAM J. Optim. 20,
    2009, with the budget in the metric's own units). Returns {label: [(budget, fraction), ...]}
    at each budget where the fraction grows."""
    plt = _pyplot()
    cost = solver_costs(rows, metric)
    labels = sorted({label for per in cost.values() for label in per})
    total = len(cost)
    curves: dict[str, list[tuple[float, float]]] = {}
    fig, ax = plt.subplots(figsize=(6, 4))
    for label in labels:
        solved = sorted(per[label] for per in cost.values() if math.isfinite(per.get(label, math.inf)))
        steps = [(float(v), (k + 1) / total) for k, v in enumerate(solved)]
        curves[label] = steps
        if steps:
            xs = [steps[0][0]] + [x for x, _ in steps]
            ys = [0.0] + [y for _, y in steps]
            ax.step(xs, ys, where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlabel(f"budget ({metric})")
    ylabel = f"fraction of the {total} problems solved"
    _save_profile(fig, ax, path, ylabel, title or f"data profile ({metric})")
    return curves


def text_table(rows: Sequence[dict], columns: Sequence[str], width: int = 100) -> str:
    """An aligned text table of summary ``rows`` over ``columns`` (keys of the rows), in blocks of
    columns (each repeating the first) at most ``width`` characters wide. A column whose
    key also appears as ``paper_<key>`` in some row prints ``ours / paper`` (``–`` where a side has
    no number); rows holding none of the columns are left out; numbers right-aligned."""
    with_paper = [c for c in columns if any(f"paper_{c}" in r for r in rows)]
    header = [f"{c} ours / paper" if c in with_paper else c for c in columns]
    body = []
    for row in rows:
        if not any(c in row or f"paper_{c}" in row for c in columns):
            continue
        cells = []
        for c in columns:
            ours = _cell(row.get(c))
            cells.append(f"{ours} / {_cell(row.get(f'paper_{c}'))}" if c in with_paper else ours)
        body.append(cells)
    widths = [max(len(r[k]) for r in [header, *body]) for k in range(len(header))]
    numeric = [all(_numeric(r[k]) for r in body) for k in range(len(header))]
    # the leading columns that name a row (the first, and the text ones after it, up to half the
    # width) start every block; the others fill blocks at most ``width`` wide
    names = [0]
    while (
        len(names) < len(header)
        and not numeric[len(names)]
        and sum(widths[k] + 3 for k in names) + widths[len(names)] <= width // 2
    ):
        names.append(len(names))
    lead = sum(widths[k] + 3 for k in names)
    blocks: list[list[int]] = [[]]
    for k in range(len(names), len(header)):
        if blocks[-1] and lead + sum(widths[j] + 3 for j in blocks[-1]) + widths[k] > width:
            blocks.append([])
        blocks[-1].append(k)
    text = []
    for block in blocks:
        keep = [*names, *block]
        shown = [cells for cells in body if any(cells[k].strip("–/ ") for k in block)]
        lines = []
        for cells in [header, *shown]:
            aligned = [f"{cells[k]:>{widths[k]}}" if numeric[k] else f"{cells[k]:<{widths[k]}}" for k in keep]
            lines.append("   ".join(aligned).rstrip())
        lines.insert(1, "   ".join("-" * widths[k] for k in keep))
        text.append("\n".join(lines))
    return "\n\n".join(text)


def _cell(value: Any) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _numeric(text: str) -> bool:
    return all(
        part.strip().replace(".", "", 1).lstrip("-<> ").isdigit() or part.strip() in ("–", "all")
        for part in text.split("/")
    )


def write_csv(rows: Sequence[dict], path: Path) -> None:
    """``rows`` as CSV: one column per scalar key (first-seen order), lists and dicts left out."""
    import csv

    keys: list[str] = []
    for row in rows:
        keys += [k for k, v in row.items() if k not in keys and not isinstance(v, (list, dict))]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
