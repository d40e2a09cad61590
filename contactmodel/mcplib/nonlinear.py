"""The nonlinear test problems of :mod:`contactmodel.mcplib`, each restated from its source.

Notation: an NCP ``0 <= x _|_ F(x) >= 0``; a KKT system of ``min f(x) s.t. c(x) >= 0`` is the MCP
``x _|_ grad f(x) - sum_k lam_k grad c_k(x)`` (x free or bounded) and ``0 <= lam _|_ c(x) >= 0``.
"""

from __future__ import annotations

import math

from contactmodel._pyomo import Complementarity, Modes, complements, differentiate, pe
from contactmodel.mcplib.problem import LibraryProblem


def _ncp(n: int, F) -> pe.ConcreteModel:
    """``0 <= x[i] _|_ F(x)[i] >= 0``, i = 0..n-1, x initialized to 0."""
    m = pe.ConcreteModel()
    m.x = pe.Var(range(n), initialize=0.0)
    rows = F(m.x)
    m.ncp = Complementarity(range(n), rule=lambda m, i: complements(m.x[i] >= 0, rows[i] >= 0))
    return m


def josephy() -> pe.ConcreteModel:
    """Kojima's NCP as Josephy (1979) states it: quadratic, 4 variables, one nondegenerate solution."""
    return _ncp(
        4,
        lambda x: [
            3 * x[0] ** 2 + 2 * x[0] * x[1] + 2 * x[1] ** 2 + x[2] + 3 * x[3] - 6,
            2 * x[0] ** 2 + x[0] + x[1] ** 2 + 3 * x[2] + 2 * x[3] - 2,
            3 * x[0] ** 2 + x[0] * x[1] + 2 * x[1] ** 2 + 2 * x[2] + 3 * x[3] - 1,
            x[0] ** 2 + 3 * x[1] ** 2 + 2 * x[2] + 3 * x[3] - 3,
        ],
    )


def kojshin() -> pe.ConcreteModel:
    """Kojima and Shindo's NCP: Josephy's with rows 2 and 3 changed; two solutions, one degenerate."""
    return _ncp(
        4,
        lambda x: [
            3 * x[0] ** 2 + 2 * x[0] * x[1] + 2 * x[1] ** 2 + x[2] + 3 * x[3] - 6,
            2 * x[0] ** 2 + x[0] + x[1] ** 2 + 10 * x[2] + 2 * x[3] - 2,
            3 * x[0] ** 2 + x[0] * x[1] + 2 * x[1] ** 2 + 2 * x[2] + 9 * x[3] - 9,
            x[0] ** 2 + 3 * x[1] ** 2 + 2 * x[2] + 3 * x[3] - 3,
        ],
    )


def billups() -> pe.ConcreteModel:
    """``0 <= x _|_ (x - 1)^2 - 1.01 >= 0``: from x = 0 the merit functions lead to the local
    minimizer x = 1 of |F|, which is no solution; the solution is x = 1 + sqrt(1.01)."""
    return _ncp(1, lambda x: [(x[0] - 1) ** 2 - 1.01])


#: Nash-Cournot data of Murphy, Sherali and Soyster (1982): unit costs, cost scale, cost exponents
NASH_C = (10.0, 8.0, 6.0, 4.0, 2.0)
NASH_L = (5.0, 5.0, 5.0, 5.0, 5.0)
NASH_BETA = (1.2, 1.1, 1.0, 0.9, 0.8)
NASH_GAMMA = 1.1  # demand elasticity: price p(Q) = 5000^(1/gamma) Q^(-1/gamma)


def nash5() -> pe.ConcreteModel:
    """Five firms' Cournot equilibrium: firm i's marginal profit condition
    ``0 <= q_i _|_ c_i + (L_i q_i)^(1/beta_i) - p(Q) - q_i p'(Q) >= 0``, Q = sum q."""
    g = NASH_GAMMA
    a = 5000.0 ** (1.0 / g)

    def F(q):
        Q = sum(q[i] for i in range(5))
        price = a * Q ** (-1.0 / g)
        slope = -(a / g) * Q ** (-1.0 / g - 1.0)  # p'(Q)
        return [
            NASH_C[i] + (NASH_L[i] * q[i]) ** (1.0 / NASH_BETA[i]) - price - q[i] * slope for i in range(5)
        ]

    return _ncp(5, F)


