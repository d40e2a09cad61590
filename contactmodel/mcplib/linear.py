"""The test problems of :mod:`contactmodel.mcplib` whose F is affine, each restated from its source."""

from __future__ import annotations

import numpy as np

from contactmodel._pyomo import Complementarity, complements, pe
from contactmodel.mcplib.problem import LibraryProblem


def _lcp(M: np.ndarray, q: np.ndarray) -> pe.ConcreteModel:
    """``0 <= x _|_ M x + q >= 0`` in Pyomo (x initialized to 0)."""
    n = len(q)
    m = pe.ConcreteModel()
    m.x = pe.Var(range(n), initialize=0.0)
    rows = [sum(float(M[i, j]) * m.x[j] for j in range(n) if M[i, j] != 0) + float(q[i]) for i in range(n)]
    m.lcp = Complementarity(range(n), rule=lambda m, i: complements(m.x[i] >= 0, rows[i] >= 0))
    return m


def munson1() -> pe.ConcreteModel:
    """A 3-variable LCP of the AMPL complementarity examples; its solution is x = (1, 0, 0)."""
    M = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0]])
    return _lcp(M, np.array([-1.0, 1.0, 1.0]))


MURTY_N = 16


def murty(n: int = MURTY_N) -> pe.ConcreteModel:
    """Murty's LCP: M upper triangular, 1 on the diagonal and 2 above it, q = -1; the solution is
    x = (0, ..., 0, 1), which Lemke's method reaches after 2^n - 1 pivots."""
    M = np.triu(np.full((n, n), 2.0), 1) + np.eye(n)
    return _lcp(M, -np.ones(n))


def fathi(n: int = MURTY_N) -> pe.ConcreteModel:
    """Fathi's LCP: M = L L^T with L unit lower triangular, 2 below the diagonal (so
    M_ii = 4(i - 1) + 1, M_ij = 4(min(i, j) - 1) + 2, 1-based), q = -1; solution x = (1, 0, ..., 0)."""
    L = np.tril(np.full((n, n), 2.0), -1) + np.eye(n)
    return _lcp(L @ L.T, -np.ones(n))


#: Dantzig's transport data: supplies, demands (cases) and distances (thousands of miles); freight
#: 90 dollars per case per thousand miles
TRANSPORT_SUPPLY = {"seattle": 350.0, "san-diego": 600.0}
TRANSPORT_DEMAND = {"new-york": 325.0, "chicago": 300.0, "topeka": 275.0}
TRANSPORT_DISTANCE = {
    ("seattle", "new-york"): 2.5,
    ("seattle", "chicago"): 1.7,
    ("seattle", "topeka"): 1.8,
    ("san-diego", "new-york"): 2.5,
    ("san-diego", "chicago"): 1.8,
    ("san-diego", "topeka"): 1.4,
}
TRANSPORT_FREIGHT = 90.0


def transmcp() -> pe.ConcreteModel:
    """Dantzig's transport problem as an MCP (shipments x, supply prices ps, demand prices pd):
    ``0 <= x_ij _|_ c_ij + ps_i - pd_j >= 0``, ``0 <= ps_i _|_ a_i - sum_j x_ij >= 0``,
    ``0 <= pd_j _|_ sum_i x_ij - b_j >= 0``, c_ij = freight * distance_ij / 1000."""
    m = pe.ConcreteModel()
    plants, markets = list(TRANSPORT_SUPPLY), list(TRANSPORT_DEMAND)
    m.x = pe.Var(plants, markets, initialize=0.0)
    m.ps = pe.Var(plants, initialize=0.0)
    m.pd = pe.Var(markets, initialize=0.0)
    cost = {k: TRANSPORT_FREIGHT * d / 1000.0 for k, d in TRANSPORT_DISTANCE.items()}
    m.profit = Complementarity(
        plants, markets, rule=lambda m, i, j: complements(m.x[i, j] >= 0, cost[i, j] + m.ps[i] - m.pd[j] >= 0)
    )
    m.supply = Complementarity(
        plants,
        rule=lambda m, i: complements(
            m.ps[i] >= 0, TRANSPORT_SUPPLY[i] - sum(m.x[i, j] for j in markets) >= 0
        ),
    )
    m.demand = Complementarity(
        markets,
        rule=lambda m, j: complements(
            m.pd[j] >= 0, sum(m.x[i, j] for i in plants) - TRANSPORT_DEMAND[j] >= 0
        ),
    )
    return m


