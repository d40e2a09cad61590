"""Exact node LPs: hand-derived optima, a near cancellation no float LP sees, and random small
LCPs against an independent vertex enumeration in rationals."""

from __future__ import annotations

import itertools
from fractions import Fraction
from unittest import mock

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contactmodel.analysis import exact_lp
from contactmodel.analysis.certificate import ExactLCP
from contactmodel.analysis.exact_lp import ExactNodeLP, _StandardForm, to_fraction

pytest.importorskip("highspy")


def _exact(rows, q) -> ExactLCP:
    return ExactLCP.from_rows(rows, q)


def test_one_variable_optimum_by_hand():
    """w = z - 1: max t with z - t >= 0, z + t = 1 is t = 1/2 at z = 1/2 (the solution z = 1 at
    norm (1 - t) / t = 1); with z = 0 fixed, -t >= 0 leaves t = 0: a Farkas ray (the cone is
    {0}: with the normalization an equality the LP would be infeasible)."""
    rows, q = [{0: Fraction(1)}], [Fraction(-1)]
    lp = ExactNodeLP(rows, q)
    free = lp.solve(set(), set())
    assert (free.t, free.z) == (Fraction(1, 2), [Fraction(1, 2)])
    assert _exact(rows, q).leaf_bound(free.y, set(), set()) == Fraction(1, 2)
    on_w = lp.solve(set(), {0})
    assert on_w.t == Fraction(1, 2)
    off = lp.solve({0}, set())
    assert off.t == 0 and _exact(rows, q).ray_ok(off.y, {0}, set())


def test_a_near_cancellation_lost_in_floats():
    """w1 = z1 - z2 - 1, w2 = -z1 + (1 + d) z2 + 1/3, d = 1/(3 2^55): the rounded data have
    d = 0 and no point with t > 0; exactly, the smallest norm is 2^57 + 1 (z2 >= 2/(3d) = 2^56,
    z1 >= z2 + 1), so t* = 1 / (2^57 + 2), at the solution z = (2^56 + 1, 2^56) scaled by t."""
    d = Fraction(1, 3 * 2**55)
    rows = [{0: Fraction(1), 1: Fraction(-1)}, {0: Fraction(-1), 1: 1 + d}]
    q = [Fraction(-1), Fraction(1, 3)]
    opt = ExactNodeLP(rows, q).solve(set(), set())
    assert opt.t == Fraction(1, 2**57 + 2)
    assert [v / opt.t for v in opt.z] == [2**56 + 1, 2**56]
    assert _exact(rows, q).leaf_bound(opt.y, set(), set()) == opt.t


def _brute_force(rows, q, zero_z, zero_w) -> Fraction | None:
    """max t of the node LP (``sum z + t <= 1``) by enumerating every basis of its standard
    form in Fractions."""
    n = len(q)
    cols = {("z", j): [rows[i].get(j, Fraction(0)) for i in range(n)] + [Fraction(1)] for j in range(n)}
    cols[("t", 0)] = list(q) + [Fraction(1)]
    for i in range(n + 1):  # the slacks, w_i and the normalization's
        cols[("w", i)] = [(-1 if i < n else 1) if r == i else Fraction(0) for r in range(n + 1)]
    keys = [k for k in cols if not (k[0] == "z" and k[1] in zero_z) and not (k[0] == "w" and k[1] in zero_w)]
    b = [Fraction(0)] * n + [Fraction(1)]
    best = None
    for size in range(1, n + 2):
        for chosen in itertools.combinations(keys, size):
            # least-squares free: solve the square system on `size` independent rows if consistent
            A = [[cols[k][r] for k in chosen] for r in range(n + 1)]
            x = _solve_consistent(A, b)
            if x is None or any(v < 0 for v in x):
                continue
            t = dict(zip(chosen, x)).get(("t", 0), Fraction(0))
            best = t if best is None or t > best else best
    return best


def _solve_consistent(A, b) -> list[Fraction] | None:
    """The unique x with A x = b (A tall, rational) by Gauss-Jordan elimination, else None."""
    rows, cols = len(A), len(A[0])
    aug = [list(A[r]) + [b[r]] for r in range(rows)]
    piv_row = 0
    for c in range(cols):
        p = next((r for r in range(piv_row, rows) if aug[r][c] != 0), None)
        if p is None:
            return None  # dependent columns: not a basis
        aug[piv_row], aug[p] = aug[p], aug[piv_row]
        aug[piv_row] = [v / aug[piv_row][c] for v in aug[piv_row]]
        for r in range(rows):
            if r != piv_row and aug[r][c] != 0:
                f = aug[r][c]
                aug[r] = [a - f * bb for a, bb in zip(aug[r], aug[piv_row])]
        piv_row += 1
    if any(aug[r][cols] != 0 for r in range(piv_row, rows)):
        return None  # inconsistent
    return [aug[r][cols] for r in range(cols)]


