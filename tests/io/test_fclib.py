"""FCLIB HDF5 reader (bench/FORMATS.md 1), global-to-local elimination, to_problem and fc3d_residual."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.errors import ContactModelError, DeclarationError
from contactmodel.io.fclib import (
    FrictionProblem,
    UnsupportedProblemError,
    fc3d_residual,
    reactions,
    read_fclib,
    to_problem,
)

BENCH = Path(__file__).resolve().parents[1] / "data" / "fclib"

# name: (kind, nc, ndof, nnz of W for local problems), from bench/fclib/README.md
TABLE = {
    "CubeH8.hdf5": ("global", 1, 162, None),
    "LMGC_GFC3D-i00001-1-00000.hdf5": ("global", 1, 48, None),
    "LMGC_GFC3D-i00501-4-00000.hdf5": ("global", 4, 162, None),
    "LMGC_GlobalFrictionContactProblem00046.hdf5": ("global", 9, 162, None),
    "Box_Stacks-i0035-31-0.hdf5": ("global", 31, 450, None),
    "local_problem_test.hdf5": ("local", 48, None, 4896),
    "LMGC_100_PR_PerioBox-i00361-60-03000.hdf5": ("local", 60, None, 9576),
    "Box_Stacks-i0122-82-5.hdf5": ("global", 82, 450, None),
    "Capsules-i97-269.hdf5": ("local", 216, None, 8586),
    "spheres-in-a-box-98-i10000-256-10.hdf5": ("global", 256, 588, None),
    "Capsules-i125-1213.hdf5": ("local", 286, None, 11772),
    "Spheres-i099-356-679.hdf5": ("global", 356, 12000, None),
}
UNSUPPORTED = {"Chute-ndof-768-nc-4-3.hdf5": "rolling"}
ASYMMETRIC = {
    "Capsules-i97-269.hdf5",
    "Capsules-i125-1213.hdf5",
    "LMGC_GlobalFrictionContactProblem00046.hdf5",
}


@pytest.fixture
def h5py():
    return pytest.importorskip("h5py")


def need(name: str) -> Path:
    pytest.importorskip("h5py")
    if not (BENCH / name).is_file():
        pytest.skip(f"benchmark data {BENCH / name} not available")
    return BENCH / name


def test_table_covers_every_file() -> None:
    if not BENCH.is_dir():
        pytest.skip(f"benchmark data {BENCH} not available")
    assert {p.name for p in BENCH.glob("*.hdf5")} == set(TABLE) | set(UNSUPPORTED)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_sizes(name: str) -> None:
    kind, nc, ndof, nnz = TABLE[name]
    fp = read_fclib(need(name))
    assert (fp.kind, fp.spacedim, fp.nc, fp.m) == (kind, 3, nc, 3 * nc)
    assert fp.title and fp.source.endswith(name)
    if kind == "local":
        assert fp.W.shape == (3 * nc, 3 * nc) and fp.W.nnz == nnz and fp.q.shape == (3 * nc,)
    else:
        assert fp.M.shape == (ndof, ndof) and fp.H.shape == (ndof, 3 * nc)
        assert fp.f.shape == (ndof,) and fp.w.shape == (3 * nc,) and fp.G is None
        assert np.all(fp.w == 0)
    assert np.all(fp.mu > 0)
    loc = fp.to_local()
    assert loc.kind == "local" and loc.W.shape == (3 * nc, 3 * nc)
    assert np.all(np.isfinite(loc.W.data)) and np.all(np.isfinite(loc.q))
    assert (loc.asymmetry() > 1e-6) == (name in ASYMMETRIC)
    assert (loc.asymmetry() < 1e-9) == (name not in ASYMMETRIC)


def test_mu_values() -> None:
    assert set(read_fclib(need("LMGC_100_PR_PerioBox-i00361-60-03000.hdf5")).mu) == {0.3, 0.5}
    assert set(read_fclib(need("local_problem_test.hdf5")).mu) == {0.7}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_files_raise(name: str) -> None:
    with pytest.raises(UnsupportedProblemError, match=f"{name}.*{UNSUPPORTED[name]}"):
        read_fclib(need(name))


@pytest.mark.parametrize(
    "name", ["LMGC_GFC3D-i00501-4-00000.hdf5", "Box_Stacks-i0035-31-0.hdf5", "CubeH8.hdf5"]
)
def test_global_to_local_matches_dense(name: str) -> None:
    fp = read_fclib(need(name))
    M, H = fp.M.toarray(), fp.H.toarray()
    W = H.T @ np.linalg.solve(M, H)
    q = H.T @ np.linalg.solve(M, fp.f) + fp.w
    loc = fp.to_local()
    scale = np.abs(W).max()
    assert np.abs(loc.W.toarray() - W).max() <= 1e-9 * scale
    assert np.allclose(loc.q, q, rtol=1e-9, atol=1e-12 * np.abs(q).max())


def test_asymmetric_w_is_used_as_given() -> None:
    fp = read_fclib(need("Capsules-i97-269.hdf5"))
    assert fp.asymmetry() > 1e-3
    A = to_problem(fp).assembly.A_sparse
    assert (A != fp.W).nnz == 0
    sym = to_problem(fp, symmetrize=True).assembly.A_sparse
    assert abs(sym - (fp.W + fp.W.T) * 0.5).max() == 0.0 and (sym != fp.W).nnz > 0


def test_to_problem_on_a_global_file_solves() -> None:
    fp = read_fclib(need("LMGC_GFC3D-i00001-1-00000.hdf5"))
    loc = fp.to_local()
    s = float(np.linalg.norm(loc.q))
    scaled = FrictionProblem("local", 3, loc.mu, W=loc.W, q=loc.q / s)
    problem = to_problem(scaled)
    assert len(problem.contact_names) == 1 and problem.assembly.rolling == problem.contact_names
    sol = cm.solve(problem, solver="newton", accept_tol=1e-8)
    assert sol.ok
    assert fc3d_residual(loc.W, loc.q, loc.mu, reactions(problem, sol.x) * s) < 1e-8


# -- hand-made files ------------------------------------------------------------------------------


def _write_sparse(group, A: np.ndarray, storage: str, pad: int = 0) -> None:
    m, n = A.shape
    if storage == "triplet":
        rows, cols = np.nonzero(A)
        order = np.random.default_rng(0).permutation(rows.size)
        i, p, x, nz = rows[order], cols[order], A[rows[order], cols[order]], rows.size
    elif storage == "csc":
        S = sp.csc_matrix(A)
        i, p, x, nz = S.indices, S.indptr, S.data, -1
    else:
        S = sp.csr_matrix(A)
        i, p, x, nz = S.indices.copy(), S.indptr, S.data.copy(), -2
        for r in range(m):
            lo, hi = p[r], p[r + 1]
            i[lo:hi], x[lo:hi] = i[lo:hi][::-1].copy(), x[lo:hi][::-1].copy()
    nnz = len(x)
    i = np.concatenate([i, np.zeros(pad, dtype=int)])
    x = np.concatenate([x, np.full(pad, 99.0)])
    if storage == "triplet":
        p = np.concatenate([p, np.zeros(pad, dtype=int)])
    for key, value in {"m": m, "n": n, "nz": nz, "nzmax": nnz + pad}.items():
        group.create_dataset(key, data=np.array([value], dtype=np.int32))
    group.create_dataset("p", data=np.asarray(p, dtype=np.int32))
    group.create_dataset("i", data=np.asarray(i, dtype=np.int32))
    group.create_dataset("x", data=np.asarray(x, dtype=float))


def _random_w(nc: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(3 * nc, 3 * nc)) * (rng.random((3 * nc, 3 * nc)) < 0.4)
    return B @ B.T


def _write_local(h5py, path: Path, W: np.ndarray, q, mu, storage: str, title: bytes = b"hand made") -> None:
    with h5py.File(path, "w") as h5:
        g = h5.create_group("fclib_local")
        g.create_dataset("spacedim", data=np.array([3], dtype=np.int32))
        _write_sparse(g.create_group("W"), W, storage, pad=3)
        g.create_dataset("vectors/q", data=np.asarray(q, dtype=float))
        g.create_dataset("vectors/mu", data=np.asarray(mu, dtype=float))
        g.create_dataset("info/title", data=np.bytes_(title))
        g.create_dataset("info/description", data=np.bytes_(b"line 1\nline 2"))


def test_triplet_csc_csr_agree(h5py, tmp_path: Path) -> None:
    W = _random_w(3)
    q, mu = np.arange(9.0) - 4, np.array([0.3, 0.5, 0.7])
    read = {}
    for storage in ("triplet", "csc", "csr"):
        _write_local(h5py, tmp_path / f"{storage}.hdf5", W, q, mu, storage)
        read[storage] = read_fclib(tmp_path / f"{storage}.hdf5")
    for fp in read.values():
        assert fp.kind == "local" and fp.nc == 3
        assert np.array_equal(fp.W.toarray(), W)
        assert np.array_equal(fp.q, q) and np.array_equal(fp.mu, mu)
        assert fp.title == "hand made" and fp.description == "line 1\nline 2"


def _nonsymmetric_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(W, q, mu, r): a non-symmetric W and q built so that r solves the fc3d problem, with one
    sticking, one sliding and one separating contact."""
    rng = np.random.default_rng(11)
    W = _random_w(3, seed=7) + np.eye(9) + 0.3 * rng.normal(size=(9, 9))
    mu = np.array([0.5, 0.4, 0.6])
    t = np.array([0.6, 0.8])
    r = np.concatenate([[2.0, 0.3, -0.4], [1.5, *(-0.4 * 1.5 * t)], [0.0, 0.0, 0.0]])
    # sticking: u = 0 with |r_T| < mu r_n; sliding: u_n = 0, u_T = 2 t opposite to r_T on the cone's
    # boundary; separating: r = 0, u_n > 0
    u = np.concatenate([[0.0, 0.0, 0.0], [0.0, *(2.0 * t)], [0.7, -0.5, 0.2]])
    return W, u - W @ r, mu, r


