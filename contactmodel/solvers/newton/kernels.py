"""Compiled kernels for the hot loops of :mod:`contactmodel.solvers.newton` (optional).

With numba installed (``pip install -e ".[fast]"``) ``fb_lower``, ``dense_block``, ``csr_matvec``
and ``csr_rmatvec`` (box MCPs),
``cone_point``, ``cone_pattern``, ``cone_values``, ``cone_cut`` and ``cone_scales`` (Coulomb cone blocks,
:mod:`contactmodel.solvers.newton.cones`) are the functions below compiled to machine code, each
one loop instead of a dozen numpy or SciPy calls; without it they are None and newton uses its
numpy code. Both give the same numbers bit for bit (the
same operations in the same order; tested against the numpy code, also without numba by calling
the plain Python functions). On the n = 200 friction-pyramid LCPs of ``benchmarks/peers.py``
(seeds 1-20, best of 5, in one process) they take a fifth off newton's time: 5.4 -> 4.2 ms (roll),
4.5 -> 3.6 ms (slide). The first kernel call of a process starts numba (the cached machine code
loaded from ``__pycache__``): 0.5-1.5 s once per process on a loaded 2-core machine, paid by its
first newton solve, box or cone.
"""

from __future__ import annotations

import math

import numpy as np

try:
    import numba
except ImportError:  # the optional "fast" extra is not installed
    numba = None

AVAILABLE = numba is not None
_C0 = 1.0 - math.sqrt(0.5)  # both FB partials at a = b = 0


def fb_lower_py(x: np.ndarray, lb: np.ndarray, F: np.ndarray, scale: np.ndarray, lam: float):
    """Everything newton needs at ``x`` when every variable has only a lower bound ``lb``:
    ``(phi, da, db, nat, at_bound, res)``, all (n,) but ``res``.

    ``phi = FB(x - lb, scale F)`` (penalized with weight ``lam`` when ``lam < 1``), its partials
    ``da`` and ``db`` (``db`` times ``scale``, the partial with respect to ``F``), the natural
    residual ``nat = x - max(x - F, lb)``, the mask ``at_bound = x - F <= lb`` and
    ``res = max |nat|`` (NaN if any is). The same formulas as newton's ``_phi`` and ``_Box``.
    """
    n = x.shape[0]
    phi = np.empty(n)
    da = np.empty(n)
    db = np.empty(n)
    nat = np.empty(n)
    at_bound = np.empty(n, dtype=np.bool_)
    res = 0.0
    for i in range(n):
        a = x[i] - lb[i]
        b = F[i] * scale[i]
        r = math.hypot(a, b)
        s = a + b
        v = 2.0 * a * b / (s + r) if s > 0.0 else s - r
        if r == 0.0:
            pa = _C0
            pb = _C0
        else:
            pa = 1.0 - a / r
            pb = 1.0 - b / r
        if lam < 1.0:
            ap = a if a > 0.0 else 0.0
            bp = b if b > 0.0 else 0.0
            v = lam * v + (1.0 - lam) * ap * bp
            pa = lam * pa + (1.0 - lam) * bp * (1.0 if a > 0.0 else 0.0)
            pb = lam * pb + (1.0 - lam) * ap * (1.0 if b > 0.0 else 0.0)
        phi[i] = v
        da[i] = pa
        db[i] = pb * scale[i]
        y = x[i] - F[i]
        at_bound[i] = y <= lb[i]
        nat[i] = x[i] - (y if y > lb[i] or y != y else lb[i])  # numpy's maximum keeps a NaN
        m = abs(nat[i])
        if m > res or m != m:  # keeps a NaN, as numpy's max does
            res = m
    return phi, da, db, nat, at_bound, res


def dense_block_py(JT: np.ndarray, keep: np.ndarray, da: np.ndarray, db: np.ndarray) -> np.ndarray:
    """``H[keep, keep]`` of ``H = diag(da) + diag(db) J`` as a Fortran-ordered (m, m) array, from
    ``JT`` = J^T (n, n, C order) and the row indices ``keep`` (m,)."""
    m = keep.shape[0]
    H = np.empty((m, m)).T  # Fortran order, as LAPACK wants
    for j in range(m):
        column = JT[keep[j]]  # column keep[j] of J
        for i in range(m):
            H[i, j] = column[keep[i]] * db[keep[i]]
        H[j, j] += da[keep[j]]
    return H


