"""Cross-solver agreement on random physically meaningful problems, for every friction law.

Usage:
    python benchmarks/agreement.py [--n 200] [--laws pyramid cone ...] [--solvers newton lemke ...]
                                   [--seed 0] [--sizes 1 12] [--slow-n 40] [--enum-max 12]
                                   [--tol 1e-8] [--options 'fip:{"epsilon": 1e-12, "tol": 1e-12}']
                                   [--out FILE.jsonl] [--summarize FILE.jsonl]

Problems. 3D laws: ``random_boxes`` of :mod:`contactmodel.experiments.generators` (Trinkle et al. (1997) §6:
boxes on the ground, stacked or side by side, pushed, rolling or sliding, some spinning), with
the generator's size drawn in ``--sizes`` and mu in {0.1, ..., 1.0}; half of the problems (drawn)
start from rest (velocities zeroed: every contact rolls, the LCP/MNCP branch of each law; their size
is drawn up to a third of the largest, so that some are small enough to enumerate). Problem i
of every 3D law is the same system, re-declared with the law (torsion laws: ``torsion=True``).
Planar: :func:`planar_boxes`, boxes moving in the (x, z) plane (flat on two points, tilted on an
edge, or stacked), contacts with t = x.

Uniqueness is decided, not assumed. When the problem compiles to an LCP (0 <= z _|_ M z + q >= 0)
of size <= ``--enum-max``, every complementary cone pos(B) is examined (B_i = -M_i when z_i is
basic, e_i when w_i is): every solution lies in a cone containing q. A nonsingular B gives one
point; for a singular B, the solutions in it form the polyhedron P = {x >= 0, B x = q}, and a
quantity L z (linear in z) is constant on P iff max r.Lz = min r.Lz over P for a random r (two
LPs; equality for a random r has probability 0 otherwise). So the set of values L z over all
solutions is computed exactly (up to tolerances) for two quantities: the contact forces c (they
fix every acceleration) and the motion (body accelerations nu_dot; a = G nu_dot + G_dot nu). The
verdict per problem is ``forces`` (c unique), ``motion`` (c proven not unique, nu_dot unique),
``multiple`` (two distinct motions proven), ``infeasible`` or ``undecided`` (not an LCP, or too
large to enumerate). Each solver's answer (status SOLVED: dispatcher residual <= 1e-8) is
compared with the unique value: max |ours - unique| / max(1, |unique|) over forces and body
accelerations (``forces``) or body and contact accelerations (``motion``). On ``undecided``
problems answers are compared with newton's, reported apart (agreement there is not a test of
correctness: two verified answers that differ show that the problem has more than one solution).

Output: one JSON line per (problem, solver), then one summary line per (law, solver), then a
table. ipopt and scipy are slow: they get the first ``--slow-n`` problems of each law only.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from scipy.optimize import linprog

import contactmodel as cm
from contactmodel import solvers as registry
from contactmodel.errors import ContactModelError, SolverError
from contactmodel.experiments.generators import MUS, random_boxes
from contactmodel.solvers.base import Status

G = 9.81
SLOW = ("ipopt", "scipy")
#: facet normals of an anisotropic hexagon in (t, o) for PolyhedralLimitSurface (set at mu c_n = 1)
HEXAGON = np.array([[1.0, 0.0], [0.5, 1.1], [-0.5, 1.1], [-1.0, 0.0], [-0.5, -1.1], [0.5, -1.1]])


def _soc(mu: float) -> cm.CoulombCone:
    return cm.CoulombCone(mu, form="soc")


#: law name -> (factory(mu), family, needs torsion)
LAWS: dict[str, tuple[Callable[[float], cm.friction.FrictionLaw], str, bool]] = {
    "frictionless": (lambda mu: cm.Frictionless(), "boxes", False),
    "cone": (lambda mu: cm.CoulombCone(mu), "boxes", False),
    "cone_soc": (_soc, "boxes", False),
    "pyramid": (lambda mu: cm.Pyramid(mu), "boxes", False),
    "polygonal6": (lambda mu: cm.Polygonal(mu, k=6), "boxes", False),
    "ellipsoid": (lambda mu: cm.Ellipsoid(mu, e_t=1.0, e_o=0.7, e_r=0.05), "boxes", True),
    "elliptic_torsion": (lambda mu: cm.EllipticTorsion(mu, e_t=1.0, e_o=0.7, e_r=0.05), "boxes", True),
    "polyhedral": (lambda mu: cm.PolyhedralLimitSurface(HEXAGON, mu), "boxes", False),
    "planar": (lambda mu: cm.Planar(mu), "planar", False),
}


# -- problem families ---------------------------------------------------------------------------
def planar_boxes(seed: int, size: int, mu: float) -> cm.System:
    """Boxes moving in the (x, z) plane: ``size`` (>= 1) ground boxes in a row, each flat on two
    contacts (bottom edges at y = 0) or tilted about y onto one edge, pushed along x with a moment
    about y, rolling or sliding along x; a flat box may carry a flat box (two contacts) sliding or
    rolling on it. Contacts: normal +z, tangent +x, ``Planar(mu)``. Deterministic in the arguments.
    """
    if size < 1:
        raise ValueError(f"size must be >= 1 (got {size})")
    rng = np.random.default_rng([seed, size, 7])
    system = cm.System(gravity=(0.0, 0.0, -G))
    law = cm.Planar(mu)
    count = 0

    def body(name: str, half: np.ndarray, center, rotation, vx: float):
        mass = float(rng.uniform(0.5, 5.0))
        push = float(rng.uniform(-1, 1) * 0.7 * mass * G)
        return system.add_body(
            name,
            mass=mass,
            inertia=cm.inertia.box(mass, tuple(2 * half)),
            position=tuple(center),
            orientation=rotation,
            velocity=(vx, 0.0, 0.0),
            wrench=(push, 0.0, 0.0, 0.0, float(rng.uniform(-1, 1) * 0.5 * mass), 0.0),
        )

    def contact(a, b, x: float, z: float) -> None:
        nonlocal count
        system.add_contact(
            a, b, point=(x, 0.0, z), normal=(0, 0, 1), tangent=(1, 0, 0), friction=law, name=f"c{count}"
        )
        count += 1

    def slip() -> float:
        return 0.0 if rng.random() < 0.5 else float(rng.choice([-1, 1]) * rng.uniform(0.2, 2.0))

    x0 = 0.0
    for i in range(size):
        half = rng.uniform([0.1, 0.1, 0.05], [0.4, 0.4, 0.3])
        x0 += 1.0
        vx = slip()
        if rng.random() < 0.3:
            theta = float(rng.uniform(0.15, 0.5) * rng.choice([-1, 1]))
            c, s = math.cos(theta), math.sin(theta)
            rot = np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
            low = min(
                ((rot @ (np.array([sx, 0, sz]) * half)) for sx in (-1, 1) for sz in (-1, 1)),
                key=lambda p: p[2],
            )
            center = np.array([x0 - low[0], 0.0, -low[2]])
            contact(body(f"box{i}", half, center, rot, vx), system.ground, x0, 0.0)
            continue
        center = np.array([x0, 0.0, half[2]])
        box = body(f"box{i}", half, center, np.eye(3), vx)
        for sx in (-1, 1):
            contact(box, system.ground, x0 + sx * half[0], 0.0)
        if rng.random() < 0.4:
            top_half = np.minimum(rng.uniform([0.1, 0.1, 0.05], [0.4, 0.4, 0.3]), [half[0], half[1], 0.3])
            dx = float(rng.uniform(-1, 1) * (half[0] - top_half[0] + 0.5 * top_half[0]))
            top_center = np.array([x0 + dx, 0.0, 2 * half[2] + top_half[2]])
            top = body(f"box{i}top", top_half, top_center, np.eye(3), vx + slip())
            lo = max(top_center[0] - top_half[0], x0 - half[0])
            hi = min(top_center[0] + top_half[0], x0 + half[0])
            for x in (lo, hi):
                contact(top, box, x, 2 * half[2])
    return system


@dataclass
class Instance:
    law: str
    index: int
    family: str
    size: int
    mu: float
    at_rest: bool
    problem: cm.Problem


def make_instance(law: str, index: int, seed: int, sizes: tuple[int, int]) -> Instance:
    """Problem ``index`` of ``law``: the size and mu are drawn from (seed, index) only, so every 3D
    law sees the same systems."""
    factory, family, torsion = LAWS[law]
    rng = np.random.default_rng([seed, index])
    at_rest = bool(rng.random() < 0.5)
    # from rest every contact rolls (5 pyramid rows instead of 1): fewer contacts keep the LCP small
    size = int(rng.integers(sizes[0], (max(sizes[0], sizes[1] // 3) if at_rest else sizes[1]) + 1))
    mu = float(rng.choice(MUS))
    if family == "planar":
        system = planar_boxes(seed * 100_003 + index, max(1, size // 4), mu)
    else:
        system = random_boxes(seed * 100_003 + index, size, mu)
    if torsion:
        for c in system.contacts:
            c.torsion = True
    if at_rest:  # the same bodies and loads starting from rest: every contact rolls
        for b in system.bodies:
            b.velocity = np.zeros(3)
            b.angular_velocity = np.zeros(3)
    return Instance(law, index, family, size, mu, at_rest, cm.formulate(system, friction=factory(mu)))


# -- uniqueness by complementary cones ----------------------------------------------------------
@dataclass
class Verdict:
    kind: str  # forces | motion | multiple | infeasible | undecided
    reason: str
    forces: np.ndarray | None = None  # the unique c (m,)
    motion: np.ndarray | None = None  # the unique nu_dot (nq,)
    values: dict = field(default_factory=dict)


def _linear_maps(problem: cm.Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(C, L, l0): c = C x (MCP point x), nu_dot = L x + l0."""
    compiled = problem.compile()
    where = {id(v): j for j, v in enumerate(problem.variables)}
    T = problem.T.toarray()
    C = np.zeros((T.shape[0], len(compiled.variables)))
    for i, v in enumerate(compiled.variables):
        j = where.get(id(v))
        if j is not None:
            C[:, i] = T[:, j]
    asm = problem.assembly
    l0 = asm.accelerations(np.zeros(T.shape[0]))
    L = np.column_stack([asm.accelerations(C[:, i]) - l0 for i in range(C.shape[1])]) if C.size else None
    return C, (L if L is not None else np.zeros((l0.size, 0))), l0


