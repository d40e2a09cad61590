"""Exactly checkable "no solution" certificates for an LCP: complementarity branch-and-bound trees.

The LCP ``0 <= z _|_ w = M z + q >= 0`` (M (n, n), q (n,)) has no solution iff every
complementarity pattern's polyhedron is empty. A **tree certificate** covers all patterns: its
root fixes nothing; a branch node on index i has two children, one adding ``z_i = 0`` and one
adding ``w_i = 0`` (every solution lies in one of them); a leaf with fixed sets I (``z_I = 0``) and
J (``w_J = 0``) carries a Farkas ray y of its polyhedron ``{z >= 0, z_I = 0, w >= 0, w_J = 0}``:

    y_i >= 0 for i not in J,   (M^T y)_j <= 0 for j not in I,   q . y < 0.

(For z in the leaf: ``0 <= y . w = sum_{j not in I} (M^T y)_j z_j + q . y < 0``, a contradiction;
rows in J have w_i = 0, so their y_i may have any sign.) A single leaf (I = J = {}) is the plain
Farkas ray of an infeasible LCP. :func:`check_tree` re-checks a tree in exact integer arithmetic
(every float is a dyadic rational m 2^e) and needs nothing from the search that built it.

:func:`branch_and_bound` builds a tree depth first. Each node solves the homogenized LP
``max t  s.t.  z, t >= 0, sum z + t = 1, w = M z + q t >= 0`` with the node's fixings (HiGHS,
rows scaled by powers of two so that the scaling is exact): the node has a solution of the LCP
iff max t > 0; at a complementary LP point with t > 0 the LCP's solution ``z / t`` is verified in
the original units. At max t = 0 the LP's row duals are the leaf's Farkas ray (LP duality:
``M^T y <= -lambda = 0`` on the free columns, ``q . y <= -1``); the ray is snapped (entries below
1e-12 of its largest set to zero, signs of the free rows clipped) and must pass the exact check,
else a Farkas LP with a relative margin (:func:`leaf_ray`) is tried; a leaf no ray verifies is
counted (``unverified``) and the tree is then not a proof. Otherwise the search branches on the
free index with the largest ``min(z_i, w_i)``, the child nearer the LP point first.
"""

from __future__ import annotations

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


