"""``A @ x`` of a small CSR matrix and a vector at the cost of SciPy's kernel alone.

SciPy's operator ``@`` spends ~4 us a call checking and dispatching before its ``csr_matvec``
kernel runs (~1 us on the matrices of a few contacts); every answer's interpretation makes five
such products. :func:`csr_times` calls that kernel directly, as ``@`` would, so the numbers are
the same bit for bit; anything else (another format or dtype, a matrix on the right) goes
through ``@``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

try:  # SciPy's own compiled kernel, the one its ``@`` calls
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
except ImportError:  # pragma: no cover - a SciPy that moved it: the operator instead
    _csr_matvec = None


def csr_times(A, x) -> np.ndarray:
    """``A @ x``: ``A`` a sparse matrix (m, n), ``x`` (n,); float64 CSR and a float64 vector run
    SciPy's ``csr_matvec`` directly (the same sums in the same order), all else ``A @ x``."""
    if (
        _csr_matvec is None
        or type(A) is not sp.csr_matrix
        or type(x) is not np.ndarray
        or x.dtype != np.float64
        or A.dtype != np.float64
        or x.ndim != 1
        or x.shape[0] != A.shape[1]
    ):
        return A @ x
    y = np.zeros(A.shape[0])
    _csr_matvec(A.shape[0], A.shape[1], A.indptr, A.indices, A.data, np.ascontiguousarray(x), y)
    return y