def _distinct(values: list[np.ndarray], tol: float) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for v in values:
        if all(np.abs(v - u).max(initial=0.0) > tol * max(1.0, np.abs(u).max(initial=0.0)) for u in out):
            out.append(v)
    return out


def _lp(c: np.ndarray, B: np.ndarray, q: np.ndarray):
    return linprog(c, A_eq=B, b_eq=q, bounds=(0, None), method="highs")


def certify(problem: cm.Problem, enum_max: int, seed: int = 0, tol: float = 1e-9) -> Verdict:
    """Every solution's forces and motion, by complementary cones (see the module docstring)."""
    mcp = problem.compile().mcp
    if not mcp.is_lcp:
        return Verdict("undecided", "not an LCP (nonlinear or free rows)")
    n = mcp.n
    if n > enum_max:
        return Verdict("undecided", f"LCP size {n} > --enum-max {enum_max}")
    C, L, l0 = _linear_maps(problem)
    return certify_lcp(mcp.M.toarray(), np.asarray(mcp.q, dtype=float), C, L, l0, seed, tol)


def certify_lcp(
    M: np.ndarray,
    q: np.ndarray,
    C: np.ndarray,
    L: np.ndarray,
    l0: np.ndarray,
    seed: int = 0,
    tol: float = 1e-9,
) -> Verdict:
    """The values of the forces C z and of the motion L z + l0 over every solution z of the LCP
    (M, q) (size n: 2^n complementary cones); ``tol`` is relative to max(1, |M|, |q|)."""
    n = q.size
    scale = max(1.0, float(np.abs(M).max(initial=0.0)), float(np.abs(q).max(initial=0.0)))
    atol = tol * scale
    rng = np.random.default_rng(seed)
    eye = np.eye(n)
    bits = 1 << np.arange(n)
    ks = np.arange(1 << n)
    S = (ks[:, None] & bits[None, :]) != 0
    B = np.where(S[:, None, :], -M[None, :, :], eye[None, :, :])
    U, s, Vt = np.linalg.svd(B)
    rank = (s > 1e-10 * np.maximum(s[:, :1], 1.0)).sum(axis=1)
    points: list[np.ndarray] = []
    unbounded = {"forces": False, "motion": False}  # a ray of solutions along which the quantity moves
    doubtful = 0  # cones that contain q but whose computed point failed the solution check (rounding)
    r_c = rng.standard_normal(C.shape[0])
    r_m = rng.standard_normal(L.shape[0])

    def is_solution(z: np.ndarray) -> bool:
        w = M @ z + q
        return bool(
            z.min(initial=0) >= -atol
            and w.min(initial=0) >= -atol
            and np.abs(np.minimum(z, w)).max(initial=0) <= atol
        )

    for k in range(1 << n):
        if rank[k] == n:
            x = Vt[k].T @ ((U[k].T @ q) / s[k])
            z = np.where(S[k], x, 0.0)
            if x.min() >= -atol:
                if is_solution(z):
                    points.append(np.maximum(z, 0.0))
                else:
                    doubtful += 1
            continue
        r = rank[k]
        if np.abs(U[k][:, r:].T @ q).max(initial=0.0) > atol:
            continue  # q is not even in the span of this cone
        sel = S[k].astype(float)
        if r == n - 1:  # one null direction: the cone's solutions are a segment or a ray, in closed form
            xp = Vt[k][:r].T @ ((U[k][:, :r].T @ q) / s[k][:r])
            d = Vt[k][r]
            pos, neg, flat = d > 1e-12, d < -1e-12, np.abs(d) <= 1e-12
            if flat.any() and xp[flat].min() < -atol:
                continue
            t_lo = max((-xp[pos] / d[pos]).max(initial=-math.inf), -math.inf)
            t_hi = (-xp[neg] / d[neg]).min(initial=math.inf)
            if t_lo > t_hi + atol:
                continue
            for name, R in (("forces", C), ("motion", L)):
                if (
                    not (math.isfinite(t_lo) and math.isfinite(t_hi))
                    and np.abs(R @ (d * sel)).max(initial=0) > 1e-9
                ):
                    unbounded[name] = True
            for t in (t_lo, t_hi):
                if math.isfinite(t):
                    z = np.where(S[k], xp + t * d, 0.0)
                    if is_solution(z):
                        points.append(np.maximum(z, 0.0))
                    else:
                        doubtful += 1
            continue
        for name, R in (("forces", r_c @ C), ("motion", r_m @ L)):
            obj = R * sel  # r . (map) z, z = x on the basic z-columns
            lo, hi = _lp(obj, B[k], q), _lp(-obj, B[k], q)
            if lo.status == 2:  # infeasible: q is not in this cone
                break
            if lo.status == 3 or hi.status == 3:
                unbounded[name] = True
            for res in (lo, hi):
                if res.status == 0:
                    z = np.where(S[k], res.x, 0.0)
                    if is_solution(z):
                        points.append(np.maximum(z, 0.0))
                    else:
                        doubtful += 1
    if doubtful:
        return Verdict("undecided", f"LCP size {n}: {doubtful} cone point(s) failed the solution check")
    if not points:
        return Verdict("infeasible", "no complementary cone contains q")
    forces = _distinct([C @ z for z in points], 1e-7)
    motion = _distinct([L @ z + l0 for z in points], 1e-7)
    vals = {
        "points": len(points),
        "distinct_forces": len(forces),
        "distinct_motions": len(motion),
        "force_ray": unbounded["forces"],
        "motion_ray": unbounded["motion"],
    }
    if len(forces) == 1 and not unbounded["forces"]:
        return Verdict(
            "forces",
            f"LCP size {n}: one solution c over {len(points)} basic points",
            forces[0],
            L @ points[0] + l0,
            vals,
        )
    if len(motion) == 1 and not unbounded["motion"]:
        return Verdict("motion", f"LCP size {n}: forces not unique, motion unique", None, motion[0], vals)
    return Verdict("multiple", f"LCP size {n}: more than one motion", None, None, vals)


