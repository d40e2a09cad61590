"""``A @ x`` and ``A.T @ x`` of a small CSR matrix and a vector at the cost of SciPy's kernel alone.

SciPy's operator ``@`` spends ~4 us a call checking and dispatching before its ``csr_matvec``
kernel runs (~1 us on the matrices of a few contacts); every answer's interpretation makes five
such products. :func:`csr_times` calls that kernel directly, as ``@`` would, so the numbers are
the same bit for bit; anything else (another format or dtype, a matrix on the right) goes
through ``@``.
"""

from __future__ import annotations

import copy

import numpy as np
import scipy.sparse as sp

try:  # SciPy's own compiled kernels, the ones its ``@`` calls
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
except ImportError:  # pragma: no cover - a SciPy that moved them: the operator instead
    _csr_matvec = _csc_matvec = None


def index_dtype(*sizes: int) -> type:
    """The index type SciPy gives a sparse matrix whose sizes (shape, number of entries) are
    ``sizes``: int32 when every one fits, else int64. Arrays built in that type are taken as
    they are; int64 ones that would fit SciPy scans to convert (~8 us a matrix)."""
    return np.int32 if max(sizes, default=0) < np.iinfo(np.int32).max else np.int64


def dense_csr(A: np.ndarray) -> sp.csr_matrix:
    """``sp.csr_matrix(A)`` of a dense (m, n) array, the same matrix (canonical, int32 indices
    when they fit), built from A's nonzero mask directly (SciPy goes through a COO matrix:
    3x slower at 300 x 300)."""
    m, n = A.shape
    flat = np.flatnonzero(A != 0)  # row-major positions of the nonzeros (NaN among them)
    index = index_dtype(flat.size, n)
    indptr = np.zeros(m + 1, dtype=index)
    np.cumsum(np.bincount(flat // n, minlength=m), out=indptr[1:])
    # the entries gathered at those positions (A[mask] reads the whole array again: 2x at 1200 x 1200)
    return sp.csr_matrix((A.ravel()[flat], (flat % n).astype(index), indptr), shape=(m, n))


class DenseCSR:
    """:func:`dense_csr` of arrays that keep one nonzero pattern, call after call (the A of a
    body's time steps): the matrices share the index arrays of the first of that pattern (see
    :func:`with_data`), so SciPy's constructor, half of :func:`dense_csr`'s time on a few contacts'
    A, runs once per pattern. The same matrices as :func:`dense_csr`."""

    def __init__(self) -> None:
        self._positions: np.ndarray | None = None  # the template's nonzeros, row-major flat
        self._template: sp.csr_matrix | None = None

    def __call__(self, A: np.ndarray) -> sp.csr_matrix:
        flat = np.flatnonzero(A != 0)
        template = self._template
        if template is not None and template.shape == A.shape and np.array_equal(flat, self._positions):
            return with_data(template, A.ravel()[flat])
        out = dense_csr(A)
        self._positions, self._template = flat, pattern_of(out.copy())
        return out


def pattern_of(matrix: sp.csr_matrix) -> sp.csr_matrix:
    """``matrix`` made a template for :func:`with_data`: canonical, its index arrays read-only
    (shared by every matrix made from it, so an in-place change of a pattern, e.g.
    ``eliminate_zeros``, raises instead of changing them all)."""
    matrix.sum_duplicates()
    matrix.indices.flags.writeable = False
    matrix.indptr.flags.writeable = False
    return matrix


def flat_keys(matrix: sp.csr_matrix) -> np.ndarray:
    """Each stored entry's flat position ``row * columns + column`` (int64, in storage order:
    sorted and unique for a canonical CSR matrix)."""
    rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), np.diff(matrix.indptr))
    return rows * matrix.shape[1] + matrix.indices


def keyed_pattern(keys: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, indices), int64, of the canonical CSR pattern of ``shape`` whose entries are at
    the sorted, unique flat positions ``keys`` (see :func:`flat_keys`)."""
    m, n = shape
    indptr = np.searchsorted(keys, np.arange(m + 1, dtype=np.int64) * n)
    return indptr, keys - (keys // n) * n


def with_data(template: sp.csr_matrix, data: np.ndarray) -> sp.csr_matrix:
    """A CSR matrix of ``template``'s shape and pattern (see :func:`pattern_of`) with the entries
    ``data`` (float64, one per stored entry, in ``template``'s order): a shallow copy of
    ``template`` given ``data``, sharing its read-only index arrays. SciPy's constructor checks a
    pattern again each time (~12 us); a time step makes three matrices of one pattern after
    another."""
    out = copy.copy(template)
    out.data = data
    return out


def _direct(A, x, length: int) -> bool:
    """Whether ``A`` is a float64 CSR matrix and ``x`` a float64 vector of ``length``."""
    return (
        _csr_matvec is not None
        and type(A) is sp.csr_matrix
        and type(x) is np.ndarray
        and x.dtype == np.float64
        and A.dtype == np.float64
        and x.ndim == 1
        and x.shape[0] == length
    )


def csr_times(A, x) -> np.ndarray:
    """``A @ x``: ``A`` a sparse matrix (m, n), ``x`` (n,); float64 CSR and a float64 vector run
    SciPy's ``csr_matvec`` directly (the same sums in the same order), all else ``A @ x``."""
    if not _direct(A, x, A.shape[1]):
        return A @ x
    y = np.zeros(A.shape[0])
    _csr_matvec(A.shape[0], A.shape[1], A.indptr, A.indices, A.data, np.ascontiguousarray(x), y)
    return y


def csr_transpose_times(A, x) -> np.ndarray:
    """``A.T @ x``: ``A`` a sparse matrix (m, n), ``x`` (m,); for float64 CSR and a float64 vector,
    SciPy's ``csc_matvec`` on A's arrays (A^T in CSC, as ``A.T`` makes it; the same sums in the
    same order) without making the transpose, all else ``A.T @ x``."""
    if not _direct(A, x, A.shape[0]):
        return A.T @ x
    y = np.zeros(A.shape[1])
    _csc_matvec(A.shape[1], A.shape[0], A.indptr, A.indices, A.data, np.ascontiguousarray(x), y)
    return y
