"""A Newton matrix that SuperLU cannot factor: newton's sparse LU reports it singular up front
(None, as for an empty row or column), without calling SuperLU.

The matrix (the CSC of H^T, n = 2424, as newton gives it to SuperLU) is one of newton's Newton
matrices for the MNCP form of a 100-box pile step under the Coulomb cone (the fallback route of
a solved-inaccurate step, ``benchmarks/simulate_peer.py --scenes pile --boxes 100``). No row or
column is empty, but it is structurally singular (a maximum matching covers 2416 of 2424 rows):
SuperLU called BLAS with invalid sizes ("On entry to DTRSV parameter number 6 had an illegal
value") before failing with a RuntimeError.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import structural_rank

from contactmodel.solvers.newton import _Assembler

DATA = Path(__file__).resolve().parents[1] / "data" / "pile100_mncp_newton_matrix.npz"


def test_structurally_singular_newton_matrix_is_reported_singular():
    Ht = sp.load_npz(DATA).tocsc()
    n = Ht.shape[0]
    rows = np.bincount(Ht.indices[Ht.data != 0], minlength=n)
    assert rows.min() > 0 and np.diff(Ht.indptr).min() > 0, "no empty row or column"
    assert structural_rank(Ht) == 2416 < n
    J = Ht.T.tocsr()  # H = diag(da) + diag(db) J with da = 0, db = 1
    asm = _Assembler(n)
    data = asm.values(J, np.zeros(n), np.ones(n))
    assert asm.factor(data, None) is None
    # a nonsingular matrix of the same pattern is still factored, and solves
    data = asm.values(J, np.ones(n), np.ones(n))
    solve = asm.factor(data, None)
    H = (sp.eye(n) + J).toarray()
    b = np.arange(n, dtype=float)
    assert np.allclose(H @ solve(b), b, atol=1e-8 * np.abs(b).max())