# -- running the solvers ------------------------------------------------------------------------
def quantities(sol, problem: cm.Problem) -> dict[str, np.ndarray]:
    """forces c (m,), body accelerations nu_dot (6 per body), contact accelerations a (m,)."""
    c = np.concatenate([r.force for r in sol.contacts]) if sol.contacts else np.zeros(0)
    a = np.concatenate([r.acceleration for r in sol.contacts]) if sol.contacts else np.zeros(0)
    nu = np.concatenate([np.r_[b.linear_acceleration, b.angular_acceleration] for b in sol.bodies])
    return {"forces": c, "motion": nu, "accel": a}


def reference(verdict: Verdict, problem: cm.Problem) -> dict[str, np.ndarray] | None:
    """The unique values in :func:`quantities`' layout (rows in assembly order, as the solution)."""
    asm = problem.assembly
    order = np.concatenate([list(asm.contact_rows[nm].values()) for nm in problem.contact_names])
    if verdict.kind == "forces":
        c = verdict.forces
        return {
            "forces": c[order],
            "motion": asm.accelerations(c),
            "accel": asm.contact_accelerations(c)[order],
        }
    if verdict.kind == "motion":
        nu = verdict.motion
        a = asm.G @ nu + asm.gdot_nu
        return {"motion": nu, "accel": a[order]}
    return None


