"""All solutions: enumeration of small LCPs, multistart for MNCPs, grouping by mode."""

from __future__ import annotations

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.analysis import all_solutions, verify

# Painleve-like data: one contact sliding along +t with mu = 1 and A_nt = 1.5 > A_nn / mu, so
# a_n = (A_nn - mu A_nt) c_n + b_n = -0.5 c_n + 1: separation (c_n = 0) and contact (c_n = 2).
PAINLEVE_A = [[1.0, 1.5, 0.0], [1.5, 3.0, 0.0], [0.0, 0.0, 1.0]]
PAINLEVE_B = [1.0, 0.0, 0.0]


def test_hand_built_lcp_has_three_solutions() -> None:
    """M = [[1, 2], [2, 1]], q = (-1, -1): z = (1, 0), (0, 1), (1/3, 1/3)."""
    found = all_solutions(cm.LCP([[1.0, 2.0], [2.0, 1.0]], [-1.0, -1.0]))
    assert found.exhaustive and len(found) == 3
    got = sorted(tuple(np.round(s.x, 9)) for s in found)
    assert got == sorted([(1.0, 0.0), (0.0, 1.0), (round(1 / 3, 9), round(1 / 3, 9))])
    assert len(found.groups) == 3
    assert set(found.to_json()) == {"solutions"}


@pytest.mark.parametrize("method", ["enumerate", "multistart"])
def test_painleve_like_contact_has_two_solutions(method: str) -> None:
    problem = cm.formulate_from_matrices(PAINLEVE_A, PAINLEVE_B, mu=1.0, sliding=[True])
    found = all_solutions(problem, method=method)
    assert len(found) == 2
    normals = sorted(s.contacts[0].force[0] for s in found)
    assert normals == pytest.approx([0.0, 2.0])
    assert set(found.groups) == {"c0=separate", "c0=slide"}
    for s in found:
        assert s.ok and verify(s, problem).ok
        assert s.to_json()["contacts"][0]["mode"] in ("separate", "slide")


def test_two_painleve_contacts_give_four_mode_groups() -> None:
    A = np.kron(np.eye(2), np.array(PAINLEVE_A))
    b = np.tile(PAINLEVE_B, 2)
    problem = cm.formulate_from_matrices(A, b, mu=1.0, sliding=[True, True])
    found = all_solutions(problem)
    assert found.exhaustive and len(found) == 4
    assert len(found.groups) == 4
    assert "c0=separate; c1=slide" in found.groups


def test_cone_problem_multistart_deduplicates() -> None:
    problem = cm.formulate_from_matrices(PAINLEVE_A, PAINLEVE_B, mu=1.0)
    found = all_solutions(problem, starts=4)
    assert found.method == "multistart" and len(found) >= 1
    assert len({tuple(np.round(np.r_[s.contacts[0].force], 4)) for s in found}) == len(found)
