"""A formulated problem's LCP in exact rational arithmetic: the declared geometry taken as exact.

A contact problem is declared in floats (masses, inertias, positions, contact points, frames,
forces, velocities, mu). Every float is a rational number, so the declaration defines one exact
problem; the compiled LCP ``(M, q)`` is that problem rounded, entry by entry, on its way through
``A = G M^-1 G^T`` and ``b = G M^-1 f + G_dot nu``. The rounding matters exactly where a
decision needs an exact cancellation: four contacts of a box on one face have normal rows
``[n, (r_k x n)]`` that lie in a 3-dimensional space, so the contact forces have an exact
internal (self-equilibrated) direction d with ``G^T d = 0``; rounding ``r_k x n`` breaks that, M
has a tiny eigenvalue instead of a zero one, and a Farkas ray of a pattern containing d, which
needs ``(M^T y) . d = 0``, exists in exact arithmetic but not for the rounded M (the trees of
:mod:`contactmodel.analysis.certificate` then prove only a norm bound).

:func:`exact_lcp` builds the compiled LCP with A and b computed in rational arithmetic from the
declaration: ``G = [C, -C [r]x]`` per body with ``r = p - x`` exact, the mass blocks' exact
inverses, ``A = (G M^-1 G^T + its transpose) / 2`` and b as the assembly defines them
(:mod:`contactmodel.assembly`). The LCP is ``M = S A C + R``, ``q = S b + r0``: S = dq/db read from
the compiled problem (:func:`~contactmodel.analysis.lcp.q_of_b`), C the force map (c = C z) and
R the laws' own terms (mu, the pyramid's +-1), the entries of the compiled M off the pattern of
S A C. The rational LCP agrees with the compiled one to rounding (checked, else an error).
:func:`exact_tree` turns a tree certificate's norm-bound leaves into exact Farkas rays of this
rational LCP, each by one rational solve of its tight columns (:func:`repair`), else by its node
LP solved exactly (:mod:`~contactmodel.analysis.exact_lp`). A leaf whose exact LP has t > 0 is
nonempty in exact arithmetic too (a near cancellation of the declared data, not an exact one);
such leaves are branched on at their exact optimal points, within a node budget and the
smallest proven norm first: every leaf becomes a ray, or an exact solution turns up, or the
tree's bound rises as far as the budget allows.
"""

from __future__ import annotations

import heapq
import logging
import time
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from contactmodel.analysis.certificate import (
    ExactLCP,
    TreeCertificate,
    farkas_lp,
    leaves,
    solve_rational,
)
from contactmodel.analysis.exact_lp import (
    ExactNodeLP,
    NodeOptimum,
    pivot_columns,
    residue_mod_p,
    to_fmpq,
    to_fraction,
)
from contactmodel.analysis.lcp import q_of_b
from contactmodel.analysis.round_laws import force_map
from contactmodel.assembly import Assembly
from contactmodel.errors import SolverError
from contactmodel.system import Body

log = logging.getLogger(__name__)

#: branch nodes between two progress lines of :func:`exact_tree` (logging, INFO)
REPORT_BRANCHES = 500

#: the rational LCP must agree with the compiled one to this, relative to max |M|, |q|
AGREE = 1e-12


