"""Decide existence and uniqueness of a contact LCP, with evidence (``cm.decide``).

For an LCP ``0 <= z _|_ w = M z + q >= 0`` (the compiled MCP of a problem with polyhedral laws
in reduced form, or ``cm.LCP(M, q)``) :func:`decide` returns an :class:`Existence`:

* ``NO_SOLUTION`` by a **Farkas ray**: when ``{z >= 0, M z + q >= 0}`` is empty there is
  ``y >= 0`` with ``M^T y <= 0`` and ``q . y < 0`` (for any z >= 0 with w >= 0,
  ``0 <= y . w = (M^T y) . z + q . y < 0``, a contradiction). The ray comes from an LP and is
  re-checked in exact rational arithmetic (every float is a dyadic rational:
  :func:`verify_farkas`); only an exactly verified ray decides.
* existence by a **MILP over the complementarity pattern** on the homogenized, normalized LCP
  (:func:`pattern_milp`): find ``(z, t)`` with ``z >= 0``, ``t >= 0``, ``sum(z) + t = 1``,
  ``w = M z + q t >= 0``, ``z_i w_i = 0``, maximizing t. The LCP's solutions z are exactly the
  points ``(z, 1) / (1 + sum z)`` with t > 0, so the LCP is solvable iff the maximum is
  positive, and a bound ``t <= t_bar`` proves every solution has ``||z||_1 >= 1 / t_bar - 1``
  (a MILP optimum at most ``T_ZERO`` with a positive bound t_bar gives ``NO_SOLUTION_BELOW_BOUND``).
  The normalization makes the big-M constants derived, not guessed: ``0 <= z_i <= 1`` and, w
  being linear on the simplex, ``w_i <= W_i = max(q_i, max_j M_ij)``; so ``z_i <= b_i`` and
  ``w_i <= W_i (1 - b_i)`` with a binary b_i state ``z_i w_i = 0`` exactly. The rows are
  equilibrated first (a positive row scaling keeps every solution). The MILP's pattern is
  re-solved by an LP in the original units and the point verified (relative natural residual
  <= ``tol``); a MILP optimum with no verified point is reported, never taken as a solution.
* **uniqueness** by a proof: the symmetric part of M positive definite (a Cholesky factor with
  a margin) or M a P-matrix (every principal minor positive, Tsatsomeros-Li recursion, for
  ``n <= p_matrix_max``): then the LCP has exactly one solution for every q. Otherwise by the
  same MILP with a second solution forced away from the first z1 in the compared quantity
  v = L z (the contact forces c = C z of a problem, so that two points differing only in a
  law's auxiliary variables count as one solution; z itself for a bare LCP): the extra
  binaries choose one row i and a side with ``(L z)_i >= (v1_i + delta) t`` or
  ``(L z)_i <= (v1_i - delta) t`` (bounds again from the simplex's vertices). Maximum t = 0
  means no second solution at ``||L z - v1||_inf >= delta`` (``UNIQUE``, "unique up to
  delta" in the forces); the LCP is equilibrated and z1 scaled to ``||z1||_1 <= 1`` first so
  that t stays away from 0 at solutions near z1's size. A positive maximum gives a second
  verified solution (``MULTIPLE``) with its distance to the first in forces and in motion
  (contact accelerations; w for a bare LCP). Two solutions z1, z2 span a **continuum** (the
  whole segment solves) iff ``z1 . w2 + z2 . w1 = 0``: ``(l z1 + (1-l) z2) . (l w1 + (1-l) w2)
  = l (1-l) (z1 . w2 + z2 . w1)``.
* an **exact tree** for "no solution": when the MILP finds no solution, a complementarity
  branch-and-bound (:mod:`contactmodel.analysis.certificate`) is run within ``tree_limit``; its
  tree, every leaf's multipliers checked in exact integer arithmetic
  (:func:`~contactmodel.analysis.certificate.tree_min_norm`), makes the verdict ``exact``
  (evidence ``tree``, ``tree_nodes``, ``tree_leaves``, ``min_solution_norm``); a solution it
  finds is verified and used. A leaf is a Farkas ray of its pattern polyhedron, or (where the
  ray would need an exact cancellation that the floating-point data only nearly have, e.g.
  statically indeterminate internal forces) multipliers proving that the leaf's solutions have
  ``||z||_1 >= min_solution_norm``, at least ``TREE_NORM_FACTOR`` times the smallest LP-feasible
  1-norm: the verdict is then ``NO_SOLUTION_BELOW_BOUND`` ("no solution below that norm", the
  bound in ``min_solution_norm``; larger solutions are not excluded, and ``decided`` is False).
  ``NO_SOLUTION`` is kept for certificates that exclude every solution (a Farkas ray, a tree
  whose every leaf is one); ``exact`` says only that the certificate was checked exactly.
* **exact geometry** (``exact_geometry=True``, a Problem of free bodies): a tree that proves only
  a norm bound for the compiled LCP is re-checked on the problem's LCP in rational arithmetic
  (:func:`~contactmodel.analysis.exact_geometry.exact_lcp`: the declaration's floats taken as
  exact, A and b without rounding), each leaf's multipliers repaired into an exact Farkas ray of
  it, else its node LP solved exactly (:func:`~contactmodel.analysis.exact_geometry.exact_tree`,
  :mod:`~contactmodel.analysis.exact_lp`); all rays: ``NO_SOLUTION`` (evidence
  ``exact_geometry``, the exact ``tree``, ``rounded_min_solution_norm``). The rounding of M breaks
  exactly the cancellations such rays need (internal forces with G^T d = 0). A leaf whose exact
  LP has t > 0 (a nonempty polyhedron, at norms far beyond rounding) is branched on at its exact
  point (up to ``EXACT_BRANCH_NODES`` nodes, the smallest proven norm first) until every leaf is a
  ray or an exact solution turns up; when the budget ends first and the tree proves at least
  ``tree_norm_floor`` (what a rounded tree must prove), the verdict is ``NO_SOLUTION_BELOW_BOUND``
  for the declared problem (``exact_geometry`` True, ``min_solution_norm`` the exact tree's bound).
* **exact uniqueness trees**: the second-solution MILP's verdict (t = 0, or a candidate that
  does not verify: HiGHS's tolerances admit points with t ~ 1e-6 near homogeneous rays) is
  re-decided exactly within ``tree_limit``: for each row i of L and side, the complementarity
  branch-and-bound on the LCP with the condition ``(L z)_i >= (L z1)_i + delta`` (or
  ``<= ... - delta``) added as one more LCP row (:func:`away_lcp`: a variable with a zero column,
  so its solutions are exactly those z), each tree checked by ``tree_min_norm``. All proven:
  ``UNIQUE`` with ``exact=True`` (evidence ``uniqueness_trees``: row, sign, bound, tree,
  min_norm; no other solution at distance >= delta with ``||z||_1`` below the smallest
  min_norm); a verified solution from a tree is a second solution.
* **free variables**: a linear MCP whose variables are nonnegative or free (the polyhedral limit
  surface at sliding contacts) is decided as the LCP of :func:`mixed_to_lcp` (x_F = u - v), whose
  entries are the MCP's own, so every certificate carries over exactly.
* ``UNDECIDED`` with what was tried and the best bound (a MILP time limit, an unverifiable
  certificate), never silently.

The LCP is first split into its independent blocks (:func:`lcp_blocks`, connected components
of M's pattern): one block without a solution decides the whole, and the blocks' solutions
combine. The existence MILP is normalized on ``q / s``, s the smallest 1-norm of a feasible z
(an LP), so that solutions at physical force scales are not crushed into t ~ 1 / ||z||_1.

MILP verdicts rest on HiGHS (``scipy.optimize.milp``) and its tolerances (feasibility 1e-7,
integrality 1e-6); they are marked ``exact=False`` in the evidence. Round laws (CoulombCone,
Ellipsoid, EllipticTorsion) at rolling contacts make the compiled MCP nonlinear: :func:`decide`
then tries to solve it (a verified solution decides existence); otherwise one rolling Coulomb
contact is decided by its modes (below), and any other problem through the **normal
relaxation** (:func:`normal_relaxation`: outer polygons, exact sliding directions, normal
complementarity only, maximum dissipation dropped), an LCP every solution of the problem
solves, so that a relaxation without solution proves the problem has none. A solvable
relaxation is tightened where the problem has contacts whose rows are linear (polyhedral laws,
sliding contacts): those keep their own rows, maximum dissipation included, and only the
nonlinear contacts are relaxed (:func:`~contactmodel.analysis.round_laws.linear_rows_relaxation`,
an LCP decided as any other); no solution there proves none for the problem. Otherwise the
problem is ``UNDECIDED``, with the reason. (Deciding on the outer pyramid
with its own maximum dissipation would not be sound: its solutions are not the cone's.)

With a verified solution x1, uniqueness of the forces is decided, in this order, by (the proofs
and the relaxation are in :mod:`contactmodel.analysis.round_laws`)

* **strong monotonicity** of De Saxcé's form (:func:`monotone_uniqueness`: Coulomb cones,
  maximum-work ellipsoids, the ellipse with a torsional interval, through the support function
  of each rolling part's set; Q(eps) positive definite, a Cholesky factor as for a positive
  definite M; eps on a grid, else maximizing Q's smallest eigenvalue, one eps per norm allowed);
* **monotonicity up to internal forces** (:func:`internal_uniqueness`): Q(eps) positive
  semidefinite, its null directions internal forces (A E d = 0: the same accelerations) that the
  faces of x1's cones exclude;
* the **modes of one rolling Coulomb contact**, enumerated exactly
  (:func:`~contactmodel.analysis.single_contact.single_contact_modes`: separate, stick, slide at
  angle th, the slip condition a polynomial of degree <= 4 in tan(th/2) whose real roots are
  isolated in rational arithmetic): ``UNIQUE`` (exact) for one solution, ``MULTIPLE`` with the
  count for more (and ``NO_SOLUTION`` when no solver solved it and no mode solves);
* the **continuum test** (:func:`continuum_solution`): internal forces d with A d = 0 that keep
  every contact's law (d = 0 where c_n = 0, along c1's ray where the contact slips or sits on its
  set's boundary, any direction inside a set where it sticks): a second verified solution with
  the same accelerations decides ``MULTIPLE`` with ``continuum`` in the evidence (every convex
  combination solves: the accelerations are equal and each contact's solutions at fixed
  accelerations form a convex set; the midpoint is verified too);
* the normal relaxation (outer hexagons, ``SEARCH_K``): unique forces there prove them unique;
  otherwise newton is started from each of its solutions, and two verified solutions of the
  problem itself with forces at least delta apart decide ``MULTIPLE``;

else ``SOLVED`` with the reason uniqueness stays open (:func:`_why_open`: sym(P A E) singular,
with A's null directions counted, or positive definite below the friction coupling) and the
relaxation's spread of forces (``relaxation_force_spread``).
"""

