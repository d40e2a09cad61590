"""The node LP of a complementarity tree, solved exactly over the rationals.

For a rational LCP (M, q) and a node ``{z_I = 0, w_J = 0}`` of a complementarity tree, the
homogenized LP of :mod:`contactmodel.analysis.certificate`,

    max t   s.t.   w = M z + q t,   sum(z) + t = 1,   z, t, w >= 0,   z_I = 0,   w_J = 0,

has optimum t* = 0 exactly when the node holds no solution (t = 1 / (1 + ||z||_1) at a solution
z), and otherwise every solution in the node has ``||z||_1 >= (1 - t*) / t*``. It is solved with
``sum(z) + t <= 1`` instead, the same optimum, so that x = 0 is feasible and a node whose cone is
{0} gets t* = 0 and its Farkas ray like any other. Near a cancellation of the data, t* is far
below rounding (1e-22 on real instances), so a float LP solver sees 0 and its basis is optimal
only to its tolerances.

:class:`ExactNodeLP` finds an exactly optimal basis by iterative refinement (Gleixner, Steffy
and Wolter, "Iterative refinement for linear programming", INFORMS J. Computing, 2016): HiGHS
pivots in floats, FLINT solves each basis exactly, and between checks HiGHS gets the correction
LP, ``x = x0 + delta / s_p`` from the basis's exact point x0 with the objective the exact
reduced costs times s_d, the scales chosen so the largest primal violation and the largest
positive reduced cost are 1. The optimal basis gives the exact point (z, t) and multipliers y
with ``ExactLCP.leaf_bound(y) = t*`` (LP duality): a Farkas ray of the node when t* = 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp

from contactmodel.analysis.certificate import highs_model

#: a prime for rank decisions by row reduction modulo p (exact unless p divides a deciding minor;
#: every answer is re-checked exactly by its user)
PRIME = 2**61 - 1

#: refinement rounds (float solve and exact check) before the exact simplex takes over
ROUNDS = 20

#: the correction LP's costs (the reduced costs scaled so the largest positive one is 1) are
#: clipped below at -COST_CLIP
COST_CLIP = 1e3

#: exact simplex pivots (after refinement) before an LP is given up
SIMPLEX_PIVOTS = 500


def to_fmpq(x: float | Fraction) -> flint.fmpq:
    """The exact rational value of ``x`` (a float's binary value, exactly) as a FLINT fmpq."""
    return flint.fmpq(*Fraction(x).as_integer_ratio())


def to_fraction(v: flint.fmpq) -> Fraction:
    """The FLINT rational ``v`` as a Python Fraction (same value)."""
    return Fraction(int(v.p), int(v.q))


def residue_mod_p(v: flint.fmpq) -> int:
    """The rational ``v`` reduced modulo :data:`PRIME` (p / q as p * q^-1 mod PRIME; q prime to it)."""
    return int(v.p) % PRIME * pow(int(v.q), -1, PRIME) % PRIME


def pivot_columns(columns: list[list[tuple[int, int]]], rows: int) -> list[int]:
    """The pivot columns, in order, of the matrix with ``rows`` rows whose columns are given
    by their nonzeros mod p, ``(row, value)``."""
    width = len(columns)
    flat = [0] * (rows * width)
    for c, col in enumerate(columns):
        for r, v in col:
            flat[r * width + c] = v
    reduced, rank = flint.nmod_mat(rows, width, flat, PRIME).rref()
    pivots, c = [], 0
    for i in range(rank):  # row i's pivot is the first nonzero right of row i - 1's
        while not int(reduced[i, c]):
            c += 1
        pivots.append(c)
        c += 1
    return pivots


@dataclass
class NodeOptimum:
    """The exact optimum of a node LP. ``t``: max t (0: the node holds no solution); ``z``: the
    optimal point's z (n,), with ``sum(z) + t = 1`` when t > 0; ``y``: multipliers of the LCP
    rows (n,) with :meth:`~contactmodel.analysis.certificate.ExactLCP.leaf_bound` equal to t
    (for t < 1; t = 1 is z = 0, a solution), a Farkas ray when t = 0; ``basis``: the optimal
    basis as column keys (``("z", j)``, ``("t", 0)``, ``("w", i)``, ``("s", 0)``), a warm
    start for nodes below."""

    t: Fraction
    z: list[Fraction]
    y: list[Fraction]
    basis: frozenset


class ExactNodeLP:
    """Exact node LPs of one rational LCP (``rows[i]``: column j -> M_ij, ``q`` (n,)), each
    solved by :meth:`solve`. One HiGHS model of the LCP rounded, ``max t`` over columns (z, t)
    and rows ``(M z + q t)_i`` (the row activity is w_i) and ``sum z + t``, serves every node's
    float solves, its bounds set per node."""

    def __init__(self, rows: list[dict[int, Fraction]], q: list[Fraction]) -> None:
        import highspy

        n = self.n = len(q)
        columns: dict = {("z", j): [] for j in range(n)}
        for i, row in enumerate(rows):
            for j, v in row.items():
                if v:
                    columns[("z", j)].append((i, to_fmpq(v)))
        for j in range(n):
            columns[("z", j)].append((n, flint.fmpq(1)))
        columns[("t", 0)] = [(i, to_fmpq(v)) for i, v in enumerate(q) if v] + [(n, flint.fmpq(1))]
        for i in range(n):
            columns[("w", i)] = [(i, flint.fmpq(-1))]
        columns[("s", 0)] = [(n, flint.fmpq(1))]  # the normalization's slack
        self.columns = columns
        self.mod_p = {k: [(r, residue_mod_p(v)) for r, v in col] for k, col in columns.items()}
        cols = [columns[("z", j)] for j in range(n)] + [columns[("t", 0)]]
        A = sp.csc_matrix(
            (
                [float(v) for col in cols for _, v in col],
                ([r for col in cols for r, _ in col], [c for c, col in enumerate(cols) for _ in col]),
            ),
            shape=(n + 1, n + 1),
        )
        self.A = A.tocsr()
        zeros, free = np.zeros(n + 1), np.full(n + 1, np.inf)
        h = highs_model(A, zeros, (zeros, free), (zeros, free), maximize=True)
        self.h, self.highspy = h, highspy
        self.every = np.arange(n + 1, dtype=np.int32)

    def _float_solve(self, lp: _StandardForm, basis: list[int] | None, x0, d) -> tuple[bool, list[int]]:
        """(optimal, basis): HiGHS on the node (``basis`` None: the LP itself, cold) or on the
        correction LP at ``basis`` with point x0 and reduced costs d (module docstring), its
        basis mapped to ``lp``'s columns and completed."""
        n, h, hs = self.n, self.h, self.highspy
        inf = hs.kHighsInf
        fixed_z = np.array([("z", j) not in lp.index for j in range(n)] + [False])
        fixed_w = np.array([("w", i) not in lp.index for i in range(n)] + [False])
        col_lower, row_lower = np.zeros(n + 1), np.zeros(n + 1)
        row_lower[n], row_upper_n = -inf, 1.0
        cost = np.zeros(n + 1)
        if basis is None:
            cost[n] = 1.0
        else:  # x = x0 + delta / s_p: delta >= -s_p x0; objective s_d d . delta on (z, t)
            improving = [v for v in d if v > 0]
            s_d = 1 / float(max(improving or [max(abs(v) for v in d) or flint.fmpq(1)]))
            infeasible = [-v for v in x0 if v < 0]
            s_p = 1 / float(max(infeasible)) if infeasible else 1.0
            dw = np.zeros(n + 1)
            for c, k in enumerate(lp.keys):
                # clipped: a column far from entering needs no exact cost, and HiGHS fails
                # on costs spanning 1e19
                scaled = max(float(d[c]) * s_d, -COST_CLIP)
                if k[0] == "w":
                    dw[k[1]] = scaled
                else:
                    cost[k[1] if k[0] == "z" else n] += scaled
            cost += self.A.T @ dw  # the slacks' reduced costs, through w = A (z, t)
            for c, v in zip(basis, x0):
                kind, j = lp.keys[c]
                bound = max(-float(v) * s_p, -inf)
                if kind == "w":
                    row_lower[j] = bound
                elif kind == "s":  # sum z + t = 1 - s: its delta is at most s_p s0
                    row_upper_n = -bound
                else:
                    col_lower[j if kind == "z" else n] = bound
            if ("s", 0) not in {lp.keys[c] for c in basis}:
                row_upper_n = 0.0
        h.changeColsCost(n + 1, self.every, cost)
        h.changeColsBounds(n + 1, self.every, col_lower, np.where(fixed_z, 0.0, inf))
        row_upper = np.where(fixed_w, row_lower, inf)
        row_upper[n] = row_upper_n
        h.changeRowsBounds(n + 1, self.every, row_lower, row_upper)
        if basis is not None:
            chosen = {lp.keys[c] for c in basis}
            basic, lower = hs.HighsBasisStatus.kBasic, hs.HighsBasisStatus.kLower
            warm = hs.HighsBasis()
            cols = [("z", j) in chosen for j in range(n)] + [("t", 0) in chosen]
            warm.col_status = [basic if c else lower for c in cols]
            # the rows dropped as dependent keep their logicals basic: n + 1 basic in all
            rows = [("w", i) in chosen or i not in lp.rows for i in range(n)]
            warm.row_status = [basic if r else lower for r in rows]
            warm.row_status += [basic if ("s", 0) in chosen else hs.HighsBasisStatus.kUpper]
            warm.valid = True
            h.setBasis(warm)
        h.run()
        status = h.getBasis()
        basic = hs.HighsBasisStatus.kBasic
        col_status, row_status = status.col_status, status.row_status  # copies: read once
        keys = [("z", j) for j in range(n) if col_status[j] == basic]
        keys += [("t", 0)] if col_status[n] == basic else []
        keys += [("w", i) for i in range(n) if row_status[i] == basic]
        keys += [("s", 0)] if row_status[n] == basic else []
        hint = [lp.index[k] for k in keys if k in lp.index]
        return h.getModelStatus() == hs.HighsModelStatus.kOptimal, lp.complete(hint)

    def solve(self, zero_z, zero_w, start: frozenset | None = None) -> NodeOptimum | None:
        """The exact optimum of the node ``{z_I = 0, w_J = 0}`` (I = ``zero_z``, J = ``zero_w``),
        warm-started from ``start`` (a :attr:`NodeOptimum.basis`), else from HiGHS's own
        solve. Refinement runs at most :data:`ROUNDS` rounds; where a float correction LP
        fails, or the rounds alternate between primal and dual infeasible bases, the exact
        simplex takes over from the last primal feasible basis. A failed warm start is
        retried cold; None when that fails too (:data:`SIMPLEX_PIVOTS` pivots)."""
        lp = _StandardForm(self, zero_z, zero_w)
        if start is None:
            _, basis = self._float_solve(lp, None, None, None)
        else:
            basis = lp.complete([lp.index[k] for k in start if k in lp.index])
        feasible = None
        for _ in range(ROUNDS):
            if len(basis) != lp.m or (checked := lp.check(basis)) is None:
                break
            xB, y, d = checked
            if all(v >= 0 for v in xB):
                if all(v <= 0 for v in d):
                    return lp.optimum(basis, xB, y)
                feasible = basis
            optimal, new = self._float_solve(lp, basis, xB, d)
            if not optimal or sorted(new) == sorted(basis):
                break  # the float correction LP fails where rounding A decides it
            basis = new
        # pivot exactly, from a primal feasible basis where refinement reached one
        basis = feasible or basis
        basis = lp.simplex(basis, SIMPLEX_PIVOTS) if len(basis) == lp.m else None
        if basis is not None:
            xB, y, _ = lp.check(basis)
            return lp.optimum(basis, xB, y)
        return None if start is None else self.solve(zero_z, zero_w)


class _StandardForm:
    """The node LP as ``max t``, ``A x = b``, ``x >= 0``: columns z_j (j not in I), t and the
    slacks w_i (i not in J) and s, rows ``(M z + q t)_i - w_i = 0`` and ``sum z + t + s = 1``
    (row n), the rows dependent mod p dropped (only rows without a slack, i in J, can be)."""

    def __init__(self, lcp: ExactNodeLP, zero_z, zero_w) -> None:
        n = lcp.n
        keys = [("z", j) for j in range(n) if j not in zero_z] + [("t", 0)]
        keys += [("w", i) for i in range(n) if i not in zero_w] + [("s", 0)]
        # independent rows, the normalization row first: pivot columns of A^T with row n moved
        # to the front
        order = [n] + list(range(n))
        rows_of: list[list[tuple[int, int]]] = [[] for _ in order]
        for c, k in enumerate(keys):
            for r, v in lcp.mod_p[k]:
                rows_of[(r + 1) % (n + 1)].append((c, v))
        kept = [order[k] for k in pivot_columns(rows_of, len(keys))]
        where = {r: k for k, r in enumerate(kept)}
        self.n, self.m = n, len(where)
        self.keys = keys
        self.index = {k: c for c, k in enumerate(keys)}
        self.cols = [[(where[r], v) for r, v in lcp.columns[k] if r in where] for k in keys]
        self.mod_p = [[(where[r], v) for r, v in lcp.mod_p[k] if r in where] for k in keys]
        self.b = [flint.fmpq(0)] * self.m
        self.b[where[n]] = flint.fmpq(1)
        self.rows = where
        self.t = self.index[("t", 0)]
        self.width = len(keys)  # the LP's own columns (the simplex may append an artificial one)
        self._all: flint.fmpq_mat | None = None

    def complete(self, hint: list[int]) -> list[int]:
        """A basis (m nonsingular columns) taking the ``hint`` columns first where they are
        independent, mod p."""
        hint = list(dict.fromkeys(hint))
        if len(hint) == self.m and len(pivot_columns([self.mod_p[c] for c in hint], self.m)) == self.m:
            return hint  # usually: HiGHS's basis, mapped
        order = hint + [c for c in range(len(self.cols)) if c not in set(hint)]
        return [order[k] for k in pivot_columns([self.mod_p[c] for c in order], self.m)]

    def matrix(self, columns: list[int] | None = None) -> flint.fmpq_mat:
        """The m x len(columns) matrix of these columns (default: the LP's own, built once)."""
        if columns is None:
            if self._all is None:
                self._all = self.matrix(list(range(self.width)))
            return self._all
        m, width = self.m, len(columns)
        flat = [flint.fmpq(0)] * (m * width)
        for k, c in enumerate(columns):
            for r, v in self.cols[c]:
                flat[r * width + k] = v
        return flint.fmpq_mat(m, width, flat)

    def check(self, basis: list[int], cost: list | None = None):
        """(x_B, y, d): the basis's exact point, row duals and reduced costs
        (``d_c = cost_c - a_c . y``, 0 on the basis) for ``cost`` (default: max t); None when
        the basis is singular. The basis's one-entry columns (the slacks, about half of them)
        are eliminated first: only the square block of the other columns on the rows no slack
        covers is solved, twice (for x and for y)."""
        zero = flint.fmpq(0)
        if cost is None:
            cost = [flint.fmpq(1) if c == self.t else zero for c in range(len(self.cols))]
        unit = {k: self.cols[c][0] for k, c in enumerate(basis) if len(self.cols[c]) == 1}
        covered = {r: k for k, (r, _) in unit.items()}
        if len(covered) < len(unit):
            return None  # two slacks on one row
        other = [k for k in range(self.m) if k not in unit]
        free_row = {r: i for i, r in enumerate(r for r in range(self.m) if r not in covered)}
        slack_row = {r: i for i, r in enumerate(covered)}
        size, rest = len(other), len(covered)
        square, side = [zero] * (size * size), [zero] * (rest * size)
        for i, k in enumerate(other):  # the block on free rows, and its rows under the slacks
            for r, v in self.cols[basis[k]]:
                if r in free_row:
                    square[free_row[r] * size + i] = v
                else:
                    side[slack_row[r] * size + i] = v
        C, D = flint.fmpq_mat(size, size, square), flint.fmpq_mat(rest, size, side)
        value = [unit[covered[r]][1] for r in covered]  # the slack columns' entries
        y_slack = [cost[basis[covered[r]]] / v for r, v in zip(covered, value)]
        try:
            x_other = C.solve(flint.fmpq_mat(size, 1, [self.b[r] for r in free_row]))
            c_other = [cost[basis[k]] for k in other]
            y_other = C.transpose().solve(
                flint.fmpq_mat(size, 1, c_other) - D.transpose() * flint.fmpq_mat(rest, 1, y_slack)
            )
        except ZeroDivisionError:  # FLINT's "singular matrix"
            return None
        x_slack = (flint.fmpq_mat(rest, 1, [self.b[r] for r in covered]) - D * x_other).entries()
        xB = [zero] * self.m
        for k, v in zip(other, x_other.entries()):
            xB[k] = v
        for r, x, v in zip(covered, x_slack, value):
            xB[covered[r]] = x / v
        y = [zero] * self.m
        for r, v in zip(free_row, y_other.entries()):
            y[r] = v
        for r, v in zip(covered, y_slack):
            y[r] = v
        own = flint.fmpq_mat(1, self.width, cost[: self.width]) - flint.fmpq_mat(1, self.m, y) * self.matrix()
        d = own.entries() + [  # the simplex's artificial column, when it has one
            cost[c] - sum((y[r] * v for r, v in self.cols[c]), zero)
            for c in range(self.width, len(self.cols))
        ]
        for c in basis:
            d[c] = zero
        return xB, y, d

    def simplex(self, basis: list[int], limit: int) -> list[int] | None:
        """An optimal basis by the exact primal simplex from a nonsingular ``basis`` (Dantzig's
        rule on scaled columns, Bland's after 30 degenerate steps), at most ``limit`` pivots;
        a basis with negative entries first gets one artificial column, driven to 0 by a phase
        that maximizes its negative. None at the limit or when the artificial stays positive."""
        zero, one = flint.fmpq(0), flint.fmpq(1)
        N = len(self.cols)
        checked = self.check(basis)
        if checked is None:
            return None
        xB = checked[0]
        basis = list(basis)
        cost = [one if c == self.t else zero for c in range(N)]
        negative = [k for k in range(self.m) if xB[k] < 0]
        if negative:  # artificial column -B v (v = 1 on negative entries) enters for the worst one
            column: dict[int, flint.fmpq] = {}
            for k in negative:
                for r, v in self.cols[basis[k]]:
                    column[r] = column.get(r, zero) - v
            self.cols.append([(r, v) for r, v in column.items() if v])
            cost = [zero] * N + [-one]
            worst = min(negative, key=lambda k: xB[k])
            shift = -xB[worst]
            xB = [v + shift if k in negative else v for k, v in enumerate(xB)]
            xB[worst], basis[worst] = shift, N
        degenerate = 0
        for _ in range(limit):
            checked = self.check(basis, cost)
            if checked is None:
                break
            _, _, d = checked
            bland = degenerate > 30
            entering, best = None, zero
            for c in range(N):
                if d[c] > 0:
                    if bland:
                        entering = c
                        break
                    score = d[c] / max(abs(v) for _, v in self.cols[c])
                    if score > best:
                        entering, best = c, score
            if entering is None:
                if len(self.cols) == N:
                    return basis
                if N in basis and xB[basis.index(N)] > 0:
                    break  # the artificial stays positive: infeasible (not expected here)
                self.cols.pop()
                if N in basis:  # at 0 in the basis: replace it by a column completing the rest
                    rest = [c for c in basis if c != N]
                    basis = self.complete(rest)
                    xB = self.check(basis)[0] if len(basis) == self.m else None
                    if xB is None or any(v < 0 for v in xB):
                        return None
                cost = [one if c == self.t else zero for c in range(N)]
                continue
            B = self.matrix(basis)
            a = [zero] * self.m
            for r, v in self.cols[entering]:
                a[r] = v
            u = B.solve(flint.fmpq_mat(self.m, 1, a))
            ratios = [(xB[k] / u[k, 0], basis[k] != N, basis[k], k) for k in range(self.m) if u[k, 0] > 0]
            if not ratios:
                break  # unbounded: not possible with sum(z) + t <= 1
            theta, _, _, leave = min(ratios)
            xB = [xB[k] - theta * u[k, 0] for k in range(self.m)]
            xB[leave] = theta
            basis[leave] = entering
            degenerate = degenerate + 1 if theta == 0 else 0
        if len(self.cols) > N:
            self.cols.pop()
        return None

    def optimum(self, basis: list[int], xB, y) -> NodeOptimum:
        """The :class:`NodeOptimum` of an optimal basis with its point and row duals."""
        z = [Fraction(0)] * self.n
        t = Fraction(0)
        for c, v in zip(basis, xB):
            kind, j = self.keys[c]
            if kind == "z":
                z[j] = to_fraction(v)
            elif kind == "t":
                t = to_fraction(v)
        # leaf_bound's multipliers are the negated row duals (w_i >= 0 makes d_{w_i} = y_i <= 0)
        multipliers = [Fraction(0)] * self.n
        for r, k in self.rows.items():
            if r < self.n:
                multipliers[r] = -to_fraction(y[k])
        return NodeOptimum(t, z, multipliers, frozenset(self.keys[c] for c in basis))