def rel_diff(ours: dict[str, np.ndarray], ref: dict[str, np.ndarray]) -> float:
    """max over the shared keys of max|ours - ref| / max(1, max|ref|)."""
    out = 0.0
    for key, r in ref.items():
        if r.size:
            out = max(out, float(np.abs(ours[key] - r).max() / max(1.0, np.abs(r).max())))
    return out


def run_solver(
    problem: cm.Problem, solver: str, enum_max: int, options: dict | None = None
) -> tuple[dict, object]:
    options = {**({"max_n": enum_max} if solver == "enumerate" else {}), **(options or {})}
    t0 = time.perf_counter()
    try:
        sol = cm.solve(problem, solver=solver, **options)
    except SolverError as exc:
        return {"status": "n/a", "detail": str(exc).split(";")[0][:120]}, None
    row = {
        "status": sol.status.value,
        "residual": sol.residual if math.isfinite(sol.residual) else None,
        "iterations": sol.iterations,
        "seconds": round(time.perf_counter() - t0, 4),
    }
    if sol.status is not Status.SOLVED:
        row["detail"] = sol.message[:160]
    return row, sol


def run_instance(inst: Instance, solvers: list[str], args, emit) -> list[dict]:
    t0 = time.perf_counter()
    verdict = certify(inst.problem, args.enum_max, seed=inst.index)
    cert_seconds = time.perf_counter() - t0
    ref = reference(verdict, inst.problem)
    base = {
        "law": inst.law,
        "problem": inst.index,
        "family": inst.family,
        "size": inst.size,
        "mu": inst.mu,
        "at_rest": inst.at_rest,
        "mcp_n": inst.problem.compile().mcp.n,
        "lcp": inst.problem.compile().mcp.is_lcp,
        "uniqueness": verdict.kind,
        "uniqueness_reason": verdict.reason,
        "cert_seconds": round(cert_seconds, 3),
    }
    rows, sols = [], {}
    for solver in solvers:
        if solver in SLOW and inst.index >= args.slow_n:
            continue
        row, sol = run_solver(
            inst.problem, solver, args.enum_max, getattr(args, "solver_options", {}).get(solver)
        )
        if sol is not None and sol.status is Status.SOLVED:
            sols[solver] = quantities(sol, inst.problem)
            if ref is not None:
                row["diff_unique"] = rel_diff(sols[solver], ref)
        rows.append({**base, "solver": solver, **row})
    anchor = sols.get("newton")
    for row in rows:
        if (
            verdict.kind == "undecided"
            and anchor is not None
            and row["solver"] != "newton"
            and row["solver"] in sols
        ):
            # motion only: forces are often indeterminate (several contacts per body)
            row["diff_newton"] = rel_diff(sols[row["solver"]], {k: anchor[k] for k in ("motion", "accel")})
        emit(row)
    return rows