def _qp_kkt(Q: np.ndarray, c: np.ndarray, A: np.ndarray, b: np.ndarray) -> pe.ConcreteModel:
    """The KKT LCP of ``min 1/2 x'Qx + c'x s.t. A x >= b, x >= 0``:
    ``0 <= x _|_ Q x + c - A' lam >= 0``, ``0 <= lam _|_ A x - b >= 0``."""
    n, k = len(c), len(b)
    m = pe.ConcreteModel()
    m.x = pe.Var(range(n), initialize=0.0)
    m.lam = pe.Var(range(k), initialize=0.0)

    def grad(i):
        return (
            sum(float(Q[i, j]) * m.x[j] for j in range(n) if Q[i, j] != 0)
            + float(c[i])
            - sum(float(A[r, i]) * m.lam[r] for r in range(k) if A[r, i] != 0)
        )

    rows = [sum(float(A[r, j]) * m.x[j] for j in range(n) if A[r, j] != 0) - float(b[r]) for r in range(k)]
    m.stat = Complementarity(range(n), rule=lambda m, i: complements(m.x[i] >= 0, grad(i) >= 0))
    m.feas = Complementarity(range(k), rule=lambda m, r: complements(m.lam[r] >= 0, rows[r] >= 0))
    return m


def hs35() -> pe.ConcreteModel:
    """Beale's QP (Hock and Schittkowski no. 35): ``min 9 - 8x1 - 6x2 - 4x3 + 2x1^2 + 2x2^2 + x3^2
    + 2x1x2 + 2x1x3`` s.t. ``x1 + x2 + 2x3 <= 3``, x >= 0; solution (4/3, 7/9, 4/9), lam = 2/9."""
    Q = np.array([[4.0, 2.0, 2.0], [2.0, 4.0, 0.0], [2.0, 0.0, 2.0]])
    return _qp_kkt(Q, np.array([-8.0, -6.0, -4.0]), np.array([[-1.0, -1.0, -2.0]]), np.array([-3.0]))


