"""Compiled kernels for the hot loops of :mod:`contactmodel.solvers.newton` (optional).

With numba installed (``pip install -e ".[fast]"``) ``fb_lower`` and ``dense_block`` are the
functions below compiled to machine code, each one loop instead of a dozen numpy calls; without
it they are None and newton uses its numpy code. Both give the same numbers bit for bit (the
same operations in the same order; tested against the numpy code, also without numba by calling
the plain Python functions). On the n = 200 friction-pyramid LCPs of ``benchmarks/peers.py``
(seeds 1-20, best of 5, in one process) they take a fifth off newton's time: 5.4 -> 4.2 ms (roll),
4.5 -> 3.6 ms (slide).
"""

from __future__ import annotations

import math

import numpy as np

try:
    import numba
except ImportError:  # the optional "fast" extra is not installed
    numba = None

AVAILABLE = numba is not None
_C0 = 1.0 - math.sqrt(0.5)  # both FB partials at a = b = 0


def fb_lower_py(x: np.ndarray, lb: np.ndarray, F: np.ndarray, scale: np.ndarray, lam: float):
    """Everything newton needs at ``x`` when every variable has only a lower bound ``lb``:
    ``(phi, da, db, nat, at_bound, res)``, all (n,) but ``res``.

    ``phi = FB(x - lb, scale F)`` (penalized with weight ``lam`` when ``lam < 1``), its partials
    ``da`` and ``db`` (``db`` times ``scale``, the partial with respect to ``F``), the natural
    residual ``nat = x - max(x - F, lb)``, the mask ``at_bound = x - F <= lb`` and
    ``res = max |nat|`` (NaN if any is). The same formulas as newton's ``_phi`` and ``_Box``.
    """
    n = x.shape[0]
    phi = np.empty(n)
    da = np.empty(n)
    db = np.empty(n)
    nat = np.empty(n)
    at_bound = np.empty(n, dtype=np.bool_)
    res = 0.0
    for i in range(n):
        a = x[i] - lb[i]
        b = F[i] * scale[i]
        r = math.hypot(a, b)
        s = a + b
        v = 2.0 * a * b / (s + r) if s > 0.0 else s - r
        if r == 0.0:
            pa = _C0
            pb = _C0
        else:
            pa = 1.0 - a / r
            pb = 1.0 - b / r
        if lam < 1.0:
            ap = a if a > 0.0 else 0.0
            bp = b if b > 0.0 else 0.0
            v = lam * v + (1.0 - lam) * ap * bp
            pa = lam * pa + (1.0 - lam) * bp * (1.0 if a > 0.0 else 0.0)
            pb = lam * pb + (1.0 - lam) * ap * (1.0 if b > 0.0 else 0.0)
        phi[i] = v
        da[i] = pa
        db[i] = pb * scale[i]
        y = x[i] - F[i]
        at_bound[i] = y <= lb[i]
        nat[i] = x[i] - (y if y > lb[i] or y != y else lb[i])  # numpy's maximum keeps a NaN
        m = abs(nat[i])
        if m > res or m != m:  # keeps a NaN, as numpy's max does
            res = m
    return phi, da, db, nat, at_bound, res


def dense_block_py(JT: np.ndarray, keep: np.ndarray, da: np.ndarray, db: np.ndarray) -> np.ndarray:
    """``H[keep, keep]`` of ``H = diag(da) + diag(db) J`` as a Fortran-ordered (m, m) array, from
    ``JT`` = J^T (n, n, C order) and the row indices ``keep`` (m,)."""
    m = keep.shape[0]
    H = np.empty((m, m)).T  # Fortran order, as LAPACK wants
    for j in range(m):
        column = JT[keep[j]]  # column keep[j] of J
        for i in range(m):
            H[i, j] = column[keep[i]] * db[keep[i]]
        H[j, j] += da[keep[j]]
    return H


if AVAILABLE:
    fb_lower = numba.njit(cache=True)(fb_lower_py)
    dense_block = numba.njit(cache=True)(dense_block_py)
else:
    fb_lower = dense_block = None