def test_nonsymmetric_problem_read_as_stored_and_solved(h5py, tmp_path: Path) -> None:
    from contactmodel.solve import relative_residual

    W, q, mu, r = _nonsymmetric_problem()
    assert np.abs(W - W.T).max() > 0.1
    assert fc3d_residual(W, q, mu, r) < 1e-14
    # the symmetrized problem is another problem: r does not solve it
    assert fc3d_residual((W + W.T) / 2, q, mu, r) > 1e-2
    for storage in ("triplet", "csc", "csr"):
        _write_local(h5py, tmp_path / f"{storage}.hdf5", W, q, mu, storage)
        fp = read_fclib(tmp_path / f"{storage}.hdf5")
        assert np.array_equal(fp.W.toarray(), W) and np.array_equal(fp.q, q)
        problem = to_problem(fp)
        assert np.array_equal(problem.assembly.A, W) and np.array_equal(problem.assembly.b, q)
    # the known solution has a zero dispatcher residual in our model of the file's problem
    problem.load_forces(r)
    compiled = problem.compile()
    assert relative_residual(compiled.mcp, compiled.values()) < 1e-12
    sol = cm.solve(problem, solver="newton", accept_tol=1e-8)
    assert sol.status is cm.Status.SOLVED
    assert fc3d_residual(W, q, mu, reactions(problem, sol.x)) < 1e-8


