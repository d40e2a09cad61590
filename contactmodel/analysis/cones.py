"""Complementary cones: the external wrenches consistent with a contact-mode assignment.

A sign pattern (one ``"1"``/``"0"`` per complementarity pair; see
:mod:`contactmodel.analysis.modes`) fixes which member of each pair may be positive. With
``q = q_rest + Q w`` (:mod:`contactmodel.analysis.lcp`) the set of wrenches w for which the LCP
has a solution with that pattern is the projection onto w of

    { (w, z_I) : z_I >= 0,  y = M_{:,I} z_I + Q w + q_rest,  y_I = 0,  y_J >= 0 }

(I: pairs whose variable may be positive, J: the others; Berard et al. (2004) (26)-(29)). ``approach`` at a
contact (Berard et al. (2004) Table II, an initially separated contact closing) sets all its variables to
zero, drops its rows and asks a_n <= 0. The set is a polyhedral cone when q_rest = 0 (e.g.
bodies at rest, no G_dot nu, no applied forces outside w; gravity on the chosen body is part
of w), otherwise a polyhedron: both are reported in span form (vertices, rays, lineality) and
face form (F w <= h, E w = e), converted by cddlib (pycddlib). A pattern is *feasible* when some
w gives a solution with every member allowed to be positive strictly positive (Berard et al. (2004) §V-A:
strict complementarity); an infeasible pattern reports an empty set.

References:

- S. Berard, K. Egan and J. C. Trinkle, "Contact modes and complementary cones", ICRA 2004.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import cdd
import numpy as np
from scipy.optimize import linprog

from contactmodel.analysis.lcp import WrenchMap, wrench_map
from contactmodel.analysis.modes import Mode, PatternLabel, pattern_label
from contactmodel.errors import FormulationError
from contactmodel.formulation import Problem

_ZERO = 1e-10
_MARGIN = 1e-7


@dataclass
class ModeCone:
    """Wrenches w consistent with one mode assignment (see module docstring).

    Shapes (d = len(coordinates)): ``rays`` (k, d) unit generators, ``vertices`` (p, d) (only
    the origin, or empty, for a cone), ``lineality`` (l, d); face form ``facets`` (f, d) and
    ``offsets`` (f,) with F w <= h, ``equations`` (e, d) and ``equation_rhs`` (e,) with E w = e.
    ``margin`` is the largest strict-complementarity margin found (> 0 iff feasible).
    """

    assignment: dict[str, str]
    patterns: dict[str, str]
    labels: dict[str, PatternLabel]
    coordinates: list[str]
    feasible: bool
    homogeneous: bool
    margin: float
    rays: np.ndarray
    vertices: np.ndarray
    lineality: np.ndarray
    facets: np.ndarray
    offsets: np.ndarray
    equations: np.ndarray
    equation_rhs: np.ndarray
    witness: np.ndarray | None = None  # a w with a strictly complementary solution

    @property
    def degenerate(self) -> bool:
        return any(lab.degenerate for lab in self.labels.values())

    @property
    def dimension(self) -> int:
        """Dimension of the set (-1 when empty)."""
        if not self.feasible:
            return -1
        parts = [self.rays, self.lineality]
        if len(self.vertices) > 1:
            parts.append(self.vertices[1:] - self.vertices[0])
        stack = np.vstack([p for p in parts if len(p)] or [np.zeros((1, len(self.coordinates)))])
        return int(np.linalg.matrix_rank(stack, tol=1e-9))

    def contains(self, w, tol: float = 1e-9) -> bool:
        """True when w satisfies the face form (within ``tol`` relative to |w|)."""
        if not self.feasible:
            return False
        w = np.asarray(w, dtype=float)
        s = tol * max(1.0, float(np.abs(w).max()))
        ok = bool(np.all(self.facets @ w <= self.offsets + s)) if len(self.facets) else True
        if len(self.equations):
            ok &= bool(np.all(np.abs(self.equations @ w - self.equation_rhs) <= s))
        return ok

    def summary(self) -> str:
        modes = ", ".join(f"{c}: {lab.label}" for c, lab in self.labels.items())
        if not self.feasible:
            return f"[{modes}] infeasible (empty set)"
        kind = "cone" if self.homogeneous else "polyhedron"
        return (
            f"[{modes}] {kind} of dimension {self.dimension} in ({', '.join(self.coordinates)}): "
            f"{len(self.rays)} rays, {len(self.lineality)} lineal, {len(self.vertices)} vertices; "
            f"{len(self.facets)} facets, {len(self.equations)} equations"
            + (" (degenerate mode)" if self.degenerate else "")
        )


def contact_pairs(problem: Problem, wm: WrenchMap | None = None) -> dict[str, list]:
    """contact name -> its pairs (in the order of pattern bits)."""
    wm = wm or wrench_map(problem, space="b")
    out: dict[str, list] = {name: [] for name in problem.contact_names}
    for p in wm.pairs:
        out[p.contact].append(p)
    return out


def contact_patterns(problem: Problem, contact: str) -> list[tuple[str, PatternLabel]]:
    """Every sign pattern of one contact with its meaning (2^pairs entries)."""
    keys = [p.key for p in contact_pairs(problem)[contact]]
    law = problem.laws[contact]
    sliding = contact in problem.assembly.sliding
    out = []
    for bits in itertools.product("10", repeat=len(keys)):
        s = "".join(bits)
        out.append((s, pattern_label(law, sliding, keys, s)))
    return out


def _resolve(problem: Problem, contact: str, mode: str, keys: list[str]) -> tuple[str, PatternLabel]:
    """(bits, label) of a contact's mode given as a label (``"roll"``...) or a bit string."""
    law = problem.laws[contact]
    sliding = contact in problem.assembly.sliding
    if mode == "approach":
        return "", PatternLabel(Mode.APPROACH, "approach")
    if len(mode) == len(keys) and set(mode) <= {"0", "1"}:
        return mode, pattern_label(law, sliding, keys, mode)
    for bits, lab in contact_patterns(problem, contact):
        if lab.label == mode and lab.consistent:
            return bits, lab
    labels = sorted({lab.label for _, lab in contact_patterns(problem, contact) if lab.consistent})
    raise FormulationError(
        f"contact '{contact}': unknown mode '{mode}'; choose one of {labels + ['approach']} "
        f"or a bit string of length {len(keys)} over pairs {keys}"
    )