def hs76() -> pe.ConcreteModel:
    """Hock and Schittkowski no. 76: ``min x1^2 + x2^2/2 + x3^2 + x4^2/2 - x1x3 + x3x4 - x1 - 3x2 + x3
    - x4`` s.t. ``x1 + 2x2 + x3 + x4 <= 5``, ``3x1 + x2 + 2x3 - x4 <= 4``, ``x2 + 4x3 >= 1.5``, x >= 0;
    solution (3/11, 23/11, 0, 6/11) (f = -4.681818), multipliers (5/11, 0, 0)."""
    Q = np.array([[2.0, 0.0, -1.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, 0.0, 2.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    c = np.array([-1.0, -3.0, 1.0, -1.0])
    A = np.array([[-1.0, -2.0, -1.0, -1.0], [-3.0, -1.0, -2.0, 1.0], [0.0, 1.0, 4.0, 0.0]])
    return _qp_kkt(Q, c, A, np.array([-5.0, -4.0, 1.5]))


def bimatrix_rps() -> pe.ConcreteModel:
    """Rock-paper-scissors as Lemke and Howson's LCP of a bimatrix game with positive cost
    matrices C1 = 2 - A, C2 = 2 + A (A: player 1's payoff): ``0 <= x _|_ C1 y - 1 >= 0``,
    ``0 <= y _|_ C2' x - 1 >= 0``; the equilibrium x = y = (1, 1, 1)/6 (strategies x / sum x)."""
    A = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    C1, C2 = 2.0 - A, 2.0 + A
    M = np.block([[np.zeros((3, 3)), C1], [C2.T, np.zeros((3, 3))]])
    return _lcp(M, -np.ones(6))


TORSION_N = 10  # interior grid points per side
TORSION_C = 5.0  # the load constant


def torsion(n: int = TORSION_N, c: float = TORSION_C) -> pe.ConcreteModel:
    """Elastic-plastic torsion of a square bar: ``min 1/2 int |grad v|^2 - c int v`` over
    ``|v| <= dist(., boundary)`` on the unit square, v = 0 on the boundary; 5-point finite
    differences on an n x n interior grid (h = 1/(n + 1)) scaled by 1/h^2. The box MCP is its
    KKT system: ``-dist <= v _|_ (4 v_ij - sum of neighbours) - c h^2 <= dist``."""
    h = 1.0 / (n + 1)
    m = pe.ConcreteModel()
    cells = [(i, j) for i in range(n) for j in range(n)]
    m.v = pe.Var(cells, initialize=0.0)

    def dist(i, j):
        x, y = (i + 1) * h, (j + 1) * h
        return min(x, 1 - x, y, 1 - y)

    def row(m, i, j):
        neighbours = [m.v[a, b] for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)) if (a, b) in m.v]
        F = 4 * m.v[i, j] - sum(neighbours) - c * h * h
        return complements(pe.inequality(-dist(i, j), m.v[i, j], dist(i, j)), F)

    m.kkt = Complementarity(cells, rule=row)
    return m


_MURTY = (
    "K. G. Murty, 'Computational complexity of complementary pivot methods', "
    "Mathematical Programming Study 7, 1978"
)
_HS = "W. Hock and K. Schittkowski, 'Test examples for nonlinear programming codes', Springer, 1981"

PROBLEMS = (
    LibraryProblem(
        "munson1",
        "T. S. Munson, AMPL complementarity examples (munson1.mod); the syntax: M. C. Ferris, R. Fourer "
        "and D. M. Gay, 'Expressing complementarity problems in an algebraic modeling language and "
        "communicating them to solvers', SIAM Journal on Optimization 9, 1999",
        "LCP, 3 variables",
        munson1,
        starts=({"x": [0, 0, 0]},),
        solutions=({"x": [1, 0, 0]},),
        linear=True,
    ),
    LibraryProblem(
        "murty",
        _MURTY,
        f"LCP, {MURTY_N} variables, exponential for Lemke's method",
        murty,
        starts=({"x": [0] * MURTY_N}, {"x": [1] * MURTY_N}),
        solutions=({"x": [0] * (MURTY_N - 1) + [1]},),
        linear=True,
    ),
    LibraryProblem(
        "fathi",
        "Y. Fathi, 'Computational complexity of LCPs associated with positive definite symmetric "
        "matrices', Mathematical Programming 17, 1979",
        f"LCP, {MURTY_N} variables, symmetric positive definite M",
        fathi,
        starts=({"x": [0] * MURTY_N}, {"x": [1] * MURTY_N}),
        solutions=({"x": [1] + [0] * (MURTY_N - 1)},),
        linear=True,
    ),
    LibraryProblem(
        "transmcp",
        "G. B. Dantzig, 'Linear programming and extensions', Princeton University Press, 1963 (the "
        "data); the MCP statement: T. F. Rutherford, 'Extension of GAMS for complementarity problems "
        "arising in applied economic analysis', Journal of Economic Dynamics and Control 19, 1995",
        "LCP, 11 variables (6 shipments, 5 prices); the shipments are not unique (equal costs to New York)",
        transmcp,
        starts=({"x": [0] * 6, "ps": [0, 0], "pd": [0, 0, 0]},),
        solutions=({"x": [50, 300, 0, 275, 0, 275], "ps": [0, 0], "pd": [0.225, 0.153, 0.126]},),
        linear=True,
    ),
    LibraryProblem(
        "hs35",
        f"E. M. L. Beale, 'Numerical methods', in Nonlinear Programming (J. Abadie, ed.), 1967; "
        f"{_HS}, problem 35",
        "LCP (KKT of a convex QP), 3 variables and 1 multiplier",
        hs35,
        starts=({"x": [0.5, 0.5, 0.5], "lam": [0]},),
        solutions=({"x": [4 / 3, 7 / 9, 4 / 9], "lam": [2 / 9]},),
        linear=True,
    ),
    LibraryProblem(
        "hs76",
        f"{_HS}, problem 76",
        "LCP (KKT of a convex QP), 4 variables and 3 multipliers",
        hs76,
        starts=({"x": [0.5, 0.5, 0.5, 0.5], "lam": [0, 0, 0]},),
        solutions=({"x": [3 / 11, 23 / 11, 0, 6 / 11], "lam": [5 / 11, 0, 0]},),
        linear=True,
    ),
    LibraryProblem(
        "bimatrix_rps",
        "C. E. Lemke and J. T. Howson, 'Equilibrium points of bimatrix games', Journal of the Society "
        "for Industrial and Applied Mathematics 12, 1964",
        "LCP, 6 variables, the bimatrix game rock-paper-scissors",
        bimatrix_rps,
        starts=({"x": [0] * 6},),
        solutions=({"x": [1 / 6] * 6},),
        linear=True,
    ),
    LibraryProblem(
        "torsion",
        "R. Glowinski, 'Numerical methods for nonlinear variational problems', Springer, 1984; as a "
        "test problem: B. M. Averick, R. G. Carter, J. J. More and G.-L. Xue, 'The MINPACK-2 test "
        "problem collection', Argonne ANL/MCS-P153-0692, 1992 (the 5-point discretization stated here)",
        f"box MCP (KKT of a convex QP), {TORSION_N * TORSION_N} variables with two-sided bounds",
        torsion,
        starts=({"v": [0] * TORSION_N * TORSION_N},),
        linear=True,
        notes="no solution vector is published; tests/test_mcplib.py compares with a bound-constrained "
        "QP solver",
    ),
)
