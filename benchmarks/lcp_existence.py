"""Evidence on whether friction LCPs that no solver solves have a solution at all.

Usage:
    python benchmarks/lcp_existence.py [--mus 0.5 0.55 0.6 0.602 0.65 0.7 1.0]
    python benchmarks/lcp_existence.py --npz INSTANCE.npz [INSTANCE.npz ...]

Without ``--npz`` the LCPs are those of the Trinkle et al. (1997) Table 1 problem of size 170,
generator seed 0 (``contactmodel experiment trinkle1997-table1``), under the friction pyramid, at
each ``mu`` of ``--mus``; with ``--npz`` the ``M, q`` of each file (e.g. from
``tests/data/make_peer_instances.py``). One JSON line per LCP: n, sizes of the connected
components of the graph of ``M`` (independent sub-LCPs), lp_feasible (is ``{z >= 0, M z + q >= 0}``
nonempty, HiGHS; if not, ``farkas_q_y`` < 0 certifies that no solution exists), newton and lemke
outcomes with the natural residual ``||min(z, M z + q)||_inf`` of their points, and for the better
point its ``max_z``. A solution norm that grows without bound as ``mu`` rises to some ``mu*``
(``max_z`` ~ C / (mu* - mu)) is the mark of a Painleve-type loss of solutions: ``d = z / max z``
tends to a nonzero solution of the homogeneous LCP (``d >= 0, M d >= 0, d . M d = 0``) with
``q . d < 0``, reported as ``d_min_Md``, ``d_dot_Md``, ``q_dot_d``. Not part of the test suite.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components

from contactmodel.mcp.types import MCP
from contactmodel.solvers import lemke, newton


def lcp_residual(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    return float(np.abs(np.minimum(z, M @ z + q)).max(initial=0.0))


def analyse(M: np.ndarray, q: np.ndarray) -> dict:
    """The evidence of the module docstring for LCP(q, M); M (n, n) dense, q (n,)."""
    n = q.size
    _, labels = connected_components(sp.csr_matrix((M != 0) | (M.T != 0)), directed=False)
    out: dict = {"n": int(n), "components": sorted(np.bincount(labels).tolist(), reverse=True)}
    feas = linprog(np.zeros(n), A_ub=-M, b_ub=q, bounds=[(0, None)] * n, method="highs")
    out["lp_feasible"] = feas.status == 0
    if feas.status == 2:  # Farkas: y >= 0, M^T y <= 0, q . y < 0, normalized sum y = 1
        far = linprog(q, A_ub=M.T, b_ub=np.zeros(n), A_eq=np.ones((1, n)), b_eq=[1.0], method="highs")
        out["farkas_q_y"] = float(far.fun) if far.status == 0 else None
    mcp = MCP.from_lcp(M, q)
    points = {}
    res = newton.solve(mcp, newton.NewtonOptions())
    points["newton"] = res.x
    out["newton"] = res.outcome.value
    res = lemke.solve(mcp, lemke.LemkeOptions(max_restarts=5))
    points["lemke"] = res.x
    out["lemke"] = res.outcome.value
    best = None
    for name, x in points.items():
        if x is None:
            continue
        z = np.maximum(np.asarray(x, dtype=float), 0.0)
        r = lcp_residual(M, q, z)
        out[f"{name}_residual"] = r
        if best is None or r < best[0]:
            best = (r, z)
    if best is not None and best[1].max() > 0:
        z = best[1]
        d = z / z.max()
        out.update(
            max_z=float(z.max()),
            d_min_Md=float((M @ d).min()),
            d_dot_Md=float(d @ M @ d),
            q_dot_d=float(q @ d),
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mus = [0.5, 0.55, 0.58, 0.59, 0.595, 0.6, 0.602, 0.7, 1.0]
    ap.add_argument("--mus", type=float, nargs="+", default=mus)
    ap.add_argument("--npz", type=Path, nargs="+", default=None)
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.npz:
        for path in args.npz:
            data = np.load(path)
            row = analyse(np.asarray(data["M"], dtype=float), np.asarray(data["q"], dtype=float))
            print(json.dumps({"instance": str(path), **row}), flush=True)
        return
    from contactmodel.experiments.generators import build_problem

    for mu in args.mus:
        mcp = build_problem({"family": "boxes", "size": 170, "seed": 0, "mu": mu}, "pyramid").compile().mcp
        M = mcp.M.toarray() if sp.issparse(mcp.M) else np.asarray(mcp.M, dtype=float)
        print(json.dumps({"instance": "seed000 size 170 seed 0", "mu": mu, **analyse(M, mcp.q)}), flush=True)


if __name__ == "__main__":
    main()