@dataclass
class RationalLCP:
    """LCP(q, M) with rational entries: ``rows[i]`` maps column j to M_ij (nonzeros only)."""

    rows: list[dict[int, Fraction]]
    q: list[Fraction]

    @property
    def n(self) -> int:
        return len(self.q)

    def to_float(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """(M, q) rounded to floats."""
        ri = [i for i, row in enumerate(self.rows) for _ in row]
        cj = [j for row in self.rows for j in row]
        v = [float(x) for row in self.rows for x in row.values()]
        M = sp.csr_matrix((v, (ri, cj)), shape=(self.n, self.n))
        return M, np.array([float(x) for x in self.q])

    def w(self, z: list[Fraction], t: Fraction = Fraction(1)) -> list[Fraction]:
        """``M z + q t``, exactly."""
        return [sum((v * z[j] for j, v in row.items()), qi * t) for row, qi in zip(self.rows, self.q)]

    def block(self, index) -> RationalLCP | None:
        """The sub-LCP on ``index`` (its rows and columns, renumbered), or None when a row of it
        has an entry outside ``index`` (the block's w would then depend on other variables)."""
        index = [int(i) for i in index]
        where = {g: k for k, g in enumerate(index)}
        rows = []
        for g in index:
            if any(j not in where for j in self.rows[g]):
                return None
            rows.append({where[j]: v for j, v in self.rows[g].items()})
        return RationalLCP(rows, [self.q[g] for g in index])

    def exact(self) -> ExactLCP:
        """The integer form of :class:`~contactmodel.analysis.certificate.ExactLCP` that checks
        rays and trees."""
        return ExactLCP.from_rows(self.rows, self.q)


# -- exact A and b of a system of free bodies -------------------------------------------------------


def _matrix(values) -> flint.fmpq_mat:
    """A float array (1-D: a column) as an exact FLINT matrix."""
    a = np.asarray(values, dtype=float)
    a = a.reshape(-1, 1) if a.ndim == 1 else a
    return flint.fmpq_mat(a.shape[0], a.shape[1], [to_fmpq(float(v)) for v in a.ravel()])


def _skew(r: flint.fmpq_mat) -> flint.fmpq_mat:
    x, y, z = r[0, 0], r[1, 0], r[2, 0]
    zero = flint.fmpq(0)
    return flint.fmpq_mat(3, 3, [zero, -z, y, z, zero, -x, -y, x, zero])


def exact_contact_matrices(assembly) -> tuple[list[dict[int, Fraction]], list[Fraction]]:
    """(A, b) of an assembly of free bodies in rational arithmetic (module docstring), in FLINT's
    exact matrices: A's rows as ``{column: A_ij}``, b (m,). Raises SolverError for manipulators,
    prescribed coordinates or a problem given by matrices (its A, b are data, not geometry)."""
    system = getattr(assembly, "system", None)
    if not isinstance(assembly, Assembly) or system.manipulators or assembly.prescribed.any():
        raise SolverError(
            "exact geometry needs a problem formulated from a System of free bodies (no manipulators, "
            "no prescribed accelerations); a problem given by A and b has no geometry to take as exact"
        )
    g = _matrix(system.gravity)
    # each body's rows of G (contact row, its 6 entries) and the G_dot nu terms of every row
    rows: dict[int, list[tuple[int, list[flint.fmpq]]]] = {id(b): [] for b in system.bodies}
    bias: list[flint.fmpq] = []
    for contact in system.contacts:
        frame, point = _matrix(contact.frame), _matrix(contact.point)
        base = len(bias)
        acc = [flint.fmpq(0)] * contact.dimension
        for body, sign in ((contact.body_a, 1), (contact.body_b, -1)):
            if not isinstance(body, Body):
                continue
            r = point - _matrix(body.position)
            lever = frame * _skew(r)
            spin = _skew(_matrix(body.angular_velocity))
            centripetal = frame * (spin * (spin * r))
            for k in range(3):
                entries = [frame[k, i] for i in range(3)] + [-lever[k, i] for i in range(3)]
                rows[id(body)].append((base + k, [sign * v for v in entries]))
                acc[k] += sign * centripetal[k, 0]
            if contact.torsion:
                entries = [flint.fmpq(0)] * 3 + [frame[0, i] for i in range(3)]
                rows[id(body)].append((base + 3, [sign * v for v in entries]))
        if contact.curvature is not None:
            acc = [a + to_fmpq(float(c)) for a, c in zip(acc, contact.curvature)]
        bias += acc
    m = len(bias)
    A: list[dict[int, Fraction]] = [{} for _ in range(m)]
    b = list(bias)
    for body in system.bodies:
        touching = rows[id(body)]
        if not touching:
            continue
        inertia = _matrix(body.inertia_world)
        mass = to_fmpq(float(body.mass))
        w = _matrix(body.angular_velocity)
        wrench = _matrix(body.wrench)
        force = flint.fmpq_mat(6, 1, [wrench[i, 0] + mass * g[i, 0] for i in range(3)] + [0] * 3)
        torque = _skew(w) * (inertia * w)
        for i in range(3):
            force[3 + i, 0] = wrench[3 + i, 0] - torque[i, 0]
        inverse = flint.fmpq_mat(6, 6)
        inertia_inverse = inertia.inv()
        for i in range(3):
            inverse[i, i] = 1 / mass
            for j in range(3):
                inverse[3 + i, 3 + j] = inertia_inverse[i, j]
        G = flint.fmpq_mat(len(touching), 6, [v for _, entries in touching for v in entries])
        GW = G * inverse
        block, response = GW * G.transpose(), GW * force
        index = [row for row, _ in touching]
        for a, i in enumerate(index):
            b[i] += response[a, 0]
            for c, j in enumerate(index):
                A[i][j] = A[i].get(j, 0) + block[a, c]
    half = Fraction(1, 2)
    sym = [
        {j: half * (to_fraction(v) + to_fraction(A[j].get(i, flint.fmpq(0)))) for j, v in A[i].items()}
        for i in range(m)
    ]
    return [{j: v for j, v in row.items() if v} for row in sym], [to_fraction(v) for v in b]


def _entries(K: sp.csr_matrix, i: int) -> list[tuple[int, Fraction]]:
    """Row i of a CSR matrix as (column, exact value) pairs."""
    lo, hi = K.indptr[i], K.indptr[i + 1]
    return [(int(j), Fraction(float(v))) for j, v in zip(K.indices[lo:hi], K.data[lo:hi])]


def exact_lcp(problem) -> RationalLCP:
    """The compiled LCP of ``problem`` (a reduced-form Problem of free bodies with polyhedral
    laws) with A and b in rational arithmetic (module docstring). Raises SolverError when the
    problem has no such LCP or the rational LCP does not agree with the compiled one."""
    mcp = problem.compile().mcp
    if (
        mcp.M is None
        or mcp.cones is not None
        or np.any(np.asarray(mcp.lb) != 0)
        or np.any(np.isfinite(mcp.ub))
    ):
        raise SolverError("exact geometry is for a problem whose compiled MCP is an LCP (polyhedral laws)")
    A_rows, b = exact_contact_matrices(problem.assembly)
    M0 = sp.csr_matrix(mcp.M, dtype=float)
    q0 = np.asarray(mcp.q, dtype=float)
    q_zero, S = q_of_b(problem)
    S = sp.csr_matrix(S)
    C = sp.csr_matrix(force_map(problem))
    A = sp.csr_matrix(problem.assembly.A_sparse)
    pattern = (abs(S) @ abs(A) @ abs(C)).tocsr()
    law = sp.csr_matrix(M0 - M0.multiply(pattern > 0))  # the laws' own terms: M0 off the pattern
    law.eliminate_zeros()
    forces = [_entries(C, k) for k in range(C.shape[0])]  # c = C z, row by row
    rows: list[dict[int, Fraction]] = []
    q: list[Fraction] = []
    for i in range(q0.size):
        row: dict[int, Fraction] = {}
        qi = Fraction(float(q_zero[i]))
        for r, s in _entries(S, i):
            qi += s * b[r]
            for k, a in A_rows[r].items():
                for j, c in forces[k]:
                    row[j] = row.get(j, Fraction(0)) + s * a * c
        for j, v in _entries(law, i):
            row[j] = row.get(j, Fraction(0)) + v
        rows.append({j: v for j, v in row.items() if v})
        q.append(qi)
    lcp = RationalLCP(rows, q)
    Mf, qf = lcp.to_float()
    scale = max(1.0, float(np.abs(M0.data).max(initial=0.0)), float(np.abs(q0).max(initial=0.0)))
    gap = max(float(np.abs((Mf - M0).data).max(initial=0.0)), float(np.abs(qf - q0).max(initial=0.0)))
    if gap > AGREE * scale:
        raise SolverError(
            f"the rational LCP differs from the compiled one by {gap:.3g} (max entry {scale:.3g}): "
            "a law's terms share entries with the acceleration rows, which exact geometry does not separate"
        )
    return lcp


# -- exact leaves -----------------------------------------------------------------------------------


def _pivots(rows: list[list[Fraction]]) -> list[int]:
    """The pivot columns of the rational matrix ``rows`` by FLINT's row reduction modulo
    :data:`~contactmodel.analysis.exact_lp.PRIME` (the exact pivots unless p divides a minor that
    decides them; they only steer the repair, whose ray is checked exactly, so an unlucky prime
    costs a leaf, never soundness)."""
    if not rows or not rows[0]:
        return []
    width = len(rows[0])
    columns = [
        [(r, residue_mod_p(to_fmpq(row[c]))) for r, row in enumerate(rows) if row[c]] for c in range(width)
    ]
    return pivot_columns(columns, len(rows))


def repair(lcp: RationalLCP, M: sp.csr_matrix, y: np.ndarray, zero_z) -> list[Fraction] | None:
    """The multipliers y (float or rational) with the free columns T that the float M (``lcp``
    rounded) makes nearly tight, ``|(M^T y)_j| <= 1e-9 max(|M|^T |y|)``, made exactly tight by
    changing y on as many rows P of its support: T' the columns of T that are independent in exact
    arithmetic, P the first rows, by decreasing |y_i|, that make ``M[P, T']`` nonsingular (both by
    :func:`_pivots`), ``M[P, T']^T delta = (M^T y)_T'`` solved in rationals and ``y_P -= delta``.
    None when y is zero or that system is singular; nothing about the result is checked."""
    yf = np.array([float(v) for v in y])
    support = np.flatnonzero(yf)
    if support.size == 0:
        return None
    g = M.T @ yf
    scale = float((abs(M).T @ np.abs(yf)).max(initial=0.0))
    free = np.array([j not in zero_z for j in range(lcp.n)])
    touched = np.diff(sp.csc_matrix(M[support]).indptr) > 0
    tight = np.flatnonzero(free & touched & (np.abs(g) <= 1e-9 * max(scale, 1e-300)))
    candidate = [Fraction(v) for v in y]
    if tight.size:
        order = support[np.argsort(-np.abs(yf[support]), kind="stable")]
        B = [[lcp.rows[p].get(int(t), Fraction(0)) for t in tight] for p in order]  # (|S|, |T|)
        chosen = [int(tight[k]) for k in _pivots(B)]
        rows_p = [
            int(order[k]) for k in _pivots([[lcp.rows[p].get(t, Fraction(0)) for p in order] for t in chosen])
        ]
        system = [[lcp.rows[p].get(t, Fraction(0)) for p in rows_p] for t in chosen]
        g_exact = [
            sum((candidate[i] * lcp.rows[i].get(t, Fraction(0)) for i in support), Fraction(0))
            for t in chosen
        ]
        delta = solve_rational(system, g_exact)
        if delta is None:
            return None
        for p, d in zip(rows_p, delta):
            candidate[p] -= d
    return candidate


@dataclass
class ExactTree:
    """Outcome of :func:`exact_tree`. ``tree``: the certificate on the rational LCP (None when a
    leaf's candidates prove nothing, or when ``solution`` is set); ``rays``: leaves that are exact
    Farkas rays only there (repaired, from an exact node LP, or new leaves below a branched one);
    ``bounds``: leaves left proving a norm bound; ``branched``: branch nodes added below leaves
    whose polyhedra are nonempty; ``exact_lps``: node LPs solved exactly; ``solution``: an exact
    solution z of the rational LCP found on the way (its norm beyond what the rounded tree
    excludes)."""

    tree: TreeCertificate | None
    rays: int = 0
    bounds: int = 0
    branched: int = 0
    exact_lps: int = 0
    solution: list[Fraction] | None = None


def _exact_leaf(lcp: RationalLCP, M, q, exact: ExactLCP, own, zero_z, zero_w):
    """(y, U): multipliers for the node ``{z_I = 0, w_J = 0}`` of the rational LCP (I =
    ``zero_z``, J = ``zero_w``) and the exact bound U they prove (0: a Farkas ray), from the
    node's ``own`` multipliers and a vertex and an interior point of its Farkas LP on the rounded
    data (:func:`~contactmodel.analysis.certificate.farkas_lp`), each as given and repaired
    (:func:`repair`); the first ray, else the largest bound; (None, None) when none proves
    anything."""
    candidates: list = []
    for method in (None, "highs-ds", "highs-ipm"):  # own multipliers, a vertex, an interior point
        y = own if method is None else farkas_lp(M, q, zero_z, zero_w, method=method)
        if y is None:
            continue
        if method is None and exact.ray_ok(y, zero_z, zero_w):
            return y, Fraction(0)
        repaired = repair(lcp, M, y, zero_z)
        candidates += [y] + ([] if repaired is None else [repaired])
        if repaired is not None and exact.ray_ok(repaired, zero_z, zero_w):
            return repaired, Fraction(0)
    bounds = (exact.leaf_bound(c, zero_z, zero_w) for c in candidates)
    proven = [(U, i) for i, U in enumerate(bounds) if U is not None]
    if not proven:
        return None, None
    U, i = min(proven)
    return candidates[i], U


def _branch(lcp: RationalLCP, optimum: NodeOptimum, zero_z, zero_w) -> int | None:
    """The index with the largest ``min(z_i, w_i)`` at the exact LP point (z, t), among the free
    ones; None when the point is complementary (then z / t solves the LCP)."""
    z, w = optimum.z, lcp.w(optimum.z, optimum.t)
    free = [i for i in range(lcp.n) if i not in zero_z and i not in zero_w]
    gap, i = max(((min(z[i], w[i]), i) for i in free), default=(Fraction(0), None))
    return i if gap > 0 else None


def _solution(lcp: RationalLCP, z: list[Fraction]) -> bool:
    """True iff z solves the rational LCP exactly."""
    return all(a >= 0 and b >= 0 and a * b == 0 for a, b in zip(z, lcp.w(z)))


def exact_tree(lcp: RationalLCP, cert: TreeCertificate, node_limit: int = 0) -> ExactTree:
    """``cert`` (a tree of ``lcp`` rounded) re-proven on the rational LCP. A leaf that is not an
    exact Farkas ray of it is replaced by one when one is found: by :func:`_exact_leaf`
    (:func:`repair` of the leaf's multipliers, of a vertex and of an interior point of its
    Farkas LP), else by its node LP solved exactly
    (:class:`~contactmodel.analysis.exact_lp.ExactNodeLP`), whose optimum t = 0 gives a ray and
    t > 0 the leaf's exact smallest norm (1 - t) / t and a point of its polyhedron: a near
    cancellation of the declared data, not an exact one. Such leaves are branched on, up to
    ``node_limit`` branch nodes, the one proving the smallest norm first, on the largest
    ``min(z_i, w_i)`` at the exact point; the children's LPs start from the parent's basis. An
    exact point that is complementary is an exact solution (``z / t``) and ends the walk. A leaf
    whose exact LP fails keeps the multipliers proving its largest bound.
    :func:`~contactmodel.analysis.certificate.tree_min_norm` on ``lcp.exact()`` says what the
    tree proves (inf when ``bounds`` is 0)."""
    t0 = time.perf_counter()
    M, q = lcp.to_float()
    exact = lcp.exact()
    nodes = list(cert.nodes)
    out = ExactTree(None)
    node_lp: ExactNodeLP | None = None
    open_leaves: list = []  # heap of (-t, node, I, J, optimum): the smallest proven norm first
    stuck: list = []  # (node, y) of leaves kept as bounds

    def solve(zero_z, zero_w, start=None) -> NodeOptimum | None:
        """The node's exact LP optimum, when its multipliers prove, checked exactly, the t it
        claims; else None."""
        nonlocal node_lp
        node_lp = node_lp or ExactNodeLP(lcp.rows, lcp.q)
        out.exact_lps += 1
        optimum = node_lp.solve(zero_z, zero_w, start)
        if optimum is None or exact.leaf_bound(optimum.y, zero_z, zero_w) != optimum.t:
            return None
        return optimum

    def place(k: int, optimum: NodeOptimum | None, zero_z, zero_w, fallback) -> None:
        if optimum is None:
            stuck.append((k, fallback))
        elif optimum.t == 0:
            nodes[k] = ("leaf", np.array(optimum.y, dtype=object))
            out.rays += 1
        else:
            heapq.heappush(open_leaves, (-optimum.t, k, zero_z, zero_w, optimum))

    for k, y, zero_z, zero_w in leaves(cert):
        best, U = _exact_leaf(lcp, M, q, exact, y, zero_z, zero_w)
        if U == 0:
            if best is not y:  # a ray of the rational LCP only
                nodes[k] = ("leaf", np.array(best, dtype=object))
                out.rays += 1
            continue
        optimum = solve(zero_z, zero_w)
        if optimum is None and best is None:
            return out
        place(k, optimum, zero_z, zero_w, best)

    def report(what: str) -> None:
        t = float(open_leaves[0][4].t) if open_leaves else 0.0  # the largest t: the smallest norm
        log.info(
            "exact tree (n = %d): %s: %d exact Farkas rays added, %d exact LPs, %d leaves to branch "
            "on%s, %.0f s",
            lcp.n,
            what,
            out.rays,
            out.exact_lps,
            len(open_leaves),
            f" (smallest norm they prove {(1 - t) / t:.3g})" if t else "",
            time.perf_counter() - t0,
        )

    report(f"{cert.leaves} leaves re-proven")
    reported = 0
    while open_leaves and out.branched < node_limit:
        if out.branched // REPORT_BRANCHES > reported:
            reported = out.branched // REPORT_BRANCHES
            report(f"{out.branched} branch nodes")
        _, k, zero_z, zero_w, optimum = heapq.heappop(open_leaves)
        i = _branch(lcp, optimum, zero_z, zero_w)
        if i is None:
            z = [v / optimum.t for v in optimum.z]
            if _solution(lcp, z):
                out.solution = z
                return out
            stuck.append((k, optimum.y))
            continue
        kz, kw = len(nodes), len(nodes) + 1
        nodes += [None, None]
        nodes[k] = ("branch", i, kz, kw)
        out.branched += 1
        for child, I, J in ((kz, zero_z | {i}, zero_w), (kw, zero_z, zero_w | {i})):
            place(
                child, solve(I, J, optimum.basis), I, J, optimum.y
            )  # the parent's multipliers bound the child too
    for k, y in stuck + [(k, o.y) for _, k, _, _, o in open_leaves]:
        nodes[k] = ("leaf", np.array(y, dtype=object))
    out.bounds = len(stuck) + len(open_leaves)
    out.tree = TreeCertificate(cert.n, nodes)
    return out
