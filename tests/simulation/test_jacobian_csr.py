"""The step Jacobian's CSR made straight from its triplets is the one SciPy's COO route makes:
the same index and data arrays (entries sorted by row, then column; repeated entries summed)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.simulation.kinematics import csr_from_triplets


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 10_000), m=st.integers(1, 12), n=st.integers(1, 18), repeats=st.booleans())
def test_csr_from_triplets_is_the_coo_route(seed, m, n, repeats):
    rng = np.random.default_rng(seed)
    cells = rng.permutation(m * n)[: rng.integers(0, m * n + 1)]
    if repeats and cells.size:
        cells = np.concatenate([cells, rng.choice(cells, size=3)])
    rows, cols = cells // n, cells % n
    data = rng.normal(size=cells.size) * (rng.random(cells.size) > 0.2)  # explicit zeros too
    fast = csr_from_triplets(data, rows, cols, (m, n))
    slow = sp.csr_matrix((data, (rows, cols)), shape=(m, n))
    assert fast.shape == slow.shape
    for name in ("indptr", "indices", "data"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