def mathiesen_mod() -> pe.ConcreteModel:
    """A modified version of Mathiesen's Walrasian equilibrium model (activity x1, prices x2..x4),
    as stated by Pang and Gabriel (1993): solutions (t, 0, 0, 0), 0 <= t <= 3, among others."""
    return _ncp(
        4,
        lambda x: [
            -x[1] + x[2] + x[3],
            x[0] - (4.5 * x[2] + 2.7 * x[3]) / (x[1] + 1),
            5 - x[0] - (0.5 * x[2] + 0.3 * x[3]) / (x[2] + 1),
            3 - x[0],
        ],
    )


def _kkt(
    n: int, m_rows: int, f, c, bounds=(None, None), equalities: tuple[int, ...] = ()
) -> pe.ConcreteModel:
    """The KKT MCP of ``min f(x) s.t. c_k(x) >= 0`` (``c_k(x) = 0`` for k in ``equalities``, its
    multiplier free), x in ``bounds``: ``x _|_ grad f - sum_k lam_k grad c_k`` and
    ``lam_k _|_ c_k(x)``. Gradients by Pyomo's symbolic differentiation."""
    m = pe.ConcreteModel()
    m.x = pe.Var(range(n), bounds=bounds, initialize=0.0 if bounds[0] is None else bounds[0])
    m.lam = pe.Var(range(m_rows), initialize=0.0)
    xs = [m.x[i] for i in range(n)]
    cons = c(m.x)
    grad_f = differentiate(f(m.x), wrt_list=xs, mode=Modes.reverse_symbolic)
    grad_c = [differentiate(ck, wrt_list=xs, mode=Modes.reverse_symbolic) for ck in cons]
    stationarity = [grad_f[j] - sum(m.lam[k] * grad_c[k][j] for k in range(m_rows)) for j in range(n)]
    lo, hi = bounds
    if lo is None and hi is None:
        m.stat = Complementarity(range(n), rule=lambda m, j: complements(stationarity[j] == 0, m.x[j]))
    else:
        m.stat = Complementarity(
            range(n), rule=lambda m, j: complements(pe.inequality(lo, m.x[j], hi), stationarity[j])
        )

    def feasibility(m, k):
        if k in equalities:
            return complements(cons[k] == 0, m.lam[k])
        return complements(m.lam[k] >= 0, cons[k] >= 0)

    m.feas = Complementarity(range(m_rows), rule=feasibility)
    return m


def hs43() -> pe.ConcreteModel:
    """Rosen and Suzuki's problem (Hock and Schittkowski no. 43): 4 free variables, 3 quadratic
    inequalities; solution x = (0, 1, 2, -1), multipliers (1, 0, 2), f = -44."""
    return _kkt(
        4,
        3,
        lambda x: (
            x[0] ** 2 + x[1] ** 2 + 2 * x[2] ** 2 + x[3] ** 2 - 5 * x[0] - 5 * x[1] - 21 * x[2] + 7 * x[3]
        ),
        lambda x: [
            8 - x[0] ** 2 - x[1] ** 2 - x[2] ** 2 - x[3] ** 2 - x[0] + x[1] - x[2] + x[3],
            10 - x[0] ** 2 - 2 * x[1] ** 2 - x[2] ** 2 - 2 * x[3] ** 2 + x[0] + x[3],
            5 - 2 * x[0] ** 2 - x[1] ** 2 - x[2] ** 2 - 2 * x[0] + x[1] + x[3],
        ],
    )


def hs71() -> pe.ConcreteModel:
    """Hock and Schittkowski no. 71: ``min x1 x4 (x1 + x2 + x3) + x3`` s.t. ``x1 x2 x3 x4 >= 25``,
    ``sum x_i^2 = 40``, ``1 <= x <= 5``; solution x = (1, 4.7429994, 3.8211503, 1.3794082)."""
    return _kkt(
        4,
        2,
        lambda x: x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2],
        lambda x: [x[0] * x[1] * x[2] * x[3] - 25, x[0] ** 2 + x[1] ** 2 + x[2] ** 2 + x[3] ** 2 - 40],
        bounds=(1.0, 5.0),
        equalities=(1,),
    )


_JOSEPHY_SOURCE = (
    "N. H. Josephy, 'Newton's method for generalized equations', Technical Summary Report 1965, "
    "Mathematics Research Center, University of Wisconsin, 1979 (MCPLIB 'josephy': S. P. Dirkse and "
    "M. C. Ferris, 'MCPLIB: a collection of nonlinear mixed complementarity problems', 1995)"
)
_HS = "W. Hock and K. Schittkowski, 'Test examples for nonlinear programming codes', Springer, 1981"
_STARTS_NOTE = "starting points used here (MCPLIB's own are not restated)"