def _reason(diff: float, residual: float | None) -> str:
    """Why a verified answer may differ from the unique solution by ``diff`` (relative)."""
    if residual and diff <= 1e3 * residual:
        return (
            f"accuracy: verified to residual {residual:.1e} (solved means <= 1e-8); the difference is "
            f"{diff / residual:.0f} x the residual"
        )
    return f"unexplained: difference {diff:.1e} with residual {residual}"


def summarize(rows: list[dict], tol: float) -> list[dict]:
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        groups[(r["law"], r["solver"])].append(r)
    out = []
    for (law, solver), rs in groups.items():
        applicable = [r for r in rs if r["status"] != "n/a"]
        compared = [r for r in rs if "diff_unique" in r]
        unc = [r for r in rs if "diff_newton" in r and r["uniqueness"] == "undecided"]
        bad = [r for r in compared if r["diff_unique"] > tol]
        unc_bad = [r for r in unc if r["diff_newton"] > tol]
        kinds = defaultdict(int)
        for r in rs:
            kinds[r["uniqueness"]] += 1
        out.append(
            {
                "summary": True,
                "law": law,
                "solver": solver,
                "problems": len(rs),
                "applicable": len(applicable),
                "solved": sum(r["status"] == "solved" for r in rs),
                "inaccurate": sum(r["status"] == "solved-inaccurate" for r in rs),
                "uniqueness": dict(kinds),
                "compared": len(compared),
                "max_diff": max((r["diff_unique"] for r in compared), default=None),
                "disagree": [
                    {
                        "problem": r["problem"],
                        "uniqueness": r["uniqueness"],
                        "diff": r["diff_unique"],
                        "residual": r["residual"],
                        "reason": _reason(r["diff_unique"], r["residual"]),
                    }
                    for r in bad
                ],
                "uncertified_compared": len(unc),
                "uncertified_max_diff": max((r["diff_newton"] for r in unc), default=None),
                "uncertified_differ": len(unc_bad),
                "uncertified_differences": [
                    {
                        "problem": r["problem"],
                        "diff": r["diff_newton"],
                        "residual": r["residual"],
                        "uniqueness": r["uniqueness"],
                    }
                    for r in unc_bad
                ][:10],
                "not_solved": [
                    {"problem": r["problem"], "status": r["status"], "detail": r.get("detail", "")[:80]}
                    for r in applicable
                    if r["status"] != "solved"
                ][:5],
            }
        )
    return out