from __future__ import annotations

import enum
import time
import warnings
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, linprog, milp

from contactmodel import validate
from contactmodel.analysis.certificate import (
    ExactLCP,
    branch_and_bound,
    pattern_point,
    quiet_stdout,
    tree_min_norm,
)
from contactmodel.analysis.exact_geometry import exact_lcp, exact_tree
from contactmodel.analysis.round_laws import (
    continuum_solution,
    eps_text,
    force_map,
    internal_uniqueness,
    linear_rows_relaxation,
    monotone_terms,
    monotone_uniqueness,
    normal_relaxation,
    point_of_forces,
    verify_point,
)
from contactmodel.constants import TOL  # the dispatcher's: relative natural residual of a verified solution
from contactmodel.errors import ContactModelError, OptionError, SolverError
from contactmodel.formulation import Problem
from contactmodel.mcp.types import MCP

#: a pattern MILP's t at most this counts as 0, in the existence and the second-solution MILPs
#: alike: below it a MILP point is no candidate solution (HiGHS's feasibility tolerance is 1e-7
#: on rows of norm <= 1, so a t this small is within its rounding of t = 0)
T_ZERO = 1e-9
#: polygon size of the outer relaxation whose solutions start the search for a round-law
#: problem's second solution (any outer polygon is sound; small ones keep its MILPs small: with
#: torsion, 16-gons gave the ellipsoid's relaxation 640 variables and 10 s MILPs)
SEARCH_K = 6
#: a tree leaf may prove, instead of a Farkas ray, that its solutions have ||z||_1 at least this
#: many times the smallest 1-norm of an LP-feasible z (the verdict then states the bound proven)
TREE_NORM_FACTOR = 1e6
#: branch nodes that exact geometry may add below leaves whose exact node LP has t > 0
#: (two exact LPs each, about 0.25 s apiece on the size-170 block of 154, whose mu = 0.7 tree
#: needed 5,789)
EXACT_BRANCH_NODES = 10000


class Status(enum.Enum):
    """The verdict of :func:`decide`."""

    SOLVED = "solved"  # a verified solution; uniqueness not decided
    NO_SOLUTION = "no-solution"  # the certificate excludes every solution
    #: no solution with ||z||_1 < evidence["min_solution_norm"] (a finite bound N); solutions of
    #: larger norm are not excluded, so existence is not decided
    NO_SOLUTION_BELOW_BOUND = "no-solution-below-bound"
    UNIQUE = "unique"
    MULTIPLE = "multiple"
    UNDECIDED = "undecided"


@dataclass
class Existence:
    """The result of :func:`decide`.

    ``solutions``: verified points in the MCP's variable order (one for SOLVED/UNIQUE, two or
    more for MULTIPLE); ``evidence``: the certificate, e.g. ``{"farkas_y": y, ...}``,
    ``{"proof": "P-matrix"}``, ``{"milp_t_bound": ...}``, ``{"force_distance": ...}``;
    ``exact`` is True when the deciding certificate was verified in exact arithmetic (or is a
    structural proof); ``tried`` lists each step with its outcome; ``seconds`` the wall time.
    """

    status: Status
    n: int
    solutions: list[np.ndarray] = field(default_factory=list)
    evidence: dict = field(default_factory=dict)
    exact: bool = False
    tried: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def decided(self) -> bool:
        """True when existence is decided: not UNDECIDED, and not NO_SOLUTION_BELOW_BOUND (which
        excludes only the solutions below a norm bound)."""
        return self.status not in (Status.UNDECIDED, Status.NO_SOLUTION_BELOW_BOUND)

    def to_json(self) -> dict:
        """A JSON-ready dict: status, n, exact, seconds, solutions, evidence (arrays as lists), tried."""

        def plain(v):
            if hasattr(v, "to_json"):
                return v.to_json()
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, list):
                return [plain(x) for x in v]
            return v.tolist() if isinstance(v, np.ndarray) else v

        return {
            "status": self.status.value,
            "decided": self.decided,
            "n": self.n,
            "exact": self.exact,
            "seconds": self.seconds,
            "solutions": [s.tolist() for s in self.solutions],
            "evidence": {k: plain(v) for k, v in self.evidence.items()},
            "tried": list(self.tried),
        }

    def summary(self) -> str:
        """A few lines: the verdict, the evidence's scalars, what was tried."""
        lines = [f"decide: {self.status.value} (n = {self.n}, {self.seconds:.2f} s, exact={self.exact})"]
        if self.status is Status.NO_SOLUTION_BELOW_BOUND:
            N, of = self.evidence["min_solution_norm"], self.evidence.get("norm_of", "||z||_1")
            lines.append(f"  no solution with {of} < {N:.4g}; larger solutions not excluded")
        for key, value in self.evidence.items():
            if isinstance(value, np.ndarray):
                value = f"array of {value.size} (max |.| = {np.abs(value).max(initial=0.0):.3g})"
            lines.append(f"  {key}: {value}")
        lines += [f"  tried: {step}" for step in self.tried]
        return "\n".join(lines)


# -- the LCP data --------------------------------------------------------------------------------


@dataclass
class _Target:
    """What is decided: the MCP, the problem behind it (or None) and, for an LCP or a linear
    MCP with free variables, the LCP (M, q) decided (:func:`mixed_to_lcp`; ``free`` its free
    variables, empty for an LCP)."""

    mcp: MCP
    problem: Problem | None
    M: sp.csr_matrix | None
    q: np.ndarray | None
    free: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))

    def point(self, z: np.ndarray) -> np.ndarray:
        """The MCP's point x (n,) of the decided LCP's point z: x = z[:n], x_F -= z[n:]."""
        n = self.mcp.n
        x = np.array(z[:n], dtype=float)
        x[self.free] -= z[n:]
        return x


def mixed_to_lcp(mcp: MCP) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray] | None:
    """A linear MCP whose variables are nonnegative (lb 0) or free (lb -inf), ub +inf, as an
    LCP of size n + f: ``(M', q', free)``, free the f free indices, or None for any other MCP.

    A free x_i (``F_i(x) = 0``) is written ``x_i = u_i - v_i`` with ``0 <= u_i _|_ F_i >= 0`` and
    ``0 <= v_i _|_ -F_i >= 0`` (both rows force F_i = 0): z = (x with x_F replaced by u_F, v_F),
    ``M' = [[M, -M_:F], [-M_F:, M_FF]]``, ``q' = (q, -q_F)``. The entries are the MCP's floats
    or their negatives, so a certificate checked exactly on (M', q') is one for the MCP; its
    solutions map to the MCP's by x_F = u_F - v_F (:meth:`_Target.point`), the other way by
    u = max(x, 0), v = max(-x, 0) on F."""
    if mcp.M is None or mcp.cones is not None or not np.all(np.isinf(mcp.ub)):
        return None
    lb = np.asarray(mcp.lb, dtype=float)
    if not np.all((lb == 0.0) | (lb == -np.inf)):
        return None
    M = sp.csr_matrix(mcp.M, dtype=float)
    q = np.asarray(mcp.q, dtype=float)
    free = np.flatnonzero(lb == -np.inf)
    if free.size == 0:
        return M, q.copy(), free
    MF = M[:, free]
    big = sp.bmat([[M, -MF], [-M[free], MF[free]]], format="csr")
    return big, np.concatenate([q, -q[free]]), free


def _target(problem) -> _Target:
    if isinstance(problem, Problem):
        mcp = problem.compile().mcp
        owner = problem
    elif isinstance(problem, MCP):
        mcp, owner = problem, None
    else:
        raise SolverError(
            f"decide needs a contactmodel Problem or MCP such as cm.LCP(M, q) (got {type(problem).__name__})"
        )
    lcp = mixed_to_lcp(mcp)
    if lcp is not None:
        return _Target(mcp, owner, *lcp)
    return _Target(mcp, owner, None, None)


# -- verification ---------------------------------------------------------------------------------


def lcp_residual(M, q: np.ndarray, z: np.ndarray) -> float:
    """||min(z, M z + q)||_inf / max(1, ||q||_inf): the dispatcher's relative natural residual."""
    w = M @ z + q
    return float(np.abs(np.minimum(z, w)).max(initial=0.0)) / max(1.0, float(np.abs(q).max(initial=0.0)))


def verify_farkas(M, q: np.ndarray, y: np.ndarray) -> tuple[bool, Fraction, Fraction]:
    """Exact check of a Farkas ray: (ok, max_j (M^T y)_j, q . y) in rational arithmetic.

    ``ok`` is True iff ``y >= 0``, ``M^T y <= 0`` and ``q . y < 0`` hold exactly for the given
    floats (each float converted to the rational it denotes), which proves
    ``{z >= 0, M z + q >= 0}`` empty and so the LCP unsolvable.
    """
    M = sp.csr_matrix(M)
    y = np.asarray(y, dtype=float)
    if np.any(y < 0) or not np.all(np.isfinite(y)):
        return False, Fraction(0), Fraction(0)
    s: dict[int, Fraction] = {}
    qy = Fraction(0)
    for i in np.flatnonzero(y):
        yi = Fraction(float(y[i]))
        qy += yi * Fraction(float(q[i]))
        lo, hi = M.indptr[i], M.indptr[i + 1]
        for j, mij in zip(M.indices[lo:hi], M.data[lo:hi]):
            s[int(j)] = s.get(int(j), Fraction(0)) + yi * Fraction(float(mij))
    worst = max(s.values(), default=Fraction(0))
    worst = max(worst, Fraction(0)) if len(s) < M.shape[1] else worst
    return bool(worst <= 0 and qy < 0), worst, qy


