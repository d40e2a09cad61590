"""Cross-solver agreement on small random problems, every friction law (fast version of
``benchmarks/agreement.py``): where the complementary-cone enumeration proves the forces or the
motion unique, every solver that solves the problem must match that value to 1e-8."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "agreement.py"


@pytest.fixture(scope="module")
def ag():
    spec = importlib.util.spec_from_file_location("_agreement_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# -- the uniqueness certificate on LCPs with known solution sets ---------------------------------
def test_certificate_unique_p_matrix(ag):
    M, q = np.array([[2.0, 1.0], [0.0, 1.0]]), np.array([-1.0, 1.0])
    v = ag.certify_lcp(M, q, np.eye(2), np.eye(2), np.zeros(2))
    assert v.kind == "forces"
    np.testing.assert_allclose(v.forces, [0.5, 0.0], atol=1e-14)


def test_certificate_continuum_with_unique_motion(ag):
    # z1 + z2 = 1, z >= 0: a segment of solutions; z1 + z2 is the same on all of it
    v = ag.certify_lcp(np.ones((2, 2)), -np.ones(2), np.eye(2), np.ones((1, 2)), np.zeros(1))
    assert v.kind == "motion"
    np.testing.assert_allclose(v.motion, [1.0])
    # three variables: a triangle of solutions (two null directions, decided by LPs)
    v = ag.certify_lcp(np.ones((3, 3)), -np.ones(3), np.eye(3), np.ones((1, 3)), np.zeros(1))
    assert v.kind == "motion"
    # the same triangle, with a quantity that moves on it
    v = ag.certify_lcp(np.ones((3, 3)), -np.ones(3), np.eye(3), np.array([[1.0, 0.0, 0.0]]), np.zeros(1))
    assert v.kind == "multiple"


def test_certificate_isolated_solutions_rays_and_infeasible(ag):
    one = np.eye(1)
    assert ag.certify_lcp(-one, np.ones(1), one, one, np.zeros(1)).kind == "multiple"  # z = 0 and z = 1
    assert ag.certify_lcp(0 * one, np.zeros(1), one, one, np.zeros(1)).kind == "multiple"  # z >= 0, a ray
    assert ag.certify_lcp(0 * one, np.zeros(1), one, 0 * one, np.zeros(1)).kind == "motion"
    assert ag.certify_lcp(-one, -np.ones(1), one, one, np.zeros(1)).kind == "infeasible"


# -- every law, a few random problems -----------------------------------------------------------
FAST = ["newton", "lemke", "enumerate"]
#: law -> problem indices of the benchmark's generator (seed 1, sizes 1..6): moving and at-rest problems
#: whose forces or motion the enumeration proves unique, and some at-rest (rolling) problems of the
#: round laws that no enumeration decides (newton must still solve them)
CASES = {
    "frictionless": [0, 1, 2, 3, 4],
    "pyramid": [0, 1, 4, 10],
    "polygonal6": [0, 1, 10],
    "planar": [0, 4, 6, 8],
    "cone": [0, 1, 10],
    "cone_soc": [0, 1, 10],
    "ellipsoid": [0, 1, 10],
    "elliptic_torsion": [1, 10],
    "polyhedral": [0, 1, 10],
}


@pytest.mark.parametrize("law", list(CASES))
def test_solvers_agree_where_unique(ag, law):
    if law not in ag.available_laws([law])[0]:
        pytest.skip(f"{law} is not available in this version")
    args = argparse.Namespace(enum_max=10, slow_n=0, solver_options={})
    rows = []
    for i in CASES[law]:
        inst = ag.make_instance(law, i, seed=1, sizes=(1, 6))
        rows += ag.run_instance(inst, FAST, args, lambda row: None)
    compared = [r for r in rows if "diff_unique" in r]
    assert {r["solver"] for r in compared} >= {"newton"}, f"{law}: no proven-unique problem solved by newton"
    for r in compared:
        assert r["diff_unique"] <= 1e-8, r
    # newton applies to every law and must solve every problem here; lemke every LCP
    for r in rows:
        if r["solver"] == "newton" or (r["solver"] == "lemke" and r["lcp"]):
            assert r["status"] == "solved", r


def test_enumerate_returns_only_solutions(ag):
    from contactmodel.solvers.enumerate import all_solutions

    mcp = ag.make_instance("pyramid", 3, seed=1, sizes=(1, 6)).problem.compile().mcp
    M, q = mcp.M.toarray(), np.asarray(mcp.q)
    for z in all_solutions(M, q, max_lp=0):  # the batched solves alone show it
        assert (M @ z + q).min() >= -1e-6 * max(1.0, np.abs(q).max())
