"""Matrix classes of LCP theory: P, P0, copositive(-plus), column/row sufficient, S.

Each test returns a :class:`Verdict`: ``value`` (True/False), ``exact`` (a finite exact
test was run, or a violation was exhibited) and the ``method``. Exact up to a stated size,
sampled above it (a sampled True means "no violation found").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

#: largest order tested exactly, per property
EXACT = {"P": 14, "P0": 12, "copositive": 12, "sufficient": 6}
SAMPLES = 4000


@dataclass
class Verdict:
    """Outcome of one matrix-class test; ``witness`` is a violating vector or index set."""

    value: bool
    exact: bool
    method: str
    witness: object = None

    def __bool__(self) -> bool:
        return self.value

    def text(self) -> str:
        return f"{'yes' if self.value else 'no'} ({'exact' if self.exact else 'sampled'}: {self.method})"


def _scale(M: np.ndarray) -> float:
    return max(1.0, float(np.abs(M).max(initial=0.0)))


def principal_minors(M: np.ndarray):
    """Yield (index tuple, determinant) over all nonempty principal submatrices (2^n - 1)."""
    n = M.shape[0]
    for r in range(1, n + 1):
        for idx in itertools.combinations(range(n), r):
            yield idx, float(np.linalg.det(M[np.ix_(idx, idx)]))


def _p_recursive(A: np.ndarray, tol: float) -> bool:
    """Tsatsomeros-Li: A is P iff a11 > 0 and A[1:,1:] and its Schur complement are P."""
    if A[0, 0] <= tol:
        return False
    if A.shape[0] == 1:
        return True
    B = A[1:, 1:]
    C = B - np.outer(A[1:, 0], A[0, 1:]) / A[0, 0]
    return _p_recursive(B, tol) and _p_recursive(C, tol)


def _random_subsets(n: int, rng: np.random.Generator, count: int):
    for _ in range(count):
        size = int(rng.integers(1, n + 1))
        yield tuple(sorted(rng.choice(n, size=size, replace=False)))


def is_p_matrix(M, tol: float = 1e-12, seed: int = 0) -> Verdict:
    """All principal minors > 0 (by Schur-complement recursion, exact up to EXACT['P'])."""
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    t = tol * _scale(M)
    if n == 0:
        return Verdict(True, True, "empty")
    if n <= EXACT["P"]:
        return Verdict(_p_recursive(M, t), True, "Schur-complement recursion (Tsatsomeros-Li)")
    rng = np.random.default_rng(seed)
    for idx in _random_subsets(n, rng, SAMPLES):
        if np.linalg.det(M[np.ix_(idx, idx)]) <= t:
            return Verdict(False, True, "sampled principal minors", idx)
    return Verdict(True, False, f"{SAMPLES} random principal minors > 0")


def is_p0_matrix(M, tol: float = 1e-10, seed: int = 0) -> Verdict:
    """All principal minors >= -tol (exact enumeration up to EXACT['P0'], sampled above)."""
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    t = tol * _scale(M) ** max(n, 1)
    if n <= EXACT["P0"]:
        for idx, det in principal_minors(M):
            if det < -t:
                return Verdict(False, True, "principal minors", idx)
        return Verdict(True, True, "all principal minors >= 0")
    rng = np.random.default_rng(seed)
    for idx in _random_subsets(n, rng, SAMPLES):
        if np.linalg.det(M[np.ix_(idx, idx)]) < -t:
            return Verdict(False, True, "sampled principal minors", idx)
    return Verdict(True, False, f"{SAMPLES} random principal minors >= 0")


def _sym(M: np.ndarray) -> np.ndarray:
    return 0.5 * (M + M.T)


def is_copositive(M, tol: float = 1e-10, seed: int = 0) -> Verdict:
    """x^T M x >= 0 for all x >= 0.

    Exact test: S = (M + M^T)/2 fails iff some principal block S_JJ y = -1 has a solution y > 0
    (the minimizer of x^T S x on the simplex, on its support J); every J is checked (solve, or
    an LP when S_JJ is singular) up to EXACT['copositive'], random x >= 0 are tried above.
    """
    S = _sym(np.asarray(M, dtype=float))
    n = S.shape[0]
    t = tol * _scale(S)
    if n == 0:
        return Verdict(True, True, "empty")
    d = np.diag(S)
    if d.min() < -t:
        i = int(np.argmin(d))
        return Verdict(False, True, "negative diagonal", np.eye(n)[i])
    if S.min() >= -t:
        return Verdict(True, True, "nonnegative entries")
    if np.linalg.eigvalsh(S).min() >= -t:
        return Verdict(True, True, "positive semidefinite")
    if n > EXACT["copositive"]:
        x = _copositive_sample(S, t, np.random.default_rng(seed))
        if x is not None:
            return Verdict(False, True, "violating x >= 0 found by sampling", x)
        return Verdict(True, False, f"{SAMPLES} random x >= 0")
    for r in range(2, n + 1):
        for J in itertools.combinations(range(n), r):
            y = _interior_solution(S[np.ix_(J, J)], -np.ones(r), tol)
            if y is not None:
                x = np.zeros(n)
                x[list(J)] = y
                if x @ S @ x < -t * (x @ x):
                    return Verdict(False, True, "support enumeration", x / x.sum())
    return Verdict(True, True, "support enumeration (S_JJ y = -1, y > 0 has no solution)")


def _interior_solution(A: np.ndarray, b: np.ndarray, tol: float) -> np.ndarray | None:
    """A y = b with y > 0 (strictly), or None."""
    r = A.shape[0]
    try:
        if np.linalg.cond(A) < 1e10:
            y = np.linalg.solve(A, b)
            return y if y.min() > tol * max(1.0, np.abs(y).max()) else None
    except np.linalg.LinAlgError:
        pass
    c = np.zeros(r + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-np.eye(r), np.ones((r, 1))])
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=np.zeros(r),
        A_eq=np.hstack([A, np.zeros((r, 1))]),
        b_eq=b,
        bounds=[(0, 1e6)] * r + [(None, 1.0)],
        method="highs",
    )
    if res.status == 0 and res.x[-1] > tol:
        return res.x[:r]
    return None


def _copositive_sample(S: np.ndarray, t: float, rng: np.random.Generator) -> np.ndarray | None:
    n = S.shape[0]
    for _ in range(SAMPLES):
        x = rng.exponential(size=n) * (rng.random(n) < rng.uniform(0.2, 1.0))
        if x.sum() == 0:
            continue
        if x @ S @ x < -t * (x @ x):
            return x / x.sum()
    return None


def is_copositive_plus(M, tol: float = 1e-9, seed: int = 0) -> Verdict:
    """Copositive, and x >= 0 with x^T M x = 0 implies (M + M^T) x = 0.

    Exact up to EXACT['copositive']: a zero x of the form is a minimizer, so S x >= 0 and
    S_JJ x_J = 0 on its support J; for every J with a nonnegative null vector an LP maximizes
    sum S_{J^c J} x_J over {x_J >= 0, S_JJ x_J = 0, sum x_J = 1}.
    """
    M = np.asarray(M, dtype=float)
    cop = is_copositive(M, tol=tol, seed=seed)
    if not cop.value:
        return Verdict(False, cop.exact, f"not copositive ({cop.method})", cop.witness)
    S = _sym(M)
    n = S.shape[0]
    t = tol * _scale(S)
    if np.linalg.eigvalsh(S).min() >= -t:
        return Verdict(True, True, "positive semidefinite part (x^T S x = 0 implies S x = 0)")
    if n > EXACT["copositive"]:
        return Verdict(
            True, False, "copositive (sampled); the plus condition is not checked above the exact size"
        )
    for r in range(1, n + 1):
        for J in itertools.combinations(range(n), r):
            SJ = S[np.ix_(J, J)]
            if np.linalg.matrix_rank(SJ, tol=t) == r:
                continue
            rest = [i for i in range(n) if i not in J]
            res = linprog(
                -S[np.ix_(rest, J)].sum(axis=0) if rest else np.zeros(r),
                A_eq=np.vstack([SJ, np.ones((1, r))]),
                b_eq=np.append(np.zeros(r), 1.0),
                bounds=[(0, None)] * r,
                method="highs",
            )
            if res.status == 0 and rest and -res.fun > 1e3 * t:
                x = np.zeros(n)
                x[list(J)] = res.x
                return Verdict(False, True, "zero of x^T M x with (M + M^T) x != 0", x)
    return Verdict(True, True, "support enumeration with LPs")


def is_column_sufficient(M, tol: float = 1e-9, seed: int = 0) -> Verdict:
    """x_i (M x)_i <= 0 for all i implies x_i (M x)_i = 0 for all i.

    Shortcuts: P or positive semidefinite => sufficient; not P0 => not. Otherwise exact up to
    EXACT['sufficient'] by one LP per sign pattern of x (3^n / 2), sampled above.
    """
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    t = tol * _scale(M)
    if n == 0:
        return Verdict(True, True, "empty")
    if np.linalg.eigvalsh(_sym(M)).min() >= -t:
        return Verdict(True, True, "positive semidefinite")
    p0 = is_p0_matrix(M, seed=seed)
    if not p0.value:
        return Verdict(False, p0.exact, "not P0", p0.witness)
    if n <= EXACT["P"] and is_p_matrix(M).value:
        return Verdict(True, True, "P-matrix")
    if n <= EXACT["sufficient"]:
        seen = set()
        for sigma in itertools.product((-1, 0, 1), repeat=n):
            if not any(sigma) or tuple(-s for s in sigma) in seen:
                continue
            seen.add(sigma)
            x = _sign_violation(M, np.array(sigma, dtype=float), t)
            if x is not None:
                return Verdict(False, True, "sign-pattern LP", x)
        return Verdict(True, True, "sign-pattern LPs (3^n / 2)")
    rng = np.random.default_rng(seed)
    for _ in range(SAMPLES):
        x = rng.normal(size=n) * (rng.random(n) < rng.uniform(0.2, 1.0))
        prod = x * (M @ x)
        if np.all(prod <= t) and prod.min() < -t * max(1.0, x @ x):
            return Verdict(False, True, "violating x found by sampling", x)
    return Verdict(True, False, f"P0 and {SAMPLES} random x")


def _sign_violation(M: np.ndarray, sigma: np.ndarray, t: float) -> np.ndarray | None:
    J = np.flatnonzero(sigma)
    D = np.diag(sigma[J])
    R = D @ M[np.ix_(J, J)] @ D
    r = len(J)
    res = linprog(R.sum(axis=0), A_ub=R, b_ub=np.zeros(r), bounds=[(1.0, 1e3)] * r, method="highs")
    if res.status == 0 and res.fun < -1e3 * t:
        x = np.zeros(M.shape[0])
        x[J] = sigma[J] * res.x
        return x
    return None


def is_row_sufficient(M, tol: float = 1e-9, seed: int = 0) -> Verdict:
    """M^T column sufficient (see :func:`is_column_sufficient`)."""
    v = is_column_sufficient(np.asarray(M, dtype=float).T, tol=tol, seed=seed)
    return Verdict(v.value, v.exact, v.method + " (of M^T)", v.witness)


def is_s_matrix(M, tol: float = 1e-9) -> Verdict:
    """Some x >= 0 has M x > 0 (one LP)."""
    M = np.asarray(M, dtype=float)
    n = M.shape[0]
    if n == 0:
        return Verdict(True, True, "empty")
    c = np.zeros(n + 1)
    c[-1] = -1.0
    res = linprog(
        c,
        A_ub=np.hstack([-M, np.ones((n, 1))]),
        b_ub=np.zeros(n),
        A_eq=np.append(np.ones(n), 0.0)[None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * n + [(None, 1.0)],
        method="highs",
    )
    ok = res.status == 0 and res.x[-1] > tol * _scale(M)
    return Verdict(bool(ok), True, "LP max t: M x >= t, x >= 0, sum x = 1", res.x[:n] if ok else None)
