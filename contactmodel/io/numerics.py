"""siconos numerics text: a token stream and the NumericsMatrix reader shared by the LCP and
frictional-contact readers (bench/FORMATS.md 2.1).

A NumericsMatrix is ``storage rows cols`` then its data: storage 0 dense (values column-major),
1 sparse block (block-CSR with cumulative block sizes, each block column-major after its block
number), 2 CSparse dump (line-oriented triplet, CSC or CSR listing). Indices are 0-based. Every
malformed input raises :class:`~contactmodel.errors.DeclarationError` naming the file and line.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from contactmodel.errors import DataFileError, DeclarationError

STORAGES = {0: "dense", 1: "sparse block", 2: "sparse"}

_TOKEN = re.compile(r"\s*(\S+)")
_SIZE = re.compile(r"(\S+?)-by-(\S+?),")
_NNZ = re.compile(r"nnz:\s*([^\s,]+)")
_SPAN = re.compile(r"(\S+)\s*:\s*locations\s+(\S+)\s+to\s+(\S+)")


class TokenStream:
    """Whitespace-separated tokens of a text, with line access for the CSparse dump."""

    def __init__(self, text: str, path: Path) -> None:
        self.text = text
        self.pos = 0
        self.path = path

    @classmethod
    def of_file(cls, path: str | Path) -> TokenStream:
        """The tokens of the text file ``path``; :class:`DataFileError` when it cannot be read."""
        path = Path(path)
        if not path.is_file():
            what = "is a folder" if path.is_dir() else "does not exist"
            raise DataFileError(f"{path} {what}: give the path of a siconos numerics text file")
        try:
            return cls(path.read_text(encoding="latin-1"), path)
        except OSError as exc:
            raise DataFileError(
                f"{path} cannot be read ({exc.strerror or exc}); check its permissions"
            ) from None

    def error(self, what: str) -> DeclarationError:
        line = self.text.count("\n", 0, self.pos) + 1
        return DeclarationError(f"{self.path}: line {line}: {what}")

    def token(self) -> str:
        match = _TOKEN.match(self.text, self.pos)
        if match is None:
            raise self.error("file ends before the data is complete")
        self.pos = match.end()
        return match.group(1)

    def int(self) -> int:
        tok = self.token()
        try:
            return int(tok)
        except ValueError:
            raise self.error(f"expected an integer, found {tok!r}") from None

    def floats(self, k: int) -> np.ndarray:
        if k > (len(self.text) - self.pos) // 2 + 1:  # every number takes a character and a space
            raise self.error(
                f"{k} numbers expected, the file ends before (it is truncated or not this format)"
            )
        out = np.empty(k)
        for j in range(k):
            tok = self.token()
            try:
                out[j] = float(tok)
            except ValueError:
                raise self.error(f"expected a number, found {tok!r}") from None
        return out

    def line(self) -> str:
        """The rest of the current line (without its newline); moves to the next line."""
        if self.pos >= len(self.text):
            raise self.error("file ends inside a sparse matrix listing")
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        out = self.text[self.pos : end]
        self.pos = end + 1
        return out


def _dense(s: TokenStream, rows: int, cols: int) -> sp.csr_matrix:
    s.int()
    s.int()
    return sp.csr_matrix(s.floats(rows * cols).reshape((rows, cols), order="F"))


def _sparse_block(s: TokenStream, rows: int, cols: int) -> sp.csr_matrix:
    nbblocks = s.int()
    if nbblocks == 0:
        return sp.csr_matrix((rows, cols))
    nbr, nbc = s.int(), s.int()
    row_ends = np.array([s.int() for _ in range(nbr)], dtype=np.int64)
    col_ends = np.array([s.int() for _ in range(nbc)], dtype=np.int64)
    if row_ends[-1] != rows or col_ends[-1] != cols:
        raise s.error(f"block sizes end at {row_ends[-1]} x {col_ends[-1]}, matrix is {rows} x {cols}")
    row_starts = np.concatenate([[0], row_ends[:-1]])
    col_starts = np.concatenate([[0], col_ends[:-1]])
    filled1, filled2 = s.int(), s.int()
    index1 = [s.int() for _ in range(filled1)]
    index2 = [s.int() for _ in range(filled2)]
    ii, jj, vv = [], [], []
    for r in range(filled1 - 1):
        for k in range(index1[r], index1[r + 1]):
            s.int()
            c = index2[k]
            br, bc = row_ends[r] - row_starts[r], col_ends[c] - col_starts[c]
            block = s.floats(br * bc).reshape((br, bc), order="F")
            bi, bj = np.indices((br, bc))
            ii.append((row_starts[r] + bi).ravel())
            jj.append((col_starts[c] + bj).ravel())
            vv.append(block.ravel())
    if not vv:
        return sp.csr_matrix((rows, cols))
    A = sp.coo_matrix((np.concatenate(vv), (np.concatenate(ii), np.concatenate(jj))), shape=(rows, cols))
    return A.tocsr()


def _number(text: str) -> int:
    return int(float(text))


def _csparse(s: TokenStream, rows: int, cols: int) -> sp.csr_matrix:
    s.int()
    s.line()
    s.line()
    header = s.line().strip()
    size = _SIZE.search(header)
    if size is None:
        raise s.error(f"unknown CSparse header {header!r}")
    m, n = _number(size.group(1)), _number(size.group(2))
    ii: list[int] = []
    jj: list[int] = []
    vv: list[float] = []
    if header.startswith("triplet:"):
        nnz = _NNZ.search(header)
        if nnz is None:
            raise s.error(f"no nnz in CSparse header {header!r}")
        for _ in range(_number(nnz.group(1))):
            left, _, right = s.line().partition(":")
            i, j = (int(t) for t in left.split())
            ii.append(i)
            jj.append(j)
            vv.append(float(right))
    else:
        by_rows = header.startswith("csr:")
        for _ in range(n):
            head = _SPAN.search(s.line())
            if head is None:
                raise s.error("expected a 'col j : locations a to b' line")
            outer, first, last = (_number(g) for g in head.groups())
            for _ in range(last - first + 1):
                left, _, right = s.line().partition(":")
                inner = int(left)
                ii.append(outer if by_rows else inner)
                jj.append(inner if by_rows else outer)
                vv.append(float(right))
    if (m, n) != (rows, cols):
        raise s.error(f"CSparse listing is {m} x {n}, the NumericsMatrix is {rows} x {cols}")
    if ii and (min(ii) < 0 or max(ii) >= rows or min(jj) < 0 or max(jj) >= cols):
        raise s.error(f"CSparse index out of range for a {rows} x {cols} matrix")
    return sp.coo_matrix((vv, (ii, jj)), shape=(rows, cols)).tocsr()


def read_numerics_matrix(s: TokenStream, storages: tuple[int, ...] = (0, 1, 2)) -> sp.csr_matrix:
    """One NumericsMatrix (storage, rows, cols, data) from the stream, as CSR; ``storages`` are
    the storage kinds the caller's file format allows."""
    storage, rows, cols = s.int(), s.int(), s.int()
    if storage not in storages:
        known = ", ".join(f"{k} {STORAGES[k]}" for k in storages)
        what = "unknown" if storage not in STORAGES else "not supported in this kind of file"
        raise s.error(f"NumericsMatrix storage {storage} is {what} ({known})")
    if storage == 0:
        return _dense(s, rows, cols)
    if storage == 1:
        return _sparse_block(s, rows, cols)
    return _csparse(s, rows, cols)
