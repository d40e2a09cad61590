"""Reader of siconos numerics LCP text files (``linearComplementarity_newFromFile``).

A file is a stream of whitespace-separated tokens: the size n, a NumericsMatrix M (n x n), then q
(n values); anything after q is ignored. NumericsMatrix storages read here (bench/FORMATS.md 2.1):
0 = dense, values in column-major order; 1 = sparse block (block-CSR with cumulative block sizes,
each stored block column-major, preceded by its block number). Storage 2 (CSparse dump) is not
used by any LCP file and is rejected. Malformed files raise
:class:`~contactmodel.errors.DeclarationError` naming the file and line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from contactmodel.io.numerics import TokenStream, read_numerics_matrix


def read_lcp(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Read ``(M, q)`` of the LCP w = M z + q, 0 <= w _|_ z >= 0: M dense (n, n), q (n,)."""
    path = Path(path)
    s = TokenStream.of_file(path)
    n = s.int()
    M = read_numerics_matrix(s, storages=(0, 1))
    if M.shape != (n, n):
        raise s.error(f"matrix is {M.shape[0]} x {M.shape[1]}, expected {n} x {n} (the size n given first)")
    return M.toarray(), s.floats(n)
