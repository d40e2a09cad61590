"""One rolling Coulomb contact: every solution, exactly (:func:`single_contact_modes`).

With W = A[(n, t, o)] (3 x 3) and b (3,) the contact's rows of a = A c + b (a torsion row, if
any, carries no force), the modes are disjoint and exhaustive:

* **separate**: c = 0 with b_n >= 0;
* **stick**: c_n > 0 and a = 0: c = -W^-1 b inside the cone (|c_T| <= mu c_n);
* **slide**: c_n > 0, a_n = 0, a_T = s u with s > 0, c = c_n g, g = (1, -mu u),
  u = (cos th, sin th). Sliding needs ``c_n W g + b = (0, s u)``: three equations in (c_n, s) for
  a given th, solvable iff ``f(th) = det[W g, (0, u), b] = 0``, a trigonometric polynomial of
  degree 2 (no constant term). With tau = tan(th / 2) and ``(1 + tau^2)^2`` cleared it is a
  polynomial P of degree <= 4 (th = pi, tau = infinity, is checked on its own). Then
  ``c_n = -b_n / (W g)_n`` and the sign of s is ``sign((W g)_n) sign(R(tau))`` with
  ``R = (1 - tau^2)(b_t V_n - b_n V_t) + 2 tau (b_o V_n - b_n V_o)``, V = (1 + tau^2) W g.

Everything runs in exact rational arithmetic on the floats' values (sympy's ``Poly`` over QQ):
P's real roots are isolated (``Poly.intervals``), and the signs of V_n and R at each root are
read on an isolating interval refined until they have no root in it (``Poly.count_roots``). A
root where V_n or R vanishes (or b_n = 0, or W singular, or P identically 0) is degenerate:
nothing is claimed.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import sympy

from contactmodel.formulation import Problem

_TAU = sympy.Symbol("tau")


def _sign(v) -> int:
    return int(bool(v > 0)) - int(bool(v < 0))


def _sign_at_root(q: sympy.Poly, lo, hi, r: sympy.Poly) -> int | None:
    """The sign of r at q's only root in [lo, hi] (q square-free); None where r vanishes there."""
    if lo == hi:
        return _sign(r.eval(lo)) or None
    common = sympy.gcd(q, r)
    if common.degree() > 0 and common.count_roots(lo, hi) > 0:
        return None
    while r.count_roots(lo, hi) > 0:
        lo, hi = q.refine_root(lo, hi, eps=(hi - lo) / 4)
    return _sign(r.eval(lo))


def cone_contact_modes(W: np.ndarray, b: np.ndarray, mu: float) -> list[tuple[str, np.ndarray]] | None:
    """Every solution ``(mode, c)`` of one rolling contact with a Coulomb cone of coefficient mu,
    ``a = W c + b`` over (n, t, o), c (3,) in N; None when a mode is degenerate (see the module
    docstring)."""
    Wq = sympy.Matrix(3, 3, [sympy.Rational(float(v)) for v in np.asarray(W).ravel()])
    bn, bt, bo = (sympy.Rational(float(v)) for v in b)
    m = sympy.Rational(float(mu))
    found: list[tuple[str, np.ndarray]] = []
    if bn >= 0:
        found.append(("separate", np.zeros(3)))
    if Wq.det() == 0:
        return None
    c = -Wq.LUsolve(sympy.Matrix([bn, bt, bo]))
    if c[0] > 0 and c[1] ** 2 + c[2] ** 2 <= m**2 * c[0] ** 2:
        found.append(("stick", np.array([float(v) for v in c])))
    if bn == 0:
        return None
    tau = _TAU
    cc, ss = 1 - tau**2, 2 * tau  # (1 + tau^2) (cos th, sin th)
    V = [
        sympy.Poly((1 + tau**2) * Wq[i, 0] - m * (cc * Wq[i, 1] + ss * Wq[i, 2]), tau, domain="QQ")
        for i in range(3)
    ]
    P = cc * (V[0] * bo - V[2] * bn) - ss * (V[0] * bt - V[1] * bn)
    R = cc * (V[0] * bt - V[1] * bn) + ss * (V[0] * bo - V[2] * bn)
    if P.is_zero:
        return None
    A = np.asarray(W, dtype=float)
    if P.degree() > 0:
        q = P.sqf_part()
        for (lo, hi), _ in q.intervals():
            sv, sr = _sign_at_root(q, lo, hi, V[0]), _sign_at_root(q, lo, hi, R)
            if sv is None or sr is None:
                return None
            if sv == -_sign(bn) and sv * sr > 0:  # c_n = -b_n / (W g)_n > 0 and s > 0
                if lo != hi:
                    lo, hi = q.refine_root(lo, hi, eps=sympy.Rational(1, 2**60))
                t = float((lo + hi) / 2)
                found.append(("slide", _slide_force(A, b, mu, np.array([1 - t * t, 2 * t]) / (1 + t * t))))
    if P.degree() < 4:  # P's tau^4 coefficient is f(pi): th = pi is a root
        gn = Wq[0, 0] + m * Wq[0, 1]
        if gn == 0:
            return None
        cn = -bn / gn
        s = -(cn * (Wq[1, 0] + m * Wq[1, 1]) + bt)
        if s == 0:
            return None
        if cn > 0 and s > 0:
            found.append(("slide", _slide_force(A, b, mu, np.array([-1.0, 0.0]))))
    return found


def _slide_force(W: np.ndarray, b: np.ndarray, mu: float, u: np.ndarray) -> np.ndarray:
    g = np.array([1.0, -mu * u[0], -mu * u[1]])
    return -b[0] / float((W @ g)[0]) * g


def single_contact_modes(problem: Problem) -> dict | None:
    """Every solution of a problem with one contact, rolling, under a Coulomb cone, exactly:
    ``{"count", "forces": [(mode, c (3,))], "contact", "rows"}`` over the contact's (n, t, o), or
    None when the problem is not of that form or a mode is degenerate (:func:`cone_contact_modes`)."""
    from contactmodel.friction.cone import CoulombCone

    if len(problem.contact_names) != 1:
        return None
    name = problem.contact_names[0]
    law, asm = problem.laws[name], problem.assembly
    if not isinstance(law, CoulombCone) or name in asm.sliding:
        return None
    rows = [asm.row(name, ax) for ax in "nto"]
    W = sp.csr_matrix(asm.A_sparse)[rows][:, rows].toarray()
    found = cone_contact_modes(W, np.asarray(asm.b, dtype=float)[rows], float(law.mu))
    if found is None:
        return None
    return {"count": len(found), "forces": found, "contact": name, "rows": rows}
