"""Readers of siconos numerics frictional contact text files (bench/FORMATS.md 2.1-2.3).

``frictionContact_newFromFile``: d, nc, NumericsMatrix W (m x m, m = d nc), q (m), mu (nc).
``globalFrictionContact_newFromFile``: d, nc, NumericsMatrix M (n x n), NumericsMatrix H (n x m),
q (n), b (m), mu (nc); the problem M v = q + H r, u = H^T v + b is FCLIB's global one with f = q,
w = b. NumericsMatrix storages: 0 dense (column-major values), 1 sparse block (block-CSR, blocks
column-major), 2 CSparse dump (line-oriented triplet, CSC or CSR listing). Indices are 0-based.
"""

from __future__ import annotations

from pathlib import Path

from contactmodel.errors import DeclarationError
from contactmodel.io.fclib import FrictionProblem, UnsupportedProblemError
from contactmodel.io.numerics import TokenStream, read_numerics_matrix


def _header(s: TokenStream) -> tuple[int, int]:
    d, nc = s.int(), s.int()
    if d not in (2, 3):
        raise UnsupportedProblemError(f"{s.path}: dimension {d} is not supported (2 or 3)")
    if nc < 0:
        raise s.error(f"negative number of contacts {nc}")
    return d, nc


def read_siconos_fc(path: str | Path) -> FrictionProblem:
    """A siconos FrictionContact (local, W q mu) text file as a local :class:`FrictionProblem`."""
    path = Path(path)
    s = TokenStream.of_file(path)
    d, nc = _header(s)
    W = read_numerics_matrix(s)
    m = d * nc
    if W.shape != (m, m):
        raise s.error(f"W is {W.shape[0]} x {W.shape[1]}, expected {m} x {m} (d = {d}, nc = {nc})")
    q = s.floats(m)
    mu = s.floats(nc)
    return FrictionProblem("local", d, mu, W=W, q=q, title=path.stem, source=str(path))


def read_siconos_gfc(path: str | Path) -> FrictionProblem:
    """A siconos GlobalFrictionContact (M H q b mu) text file as a global :class:`FrictionProblem`
    with f = q (n,) and w = b (m,)."""
    path = Path(path)
    s = TokenStream.of_file(path)
    d, nc = _header(s)
    M = read_numerics_matrix(s)
    H = read_numerics_matrix(s)
    n, m = M.shape[0], d * nc
    if M.shape != (n, n) or H.shape != (n, m):
        raise s.error(f"M {M.shape} and H {H.shape} do not fit n = {n}, m = {m} (d = {d}, nc = {nc})")
    f = s.floats(n)
    w = s.floats(m)
    mu = s.floats(nc)
    return FrictionProblem("global", d, mu, M=M, H=H, f=f, w=w, title=path.stem, source=str(path))


def read_siconos(path: str | Path, kind: str | None = None) -> FrictionProblem:
    """Either kind (``"local"`` or ``"global"``); by default told apart by the file name as in siconos'
    test data (``GFC*`` files are global), since the token stream alone can be ambiguous."""
    if kind is None:
        kind = "global" if Path(path).name.upper().startswith("GFC") else "local"
    if kind not in ("local", "global"):
        raise DeclarationError(f"kind must be 'local' or 'global' (got {kind!r})")
    return read_siconos_gfc(path) if kind == "global" else read_siconos_fc(path)