def cone_point_py(c: np.ndarray, a: np.ndarray, mu: np.ndarray, rho: np.ndarray):
    """The cone blocks' part of a newton/cones.py point, one loop over the k blocks:
    ``(R, Da, Db, res)``. ``c``, ``a`` (k, d): forces and accelerations (normal first, d = 3 or
    4); ``mu``, ``rho`` (k,): friction coefficients and the blocks' scales.

    ``R = c - Proj_{K_mu}(c - rho a_hat)`` (k, d) and its Jacobian element ``(Da, Db)`` (k, d, d),
    as :func:`contactmodel.mcp.cones.natural_map`; ``res`` the largest ``|c - Proj(c - a_hat)|``
    (rho = 1, :func:`contactmodel.mcp.cones.residual`; NaN if any is); ``sep`` (k,) the blocks
    whose row of the Newton matrix is a unit row (``Da = I, Db = 0``: a separating contact). The
    same formulas and operations as the numpy code of :mod:`contactmodel.mcp.cones` (the
    tangential norms as hypot of hypot, in order).
    """
    k, d = c.shape
    R = np.empty((k, d))
    Da = np.empty((k, d, d))
    Db = np.empty((k, d, d))
    P = np.empty((d, d))
    z = np.empty(d)
    g = np.zeros(d)  # row 0 of d a_hat / d a, but for its 1
    u = np.empty(d)
    sep = np.empty(k, dtype=np.bool_)
    res = 0.0
    for b in range(k):
        m = mu[b]
        r_a = math.hypot(a[b, 1], a[b, 2])
        for j in range(3, d):
            r_a = math.hypot(r_a, a[b, j])
        ah0 = a[b, 0] + m * r_a  # De Saxce's a_hat = a + (mu |a_T|, 0, ...)
        for j in range(1, d):
            g[j] = m * (a[b, j] / r_a) if r_a > 0.0 else 0.0
        for unit in range(2):  # the scaled map with its Jacobian, then the residual (rho = 1)
            rb = 1.0 if unit else rho[b]
            z[0] = c[b, 0] - rb * ah0
            for j in range(1, d):
                z[j] = c[b, j] - rb * a[b, j]
            r = math.hypot(z[1], z[2])
            for j in range(3, d):
                r = math.hypot(r, z[j])
            # Proj_{K_mu}(z) into z, its Jacobian into P (see cones.project_jacobian)
            if r <= m * z[0]:  # in the cone
                P[:] = 0.0
                for i in range(d):
                    P[i, i] = 1.0
            elif m * r <= -z[0]:  # in the polar cone
                z[:] = 0.0
                P[:] = 0.0
            else:  # onto the boundary ray through z_T
                for j in range(1, d):
                    u[j] = z[j] / r
                s = (z[0] + m * r) / (1.0 + m * m)
                kk = 1.0 / (1.0 + m * m)
                mk = m * kk
                z[0] = s
                for j in range(1, d):
                    z[j] = (m * s) * u[j]
                P[0, 0] = kk
                for j in range(1, d):
                    P[0, j] = P[j, 0] = mk * u[j]
                a2 = m * m * kk
                b2 = m * s / r
                for i in range(1, d):
                    for j in range(1, d):
                        P[i, j] = a2 * (u[i] * u[j]) + b2 * ((1.0 if i == j else 0.0) - u[i] * u[j])
            if unit:
                for i in range(d):
                    v = abs(c[b, i] - z[i])
                    if v > res or v != v:  # keeps a NaN, as numpy's max does
                        res = v
            else:
                unit = True
                for i in range(d):
                    R[b, i] = c[b, i] - z[i]
                    for j in range(d):
                        Da[b, i, j] = (1.0 if i == j else 0.0) - P[i, j]
                        unit = unit and Da[b, i, j] == (1.0 if i == j else 0.0)
                    Db[b, i, 0] = rb * P[i, 0]
                    unit = unit and Db[b, i, 0] == 0.0
                    for j in range(1, d):
                        Db[b, i, j] = rb * (P[i, j] + P[i, 0] * g[j])
                        unit = unit and Db[b, i, j] == 0.0
                sep[b] = unit
    return R, Da, Db, res, sep


