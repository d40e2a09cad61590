"""Evidence on whether friction LCPs that no solver solves have a solution at all.

Usage:
    python benchmarks/lcp_existence.py [--mus 0.5 0.55 0.6 0.602 0.65 0.7 1.0] [--profile]
    python benchmarks/lcp_existence.py --npz INSTANCE.npz [INSTANCE.npz ...] [--probes] [--profile]

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

``--probes`` (friction-pyramid LCPs of ``make_peer_instances.py``, whose files name the sliding
contacts; unknowns ``[c_Sn, c_Rn, s_Rt+, s_Ro+, a_Rt-, a_Ro-]``, rows ``[a_Sn, a_Rn, a_Rt+, a_Ro+,
s_Rt-, s_Ro-]``) adds three probes, findings rather than certificates (about a minute at n = 1000):

* ``relaxation_*``: the **normal relaxation**, maximum dissipation dropped at the rolling contacts
  (their friction anywhere in its pyramid, ``0 <= s_R+ <= 2 mu c_Rn``, tangential accelerations
  free), normal complementarity kept at every contact, the sliding friction exact. Every solution
  of the LCP solves it, so a relaxation without solution would prove that the LCP has none; a
  solved one (residual checked here) cannot decide it.
* ``sliding_*``: with the sliding normal forces c_S fixed, the rolling rest is solved (newton,
  else lemke), and ``0 <= c_S _|_ a_Sn(c_S) >= 0`` is searched by least squares on its
  Fischer-Burmeister residual from c_S = 0 and from the relaxation's c_S: where each start
  stops, the LCP's residual there, and how many rolling rests neither solver solved.
* ``sweep_*``: the sliding contact i whose residual is largest where the search from zero stops,
  its normal force fixed at c on a grid from 0 to 1e4 (the other n - 1 unknowns solved by newton,
  warm-started along the grid), and its normal acceleration w_i(c): the largest value and where,
  and the value at the largest c. ``max_w < 0`` everywhere is a Painleve-type contact (pushing
  harder accelerates it further into the contact), on the branch the warm starts follow; not a
  proof, since the other unknowns' solutions need not be unique.

``--profile`` (with or without ``--npz``) estimates the size of the complementarity tree that would
decide the LCP (``tree_*``) by Knuth's estimator: ``--dives`` random root-to-leaf paths
(``--seed``) on the largest independent block, each node branched as
:func:`~contactmodel.analysis.certificate.branch_and_bound` branches (strong branching among the
``--candidates`` indices with the largest ``min(z_i, w_i)`` on the homogenized node LP,
:class:`~contactmodel.analysis.certificate.NodeLP`), the child taken at random; a leaf is a node
whose LP has max t = 0 or a complementary optimum (a solution). A path ending at depth d
estimates ``2^(d+1) - 1`` nodes; the mean over paths estimates the tree's size, heavy-tailed
(rare deep paths carry it). Also the root's max t, the paths' depths (min, median, max), and
the seconds per node (its LP and strong branching), so that estimate times seconds is the
tree's time on this machine.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- D. E. Knuth, "Estimating the efficiency of backtrack programs", Mathematics of Computation 29(129),
  1975.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.optimize import least_squares, linprog

from contactmodel.analysis.certificate import NodeLP
from contactmodel.analysis.decide import lcp_blocks
from contactmodel.mcp.types import MCP
from contactmodel.solvers import lemke, newton
from contactmodel.solvers.base import Outcome


def lcp_residual(M: np.ndarray, q: np.ndarray, z: np.ndarray) -> float:
    return float(np.abs(np.minimum(z, M @ z + q)).max(initial=0.0))


def analyse(M: np.ndarray, q: np.ndarray) -> dict:
    """The evidence of the module docstring for LCP(q, M); M (n, n) dense, q (n,)."""
    n = q.size
    out: dict = {"n": int(n), "components": sorted((b.size for b in lcp_blocks(M)), reverse=True)}
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


def normal_relaxation(M: np.ndarray, q: np.ndarray, n_sliding: int) -> tuple[np.ndarray, np.ndarray]:
    """The LCP on ``[c_S, c_Rn, s_Rt+, s_Ro+, y_t, y_o]`` with rows ``[a_Sn, a_Rn, 0, 0, s_Rt-, s_Ro-]``:
    the y have zero columns, so the box rows ``s_R- = 2 mu c_Rn - s_R+`` are only required >= 0."""
    n_rolling = (q.size - n_sliding) // 5
    nc = n_sliding + n_rolling
    kept = nc + 2 * n_rolling  # c_S, c_Rn, s_Rt+, s_Ro+
    size = kept + 2 * n_rolling
    Mr, qr = np.zeros((size, size)), np.zeros(size)
    Mr[:nc, :kept], qr[:nc] = M[:nc, :kept], q[:nc]
    Mr[kept:, :kept] = M[nc + 2 * n_rolling :, :kept]
    return Mr, qr


def solve_lcp(M: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """newton's point if it converged, else lemke's, else None."""
    mcp = MCP.from_lcp(M, q)
    res = newton.solve(mcp, newton.NewtonOptions())
    if res.outcome is not Outcome.CONVERGED:
        res = lemke.solve(mcp, lemke.LemkeOptions(max_restarts=5))
    return np.maximum(np.asarray(res.x, dtype=float), 0.0) if res.outcome is Outcome.CONVERGED else None


def sliding_search(M: np.ndarray, q: np.ndarray, n_sliding: int, start: np.ndarray) -> dict:
    """Least squares over the sliding normal forces (module docstring), from ``start`` (n_sliding,)."""
    S, R = np.arange(n_sliding), np.arange(n_sliding, q.size)
    MRR, MRS = M[np.ix_(R, R)], M[np.ix_(R, S)]
    unsolved = [0]  # rolling rests neither solver solved (their z_R taken as 0)

    def full(cS: np.ndarray) -> np.ndarray:
        zR = solve_lcp(MRR, q[R] + MRS @ cS)
        unsolved[0] += zR is None
        return np.r_[cS, np.zeros(R.size) if zR is None else zR]

    def fb(cS: np.ndarray) -> np.ndarray:
        cS = np.maximum(cS, 0.0)
        a = (M @ full(cS) + q)[S]
        return cS + a - np.sqrt(cS * cS + a * a)

    fit = least_squares(fb, start, bounds=(0, np.inf), max_nfev=60, diff_step=1e-6)
    z = full(fit.x)
    return {
        "fb_residual": float(np.abs(fit.fun).max()),
        "lcp_residual": lcp_residual(M, q, z),
        "sum_c_S": float(fit.x.sum()),
        "unsolved_rests": unsolved[0],
        "worst_contact": int(np.abs(fit.fun).argmax()),
        "stop": z,
    }


def contact_sweep(M: np.ndarray, q: np.ndarray, i: int, start: np.ndarray, forces: np.ndarray) -> dict:
    """Fix z_i = c for each c of ``forces`` (ascending), solve the other n - 1 (newton, warm-started
    from the last solved point, first from ``start``), and read w_i(c) = (M z + q)_i."""
    R = np.r_[0:i, i + 1 : q.size]
    MRR, Mi = M[np.ix_(R, R)], M[R, i]
    x, solved, w = start[R], [], []
    for c in forces:
        qR = q[R] + Mi * c
        res = newton.solve(MCP.from_lcp(MRR, qR), newton.NewtonOptions(x0=x))
        if res.outcome is not Outcome.CONVERGED:
            continue
        x = np.maximum(np.asarray(res.x, dtype=float), 0.0)
        solved.append(float(c))
        w.append(float(M[i, R] @ x + M[i, i] * c + q[i]))
    out: dict = {"contact": i, "forces": len(forces), "unsolved": len(forces) - len(solved)}
    if w:
        k = int(np.argmax(w))
        out.update(max_w=w[k], at_force=solved[k], w_at_largest=w[-1], largest_force=solved[-1])
    return out


def probes(M: np.ndarray, q: np.ndarray, n_sliding: int) -> dict:
    """The ``--probes`` evidence of the module docstring."""
    Mr, qr = normal_relaxation(M, q, n_sliding)
    zr = solve_lcp(Mr, qr)
    out: dict = {"relaxation_n": int(qr.size), "relaxation_solved": zr is not None}
    starts = {"zero": np.zeros(n_sliding)}
    if zr is not None:
        out.update(relaxation_residual=lcp_residual(Mr, qr, zr), relaxation_norm_1=float(zr.sum()))
        starts["relaxation"] = zr[:n_sliding]
    for name, start in starts.items():
        found = sliding_search(M, q, n_sliding, start)
        stop = found.pop("stop")
        out.update({f"sliding_{name}_{k}": v for k, v in found.items()})
        if name == "zero":
            i = found["worst_contact"]
            top = 2.0 * max(float(stop[i]), 1.0)  # fine steps up to twice its force, then geometric
            forces = np.r_[np.linspace(0.0, top, 41)[:-1], np.geomspace(top, 1e4, 13)]
            out.update({f"sweep_{k}": v for k, v in contact_sweep(M, q, i, stop, forces).items()})
    return out


def tree_estimate(M: np.ndarray, q: np.ndarray, dives: int, candidates: int, seed: int = 0) -> dict:
    """``tree_*`` of the module docstring, on the largest independent block of LCP(q, M)."""
    block = lcp_blocks(M)[-1]
    Mb, qb = sp.csr_matrix(M[np.ix_(block, block)]), q[block]
    n = qb.size
    lp = NodeLP(Mb, qb)
    rng = np.random.default_rng(seed)
    depths, root_t = [], None
    start = time.perf_counter()
    for _ in range(dives):
        zfix, wfix = np.zeros(n, bool), np.zeros(n, bool)
        depth = 0
        while True:
            solved = lp.solve(zfix, wfix)
            if solved is None:
                return {"tree_error": "a node LP failed"}
            x, _ = solved
            t = 0.0 if x is None else float(x[n])
            root_t = t if root_t is None else root_t
            if t <= 0.0:
                break
            gap, _ = lp.gaps(x, ~(zfix | wfix))
            if gap.max(initial=0.0) <= 1e-9:  # a complementary point with t > 0: a solution
                break
            i = lp.strong_branch(t, np.argsort(-gap)[:candidates])
            side = zfix if rng.random() < 0.5 else wfix
            side[i] = True
            depth += 1
        depths.append(depth)
    d = np.array(depths)
    return {
        "tree_block": int(n),
        "tree_root_max_t": root_t,
        "tree_dives": dives,
        "tree_dive_depths": [int(v) for v in np.percentile(d, [0, 50, 100])],
        # a path to depth d: 1 + 2 + ... + 2^d nodes, were every node like this path's
        "tree_nodes_estimate": float(np.mean(2.0 ** (d + 1) - 1)),
        "tree_seconds_per_node": (time.perf_counter() - start) / float((d + 1).sum()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mus = [0.5, 0.55, 0.58, 0.59, 0.595, 0.6, 0.602, 0.7, 1.0]
    ap.add_argument("--mus", type=float, nargs="+", default=mus)
    ap.add_argument("--npz", type=Path, nargs="+", default=None)
    ap.add_argument(
        "--probes", action="store_true", help="peer pyramid LCPs: relaxation and sliding-force probes"
    )
    ap.add_argument(
        "--profile", action="store_true", help="estimate the size of the tree that would decide the LCP"
    )
    ap.add_argument("--dives", type=int, default=40, help="random dives of --profile's tree estimate")
    ap.add_argument("--candidates", type=int, default=32, help="strong-branching candidates of --profile")
    ap.add_argument("--seed", type=int, default=0, help="random paths of --profile")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.npz:
        for path in args.npz:
            data = np.load(path)
            M, q = np.asarray(data["M"], dtype=float), np.asarray(data["q"], dtype=float)
            row = analyse(M, q)
            if args.probes:
                row.update(probes(M, q, int(data["sliding"].sum())))
            if args.profile:
                row.update(tree_estimate(M, q, args.dives, args.candidates, args.seed))
            print(json.dumps({"instance": str(path), **row}), flush=True)
        return
    from contactmodel.experiments.generators import build_problem

    for mu in args.mus:
        mcp = build_problem({"family": "boxes", "size": 170, "seed": 0, "mu": mu}, "pyramid").compile().mcp
        M = mcp.M.toarray() if sp.issparse(mcp.M) else np.asarray(mcp.M, dtype=float)
        row = analyse(M, mcp.q)
        if args.profile:
            row.update(tree_estimate(M, mcp.q, args.dives, args.candidates, args.seed))
        print(json.dumps({"instance": "seed000 size 170 seed 0", "mu": mu, **row}), flush=True)


if __name__ == "__main__":
    main()