def _integers(values) -> list[int]:
    """Integers m with values == m / D exactly for one D > 0 (floats are dyadic rationals;
    Fractions are taken as they are): only the signs of sums of products are compared."""
    ratios = [Fraction(v).as_integer_ratio() for v in values]
    D = math.lcm(*(d for _, d in ratios)) if ratios else 1
    return [p * (D // d) for p, d in ratios]


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
        data = _integers(M.data)
        self.rows = [
            list(zip(M.indices[M.indptr[i] : M.indptr[i + 1]].tolist(), data[M.indptr[i] : M.indptr[i + 1]]))
            for i in range(self.n)
        ]
        self.q = _integers(q)

    def ray_ok(self, y: np.ndarray, zero_z, zero_w) -> bool:
        """True iff y is, exactly, a Farkas ray of {z >= 0, z_I = 0, w >= 0, w_J = 0}
        (I = ``zero_z``, J = ``zero_w``, sets of indices): see the module docstring."""
        if len(y) != self.n or not all(isinstance(v, Fraction) or math.isfinite(v) for v in y):
            return False
        if any(y[i] < 0 for i in range(self.n) if i not in zero_w):
            return False
        ys = _integers(y)
        g: dict[int, int] = {}
        qy = 0
        for i in (i for i in range(self.n) if ys[i]):
            yi = ys[i]
            qy += yi * self.q[i]
            for j, mij in self.rows[i]:
                g[j] = g.get(j, 0) + yi * mij
        return qy < 0 and all(v <= 0 for j, v in g.items() if j not in zero_z)


def check_tree(M, q: np.ndarray, cert: TreeCertificate) -> tuple[bool, str]:
    """(ok, message): exact check that ``cert`` proves LCP(q, M) has no solution. Walks the tree
    from the root: every branch index is free at its node, every node is reached once, every
    leaf's ray is exact (:meth:`ExactLCP.ray_ok`) for the leaf's fixed sets."""
    exact = ExactLCP(M, q)
    if cert.n != exact.n or not cert.nodes:
        return (
            False,
            f"the certificate is for n = {cert.n} with {len(cert.nodes)} nodes, the LCP has n = {exact.n}",
        )
    seen = [False] * len(cert.nodes)
    stack: list[tuple[int, frozenset, frozenset]] = [(0, frozenset(), frozenset())]
    while stack:
        k, zero_z, zero_w = stack.pop()
        if not 0 <= k < len(cert.nodes) or seen[k]:
            return False, f"node {k} is missing or reached twice"
        seen[k] = True
        node = cert.nodes[k]
        if node[0] == "leaf":
            if not exact.ray_ok(node[1], zero_z, zero_w):
                return False, f"leaf {k}: the ray fails the exact check"
            continue
        _, i, kz, kw = node
        if not 0 <= i < exact.n or i in zero_z or i in zero_w:
            return False, f"node {k} branches on index {i}, not free there"
        stack += [(kz, zero_z | {i}, zero_w), (kw, zero_z, zero_w | {i})]
    if not all(seen):
        return False, "some nodes are not reached from the root"
    return True, f"exact: {len(cert.nodes)} nodes, {cert.leaves} leaves, every ray verified"


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


def leaf_ray(M: sp.csr_matrix, q: np.ndarray, zero_z, zero_w, exact: ExactLCP) -> np.ndarray | None:
    """A Farkas ray of a node's polyhedron from an LP (``min q.y``, ``sum |y| = 1``,
    ``(M^T y)_j + eps (|M|^T |y|)_j <= 0`` on free columns, eps = 0, 1e-9, 1e-6) that passes the
    exact check, else None."""
    n = q.size
    free_rows = np.array([i not in zero_w for i in range(n)])
    cols = np.array([j for j in range(n) if j not in zero_z], dtype=int)
    if cols.size == 0:
        return None
    # y = yp - ym; ym = 0 on the rows whose w is free (y_i >= 0 there)
    Mt = sp.csr_matrix(M.T)[cols]
    absMt = abs(Mt)
    for eps in (0.0, 1e-9, 1e-6):
        A = sp.hstack([Mt + eps * absMt, -Mt + eps * absMt]).tocsr()
        bounds = [(0, None)] * n + [(0, 0) if free_rows[i] else (0, None) for i in range(n)]
        res = linprog(
            np.r_[q, -q],
            A_ub=A,
            b_ub=np.zeros(cols.size),
            A_eq=np.ones((1, 2 * n)),
            b_eq=[1.0],
            bounds=bounds,
            method="highs",
        )
        if res.status != 0 or res.fun >= 0:
            continue
        y = res.x[:n] - res.x[n:]
        y[np.abs(y) < 1e-14] = 0.0
        if exact.ray_ok(y, zero_z, zero_w):
            return y
        fixed = exact_repair(M, y, zero_z, zero_w)
        if fixed is not None and exact.ray_ok(fixed, zero_z, zero_w):
            return fixed
    return None


def _solve_exact(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """x with A x = b (A square) by Gaussian elimination in rationals, None when A is singular."""
    r = len(b)
    rows = [A[i][:] + [b[i]] for i in range(r)]
    for c in range(r):
        p = next((i for i in range(c, r) if rows[i][c] != 0), None)
        if p is None:
            return None
        rows[c], rows[p] = rows[p], rows[c]
        piv = rows[c][c]
        for i in range(r):
            if i != c and rows[i][c] != 0:
                f = rows[i][c] / piv
                rows[i] = [a - f * bb for a, bb in zip(rows[i], rows[c])]
    return [rows[i][r] / rows[i][i] for i in range(r)]


def exact_repair(M: sp.csr_matrix, y: np.ndarray, zero_z, zero_w, max_tight: int = 40) -> np.ndarray | None:
    """A float ray y whose tight free columns T ((M^T y)_j within 1e-9 of 0) should be exactly 0:
    y' = y - A^T u with A = M[S, T']^T (S: support of y, T' independent columns of T by a pivoted
    QR) and (A A^T) u = A y solved in rationals, so that (M^T y')_j = 0 exactly on T'; rounded back
    to floats only where that keeps the zeros (the result is re-checked exactly by the caller).
    None when T is empty or larger than ``max_tight``."""
    import scipy.linalg

    n = y.size
    g = M.T @ y
    scale = float((abs(M).T @ np.abs(y)).max(initial=0.0))
    free = np.array([j not in zero_z for j in range(n)])
    T = np.flatnonzero(free & (np.abs(g) <= 1e-9 * max(scale, 1e-300)))
    S = np.flatnonzero(y)
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
    u = _solve_exact(AAt, Ay)
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
    ``seconds``, ``unverified`` (leaves whose ray failed the exact check)."""

    status: str
    certificate: TreeCertificate | None
    z: np.ndarray | None
    nodes: int
    unverified: int
    seconds: float


class _NodeLP:
    """The homogenized LP of the module docstring on HiGHS, re-solved warm with new fixings."""

    def __init__(self, M: sp.csr_matrix, q: np.ndarray) -> None:
        import highspy

        self.highspy = highspy
        n = q.size
        self.n = n
        A = sp.vstack(
            [sp.hstack([M, sp.csr_matrix(q.reshape(-1, 1))]), sp.csr_matrix(np.ones((1, n + 1)))]
        ).tocsc()
        with quiet_stdout():  # HiGHS prints a banner from C on creation
            h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("threads", 1)
        self.inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = n + 1, n + 1
        cost = np.zeros(n + 1)
        cost[n] = -1.0
        lp.col_cost_ = cost
        lp.col_lower_ = np.zeros(n + 1)
        lp.col_upper_ = np.full(n + 1, self.inf)
        lp.row_lower_ = np.r_[np.zeros(n), 1.0]
        lp.row_upper_ = np.r_[np.full(n, self.inf), 1.0]
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = A.indptr
        lp.a_matrix_.index_ = A.indices
        lp.a_matrix_.value_ = A.data
        lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n + 1, n + 1
        h.passModel(lp)
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
            h.clearSolver()
            h.run()
        if h.getModelStatus() == status.kInfeasible:
            _, has_ray, ray = h.getDualRay()
            return None, (np.asarray(ray, dtype=float)[:n] if has_ray else np.zeros(n))
        if h.getModelStatus() != status.kOptimal:
            return None
        sol = h.getSolution()
        return np.asarray(sol.col_value, dtype=float), np.asarray(sol.row_dual, dtype=float)[:n]


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


def branch_and_bound(
    M, q: np.ndarray, *, time_limit: float = 60.0, node_limit: int = 10**6, tol: float = 1e-8
) -> TreeResult:
    """Decide LCP(q, M) by a complementarity branch-and-bound (module docstring): a verified
    solution, or a tree certificate of "no solution", or "limit" after ``time_limit`` seconds /
    ``node_limit`` nodes. ``tol``: relative natural residual of an accepted solution."""
    t0 = time.perf_counter()
    M = sp.csr_matrix(M, dtype=float)
    q = np.asarray(q, dtype=float)
    n = q.size
    exact = ExactLCP(M, q)
    d = _pow2_row_scale(M, q)
    Ms = sp.csr_matrix(sp.diags(d) @ M)
    qs = d * q
    s = float(np.exp2(np.round(np.log2(max(1.0, float(np.abs(qs).max(initial=1.0)))))))
    lp = _NodeLP(Ms, qs / s)
    nodes: list[Node] = []
    unverified = 0
    # (node id, zfix, wfix); a node's id is its slot in ``nodes``, filled when it is processed
    stack: list[tuple[int, np.ndarray, np.ndarray]] = [(0, np.zeros(n, bool), np.zeros(n, bool))]
    nodes.append(None)

    def result(status: str, z=None) -> TreeResult:
        cert = TreeCertificate(n, nodes) if status == "no-solution" else None
        return TreeResult(status, cert, z, len(nodes), unverified, time.perf_counter() - t0)

    while stack:
        if time.perf_counter() - t0 > time_limit or len(nodes) > node_limit:
            return result("limit")
        k, zfix, wfix = stack.pop()
        out = lp.solve(zfix, wfix)
        if out is None:
            return result("limit")
        x, ys = out
        zs, ws = set(np.flatnonzero(zfix).tolist()), set(np.flatnonzero(wfix).tolist())
        if x is None or x[n] <= 1e-9:  # infeasible, or max t = 0: a leaf if a ray verifies
            ray = None
            for sign in (1.0, -1.0) if x is None else (1.0,):
                y = d * np.where(wfix, sign * ys, np.maximum(sign * ys, 0.0))  # unscaled rows, exactly
                y[np.abs(y) < 1e-12 * np.abs(y).max(initial=0.0)] = 0.0
                if exact.ray_ok(y, zs, ws):
                    ray = y
                    break
                fixed = exact_repair(M, y, zs, ws) if y.any() else None
                if fixed is not None and exact.ray_ok(fixed, zs, ws):
                    ray = fixed
                    break
            if ray is None:
                ray = leaf_ray(M, q, zs, ws, exact)
            if ray is not None or x is None:
                unverified += ray is None
                nodes[k] = ("leaf", np.zeros(n) if ray is None else ray)
                continue
        z, t = x[:n], x[n]
        w = Ms @ z + (qs / s) * t
        free = ~(zfix | wfix)
        gap = np.where(free, np.minimum(z, w), -1.0)
        i = int(np.argmax(gap))
        if gap[i] <= 1e-12 or not free.any():
            if t > 1e-9:
                sol = _pattern_solution(M, q, wfix | (free & (z <= w)), tol)
                if sol is not None:
                    return result("solution", sol)
            if not free.any():
                unverified += 1
                nodes[k] = ("leaf", np.zeros(n))
                continue
            i = int(np.argmax(np.where(free, np.maximum(z, w), -1.0)))
        kz, kw = len(nodes), len(nodes) + 1
        nodes += [None, None]
        nodes[k] = ("branch", i, kz, kw)
        a, b = zfix.copy(), wfix.copy()
        a[i] = True
        b[i] = True
        first, second = ((kz, a, wfix), (kw, zfix, b)) if z[i] <= w[i] else ((kw, zfix, b), (kz, a, wfix))
        stack += [second, first]
    return result("no-solution")