def cone_pattern_py(indptr: np.ndarray, indices: np.ndarray, src: np.ndarray):
    """The CSC sparsity pattern of ``H = Da + Db J`` for newton/cones.py (see its ``_Pattern``):
    ``(indptr, rows, gather)``. ``indptr``, ``indices``: J's canonical CSR (n, n) structure;
    ``src`` (n, d): the rows of J that row r of ``Db J`` combines, ascending, -1 for none (they
    are also the columns of r's block of ``Da``). ``gather[s, e]`` is the position in ``J.data``
    of ``J[src[rows[e], s], col(e)]``, or ``J.nnz`` when it is not stored. The same arrays as the
    SciPy build of ``_Pattern``.
    """
    n, d = src.shape
    nnz = indptr[n]
    size = 0  # an upper bound on the entries
    for r in range(n):
        for s in range(d):
            j = src[r, s]
            if j >= 0:
                size += indptr[j + 1] - indptr[j] + 1
    head = np.zeros(d, dtype=np.int64)  # each source row's next entry, and its end
    stop = np.zeros(d, dtype=np.int64)
    rowptr = np.zeros(n + 1, dtype=np.int64)
    cols = np.empty(size, dtype=np.int64)
    found = np.empty((d, size), dtype=np.int64)
    pos = 0
    for r in range(n):  # the pattern row by row, columns ascending
        same = r > 0 and src[r, 0] >= 0
        for s in range(d):
            same = same and src[r, s] == src[r - 1, s]
        if same:  # a cone block's next row: the same sources, the same row
            start, m = rowptr[r - 1], rowptr[r] - rowptr[r - 1]
            for e in range(m):
                cols[pos + e] = cols[start + e]
                for s in range(d):
                    found[s, pos + e] = found[s, start + e]
            pos += m
            rowptr[r + 1] = pos
            continue
        for s in range(d):
            j = src[r, s]
            head[s] = indptr[j] if j >= 0 else 0
            stop[s] = indptr[j + 1] if j >= 0 else 0
        own = 0  # the next of the row's own columns (its block of Da: src[r], ascending, -1 last)
        while True:  # merge the source rows' sorted columns and the block's own
            c = n
            for s in range(d):
                if head[s] < stop[s] and indices[head[s]] < c:
                    c = indices[head[s]]
            if own < d and 0 <= src[r, own] < c:
                c = src[r, own]
            if c == n:
                break
            for s in range(d):
                if head[s] < stop[s] and indices[head[s]] == c:
                    found[s, pos] = head[s]
                    head[s] += 1
                else:
                    found[s, pos] = nnz
            if own < d and src[r, own] == c:
                own += 1
            cols[pos] = c
            pos += 1
        rowptr[r + 1] = pos
    colptr = np.zeros(n + 1, dtype=np.int64)  # to CSC: a counting sort by column (rows stay ascending)
    for e in range(pos):
        colptr[cols[e] + 1] += 1
    for c in range(n):
        colptr[c + 1] += colptr[c]
    fill = colptr[:n].copy()
    rows = np.empty(pos, dtype=np.int64)
    gather = np.empty((d, pos), dtype=np.int64)
    for r in range(n):
        for e in range(rowptr[r], rowptr[r + 1]):
            k = fill[cols[e]]
            fill[cols[e]] += 1
            rows[k] = r
            for s in range(d):
                gather[s, k] = found[s, e]
    return colptr, rows, gather


def cone_values_py(
    jdata: np.ndarray,
    rows: np.ndarray,
    gather: np.ndarray,
    dpos: np.ndarray,
    block: np.ndarray,
    perm: np.ndarray,
    da_box: np.ndarray,
    db_box: np.ndarray,
    da_cone: np.ndarray,
    db_cone: np.ndarray,
    eps: float,
) -> np.ndarray:
    """The entries of ``H = Da + eps Db + Db J`` in the pattern of :func:`cone_pattern_py`
    (``rows``, ``gather``; ``dpos`` where the entries of ``Da`` go): ``jdata`` J.data;
    ``block`` (n, 2) the block of each row (-1 for a box row) and its place in it (the box row's
    index for a box row); ``perm`` (k, d) each block's sources in ascending order as positions in
    the block; ``Da, Db`` as the point holds them (box diagonals (nb,), cone blocks (k, d, d)).
    The operations of newton/cones.py's numpy code, in its order."""
    nnz = jdata.shape[0]
    d = gather.shape[0]
    out = np.empty(rows.shape[0])
    for e in range(rows.shape[0]):
        b = block[rows[e], 0]
        p = block[rows[e], 1]
        g = gather[0, e]
        if b < 0:  # a box row: its one source, then zero times the others (as numpy adds them)
            v = db_box[p] * (jdata[g] if g < nnz else 0.0)
            for s in range(1, d):
                g = gather[s, e]
                v += 0.0 * (jdata[g] if g < nnz else 0.0)
        else:
            v = db_cone[b, p, perm[b, 0]] * (jdata[g] if g < nnz else 0.0)
            for s in range(1, d):
                g = gather[s, e]
                v += db_cone[b, p, perm[b, s]] * (jdata[g] if g < nnz else 0.0)
        out[e] = v
    t = 0
    for i in range(da_box.shape[0]):
        out[dpos[t]] += da_box[i] + eps * db_box[i]
        t += 1
    for b in range(da_cone.shape[0]):
        for p in range(d):
            for q in range(d):
                out[dpos[t]] += da_cone[b, p, q] + eps * db_cone[b, p, q]
                t += 1
    return out


