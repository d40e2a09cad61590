"""Siconos FrictionContact / GlobalFrictionContact .dat readers (bench/FORMATS.md 2.1-2.3)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.errors import DeclarationError
from contactmodel.io.fclib import (
    FrictionProblem,
    UnsupportedProblemError,
    fc3d_residual,
    reactions,
    to_problem,
)
from contactmodel.io.siconos_fc import read_siconos, read_siconos_fc, read_siconos_gfc

BENCH = Path(__file__).resolve().parents[1] / "data" / "fclib"
# The table's larger files (0.4-4 MB each) are not shipped with the tests; CONTACTMODEL_BENCH may name
# a folder holding the whole set (e.g. the Siconos test data), whose files are then read too.
NOT_SHIPPED = {
    "NESpheres_30_1.dat",
    "Confeti-ex13-Fc3D-SBM.dat",
    "Capsules-i103-990.dat",
    "Capsules-i100-1090.dat",
    "Capsules-i100-889.dat",
    "Capsules-i122-1617.dat",
    "RockPile_tob1.dat",
    "KaplasTower-i1061-4.hdf5.dat",
}
FULL = Path(os.environ["CONTACTMODEL_BENCH"]) if os.environ.get("CONTACTMODEL_BENCH") else None

# name: (kind, nc, ndof of global problems, mu), from bench/fclib/README.md
TABLE = {
    "FrictionContact3D_1c.dat": ("local", 1, None, 0.1),
    "FrictionContact3D_RR_1c.dat": ("local", 1, None, 0.6),
    "GFC3D_Example00.dat": ("global", 1, 3, 0.1),
    "GFC3D_OneContact.dat": ("global", 1, 39, 0.5),
    "Rover11035.dat": ("local", 1, None, 0.7),
    "Rover4396.dat": ("local", 2, None, 0.7),
    "FC3D_Example1.dat": ("local", 3, None, 0.1),
    "FC3D_Example1_SBM.dat": ("local", 3, None, 0.1),
    "GFC3D_TwoRods1.dat": ("global", 3, 54, 0.1),
    "Confeti-ex13-4contact-Fc3D-SBM.dat": ("local", 4, None, 0.04),
    "Rover1039.dat": ("local", 4, None, 0.7),
    "Rover1040.dat": ("local", 5, None, 0.7),
    "NESpheres_10_1.dat": ("local", 9, None, 0.8),
    "OneObject-i1028-138.hdf5.dat": ("local", 23, None, 0.3),
    "OneObject-i100000-499.hdf5.dat": ("local", 24, None, 0.3),
    "OneObject-i100000-316.hdf5.dat": ("local", 25, None, 0.3),
    "NESpheres_30_1.dat": ("local", 44, None, 0.8),
    "BoxesStack1-i100000-32.hdf5.dat": ("local", 52, None, 0.7),
    "Confeti-ex03-Fc3D-SBM.dat": ("local", 54, None, 0.4),
    "Confeti-ex13-Fc3D-SBM.dat": ("local", 107, None, 0.04),
    "Capsules-i101-404.dat": ("local", 225, None, 0.7),
    "Capsules-i103-990.dat": ("local", 275, None, 0.7),
    "Capsules-i100-1090.dat": ("local", 276, None, 0.7),
    "Capsules-i100-889.dat": ("local", 276, None, 0.7),
    "Capsules-i122-1617.dat": ("local", 296, None, 0.7),
    "RockPile_tob1.dat": ("local", 463, None, 1.0),
    "KaplasTower-i1061-4.hdf5.dat": ("local", 570, None, 0.3),
}
# README: W of the Bullet/siconos problems is slightly non-symmetric (1e-5 .. 2.5e-3 relative)
ASYMMETRIC = ("Capsules", "OneObject", "RockPile", "Rover")


def need(name: str) -> Path:
    for folder in (BENCH, FULL):
        if folder is not None and (folder / name).is_file():
            return folder / name
    pytest.skip(f"benchmark data {name} not available (not shipped; set CONTACTMODEL_BENCH)")


def test_table_covers_every_file() -> None:
    assert {p.name for p in BENCH.glob("*.dat")} == set(TABLE) - NOT_SHIPPED
    if FULL is not None:
        assert {p.name for p in FULL.glob("*.dat")} == set(TABLE)


@pytest.mark.parametrize("name", sorted(set(TABLE) - (set() if FULL else NOT_SHIPPED)))
def test_sizes(name: str) -> None:
    kind, nc, ndof, mu = TABLE[name]
    fp = read_siconos(need(name))
    assert (fp.kind, fp.spacedim, fp.nc) == (kind, 3, nc)
    assert np.all(fp.mu == mu)
    if kind == "local":
        assert fp.W.shape == (3 * nc, 3 * nc) and fp.q.shape == (3 * nc,)
    else:
        assert fp.M.shape == (ndof, ndof) and fp.H.shape == (ndof, 3 * nc)
        assert fp.f.shape == (ndof,) and fp.w.shape == (3 * nc,)
    loc = fp.to_local()
    assert np.all(np.isfinite(loc.W.data)) and np.all(np.isfinite(loc.q))
    asym = loc.asymmetry()
    if name.startswith(ASYMMETRIC):
        assert 1e-6 < asym < 3e-3
    else:
        assert asym < 1e-9


def test_dense_and_sparse_block_agree() -> None:
    a = read_siconos_fc(need("FC3D_Example1.dat"))
    b = read_siconos_fc(need("FC3D_Example1_SBM.dat"))
    assert np.array_equal(a.W.toarray(), b.W.toarray())
    assert np.array_equal(a.q, b.q) and np.array_equal(a.mu, b.mu)


def test_global_to_local_matches_dense() -> None:
    fp = read_siconos_gfc(need("GFC3D_TwoRods1.dat"))
    M, H = fp.M.toarray(), fp.H.toarray()
    loc = fp.to_local()
    assert np.allclose(loc.W.toarray(), H.T @ np.linalg.solve(M, H), rtol=1e-10, atol=1e-12)
    assert np.allclose(loc.q, H.T @ np.linalg.solve(M, fp.f) + fp.w, rtol=1e-10, atol=1e-12)


def test_small_file_solves_with_fc3d_residual() -> None:
    fp = read_siconos(need("FC3D_Example1.dat"))
    problem = to_problem(fp)
    sol = cm.solve(problem, solver="newton", accept_tol=1e-8)
    assert sol.ok
    assert fc3d_residual(fp.W, fp.q, fp.mu, reactions(problem, sol.x)) < 1e-8


def test_asymmetric_file_solved_as_given() -> None:
    fp = read_siconos(need("Rover4396.dat"))
    assert fp.asymmetry() > 1e-5
    problem = to_problem(fp)
    assert len(problem.contact_names) == 2 and np.array_equal(problem.assembly.A, fp.W.toarray())
    # solved on (W / max|W|, q / ||q||) as the benchmark does (max|W| = 0.1, ||q|| = 8.3 here);
    # the reactions scale back by ||q|| / max|W|
    s_w, s_q = abs(fp.W).max(), np.linalg.norm(fp.q)
    scaled = to_problem(FrictionProblem("local", 3, fp.mu, W=fp.W / s_w, q=fp.q / s_q))
    sol = cm.solve(scaled, solver="newton", accept_tol=1e-8)
    assert sol.status is cm.Status.SOLVED
    assert fc3d_residual(fp.W, fp.q, fp.mu, reactions(scaled, sol.x) * s_q / s_w) < 1e-8


# -- hand-made files ------------------------------------------------------------------------------

W6 = np.array(
    [
        [4.0, 1.0, 0.0, 0.5, 0.0, 0.0],
        [1.0, 3.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 2.0, 0.0, 0.0, -1.0],
        [0.5, 0.0, 0.0, 5.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 0.0, 1.5, 0.0],
        [0.0, 0.0, -1.0, 0.0, 0.0, 2.5],
    ]
)
Q6 = "-1 0.1 0.2 -2 0 0.5\n"
MU2 = "0.3 0.6\n"


def _dense(A: np.ndarray) -> str:
    rows, cols = A.shape
    body = "\n".join(" ".join(f"{v:.17g}" for v in A[:, j]) for j in range(cols))
    return f"0 {rows} {cols}\n{rows}\t{cols}\n{body}\n"


def _csparse(A: np.ndarray, how: str) -> str:
    rows, cols = A.shape
    head = "CSparse Version 3.1.2, Dec 19 2012.  Copyright (c) Timothy A. Davis, 2006-2012\n"
    nnz = int(np.count_nonzero(A))
    if how == "triplet":
        r, c = np.nonzero(A)
        body = "".join(f"    {i} {j} : {A[i, j]:g}\n" for i, j in zip(r, c))
        return f"2 {rows} {cols}\n1\n{head}triplet: {rows}-by-{cols}, nzmax: {nnz} nnz: {nnz}\n{body}"
    S = sp.csc_matrix(A) if how == "csc" else sp.csr_matrix(A)
    word, outer = ("col", cols) if how == "csc" else ("row", rows)
    lines = []
    for k in range(outer):
        lo, hi = S.indptr[k], S.indptr[k + 1]
        lines.append(f"    {word} {k} : locations {lo} to {hi - 1}\n")
        lines += [f"      {S.indices[p]} : {S.data[p]:g}\n" for p in range(lo, hi)]
    prefix = "" if how == "csc" else "csr: "
    origin = 2 if how == "csc" else 3
    return (
        f"2 {rows} {cols}\n{origin}\n{head}{prefix}{rows}-by-{cols}, nzmax: {nnz} nnz: {nnz}, 1-norm: 7\n"
        + "".join(lines)
    )


def _sbm(A: np.ndarray) -> str:
    blocks = [(0, 0), (0, 1), (1, 0), (1, 1)]
    parts = ["1 6 6", "4", "2 2", "3 6", "3 6", "3 4", "0 2 4", "0 1 0 1"]
    for k, (bi, bj) in enumerate(blocks):
        block = A[3 * bi : 3 * bi + 3, 3 * bj : 3 * bj + 3]
        parts.append(f"{k}\n" + " ".join(f"{v:.17g}" for v in block.ravel(order="F")))
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("storage", ["dense", "sbm", "triplet", "csc", "csr"])
def test_storages_agree(tmp_path: Path, storage: str) -> None:
    matrix = {"dense": _dense, "sbm": _sbm}.get(storage, lambda A: _csparse(A, storage))(W6)
    path = tmp_path / f"fc_{storage}.dat"
    path.write_text("3\n2\n" + matrix + Q6 + MU2 + "trailing comment 1 2 3\n")
    fp = read_siconos_fc(path)
    assert fp.kind == "local" and fp.nc == 2
    assert np.array_equal(fp.W.toarray(), W6)
    assert np.array_equal(fp.q, [-1, 0.1, 0.2, -2, 0, 0.5]) and np.array_equal(fp.mu, [0.3, 0.6])


@pytest.mark.parametrize("storage", ["dense", "sbm", "triplet", "csc", "csr"])
def test_nonsymmetric_w_read_as_stored(tmp_path: Path, storage: str) -> None:
    W = W6 + np.triu(np.full((6, 6), 0.25), k=1)  # exact in the CSparse dump's %g
    matrix = {"dense": _dense, "sbm": _sbm}.get(storage, lambda A: _csparse(A, storage))(W)
    path = tmp_path / f"fc_{storage}.dat"
    path.write_text("3\n2\n" + matrix + Q6 + MU2)
    fp = read_siconos_fc(path)
    assert np.array_equal(fp.W.toarray(), W) and fp.asymmetry() > 0.01
    assert np.array_equal(to_problem(fp).assembly.A, W)


def test_hand_made_global(tmp_path: Path) -> None:
    M = np.diag([2.0, 4.0, 8.0]) + 0.5 * (np.eye(3, k=1) + np.eye(3, k=-1))
    H = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    path = tmp_path / "GFC3D_hand.dat"
    path.write_text("3 1\n" + _dense(M) + _csparse(H, "csc") + "1 2 3\n0.1 0 0\n0.4\n")
    fp = read_siconos(path)
    assert fp.kind == "global" and fp.ndof == 3 and np.array_equal(fp.f, [1, 2, 3])
    loc = fp.to_local()
    assert np.allclose(loc.W.toarray(), H.T @ np.linalg.solve(M, H))
    assert np.allclose(loc.q, H.T @ np.linalg.solve(M, [1.0, 2.0, 3.0]) + [0.1, 0, 0])


def test_errors(tmp_path: Path) -> None:
    cases = {
        "short.dat": ("3 2\n" + _dense(W6) + "1 2 3\n", "file ends"),
        "storage.dat": ("3 2\n7 6 6\n", "storage 7"),
        "size.dat": ("3 3\n" + _dense(W6), "expected 9 x 9"),
        "word.dat": ("3 two\n", "expected an integer"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(DeclarationError, match=message):
            read_siconos_fc(tmp_path / name)
    (tmp_path / "d5.dat").write_text("5 1\n")
    with pytest.raises(UnsupportedProblemError, match="d5.dat.*dimension 5"):
        read_siconos_fc(tmp_path / "d5.dat")