def _homogeneous_rows(wm: WrenchMap, I: list[int], J: list[int], K_normal: list[int], d: int):
    """(equality rows, inequality rows) as [b | A_w | A_z] with b + A x (=, >=) 0, x = (w, z_I)."""
    M, Q, qr = wm.M, wm.Q, wm.q_rest
    nI = len(I)
    eq = [np.concatenate([[qr[i]], Q[i], M[i, I]]) for i in I]
    ineq = [np.concatenate([[0.0], np.zeros(d), np.eye(nI)[k]]) for k in range(nI)]
    ineq += [np.concatenate([[qr[j]], Q[j], M[j, I]]) for j in J]
    ineq += [-np.concatenate([[qr[j]], Q[j], M[j, I]]) for j in K_normal]
    width = 1 + d + nI
    return (np.array(eq).reshape(-1, width), np.array(ineq).reshape(-1, width))


def _strict_margin(
    eq: np.ndarray, ineq: np.ndarray, d: int, radius: float
) -> tuple[float, np.ndarray | None]:
    """max t <= 1 with every inequality row >= t (z rows included), the equalities and
    |w_i| <= radius; returns (t, w)."""
    nx = eq.shape[1] - 1
    c = np.zeros(nx + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-ineq[:, 1:], np.ones((len(ineq), 1))]) if len(ineq) else None
    b_ub = ineq[:, 0] if len(ineq) else None
    A_eq = np.hstack([eq[:, 1:], np.zeros((len(eq), 1))]) if len(eq) else None
    b_eq = -eq[:, 0] if len(eq) else None
    bounds = [(-radius, radius)] * d + [(None, None)] * (nx - d) + [(None, 1.0)]
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=b_eq, bounds=bounds, method="highs")
    if res.status != 0:
        return -np.inf, None
    return float(res.x[-1]), res.x[:d]