LEGEND = """appl: problems the solver accepts (run); solved: status solved (dispatcher residual <= 1e-8);
uniq / mult / inf: of the problems run, those whose forces or motion are proven unique / proven
not unique / proven to have no solution; cmp: solved and unique, compared with the unique value;
max diff, >tol: the largest relative difference and how many exceed --tol; unc cmp, unc max, >tol:
the same against newton's motion on undecided problems (no proof either way)."""


def table(summary: list[dict]) -> str:
    head = (
        f"{'law':<17}{'solver':<10}{'appl':>5}{'solved':>7}{'uniq':>6}{'mult':>5}{'inf':>4}{'cmp':>5}"
        f"{'max diff':>10}{'>tol':>5}{'unc cmp':>8}{'unc max':>10}{'>tol':>5}"
    )
    lines = [head, "-" * len(head)]

    def fmt(v):
        return "-" if v is None else f"{v:.1e}"

    for s in summary:
        kinds = s["uniqueness"]
        uniq = kinds.get("forces", 0) + kinds.get("motion", 0)
        lines.append(
            f"{s['law']:<17}{s['solver']:<10}{s['applicable']:>5}{s['solved']:>7}{uniq:>6}"
            f"{kinds.get('multiple', 0):>5}{kinds.get('infeasible', 0):>4}"
            f"{s['compared']:>5}{fmt(s['max_diff']):>10}{len(s['disagree']):>5}"
            f"{s['uncertified_compared']:>8}{fmt(s['uncertified_max_diff']):>10}{s['uncertified_differ']:>5}"
        )
    return "\n".join(lines + ["", LEGEND])