PROBLEMS = (
    LibraryProblem(
        "josephy",
        _JOSEPHY_SOURCE,
        "NCP, 4 variables, quadratic F",
        josephy,
        starts=({"x": [0, 0, 0, 0]}, {"x": [1, 1, 1, 1]}, {"x": [10, 10, 10, 10]}),
        solutions=({"x": [math.sqrt(6) / 2, 0, 0, 0.5]},),
        notes=_STARTS_NOTE,
    ),
    LibraryProblem(
        "kojshin",
        "M. Kojima and S. Shindo, 'Extensions of Newton and quasi-Newton methods to systems of PC^1 "
        "equations', Journal of the Operations Research Society of Japan 29, 1986 (MCPLIB 'kojshin')",
        "NCP, 4 variables, quadratic F, a degenerate solution",
        kojshin,
        starts=({"x": [0, 0, 0, 0]}, {"x": [1, 1, 1, 1]}, {"x": [10, 10, 10, 10]}),
        solutions=({"x": [math.sqrt(6) / 2, 0, 0, 0.5]}, {"x": [1, 0, 3, 0]}),
        notes=_STARTS_NOTE,
    ),
    LibraryProblem(
        "billups",
        "S. C. Billups, 'Algorithms for complementarity problems and generalized equations', PhD "
        "thesis, University of Wisconsin-Madison, 1995 (MCPLIB 'billups')",
        "NCP, 1 variable; x0 = 0 leads Newton methods to a local minimizer of the merit function",
        billups,
        starts=({"x": [0.0]},),
        solutions=({"x": [1 + math.sqrt(1.01)]},),
    ),
    LibraryProblem(
        "nash5",
        "F. H. Murphy, H. D. Sherali and A. L. Soyster, 'A mathematical programming approach for "
        "determining oligopolistic market equilibrium', Mathematical Programming 24, 1982; P. T. Harker, "
        "'A variational inequality approach for the determination of oligopolistic market "
        "equilibrium', Mathematical Programming 30, 1984",
        "NCP, 5 firms' Nash-Cournot equilibrium, fractional powers",
        nash5,
        starts=({"x": [10] * 5}, {"x": [1] * 5}),
        solutions=({"x": [15.4293, 12.4986, 9.6635, 7.1651, 5.1326]},),
        solution_tol=1e-3,  # the solution is published to 4 decimals
        notes=_STARTS_NOTE,
    ),
    LibraryProblem(
        "mathiesen_mod",
        "J.-S. Pang and S. A. Gabriel, 'NE/SQP: a robust algorithm for the nonlinear complementarity "
        "problem', Mathematical Programming 60, 1993 (after L. Mathiesen, 'An algorithm based on a "
        "sequence of linear complementarity problems applied to a Walrasian equilibrium model: an "
        "example', Mathematical Programming 37, 1987)",
        "NCP, 4 variables, rational F, a continuum of solutions",
        mathiesen_mod,
        starts=({"x": [1, 1, 1, 1]}, {"x": [0, 0, 0, 0]}),
        solutions=({"x": [0, 0, 0, 0]}, {"x": [3, 0, 0, 0]}),
        notes=_STARTS_NOTE,
    ),
    LibraryProblem(
        "hs43",
        f"J. B. Rosen and S. Suzuki, 'Construction of nonlinear programming test problems', "
        f"Communications of the ACM 8, 1965; {_HS}, problem 43",
        "KKT MCP, 4 free variables and 3 multipliers, quadratic",
        hs43,
        starts=({"x": [0, 0, 0, 0], "lam": [0, 0, 0]},),
        solutions=({"x": [0, 1, 2, -1], "lam": [1, 0, 2]},),
    ),
    LibraryProblem(
        "hs71",
        f"{_HS}, problem 71",
        "KKT MCP, 4 variables in [1, 5], an inequality and an equation (free multiplier), quartic",
        hs71,
        starts=({"x": [1, 5, 5, 1], "lam": [0, 0]},),
        # x as published (7 digits); the multipliers computed here from stationarity at that x
        solutions=({"x": [1, 4.7429994, 3.8211503, 1.3794082], "lam": [0.55229365, -0.16146855]},),
        solution_tol=2e-6,
    ),
)