_entry = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@st.composite
def _nodes(draw):
    n = draw(st.integers(2, 3))
    rows = [{j: v for j in range(n) if (v := draw(_entry)) != 0} for _ in range(n)]
    q = [draw(_entry) for _ in range(n)]
    fixed = draw(st.lists(st.sampled_from(["free", "z", "w"]), min_size=n, max_size=n))
    zero_z = {i for i, f in enumerate(fixed) if f == "z"}
    zero_w = {i for i, f in enumerate(fixed) if f == "w"}
    return rows, q, zero_z, zero_w


@settings(max_examples=60, deadline=None)
@given(_nodes())
def test_random_nodes_match_vertex_enumeration(node):
    """The exact optimum agrees with enumerating every basis; its multipliers prove exactly t."""
    rows, q, zero_z, zero_w = node
    expected = _brute_force(rows, q, zero_z, zero_w)
    opt = ExactNodeLP(rows, q).solve(zero_z, zero_w)
    assert opt is not None and opt.t == expected
    # t = 1 is z = 0, a solution of norm 0: multipliers then prove nothing (leaf_bound None)
    assert _exact(rows, q).leaf_bound(opt.y, zero_z, zero_w) == (expected if expected < 1 else None)
    assert all(v >= 0 for v in opt.z) and (opt.t == 0 or sum(opt.z) + opt.t == 1)


@settings(max_examples=30, deadline=None)
@given(_nodes())
def test_exact_simplex_alone_matches_vertex_enumeration(node):
    """The exact simplex, used where the float correction LP fails, from a basis completed from
    nothing (phase 1 when it is infeasible) reaches the same optimum."""
    rows, q, zero_z, zero_w = node
    expected = _brute_force(rows, q, zero_z, zero_w)
    lp = _StandardForm(ExactNodeLP(rows, q), zero_z, zero_w)
    basis = lp.simplex(lp.complete([]), 200)
    xB, _, d = lp.check(basis)
    assert all(v >= 0 for v in xB) and all(v <= 0 for v in d)
    assert to_fraction(dict(zip(basis, xB)).get(lp.t, flint.fmpq(0))) == expected


@settings(max_examples=30, deadline=None)
@given(_nodes())
def test_refinement_cut_short_is_finished_by_the_exact_simplex(node):
    """With no refinement rounds, ``solve`` hands its start basis (t first, completed mod p)
    straight to the exact simplex and still reaches the optimum."""
    rows, q, zero_z, zero_w = node
    with mock.patch.object(exact_lp, "ROUNDS", 0):
        opt = ExactNodeLP(rows, q).solve(zero_z, zero_w, start=frozenset({("t", 0)}))
    assert opt is not None and opt.t == _brute_force(rows, q, zero_z, zero_w)


#: a 3-variable LCP (rows of M, q) for the warm-start tests
_THREE = (
    [
        {0: Fraction(2), 1: Fraction(-1)},
        {0: Fraction(-1), 1: Fraction(2), 2: Fraction(1, 3)},
        {2: Fraction(1)},
    ],
    [Fraction(-1), Fraction(-1), Fraction(1, 5)],
)


def test_warm_start_reaches_the_cold_optimum():
    """A child started from its parent's basis gets the optimum a cold solve gets."""
    rows, q = _THREE
    lp = ExactNodeLP(rows, q)
    parent = lp.solve(set(), set())
    for zero_z, zero_w in (({0}, set()), (set(), {0}), ({1}, {2})):
        warm = lp.solve(zero_z, zero_w, start=parent.basis)
        cold = lp.solve(zero_z, zero_w)
        assert warm.t == cold.t == _brute_force(rows, q, zero_z, zero_w)


def test_a_failing_warm_start_is_retried_cold():
    """With one round and no exact pivots, a poor start basis (t, the slacks and z_2) cannot
    reach the optimum; the cold retry from HiGHS's basis does."""
    rows, q = _THREE
    lp = ExactNodeLP(rows, q)
    start = frozenset({("t", 0), ("w", 0), ("w", 1), ("z", 2)})
    with mock.patch.object(exact_lp, "ROUNDS", 1), mock.patch.object(exact_lp, "SIMPLEX_PIVOTS", 0):
        std = _StandardForm(lp, set(), set())
        xB, _, d = std.check(std.complete([std.index[k] for k in start]))
        assert any(v < 0 for v in xB) or any(v > 0 for v in d)  # the start is not optimal
        opt = lp.solve(set(), set(), start=start)
    assert opt is not None and opt.t == _brute_force(rows, q, set(), set())
