"""Seed 002 Example 2 (rod and cube, Table 1): the faithful model of examples/rod_cube.py and
the authors' matrices (``build_authors``), with both of Table 1's solutions.

Faithful model: cube of side 2 (mass 1, inertia 3 I, centre at the origin, gravity 10 along -z)
and an active rod along x (translation toward the cube, mass 4; rotation about its axis,
inertia 2) with efforts tau = (6, 3); soft-finger contacts with Ellipsoid(mu = 0.9, e_t = e_o =
1, e_r = 2) and maximum work; rod on the front face at (1, eta - 1, zeta - 1), hump at the
back-left bottom corner (-1, -1, -1), fixed rod on the right face at (1 - delta, 1, gamma - 1).
Table 1's jammed forces balance every force component, but leave a y-moment of -5.94 N m.

Authors' matrices: the same G with the hump's o-row y-moment entry negated, M^-1 = diag(1, 1,
1, 3, 3, 3, 4, 2), friction parallel to -(a_t, a_o, a_r): Table 1's sliding solution is then
reproduced to every printed digit and its jammed forces are one point of the jammed set.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import contactmodel as cm
from contactmodel.analysis import all_solutions, verify
from contactmodel.cli import main
from contactmodel.errors import FrictionLawError
from contactmodel.solve import relative_residual

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rod_cube.py"
PRINTED = 5e-5  # half a unit in Table 1's fourth decimal


def _example():
    name = "_example_rod_cube"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXAMPLE)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


rc = _example()


JAMMED = np.concatenate([rc.TABLE1_JAMMED[n] for n in rc.CONTACTS])
SLIDING = np.concatenate([rc.TABLE1_SLIDING[n]["force"] for n in rc.CONTACTS])


# -- the "opposite" direction choice of the ellipsoidal law ---------------------------------
def _one_contact(law: cm.Ellipsoid, a: np.ndarray, c: np.ndarray) -> cm.Problem:
    """A one-contact problem (A = I + coupling, rows n, t, o, r) whose b puts (c, a) on a = A c + b."""
    A = np.eye(4) + 0.2 * np.ones((4, 4))
    return cm.formulate_from_matrices(A, a - A @ c, friction=law, torsion=True)


def test_opposite_law_rolling_point_solves_only_the_opposite_model() -> None:
    e = np.array([1.0, 1.0, 2.0])
    a = np.array([0.0, 0.3, -0.5, 0.4])
    cn = 2.0
    friction = -0.9 * cn * a[1:] / np.linalg.norm(a[1:] / e)  # along -a, on the ellipsoid
    c = np.r_[cn, friction]
    for direction, expected_ok in (("opposite", True), ("max-work", False)):
        problem = _one_contact(cm.Ellipsoid(0.9, *e, direction=direction), a, c)
        problem.load_forces(c)
        compiled = problem.compile()
        residual = relative_residual(compiled.mcp, compiled.values())
        assert (residual < 1e-12) is expected_ok, (direction, residual)
    solution = cm.solve(_one_contact(cm.Ellipsoid(0.9, *e, direction="opposite"), a, c))
    assert solution.ok
    np.testing.assert_allclose(solution.contacts[0].force, c, atol=1e-8)
    np.testing.assert_allclose(solution.contacts[0].acceleration, a, atol=1e-8)


def test_opposite_law_at_a_sliding_contact_opposes_the_velocity() -> None:
    e = np.array([1.0, 1.0, 2.0])
    v = np.array([0.5, 0.0, 1.0])
    A = np.eye(4)
    b = np.array([-3.0, 0.0, 0.0, 0.0])  # a_n = c_n - 3: c_n = 3 when the contact holds
    for direction, along in (("opposite", v), ("max-work", e**2 * v)):
        problem = cm.formulate_from_matrices(
            A, b, friction=cm.Ellipsoid(0.9, *e, direction=direction), torsion=True, velocities=[v]
        )
        force = cm.solve(problem).contacts[0].force
        assert force[0] == pytest.approx(3.0, abs=1e-9)
        np.testing.assert_allclose(force[1:] / np.linalg.norm(force[1:]), -along / np.linalg.norm(along))
        assert np.linalg.norm(force[1:] / e) == pytest.approx(0.9 * 3.0, rel=1e-12)


def test_unknown_direction_is_refused() -> None:
    with pytest.raises(FrictionLawError, match="direction"):
        cm.Ellipsoid(0.9, 1, 1, 2, direction="colinear")


# -- the authors' matrices: both of Table 1's solutions -------------------------------------
def test_authors_matrices_have_both_table1_solutions() -> None:
    problem = rc.build_authors()
    found = all_solutions(problem)
    kinds = sorted(rc.classify(s) for s in found)
    assert kinds == ["jammed", "sliding"], found.summary()
    for sol in found:
        assert verify(sol, problem).ok
        kind = rc.classify(sol)
        rows = rc.table1_comparison(sol, kind)
        if kind == "sliding":
            # every printed entry of the sliding solution, cube acceleration included
            worst = max(rows, key=lambda r: abs(r[2] - r[3]))
            assert abs(worst[2] - worst[3]) <= PRINTED, worst
            assert len(rows) == 3 * 8 + 3
        else:
            rod = sol.contact("rod").force
            assert rod[0] == pytest.approx(6.0, abs=1e-8) and rod[3] == pytest.approx(3.0, abs=1e-8)
            assert all(abs(r[2]) < 1e-8 for r in rows if r[0].startswith("a_"))


def test_table1_jammed_forces_are_one_point_of_the_authors_jammed_set() -> None:
    G, _, f = rc.authors_matrices()
    assert np.abs(G.T @ JAMMED + f).max() < 2e-4  # rounding of the printed forces only
    ranges = rc.jammed_force_ranges(G, f)
    assert np.all(ranges[:, 0] - 1e-6 <= JAMMED) and np.all(JAMMED <= ranges[:, 1] + 1e-6)
    widths = ranges[:, 1] - ranges[:, 0]
    fixed = [0, 3]  # c_n1 = tau1, c_r1 = tau2
    assert np.all(widths[fixed] < 1e-6) and np.all(np.delete(widths, fixed) > 1.0)
    # the faithful G (o2 entry +1) cannot balance them: a y-moment of 2 c_o2 remains
    residual = rc.jammed_residual(rc.build())
    assert residual[4] == pytest.approx(2 * rc.TABLE1_JAMMED["hump"][2], abs=1e-3)


def test_max_work_law_on_the_authors_matrices_does_not_give_table1() -> None:
    """The law matters: with maximum work the sliding solution moves away from Table 1's."""
    authors = rc.build_authors()
    laws = {n: cm.Ellipsoid(0.9, 1, 1, 2) for n in rc.CONTACTS}
    problem = authors.reformulate(friction=laws)
    problem.load_forces(SLIDING)
    solution = cm.solve(problem, x0=problem.compile().values())
    assert solution.ok and rc.classify(solution) == "sliding"
    force = np.concatenate([c.force for c in solution.contacts])
    assert np.abs(force - SLIDING).max() > 0.1


