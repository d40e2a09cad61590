"""Lift-off rounds of the cone-block newton (``NewtonOptions.liftoff_rounds``).

The data (``tests/data/newton/rockpile_block25.npz``) are an independent block of the FCLIB
problem RockPile_tob1 (Siconos local fc3d text file): its contacts 5, 13, 23, 24, ... (the
``contacts`` array, 0-based), W restricted to their 75 rows and columns (W has no entry between
them and the other contacts), q, mu = 1. W is not symmetric (max|W - W^T| / max|W| = 8.5e-4), its
symmetric part is PSD of rank 45. Contacts 23 and 24 of the file (2 and 3 here) are nearly the
same contact: their normal rows of W agree to 1.3e-5 (relative 3e-6). From r = 0, Newton stops
where both slide carrying load, one separating and the other penetrating at 1.8e-6: a point where
the merit does not decrease, with a nearly singular Newton matrix. Holding one of them separated
removes that near-dependence.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel.errors import SolverError
from contactmodel.io.fclib import fc3d_residual, reactions
from contactmodel.solvers.newton import NewtonOptions

DATA = Path(__file__).resolve().parents[1] / "data" / "newton" / "rockpile_block25.npz"


def block() -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """(W (75, 75), q (75,), mu (25,)) of the RockPile block."""
    d = np.load(DATA)
    n = d["q"].size
    W = sp.csr_matrix((d["vals"], (d["rows"], d["cols"])), shape=(n, n))
    return W, d["q"], d["mu"]


def solve(form: str = "soc", **options) -> tuple[cm.Solution, np.ndarray, tuple]:
    """newton on (W, q / ||q||) from r = 0, as benchmarks/fclib_bench.py does, the cone in ``form``;
    the reactions of the file's scale."""
    W, q, mu = block()
    nq = float(np.linalg.norm(q))
    laws = [cm.CoulombCone(float(m), form=form) for m in mu]
    problem = cm.formulate_from_matrices(W, q / nq, mu, friction=laws, check_symmetric=False)
    sol = cm.solve(problem, solver="newton", **options)
    return sol, reactions(problem, sol.x) * nq, (W, q, mu)


def signorini_coulomb_violation(W: sp.csr_matrix, q: np.ndarray, mu: np.ndarray, r: np.ndarray) -> float:
    """The largest violation of the contact conditions at reactions r, written out per contact
    (not through the natural map): r in the cone, the normal velocity u_N >= 0, r_N u_N = 0,
    and r_T = -mu r_N u_T / |u_T| where the contact slides, ||r_T|| <= mu r_N where it sticks (u = 0);
    relative to ||q|| for velocities and to max |r| for reactions."""
    u = (W @ r + q).reshape(-1, 3)
    rr = r.reshape(-1, 3)
    sr, su = float(np.abs(r).max()), float(np.linalg.norm(q))
    rn, rt, un, ut = rr[:, 0], rr[:, 1:], u[:, 0], u[:, 1:]
    nut = np.linalg.norm(ut, axis=1)
    worst = [
        float(np.max(-rn / sr)),  # r_N >= 0
        float(np.max((np.linalg.norm(rt, axis=1) - mu * rn) / sr)),  # in the cone
        float(np.max(-un / su)),  # no penetration
        float(np.max(np.minimum(np.abs(rn) / sr, np.abs(un) / su))),  # r_N u_N = 0
    ]
    slide = nut > 1e-6 * su  # sliding: the friction force opposes the slip at the cone's edge
    dirs = rt[slide] + (mu[slide] * rn[slide] / nut[slide])[:, None] * ut[slide]
    worst.append(float(np.abs(dirs).max(initial=0.0)) / sr)
    stick = ~slide & (rn > 1e-9 * sr)
    worst.append(float(np.abs(u[stick]).max(initial=0.0)) / su)
    return max(worst)


#: newton without lift-off rounds and without cm.solve's fallback, the cone in the MNCP form (the
#: statement whose point cm.solve returned here before its fallback tried the LCP surrogate's
#: answer, which solves it)
TRAPPED = {"liftoff_rounds": 0, "form": "mncp", "fallback": False}


def test_without_liftoff_newton_stays_at_the_near_duplicate_contacts():
    sol, r, (W, q, mu) = solve(**TRAPPED)
    assert sol.status is not cm.Status.SOLVED
    assert fc3d_residual(W, q, mu, r) > 1e-7
    rr, u = r.reshape(-1, 3), (W @ r + q).reshape(-1, 3)
    # the trap: both near-duplicate contacts carry load, one lifting off and one penetrating
    assert rr[2, 0] > 1.0 and rr[3, 0] > 1.0
    assert u[2, 0] > 1e-7 and u[3, 0] < -1e-7


def test_liftoff_rounds_solve_the_block():
    sol, r, (W, q, mu) = solve()
    assert sol.status is cm.Status.SOLVED
    assert "lift-off" in sol.message
    assert sol.extras["liftoff_rounds"] >= 1
    assert fc3d_residual(W, q, mu, r) < 1e-10
    assert signorini_coulomb_violation(W, q, mu, r) < 1e-9
    # the answer has one of the two near-duplicate contacts separated: no load, moving apart
    rr, u = r.reshape(-1, 3), (W @ r + q).reshape(-1, 3)
    off = int(np.argmin(rr[[2, 3], 0]))
    assert rr[2 + off, 0] < 1e-9 and u[2 + off, 0] >= 0.0


def test_without_liftoff_the_fallback_solves_the_block():
    """cm.solve's fallback solves it without lift-off rounds too: newton from the answer of the
    LCP surrogate (the pyramid, by Lemke's method), which has one of the two contacts separated."""
    sol, r, (W, q, mu) = solve(liftoff_rounds=0)
    assert sol.status is cm.Status.SOLVED, sol.message
    assert sol.extras["fallback"]["solved_by"] == "from the LCP surrogate's answer"
    assert signorini_coulomb_violation(W, q, mu, r) < 1e-7


def test_independent_check_rejects_the_trapped_point():
    sol, r, (W, q, mu) = solve(**TRAPPED)
    assert signorini_coulomb_violation(W, q, mu, r) > 1e-8


def test_liftoff_rounds_must_not_be_negative():
    with pytest.raises(SolverError, match="liftoff_rounds"):
        NewtonOptions(liftoff_rounds=-1).validate()
