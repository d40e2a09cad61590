"""Exactly checkable "no solution" certificates for an LCP: complementarity branch-and-bound trees.

The LCP ``0 <= z _|_ w = M z + q >= 0`` (M (n, n), q (n,)) has no solution iff every
complementarity pattern's polyhedron is empty. A **tree certificate** covers all patterns: its
root fixes nothing; a branch node on index i has two children, one adding ``z_i = 0`` and one
adding ``w_i = 0`` (every solution lies in one of them); a leaf with fixed sets I (``z_I = 0``) and
J (``w_J = 0``) carries a Farkas ray y of its polyhedron ``{z >= 0, z_I = 0, w >= 0, w_J = 0}``:

    y_i >= 0 for i not in J,   (M^T y)_j <= 0 for j not in I,   q . y < 0.

(For z in the leaf: ``0 <= y . w = sum_{j not in I} (M^T y)_j z_j + q . y < 0``, a contradiction;
rows in J have w_i = 0, so their y_i may have any sign.) A single leaf (I = J = {}) is the plain
Farkas ray of an infeasible LCP.

**Norm-bound leaves.** The same multipliers with some ``(M^T y)_j`` slightly positive still
prove something: on the homogenized leaf ``w = M z + q t``, ``t <= U (sum(z) + t)`` with
``U = g_max / (g_max - q . y)`` (g_max the largest ``(M^T y)_j``, j not in I), so every solution
in the leaf has ``||z||_1 >= (1 - U) / U`` (:meth:`ExactLCP.leaf_bound`; U = 0 for a Farkas ray).
Any y >= 0 gives a valid bound, since sum(z) + t normalizes the homogenized problem: no dual
feasibility is assumed, only computed. This matters where the Farkas ray would need an exact
cancellation: when LCP(0, M) has nonzero solutions (statically indeterminate internal forces,
M d ~ 0 for some d >= 0), a leaf containing d needs ``(M^T y) . d = 0`` exactly, which the
rounded data of M only nearly allow. A tree whose leaves are rays or bounds proves "no
solution with ``||z||_1 < N``", N from the largest U (:func:`tree_min_norm`); N = inf iff every
leaf is a ray. :func:`tree_min_norm` and :func:`check_tree` re-check a tree in exact integer
arithmetic (every float is a dyadic rational m 2^e) and need nothing from the search that built it.

:func:`branch_and_bound` builds a tree depth first. Each node solves the homogenized LP
``max t  s.t.  z, t >= 0, sum z + t = 1, w = M z + q t >= 0`` with the node's fixings (HiGHS,
rows scaled by powers of two so that the scaling is exact): the node has a solution of the LCP
iff max t > 0; at a complementary LP point with t > 0 the LCP's solution ``z / t`` is verified in
the original units. At max t = 0 the LP's row duals are the leaf's multipliers (LP duality:
``M^T y <= -lambda = 0`` on the free columns, ``q . y <= -1``); snapped (entries below 1e-12 of
the largest set to zero, signs of the free rows clipped) they must prove a Farkas ray or a
bound of at least ``norm_floor``; with ``norm_floor`` inf a ray is also sought by exact repair
and by a Farkas LP with a relative margin (:func:`leaf_ray`); a node none closes is branched on.
A leaf no multipliers verify (an infeasible node LP without a verified ray, a fully fixed
pattern) is counted (``unverified``) and the tree is then not a proof. The branching index is
chosen by strong branching among the free indices with the largest ``min(z_i, w_i)``: both
children's LPs are solved and the index lowering max t the most in both is taken (on the
Trinkle et al. (1997) size-170 problem this shrinks the trees from beyond 10^5 nodes to
27-829 nodes at mu = 0.8-1.0).
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from contactmodel.errors import SolverError

log = logging.getLogger(__name__)

#: nodes between two progress lines of :func:`branch_and_bound` (logging, INFO)
REPORT_NODES = 2000

#: a warm-started node LP that takes more than this many simplex pivots per row is re-solved cold
#: (:meth:`NodeLP.solve_cold`)
WARM_PIVOTS = 4

#: HiGHS's ``simplex_strategy`` values: the dual simplex (its default) and the primal one
DUAL_SIMPLEX, PRIMAL_SIMPLEX = 1, 4

#: a node of a tree: ("leaf", y) or ("branch", i, child_z, child_w) (children are node indices)
Node = tuple


@dataclass
class TreeCertificate:
    """A complementarity branch-and-bound tree (module docstring): ``nodes[0]`` is the root;
    ``("branch", i, kz, kw)``: children ``nodes[kz]`` (z_i = 0) and ``nodes[kw]`` (w_i = 0);
    ``("leaf", y)``: y (n,) a Farkas ray of the leaf's polyhedron."""

    n: int
    nodes: list[Node] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"TreeCertificate(n={self.n}, nodes={len(self.nodes)}, leaves={self.leaves})"

    @property
    def leaves(self) -> int:
        return sum(node[0] == "leaf" for node in self.nodes)

    def to_json(self) -> dict:
        """{"n": n, "nodes": [...]}: rays as lists of floats, or of "p/q" strings for rational
        rays (exactly what is checked)."""

        def exact(v) -> float | str:
            return str(v) if isinstance(v, Fraction) and Fraction(float(v)) != v else float(v)

        out = []
        for node in self.nodes:
            out.append(["leaf", [exact(v) for v in node[1]]] if node[0] == "leaf" else list(node))
        return {"n": self.n, "nodes": out}

    @classmethod
    def from_json(cls, data: dict) -> TreeCertificate:
        nodes = [
            (
                "leaf",
                np.array([Fraction(v) if isinstance(v, str) else float(v) for v in node[1]], dtype=object),
            )
            if node[0] == "leaf"
            else tuple(node)
            for node in data["nodes"]
        ]
        return cls(int(data["n"]), nodes)


