"""Round friction laws (Coulomb cones, ellipsoids) at rolling contacts, for :func:`~contactmodel.decide`.

The compiled MCP is nonlinear there, so the LCP certificates of :mod:`contactmodel.analysis.decide`
do not apply directly. This module holds what decides such problems instead:

* :func:`normal_relaxation`: an LCP (outer polygons, normal complementarity only) that every
  solution of the problem solves, so that its having no solution proves the problem has none;
  :func:`linear_rows_relaxation` the same relaxation of the contacts whose rows are nonlinear only
  (:class:`NormalRelaxed`), every other contact keeping its own rows (maximum dissipation
  included): a tighter relaxation, a problem of its own;
* :func:`monotone_uniqueness`: unique forces by strong monotonicity of De Saxcé's form;
* :func:`internal_uniqueness`: unique forces up to internal forces that the faces of a verified
  solution's cones exclude (A singular);
* :func:`continuum_solution`: a second verified solution along internal forces with A d = 0.

Each returns plain data (arrays, dicts) or None where it does not apply; the verdicts are made in
:mod:`contactmodel.analysis.decide`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import nnls

from contactmodel.constants import TOL, Form
from contactmodel.errors import ContactModelError
from contactmodel.formulation import Problem
from contactmodel.friction.base import ContactContext, FrictionLaw, Lifted
from contactmodel.friction.rows import ContactRows, Norm, Product, Square
from contactmodel.friction.sets import FrictionSet

#: a singular value of A W (W: unit columns) at most this times max(1, max|A|) counts as zero in
#: the continuum test (:func:`continuum_solution`: internal forces d with A d = 0)
NULL_TOL = 1e-10
#: relative widening of the outer polygons of :class:`NormalRelaxed` (their vertices are floats
#: rounded to 14 digits; widened, the polygon contains the law's set whatever the rounding)
WIDEN = 1e-9


def force_map(problem: Problem) -> sp.csr_matrix:
    """C (m, n): the contact forces c = C x at the MCP point x (the problem's T restricted to
    the compiled variables)."""
    compiled = problem.compile()
    where = {id(v): j for j, v in enumerate(problem.variables)}
    T = sp.csc_matrix(problem.T)
    cols = [where.get(id(v)) for v in compiled.variables]
    keep = [i for i, j in enumerate(cols) if j is not None]
    C = sp.lil_matrix((T.shape[0], len(cols)))
    if keep:
        C[:, keep] = T[:, [cols[i] for i in keep]]
    return C.tocsr()


def _section_vertices(law, dim: int, k: int) -> np.ndarray:
    """(g, dim) generators (1, f_T) of the law's outer polyhedral friction cone: the vertices of
    its section at c_n = 1 (``FrictionSet.rows(dim, outer=True, k)``, round parts circumscribed).
    Components the set pins to 0 stay 0."""
    from scipy.spatial import HalfspaceIntersection

    from contactmodel.friction.sets import AXES

    fs = law.friction_set()
    R = np.array(fs.rows(dim, True, k), dtype=float)
    comps = [i for i in range(1, dim) if AXES[i] in fs.components]
    # the section: R[:, comps] y <= -R[:, 0] (rows on absent components only pin them to 0)
    live = [r for r in R if np.any(r[comps] != 0.0)] if comps else []
    G, h = (np.array([r[comps] for r in live]), np.array([-r[0] for r in live])) if live else (None, None)
    out = np.zeros((1, dim))
    out[0, 0] = 1.0
    if G is None or not np.all(h > 0):  # mu = 0 (or a pinned component): only the normal force
        return out
    if len(comps) == 1:
        g = G[:, 0]
        ends = [min(h[g > 0] / g[g > 0]), max(h[g < 0] / g[g < 0])]
        verts = np.array(ends).reshape(-1, 1)
    else:
        verts = HalfspaceIntersection(np.hstack([G, -h[:, None]]), np.zeros(len(comps))).intersections
    gens = np.zeros((len(verts), dim))
    gens[:, 0] = 1.0
    gens[:, comps] = verts
    return np.unique(np.round(gens, 14), axis=0)


def normal_relaxation(problem: Problem, k: int = 16) -> tuple[sp.csr_matrix, np.ndarray, sp.csr_matrix]:
    """An LCP whose solvability is necessary for ``problem``'s (any friction laws): ``(M_R, q_R,
    G)``, G (m, p) the force generators, c = G beta.

    Relaxation: each rolling contact's force lies in its law's outer polyhedral friction cone
    (round sets circumscribed by k-gons, :func:`_section_vertices`), ``c = sum_j beta_j g_j``
    with beta >= 0; a sliding contact whose law fixes the friction direction (one force variable,
    the normal force: ``c = c_n g`` from the problem's force map T) keeps that exact direction,
    any other contact gets its outer cone; the normal complementarity ``0 <= c_n _|_ a_n >= 0``
    (a = A c + b) is kept, the maximum-dissipation conditions dropped. Since beta >= 0 and
    c_n = sum_j beta_j at a contact, ``c_n a_n = 0`` iff ``beta_j a_n = 0`` for each j: the
    relaxation is the LCP ``0 <= beta _|_ (N (A G beta + b))_contact(j) >= 0``. Every solution of
    the problem gives one of this LCP (write its force in the generators), so **no solution
    of the LCP proves that the problem has none** (an outer pyramid alone would not: the laws'
    maximum dissipation does not carry over between a set and its polygon)."""
    asm = problem.assembly
    A = sp.csr_matrix(asm.A_sparse)
    b = np.asarray(asm.b, dtype=float)
    m = b.size
    T = sp.csc_matrix(problem.T)
    cols: list[np.ndarray] = []
    owner: list[int] = []
    normals: list[int] = []
    for c_idx, name in enumerate(problem.contact_names):
        idx = asm.indices(name)
        normals.append(asm.row(name, "n"))
        sub = T[idx]
        used = np.flatnonzero(np.diff(sub.tocsc().indptr) > 0)
        if name in asm.sliding and used.size == 1 and sub[0, used[0]] > 0:
            gens = (sub[:, used[0]].toarray().ravel() / sub[0, used[0]])[None, :]
        else:
            gens = _section_vertices(problem.laws[name], len(idx), k)
        for g in gens:
            col = np.zeros(m)
            col[idx] = g
            cols.append(col)
            owner.append(c_idx)
    G = sp.csr_matrix(np.array(cols).T) if cols else sp.csr_matrix((m, 0))
    rows = np.array(normals)[owner]
    return sp.csr_matrix(A[rows] @ G), b[rows], G


def linear_rows(rows: ContactRows) -> bool:
    """Whether a contact's statement is linear: no cone block and no product, square or norm in
    its pairs and named expressions (a polyhedral law anywhere, a round law where the sliding
    velocity fixes its friction direction)."""

    def linear(terms) -> bool:
        for _, what in terms:
            if isinstance(what, (Product, Square, Norm)):
                return False
            if type(what) is tuple and not linear(what):  # a group of terms
                return False
        return True

    return (
        rows.cone is None
        and all(linear(terms) for _, _, terms in rows.pairs)
        and all(linear(terms) for _, terms in rows.expressions)
    )


class NormalRelaxed(FrictionLaw):
    """The normal relaxation of ``law`` (:func:`normal_relaxation`) at the contacts where its rows
    are nonlinear: the force ``c = sum_j w_j g_j`` over the generators (1, f_j) of the law's
    outer polyhedral cone (``k``-gons circumscribing its round sets; variables ``weight[j]``),
    ``0 <= w_j _|_ a_n >= 0`` (normal complementarity only, maximum dissipation dropped);
    elsewhere ``law``'s own rows. Every force of ``law`` lies in that cone with c_n = sum_j w_j
    (and c_n a_n = 0 gives w_j a_n = 0), so every solution of a
    problem under ``law`` solves the problem under ``NormalRelaxed(law, k)``."""

    def __init__(self, law: FrictionLaw, k: int = 16):
        self.law = law
        self.k = int(k)
        self.needs_torsion = law.needs_torsion

    def _generators(self, dim: int) -> np.ndarray:
        """The outer cone's generators, their friction parts widened by :data:`WIDEN` so that
        the float vertices (rounded) still circumscribe the law's set."""
        g = _section_vertices(self.law, dim, self.k)
        g[:, 1:] *= 1.0 + WIDEN
        return g

    def rows(self, ctx: ContactContext) -> ContactRows:
        own = self.law.rows(ctx)
        if linear_rows(own):
            return own
        dim = len(ctx.velocity)
        g = self._generators(dim)
        variables = tuple(("weight", j, 0.0, math.inf) for j in range(len(g)))
        force = {}
        for i, axis in enumerate("ntor"[:dim]):
            force[axis] = [(float(g[j, i]), j) for j in range(len(g)) if g[j, i] != 0.0] or [(0.0, 0)]
        pairs = tuple((f"normal_{j}", j, ((1.0, "n"),)) for j in range(len(g)))
        return ContactRows(variables, force, pairs)

    def friction_set(self) -> FrictionSet:
        """The wrapped law's set (what the contact modes name); the relaxation's own conditions
        are :meth:`law_residual`'s."""
        return self.law.friction_set()

    def law_residual(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> float:
        """The wrapped law's residual where its rows are kept; else the normal pair's alone
        (the force lies in the outer cone by construction, maximum dissipation is dropped)."""
        if linear_rows(self.law.rows(ctx)):
            return self.law.law_residual(ctx, force, accel)
        return abs(min(float(force[0]), float(accel[0])))

    def lift(self, ctx: ContactContext, force: np.ndarray, accel: np.ndarray) -> Lifted:
        if linear_rows(self.law.rows(ctx)):
            return self.law.lift(ctx, force, accel)
        g = self._generators(len(force))
        beta = nnls(g.T, np.asarray(force, dtype=float))[0]  # the force in the generators
        return {"weight": {j: float(b) for j, b in enumerate(beta)}}


def linear_rows_relaxation(problem: Problem, k: int = 16) -> Problem | None:
    """``problem`` in reduced form with every law ``L`` replaced by ``NormalRelaxed(L, k)``: an
    LCP whose solutions include (the forces of) every solution of ``problem``, tighter than
    :func:`normal_relaxation` where a contact's rows are linear and state more than its normal
    force (a rolling contact under a polyhedral law keeps its maximum dissipation). None when no
    contact does (the two relaxations are then the same)."""
    if problem.assembly.quasistatic:
        return None
    kept = [
        name
        for name, law in problem.laws.items()
        if linear_rows(own := law.rows(problem.contexts[name])) and len(own.variables) > 1
    ]
    if not kept:
        return None
    laws = {name: NormalRelaxed(law, k) for name, law in problem.laws.items()}
    return problem.reformulate(friction=laws, form=Form.REDUCED)


@dataclass
class _ContactForces:
    """One contact's forces as the law leaves them free: ``c = y_n normal + sum_j y_j e_j`` over
    the contact's rows (n, t, o[, r]) ``rows``, y_n >= 0 the normal force, ``normal`` (len(rows),)
    the force of a unit y_n (e_n plus the friction of the parts that slide, c_alpha = k_alpha c_n),
    ``rolling`` the local indices (1.. in (n, t, o, r)) of the components the law leaves free (the
    parts that roll, ``parts``: ``law.friction_sets(ctx)``)."""

    name: str
    rows: list[int]
    normal: np.ndarray
    rolling: list[int]
    parts: list


def _contact_forces(problem: Problem) -> list[_ContactForces] | None:
    """:class:`_ContactForces` of every contact from the problem's force map T, or None when one
    contact's force variables are not of that form: one variable with a positive normal entry
    (the normal force c_n) and variables each acting on one rolling component (c_t, or a shifted
    torsion ``c_r = s - w c_n``: the span is the same), the rolling components exactly those of
    the rolling parts of the law's friction set."""
    from contactmodel.friction.sets import AXES

    asm = problem.assembly
    T = sp.csc_matrix(problem.T)
    out: list[_ContactForces] = []
    for name in problem.contact_names:
        law = problem.laws[name]
        idx = list(asm.indices(name))
        sub = sp.csc_matrix(T[idx])
        used = np.flatnonzero(np.diff(sub.indptr) > 0)
        dense = sub[:, used].toarray()
        normal_cols = [k for k in range(used.size) if dense[0, k] != 0.0]
        if len(normal_cols) != 1 or dense[0, normal_cols[0]] <= 0.0:
            return None
        g = dense[:, normal_cols[0]] / dense[0, normal_cols[0]]
        rolling: set[int] = set()
        for k in range(used.size):
            if k != normal_cols[0]:
                comps = np.flatnonzero(dense[:, k])
                if comps.size != 1:
                    return None
                rolling.add(int(comps[0]))
        try:
            parts = law.friction_sets(problem.contexts[name]) if law.describes_set else []
        except ContactModelError:
            return None
        covered = sorted(AXES.index(a) for p in parts for a in p.components if AXES.index(a) < len(idx))
        if covered != sorted(rolling) or 0 in rolling:
            return None
        g[sorted(rolling)] = 0.0  # the same span: the rolling components' unit vectors are in it
        out.append(_ContactForces(name, idx, g, sorted(rolling), parts))
    return out


@dataclass
class MonotoneTerms:
    """The y-space of :func:`monotone_uniqueness`: ``S = sym(P A E)``, the ``terms`` (omega, D B,
    j), ``AE`` (m, p) and per contact ``(layout, j, y indices of its rolling components)``."""

    S: np.ndarray
    terms: list[tuple[float, np.ndarray, int]]
    AE: np.ndarray
    slots: list[tuple[_ContactForces, int, list[int]]]


def monotone_terms(problem: Problem) -> MonotoneTerms | None:
    """The :class:`MonotoneTerms` of :func:`monotone_uniqueness`: ``K = P A E`` (y-space, see there)
    and one term ``(omega, D B, j)`` per norm of the support function ``h = omega ||D v||`` of a rolling
    part (B the rows of A E on its components, j the y index of the contact's normal force);
    None for a law or a contact the proof does not cover."""
    from contactmodel.friction.cone import CoulombCone
    from contactmodel.friction.ellipsoid import Ellipsoid
    from contactmodel.friction.elliptic_torsion import EllipticTorsion
    from contactmodel.friction.sets import AXES, BoxPart, EllipsoidPart

    layout = _contact_forces(problem)
    if layout is None or not layout:
        return None
    m = problem.assembly.m
    cols: list[np.ndarray] = []
    prow: list[int] = []
    norms: list[tuple[float, np.ndarray, list[int], int]] = []  # (omega, D, assembly rows, j)
    slots: list[tuple[_ContactForces, int, list[int]]] = []
    for cf in layout:
        if not isinstance(problem.laws[cf.name], (CoulombCone, Ellipsoid, EllipticTorsion)):
            return None
        j = len(prow)
        slots.append((cf, j, list(range(j + 1, j + 1 + len(cf.rolling)))))
        col = np.zeros(m)
        col[cf.rows] = cf.normal
        cols.append(col)
        prow.append(cf.rows[0])
        for r in cf.rolling:
            cols.append(np.zeros(m))
            cols[-1][cf.rows[r]] = 1.0
            prow.append(cf.rows[r])
        for part in cf.parts:
            rows = [cf.rows[AXES.index(a)] for a in part.components]
            if isinstance(part, EllipsoidPart) and np.all(np.asarray(part.accel_weights) == 1.0):
                norms.append((part.mu, part.e, rows, j))  # h(v) = mu ||e * v||_2
            elif isinstance(part, BoxPart):  # h(v) = sum_i w_i |v_i|: one norm per axis
                norms += [(float(w), np.ones(1), [r], j) for w, r in zip(part.w, rows)]
            else:  # not maximum work over the set (Ellipsoid(direction="opposite")): no VI of this form
                return None
    E = np.array(cols).T
    AE = sp.csr_matrix(problem.assembly.A_sparse) @ E
    K = AE[prow]
    terms = [(omega, D[:, None] * AE[rows], j) for omega, D, rows, j in norms]
    return MonotoneTerms(0.5 * (K + K.T), terms, AE, slots)


def monotone_matrix(problem: Problem, eps: float) -> np.ndarray | None:
    """Q(eps) of :func:`monotone_uniqueness` (None where the proof does not apply)."""
    mono = monotone_terms(problem)
    return None if mono is None else _monotone_q(mono.S, mono.terms, eps)


def _monotone_q(S: np.ndarray, terms: list[tuple[float, np.ndarray, int]], eps) -> np.ndarray:
    """Q at one eps > 0, or at one eps per term (each norm's Young split may use its own)."""
    Q = S.copy()
    for (omega, DB, j), e in zip(terms, np.broadcast_to(np.asarray(eps, dtype=float), (len(terms),))):
        Q -= 0.5 * omega * e * (DB.T @ DB)
        Q[j, j] -= 0.5 * omega / e
    return Q


def _best_eps(low, count: int) -> np.ndarray:
    """eps (count,) per term that (nearly) maximizes ``low(eps)``, the smallest eigenvalue of Q or
    of its restriction: concave in eps, since ``Q(eps) = S - sum (eps_r X_r + Y_r / eps_r)`` (X_r,
    Y_r positive semidefinite) is concave in the Loewner order. A golden-section search on one
    common log eps in [-3, 3] (60 steps), then Nelder-Mead on each term's own log eps from there.
    A search only: the caller checks what it returns."""
    from scipy.optimize import minimize

    def at(log_eps) -> float:
        return low(10.0 ** np.broadcast_to(np.asarray(log_eps, dtype=float), (count,)))

    lo, hi, g = -3.0, 3.0, (np.sqrt(5.0) - 1.0) / 2.0
    for _ in range(60):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        lo, hi = (lo, b) if at(a) >= at(b) else (a, hi)
    start = np.full(count, 0.5 * (lo + hi))
    if count > 1:
        res = minimize(
            lambda x: -at(x), start, method="Nelder-Mead", options={"maxiter": 200 * count, "xatol": 1e-4}
        )
        if -res.fun > at(start):
            start = res.x
    return 10.0**start


def _eps_value(eps) -> float | list[float]:
    """eps as reported: one number, or one per term when they differ."""
    e = np.atleast_1d(np.asarray(eps, dtype=float))
    return float(e[0]) if np.all(e == e[0]) else [float(v) for v in e]


def eps_text(eps) -> str:
    """The text of a monotonicity margin eps (one number, or one per norm) in a verdict's reasons."""
    return f"{eps:.3g}" if isinstance(eps, float) else "(" + ", ".join(f"{v:.3g}" for v in eps) + ") per norm"


def monotone_uniqueness(problem: Problem) -> dict | None:
    """A proof that the problem's contact forces are unique when every contact has a
    :class:`~contactmodel.friction.cone.CoulombCone`, an :class:`~contactmodel.friction.ellipsoid.Ellipsoid`
    (maximum work: ``direction="max-work"``, or equal semi-axes) or an
    :class:`~contactmodel.friction.elliptic_torsion.EllipticTorsion` law: ``{"eps", "min_eig"}``, or None.

    Unknowns y: per contact the normal force y_n >= 0 (its force ``y_n g``: g = e_n plus the
    friction c_alpha = k_alpha c_n of the parts that slide) and the components of the parts that
    roll; c = E y, a = A c + b, P picks each contact's normal row and rolling rows. A rolling
    part's set is ``c_p in c_n S_p`` with maximum work, S_p symmetric with support function
    ``h_p(v) = max_{s in S_p} s . v``; the contact's cone is ``K = {y: y_p in y_n S_p for every p}``,
    ``K* = {z: z_n >= sum_p h_p(-z_p)}``. De Saxcé's form (De Saxcé and Feng, "New inequality and
    functional for contact with friction", 1991), for any such S: ``K ∋ y ⊥ Phi(y) = P a +
    sum_p h_p(-a_p) e_n ∈ K*``. Indeed ``Phi ∈ K*`` iff a_n >= 0, and ``y . Phi = c_n a_n +
    sum_p (c_n h_p(-a_p) + c_p . a_p)`` is a sum of terms >= 0 (c_p in c_n S_p), zero iff
    ``c_n a_n = 0`` and ``-c_p . a_p = c_n h_p(-a_p)``: maximum work. The sets, in the unit
    normal force:

    * CoulombCone: the disc ``|s| <= mu`` in (t, o): ``h = mu ||v||``;
    * Ellipsoid (max-work): ``sum (s_i / e_i)^2 <= mu^2`` in (t, o, r): ``h = mu ||e * v||``, the
      round cone K_mu of dimension 4 in the variables ``(c_n, c_i / e_i)`` (velocities ``e_i a_i``,
      the transpose of the scaling, so that c . a is kept);
    * EllipticTorsion: the product of the ellipse ``(s_t/e_t)^2 + (s_o/e_o)^2 <= mu^2`` and the
      interval ``|s_r| <= e_r mu``: ``h = mu ||(e_t v_t, e_o v_o)|| + e_r mu |v_r|``, a sum of two
      norms (the set is no round 4-D cone: that would be the inscribed ellipsoid, another law).

    With d = y1 - y2, h_p sublinear and symmetric gives ``|h_p(u) - h_p(v)| <= h_p(u - v)``, so
    ``(Phi(y1) - Phi(y2)) . d >= d^T K d - sum_p h_p(B_p d) |d_n| >= d^T Q d`` (K = P A E, B_p
    the rows of A E on part p's components; for each norm ``omega ||D B d|| |d_n| <= omega / 2
    (eps ||D B d||^2 + d_n^2 / eps)``) with ``Q = sym(K) - sum omega / 2 (eps B^T D^2 B + e_n
    e_n^T / eps)`` (:func:`monotone_matrix`). Two solutions have ``(Phi(y1) - Phi(y2)) . d =
    -Phi(y1) . y2 - Phi(y2) . y1 <= 0``, so Q positive definite for one eps > 0 gives d = 0: the
    forces c = E y are unique. Checked by a Cholesky factor of ``Q - 1e-10 max(1, max|Q|) I``
    over eps in 10^-3 .. 10^3 (25 values), then at the eps that maximizes the smallest eigenvalue
    of Q (:func:`_best_eps`: one eps per norm allowed, each norm's Young split being its own;
    ``eps`` is then a list)."""
    mono = monotone_terms(problem)
    if mono is None:
        return None
    S, terms = mono.S, mono.terms
    n = len(S)

    def low(eps) -> float:
        return float(np.linalg.eigvalsh(_monotone_q(S, terms, eps))[0])

    for eps in (*np.logspace(-3, 3, 25), None):
        eps = _best_eps(low, len(terms)) if eps is None else eps  # the search only when the grid failed
        Q = _monotone_q(S, terms, eps)
        try:
            np.linalg.cholesky(Q - 1e-10 * max(1.0, float(np.abs(Q).max())) * np.eye(n))
        except np.linalg.LinAlgError:
            continue
        return {"eps": _eps_value(eps), "min_eig": float(np.linalg.eigvalsh(Q).min())}
    return None


def verify_point(problem: Problem, x: np.ndarray, tol: float) -> tuple[bool, float]:
    """(verified, residual) of the point x of the problem's MCP, as the dispatcher verifies a
    solver's answer (:func:`contactmodel.solve.assess`): the relative natural residual of the
    MCP and the laws' residual at its forces and accelerations, both <= tol."""
    from contactmodel.solve import Status as SolveStatus
    from contactmodel.solve import assess
    from contactmodel.solvers.base import Outcome, SolverResult

    sol = assess(
        problem.compile(),
        SolverResult(np.asarray(x, dtype=float), Outcome.CONVERGED),
        "decide",
        tol,
        problem=problem,
    )
    residual = max(sol.residual, sol.checks.get("law_residual", 0.0))
    return sol.status is SolveStatus.SOLVED and residual <= tol, residual


def internal_uniqueness(problem: Problem, x1: np.ndarray, tol: float = TOL) -> dict | None:
    """Unique forces where :func:`monotone_uniqueness` fails only along internal forces:
    ``{"eps", "min_eig", "null_dimension", "face_singular_value"}``, or None.

    Two solutions y1, y2 give ``d^T Q d <= (Phi(y1) - Phi(y2)) . d <= 0`` (d = y1 - y2, see
    :func:`monotone_uniqueness`). With Q positive semidefinite (smallest eigenvalue >= -t, t =
    ``1e-9 max(1, max|Q|)``) and N its null space (eigenvalues <= t, the others above 10 t),
    ``d^T Q d = 0`` gives d in N. If every null vector is an internal force, ``A E N = 0`` (up to
    ``1e-9 max(1, max|A E|)``), the two solutions have the same accelerations a1 (those of the
    verified x1). At fixed accelerations each contact's solutions lie in one face of its cone
    (De Saxcé's form: ``c . a_hat = 0``): ``{0}`` where a_n > 0; where a rolling part slips
    (``|a_p| > 1e-6`` times the residual scale), its components are ``c_n sigma_p`` with
    ``sigma_p`` the maximizer of ``-s . a_p`` over the part's set (``-mu e^2 a / ||e a||`` for an
    ellipsoid part, ``-w sign(a)`` for an interval); the rest is free (a contact or part whose
    velocity is not clearly nonzero counts as free: the larger face). Both solutions lying in the
    same faces, d lies in their span: rows Z with ``Z d = 0``. When ``Z N`` has full column rank
    (smallest singular value above ``1e-8 max(1, max|Z|)``), d = 0: the forces are unique."""
    from contactmodel.friction.sets import AXES, BoxPart, EllipsoidPart
    from contactmodel.solve import residual_scale

    mono = monotone_terms(problem)
    if mono is None:
        return None
    C = force_map(problem)
    a1 = problem.assembly.contact_accelerations(C @ x1)
    p = len(mono.S)
    small = 1e-6 * residual_scale(problem.compile().mcp)
    Z: list[np.ndarray] = []

    def row(pairs: list[tuple[int, float]]) -> None:
        z = np.zeros(p)
        for i, v in pairs:
            z[i] += v
        Z.append(z)

    for cf, j, comps in mono.slots:
        ak = a1[cf.rows]
        slot = dict(zip(cf.rolling, comps))  # local component index -> y index
        if ak[0] > small:  # separating: c = 0
            for i in [j, *comps]:
                row([(i, 1.0)])
            continue
        for part in cf.parts:
            local = [AXES.index(a) for a in part.components]
            ap = ak[local]
            if isinstance(part, EllipsoidPart) and np.linalg.norm(ap) > small:
                sigma = -part.mu * part.e**2 * ap / np.linalg.norm(part.e * ap)
                for li, sg in zip(local, sigma):
                    row([(slot[li], 1.0), (j, -sg)])
            elif isinstance(part, BoxPart):
                for li, w, ai in zip(local, part.w, ap):
                    if abs(ai) > small:
                        row([(slot[li], 1.0), (j, w * np.sign(ai))])
    Zm = np.array(Z) if Z else np.zeros((0, p))
    ae_tol = 1e-9 * max(1.0, float(np.abs(mono.AE).max(initial=0.0)))
    for eps in np.logspace(-3, 3, 49):
        Q = _monotone_q(mono.S, mono.terms, eps)
        w, V = np.linalg.eigh(Q)
        t = 1e-9 * max(1.0, float(np.abs(Q).max()))
        null = w <= t
        if w[0] < -t or not null.any() or null.all() or w[~null].min() <= 10 * t:
            continue
        N = V[:, null]
        if np.abs(mono.AE @ N).max() > ae_tol or Zm.shape[0] < N.shape[1]:
            continue
        sv = np.linalg.svd(Zm @ N, compute_uv=False)
        if sv.min() > 1e-8 * max(1.0, float(np.abs(Zm).max())):
            return {
                "eps": float(eps),
                "min_eig": float(w[~null].min()),
                "null_dimension": int(null.sum()),
                "face_singular_value": float(sv.min()),
            }
    return _internal_per_norm(mono, Zm)


def _internal_per_norm(mono: MonotoneTerms, Zm: np.ndarray) -> dict | None:
    """:func:`internal_uniqueness` with one eps per norm: N0 the internal forces without normal
    components at the rolling contacts (``A E d = 0``, ``d_j = 0``: no term of Q acts on them),
    checked to be null vectors of Q and excluded by the faces (rows Zm); then Q is positive
    semidefinite with null space N0 iff Q restricted to N0's complement (basis U) is positive
    definite, its smallest eigenvalue maximized over eps per norm (:func:`_best_eps`)."""
    from scipy.linalg import null_space

    p = len(mono.S)
    js = sorted({j for _, _, j in mono.terms})
    N0 = null_space(np.vstack([mono.AE, np.eye(p)[js]]), rcond=1e-9)
    if N0.shape[1] == 0 or Zm.shape[0] < N0.shape[1] or N0.shape[1] == p:
        return None
    sv = np.linalg.svd(Zm @ N0, compute_uv=False)
    if sv.min() <= 1e-8 * max(1.0, float(np.abs(Zm).max())):
        return None
    U = null_space(N0.T)
    eps = _best_eps(
        lambda e: float(np.linalg.eigvalsh(U.T @ _monotone_q(mono.S, mono.terms, e) @ U)[0]), len(mono.terms)
    )
    Q = _monotone_q(mono.S, mono.terms, eps)
    t = 1e-9 * max(1.0, float(np.abs(Q).max()))
    low = float(np.linalg.eigvalsh(U.T @ Q @ U)[0])
    if np.abs(Q @ N0).max() > t or low <= 10 * t:
        return None
    return {
        "eps": _eps_value(eps),
        "min_eig": low,
        "null_dimension": int(N0.shape[1]),
        "face_singular_value": float(sv.min()),
    }


def point_of_forces(problem: Problem, c: np.ndarray) -> np.ndarray:
    """The MCP point of forces c (m,): every law's variables from (c, A c + b) (``Problem.load_forces``)."""
    problem.load_forces(c)
    return problem.compile().values()


def continuum_solution(
    problem: Problem, x1: np.ndarray, tol: float = TOL, delta: float = 1e-4
) -> dict | None:
    """A second verified solution x2 on a segment of solutions through the verified x1, or None.

    Internal forces that produce no motion: with c1 = C x1 and a1 = A c1 + b, a direction d of
    forces with ``A d = 0`` changes no acceleration (A = G M^-1 G^T is PSD, so A d = 0 iff
    G^T d = 0: the generalized accelerations do not change either). At fixed accelerations each
    contact's solutions in c form a convex set (the face ``{c in K: c . a_hat = 0}`` of its
    friction cone in De Saxcé's form, see :func:`monotone_uniqueness`; c_n > 0 needs a_n = 0),
    so d is restricted per contact (:func:`_contact_forces`) to moves that stay in that set:
    d = 0 where c_n = 0 (up to ``10 tol max(1, ||c1||)``); d in the contact's whole force space
    (the normal force with the sliding parts' fixed friction, any rolling component) where the
    rolling components' accelerations vanish (up to ``10 tol`` times the residual scale) and c1
    lies inside every rolling part by a margin (``excess <= -1e-6 c_n``); else d along c1's own
    ray (the law is positively homogeneous in c at fixed a). Such d with ``A d = 0`` is a null
    vector of ``A W`` (W the unit columns spanning those moves): the right singular vector of its
    smallest singular value, when that is at most ``NULL_TOL max(1, max|A|)``. The step t is the
    largest the friction sets allow up to ``||t d||_inf = max(1, ||c1||_inf)`` (bisection), halved
    when a set stops it; the point x2 is the problem's own lift of c2 = c1 + t d
    (``Problem.load_forces``: every law's auxiliary variables from (c2, a1)), its forces checked
    to be c2, and x2 and the midpoint's lift verified as every solution is (:func:`verify_point`).
    Returns ``{"x2", "step", "null_singular_value", "continuum_dimension", "midpoint_residual",
    "moves"}`` (None when there is no such d, the step is below ``delta max(1, ||c1||_inf)``, or a
    point fails verification)."""
    from contactmodel.friction.sets import AXES
    from contactmodel.solve import residual_scale

    layout = _contact_forces(problem)
    asm = problem.assembly
    if layout is None or not layout or asm.m > 3000:
        return None
    C = force_map(problem)
    c1 = C @ x1
    a1 = asm.contact_accelerations(c1)
    fscale = max(1.0, float(np.abs(c1).max(initial=0.0)))
    ascale = residual_scale(problem.compile().mcp)
    m = asm.m
    cols: list[np.ndarray] = []
    free: list[_ContactForces] = []
    moves: dict[str, str] = {}
    for cf in layout:
        ck, ak = c1[cf.rows], a1[cf.rows]
        cn = float(ck[0])
        if cn <= 10 * tol * fscale:
            continue
        stuck = all(abs(ak[r]) <= 10 * tol * ascale for r in cf.rolling)
        inside = all(p.excess(cn, ck[[AXES.index(a) for a in p.components]]) <= -1e-6 * cn for p in cf.parts)
        if stuck and inside:
            moves[cf.name] = "free"
            free.append(cf)
            col = np.zeros(m)
            col[cf.rows] = cf.normal / np.linalg.norm(cf.normal)
            cols.append(col)
            for r in cf.rolling:
                cols.append(np.zeros(m))
                cols[-1][cf.rows[r]] = 1.0
        else:
            moves[cf.name] = "ray"
            col = np.zeros(m)
            col[cf.rows] = ck / np.linalg.norm(ck)
            cols.append(col)
    if not cols:
        return None
    W = np.array(cols).T
    _, s, Vt = np.linalg.svd(sp.csr_matrix(asm.A_sparse) @ W, full_matrices=True)
    s = np.concatenate([s, np.zeros(W.shape[1] - s.size)])
    A_max = max(1.0, float(np.abs(asm.A_sparse).max()))
    null = np.flatnonzero(s <= NULL_TOL * A_max)
    if null.size == 0:
        return None
    d = W @ Vt[null[-1]]
    d /= np.abs(d).max()

    def feasible(t: float) -> bool:
        c = c1 + t * d
        if any(c[cf.rows[0]] < 0.0 for cf in layout if moves.get(cf.name)):
            return False
        return all(
            p.excess(float(c[cf.rows[0]]), c[[cf.rows[AXES.index(a)] for a in p.components]]) <= 0.0
            for cf in free
            for p in cf.parts
        )

    best = 0.0
    for sign in (1.0, -1.0):
        if feasible(sign * fscale):
            room = fscale
        else:
            lo, hi = 0.0, fscale
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if feasible(sign * mid) else (lo, mid)
            room = 0.5 * lo
        if room > abs(best):
            best = sign * room
    if abs(best) < delta * fscale:
        return None
    c2 = c1 + best * d

    x2 = point_of_forces(problem, c2)
    if np.abs(C @ x2 - c2).max() > 1e-12 * fscale:
        return None
    ok2, res2 = verify_point(problem, x2, tol)
    okm, resm = verify_point(problem, point_of_forces(problem, 0.5 * (c1 + c2)), tol)
    if not (ok2 and okm):
        return None
    return {
        "x2": x2,
        "step": float(abs(best)),
        "null_singular_value": float(s[null[-1]]),
        "continuum_dimension": int(null.size),
        "residual": res2,
        "midpoint_residual": resm,
        "moves": moves,
    }
