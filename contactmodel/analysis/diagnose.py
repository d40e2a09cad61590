"""Existence and uniqueness diagnostics of a contact problem (``cm.diagnose``).

- ranks of G and of the system Jacobian (Trinkle et al. (1997) (22): 𝒥 = G_F^T, free coordinates),
  definiteness of A = G_F M_FF^-1 G_F^T;
- matrix classes of the LCP matrix when the problem compiles to an LCP (P, P0, copositive,
  copositive-plus, row/column sufficient; :mod:`contactmodel.analysis.matrices`);
- Trinkle et al. (1997) Theorem 1 (a) and Trinkle and Pang (1997) Theorem 1 (B): with no sliding
  contact, a solution exists if b^T c >= 0 for every c in the friction sets with G_F^T c = 0
  (Trinkle et al. (1997) (36) is the same quantity: on the null space of G_F^T, b^T c reduces to
  the G_dot nu terms). Checked by an LP,
  min b^T c over {c in F, A c = 0, sum c_n = 1}; round friction sets are replaced by
  circumscribed polygons (a nonnegative minimum is then a proof) and inscribed ones (a negative
  minimum is then a disproof);
- Trinkle and Pang (1997) Theorem 1 (A) / Trinkle et al. (1997) Theorem 1 (b), (c): A positive
  definite (𝒥 of full column rank) gives existence for small friction at sliding contacts,
  uniqueness for small friction everywhere (the bound is not computed);
- Andreani et al. (2002) Theorem 1 at a returned point: the Schur complement J/g_v of the free rows in the
  MCP Jacobian must be a row-sufficient S-matrix for a stationary point of MNCPOpt to solve
  the MNCP.

References:

- J. C. Trinkle, J.-S. Pang, S. Sudarsky and G. Lo, "On dynamic multi-rigid-body contact problems with
  Coulomb friction", ZAMM 77(4), 1997.
- R. Andreani, A. Friedlander, M. P. Mello and S. A. Santos, "Complementarity and equivalent formulations
  via nonlinear programming: numerical results on multi-rigid-body contact problems with Coulomb friction",
  2002.
- J. C. Trinkle and J.-S. Pang, "Dynamic multi-rigid-body systems with concurrent distributed contacts",
  ICRA 1997.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linprog

from contactmodel.analysis import matrices as mx
from contactmodel.analysis.theorem1 import theorem1
from contactmodel.analysis.verify import require_problem, solution_point
from contactmodel.assembly import Assembly
from contactmodel.errors import UnknownNameError
from contactmodel.formulation import Problem
from contactmodel.reductions import ConeFormSwitch


@dataclass
class Condition:
    """A theorem's hypothesis: ``holds`` True/False, or None when undetermined/not applicable."""

    name: str
    applicable: bool
    holds: bool | None
    value: float | None = None
    detail: str = ""