def test_cli_shows_both_solutions_of_the_authors_variant(capsys) -> None:
    import json

    assert main(["solve", f"{EXAMPLE}:build_authors", "--all-solutions", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    modes = sorted(tuple(c["mode"] for c in s["contacts"]) for s in data["solutions"])
    assert modes == [("roll",) * 3, ("slide",) * 3]
    assert main(["solve", f"{EXAMPLE}:no_such_function"]) == 2
    assert "no_such_function()" in capsys.readouterr().err


# -- from the authors' data to the faithful model --------------------------------------------
def _speeds(a: np.ndarray) -> np.ndarray:
    return np.array([np.linalg.norm(a[4 * i + 1 : 4 * i + 4]) for i in range(3)])


def test_sliding_solution_survives_the_law_and_mass_changes() -> None:
    branch = rc.sliding_branch(flip=False, true_mass=True, max_work=True, step=2e-3)
    t, modes, c, a = branch[-1]
    assert t == pytest.approx(1.0) and {m for _, m, _, _ in branch} == {"SSS"}
    assert _speeds(a).min() > 0.1  # still sliding at every contact, with the true M and maximum work
    assert np.abs(c[[0, 4, 8]] - SLIDING[[0, 4, 8]]).max() > 0.5


def test_sliding_solution_dies_into_the_jam_as_the_o2_entry_takes_its_geometric_value() -> None:
    branch = rc.sliding_branch(flip=True)
    patterns = [m for k, (_, m, _, _) in enumerate(branch) if k == 0 or m != branch[k - 1][1]]
    assert patterns == ["SSS", "RSS"]  # first the rod contact stops slipping
    t_rod = next(t for t, m, _, _ in branch if m == "RSS")
    t_end, _, c, a = branch[-1]
    assert 0.2 < t_rod < t_end < 0.35
    mid = next(a for t, m, _, a in branch if m == "RSS")
    assert _speeds(mid)[1:].min() > 1.0
    # the motion dies out: the speeds fall linearly and reach zero within one more step (where the
    # sliding law's direction is undefined, so whether Newton still converges on the last step
    # before it depends on the machine's rounding)
    s_prev, s_end = _speeds(branch[-2][3]).max(), _speeds(a).max()
    assert s_end < 0.05 and s_prev - s_end > 0.9 * s_end
    assert c[0] == pytest.approx(6.0, abs=0.01) and c[3] == pytest.approx(3.0, abs=0.02)  # the jam's


# -- the faithful model ---------------------------------------------------------------------
def test_faithful_model_jams_with_the_rod_efforts_carried_by_contact_1() -> None:
    problem = cm.formulate(rc.build())
    found = all_solutions(problem, starts=2, settings=(("newton", {}),))
    jams = [s for s in found if rc.classify(s) == "jammed"]
    assert len(jams) == 1 and found.merged[found.solutions.index(jams[0])] >= 1
    (jam,) = jams
    assert abs(jam.contacts[0].force[0] - 6.0) < 1e-8
    assert abs(jam.contacts[0].force[3] - 3.0) < 1e-8
    assert verify(jam, problem).ok