def available_laws(names: list[str]) -> tuple[list[str], dict[str, str]]:
    """The laws that can be built here (``cone_soc`` needs CoulombCone's ``form`` option)."""
    ok, skipped = [], {}
    for name in names:
        if name not in LAWS:
            raise SystemExit(f"--laws: unknown law {name!r}; choose from {', '.join(LAWS)}")
        try:
            LAWS[name][0](0.5)
        except (TypeError, ContactModelError) as exc:
            skipped[name] = str(exc)
            continue
        ok.append(name)
    return ok, skipped


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200, help="problems per law")
    ap.add_argument("--laws", nargs="+", default=list(LAWS))
    ap.add_argument("--solvers", nargs="+", default=None, help="default: every solver available here")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--sizes",
        type=int,
        nargs=2,
        default=[1, 12],
        help="range of random_boxes' size (its pyramid-LCP size when moving)",
    )
    ap.add_argument("--slow-n", type=int, default=40, help="problems per law for ipopt and scipy")
    ap.add_argument("--enum-max", type=int, default=12, help="largest LCP whose cones are enumerated")
    ap.add_argument("--tol", type=float, default=1e-8, help="agreement tolerance (relative)")
    ap.add_argument(
        "--options",
        action="append",
        default=[],
        metavar="SOLVER:JSON",
        help='solver options, e.g. fip:\'{"epsilon": 1e-12, "tol": 1e-12}\' (repeatable)',
    )
    ap.add_argument("--out", default=None, help="also write the JSON lines to this file")
    ap.add_argument("--summarize", default=None, metavar="FILE.jsonl", help="only summarize an earlier run")
    args = ap.parse_args(argv)
    args.solver_options = {}
    for item in args.options:
        name, _, text = item.partition(":")
        try:
            args.solver_options[name] = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SystemExit(
                f"--options {item!r}: the part after 'SOLVER:' must be a JSON object ({exc})"
            ) from None
    if args.summarize:
        rows = [json.loads(ln) for ln in Path(args.summarize).read_text().splitlines() if ln.strip()]
        print(table(summarize([r for r in rows if "solver" in r and "summary" not in r], args.tol)))
        return

    solvers = args.solvers or [n for n, info in registry.REGISTRY.items() if info.available()[0]]
    laws, skipped = available_laws(args.laws)
    out = open(args.out, "w") if args.out else None  # noqa: SIM115

    def emit(row: dict) -> None:
        line = json.dumps(row, default=float)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    for name, why in skipped.items():
        emit({"law": name, "status": "skipped", "detail": why})
    rows: list[dict] = []
    for law in laws:
        for i in range(args.n):
            inst = make_instance(law, i, args.seed, tuple(args.sizes))
            rows += run_instance(inst, solvers, args, emit)
    summary = summarize(rows, args.tol)
    for s in summary:
        emit(s)
    print(table(summary), file=sys.stderr if out is None else sys.stdout)
    if out:
        out.close()
        Path(args.out).with_suffix(".txt").write_text(table(summary) + "\n")


if __name__ == "__main__":
    main()
