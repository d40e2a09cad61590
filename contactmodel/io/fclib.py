"""FCLIB frictional contact problems (HDF5, bench/FORMATS.md 1) and the fc3d error measure.

A local problem is (W, q, mu): find u, r in R^m, m = d * nc, with u = W r + q,
u_hat_a = u_a + [mu_a ||u_T,a||, 0, 0] and K* ∋ u_hat ⊥ r ∈ K = prod_a {||r_T,a|| <= mu_a r_N,a}.
A global problem is (M, H, f, w, mu[, G, b]): M v = H r + G lambda + f, G^T v + b = 0,
u = H^T v + w, same cone condition. Per contact a the rows are d*a .. d*a+d-1, normal first, as in
our reduced model (n, t, o): an FCLIB local problem is A = W, b = q, all contacts rolling.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from contactmodel.errors import ContactModelError, DataFileError, DeclarationError

#: relative asymmetry max|W - W^T| / max|W| above which a W is reported as not symmetric
SYMMETRY_TOL = 1e-9


class UnsupportedProblemError(DeclarationError):
    """The file is valid but holds a problem kind this package does not handle (rolling friction,
    spacedim 2 in the model, equality-constrained variants, singular M, ...)."""


@dataclass
class FrictionProblem:
    """A frictional contact problem as read from a file.

    ``kind`` is ``"local"`` (``W`` (m, m) sparse, ``q`` (m,)) or ``"global"`` (``M`` (n, n),
    ``H`` (n, m), ``f`` (n,), ``w`` (m,), optional ``G`` (n, p) and ``b`` (p,)); ``mu`` (nc,);
    m = spacedim * nc. Matrices are scipy CSR.
    """

    kind: str
    spacedim: int
    mu: np.ndarray
    W: sp.csr_matrix | None = None
    q: np.ndarray | None = None
    M: sp.csr_matrix | None = None
    H: sp.csr_matrix | None = None
    f: np.ndarray | None = None
    w: np.ndarray | None = None
    G: sp.csr_matrix | None = None
    b: np.ndarray | None = None
    title: str = ""
    description: str = ""
    source: str = ""

    @property
    def nc(self) -> int:
        return int(self.mu.shape[0])

    @property
    def m(self) -> int:
        return self.spacedim * self.nc

    @property
    def ndof(self) -> int | None:
        return None if self.M is None else int(self.M.shape[0])

    def to_local(self, max_dense: int = 50_000_000) -> FrictionProblem:
        """The local problem of a global one by eliminating v: W = H^T M^-1 H, q = H^T M^-1 f + w.

        A diagonal M is inverted entrywise (W stays sparse); a general M is factorized (sparse LU)
        and solved against H as a dense (n, m) block, refused when n * m > ``max_dense``.
        Raises :class:`UnsupportedProblemError` with G present or M singular.
        """
        if self.kind == "local":
            return self
        if self.G is not None and self.G.shape[1] > 0:
            raise UnsupportedProblemError(
                f"{self.source}: global problem with equality constraints G (p = {self.G.shape[1]}): "
                "elimination of v is not supported"
            )
        M, H = self.M.tocsr(), self.H.tocsr()
        n, m = H.shape
        offdiag = M - sp.diags(M.diagonal())
        offdiag.eliminate_zeros()
        if offdiag.nnz == 0:
            d = M.diagonal()
            if np.any(d == 0) or not np.all(np.isfinite(d)):
                raise UnsupportedProblemError(f"{self.source}: diagonal M has zero entries: M is singular")
            Minv = sp.diags(1.0 / d)
            W = (H.T @ Minv @ H).tocsr()
            qloc = H.T @ (self.f / d) + self.w
        else:
            if n * m > max_dense:
                raise UnsupportedProblemError(
                    f"{self.source}: M^-1 H would be a dense {n} x {m} block (> {max_dense} entries)"
                )
            try:
                lu = spla.splu(M.tocsc())
            except RuntimeError as exc:
                raise UnsupportedProblemError(f"{self.source}: M is singular ({exc})") from None
            X = lu.solve(np.asarray(H.toarray()))
            y = lu.solve(np.asarray(self.f, dtype=float))
            if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
                raise UnsupportedProblemError(f"{self.source}: M is numerically singular")
            W = sp.csr_matrix(H.T @ X)
            qloc = H.T @ y + self.w
        W.eliminate_zeros()
        return replace(
            self,
            kind="local",
            W=W,
            q=np.asarray(qloc, dtype=float).reshape(-1),
            M=None,
            H=None,
            f=None,
            w=None,
            G=None,
            b=None,
        )

    def asymmetry(self) -> float:
        """max|W - W^T| / max|W| of the local problem (0 for W = 0)."""
        W = self.to_local().W
        scale = abs(W).max() if W.nnz else 0.0
        return float(abs(W - W.T).max() / scale) if scale > 0 else 0.0


def _string(group, name: str) -> str:
    if name not in group:
        return ""
    raw = group[name][()]
    if isinstance(raw, np.ndarray):
        raw = raw.reshape(-1)[0] if raw.size else b""
    if isinstance(raw, bytes):
        return raw.decode("latin-1").rstrip("\x00")
    return str(raw)


def _scalar(group, name: str, path: Path) -> int:
    if name not in group:
        raise DeclarationError(f"{path}: dataset {group.name}/{name} is missing")
    return int(np.asarray(group[name][()]).reshape(-1)[0])


def _spacedim(group, path: Path) -> int:
    d = _scalar(group, "spacedim", path)
    if d not in (2, 3):
        raise UnsupportedProblemError(f"{path}: spacedim {d} is not supported (2 or 3)")
    return d


def _vector(group, name: str, length: int | None, path: Path) -> np.ndarray:
    if name not in group:
        raise DeclarationError(f"{path}: dataset {group.name}/{name} is missing")
    v = np.asarray(group[name][()], dtype=float).reshape(-1)
    if length is not None and v.shape[0] != length:
        raise DeclarationError(f"{path}: {group.name}/{name} has {v.shape[0]} entries, expected {length}")
    return v


def _array(group, name: str, dtype, path: Path | str) -> np.ndarray:
    if name not in group:
        raise DeclarationError(
            f"{path}: sparse matrix {group.name} has no dataset '{name}' "
            "(an FCLIB matrix has m, n, nz, p, i, x)"
        )
    return np.asarray(group[name][()], dtype=dtype).reshape(-1)


def read_sparse(group, path: Path | str = "") -> sp.csr_matrix:
    """One FCLIB sparse matrix group (m, n, nz, nzmax, p, i, x) as CSR.

    nz >= 0: triplet (row i[k], column p[k], value x[k], k < nz); nz = -1: CSC (p column pointers);
    nz = -2: CSR (p row pointers, i column indices, possibly unsorted).
    """
    m, n, nz = _scalar(group, "m", path), _scalar(group, "n", path), _scalar(group, "nz", path)
    p, i, x = (
        _array(group, name, dtype, path) for name, dtype in (("p", np.int64), ("i", np.int64), ("x", float))
    )
    where = f"{path}: {group.name}"
    if nz >= 0:
        p, i, x = p[:nz], i[:nz], x[:nz]
        if min(p.size, i.size, x.size) < nz:
            raise DeclarationError(f"{where}: triplet arrays shorter than nz = {nz}")
        if nz and (i.min() < 0 or i.max() >= m or p.min() < 0 or p.max() >= n):
            raise DeclarationError(f"{where}: triplet index out of range for a {m} x {n} matrix")
        return sp.coo_matrix((x, (i, p)), shape=(m, n)).tocsr()
    if nz in (-1, -2):
        outer, inner = (n, m) if nz == -1 else (m, n)
        if p.size != outer + 1:
            raise DeclarationError(f"{where}: pointer array has {p.size} entries, expected {outer + 1}")
        nnz = int(p[-1])
        if np.any(np.diff(p) < 0) or p[0] != 0 or nnz > min(i.size, x.size):
            raise DeclarationError(f"{where}: invalid compressed pointers")
        i, x = i[:nnz], x[:nnz]
        if nnz and (i.min() < 0 or i.max() >= inner):
            raise DeclarationError(f"{where}: index out of range for a {m} x {n} matrix")
        cls = sp.csc_matrix if nz == -1 else sp.csr_matrix
        A = cls((x, i, p), shape=(m, n)).tocsr()
        A.sum_duplicates()
        A.sort_indices()
        return A
    raise DeclarationError(f"{where}: nz = {nz} is not a known storage (>= 0 triplet, -1 CSC, -2 CSR)")


def read_fclib(path: str | Path) -> FrictionProblem:
    """Read an FCLIB HDF5 file: ``/fclib_local`` or ``/fclib_global`` (needs h5py).

    Raises :class:`UnsupportedProblemError` for ``/fclib_global_rolling`` and for local problems
    with the mixed (V, R, s) variant, :class:`DeclarationError` for malformed content.
    """
    try:
        import h5py
    except ImportError:
        raise DeclarationError("reading FCLIB files needs h5py: pip install 'contactmodel[fclib]'") from None
    path = Path(path)
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise DataFileError(f"{path} {what}: give the path of an FCLIB HDF5 file (.hdf5)")
    try:
        return _read_fclib(h5py, path)
    except ContactModelError:
        raise
    except (OSError, KeyError, ValueError, TypeError, IndexError, AttributeError) as exc:
        # h5py's own errors: not an HDF5 file (text, random, empty), truncated, a dataset of the
        # wrong kind (a group where an array is expected)
        raise DataFileError(
            f"{path} cannot be read as an FCLIB problem ({type(exc).__name__}: {exc}); the file is not "
            "HDF5, is truncated, or does not follow the FCLIB layout (/fclib_local or /fclib_global)"
        ) from None


def _read_fclib(h5py, path: Path) -> FrictionProblem:
    with h5py.File(path, "r") as h5:
        if "fclib_global_rolling" in h5:
            d = _scalar(h5["fclib_global_rolling"], "spacedim", path)
            raise UnsupportedProblemError(
                f"{path}: rolling-friction global problem (/fclib_global_rolling, spacedim {d}, "
                "with mu_r) is not supported: only Coulomb friction problems are"
            )
        if "fclib_local" in h5:
            g = h5["fclib_local"]
            if "V" in g or "R" in g:
                raise UnsupportedProblemError(
                    f"{path}: local problem with equality constraints (V, R, s) is not supported"
                )
            d = _spacedim(g, path)
            W = read_sparse(g["W"], path)
            mu = _vector(g["vectors"], "mu", None, path)
            m = d * mu.size
            if W.shape != (m, m):
                raise DeclarationError(
                    f"{path}: W is {W.shape}, expected {m} x {m} (spacedim {d}, nc {mu.size})"
                )
            q = _vector(g["vectors"], "q", m, path)
            fp = FrictionProblem("local", d, mu, W=W, q=q)
        elif "fclib_global" in h5:
            g = h5["fclib_global"]
            d = _spacedim(g, path)
            M, H = read_sparse(g["M"], path), read_sparse(g["H"], path)
            mu = _vector(g["vectors"], "mu", None, path)
            n, m = M.shape[0], d * mu.size
            if M.shape != (n, n) or H.shape != (n, m):
                raise DeclarationError(f"{path}: M {M.shape} and H {H.shape} do not fit n = {n}, m = {m}")
            f = _vector(g["vectors"], "f", n, path)
            w = _vector(g["vectors"], "w", m, path)
            G = b = None
            if "G" in g:
                G = read_sparse(g["G"], path)
                if G.shape[0] != n:
                    raise DeclarationError(f"{path}: G has {G.shape[0]} rows, expected n = {n}")
                b = _vector(g["vectors"], "b", G.shape[1], path)
            fp = FrictionProblem("global", d, mu, M=M, H=H, f=f, w=w, G=G, b=b)
        else:
            raise DeclarationError(
                f"{path}: no /fclib_local, /fclib_global or /fclib_global_rolling group (found {list(h5)})"
            )
        if "info" in g:
            fp.title = _string(g["info"], "title")
            fp.description = _string(g["info"], "description")
        fp.source = str(path)
    return fp


def to_problem(fp: FrictionProblem, friction=None, symmetrize: bool = False, names=None):
    """Our reduced contact model (:class:`contactmodel.Problem`) of a 3D frictional problem.

    A = W exactly as read (not necessarily symmetric: the W of Bullet/siconos problems is not),
    b = q, every contact rolling, ``CoulombCone(mu_a)`` per contact unless ``friction`` (one law,
    a list or a mapping, as :func:`formulate_from_matrices`). A global problem is first reduced by
    :meth:`FrictionProblem.to_local`. ``symmetrize=True`` uses (W + W^T) / 2 instead: a different
    problem, whose solutions are in general not those of the file's (kept for comparisons).
    """
    from contactmodel.formulation import formulate_from_matrices

    if fp.spacedim != 3:
        raise UnsupportedProblemError(
            f"{fp.source}: spacedim {fp.spacedim}: only 3D problems map to the model"
        )
    loc = fp.to_local()
    W = ((loc.W + loc.W.T) * 0.5).tocsr() if symmetrize else loc.W
    return formulate_from_matrices(W, loc.q, loc.mu, friction=friction, names=names, check_symmetric=False)


def project_cones(x: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Euclidean projection of x (3 nc,) onto prod_a {||r_T|| <= mu_a r_N} (normal first)."""
    x = np.asarray(x, dtype=float).reshape(-1, 3)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    xn, xt = x[:, 0], x[:, 1:]
    nt = np.linalg.norm(xt, axis=1)
    p = x.copy()
    polar = mu * nt <= -xn
    p[polar] = 0.0
    mid = ~polar & (nt > mu * xn)
    pn = (xn[mid] + mu[mid] * nt[mid]) / (1.0 + mu[mid] ** 2)
    p[mid, 0] = pn
    p[mid, 1:] = (mu[mid] * pn / nt[mid])[:, None] * xt[mid]
    return p.reshape(-1)