def cone_cut_py(
    data: np.ndarray, rows: np.ndarray, colptr: np.ndarray, keep: np.ndarray, d: np.ndarray, phi: np.ndarray
):
    """The kept block of a Newton matrix in CSC form (the pattern of :func:`cone_pattern_py`,
    entries ``data``) with its right-hand side: ``(indptr, indices, values, rhs)`` of
    ``H[keep, keep]`` (int32 indices, stored zeros dropped) and ``rhs = -phi[keep] - (H d)[keep]``
    with ``d`` (n,) zero on ``keep`` (the fixed rows' solution), summed column by column as
    numpy's ``bincount`` over the CSC entries does."""
    n = keep.shape[0]
    pos = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        pos[i] = m
        if keep[i]:
            m += 1
    t = np.zeros(n)  # H d, the fixed columns' part of each row
    indptr = np.zeros(m + 1, dtype=np.int32)
    indices = np.empty(data.shape[0], dtype=np.int32)
    values = np.empty(data.shape[0])
    k = 0
    for c in range(n):
        if keep[c]:
            for e in range(colptr[c], colptr[c + 1]):
                r = rows[e]
                if keep[r] and data[e] != 0.0:
                    indices[k] = pos[r]
                    values[k] = data[e]
                    k += 1
            indptr[pos[c] + 1] = k
        else:
            for e in range(colptr[c], colptr[c + 1]):
                t[rows[e]] += data[e] * d[c]
    rhs = np.empty(m)
    for i in range(n):
        if keep[i]:
            rhs[pos[i]] = -phi[i] - t[i]
    return indptr, indices[:k], values[:k], rhs


def csr_matvec_py(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A @ x`` for ``A`` in CSR (``data``, ``indices``, ``indptr``): each row summed from 0 in
    stored order, as SciPy's ``csr_matvec``; without SciPy's dispatch (~15 us a call)."""
    n = indptr.shape[0] - 1
    y = np.empty(n)
    for r in range(n):
        s = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            s += data[e] * x[indices[e]]
        y[r] = s
    return y


def csr_rmatvec_py(
    data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, v: np.ndarray, ncols: int
) -> np.ndarray:
    """``A.T @ v`` (ncols,) for ``A`` in CSR: each entry's products added from 0 row by row in
    stored order, as SciPy's ``csc_matvec`` on the CSC view ``A.T``."""
    y = np.zeros(ncols)
    for r in range(indptr.shape[0] - 1):
        for e in range(indptr[r], indptr[r + 1]):
            y[indices[e]] += data[e] * v[r]
    return y


def cone_scales_py(data: np.ndarray, indptr: np.ndarray, box: np.ndarray, idx: np.ndarray):
    """The row scales of newton/cones.py (its ``set_scaling``) from J's CSR ``data``, ``indptr``:
    ``(j_scale, s_box, rho)``. Each row's norm is ``max_j |J_ij|`` (NaN kept, as numpy's
    ``maximum.reduceat``), 1 where it is 0 or not finite; ``j_scale`` their median (1 for no
    rows), ``s_box`` (nb,) one over the box rows' norms, ``rho`` (k,) one over the largest norm
    of each cone block's rows ``idx`` (k, d)."""
    n = indptr.shape[0] - 1
    norms = np.empty(n)
    for r in range(n):
        m = 0.0
        for e in range(indptr[r], indptr[r + 1]):
            v = abs(data[e])
            if v > m or v != v:
                m = v
                if v != v:
                    break
        norms[r] = m if math.isfinite(m) and m > 0.0 else 1.0
    j_scale = np.median(norms) if n else 1.0
    s_box = np.empty(box.shape[0])
    for i in range(box.shape[0]):
        s_box[i] = 1.0 / norms[box[i]]
    rho = np.empty(idx.shape[0])
    for b in range(idx.shape[0]):
        top = norms[idx[b, 0]]  # finite: the largest does not depend on the order
        for j in range(1, idx.shape[1]):
            top = max(top, norms[idx[b, j]])
        rho[b] = 1.0 / top
    return j_scale, s_box, rho


if AVAILABLE:
    csr_matvec = numba.njit(cache=True)(csr_matvec_py)
    csr_rmatvec = numba.njit(cache=True)(csr_rmatvec_py)
    cone_scales = numba.njit(cache=True)(cone_scales_py)
    fb_lower = numba.njit(cache=True)(fb_lower_py)
    dense_block = numba.njit(cache=True)(dense_block_py)
    cone_point = numba.njit(cache=True)(cone_point_py)
    cone_pattern = numba.njit(cache=True)(cone_pattern_py)
    cone_values = numba.njit(cache=True)(cone_values_py)
    cone_cut = numba.njit(cache=True)(cone_cut_py)
else:
    fb_lower = dense_block = cone_point = cone_pattern = cone_values = cone_cut = cone_scales = None
    csr_matvec = csr_rmatvec = None