@dataclass
class Diagnosis:
    """Result of :func:`diagnose`; :meth:`summary` says what it implies in plain words."""

    contacts: int
    rows: int  # m: contact rows (n, t, o[, r] per contact)
    coordinates: int  # free generalized coordinates
    rank_g: int | None
    rank_jacobian: int
    A_eigenvalues: tuple[float, float]  # (min, max)
    A_definiteness: str
    sliding: list[str]
    lcp_size: int | None = None
    lcp: dict[str, mx.Verdict] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)
    schur: dict[str, object] = field(default_factory=dict)

    @property
    def full_rank(self) -> bool:
        return self.rank_jacobian == self.rows

    def condition(self, name: str) -> Condition:
        for c in self.conditions:
            if c.name == name:
                return c
        known = [c.name for c in self.conditions]
        raise UnknownNameError(f"Diagnosis.condition: no condition named {name!r}; use one of {known}")

    def summary(self) -> str:
        lines = [
            f"{self.contacts} contacts, {self.rows} contact rows, {self.coordinates} free coordinates; "
            f"rank G = {self.rank_g if self.rank_g is not None else 'n/a'}, rank of the system Jacobian = "
            f"{self.rank_jacobian} ({'full column rank' if self.full_rank else 'rank deficient'})",
            f"A is {self.A_definiteness} "
            f"(eigenvalues in [{self.A_eigenvalues[0]:.3g}, {self.A_eigenvalues[1]:.3g}])",
        ]
        if self.lcp_size is not None:
            lines.append(f"LCP of size {self.lcp_size}:")
            for name, v in self.lcp.items():
                lines.append(f"  {name}: {v.text()}")
        for c in self.conditions:
            state = (
                "n/a" if not c.applicable else {True: "holds", False: "fails", None: "undetermined"}[c.holds]
            )
            val = f" (value {c.value:.4g})" if c.value is not None else ""
            lines.append(f"{c.name}: {state}{val}. {c.detail}")
        if self.schur:
            text = self.schur.get("text", "")
            lines.append(f"Andreani et al. (2002) Theorem 1 at the returned point: {text}")
        lines.append("In plain words: " + self._meaning())
        return "\n".join(lines)

    def _meaning(self) -> str:
        out = []
        p = self.lcp.get("P")
        if p is not None and p.value:
            out.append("the LCP matrix is a P-matrix, so this LCP has exactly one solution for every b")
        elif p is not None:
            out.append("the LCP matrix is not a P-matrix: the solution may not be unique")
        ex = [c for c in self.conditions if c.name.endswith("(existence)") and c.applicable and c.holds]
        if ex:
            out.append(f"a solution exists ({ex[0].name.split(' (')[0]})")
        elif not self.sliding:
            out.append("existence is not certified by the all-rolling theorems")
        if self.sliding:
            if self.full_rank:
                out.append(
                    "with sliding contacts a solution is guaranteed only for small enough friction there "
                    "(the Jacobian has full column rank, so Trinkle et al. (1997) Theorem 1 (b) applies)"
                )
            else:
                out.append(
                    "with sliding contacts and a rank-deficient Jacobian no theorem here guarantees "
                    "a solution"
                )
        if not self.full_rank:
            out.append("the contact forces are not unique (A is singular), even where the accelerations are")
        if self.schur and self.schur.get("holds") is False:
            out.append(
                "the returned point does not meet the sufficient condition of Andreani et al. (2002) "
                "(check it with cm.verify)"
            )
        return "; ".join(out) + "."


def _min_b_on_null_cone(problem: Problem, outer: bool) -> tuple[float | None, str]:
    """min b^T c over {c in F (polyhedral version), A c = 0, sum c_n = 1}; None if infeasible."""
    asm = problem.assembly
    A = asm.A
    b = np.asarray(asm.b, dtype=float)
    m = b.size
    U, s, Vt = np.linalg.svd(A)
    tol = 1e-10 * max(1.0, s.max(initial=0.0))
    N = Vt[s <= tol].T if s.size else np.eye(m)
    if N.shape[1] == 0:
        return None, "the null space of the system Jacobian is {0}"
    rows = []
    for name, law in problem.laws.items():
        idx = list(asm.contact_rows[name].values())
        for r in law.friction_set().rows(len(idx), outer):
            full = np.zeros(m)
            full[idx] = r
            rows.append(full)
    G = np.array(rows) @ N
    normal = np.zeros(m)
    normal[[asm.contact_rows[n]["n"] for n in problem.contact_names]] = 1.0
    res = linprog(
        b @ N,
        A_ub=G,
        b_ub=np.zeros(len(G)),
        A_eq=(normal @ N)[None, :],
        b_eq=[1.0],
        bounds=[(None, None)] * N.shape[1],
        method="highs",
    )
    if res.status == 2:
        return None, "no nonzero friction-feasible force lies in the null space (F_R = {0})"
    if res.status != 0:
        return None, f"LP status {res.status}: {res.message}"
    return float(res.fun), f"null space of dimension {N.shape[1]}"


def _existence_conditions(problem: Problem, d: Diagnosis) -> None:
    round_laws = any(law.friction_set().round for law in problem.laws.values())
    value, detail = _min_b_on_null_cone(problem, outer=True)
    if value is None:
        holds: bool | None = True
    elif value >= -1e-9 * max(1.0, float(np.abs(problem.assembly.b).max(initial=0.0))):
        holds = True
    elif not round_laws:
        holds = False
    else:
        inner, _ = _min_b_on_null_cone(problem, outer=False)
        holds = False if inner is not None and inner < 0 else None
    text = f"min b^T c over F_R: {detail}" + (
        "; round friction sets approximated by 16-gons" if round_laws else ""
    )
    rolling = not d.sliding
    names = (
        "Trinkle et al. (1997) Theorem 1 (a) (existence)",
        "Trinkle and Pang (1997) Theorem 1 (B) (existence)",
    )
    for name in names:
        d.conditions.append(
            Condition(
                name,
                rolling,
                holds if rolling else None,
                value,
                text if rolling else "there are sliding contacts",
            )
        )
    pd = d.A_eigenvalues[0] > 1e-10 * max(1.0, d.A_eigenvalues[1])
    d.conditions.append(
        Condition(
            "Trinkle and Pang (1997) Theorem 1 (A) / Trinkle et al. (1997) Theorem 1 (b), (c)",
            True,
            pd,
            d.A_eigenvalues[0],
            "A positive definite: a solution exists when the friction at sliding contacts is small "
            "enough, and is unique when all friction is small enough (bound not computed)"
            if pd
            else "A is singular (the Jacobian lacks full column rank): these results do not apply",
        )
    )