def test_latin1_strings(h5py, tmp_path: Path) -> None:
    _write_local(h5py, tmp_path / "s.hdf5", np.eye(3), [1.0, 0, 0], [0.5], "csr", title=b"Br\xe9mond")
    assert read_fclib(tmp_path / "s.hdf5").title == "Brémond"


def test_hand_made_global_to_local(h5py, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    n, nc = 7, 2
    B = rng.normal(size=(n, n))
    M = B @ B.T + n * np.eye(n)
    H = rng.normal(size=(n, 3 * nc)) * (rng.random((n, 3 * nc)) < 0.6)
    f, w, mu = rng.normal(size=n), rng.normal(size=3 * nc), np.array([0.2, 0.4])
    with h5py.File(tmp_path / "g.hdf5", "w") as h5:
        g = h5.create_group("fclib_global")
        g.create_dataset("spacedim", data=np.array([3], dtype=np.int32))
        _write_sparse(g.create_group("M"), M, "csc")
        _write_sparse(g.create_group("H"), H, "triplet")
        for key, value in {"f": f, "w": w, "mu": mu}.items():
            g.create_dataset(f"vectors/{key}", data=value)
    fp = read_fclib(tmp_path / "g.hdf5")
    assert fp.kind == "global" and fp.ndof == n and fp.nc == nc and fp.title == ""
    loc = fp.to_local()
    assert np.allclose(loc.W.toarray(), H.T @ np.linalg.solve(M, H), rtol=1e-12, atol=1e-12)
    assert np.allclose(loc.q, H.T @ np.linalg.solve(M, f) + w, rtol=1e-12, atol=1e-12)
    with pytest.raises(UnsupportedProblemError, match="dense"):
        fp.to_local(max_dense=10)
    with h5py.File(tmp_path / "g.hdf5", "a") as h5:
        _write_sparse(h5.create_group("fclib_global/G"), np.ones((n, 1)), "csr")
        h5.create_dataset("fclib_global/vectors/b", data=np.array([0.5]))
    fp = read_fclib(tmp_path / "g.hdf5")
    assert fp.G.shape == (n, 1) and np.array_equal(fp.b, [0.5])
    with pytest.raises(UnsupportedProblemError, match="g.hdf5.*equality constraints G"):
        fp.to_local()


def test_unsupported_and_malformed_hand_made(h5py, tmp_path: Path) -> None:
    with h5py.File(tmp_path / "v.hdf5", "w") as h5:
        g = h5.create_group("fclib_local")
        g.create_dataset("spacedim", data=np.array([3], dtype=np.int32))
        _write_sparse(g.create_group("W"), np.eye(3), "csr")
        _write_sparse(g.create_group("V"), np.ones((3, 1)), "csr")
    with pytest.raises(UnsupportedProblemError, match=r"v\.hdf5.*\(V, R, s\)"):
        read_fclib(tmp_path / "v.hdf5")
    with h5py.File(tmp_path / "d5.hdf5", "w") as h5:
        h5.create_group("fclib_local").create_dataset("spacedim", data=np.array([5], dtype=np.int32))
    with pytest.raises(UnsupportedProblemError, match="spacedim 5"):
        read_fclib(tmp_path / "d5.hdf5")
    with h5py.File(tmp_path / "empty.hdf5", "w") as h5:
        h5.create_group("something")
    with pytest.raises(DeclarationError, match="no /fclib_local"):
        read_fclib(tmp_path / "empty.hdf5")
    _write_local(h5py, tmp_path / "bad.hdf5", np.eye(6), np.zeros(6), [0.5], "csr")
    with pytest.raises(DeclarationError, match="expected 3 x 3"):
        read_fclib(tmp_path / "bad.hdf5")
    assert issubclass(UnsupportedProblemError, ContactModelError)


# -- fc3d_residual ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("q", "r"),
    [
        ([-1.0, 0.1, 0.0], [1.0, -0.1, 0.0]),
        ([-1.0, 2.0, 0.0], [1.0, -0.5, 0.0]),
        ([-1.0, 0.0, -4.0], [1.0, 0.0, 0.5]),
        ([1.0, 0.3, 0.0], [0.0, 0.0, 0.0]),
    ],
    ids=["sticking", "sliding_t", "sliding_o", "separating"],
)
def test_fc3d_residual_zero_at_solutions(q, r) -> None:
    W, mu = np.eye(3), np.array([0.5])
    assert fc3d_residual(W, np.array(q), mu, np.array(r)) == pytest.approx(0.0, abs=1e-15)
    assert fc3d_residual(sp.csr_matrix(W), q, mu, r, normalization="siconos") == pytest.approx(0.0, abs=1e-15)


