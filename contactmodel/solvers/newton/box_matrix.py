"""The Newton matrix of the box method of :mod:`contactmodel.solvers.newton`, sparse: the
assembly of ``H = diag(da) + diag(db) J`` on the pattern of ``J + I``, its factorization, and the
Levenberg-Marquardt step on it. Shared by the numpy loop (``_Newton``) and the compiled
small-problem loop of :mod:`contactmodel.solvers.newton.small_box`, whose rare
Levenberg-Marquardt step runs :func:`lm_box` in the interpreter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import structural_rank

from contactmodel.solvers.newton import core
from contactmodel.sparse_product import keyed_pattern

#: square systems of at most this many rows are factored dense (LAPACK LU)
DENSE_N = 150
#: and denser ones too: more than this fraction of nonzeros
DENSE_FRACTION = 0.15
#: patterns an :class:`Assembler` keeps by the identity of their read-only index arrays
_KEPT = 16


class Assembler:
    """Builds ``H = diag(da) + diag(db) J`` as the CSC matrix of ``H^T`` (for SuperLU, trans='T').

    The sparsity pattern of ``J`` plus its diagonal is kept while ``J`` keeps the same pattern:
    the same index arrays (the constant ``M`` of an affine MCP) or equal ones (the Jacobian of a
    nonlinear MCP, made anew at each iterate). Up to :data:`_KEPT` patterns whose index arrays are
    read-only (the templates of :func:`contactmodel.sparse_product.pattern_of`: a Jacobian whose
    exact zeros come and go between a few patterns) are kept by those arrays' identity.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self._key: tuple[Any, ...] | None = None
        self._kept: dict[tuple[int, int], tuple[Any, ...]] = {}

    def _pattern(self, J: sp.csr_matrix) -> None:
        n = self.n
        counts = np.diff(J.indptr)
        rows = np.repeat(np.arange(n), counts)
        cols = J.indices
        jkeys = rows.astype(np.int64) * n + cols
        diag = np.arange(n, dtype=np.int64) * (n + 1)
        kkeys = np.union1d(jkeys, diag)  # J + I: J's entries and the diagonal, sorted by row, column
        krows = kkeys // n
        self.jpos = np.searchsorted(kkeys, jkeys)
        self.dpos = np.searchsorted(kkeys, diag)
        self.jrows = rows
        self.krows = krows
        self.kindptr, self.kindices = keyed_pattern(kkeys, (n, n))
        self.knnz = kkeys.size
        self._key = (J.indptr, J.indices, J.indptr.copy(), J.indices.copy())

    def _switch(self, J: sp.csr_matrix) -> None:
        """Take ``J``'s pattern: a kept one (read-only index arrays met before), else made."""
        fields = ("_key", "jpos", "dpos", "jrows", "krows", "kindptr", "kindices", "knnz")
        frozen = not (J.indptr.flags.writeable or J.indices.flags.writeable)
        ident = (id(J.indptr), id(J.indices))
        kept = self._kept.get(ident) if frozen else None
        if kept is not None and kept[0] is J.indptr and kept[1] is J.indices:
            for name, value in zip(fields, kept[2]):
                setattr(self, name, value)
            return
        self._pattern(J)
        if frozen:
            if len(self._kept) >= _KEPT:
                self._kept.clear()
            self._kept[ident] = (J.indptr, J.indices, tuple(getattr(self, name) for name in fields))

    def values(self, J: sp.csr_matrix, da: np.ndarray, db: np.ndarray) -> np.ndarray:
        """Entries of ``H`` in the cached CSR pattern of ``J + I``."""
        key = self._key
        if key is None or not (
            (key[0] is J.indptr and key[1] is J.indices)
            or (np.array_equal(key[2], J.indptr) and np.array_equal(key[3], J.indices))
        ):
            self._switch(J)
        data = np.zeros(self.knnz)
        data[self.jpos] = J.data * db[self.jrows]
        data[self.dpos] += da
        return data

    def __call__(self, J: sp.csr_matrix, da: np.ndarray, db: np.ndarray) -> sp.csc_matrix:
        data = self.values(J, da, db)
        return sp.csc_matrix((data, self.kindices, self.kindptr), shape=(self.n, self.n))

    def factor(self, data: np.ndarray, keep: np.ndarray | None) -> Callable[[np.ndarray], np.ndarray] | None:
        """Factor ``H[keep, keep]`` for ``H`` given by :meth:`values`: a solver of ``H[keep, keep] y
        = r``, or None if the matrix is singular.

        Small or dense systems use LAPACK's LU, others SuperLU (partial pivoting) on the CSC
        matrix of ``H^T``. A minimum-degree ordering on ``A^T + A`` with threshold pivoting
        halved the fill on friction LCPs but cost the nonlinear cone MNCPs their convergence.
        """
        rows, cols = self.krows, self.kindices
        if keep is None:
            m, indptr = self.n, self.kindptr
        else:
            m = int(np.count_nonzero(keep))
            if m == 0:
                return lambda r: np.zeros(0)
            pos = np.cumsum(keep) - 1
            emask = keep[rows] & keep[cols]
            rows, cols, data = pos[rows[emask]], pos[cols[emask]], data[emask]
            indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=m))))
        nz = data != 0.0
        if (
            np.count_nonzero(np.bincount(rows[nz], minlength=m)) < m
            or np.count_nonzero(np.bincount(cols[nz], minlength=m)) < m
        ):
            return None
        if m <= DENSE_N or data.size > DENSE_FRACTION * m * m:
            H = np.zeros((m, m), order="F")
            H[rows, cols] = data
            return core.dense_lu(H)
        if not nz.all():
            # SuperLU given stored zeros of a numerically singular matrix can call BLAS with
            # invalid sizes (messages on stderr) before failing; without them it reports the
            # singularity itself.
            rows, cols, data = rows[nz], cols[nz], data[nz]
            indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=m))))
        Ht = sp.csc_matrix((data, cols, indptr), shape=(m, m))
        if structural_rank(Ht) < m:
            # structurally singular with no empty row or column (e.g. the MNCP Newton matrix of a
            # 100-box pile): SuperLU calls BLAS with invalid sizes (messages on stdout), then fails
            return None
        lu = spla.splu(Ht)
        return lambda r: lu.solve(r, trans="T")