def farkas_ray(M, q: np.ndarray) -> np.ndarray | None:
    """A Farkas ray y (see :func:`verify_farkas`) from an LP, or None when the LP finds none.

    Tries ``M^T y <= -eps |M|^T y`` for eps = 0, 1e-9, 1e-6 (a relative margin absorbs the
    LP's rounding) with ``sum y = 1``, minimizing ``q . y``; returns the first y that verifies
    exactly, else the last LP point (unverified) or None.
    """
    M = sp.csr_matrix(M)
    n = q.size
    last = None
    absM = abs(M)
    for eps in (0.0, 1e-9, 1e-6):
        A = (M.T + eps * absM.T).tocsr()
        res = linprog(
            q,
            A_ub=A,
            b_ub=np.zeros(M.shape[1]),
            A_eq=np.ones((1, n)),
            b_eq=[1.0],
            bounds=(0, None),
            method="highs",
        )
        if res.status != 0 or res.fun >= 0:
            continue
        y = np.maximum(res.x, 0.0)
        last = y
        if verify_farkas(M, q, y)[0]:
            return y
    return last


def _scaled(M: sp.csr_matrix, q: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """Rows scaled to max(|M_i.|, |q_i|) = 1 (a positive row scaling keeps every solution)."""
    big = np.maximum(abs(M).max(axis=1).toarray().ravel(), np.abs(q))
    d = np.where(big > 0, 1.0 / np.where(big > 0, big, 1.0), 1.0)
    return sp.csr_matrix(sp.diags(d) @ M), d * q


# -- the pattern MILP ----------------------------------------------------------------------------


@dataclass
class MilpResult:
    """Outcome of :func:`pattern_milp`: ``t`` the best t found (None: none), ``t_bound`` the
    proven upper bound on t (HiGHS dual bound), ``z`` the normalized z, ``pattern`` (n,) bool
    (True where w_i = 0 is imposed), ``status`` HiGHS's message, ``optimal``."""

    t: float | None
    t_bound: float
    z: np.ndarray | None
    pattern: np.ndarray | None
    status: str
    optimal: bool
    infeasible: bool
    seconds: float

    @property
    def candidate(self) -> bool:
        """The MILP's point has t > :data:`T_ZERO`: a candidate solution, to be verified."""
        return self.pattern is not None and self.t is not None and self.t > T_ZERO

    @property
    def zero(self) -> bool:
        """The MILP proved (up to HiGHS's tolerances) that t <= :data:`T_ZERO`: infeasible, or
        optimal with the best t at most T_ZERO."""
        return self.infeasible or (self.optimal and (self.t is None or self.t <= T_ZERO))


def lp_bounds(M, q: np.ndarray, budget: float = 30.0) -> tuple[np.ndarray, np.ndarray]:
    """Upper bounds (Z, W) (each (n,)) of z_i and w_i = (M z + q t)_i over the LP relaxation
    ``{z, t >= 0, sum z + t = 1, M z + q t >= 0}`` of the normalized LCP, each proven: one LP
    per bound, whose row duals y >= 0 give ``f . x <= max_k (f + [M q]^T y)_k`` on the simplex
    (:meth:`~contactmodel.analysis.certificate.ExactLCP.simplex_bound`, exact rational
    arithmetic, rounded up): valid for any y >= 0, so the LP's tolerances cannot make a bound too
    small. Start from the simplex's vertex bounds Z = 1, W = max(q_i, max_j M_ij); the LPs run
    while ``budget`` seconds last, the rest keep the vertex bounds."""
    M = sp.csr_matrix(M)
    n = q.size
    exact = ExactLCP(M, q)
    Z = np.ones(n)
    W = np.maximum(q, M.max(axis=1).toarray().ravel()).clip(min=0.0)
    A = -sp.hstack([M, sp.csr_matrix(q.reshape(-1, 1))]).tocsr()
    eq = np.ones((1, n + 1))
    t0 = time.perf_counter()
    for i in range(n):
        for kind in ("z", "w"):
            if time.perf_counter() - t0 > budget:
                return Z, W
            c = np.zeros(n + 1)
            if kind == "z":
                c[i] = -1.0
            else:
                c = A[i].toarray().ravel()  # -w_i
            res = linprog(c, A_ub=A, b_ub=np.zeros(n), A_eq=eq, b_eq=[1.0], bounds=(0, None), method="highs")
            if res.status != 0:
                continue
            # min c.x with -R x <= 0: marginals <= 0, y = -marginals >= 0 the multipliers of R x >= 0
            top = exact.simplex_bound(i, kind, np.maximum(-res.ineqlin.marginals, 0.0))
            if top is None:
                continue
            if kind == "z":
                Z[i] = min(Z[i], max(top, 0.0))
            else:
                W[i] = min(W[i], max(top, 0.0))
    return Z, W


def pattern_milp(
    M,
    q: np.ndarray,
    away: list[np.ndarray] = (),
    delta: float = 0.0,
    time_limit: float = 60.0,
    bounds: tuple[np.ndarray, np.ndarray] | None = None,
    L=None,
    presolve: bool = True,
) -> MilpResult:
    """max t over the normalized complementarity pattern (module docstring); with ``away`` a
    list of known solutions, each given as ``L z_k`` (L: a (p, n) matrix, default the identity;
    e.g. the contact forces of z), only points with ``||L z/t - L z_k||_inf >= delta`` for every
    k count. ``bounds``: (Z, W) upper bounds of z and w on the normalized problem (e.g.
    :func:`lp_bounds`); default the simplex's vertex bounds 1 and max(q_i, max_j M_ij).
    ``presolve=False`` turns HiGHS's presolve off (a re-check by a differently run search)."""
    M = sp.csr_matrix(M)
    n = q.size
    if bounds is None:
        Z, W = np.ones(n), np.maximum(q, M.max(axis=1).toarray().ravel()).clip(min=0.0)
    else:
        Z, W = (np.asarray(b, dtype=float) for b in bounds)
    I = sp.identity(n, format="csr")
    col = sp.csr_matrix(q.reshape(-1, 1))
    rows = [
        sp.hstack([sp.csr_matrix(np.ones((1, n))), sp.csr_matrix([[1.0]]), sp.csr_matrix((1, n))]),
        sp.hstack([M, col, sp.csr_matrix((n, n))]),
        sp.hstack([I, sp.csr_matrix((n, 1)), -sp.diags(Z)]),
        sp.hstack([M, col, sp.diags(W)]),
    ]
    lo = [np.ones(1), np.zeros(n), np.full(n, -np.inf), np.full(n, -np.inf)]
    hi = [np.ones(1), np.full(n, np.inf), np.zeros(n), W]
    # per known solution, v = L z_k: binaries u+ and u- (one per row i of L), one of them set:
    #   (L z)_i - (v_i + delta) t - B_i u+_i >= -B_i   (u+_i = 1: (L z)_i >= (v_i + delta) t)
    #   (v_i - delta) t - (L z)_i - D_i u-_i >= -D_i   (u-_i = 1: (L z)_i <= (v_i - delta) t)
    # with B_i = max(0, v_i + delta, -min_j L_ij), D_i = max(0, delta - v_i, max_j L_ij): minus
    # the minimum of the left side over the simplex's vertices (z = e_j or t = 1), so each row holds
    # on the whole simplex when its u = 0. The distance rows are divided by sqrt(delta) so that
    # HiGHS's absolute tolerance (1e-7) stays below the separation delta t they enforce.
    L = sp.identity(n, format="csr") if L is None else sp.csr_matrix(L)
    rows_L = np.flatnonzero(np.diff(L.indptr) > 0)
    L = L[rows_L]
    k = rows_L.size
    Lmin = np.minimum(L.min(axis=1).toarray().ravel(), 0.0)
    Lmax = np.maximum(L.max(axis=1).toarray().ravel(), 0.0)
    r = 1.0 / np.sqrt(max(delta, 1e-12))
    nvar = 2 * n + 1 + 2 * k * len(away)
    extra: list[sp.csr_matrix] = []
    start = 2 * n + 1
    for v in away:
        v = np.asarray(v, dtype=float)[rows_L]
        B = np.maximum.reduce([np.zeros(k), v + delta, -Lmin])
        D = np.maximum.reduce([np.zeros(k), delta - v, Lmax])
        before = sp.csr_matrix((k, start - n - 1))
        up = sp.hstack(
            [
                L,
                sp.csr_matrix(-(v + delta).reshape(-1, 1)),
                before,
                sp.diags(-B),
                sp.csr_matrix((k, nvar - start - k)),
            ]
        )
        down = sp.hstack(
            [
                -L,
                sp.csr_matrix((v - delta).reshape(-1, 1)),
                before,
                sp.csr_matrix((k, k)),
                sp.diags(-D),
                sp.csr_matrix((k, nvar - start - 2 * k)),
            ]
        )
        one = np.zeros((1, nvar))
        one[0, start : start + 2 * k] = 1.0
        extra += [r * up, r * down, sp.csr_matrix(one)]
        lo += [-r * B, -r * D, np.ones(1)]
        hi += [np.full(k, np.inf), np.full(k, np.inf), np.full(1, np.inf)]
        start += 2 * k
    A = sp.vstack(
        [sp.hstack([row, sp.csr_matrix((row.shape[0], nvar - row.shape[1]))]) for row in rows] + extra
    ).tocsr()
    c = np.zeros(nvar)
    c[n] = -1.0
    integrality = np.zeros(nvar)
    integrality[n + 1 :] = 1
    t0 = time.perf_counter()
    with warnings.catch_warnings(), quiet_stdout():
        warnings.simplefilter("ignore")
        res = milp(
            c,
            integrality=integrality,
            bounds=Bounds(np.zeros(nvar), np.ones(nvar)),
            constraints=LinearConstraint(A, np.concatenate(lo), np.concatenate(hi)),
            options={"time_limit": float(time_limit), "mip_rel_gap": 1e-9, "presolve": presolve},
        )
    seconds = time.perf_counter() - t0
    infeasible = res.status == 2
    bound = getattr(res, "mip_dual_bound", None)
    t_bound = (
        0.0 if infeasible else (1.0 if bound is None or not np.isfinite(bound) else max(0.0, -float(bound)))
    )
    if res.x is None:
        return MilpResult(None, t_bound, None, None, res.message, res.status == 0, infeasible, seconds)
    x = res.x
    return MilpResult(
        float(x[n]),
        max(t_bound, float(x[n])),
        x[:n],
        x[n + 1 : 2 * n + 1] > 0.5,
        res.message,
        res.status == 0,
        infeasible,
        seconds,
    )


# -- distances between solutions --------------------------------------------------------------------


def _forces_and_motion(target: _Target, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(forces, motion) at x (the decided LCP's point when the target has one): contact forces
    and contact accelerations for a problem, (x, F(x)) for a bare LCP/MCP."""
    if target.M is not None:
        x = target.point(x)
    if target.problem is None:
        return x.copy(), target.mcp.F(x)
    point = target.problem.interpret(x)  # velocities, in a quasistatic problem
    return point.forces, point.accelerations


def _compare(target: _Target, x1: np.ndarray, x2: np.ndarray) -> dict:
    c1, a1 = _forces_and_motion(target, x1)
    c2, a2 = _forces_and_motion(target, x2)
    out = {
        "force_distance": float(np.abs(c1 - c2).max(initial=0.0)),
        "motion_distance": float(np.abs(a1 - a2).max(initial=0.0)),
    }
    if target.M is not None:
        w1, w2 = target.M @ x1 + target.q, target.M @ x2 + target.q
        cross = float(x1 @ np.maximum(w2, 0) + x2 @ np.maximum(w1, 0))
        scale = max(1.0, float(np.abs(x1).max() + np.abs(x2).max())) * max(
            1.0, float(np.abs(target.q).max(initial=0.0))
        )
        out["cross_complementarity"] = cross
        out["continuum"] = bool(cross <= 10 * TOL * scale)
    return out


# -- uniqueness proofs ------------------------------------------------------------------------------


def _uniqueness_proof(M: sp.csr_matrix, p_matrix_max: int) -> str | None:
    """'positive definite symmetric part' / 'P-matrix (...)' when M is one, else None."""
    from contactmodel.analysis.matrices import is_p_matrix

    n = M.shape[0]
    if n == 0:
        return "empty"
    if n <= 3000:
        D = M.toarray()
        S = 0.5 * (D + D.T)
        margin = 1e-10 * max(1.0, float(np.abs(S).max()))
        try:
            np.linalg.cholesky(S - margin * np.eye(n))
            return (
                "positive definite symmetric part (Cholesky of (M + M^T)/2 - 1e-10 ||M|| I): M is a P-matrix"
            )
        except np.linalg.LinAlgError:
            pass
        if n <= p_matrix_max:
            verdict = is_p_matrix(D)
            if verdict.value and verdict.exact:
                return f"P-matrix ({verdict.method})"
    return None


# -- decide --------------------------------------------------------------------------------------


def _try_solvers(subject, is_lcp: bool, tol: float, tried: list[str]) -> np.ndarray | None:
    """A verified solution of ``subject`` (a Problem or an MCP) from the project's solvers
    (lemke for an LCP, then newton), or None."""
    from contactmodel.solve import solve
    from contactmodel.solvers import fallback_order

    for name in fallback_order(lcp=is_lcp):
        try:
            sol = solve(subject, solver=name, accept_tol=tol)
        except Exception as exc:  # a solver missing or refusing is a step tried, not a verdict
            tried.append(f"{name}: {type(exc).__name__}: {exc}")
            continue
        tried.append(f"{name}: {sol.status.value} (residual {sol.residual:.1e})")
        if sol.ok and sol.residual <= tol and sol.x is not None:
            return np.asarray(sol.x, dtype=float)
    return None


def lcp_blocks(M) -> list[np.ndarray]:
    """The index sets of the LCP's independent blocks: connected components of the graph with an
    edge i - j where M_ij != 0 or M_ji != 0. After a permutation M is block diagonal, so the LCP is
    solvable iff every block is, its solutions are the products of the blocks' solutions, and a
    Farkas ray or MILP proof of one block decides the whole. Sorted by size, smallest first (the
    cheap blocks first: one without a solution ends the search)."""
    from scipy.sparse.csgraph import connected_components

    M = sp.csr_matrix(M)
    pattern = (abs(M) + abs(M.T)).tocsr()
    count, label = connected_components(pattern, directed=False)
    blocks = [np.flatnonzero(label == k) for k in range(count)]
    return sorted(blocks, key=lambda b: (b.size, int(b[0])))


def _checked_limits(
    time_limit: float, delta: float, tol: float, tree_limit: float | None
) -> tuple[float, float, float, float | None]:
    """``decide``'s real-valued options, each checked (:class:`OptionError` naming it)."""
    time_limit = validate.real(
        time_limit, "decide: time_limit (s)", low=0.0, low_open=True, allow_inf=True, error=OptionError
    )
    delta = validate.real(delta, "decide: delta", low=0.0, low_open=True, error=OptionError)
    tol = validate.real(tol, "decide: tol", low=0.0, low_open=True, error=OptionError)
    if tree_limit is not None:
        tree_limit = validate.real(
            tree_limit, "decide: tree_limit (s; 0 skips the tree)", low=0.0, allow_inf=True, error=OptionError
        )
    return time_limit, delta, tol, tree_limit


def decide(
    problem,
    *,
    time_limit: float = 60.0,
    delta: float = 1e-4,
    tol: float = TOL,
    uniqueness: bool = True,
    p_matrix_max: int = 12,
    max_solutions: int = 3,
    tighten: bool = True,
    relaxation_k: int = 16,
    tree_limit: float | None = None,
    exact_geometry: bool = True,
) -> Existence:
    """Decide whether ``problem`` (a contact :class:`Problem` or an :class:`MCP` such as
    ``cm.LCP(M, q)``) has a solution, and whether it is unique (see the module docstring).

    ``time_limit`` (s) bounds each MILP; ``delta`` the relative distance
    (``delta * max(1, ||z1||_inf)`` in the inf-norm of z) at which a second solution counts;
    ``tol`` the relative natural residual of a verified solution; ``uniqueness=False`` stops
    at the first verified solution (``SOLVED``); ``p_matrix_max`` the largest n for the
    principal-minor P-matrix test; ``max_solutions`` how many solutions to find before
    ``MULTIPLE`` is returned (with ``complete=True`` in the evidence when a MILP then proved
    there are no more at distance >= delta from them all); ``tighten`` replaces the existence
    MILP's vertex bounds by LP bounds (:func:`lp_bounds`, a quarter of ``time_limit``);
    ``relaxation_k`` the polygon size of the round laws' outer cones in the relaxation
    (:func:`normal_relaxation`) that decides "no solution" for a nonlinear problem;
    ``tree_limit`` (s, default ``time_limit``, 0 to skip) bounds the complementarity
    branch-and-bound run after the existence MILP found no solution, whose tree, checked
    exactly, turns its verdict into an exact one, and (per block) the exact uniqueness trees
    run after the first second-solution MILP found no verified second solution.
    ``exact_geometry``: when a problem's tree proves only a norm bound (its leaves need
    cancellations the rounded M lacks), rebuild its LCP in exact geometry (the declaration's
    floats as exact rationals, :func:`~contactmodel.analysis.exact_geometry.exact_lcp`) and
    decide NO_SOLUTION if every leaf becomes an exact Farkas ray there.
    """
    t0 = time.perf_counter()
    time_limit, delta, tol, tree_limit = _checked_limits(time_limit, delta, tol, tree_limit)
    for value, name, low in ((p_matrix_max, "p_matrix_max", 0), (max_solutions, "max_solutions", 1)):
        validate.integer(value, f"decide: {name}", low=low, error=OptionError)
    validate.integer(relaxation_k, "decide: relaxation_k", low=3, error=OptionError)
    target = _target(problem)
    n = target.mcp.n
    tried: list[str] = []

    def done(status: Status, solutions=(), exact: bool = False, **evidence) -> Existence:
        points = [target.point(s) if target.M is not None else np.asarray(s) for s in solutions]
        return Existence(status, n, points, evidence, exact, tried, time.perf_counter() - t0)

    if target.M is None:
        z = _try_solvers(target.problem if target.problem is not None else target.mcp, False, tol, tried)
        reason = "round friction laws (or free variables) make the MCP nonlinear: no exact decision"
        if target.problem is not None and target.problem.assembly.quasistatic:
            v = _quasistatic_nonlinear(target, z, uniqueness, delta, tol, tried)
            if v.status is Status.MULTIPLE:
                v.evidence.update(_compare(target, v.solutions[0], v.solutions[1]))
            return done(v.status, v.solutions, v.exact, **v.evidence)
        if z is not None and target.problem is not None and uniqueness:
            opts = _Options(
                time_limit, delta, tol, True, p_matrix_max, max_solutions, tighten, tree_limit or 0.0
            )
            v = _second_solutions_nonlinear(target, z, relaxation_k, opts, tried)
            if v.status is Status.MULTIPLE:
                v.evidence.update(_compare(target, v.solutions[0], v.solutions[1]))
            return done(v.status, v.solutions, v.exact, **v.evidence)
        if z is not None:
            return done(Status.SOLVED, [z], reason_uniqueness_undecided=reason)
        if target.problem is None:
            return done(Status.UNDECIDED, reason=reason)
        v = _decide_relaxation(target.problem, relaxation_k, time_limit, tol, tried)
        return done(v.status, v.solutions, v.exact, **v.evidence)

    M, q, free = target.M, target.q, target.free
    L = force_map(target.problem) if target.problem is not None else sp.identity(n, format="csr")
    if free.size:  # the split LCP of a linear MCP with free variables (mixed_to_lcp)
        L = sp.hstack([L, -L[:, free]], format="csr")
        tried.append(
            f"{free.size} free variables written as differences of two nonnegative ones: "
            f"an LCP of size {q.size} (mixed_to_lcp)"
        )
    what = "forces c" if target.problem is not None else "z"
    tree = time_limit if tree_limit is None else tree_limit
    opts = _Options(time_limit, delta, tol, uniqueness, p_matrix_max, max_solutions, tighten, tree)
    blocks = lcp_blocks(M) if q.size else [np.arange(0)]
    if len(blocks) == 1:
        subject = target.mcp if target.problem is None else target.problem
        if free.size:
            subject = MCP.from_lcp(M, q)
        v = _decide_block(M, q, L, what, subject, opts, tried)
    else:
        tried.append(
            f"the LCP splits into {len(blocks)} independent blocks of sizes {[b.size for b in blocks]}"
        )
        v = _decide_blocks(M, q, L, what, blocks, opts, tried)
    if v.status is Status.MULTIPLE and len(v.solutions) >= 2:
        v.evidence.update(_compare(target, v.solutions[0], v.solutions[1]))
    if exact_geometry and v.status is Status.NO_SOLUTION_BELOW_BOUND and "tree" in v.evidence:
        if target.problem is not None and not free.size:
            v = _exact_geometry_verdict(target.problem, v, tried)
    return done(v.status, v.solutions, v.exact, **v.evidence)


#: random starting points of the second-solution search of a quasistatic problem with round laws
QUASISTATIC_STARTS = 6


def _quasistatic_nonlinear(
    target: _Target, x1: np.ndarray | None, uniqueness: bool, delta: float, tol: float, tried: list[str]
) -> _Verdict:
    """A quasistatic problem with round laws: the proofs of the dynamic problem rest on A = G M^-1
    G^T, which it lacks. With a solution x1, newton is started from ``QUASISTATIC_STARTS`` random
    physical points (forces inside the friction sets); two verified solutions whose forces or
    contact velocities differ by ``delta`` (relative) decide ``MULTIPLE``; otherwise ``SOLVED``
    with the search stated (not a proof of uniqueness)."""
    from contactmodel.analysis.multiple import all_solutions

    reason = (
        "quasistatic problem with round friction laws: no exact decision (no inertia: A = G M^-1 G^T "
        "does not exist)"
    )
    if x1 is None:
        return _Verdict(Status.UNDECIDED, [], {"reason": reason + "; no solver solved it"})
    if not uniqueness:
        return _Verdict(Status.SOLVED, [x1], {"reason_uniqueness_undecided": reason})
    found = all_solutions(
        target.problem,
        tol=tol,
        method="multistart",
        starts=QUASISTATIC_STARTS,
        settings=(("newton", {}),),
        x0s=[x1],
        dedupe_tol=delta,
        distinct="forces",
    )
    tried.append(f"multistart: {found.attempts} newton solves, {len(found)} distinct solution(s)")
    if len(found) >= 2:
        points = [np.asarray(s.x, dtype=float) for s in found.solutions]
        return _Verdict(
            Status.MULTIPLE,
            points[:2],
            {"complete": False, "count": len(points), "found_by": "multistart from random physical points"},
        )
    return _Verdict(
        Status.SOLVED,
        [x1],
        {
            "reason_uniqueness_undecided": (
                f"{reason}; {found.attempts} newton solves from random points found no other solution "
                "(not a proof)"
            )
        },
    )


def _exact_geometry_verdict(problem: Problem, v: _Verdict, tried: list[str]) -> _Verdict:
    """The NO_SOLUTION_BELOW_BOUND verdict ``v``'s tree re-proven on the problem in exact geometry
    (:mod:`contactmodel.analysis.exact_geometry`; its block exactly decoupled from the other
    variables; :func:`~contactmodel.analysis.exact_geometry.exact_tree`, which branches up to
    :data:`EXACT_BRANCH_NODES` times below leaves whose exact node LP has t > 0): NO_SOLUTION when
    every leaf becomes an exact Farkas ray of the rational LCP, NO_SOLUTION_BELOW_BOUND for the
    declared problem when some leaves prove only norm bounds (the tree's bound then at least
    ``tree_norm_floor``, as for the rounded tree), else ``v``."""
    try:
        lcp = exact_lcp(problem)
    except SolverError as err:
        tried.append(f"exact geometry: {err}")
        return v
    block = v.evidence.get("block")
    sub = lcp if block is None else lcp.block(block)
    if sub is None:
        tried.append("exact geometry: in the rational LCP the block's rows reach other variables")
        return v
    t0 = time.perf_counter()
    res = exact_tree(sub, v.evidence["tree"], node_limit=EXACT_BRANCH_NODES)
    head = (
        f"exact geometry ({time.perf_counter() - t0:.1f} s, {res.exact_lps} exact node LPs, "
        f"{res.branched} branch nodes added)"
    )
    if res.solution is not None:
        norm = float(sum(res.solution))
        tried.append(
            f"{head}: the rational LCP has an exact solution, ||z||_1 = {norm:.4g}, beyond the rounded "
            "tree's bound (exact_solution_norm); the verdict stays the rounded LCP's"
        )
        v.evidence["exact_solution_norm"] = norm
        return v
    if res.tree is None:
        tried.append(f"{head}: a leaf's multipliers prove nothing on the rational LCP")
        return v
    N, message = tree_min_norm(sub.exact(), None, res.tree)
    tried.append(
        f"{head}: {res.rays} leaves exact Farkas rays of the rational LCP only, {res.bounds} left "
        f"norm bounds; {message}"
    )
    if N is None or N < v.evidence["tree_norm_floor"]:
        return v
    what = (
        "every leaf a Farkas ray"
        if np.isinf(N)
        else f"{res.bounds} leaves proving only norm bounds (not branched to the end within the "
        f"budget), the others Farkas rays: no solution with ||z||_1 < {N:.4g}"
    )
    evidence = {
        **v.evidence,
        "certificate": (
            f"complementarity branch-and-bound tree of the LCP in exact geometry (the declaration's "
            f"floats taken as exact, A and b in rational arithmetic: exact_geometry.exact_lcp), {what}, "
            "checked in exact arithmetic (tree_min_norm); the rounded LCP's own tree proves no "
            "solution with ||z||_1 < rounded_min_solution_norm"
        ),
        "tree": res.tree,
        "exact_geometry": True,
        "exact_branch_nodes": res.branched,
        "exact_node_lps": res.exact_lps,
        "rounded_min_solution_norm": v.evidence["min_solution_norm"],
        "min_solution_norm": N,
    }
    return _Verdict(_no_solution(N), [], evidence, True)


@dataclass
class _Options:
    time_limit: float
    delta: float
    tol: float
    uniqueness: bool
    p_matrix_max: int
    max_solutions: int
    tighten: bool
    tree_limit: float = 0.0


@dataclass
class _Verdict:
    status: Status
    solutions: list[np.ndarray] = field(default_factory=list)
    evidence: dict = field(default_factory=dict)
    exact: bool = False


def _decide_blocks(
    M: sp.csr_matrix, q: np.ndarray, L: sp.csr_matrix, what: str, blocks: list[np.ndarray], opts, tried
) -> _Verdict:
    """Decide each independent block (:func:`lcp_blocks`) and combine: one block without a
    solution decides NO_SOLUTION (its Farkas ray padded with zeros stays a ray of the whole);
    a block without a solution of norm below N (NO_SOLUTION_BELOW_BOUND) bounds the whole alike
    (||z||_1 >= ||z_block||_1), unless another block decides NO_SOLUTION; otherwise the solution
    is the blocks' solutions side by side, UNIQUE when every block is, MULTIPLE when one block
    has several (the others held at their first solution)."""
    n = q.size
    parts: list[_Verdict] = []
    undecided: _Verdict | None = None
    bounded: _Verdict | None = None  # the block bound with the largest norm
    for k, b in enumerate(blocks):
        Mb, qb = M[b][:, b], q[b]
        Lb = L[:, b].tocsr()  # every row kept (empty ones are skipped where used): row ids stay L's
        sub: list[str] = []
        # once a block is undecided or bounded, the others can only still decide "no solution"
        o = opts if undecided is None and bounded is None else replace(opts, uniqueness=False)
        v = _decide_block(Mb, qb, Lb, what, MCP.from_lcp(Mb, qb), o, sub)
        tried.extend(f"block {k} (n = {b.size}): {step}" for step in sub)
        if v.status is Status.NO_SOLUTION:
            ev = dict(v.evidence)
            if "farkas_y" in ev:
                y = np.zeros(n)
                y[b] = ev["farkas_y"]
                ev["farkas_y"] = y
            ev["block"] = b
            return _Verdict(Status.NO_SOLUTION, [], ev, v.exact)
        if v.status is Status.NO_SOLUTION_BELOW_BOUND and (
            bounded is None or v.evidence["min_solution_norm"] > bounded.evidence["min_solution_norm"]
        ):
            bounded = _Verdict(v.status, [], {**v.evidence, "block": b}, v.exact)
        if v.status is Status.UNDECIDED and undecided is None:
            undecided = _Verdict(Status.UNDECIDED, [], {**v.evidence, "block": b})
        parts.append(v)
    if bounded is not None:
        return bounded
    if undecided is not None:
        return undecided

    def whole(choice: dict[int, np.ndarray]) -> np.ndarray:
        z = np.zeros(n)
        for k, (b, v) in enumerate(zip(blocks, parts)):
            z[b] = choice.get(k, v.solutions[0])
        return z

    first = whole({})
    if all(v.status is Status.UNIQUE for v in parts):
        proofs = "; ".join(f"block {k}: {v.evidence.get('proof', '')}" for k, v in enumerate(parts))
        ev: dict = {"proof": proofs}
        trees = [
            {**c, "block": b} for b, v in zip(blocks, parts) for c in v.evidence.get("uniqueness_trees", [])
        ]
        if trees:
            ev.update(uniqueness_trees=trees, min_other_solution_norm=min(c["min_norm"] for c in trees))
        return _Verdict(Status.UNIQUE, [first], ev, all(v.exact for v in parts))
    many = [k for k, v in enumerate(parts) if v.status is Status.MULTIPLE]
    if many:
        k = many[0]
        others_unique = all(v.status is Status.UNIQUE for j, v in enumerate(parts) if j != k)
        sols = [whole({k: s}) for s in parts[k].solutions]
        ev = {
            key: val
            for key, val in parts[k].evidence.items()
            if key not in ("force_distance", "motion_distance")
        }
        ev.update(block=blocks[k], count=len(sols), complete=bool(ev.get("complete")) and others_unique)
        return _Verdict(Status.MULTIPLE, sols, ev)
    return _Verdict(
        Status.SOLVED,
        [first],
        {"reason_uniqueness_undecided": "a block's uniqueness was not decided (see tried)"},
    )


def _solution_scale(M: sp.csr_matrix, q: np.ndarray, tried: list[str]) -> tuple[int, float]:
    """(status, s): the LP ``min sum z  s.t. z >= 0, M z + q >= 0`` (status 0 feasible, 2
    infeasible) and s = max(1, its optimum), the smallest 1-norm any solution can have. The
    existence MILP is normalized on q / s, so that its solutions (z / s, with ||z / s||_1 >= 1)
    are not crushed into t ~ 1 / ||z||_1 at physical force scales (hundreds of newtons)."""
    n = q.size
    res = linprog(np.ones(n), A_ub=-M, b_ub=q, bounds=(0, None), method="highs")
    if res.status == 0:
        s = max(1.0, float(res.fun))
        tried.append(f"LP feasibility: feasible, every feasible z has ||z||_1 >= {res.fun:.4g}")
        return 0, s
    if res.status == 2:
        return 2, 1.0
    tried.append(f"LP feasibility: {res.message}")
    return int(res.status), 1.0


def _no_solution(min_norm: float) -> Status:
    """NO_SOLUTION when a certificate excludes every solution (``min_norm`` inf), else
    NO_SOLUTION_BELOW_BOUND (none with ||z||_1 < ``min_norm``)."""
    return Status.NO_SOLUTION if np.isinf(min_norm) else Status.NO_SOLUTION_BELOW_BOUND


def _tree_verdict(
    M: sp.csr_matrix, q: np.ndarray, opts: _Options, tried: list[str], scale: float = 1.0
) -> _Verdict | None:
    """The complementarity branch-and-bound (:func:`~contactmodel.analysis.certificate.branch_and_bound`,
    ``opts.tree_limit`` seconds): NO_SOLUTION with an exact tree certificate (re-checked by
    :func:`~contactmodel.analysis.certificate.tree_min_norm`), SOLVED with a verified solution, or
    None (limit reached, or a leaf without exactly verified multipliers). Leaves may prove a
    norm bound of at least ``TREE_NORM_FACTOR * scale`` (``scale``: the smallest 1-norm of an
    LP-feasible z) instead of a Farkas ray; the evidence then states the proven bound
    (``min_solution_norm``): no solution below it, none excluded beyond."""
    if opts.tree_limit <= 0:
        return None
    floor = TREE_NORM_FACTOR * max(1.0, scale)
    res = branch_and_bound(M, q, time_limit=opts.tree_limit, tol=opts.tol, norm_floor=floor)
    line = f"complementarity branch-and-bound: {res.status} ({res.nodes} nodes, {res.seconds:.1f} s"
    if res.status == "solution":
        tried.append(line + ", solution verified)")
        return _Verdict(Status.SOLVED, [res.z])
    if res.status != "no-solution" or res.unverified:
        tried.append(
            line + f", {res.unverified} leaves without an exact ray, leaves covering "
            f"{res.closed:.3g} of the 2^{q.size} complementarity patterns)"
        )
        return None
    N, message = tree_min_norm(M, q, res.certificate)
    tried.append(line + f"): {message}")
    if N is None or N < floor:
        return None
    what = (
        "every pattern's polyhedron empty by a Farkas ray"
        if np.isinf(N)
        else f"every pattern's solutions bounded below in norm: no solution with ||z||_1 < {N:.4g} "
        "(beyond that bound none is excluded; the leaves' Farkas rays would need cancellations "
        "the floating-point data only nearly have)"
    )
    return _Verdict(
        _no_solution(N),
        [],
        {
            "certificate": f"complementarity branch-and-bound tree: {what}, each leaf checked in exact "
            "arithmetic (tree_min_norm)",
            "tree": res.certificate,
            "tree_nodes": len(res.certificate.nodes),
            "tree_leaves": res.certificate.leaves,
            "tree_seconds": res.seconds,
            "tree_norm_floor": floor,
            "min_solution_norm": N,
        },
        True,
    )


def _decide_block(
    M: sp.csr_matrix, q: np.ndarray, L: sp.csr_matrix, what: str, subject, opts: _Options, tried: list[str]
) -> _Verdict:
    """Decide one LCP block (module docstring): Farkas ray, solvers, the pattern MILP on q / s
    (:func:`_solution_scale`), uniqueness proofs and the second-solution MILPs."""
    n = q.size
    time_limit, tol = opts.time_limit, opts.tol
    # 1. feasibility of {z >= 0, M z + q >= 0}; a Farkas ray when empty
    feas, s = _solution_scale(M, q, tried)
    if feas == 2:
        y = farkas_ray(M, q)
        if y is not None:
            ok, worst, qy = verify_farkas(M, q, y)
            tried.append(
                f"Farkas ray: exact check {'passed' if ok else 'failed'} "
                f"(max M^T y = {float(worst):.3g}, q.y = {float(qy):.3g})"
            )
            if ok:
                return _Verdict(
                    Status.NO_SOLUTION,
                    [],
                    {
                        "certificate": "Farkas ray: y >= 0, M^T y <= 0, q.y < 0 (exact)",
                        "farkas_y": y,
                        "q_dot_y": float(qy),
                        "max_MTy": float(worst),
                    },
                    True,
                )
        else:
            tried.append("LP infeasible but no Farkas ray found")

    # 2. a solution: the project's solvers, else the pattern MILP on (M, q / s)
    z1 = _try_solvers(subject, True, tol, tried) if feas != 2 else None
    if z1 is None:
        Ms, qs = _scaled(M, q / s)
        bounds = None
        if opts.tighten:
            tb = time.perf_counter()
            bounds = lp_bounds(Ms, qs, budget=0.25 * time_limit)
            tried.append(
                f"LP bounds on the normalized z, w ({time.perf_counter() - tb:.1f} s): "
                f"{int(np.sum(bounds[0] < 1))} of {n} z-bounds below 1, "
                f"{int(np.sum(bounds[0] <= 1e-6))} z and {int(np.sum(bounds[1] <= 1e-6))} w at most 1e-6"
            )
        res = pattern_milp(Ms, qs, time_limit=time_limit, bounds=bounds)
        tried.append(
            f"pattern MILP on q / {s:.4g}: {res.status} ({res.seconds:.1f} s), "
            f"t = {res.t}, t <= {res.t_bound:.3g}"
        )
        if (
            res.infeasible
            and (tree := _tree_verdict(M, q, opts, tried, s)) is not None
            and not tree.solutions
        ):
            tree.evidence.update(milp_t_bound=0.0, milp_seconds=res.seconds)
            return tree
        if res.infeasible:
            return _Verdict(
                Status.NO_SOLUTION,
                [],
                {
                    "certificate": "pattern MILP infeasible (HiGHS): no solution and no homogeneous solution",
                    "milp_t_bound": 0.0,
                    "milp_seconds": res.seconds,
                },
            )
        if res.candidate:
            z = pattern_point(M, q, res.pattern)
            if z is None and res.z is not None:
                z = res.z / res.t * s
            if z is not None and lcp_residual(M, q, z) <= tol:
                z1 = z
            else:
                tried.append("the MILP's pattern gave no verified point")
        if z1 is None:
            bound = res.t_bound
            norm = float("inf") if bound <= 0 else s * (1.0 / bound - 1.0)
            tree = _tree_verdict(M, q, opts, tried, s)
            if tree is not None:
                if tree.solutions:
                    z1 = tree.solutions[0]
                else:
                    tree.evidence.update(milp_t_bound=bound, milp_scale=s, milp_seconds=res.seconds)
                    return tree
        if z1 is None:
            if res.zero:
                return _Verdict(
                    _no_solution(norm),
                    [],
                    {
                        "certificate": (
                            f"pattern MILP optimum t <= {T_ZERO:g} (HiGHS, not re-verified exactly): "
                            "every solution z has ||z||_1 >= s (1/t_bound - 1) (min_solution_norm)"
                        ),
                        "milp_t_bound": bound,
                        "milp_scale": s,
                        "min_solution_norm": norm,
                        "milp_seconds": res.seconds,
                    },
                )
            return _Verdict(
                Status.UNDECIDED,
                [],
                {
                    "reason": (
                        f"pattern MILP optimum t = {res.t:.3g} > T_ZERO, its pattern gave no verified point"
                        if res.optimal and res.candidate
                        else "pattern MILP stopped without a verified solution or a proof"
                    ),
                    "min_solution_norm": norm,
                    "milp_t": res.t,
                    "milp_t_bound": bound,
                    "milp_scale": s,
                    "milp_seconds": res.seconds,
                },
            )
    if not opts.uniqueness:
        return _Verdict(Status.SOLVED, [z1])

    # 3. uniqueness
    proof = _uniqueness_proof(M, opts.p_matrix_max)
    if proof is not None:
        tried.append(f"uniqueness: {proof}")
        return _Verdict(Status.UNIQUE, [z1], {"proof": proof}, True)
    # 4. more solutions: each MILP asks for one whose compared quantity (the contact forces of a
    # problem, z itself for a bare LCP) is at distance >= d from those of all found so far
    Ms, qs = _scaled(M, q)
    alpha = max(1.0, float(np.abs(z1).sum()))
    d = opts.delta * max(1.0, float(np.abs(L @ z1).max(initial=0.0)))
    found = [z1]
    while True:
        res = pattern_milp(
            Ms, qs / alpha, away=[L @ z / alpha for z in found], delta=d / alpha, time_limit=time_limit, L=L
        )
        tried.append(
            f"MILP for a solution at ||{what} - {what}_k||_inf >= {d:.3g} from the {len(found)} found: "
            f"{res.status} ({res.seconds:.1f} s), t = {res.t}, t <= {res.t_bound:.3g}"
        )
        z2 = None
        if res.candidate:
            for z in (pattern_point(M, q, res.pattern), None if res.z is None else res.z / res.t * alpha):
                if (
                    z is not None
                    and lcp_residual(M, q, z) <= tol
                    and min(np.abs(L @ (z - f)).max(initial=0.0) for f in found) >= 0.5 * d
                ):
                    z2 = z
                    break
            if z2 is None:
                tried.append("the MILP's point did not verify")
        if z2 is None and len(found) == 1:  # the exact trees (module docstring), if time is given
            kind, out = _uniqueness_trees(M, q, L, z1, d, opts, tried)
            if kind == "unique":
                norm = min((c["min_norm"] for c in out), default=float("inf"))
                return _Verdict(
                    Status.UNIQUE,
                    found,
                    {
                        "proof": (
                            f"unique up to {d:.3g}: for each force row i and side, a complementarity "
                            f"tree of the LCP with the row (L z)_i >= (L z1)_i + {d:.3g} (or <= ... - d) "
                            f"added, checked exactly: no such solution with ||z||_1 < {norm:.4g}"
                        ),
                        "delta": d,
                        "min_other_solution_norm": norm,
                        "uniqueness_trees": out,
                    },
                    True,
                )
            if kind == "solution":
                z2 = out
        if z2 is not None:
            found.append(z2)
            if len(found) < opts.max_solutions:
                continue
            break
        if res.zero:
            bound = 0.0 if res.infeasible else res.t_bound
            norm = float("inf") if bound <= 0 else alpha * (1.0 / bound - 1.0)
            complete = (
                f"MILP optimum t <= {T_ZERO:g} (HiGHS), taken as 0: no solution with "
                f"||{what} - {what}_k||_inf >= {d:.3g} for every one found "
                f"and ||z||_1 < {norm:.3g}"
            )
            if len(found) == 1:
                return _Verdict(
                    Status.UNIQUE,
                    found,
                    {
                        "proof": f"unique up to {d:.3g}: {complete}",
                        "delta": d,
                        "min_other_solution_norm": norm,
                    },
                )
            return _Verdict(
                Status.MULTIPLE, found, {"complete": True, "count": len(found), "proof": complete}
            )
        if len(found) == 1:
            return _Verdict(
                Status.SOLVED,
                found,
                {
                    "reason_uniqueness_undecided": (
                        f"second-solution MILP optimum t = {res.t:.3g} > T_ZERO, but its point did not verify"
                        if res.optimal and res.candidate
                        else "second-solution MILP stopped without a decision"
                    ),
                    "milp_t_bound": res.t_bound,
                },
            )
        break
    return _Verdict(Status.MULTIPLE, found, {"complete": False, "count": len(found)})


def away_lcp(M, q: np.ndarray, row, bound: float) -> tuple[sp.csr_matrix, np.ndarray]:
    """LCP(q, M) with the condition ``row . z >= bound`` added as an LCP row: a variable s
    with a zero column and the row ``w_s = row . z - bound``, so ``(M', q')`` of size n + 1
    (``row``: (n,) or a (1, n) sparse row). Its solutions are exactly (z, s) with z a solution
    of LCP(q, M) with ``row . z >= bound`` and s >= 0 (s = 0 always allowed: no solution of
    (M', q') with ``||(z, s)||_1 < N`` means no such z with ``||z||_1 < N``)."""
    M = sp.csr_matrix(M, dtype=float)
    n = q.size
    r = sp.csr_matrix(sp.csr_matrix(row, dtype=float).reshape(1, n))
    big = sp.bmat([[M, sp.csr_matrix((n, 1))], [r, sp.csr_matrix((1, 1))]], format="csr")
    return big, np.append(np.asarray(q, dtype=float), -float(bound))


def _uniqueness_trees(
    M: sp.csr_matrix, q: np.ndarray, L: sp.csr_matrix, z1: np.ndarray, d: float, opts: _Options, tried
) -> tuple[str, object]:
    """Exact trees for "no second solution": for each row i of L with entries and each side,
    the complementarity branch-and-bound on :func:`away_lcp` with ``sign (L z)_i >= sign (L
    z1)_i + d``; every tree checked by :func:`tree_min_norm` (norm-bound leaves accepted from
    ``TREE_NORM_FACTOR ||z1||_1``). ("unique", [{"row", "sign", "bound", "tree", "min_norm"}, ...])
    when all prove it, ("solution", z) for a verified solution at distance >= d / 2 in L z,
    else ("open", None). All trees share ``opts.tree_limit`` seconds."""
    if opts.tree_limit <= 0:
        return "open", None
    t0 = time.perf_counter()
    L = sp.csr_matrix(L)
    v = L @ z1
    n = q.size
    floor = TREE_NORM_FACTOR * max(1.0, float(np.abs(z1).sum()))
    out: list[dict] = []
    nodes = 0
    for i in np.flatnonzero(np.diff(L.indptr) > 0):
        for sign in (1.0, -1.0):
            left = opts.tree_limit - (time.perf_counter() - t0)
            bound = float(sign * v[i] + d)
            Ma, qa = away_lcp(M, q, sign * L[i], bound)
            res = branch_and_bound(Ma, qa, time_limit=max(left, 0.0), tol=opts.tol, norm_floor=floor)
            nodes += res.nodes
            if res.status == "solution":
                z = res.z[:n]
                if lcp_residual(M, q, z) <= opts.tol and np.abs(L @ z - v).max(initial=0.0) >= 0.5 * d:
                    tried.append(f"uniqueness trees: a second solution in row {i} ({nodes} nodes)")
                    return "solution", z
            N = None
            if res.status == "no-solution" and not res.unverified:
                N, _ = tree_min_norm(Ma, qa, res.certificate)
            if N is None or N < floor:
                tried.append(
                    f"uniqueness trees: row {i} side {sign:+.0f} {res.status}, not proven "
                    f"({nodes} nodes, {time.perf_counter() - t0:.1f} s)"
                )
                return "open", None
            out.append({"row": int(i), "sign": sign, "bound": bound, "tree": res.certificate, "min_norm": N})
    tried.append(
        f"uniqueness trees: {len(out)} trees ({nodes} nodes, {time.perf_counter() - t0:.1f} s), each "
        "checked exactly: no second solution at distance >= d"
    )
    return "unique", out


def _enumerated_verdict(
    problem: Problem, x1: np.ndarray | None, opts: _Options, tried: list[str]
) -> _Verdict | None:
    """The verdict of :func:`~contactmodel.analysis.single_contact.single_contact_modes` (one
    rolling Coulomb contact), or None (not that form, a degenerate mode, an enumeration the verified
    x1 does not match, or solutions whose lifts do not verify). With x1 (verified): UNIQUE or
    MULTIPLE; without (no solver solved the problem): NO_SOLUTION when no mode solves, else the
    enumerated solutions, each verified."""
    from contactmodel.analysis.single_contact import single_contact_modes  # sympy: imported when needed

    modes = single_contact_modes(problem)
    if modes is None:
        return None
    C = force_map(problem)
    m = problem.assembly.m
    rows = modes["rows"]
    listed = ", ".join(f"{kind} c = {np.array2string(c, precision=4)}" for kind, c in modes["forces"])
    what = (
        "one rolling Coulomb contact, every mode enumerated exactly (separate; stick; slide at angle th: "
        "the slip condition a polynomial of degree <= 4 in tan(th/2), its real roots isolated "
        "and the signs of c_n and of the slip speed decided at each, in rational arithmetic; "
        "single_contact_modes)"
    )
    if x1 is None and modes["count"] == 0:
        tried.append(f"{what}: no mode solves")
        return _Verdict(Status.NO_SOLUTION, [], {"certificate": f"{what}: no mode solves"}, True)
    found: list[np.ndarray] = [] if x1 is None else [x1]
    forces: list[np.ndarray] = [] if x1 is None else [C @ x1]
    scale = max([1.0] + [float(np.abs(c).max(initial=0.0)) for _, c in modes["forces"]])
    d = opts.delta * scale
    if forces and not any(np.abs(c - forces[0][rows]).max() < d for _, c in modes["forces"]):
        tried.append(f"{what}: {listed or 'none'}; the verified solution not among them")
        return None
    tried.append(f"{what}: {modes['count']} solution(s): {listed}")
    for _, c in modes["forces"]:
        full = np.zeros(m)
        full[rows] = c
        if all(np.abs(full - f).max() >= d for f in forces):
            x = point_of_forces(problem, full)
            if verify_point(problem, x, opts.tol)[0]:
                found.append(x)
                forces.append(full)
    if not found:
        return None
    if modes["count"] == 1:
        proof = f"{what}: exactly one solution ({modes['forces'][0][0]})"
        return _Verdict(Status.UNIQUE, found[:1], {"proof": proof, "modes": listed}, True)
    if len(found) < 2 and x1 is not None:  # the other searches may still find a second
        return None
    if len(found) < 2:
        return _Verdict(
            Status.SOLVED,
            found,
            {
                "reason_uniqueness_undecided": f"{what}: {modes['count']} solutions, one verified",
                "modes": listed,
            },
        )
    evidence = {
        "complete": len(found) == modes["count"],
        "count": modes["count"],
        "found_by": what,
        "modes": listed,
    }
    return _Verdict(Status.MULTIPLE, found, evidence, True)


def _second_solutions_nonlinear(target: _Target, x1: np.ndarray, k: int, opts: _Options, tried) -> _Verdict:
    """Uniqueness of a nonlinear problem (round laws) with a verified solution x1, through its
    normal relaxation (:func:`normal_relaxation` with outer ``min(k, SEARCH_K)``-gons, an outer
    approximation: every solution's forces c are some relaxation solution's ``G beta``). The
    relaxation decided with uniqueness in c:
    ``UNIQUE`` in forces when its forces are unique (they are then x1's); otherwise newton is
    started from each relaxation solution's forces (``x0`` the least-squares point with C x0 =
    G beta, C the force map) and every verified solution whose forces differ from those found by
    at least ``delta max(1, ||c1||_inf)`` counts: ``MULTIPLE`` from two; else ``SOLVED`` with the
    relaxation's spread of forces in the reason (it drops maximum dissipation: its other
    solutions need not be the problem's)."""
    from contactmodel.solve import solve

    problem = target.problem
    mono = monotone_uniqueness(problem)
    if mono is not None:
        tried.append(f"strong monotonicity (De Saxcé's form): eps = {eps_text(mono['eps'])}")
        return _Verdict(
            Status.UNIQUE,
            [x1],
            {
                "proof": (
                    "the forces are unique: the problem in De Saxcé's form is a strongly "
                    "monotone variational inequality (Q positive definite at eps = "
                    f"{eps_text(mono['eps'])}, "
                    f"smallest eigenvalue {mono['min_eig']:.3g}; monotone_uniqueness)"
                ),
                "monotone_eps": mono["eps"],
                "monotone_min_eig": mono["min_eig"],
            },
            True,
        )
    internal = internal_uniqueness(problem, x1, opts.tol)
    if internal is not None:
        tried.append(
            f"monotonicity up to internal forces: Q(eps = {eps_text(internal['eps'])}) positive "
            "semidefinite, "
            f"its {internal['null_dimension']} null directions move no contact, the faces of x1 exclude them"
        )
        return _Verdict(
            Status.UNIQUE,
            [x1],
            {
                "proof": (
                    "the forces are unique: De Saxcé's form is monotone with Q(eps = "
                    f"{eps_text(internal['eps'])}) positive semidefinite (smallest eigenvalue off its null "
                    "space "
                    f"{internal['min_eig']:.3g}), so two solutions differ by a null vector of Q; those "
                    f"({internal['null_dimension']}) are internal forces (A E d = 0: the same "
                    "accelerations), and "
                    "at those accelerations every contact's solutions lie in one face of its cone, whose "
                    "span excludes every such d (smallest singular value "
                    f"{internal['face_singular_value']:.3g}; internal_uniqueness)"
                ),
                "monotone_eps": internal["eps"],
                "monotone_min_eig": internal["min_eig"],
                "null_dimension": internal["null_dimension"],
            },
        )
    enumerated = _enumerated_verdict(problem, x1, opts, tried)
    if enumerated is not None:
        return enumerated
    cont = continuum_solution(problem, x1, opts.tol, opts.delta)
    if cont is not None:
        tried.append(
            f"continuum test: internal forces with A d = 0 (smallest singular value of A W "
            f"{cont['null_singular_value']:.2e}, {cont['continuum_dimension']} null directions), step "
            f"{cont['step']:.3g}: a second verified solution and its midpoint"
        )
        return _Verdict(
            Status.MULTIPLE,
            [x1, cont["x2"]],
            {
                "complete": False,
                "count": 2,
                "found_by": "continuum test (continuum_solution): internal forces that produce no motion",
                "continuum": True,
                "continuum_evidence": (
                    "every convex combination of the two solutions solves: their contact accelerations "
                    "are equal (A d = 0) and at fixed accelerations each contact's solutions form a "
                    "convex set (a face of its friction cone); the midpoint verified too (residual "
                    f"{cont['midpoint_residual']:.1e}); null directions of A W: {cont['continuum_dimension']}"
                ),
                "continuum_dimension": cont["continuum_dimension"],
                "null_singular_value": cont["null_singular_value"],
                "midpoint_residual": cont["midpoint_residual"],
            },
        )
    tried.append("continuum test: no internal force without motion that keeps the laws")
    C = force_map(problem)
    c1 = C @ x1
    d = opts.delta * max(1.0, float(np.abs(c1).max(initial=0.0)))
    found, forces = [x1], [c1]
    k = min(k, SEARCH_K)
    try:
        MR, qR, G = normal_relaxation(problem, k)
    except ContactModelError as exc:
        tried.append(f"normal relaxation: {type(exc).__name__}: {exc}")
        return _Verdict(Status.SOLVED, found, {"reason_uniqueness_undecided": f"no normal relaxation: {exc}"})
    sub: list[str] = []
    blocks = lcp_blocks(MR) if qR.size else [np.arange(0)]
    o = replace(opts, max_solutions=opts.max_solutions + 1)
    if len(blocks) == 1:
        rel = _decide_block(MR, qR, sp.csr_matrix(G), "forces c", MCP.from_lcp(MR, qR), o, sub)
    else:
        rel = _decide_blocks(MR, qR, sp.csr_matrix(G), "forces c", blocks, o, sub)
    what = f"relaxation (outer {k}-gons, normal complementarity only, LCP size {qR.size})"
    tried.extend(f"{what}: {step}" for step in sub)
    if rel.status is Status.UNIQUE:
        return _Verdict(
            Status.UNIQUE,
            found,
            {"proof": f"the {what} has unique forces: {rel.evidence.get('proof', '')}", "relaxation_k": k},
            rel.exact,
        )
    why, facts = _why_open(problem)
    Cd = C.toarray()
    spread = 0.0
    for beta in rel.solutions:
        spread = max(spread, float(np.abs(G @ beta - c1).max(initial=0.0)))
        x0 = np.linalg.lstsq(Cd, G @ beta, rcond=None)[0] if Cd.size else np.zeros(x1.size)
        try:
            sol = solve(problem, solver="newton", accept_tol=opts.tol, x0=x0)
        except Exception as exc:  # a failed start is a step tried, not a verdict
            tried.append(f"newton from a relaxation solution: {type(exc).__name__}: {exc}")
            continue
        if not (sol.ok and sol.residual <= opts.tol and sol.x is not None):
            continue
        x = np.asarray(sol.x, dtype=float)
        c = C @ x
        if all(np.abs(c - f).max(initial=0.0) >= d for f in forces):
            found.append(x)
            forces.append(c)
    tried.append(
        f"newton from the {len(rel.solutions)} relaxation solutions (forces up to {spread:.3g} from c1): "
        f"{len(found)} verified solutions with forces >= {d:.3g} apart"
    )
    if len(found) >= 2:
        return _Verdict(
            Status.MULTIPLE,
            found,
            {
                "complete": False,
                "count": len(found),
                "found_by": "newton started from the normal relaxation's solutions",
            },
        )
    return _Verdict(
        Status.SOLVED,
        found,
        {
            "reason_uniqueness_undecided": (
                f"round friction laws make the MCP nonlinear; {why}; the {what} is {rel.status.value} "
                f"(its solutions' forces up to {spread:.3g} from this one's: maximum dissipation dropped) "
                "and newton started from them found no other solution"
            ),
            "relaxation_force_spread": spread,
            **facts,
        },
    )


def _why_open(problem: Problem) -> tuple[str, dict]:
    """Why strong monotonicity, the mode enumeration and the continuum test left uniqueness open:
    (text, facts). With ``S = sym(P A E)`` (:func:`monotone_uniqueness`), ``Q(eps) = S - (positive
    semidefinite terms)``, so ``lambda_min(Q) <= lambda_min(S)`` for every eps: S singular (A has
    null directions: more contact rows than the bodies' freedoms) excludes the proof outright."""
    from contactmodel.friction.cone import CoulombCone

    mono = monotone_terms(problem)
    if mono is None:
        return "strong monotonicity does not cover these laws (or contacts)", {}
    S = mono.S
    lam = float(np.linalg.eigvalsh(S).min())
    A = sp.csr_matrix(problem.assembly.A_sparse).toarray()
    ev = np.linalg.eigvalsh(0.5 * (A + A.T))
    null = int(np.sum(ev <= 1e-10 * max(1.0, float(np.abs(ev).max(initial=0.0)))))
    facts = {"sym_pae_min_eig": lam, "a_null_directions": null}
    if lam <= 1e-10 * max(1.0, float(np.abs(S).max())):
        return (
            f"sym(P A E) is singular (smallest eigenvalue {lam:.2g}; A has {null} null directions: "
            "statically indeterminate), so Q(eps) is positive definite for no eps; for no eps is it positive "
            "semidefinite with null directions that are internal forces excluded by the contacts' faces "
            "(internal_uniqueness), and the continuum test found no internal force without motion that keeps "
            "the laws (a contact that slips or sits on its set's boundary keeps its force's ray)"
        ), facts
    one = len(problem.contact_names) == 1 and not isinstance(
        problem.laws[problem.contact_names[0]], CoulombCone
    )
    return (
        f"sym(P A E) is positive definite (smallest eigenvalue {lam:.3g}) but the friction coupling is "
        "larger: Q(eps) has no Cholesky factor for any eps searched (the grid 10^-3 .. 10^3, then one eps "
        "per norm maximizing Q's smallest eigenvalue)"
        + ("; one contact, but the exact mode enumeration covers Coulomb cones only" if one else "")
    ), facts


def _decide_relaxation(problem: Problem, k: int, time_limit: float, tol: float, tried: list[str]) -> _Verdict:
    """A nonlinear problem no solver solved: NO_SOLUTION when its normal-complementarity
    relaxation (:func:`normal_relaxation`) has none, else UNDECIDED (the relaxation's solution
    need not meet the maximum-dissipation conditions). One rolling Coulomb contact is decided by
    enumerating its modes first
    (:func:`~contactmodel.analysis.single_contact.single_contact_modes`)."""
    enumerated = _enumerated_verdict(problem, None, _Options(time_limit, 1e-4, tol, True, 0, 3, True), tried)
    if enumerated is not None:
        return enumerated
    try:
        MR, qR, _ = normal_relaxation(problem, k)
    except ContactModelError as exc:  # e.g. a law without a friction set
        tried.append(f"normal relaxation: {type(exc).__name__}: {exc}")
        return _Verdict(Status.UNDECIDED, [], {"reason": f"no normal relaxation: {exc}"})
    sub: list[str] = []
    opts = _Options(time_limit, 0.0, tol, False, 0, 1, True, time_limit)
    blocks = lcp_blocks(MR) if qR.size else [np.arange(0)]
    L = sp.identity(qR.size, format="csr")
    what = f"relaxation (outer {k}-gons, normal complementarity only, LCP size {qR.size})"
    if len(blocks) == 1:
        v = _decide_block(MR, qR, L, "z", MCP.from_lcp(MR, qR), opts, sub)
    else:
        v = _decide_blocks(MR, qR, L, "z", blocks, opts, sub)
    tried.extend(f"{what}: {step}" for step in sub)
    if v.status in (Status.NO_SOLUTION, Status.NO_SOLUTION_BELOW_BOUND):
        ev = {f"relaxation_{key}" if key != "certificate" else key: val for key, val in v.evidence.items()}
        ev["certificate"] = f"the relaxation has no solution ({v.evidence.get('certificate', '')})"
        ev["relaxation_k"] = k
        if "relaxation_farkas_y" in ev:  # the benchmark and the tests re-check it by this name
            ev["farkas_y"] = ev.pop("relaxation_farkas_y")
        if v.status is Status.NO_SOLUTION_BELOW_BOUND:
            # the relaxation's ||beta||_1 is the sum of the contacts' normal forces (c_n = sum_j
            # beta_j at a contact): no solution of the problem with a smaller sum
            ev["min_solution_norm"] = ev.pop("relaxation_min_solution_norm")
            ev["norm_of"] = "the sum of the contacts' normal forces"
        return _Verdict(v.status, [], ev, v.exact)
    tighter = _linear_rows_verdict(problem, k, time_limit, tol, tried)
    if tighter is not None:
        return tighter
    reason = f"round friction laws make the MCP nonlinear; no solver found a solution and the {what} " + (
        "has a solution (maximum dissipation not checked)" if v.solutions else "is undecided"
    )
    return _Verdict(Status.UNDECIDED, [], {"reason": reason, "relaxation_k": k})


def _linear_rows_verdict(problem: Problem, k: int, time_limit: float, tol: float, tried: list[str]):
    """NO_SOLUTION when the relaxation that keeps every contact's linear rows exact
    (:func:`~contactmodel.analysis.round_laws.linear_rows_relaxation`: a polyhedral law's maximum
    dissipation kept, a round law's rolling contacts relaxed as in the normal relaxation) has no
    solution, decided as an LCP of its own; else None (that relaxation has a solution, is
    undecided, or is the normal relaxation itself)."""
    relaxed = linear_rows_relaxation(problem, k)
    if relaxed is None:
        return None
    what = f"relaxation keeping the linear rows (outer {k}-gons at the nonlinear contacts)"
    verdict = decide(relaxed, time_limit=time_limit, tol=tol, uniqueness=False)
    tried.append(f"{what}: {verdict.status.value}")
    if verdict.status is not Status.NO_SOLUTION:
        return None
    evidence = {f"relaxation_{key}": val for key, val in verdict.evidence.items() if key != "certificate"}
    evidence["certificate"] = f"the {what} has no solution ({verdict.evidence.get('certificate', '')})"
    evidence["relaxation_k"] = k
    evidence["relaxation"] = "linear rows kept"
    return _Verdict(Status.NO_SOLUTION, [], evidence, verdict.exact)
