"""Reader of siconos numerics LCP text files (``linearComplementarity_newFromFile``).

A file is a stream of whitespace-separated tokens: the size n, a NumericsMatrix M (n x n), then q
(n values); anything after q is ignored. NumericsMatrix storages read here (bench/FORMATS.md 2.1):
0 = dense, values in column-major order; 1 = sparse block (block-CSR with cumulative block sizes,
each stored block column-major, preceded by its block number). Storage 2 (CSparse dump) is not
used by any LCP file and is rejected.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np


class _Tokens:
    def __init__(self, text: str, path: Path) -> None:
        self._it: Iterator[str] = iter(text.split())
        self._path = path

    def next(self) -> str:
        try:
            return next(self._it)
        except StopIteration:
            raise ValueError(f"{self._path}: file ends before the LCP data is complete") from None

    def int(self) -> int:
        tok = self.next()
        try:
            return int(tok)
        except ValueError:
            raise ValueError(f"{self._path}: expected an integer, found {tok!r}") from None

    def floats(self, k: int) -> np.ndarray:
        return np.array([float(self.next()) for _ in range(k)], dtype=float)


def _dense(tok: _Tokens, rows: int, cols: int) -> np.ndarray:
    tok.int()
    tok.int()
    return tok.floats(rows * cols).reshape((rows, cols), order="F")


def _sparse_block(tok: _Tokens, rows: int, cols: int, path: Path) -> np.ndarray:
    M = np.zeros((rows, cols))
    nbblocks = tok.int()
    if nbblocks == 0:
        return M
    nbr, nbc = tok.int(), tok.int()
    row_ends = np.array([tok.int() for _ in range(nbr)])
    col_ends = np.array([tok.int() for _ in range(nbc)])
    if row_ends[-1] != rows or col_ends[-1] != cols:
        raise ValueError(f"{path}: block sizes {row_ends[-1]} x {col_ends[-1]} != {rows} x {cols}")
    row_starts = np.concatenate([[0], row_ends[:-1]])
    col_starts = np.concatenate([[0], col_ends[:-1]])
    filled1, filled2 = tok.int(), tok.int()
    index1 = [tok.int() for _ in range(filled1)]
    index2 = [tok.int() for _ in range(filled2)]
    for r in range(filled1 - 1):
        for k in range(index1[r], index1[r + 1]):
            tok.int()
            c = index2[k]
            br = row_ends[r] - row_starts[r]
            bc = col_ends[c] - col_starts[c]
            block = tok.floats(br * bc).reshape((br, bc), order="F")
            M[row_starts[r] : row_ends[r], col_starts[c] : col_ends[c]] = block
    return M


def read_lcp(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """Read ``(M, q)`` of the LCP w = M z + q, 0 <= w _|_ z >= 0: M dense (n, n), q (n,)."""
    path = Path(path)
    tok = _Tokens(path.read_text(encoding="latin-1"), path)
    n = tok.int()
    storage, rows, cols = tok.int(), tok.int(), tok.int()
    if (rows, cols) != (n, n):
        raise ValueError(f"{path}: matrix is {rows} x {cols}, expected {n} x {n}")
    if storage == 0:
        M = _dense(tok, rows, cols)
    elif storage == 1:
        M = _sparse_block(tok, rows, cols, path)
    else:
        raise ValueError(f"{path}: NumericsMatrix storage {storage} is not supported (0 or 1)")
    q = tok.floats(cols)
    return M, q