def lm_solve(HT: sp.csc_matrix, phi: np.ndarray, lm_mu: float) -> np.ndarray | None:
    """The Levenberg-Marquardt step ``(H^T H + mu I) d = -H^T Phi``, ``mu = lm_mu ||Phi||_2`` (at
    least ``1e-14 max(1, max|H|)^2``), for ``H^T`` as :class:`Assembler` gives it (n, n); None
    when it fails or is not finite. Up to :data:`DENSE_N` rows :func:`lm_dense` on the dense H;
    beyond, dense LAPACK LU when ``H^T H`` has more than :data:`DENSE_FRACTION` nonzeros, else
    SuperLU."""
    n = HT.shape[0]
    if n <= DENSE_N:
        return lm_dense(HT.T.toarray(), phi, lm_mu)
    H = HT.T.tocsr()
    mu = lm_mu * float(np.linalg.norm(phi))
    mu = max(mu, 1e-14 * max(1.0, float(abs(H).max())) ** 2)
    N = H.T @ H + mu * sp.eye(n, format="csr")
    g = H.T @ phi
    try:
        if N.nnz > DENSE_FRACTION * n * n:
            solve = core.dense_lu(np.asfortranarray(N.toarray()))
            if solve is None:
                return None
            d = solve(-g)
        else:
            d = spla.splu(N.tocsc()).solve(-g)
    except (RuntimeError, ValueError, sla.LinAlgError):
        return None
    return d if np.all(np.isfinite(d)) else None


def lm_box(
    data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
    da: np.ndarray, db: np.ndarray, phi: np.ndarray, lm_mu: float,
) -> np.ndarray | None:  # fmt: skip
    """:func:`lm_solve` for ``J`` given in canonical CSR (``data``, ``indices``, ``indptr``; n x n)
    and the diagonals ``da``, ``db`` (n,) of ``H``."""
    n = phi.shape[0]
    if n <= DENSE_N:  # H's entries as the Assembler makes them: db J, then da on the diagonal
        rows = np.repeat(np.arange(n), np.diff(indptr))
        H = np.zeros((n, n))
        H[rows, indices] = data * db[rows]
        H[np.diag_indices(n)] += da
        return lm_dense(H, phi, lm_mu)
    J = sp.csr_matrix((data, indices, indptr), shape=(n, n))
    return lm_solve(Assembler(n)(J, da, db), phi, lm_mu)


def lm_dense(H: np.ndarray, phi: np.ndarray, lm_mu: float) -> np.ndarray | None:
    """:func:`lm_solve` on a dense ``H`` (n, n): the same mu, ``H^T H + mu I`` and ``H^T Phi`` by
    BLAS, LAPACK's LU (a small system: no sparse products and no SuperLU set-up); None when it
    fails or is not finite."""
    n = H.shape[0]
    mu = lm_mu * float(np.linalg.norm(phi))
    mu = max(mu, 1e-14 * max(1.0, float(np.abs(H).max(initial=0.0))) ** 2)
    N = H.T @ H
    N[np.diag_indices(n)] += mu
    solve = core.dense_lu(np.asfortranarray(N))
    if solve is None:
        return None
    d = solve(-(H.T @ phi))
    return d if np.all(np.isfinite(d)) else None