def test_fc3d_residual_positive_on_wrong_points() -> None:
    W, q, mu = np.eye(3), np.array([-1.0, 0.1, 0.0]), np.array([0.5])
    nq = np.linalg.norm(q)
    assert fc3d_residual(W, q, mu, np.zeros(3)) == pytest.approx(np.linalg.norm([0.95, -0.1, 0.0]) / nq)
    assert fc3d_residual(W, q, mu, np.array([1.0, 0.1, 0.0])) > 0.1
    assert fc3d_residual(W, q, mu, np.array([2.0, -0.1, 0.0]), normalization="none") == pytest.approx(1.0)
    with pytest.raises(DeclarationError, match="normalization"):
        fc3d_residual(W, q, mu, np.zeros(3), normalization="max")
    with pytest.raises(DeclarationError, match="3 \\* nc"):
        fc3d_residual(W, q, mu, np.zeros(6))


def test_fc3d_residual_matches_the_model_on_a_hand_made_problem() -> None:
    W = _random_w(4, seed=5) + np.eye(12)
    q = np.random.default_rng(6).normal(size=12)
    mu = np.full(4, 0.6)
    problem = to_problem(FrictionProblem("local", 3, mu, W=sp.csr_matrix(W), q=q))
    sol = cm.solve(problem, solver="newton", accept_tol=1e-8)
    assert sol.ok
    r = reactions(problem, sol.x)
    assert fc3d_residual(W, q, mu, r) < 1e-8
    assert fc3d_residual(W, q, mu, r + 1e-3) > 1e-5