def _clean(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a[np.abs(a) < _ZERO] = 0.0
    return a


def _to_generators(eq: np.ndarray, ineq: np.ndarray, d: int):
    """Span form in w-space of the projection of {x : eq = 0, ineq >= 0}: (vertices, rays, lineality)."""
    rows = np.vstack([eq, ineq])
    scale = np.maximum(np.abs(rows).max(axis=1, keepdims=True), 1e-300)
    rows = _clean(rows / scale)
    mat = cdd.matrix_from_array(rows.tolist(), lin_set=set(range(len(eq))), rep_type=cdd.RepType.INEQUALITY)
    gen = cdd.copy_generators(cdd.polyhedron_from_matrix(mat))
    arr = np.array(gen.array, dtype=float).reshape(-1, rows.shape[1])
    lin = sorted(gen.lin_set)
    return _canonical_generators(arr[:, : 1 + d], lin)


def _canonical_generators(arr: np.ndarray, lin: list[int]):
    d = arr.shape[1] - 1
    keep = [k for k in range(len(arr)) if arr[k, 0] != 0 or np.abs(arr[k, 1:]).max(initial=0) > 1e-9]
    lin = [keep.index(k) for k in lin if k in keep]
    arr = _clean(arr[keep])
    if not len(arr):
        return np.zeros((0, d)), np.zeros((0, d)), np.zeros((0, d))
    for k in range(len(arr)):
        if arr[k, 0] == 0:
            arr[k, 1:] /= np.linalg.norm(arr[k, 1:])
    mat = cdd.matrix_from_array(arr.tolist(), lin_set=set(lin), rep_type=cdd.RepType.GENERATOR)
    cdd.matrix_canonicalize(mat)
    out = np.array(mat.array, dtype=float).reshape(-1, d + 1)
    lin = sorted(mat.lin_set)
    is_lin = np.zeros(len(out), bool)
    is_lin[lin] = True
    vert = out[(out[:, 0] != 0) & ~is_lin]
    vertices = vert[:, 1:] / vert[:, :1]
    rays = out[(out[:, 0] == 0) & ~is_lin, 1:]
    lineality = out[is_lin, 1:]
    norm = lambda r: r / np.maximum(np.linalg.norm(r, axis=1, keepdims=True), 1e-300)  # noqa: E731
    return _clean(vertices), _clean(norm(rays)), _clean(norm(lineality))


def face_form(vertices: np.ndarray, rays: np.ndarray, lineality: np.ndarray):
    """(F, h, E, e) with {F w <= h, E w = e} = conv(vertices) + cone(rays) + span(lineality) (cddlib).

    A cone given without vertices gets the origin as its vertex.
    """
    d = max(a.shape[1] for a in (vertices, rays, lineality))
    if not len(vertices):
        vertices = np.zeros((1, d))
    rows = [np.concatenate([[1.0], v]) for v in vertices]
    rows += [np.concatenate([[0.0], r]) for r in rays]
    lin = set(range(len(rows), len(rows) + len(lineality)))
    rows += [np.concatenate([[0.0], r]) for r in lineality]
    mat = cdd.matrix_from_array(_clean(np.array(rows)).tolist(), lin_set=lin, rep_type=cdd.RepType.GENERATOR)
    ine = cdd.copy_inequalities(cdd.polyhedron_from_matrix(mat))
    cdd.matrix_canonicalize(ine)
    arr = np.array(ine.array, dtype=float).reshape(-1, d + 1)
    is_eq = np.zeros(len(arr), bool)
    is_eq[sorted(ine.lin_set)] = True
    trivial = np.abs(arr[:, 1:]).max(axis=1, initial=0) <= 1e-12
    arr = arr[~trivial]
    is_eq = is_eq[~trivial]
    scale = np.linalg.norm(arr[:, 1:], axis=1, keepdims=True)
    arr = _clean(arr / np.maximum(scale, 1e-300))
    F, h = -arr[~is_eq, 1:], arr[~is_eq, 0]
    E, e = arr[is_eq, 1:], -arr[is_eq, 0]
    return F, h, E, e


def span_form(F: np.ndarray, h: np.ndarray, E=None, e=None):
    """(vertices, rays, lineality) of {F w <= h, E w = e} (cddlib)."""
    d = F.shape[1]
    E = np.zeros((0, d)) if E is None else np.asarray(E, dtype=float).reshape(-1, d)
    e = np.zeros(len(E)) if e is None else np.asarray(e, dtype=float)
    eq = np.hstack([-e[:, None], E]) if len(E) else np.zeros((0, d + 1))
    ineq = np.hstack([np.asarray(h, dtype=float)[:, None], -np.asarray(F, dtype=float)])
    return _to_generators(eq, ineq, d)


def mode_cone(
    problem: Problem,
    assignment: dict[str, str],
    body: str | None = None,
    coordinates=None,
    space: str = "f",
    wm: WrenchMap | None = None,
) -> ModeCone:
    """The wrenches on ``body`` (or ``coordinates``, or every free coordinate; ``space="b"``: b
    itself) consistent with ``assignment`` (contact -> mode label such as ``"roll"``,
    ``"slide +t"``, ``"slide d2"``, ``"separate"``, ``"approach"``, or a pattern bit string).
    Every contact must be assigned.
    """
    wm = wm or wrench_map(problem, body=body, coordinates=coordinates, space=space)
    pairs = contact_pairs(problem, wm)
    missing = [c for c in problem.contact_names if c not in assignment]
    if missing:
        raise FormulationError(f"assign a mode to every contact (missing: {missing})")
    d = len(wm.coordinates)
    I, J, K_normal = [], [], []
    patterns, labels = {}, {}
    for name in problem.contact_names:
        keys = [p.key for p in pairs[name]]
        bits, lab = _resolve(problem, name, assignment[name], keys)
        patterns[name], labels[name] = bits, lab
        if lab.mode is Mode.APPROACH:
            K_normal += [p.index for p in pairs[name] if p.key == "normal"]
            continue
        for p, bit in zip(pairs[name], bits):
            (I if bit == "1" else J).append(p.index)
    eq, ineq = _homogeneous_rows(wm, I, J, K_normal, d)
    homogeneous = wm.homogeneous
    if homogeneous:
        eq[:, 0] = 0.0
        ineq[:, 0] = 0.0
    radius = 1.0 if homogeneous else 1e3 * max(1.0, float(np.abs(wm.w0).max(initial=0.0)))
    margin, witness = _strict_margin(eq, ineq, d, radius)
    empty = np.zeros((0, d))
    feasible = margin > _MARGIN * max(1.0, radius * float(np.abs(wm.Q).max(initial=0.0)))
    if not feasible:
        return ModeCone(
            dict(assignment),
            patterns,
            labels,
            list(wm.coordinates),
            False,
            homogeneous,
            margin,
            empty,
            empty,
            empty,
            empty,
            np.zeros(0),
            empty,
            np.zeros(0),
        )
    vertices, rays, lineality = _to_generators(eq, ineq, d)
    F, h, E, e = face_form(vertices, rays, lineality)
    return ModeCone(
        dict(assignment),
        patterns,
        labels,
        list(wm.coordinates),
        True,
        homogeneous,
        margin,
        rays,
        vertices,
        lineality,
        F,
        h,
        E,
        e,
        witness,
    )


def enumerate_modes(
    problem: Problem,
    body: str | None = None,
    coordinates=None,
    space: str = "f",
    approach: bool = False,
    only: dict[str, list[str]] | None = None,
) -> list[ModeCone]:
    """Every combination of per-contact sign patterns (and ``approach`` when asked), with its set.

    ``only`` restricts some contacts to the listed modes (labels or bit strings).
    """
    wm = wrench_map(problem, body=body, coordinates=coordinates, space=space)
    choices = []
    for name in problem.contact_names:
        if only and name in only:
            choices.append(list(only[name]))
            continue
        options = [bits for bits, _ in contact_patterns(problem, name)]
        choices.append(options + (["approach"] if approach else []))
    out = []
    for combo in itertools.product(*choices):
        out.append(mode_cone(problem, dict(zip(problem.contact_names, combo)), wm=wm))
    return out


@dataclass
class Census:
    """Sign patterns of one initially rolling contact under a law (Berard et al. (2004) §V-VI)."""

    law: str
    patterns: int
    feasible: list[str] = field(default_factory=list)  # labels of the feasible patterns
    non_degenerate: list[str] = field(default_factory=list)
    approach_feasible: bool = False

    def counts(self) -> dict[str, int]:
        return {
            "patterns": self.patterns,
            "feasible": len(self.feasible),
            "non_degenerate": len(self.non_degenerate),
            "with_approach": len(self.feasible) + int(self.approach_feasible),
        }


def single_contact_problem(law, planar: bool = False) -> Problem:
    """A unit box at rest on the ground with one contact under ``law``; no gravity (b = 0)."""
    from contactmodel import inertia
    from contactmodel.formulation import formulate
    from contactmodel.system import System

    s = System(gravity=(0.0, 0.0, 0.0))
    box = s.add_body("box", mass=1.0, inertia=inertia.box(1.0, (0.4, 0.4, 0.4)), position=(0.0, 0.0, 0.2))
    s.add_contact(box, s.ground, point=(0.05, -0.03, 0.0), normal=(0, 0, 1), tangent=(1, 0, 0), name="c")
    return formulate(s, friction=law)


def mode_census(law) -> Census:
    """Count the feasible sign patterns of a rolling contact (wrench space: the body's 6 forces)."""
    problem = single_contact_problem(law)
    wm = wrench_map(problem, body="box")
    census = Census(repr(law), 0)
    for bits, lab in contact_patterns(problem, "c"):
        census.patterns += 1
        cone = mode_cone(problem, {"c": bits}, wm=wm)
        if cone.feasible:
            census.feasible.append(lab.label)
            if not lab.degenerate:
                census.non_degenerate.append(lab.label)
    census.approach_feasible = mode_cone(problem, {"c": "approach"}, wm=wm).feasible
    return census


# -- Berard et al. (2004) Fig. 2: a disc at rest touching a small fixed disc, another one close by --------
DISC_COORDINATES = ["disc.vx", "disc.vy", "disc.wz"]


def disc_example(mu: float = 0.4, angles=(-50.0, -130.0), radius: float = 1.0) -> Problem:
    """The planar disc of Berard et al. (2004) Fig. 2: a unit disc at rest, no gravity, touching fixed disc 1
    at polar angle ``angles[0]`` (degrees) and close to fixed disc 2 at ``angles[1]`` (a
    contact that may only approach or stay apart). Both contacts use ``Planar(mu)``;
    t = n rotated by +90 degrees in the plane. Wrench space: (f_x, f_y, m_z) on the disc.
    """
    from contactmodel import inertia
    from contactmodel.formulation import formulate
    from contactmodel.friction import Planar
    from contactmodel.system import System

    s = System(gravity=(0.0, 0.0, 0.0))
    disc = s.add_body("disc", mass=1.0, inertia=inertia.cylinder(1.0, radius, 0.1), position=(0, 0, 0))
    for k, deg in enumerate(angles, start=1):
        th = np.radians(deg)
        p = radius * np.array([np.cos(th), np.sin(th), 0.0])
        n = -p / radius
        t = np.array([-n[1], n[0], 0.0])
        s.add_contact(disc, s.ground, point=p, normal=n, tangent=t, friction=Planar(mu), name=f"disc{k}")
    return formulate(s)


def disc_cones(mu: float = 0.4, **kwargs) -> list[ModeCone]:
    """The wrench cones of the disc example: disc1 in {roll, slide +t, slide -t, separate} x
    disc2 in {approach, separate}."""
    problem = disc_example(mu, **kwargs)
    only = {"disc1": ["roll", "slide +t", "slide -t", "separate"], "disc2": ["approach", "separate"]}
    return enumerate_modes(problem, coordinates=DISC_COORDINATES, only=only)


def plot_disc_cones(path, mu: float = 0.4, angles=(-50.0, -130.0)) -> list[ModeCone]:
    """Draw Berard et al. (2004) Fig. 2: each mode's wrench-cone generators as lines of action on the disc.

    A generator (f_x, f_y, m) is drawn as the force f along its line of action
    {p : p_x f_y - p_y f_x = m}; lineality directions are drawn double-headed. Writes a PNG.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cones = disc_cones(mu, angles=angles)
    fig, axes = plt.subplots(2, 4, figsize=(16, 9.2))
    for ax, cone in zip(axes.T.ravel(), cones):
        ax.add_patch(plt.Circle((0, 0), 1.0, fill=False, lw=1.5))
        for k, deg in enumerate(angles, start=1):
            th = np.radians(deg)
            gap = 0.0 if k == 1 else 0.06
            c = (1.0 + 0.2 + gap) * np.array([np.cos(th), np.sin(th)])
            ax.add_patch(plt.Circle(c, 0.2, color="0.6"))
            ax.annotate(f"disc {k}", c, ha="center", va="center", fontsize=8)
        if cone.feasible:
            for style, gens in (("-|>", cone.rays), ("<|-|>", cone.lineality)):
                for g in gens:
                    _draw_wrench(ax, g, style)
        title = " / ".join(f"{lab.label}" for lab in cone.labels.values())
        status = f"dim {cone.dimension}, {len(cone.rays)} rays" if cone.feasible else "infeasible"
        ax.set_title(f"{title}\n{status}", fontsize=9)
        ax.set_xlim(-2.2, 2.2)
        ax.set_ylim(-2.2, 2.2)
        ax.set_aspect("equal")
        ax.tick_params(labelsize=6)
    fig.suptitle(f"Wrench cones of the contact modes (disc 1 / disc 2), mu = {mu}")
    fig.tight_layout(h_pad=2.5)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return cones


def _draw_wrench(ax, g: np.ndarray, style: str) -> None:
    f, m = g[:2], g[2]
    nf = np.linalg.norm(f)
    if nf < 1e-9:
        ax.annotate(("+" if m > 0 else "-") + " pure moment", (0, 0), ha="center", color="C3", fontsize=8)
        return
    p0 = m * np.array([f[1], -f[0]]) / nf**2
    u = f / nf
    ax.annotate("", xy=p0 + 0.6 * u, xytext=p0 - 0.6 * u, arrowprops={"arrowstyle": style, "color": "C0"})
    ax.plot(*np.column_stack([p0 - 3 * u, p0 + 3 * u]), color="C0", lw=0.4, ls=":")