# -- exact arithmetic -----------------------------------------------------------------------------


def _integers(values) -> tuple[list[int], int]:
    """(m, D): integers m and one D > 0 with values == m / D exactly (floats are dyadic
    rationals; Fractions are taken as they are), so that sums of products are integer sums."""
    ratios = [Fraction(v).as_integer_ratio() for v in values]
    D = math.lcm(*(d for _, d in ratios)) if ratios else 1
    return [p * (D // d) for p, d in ratios], D


class ExactLCP:
    """(M, q) as integers over one power of two each, for exact sign checks of Farkas rays."""

    def __init__(self, M, q: np.ndarray) -> None:
        M = sp.csr_matrix(M, dtype=float)
        q = np.asarray(q, dtype=float)
        if M.shape != (q.size, q.size) or not (np.all(np.isfinite(M.data)) and np.all(np.isfinite(q))):
            raise SolverError(
                f"an exact LCP check needs a finite square M matching q (M {M.shape}, q ({q.size},))"
            )
        self.n = q.size
        data, self.DM = _integers(M.data)
        self.rows = [
            list(zip(M.indices[M.indptr[i] : M.indptr[i + 1]].tolist(), data[M.indptr[i] : M.indptr[i + 1]]))
            for i in range(self.n)
        ]
        self.q, self.Dq = _integers(q)

    @classmethod
    def from_rows(cls, rows: list[dict[int, Fraction]], q: list[Fraction]) -> ExactLCP:
        """The same for a rational LCP given by rows (``rows[i]``: column j -> M_ij)."""
        self = cls.__new__(cls)
        self.n = len(q)
        data, self.DM = _integers([v for row in rows for v in row.values()])
        it = iter(data)
        self.rows = [[(j, next(it)) for j in row] for row in rows]
        self.q, self.Dq = _integers(q)
        return self

    def leaf_bound(self, y: np.ndarray, zero_z, zero_w) -> Fraction | None:
        """The bound U (exact) that the multipliers y prove on the leaf ``{z >= 0, z_I = 0,
        w >= 0, w_J = 0}`` (I = ``zero_z``, J = ``zero_w``, sets of indices): every point of the
        leaf's cone has ``t <= U (sum(z) + t)`` in the homogenized LCP ``w = M z + q t``, so every
        solution in the leaf (t = 1) has ``||z||_1 >= (1 - U) / U``. U = 0 when y is a Farkas
        ray (module docstring): no solution. None when y proves nothing (``y_i < 0`` for some
        i not in J, or ``q . y >= 0``).

        With g = M^T y, ``0 <= alpha y . w = alpha (g . z + (q . y) t)`` for alpha > 0, so
        ``t <= U (sum z + t)`` whenever ``alpha g_j <= U`` (j not in I) and ``1 + alpha q . y <= U``;
        the best alpha gives ``U = g_max / (g_max - q . y)`` (g_max > 0 the largest g_j, j not in
        I), and U = 0 when g_max <= 0 (alpha to infinity)."""
        if len(y) != self.n or not all(isinstance(v, Fraction) or math.isfinite(v) for v in y):
            return None
        if any(y[i] < 0 for i in range(self.n) if i not in zero_w):
            return None
        g, qy, DY = self._combination(y)
        if qy >= 0:
            return None
        top = max((v for j, v in g.items() if j not in zero_z), default=0)
        if top <= 0:
            return Fraction(0)
        g_max, qy_exact = Fraction(top, DY * self.DM), Fraction(qy, DY * self.Dq)
        return g_max / (g_max - qy_exact)

    def _combination(self, y) -> tuple[dict[int, int], int, int]:
        """(g, qy, DY): ``M^T y`` as integers over ``DY * DM`` (the columns y's rows touch) and
        ``q . y`` as an integer over ``DY * Dq``."""
        ys, DY = _integers(y)
        g: dict[int, int] = {}
        qy = 0
        for i in (i for i in range(self.n) if ys[i]):
            yi = ys[i]
            qy += yi * self.q[i]
            for j, mij in self.rows[i]:
                g[j] = g.get(j, 0) + yi * mij
        return g, qy, DY

    def simplex_bound(self, i: int, kind: str, y) -> float | None:
        """An upper bound, exact and rounded up, of z_i (``kind`` "z") or of
        ``w_i = (M z + q t)_i`` (``kind`` "w") over the normalized LP relaxation
        ``{z, t >= 0, sum z + t = 1, M z + q t >= 0}``, proven by multipliers ``y >= 0``: there
        ``f . x <= f . x + y . w = (f + [M q]^T y) . x <= max_k (f + [M q]^T y)_k`` for x = (z, t)
        on the simplex, with nothing assumed of y but its sign. None when some y_i < 0."""
        if len(y) != self.n or any(not (v >= 0) for v in y):
            return None
        g, qy, DY = self._combination(y)
        cols = {j: Fraction(v, DY * self.DM) for j, v in g.items()}
        t = Fraction(qy, DY * self.Dq)
        if kind == "z":
            cols[i] = cols.get(i, Fraction(0)) + 1
        else:
            for j, mij in self.rows[i]:
                cols[j] = cols.get(j, Fraction(0)) + Fraction(mij, self.DM)
            t += Fraction(self.q[i], self.Dq)
        top = max(t, max(cols.values(), default=Fraction(0)))
        if len(cols) < self.n:  # an untouched column contributes 0
            top = max(top, Fraction(0))
        f = float(top)
        return f if Fraction(f) >= top else math.nextafter(f, math.inf)

    def ray_ok(self, y: np.ndarray, zero_z, zero_w) -> bool:
        """True iff y is, exactly, a Farkas ray of {z >= 0, z_I = 0, w >= 0, w_J = 0}
        (I = ``zero_z``, J = ``zero_w``, sets of indices): see the module docstring."""
        return self.leaf_bound(y, zero_z, zero_w) == 0


def leaves(cert: TreeCertificate) -> Iterator[tuple[int, np.ndarray, frozenset, frozenset]]:
    """(k, y, I, J) of every leaf of ``cert`` reached from its root: node index, multipliers and
    the fixed sets (``z_I = 0``, ``w_J = 0``) of its polyhedron."""
    stack: list[tuple[int, frozenset, frozenset]] = [(0, frozenset(), frozenset())]
    while stack:
        k, zero_z, zero_w = stack.pop()
        node = cert.nodes[k]
        if node[0] == "leaf":
            yield k, node[1], zero_z, zero_w
        else:
            _, i, kz, kw = node
            stack += [(kz, zero_z | {i}, zero_w), (kw, zero_z, zero_w | {i})]


def norm_of_bound(U: Fraction) -> float:
    """The 1-norm below which a leaf bound U (:meth:`ExactLCP.leaf_bound`) excludes every
    solution, ``(1 - U) / U`` rounded down (inf for U = 0)."""
    if U <= 0:
        return math.inf
    N = (1 - U) / U
    f = float(N)
    return f if Fraction(f) <= N else math.nextafter(f, -math.inf)


def tree_min_norm(M, q: np.ndarray | None, cert: TreeCertificate) -> tuple[float | None, str]:
    """(N, message): what ``cert`` proves about LCP(q, M) (or about an :class:`ExactLCP` given as
    M, q then unused), checked exactly: every solution has
    ``||z||_1 >= N`` (N = inf: no solution at all), or N None when the tree proves nothing.
    Walks the tree from the root: every branch index is free at its node, every node is reached
    once, every leaf's multipliers prove a bound (:meth:`ExactLCP.leaf_bound`) for the leaf's
    fixed sets; N comes from the largest leaf bound (:func:`norm_of_bound`)."""
    exact = M if isinstance(M, ExactLCP) else ExactLCP(M, q)
    if cert.n != exact.n or not cert.nodes:
        return (
            None,
            f"the certificate is for n = {cert.n} with {len(cert.nodes)} nodes, the LCP has n = {exact.n}",
        )
    seen = [False] * len(cert.nodes)
    worst, bounded = Fraction(0), 0
    stack: list[tuple[int, frozenset, frozenset]] = [(0, frozenset(), frozenset())]
    while stack:
        k, zero_z, zero_w = stack.pop()
        if not 0 <= k < len(cert.nodes) or seen[k]:
            return None, f"node {k} is missing or reached twice"
        seen[k] = True
        node = cert.nodes[k]
        if node[0] == "leaf":
            U = exact.leaf_bound(node[1], zero_z, zero_w)
            if U is None:
                return None, f"leaf {k}: the ray fails the exact check"
            bounded += U > 0
            worst = max(worst, U)
            continue
        _, i, kz, kw = node
        if not 0 <= i < exact.n or i in zero_z or i in zero_w:
            return None, f"node {k} branches on index {i}, not free there"
        stack += [(kz, zero_z | {i}, zero_w), (kw, zero_z, zero_w | {i})]
    if not all(seen):
        return None, "some nodes are not reached from the root"
    head = f"exact: {len(cert.nodes)} nodes, {cert.leaves} leaves"
    if worst == 0:
        return math.inf, f"{head}, every ray verified: no solution"
    N = norm_of_bound(worst)
    return N, (
        f"{head}, {cert.leaves - bounded} Farkas rays and {bounded} norm bounds verified: "
        f"no solution with ||z||_1 < {N:.4g}"
    )


def check_tree(M, q: np.ndarray, cert: TreeCertificate, min_norm: float = math.inf) -> tuple[bool, str]:
    """(ok, message): exact check that ``cert`` proves LCP(q, M) has no solution (``min_norm``
    inf, every leaf a Farkas ray), or none with ``||z||_1 < min_norm`` (:func:`tree_min_norm`)."""
    N, message = tree_min_norm(M, q, cert)
    return N is not None and N >= min_norm, message


@contextmanager
def quiet_stdout() -> Iterator[None]:
    """File descriptor 1 sent to /dev/null (HiGHS's MIP solver prints debugging lines from C)."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


# -- the search --------------------------------------------------------------------------------------


def _pow2_row_scale(M: sp.csr_matrix, q: np.ndarray) -> np.ndarray:
    """d_i = 2^-k_i with max(|M_i.|, |q_i|) d_i in [0.5, 1): an exact row scaling."""
    big = np.maximum(abs(M).max(axis=1).toarray().ravel(), np.abs(q))
    return np.where(big > 0, np.exp2(-np.ceil(np.log2(np.where(big > 0, big, 1.0)))), 1.0)


def farkas_lp(
    M: sp.csr_matrix, q: np.ndarray, zero_z, zero_w, eps: float = 0.0, method: str = "highs"
) -> np.ndarray | None:
    """Float multipliers y of a node's polyhedron ``{z >= 0, z_I = 0, w >= 0, w_J = 0}`` from
    the LP ``min q.y``, ``sum |y| = 1``, ``(M^T y)_j + eps (|M|^T |y|)_j <= 0`` on the free
    columns (I = ``zero_z``, J = ``zero_w``; y_i >= 0 off J), or None when the LP finds none
    with q.y < 0 (``method``: scipy's HiGHS method)."""
    n = q.size
    free_rows = np.array([i not in zero_w for i in range(n)])
    cols = np.array([j for j in range(n) if j not in zero_z], dtype=int)
    if cols.size == 0:
        return None
    # y = yp - ym; ym = 0 on the rows whose w is free (y_i >= 0 there)
    Mt = sp.csr_matrix(M.T)[cols]
    absMt = abs(Mt)
    A = sp.hstack([Mt + eps * absMt, -Mt + eps * absMt]).tocsr()
    bounds = [(0, None)] * n + [(0, 0) if free_rows[i] else (0, None) for i in range(n)]
    res = linprog(
        np.r_[q, -q],
        A_ub=A,
        b_ub=np.zeros(cols.size),
        A_eq=np.ones((1, 2 * n)),
        b_eq=[1.0],
        bounds=bounds,
        method=method,
    )
    if res.status != 0 or res.fun >= 0:
        return None
    y = res.x[:n] - res.x[n:]
    y[np.abs(y) < 1e-14] = 0.0
    return y


def leaf_ray(M: sp.csr_matrix, q: np.ndarray, zero_z, zero_w, exact: ExactLCP) -> np.ndarray | None:
    """A Farkas ray of a node's polyhedron from :func:`farkas_lp` (eps = 0, 1e-9, 1e-6), as
    found or repaired (:func:`exact_repair`), that passes the exact check, else None."""
    for eps in (0.0, 1e-9, 1e-6):
        y = farkas_lp(M, q, zero_z, zero_w, eps)
        if y is None:
            continue
        if exact.ray_ok(y, zero_z, zero_w):
            return y
        fixed = exact_repair(M, y, zero_z, zero_w)
        if fixed is not None and exact.ray_ok(fixed, zero_z, zero_w):
            return fixed
    return None


def solve_rational(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """x with A x = b (A square, rational) by FLINT's exact solve, or None when A is singular."""
    import flint

    r = len(b)
    entries = [flint.fmpq(v.numerator, v.denominator) for row in A for v in row]
    rhs = [flint.fmpq(v.numerator, v.denominator) for v in b]
    try:
        x = flint.fmpq_mat(r, r, entries).solve(flint.fmpq_mat(r, 1, rhs))
    except ZeroDivisionError:  # FLINT's "singular matrix"
        return None
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(r)]


def exact_repair(M: sp.csr_matrix, y: np.ndarray, zero_z, zero_w, max_tight: int = 40) -> np.ndarray | None:
    """A float ray y whose tight free columns T ((M^T y)_j within 1e-9 of 0, among the columns
    M has entries in on y's support S) should be exactly 0:
    y' = y - A^T u with A = M[S, T']^T (S: support of y, T' independent columns of T by a pivoted
    QR) and (A A^T) u = A y solved in rationals, so that (M^T y')_j = 0 exactly on T'; rounded back
    to floats only where that keeps the zeros (the result is re-checked exactly by the caller).
    None when T is empty or larger than ``max_tight``."""
    import scipy.linalg

    n = y.size
    g = M.T @ y
    scale = float((abs(M).T @ np.abs(y)).max(initial=0.0))
    free = np.array([j not in zero_z for j in range(n)])
    S = np.flatnonzero(y)
    touched = np.diff(sp.csc_matrix(M[S]).indptr) > 0  # other columns' (M^T y)_j are exactly 0
    T = np.flatnonzero(free & touched & (np.abs(g) <= 1e-9 * max(scale, 1e-300)))
    if T.size == 0 or T.size > max_tight or S.size == 0:
        return None
    A = M[S][:, T].toarray().T  # (|T|, |S|)
    _, R, piv = scipy.linalg.qr(A.T, pivoting=True, mode="economic")
    rank = int(np.sum(np.abs(np.diag(R)) > 1e-12 * max(1.0, float(np.abs(R).max(initial=0.0)))))
    if rank == 0:
        return None
    rowsA = [[Fraction(float(v)) for v in A[k]] for k in piv[:rank]]
    ys = [Fraction(float(v)) for v in y[S]]
    AAt = [[sum(a * b for a, b in zip(ra, rb)) for rb in rowsA] for ra in rowsA]
    Ay = [sum(a * b for a, b in zip(ra, ys)) for ra in rowsA]
    u = solve_rational(AAt, Ay)
    if u is None:
        return None
    exact_y = [ys[m] - sum(u[k] * rowsA[k][m] for k in range(rank)) for m in range(S.size)]
    out = np.array([Fraction(0)] * n, dtype=object)
    out[S] = exact_y
    return out


@dataclass
class TreeResult:
    """Outcome of :func:`branch_and_bound`: ``status`` "no-solution" (``certificate`` complete;
    a proof iff ``unverified == 0``), "solution" (``z`` verified), or "limit"; ``nodes``,
    ``seconds``, ``unverified`` (leaves whose ray failed the exact check); ``min_norm``: the
    tree proves every solution has ``||z||_1 >= min_norm`` (inf: no solution at all);
    ``closed``: the share of the 2^n complementarity patterns its proven leaves cover (a leaf at
    depth d, d indices fixed, covers 2^-d of them): 1 for a proof, the progress at a "limit"."""

    status: str
    certificate: TreeCertificate | None
    z: np.ndarray | None
    nodes: int
    unverified: int
    seconds: float
    min_norm: float = math.inf
    closed: float = 0.0


def highs_model(A: sp.csc_matrix, cost: np.ndarray, cols, rows, maximize: bool = False):
    """A quiet single-threaded HiGHS instance holding the LP ``min`` (or ``max``) ``cost . x``,
    ``rows[0] <= A x <= rows[1]``, ``cols[0] <= x <= cols[1]`` (inf for no bound)."""
    import highspy

    with quiet_stdout():  # HiGHS prints a banner from C on creation
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    m, n = A.shape
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.asarray(cost, dtype=float)
    lp.col_lower_, lp.col_upper_ = (np.asarray(b, dtype=float) for b in cols)
    lp.row_lower_, lp.row_upper_ = (np.asarray(b, dtype=float) for b in rows)
    if maximize:
        lp.sense_ = highspy.ObjSense.kMaximize
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    h.passModel(lp)
    return h


class NodeLP:
    """The homogenized LP of the module docstring for LCP(q, M) on HiGHS, re-solved warm with new
    fixings. Its rows are scaled exactly: ``M_s = diag(d) M`` and ``q_s = diag(d) q / s`` (d and s
    powers of two, :func:`_pow2_row_scale`), so its row duals times d are multipliers of the
    original rows."""

    def __init__(self, M: sp.csr_matrix, q: np.ndarray) -> None:
        import highspy

        self.highspy = highspy
        n = q.size
        self.n = n
        self.d = _pow2_row_scale(M, q)
        qs = self.d * q
        s = float(np.exp2(np.round(np.log2(max(1.0, float(np.abs(qs).max(initial=1.0)))))))
        M, q = self.M, self.q = sp.csr_matrix(sp.diags(self.d) @ M), qs / s
        A = sp.vstack(
            [sp.hstack([M, sp.csr_matrix(q.reshape(-1, 1))]), sp.csr_matrix(np.ones((1, n + 1)))]
        ).tocsc()
        cost = np.zeros(n + 1)
        cost[n] = -1.0
        h = highs_model(
            A,
            cost,
            (np.zeros(n + 1), np.full(n + 1, np.inf)),
            (np.r_[np.zeros(n), 1.0], np.r_[np.full(n, np.inf), 1.0]),
        )
        # duals within 1e-10 of feasible: a leaf's clipped duals then prove a bound near its LP's
        h.setOptionValue("dual_feasibility_tolerance", 1e-10)
        # rows violated by 1e-7 (the default) would let t be off by that much: deep nodes have
        # max t of 1e-9 to 1e-7 (solutions of norm 1e7 to 1e9), and branching follows t
        h.setOptionValue("primal_feasibility_tolerance", 1e-10)
        # the warm dual simplex can stall on these degenerate LPs (10^5 to 10^6 pivots at
        # n = 995): past the cap the LP is re-solved cold (solve_cold)
        self.warm_pivots = WARM_PIVOTS * (n + 1)
        self.cold_solves = 0
        h.setOptionValue("simplex_iteration_limit", self.warm_pivots)
        h.setOptionValue("simplex_strategy", DUAL_SIMPLEX)
        self.inf = highspy.kHighsInf
        self.h = h
        self.idx = np.arange(n, dtype=np.int32)

    def solve(self, zfix: np.ndarray, wfix: np.ndarray) -> tuple[np.ndarray | None, np.ndarray] | None:
        """(x = (z, t), row duals y (n,)) at the optimum; (None, y) with y HiGHS's dual ray of the
        rows when the LP is infeasible (its sign as HiGHS gives it); None when HiGHS fails."""
        n, h, status = self.n, self.h, self.highspy.HighsModelStatus
        h.changeColsBounds(n, self.idx, np.zeros(n), np.where(zfix, 0.0, self.inf))
        h.changeRowsBounds(n, self.idx, np.zeros(n), np.where(wfix, 0.0, self.inf))
        h.run()
        if h.getModelStatus() not in (status.kOptimal, status.kInfeasible):
            self.solve_cold()
        if h.getModelStatus() == status.kInfeasible:
            _, has_ray, ray = h.getDualRay()
            return None, (np.asarray(ray, dtype=float)[:n] if has_ray else np.zeros(n))
        if h.getModelStatus() != status.kOptimal:
            return None
        sol = h.getSolution()
        return np.asarray(sol.col_value, dtype=float), np.asarray(sol.row_dual, dtype=float)[:n]

    def solve_cold(self) -> None:
        """Re-solve the current LP from scratch by the primal simplex, without the warm pivot cap
        (where a warm dual simplex stalled, a cold primal one takes about 2n pivots)."""
        h = self.h
        self.cold_solves += 1
        h.clearSolver()
        h.setOptionValue("simplex_iteration_limit", self.highspy.kHighsIInf)
        h.setOptionValue("simplex_strategy", PRIMAL_SIMPLEX)
        h.run()
        h.setOptionValue("simplex_strategy", DUAL_SIMPLEX)
        h.setOptionValue("simplex_iteration_limit", self.warm_pivots)

    def child_t(self, i: int, on_w: bool) -> float:
        """max t of the last solved node with ``w_i = 0`` (``on_w``) or ``z_i = 0`` added, from the
        node's basis; 0 when that LP is infeasible, inf when HiGHS fails or stops at the warm pivot
        cap (the node's bounds and basis are restored afterwards)."""
        h, status = self.h, self.highspy.HighsModelStatus
        basis = h.getBasis()
        if on_w:
            lo, hi = h.getLp().row_lower_[i], h.getLp().row_upper_[i]
            h.changeRowBounds(i, 0.0, 0.0)
        else:
            lo, hi = h.getLp().col_lower_[i], h.getLp().col_upper_[i]
            h.changeColBounds(i, 0.0, 0.0)
        h.run()
        st = h.getModelStatus()
        t = (
            0.0
            if st == status.kInfeasible
            else (h.getSolution().col_value[self.n] if st == status.kOptimal else np.inf)
        )
        if on_w:
            h.changeRowBounds(i, lo, hi)
        else:
            h.changeColBounds(i, lo, hi)
        h.setBasis(basis)
        return max(0.0, float(t))

    def gaps(self, x: np.ndarray, free: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(gap, w) at an LP point x = (z, t): ``gap_i = min(z_i, w_i)`` on the ``free`` indices,
        -1 elsewhere (the branching candidates), and ``w = M_s z + q_s t``."""
        z, t = x[: self.n], x[self.n]
        w = self.M @ z + self.q * t
        return np.where(free, np.minimum(z, w), -1.0), w

    def complementary(self, x: np.ndarray, zfix: np.ndarray, wfix: np.ndarray) -> tuple[int, np.ndarray]:
        """(i, pattern) at an LP point x = (z, t) whose free gaps are all about 0: the free index
        with the largest ``max(z_i, w_i)`` (-1 when none is free) and the complementary pattern
        its point suggests, (n,) bool True where w_i = 0 (fixed, or free with z_i <= w_i)."""
        free = ~(zfix | wfix)
        z = x[: self.n]
        _, w = self.gaps(x, free)
        i = int(np.argmax(np.where(free, np.maximum(z, w), -1.0))) if free.any() else -1
        return i, wfix | (free & (z <= w))

    def strong_branch(self, t: float, candidates: np.ndarray) -> int:
        """The candidate index whose two children lower max t the most (product rule:
        ``(t - t_z)(t - t_w)``, each factor at least 1e-12 t), from the last solved node."""
        best, pick = -1.0, int(candidates[0])
        for i in candidates:
            tz, tw = self.child_t(int(i), False), self.child_t(int(i), True)
            score = max(t - tz, 1e-12 * t) * max(t - tw, 1e-12 * t)
            if score > best:
                best, pick = score, int(i)
        return pick


def pattern_point(M: sp.csr_matrix, q: np.ndarray, pattern: np.ndarray) -> np.ndarray | None:
    """A point of the LCP with w_i = 0 where ``pattern`` and z_i = 0 elsewhere (an LP), or None."""
    n = q.size
    on = np.flatnonzero(pattern)
    bounds = [(0, None) if pattern[i] else (0, 0) for i in range(n)]
    res = linprog(
        np.ones(n),
        A_ub=-M,
        b_ub=q,
        A_eq=M[on] if on.size else None,
        b_eq=-q[on] if on.size else None,
        bounds=bounds,
        method="highs",
    )
    return res.x if res.status == 0 else None


def _pattern_solution(M: sp.csr_matrix, q: np.ndarray, on: np.ndarray, tol: float) -> np.ndarray | None:
    """A verified solution with w_i = 0 on ``on`` and z_i = 0 elsewhere (an LP), or None."""
    z = pattern_point(M, q, on)
    if z is None:
        return None
    z = np.maximum(z, 0.0)
    w = M @ z + q
    scale = max(1.0, float(np.abs(q).max(initial=0.0)))
    return z if float(np.abs(np.minimum(z, w)).max(initial=0.0)) <= tol * scale else None


def _leaf(
    M: sp.csr_matrix,
    q: np.ndarray,
    exact: ExactLCP,
    d: np.ndarray,
    ys: np.ndarray,
    zfix: np.ndarray,
    wfix: np.ndarray,
    infeasible: bool,
    norm_floor: float,
) -> tuple[np.ndarray, Fraction] | None:
    """(y, U): multipliers of a node whose LP has max t = 0 (or no point) and the bound U they
    prove exactly (:meth:`ExactLCP.leaf_bound`), or None. The LP's row duals ``ys`` (rows scaled
    by d; both signs for an infeasibility ray) snapped: a Farkas ray (U = 0), or a norm bound
    reaching a finite ``norm_floor``. With ``norm_floor`` inf (Farkas rays only) they are then
    repaired in rationals (:func:`exact_repair`), and last a Farkas LP is tried (:func:`leaf_ray`);
    with a finite floor a node they do not close is branched on instead (its LP's t is then
    positive beyond rounding, or its rays need a cancellation the data only nearly have)."""
    zs, ws = set(np.flatnonzero(zfix).tolist()), set(np.flatnonzero(wfix).tolist())
    strict = math.isinf(norm_floor)
    best: tuple[np.ndarray, Fraction] | None = None
    for sign in (1.0, -1.0) if infeasible else (1.0,):
        y = d * np.where(wfix, sign * ys, np.maximum(sign * ys, 0.0))  # unscaled rows, exactly
        y[np.abs(y) < 1e-12 * np.abs(y).max(initial=0.0)] = 0.0
        U = exact.leaf_bound(y, zs, ws)
        if U == 0:
            return y, U
        if U is not None and (best is None or U < best[1]):
            best = (y, U)
        fixed = exact_repair(M, y, zs, ws) if strict and y.any() else None
        if fixed is not None and exact.ray_ok(fixed, zs, ws):
            return fixed, Fraction(0)
    if best is not None and norm_of_bound(best[1]) >= norm_floor:
        return best
    ray = leaf_ray(M, q, zs, ws, exact) if strict or infeasible else None
    return None if ray is None else (ray, Fraction(0))


def branch_and_bound(
    M,
    q: np.ndarray,
    *,
    time_limit: float = 60.0,
    node_limit: int = 10**6,
    tol: float = 1e-8,
    strong: int = 32,
    norm_floor: float = math.inf,
) -> TreeResult:
    """Decide LCP(q, M) by a complementarity branch-and-bound (module docstring): a verified
    solution, or a tree certificate of "no solution", or "limit" after ``time_limit`` seconds /
    ``node_limit`` nodes. ``tol``: relative natural residual of an accepted solution;
    ``strong``: how many free indices with the largest ``min(z_i, w_i)`` are tried by strong
    branching (both children's LPs solved, :meth:`NodeLP.strong_branch`; 0: the largest
    ``min(z_i, w_i)`` alone); ``norm_floor``: a leaf whose multipliers prove only a norm bound
    (:meth:`ExactLCP.leaf_bound`) is accepted when that bound is at least ``norm_floor``, and
    the tree then proves "no solution with ``||z||_1 <`` ``min_norm``" (inf: Farkas rays only)."""
    t0 = time.perf_counter()
    M = sp.csr_matrix(M, dtype=float)
    q = np.asarray(q, dtype=float)
    n = q.size
    exact = ExactLCP(M, q)
    lp = NodeLP(M, q)
    nodes: list[Node] = []
    unverified = 0
    worst = Fraction(0)  # the largest leaf bound U (ExactLCP.leaf_bound)
    depth = [0]  # per node id
    closed = 0.0  # the share of the patterns the leaves so far cover (TreeResult.closed)
    # (node id, zfix, wfix); a node's id is its slot in ``nodes``, filled when it is processed
    stack: list[tuple[int, np.ndarray, np.ndarray]] = [(0, np.zeros(n, bool), np.zeros(n, bool))]
    nodes.append(None)

    def result(status: str, z=None) -> TreeResult:
        cert = TreeCertificate(n, nodes) if status == "no-solution" else None
        return TreeResult(
            status, cert, z, len(nodes), unverified, time.perf_counter() - t0, norm_of_bound(worst), closed
        )

    reported = 0
    while stack:
        if time.perf_counter() - t0 > time_limit or len(nodes) > node_limit:
            return result("limit")
        if len(nodes) // REPORT_NODES > reported:
            reported = len(nodes) // REPORT_NODES
            log.info(
                "complementarity tree (n = %d): %d nodes, leaves covering %.3g of the patterns, %.0f s",
                n,
                len(nodes),
                closed,
                time.perf_counter() - t0,
            )
        k, zfix, wfix = stack.pop()
        out = lp.solve(zfix, wfix)
        if out is None:
            return result("limit")
        x, ys = out
        if x is None or x[n] <= 1e-9:  # infeasible, or max t = 0: a leaf if its multipliers prove it
            leaf = _leaf(M, q, exact, lp.d, ys, zfix, wfix, x is None, norm_floor)
            if leaf is not None or x is None:
                unverified += leaf is None
                y, U = (np.zeros(n), Fraction(0)) if leaf is None else leaf
                worst = max(worst, U)
                nodes[k] = ("leaf", y)
                closed += 0.0 if leaf is None else 2.0 ** -depth[k]
                continue
        z, t = x[:n], x[n]
        free = ~(zfix | wfix)
        gap, w = lp.gaps(x, free)
        i = int(np.argmax(gap))
        if strong > 1 and gap[i] > 1e-12:
            order = np.argsort(-gap)[:strong]
            i = lp.strong_branch(float(t), order[gap[order] > 1e-12])
        if gap[i] <= 1e-12 or not free.any():
            i, pattern = lp.complementary(x, zfix, wfix)
            if t > 1e-9:
                sol = _pattern_solution(M, q, pattern, tol)
                if sol is not None:
                    return result("solution", sol)
            if i < 0:
                unverified += 1
                nodes[k] = ("leaf", np.zeros(n))
                continue
        kz, kw = len(nodes), len(nodes) + 1
        nodes += [None, None]
        depth += [depth[k] + 1] * 2
        nodes[k] = ("branch", i, kz, kw)
        a, b = zfix.copy(), wfix.copy()
        a[i] = True
        b[i] = True
        first, second = ((kz, a, wfix), (kw, zfix, b)) if z[i] <= w[i] else ((kw, zfix, b), (kz, a, wfix))
        stack += [second, first]
    return result("no-solution")