def fc3d_residual(W, q, mu, r, normalization: str = "paper") -> float:
    """Relative natural-map residual of a 3D local problem at reactions r (3 nc,).

    F(r) = r - P_K(r - u_hat), u = W r + q, u_hat_a = u_a + [mu_a ||u_T,a||, 0, 0] (rho = 1);
    returns ||F||_2 / ||q||_2 (``"paper"``: Acary-Brémond-Huber 2018, PUBLISHED_RESULTS.md),
    ||F||_2 / max(||q||, ||r||, ||u||) (``"siconos"``: fc3d_compute_error) or ||F||_2 (``"none"``);
    the norm is not divided when the denominator is <= machine epsilon.
    """
    q = np.asarray(q, dtype=float).reshape(-1)
    r = np.asarray(r, dtype=float).reshape(-1)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    if q.shape != (3 * mu.size,) or r.shape != q.shape:
        raise DeclarationError(
            f"fc3d_residual: q {q.shape} and r {r.shape} must have 3 * nc = {3 * mu.size} entries"
        )
    u = W @ r + q
    uh = u.reshape(-1, 3).copy()
    uh[:, 0] += mu * np.linalg.norm(uh[:, 1:], axis=1)
    err = float(np.linalg.norm(r - project_cones(r - uh.reshape(-1), mu)))
    if normalization == "paper":
        scale = float(np.linalg.norm(q))
    elif normalization == "siconos":
        scale = max(float(np.linalg.norm(q)), float(np.linalg.norm(r)), float(np.linalg.norm(u)))
    elif normalization == "none":
        scale = 1.0
    else:
        raise DeclarationError(f"normalization must be 'paper', 'siconos' or 'none' (got {normalization!r})")
    return err / scale if scale > np.finfo(float).eps else err


def reactions(problem, x: np.ndarray) -> np.ndarray:
    """The reactions r (3 nc,) of a :func:`to_problem` model at the MCP point x (solution.x)."""
    problem.compile().load(np.asarray(x, dtype=float))
    return problem.force_vector()