def schur_condition(problem: Problem, x) -> dict[str, object]:
    """Andreani et al. (2002) Theorem 1 at the MCP point x: J/g_v row sufficient and an S-matrix
    (:func:`contactmodel.analysis.theorem1.theorem1`; ``holds`` leaves stationarity out)."""
    mcp = problem.compile().mcp
    t = theorem1(mcp, np.asarray(x, dtype=float))
    out: dict[str, object] = {"u": int(np.isfinite(mcp.lb).sum()), "v": int(np.isinf(mcp.lb).sum())}
    if out["v"]:
        out["cond_g_v"] = t.g_v_condition
    if t.schur is None:
        text = f"g_v is singular (condition {t.g_v_condition:.2e}): no Schur complement"
        out.update(holds=False, text=text)
        return out
    out.update(row_sufficient=t.row_sufficient, s_matrix=t.s_matrix, holds=t.schur_holds)
    out["text"] = (
        f"Schur complement of order {t.schur.shape[0]}: row sufficient {t.row_sufficient.text()}, "
        f"S-matrix {t.s_matrix.text()} -> "
        + ("the stationary point solves the MNCP" if out["holds"] else "not guaranteed")
    )
    return out


def diagnose(problem: Problem, solution=None, lcp_checks: bool = True) -> Diagnosis:
    """Diagnostics of ``problem`` (see module docstring); ``solution`` (a Solution or MCP
    point) is used for Andreani et al.'s (2002) Schur-complement condition (default: solved with newton)."""
    problem = require_problem(problem, "cm.diagnose")
    if solution is not None:
        solution = solution_point(solution, problem, "cm.diagnose")
    asm = problem.assembly
    A = asm.A
    eig = np.linalg.eigvalsh(A) if A.size else np.zeros(1)
    lo, hi = float(eig.min()), float(eig.max())
    tol = 1e-10 * max(1.0, hi)
    rank_A = int(np.sum(eig > tol))
    if isinstance(asm, Assembly):
        G = asm.G.toarray()
        rank_g = int(np.linalg.matrix_rank(G)) if G.size else 0
        rank_J = int(np.linalg.matrix_rank(G[:, asm.free])) if G.size else 0
        coords = int(asm.free.sum())
    else:
        rank_g, rank_J, coords = None, rank_A, rank_A
    if lo > tol:
        definiteness = "positive definite"
    elif lo >= -tol:
        definiteness = f"positive semidefinite and singular (rank {rank_A} of {len(eig)})"
    else:
        definiteness = "indefinite (not a valid A = G M^-1 G^T)"
    d = Diagnosis(
        contacts=len(problem.contact_names),
        rows=len(asm.rows),
        coordinates=coords,
        rank_g=rank_g,
        rank_jacobian=rank_J,
        A_eigenvalues=(lo, hi),
        A_definiteness=definiteness,
        sliding=list(asm.sliding),
    )
    mcp = problem.compile().mcp
    if lcp_checks and mcp.is_lcp:
        M = mcp.M.toarray()
        d.lcp_size = M.shape[0]
        d.lcp = {
            "P": mx.is_p_matrix(M),
            "P0": mx.is_p0_matrix(M),
            "copositive": mx.is_copositive(M),
            "copositive-plus": mx.is_copositive_plus(M),
            "row sufficient": mx.is_row_sufficient(M),
        }
    _existence_conditions(problem, d)
    if solution is None:
        from contactmodel.solve import solve

        solution = solve(problem, solver="newton")
    x = getattr(solution, "x", solution)
    if x is not None:
        d.schur = schur_condition(*_in_mncp_form(problem, x))
    return d


def _in_mncp_form(problem: Problem, x) -> tuple[Problem, np.ndarray]:
    """Andreani et al.'s Theorem 1 is about the MNCP: with automatic-form CoulombCone contacts, the
    problem in that form and the point ``x`` of ``problem`` carried over to its variables."""
    swap = ConeFormSwitch("mncp", automatic_only=True)
    mncp = swap.apply(problem)
    return (mncp, swap.forward(x)) if swap.changed else (problem, x)
