"""Solver "path": the PATH solver (Ferris, Munson, Dirkse), through GAMSPy or Pyomo + pathampl.

Both backends rebuild F as an explicit polynomial, so they take MCPs whose F is affine
(``mcp.M``, ``mcp.q`` set, e.g. every LCP) or quadratic (e.g. the Coulomb-cone MNCP of Trinkle et al. (1997)):
F_i(x) = q_i + (A x)_i + sum_{j <= k} Q_ijk x_j x_k, with A = J(0) and Q from ``mcp.hess``. The
quadratic model is checked against F at a random point; any other F is refused with a
:class:`SolverError`. Bounds may be any box (lb = -inf and ub = +inf give a free variable).

- backend "gamspy": PATH bundled with GAMSPy (``pip install gamspy``, or the ``path`` extra).
  Its free demo license refuses nonlinear models, MCPs included, with more than 1000 rows or
  columns; larger MCPs are refused here before any call (``size_limit``), and a license refusal
  at solve time gives the same error.
- backend "pyomo": Pyomo's ``SolverFactory("path")``, which needs a ``pathampl`` executable on
  PATH; the MCP is written with ``pyomo.mpec`` complementarity conditions. A row with two finite
  bounds is written as F(x) - w + v = 0 with x free, 0 <= w _|_ x - lb >= 0 and
  0 <= v _|_ ub - x >= 0 (Pyomo's ``mpec.nl`` transformation fails on ``lb <= x <= ub _|_ F``).
- backend "auto": "gamspy" when GAMSPy runs (installed, with a license GAMS accepts) and the MCP
  fits ``size_limit``, else "pyomo" when ``pathampl`` is found.

GAMS checks its license at every job. The demo license bundled with GAMSPy is time-limited (the one
in gamspy_base 54.6.1 expired on 2026-11-26); an expired, missing or unreadable license is a
:class:`SolverError` quoting GAMS's own words and :func:`ready` reports it (``contactmodel solvers``
prints it). A license of one's own is used by GAMSPy when installed with
``gamspy install license <access code or path/to/gamslice.txt>``, or named per process with the
environment variable ``GAMSPY_LICENSE_PATH=/path/to/gamslice.txt``; ``gamspy show license`` shows
the one in use.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import re
import shutil
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from contactmodel.constants import Choice
from contactmodel.errors import OptionError, SolverError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult


class PathBackend(Choice):
    """``PathOptions.backend`` (see the module docstring)."""

    AUTO = "auto"
    GAMSPY = "gamspy"
    PYOMO = "pyomo"


#: the backends' names
BACKENDS: tuple[str, ...] = PathBackend.values()
LICENSE_LIMIT = 1000


@dataclass
class PathOptions(Options):
    """Options of the "path" solver.

    backend: "auto", "gamspy" or "pyomo" (see the module docstring).
    tol: PATH's ``convergence_tolerance`` (its merit-function norm; PATH's default is 1e-6).
    max_iter: iteration limit (GAMS ``iterlim``; pathampl ``cumulative_iteration_limit``).
    time_limit: seconds (GAMS ``reslim``; pathampl ``time_limit``), None for the default.
    size_limit: largest MCP sent to the "gamspy" backend (the demo license's 1000 rows or
        columns); None with a full GAMS license.
    native: further PATH options (e.g. {"crash_method": "none"}), passed unchanged; they
        override the fields above.
    """

    backend: PathBackend = PathBackend.AUTO
    tol: float = 1e-10
    max_iter: int = 100000
    time_limit: float | None = None
    size_limit: int | None = LICENSE_LIMIT
    native: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first bad field (``backend`` is checked on
        assignment)."""
        if not self.tol > 0:
            raise OptionError(f"PathOptions.tol must be > 0, got {self.tol}")
        if int(self.max_iter) < 0:
            raise OptionError(f"PathOptions.max_iter must be >= 0, got {self.max_iter}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise OptionError(f"PathOptions.time_limit must be > 0, got {self.time_limit}")
        if not isinstance(self.native, dict):
            raise OptionError("PathOptions.native must be a dict of PATH option -> value")


@dataclass
class Polynomial:
    """F(x) = q + A x + sum over terms (i, j, k, c) of c x_j x_k (j <= k)."""

    A: sp.coo_matrix
    q: np.ndarray
    quad: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    @property
    def is_affine(self) -> bool:
        return self.quad[0].size == 0

    def __call__(self, x: np.ndarray) -> np.ndarray:
        i, j, k, c = self.quad
        out = self.A @ x + self.q
        np.add.at(out, i, c * x[j] * x[k])
        return out


def polynomial(mcp: MCP, seed: int = 0) -> Polynomial:
    """F of ``mcp`` as an explicit affine or quadratic polynomial, or :class:`SolverError`."""
    n = mcp.n
    empty = (np.zeros(0, dtype=int),) * 3 + (np.zeros(0),)
    if mcp.M is not None:
        q = np.zeros(n) if mcp.q is None else np.asarray(mcp.q, dtype=float)
        return Polynomial(sp.coo_matrix(mcp.M), q, empty)
    rng = np.random.default_rng(seed)
    zero = np.zeros(n)
    q = np.asarray(mcp.F(zero), dtype=float)
    A = sp.csr_matrix(mcp.J(zero))
    i_l, j_l, k_l, c_l = [], [], [], []
    if mcp.hess is not None:
        x1 = rng.standard_normal(n)
        moved = abs(sp.csr_matrix(mcp.J(x1)) - A)
        rows = np.flatnonzero(np.asarray(moved.sum(axis=1)).ravel() > 0)
        for r in rows:
            w = np.zeros(n)
            w[r] = 1.0
            H = sp.triu(sp.coo_matrix(mcp.hess(zero, w))).tocoo()
            keep = H.data != 0
            c = np.where(H.row == H.col, 0.5, 1.0)[keep] * H.data[keep]
            i_l.append(np.full(c.size, r))
            j_l.append(H.row[keep])
            k_l.append(H.col[keep])
            c_l.append(c)
    quad = (
        (np.concatenate(i_l), np.concatenate(j_l), np.concatenate(k_l), np.concatenate(c_l)) if c_l else empty
    )
    poly = Polynomial(A.tocoo(), q, quad)
    x2 = rng.standard_normal(n)
    f2 = np.asarray(mcp.F(x2), dtype=float)
    if not np.allclose(poly(x2), f2, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(f2).max(initial=0)))):
        raise SolverError(
            "solver 'path' takes MCPs whose F is affine or quadratic (it rebuilds F for PATH); "
            "this F is neither: use 'newton'"
        )
    return poly


def _backend(opts: PathOptions, n: int) -> str:
    if opts.backend is not PathBackend.AUTO:
        return opts.backend.value
    has_pathampl = shutil.which("pathampl") is not None
    fits = opts.size_limit is None or n <= opts.size_limit
    problem = gamspy_problem()
    if problem is None and (fits or not has_pathampl):
        return "gamspy"
    if has_pathampl:
        return "pyomo"
    raise SolverError(f"solver 'path' cannot run here: {problem}")


#: what to do when GAMS refuses its license (the message of every license refusal ends with it)
LICENSE_HELP = (
    "install a valid license with `gamspy install license <access code or license file>`, or point "
    "GAMSPY_LICENSE_PATH at a GAMS license file (gamslice.txt); or use backend 'pyomo' with a 'pathampl' "
    "executable, or solver 'newton'"
)


def _gams_lines(log: str) -> list[str]:
    """GAMS's own error lines (``*** ...``) in a job log."""
    return [ln.strip("* ").strip() for ln in log.splitlines() if ln.startswith("***") and ln.strip("* ")]


def _cannot_run(log: str, exc: BaseException) -> SolverError:
    """The :class:`SolverError` of a GAMS process that did not run a job (license, installation)."""
    lines = _gams_lines(log)
    lines = [ln for ln in lines if not ln.startswith("Inspect listing file")]  # we keep no listing
    first = (str(exc).splitlines() or [""])[0]
    said = "; ".join(lines) if lines else f"{type(exc).__name__}: {first}"
    if "licens" in said.lower():  # GAMS's lines, or GAMSPy's own (a license path that is no file)
        return SolverError(
            f"solver 'path' (GAMSPy backend) cannot run: GAMS has no usable license ({said}); " + LICENSE_HELP
        )
    return SolverError(
        f"solver 'path' (GAMSPy backend) cannot run: GAMS did not start a job ({said}); check the GAMSPy "
        "installation (`gamspy show base`, `pip install --force-reinstall gamspy`), or use backend 'pyomo' "
        "with a 'pathampl' executable, or solver 'newton'"
    )


def _gams_container(gp: Any, log: io.StringIO) -> Any:
    """A GAMSPy container whose GAMS process has run one job (so a license or installation fault
    shows here), its log written to ``log``; or :class:`SolverError` naming the fault."""
    try:
        container = gp.Container(output=log)
        gp.Set(container, "probe", records=["a"])
    except (gp.exceptions.GamspyBaseException, OSError) as exc:
        raise _cannot_run(log.getvalue(), exc) from exc
    return container


@functools.cache
def gamspy_problem() -> str | None:
    """Why the GAMSPy backend cannot run here (not installed, license expired or missing, GAMS
    not starting), or None when it ran a GAMS job. Found once per process (about 0.05 s after
    importing gamspy)."""
    if importlib.util.find_spec("gamspy") is None:
        return "needs gamspy (pip install gamspy, or the 'path' extra) or a 'pathampl' executable on PATH"
    import gamspy as gp

    try:
        _gams_container(gp, io.StringIO()).close()
    except SolverError as exc:
        return str(exc).removeprefix("solver 'path' (GAMSPy backend) cannot run: ")
    return None


def ready() -> str | None:
    """Why solver "path" cannot run here, or None: it can when GAMSPy runs a job (a valid
    license) or a 'pathampl' executable is on PATH."""
    problem = gamspy_problem()
    if problem is None or shutil.which("pathampl") is not None:
        return None
    return problem


def _license_error(n: int, limit: int | None, detail: str = "") -> SolverError:
    return SolverError(
        f"solver 'path' (GAMSPy backend): the MCP has {n} rows and columns, over the free GAMSPy "
        f"license limit of {limit or LICENSE_LIMIT} rows or columns for nonlinear/MCP models; use "
        "'newton', a full GAMS license (PathOptions.size_limit=None), or backend 'pyomo' with "
        "pathampl" + (f" [GAMS: {detail}]" if detail else "")
    )


def _license_detail(text: str) -> tuple[int | None, str]:
    """(row/column limit, GAMS's own line) from a GAMS license-error text."""
    line = next((ln.strip("* ").strip() for ln in text.splitlines() if "license limit" in ln), "")
    found = re.search(r"more than (\d+) rows or columns", text)
    return (int(found.group(1)) if found else None), line


def solve(mcp: MCP, options: PathOptions | None = None) -> SolverResult:
    """Solve ``mcp`` with PATH.

    extras: ``backend``; ``solver_seconds`` (PATH's own time as GAMS reports it, gamspy only);
    ``solve_call_seconds`` (wall time of the backend's solve call, with the GAMS or pathampl
    process); ``setup_seconds`` (building the model); ``path_status`` (the backend's status).
    """
    opts = options if options is not None else PathOptions()
    opts.validate()
    backend = _backend(opts, mcp.n)
    if backend == "gamspy" and opts.size_limit is not None and mcp.n > opts.size_limit:
        raise _license_error(mcp.n, opts.size_limit)
    if backend == "pyomo" and shutil.which("pathampl") is None:
        raise SolverError("solver 'path' backend 'pyomo' needs a 'pathampl' executable on PATH")
    t0 = time.perf_counter()
    poly = polynomial(mcp)
    x0 = np.zeros(mcp.n) if mcp.x0 is None else np.asarray(mcp.x0, dtype=float)
    x0 = np.clip(x0, mcp.lb, mcp.ub)
    run = _solve_gamspy if backend == "gamspy" else _solve_pyomo
    result = run(mcp, poly, x0, opts)
    result.extras["backend"] = backend
    result.extras["setup_seconds"] = time.perf_counter() - t0 - result.extras.get("solve_call_seconds", 0.0)
    return result


def _solve_gamspy(mcp: MCP, poly: Polynomial, x0: np.ndarray, opts: PathOptions) -> SolverResult:
    import gamspy as gp
    import pandas as pd

    n = mcp.n
    labels = np.array([f"x{k}" for k in range(n)], dtype=object)
    log = io.StringIO()
    c = _gams_container(gp, log)
    i = gp.Set(c, "i", records=labels.tolist())
    j = gp.Alias(c, "j", i)
    k = gp.Alias(c, "k", i)
    A = poly.A
    lin = gp.Parameter(
        c,
        "lin",
        domain=[i, j],
        records=pd.DataFrame({"i": labels[A.row], "j": labels[A.col], "value": A.data}),
    )
    rhs = gp.Parameter(c, "rhs", domain=i, records=pd.DataFrame({"i": labels, "value": -poly.q}))
    x = gp.Variable(
        c,
        "x",
        domain=i,
        records=pd.DataFrame({"i": labels, "level": x0, "lower": mcp.lb, "upper": mcp.ub}),
    )
    F = gp.Equation(c, "F", domain=i)
    expr = gp.Sum(j, lin[i, j] * x[j])
    if not poly.is_affine:
        qi, qj, qk, qc = poly.quad
        quad = gp.Parameter(
            c,
            "quad",
            domain=[i, j, k],
            records=pd.DataFrame({"i": labels[qi], "j": labels[qj], "k": labels[qk], "value": qc}),
        )
        expr = expr + gp.Sum(gp.Domain(j, k).where[quad[i, j, k]], quad[i, j, k] * x[j] * x[k])
    F[i] = expr == rhs[i]
    model = gp.Model(c, "mcp", problem=gp.Problem.MCP, matches={F: x})
    gopts: dict[str, Any] = {"iteration_limit": int(opts.max_iter)}
    if opts.time_limit is not None:
        gopts["time_limit"] = float(opts.time_limit)
    native = {"convergence_tolerance": float(opts.tol), **opts.native}
    t1 = time.perf_counter()
    try:
        model.solve(solver="PATH", options=gp.Options(**gopts), solver_options=native)
    except gp.exceptions.GamspyBaseException as exc:
        text = str(exc) + "\n" + log.getvalue()
        if "license limit" in text.lower() or re.search(r"more than \d+ rows or columns", text):
            limit, detail = _license_detail(text)
            raise _license_error(n, limit, detail) from exc
        if any("licens" in ln.lower() for ln in _gams_lines(log.getvalue())):
            raise _cannot_run(log.getvalue(), exc) from exc
        return SolverResult(
            None,
            Outcome.FAILED,
            message=f"GAMSPy/PATH error: {text.splitlines()[0]}",
            extras={"solve_call_seconds": time.perf_counter() - t1},
        )
    call = time.perf_counter() - t1
    xv = np.zeros(n)
    rec = x.records
    if rec is not None and len(rec):
        xv[rec["i"].astype(str).str[1:].astype(int).to_numpy()] = rec["level"].to_numpy(dtype=float)
    solve_status, model_status = model.solve_status, model.status
    if solve_status == gp.SolveStatus.LicenseError or model_status == gp.ModelStatus.LicenseError:
        raise _license_error(n, None)
    outcome = _gams_outcome(gp, solve_status, model_status)
    no_point = model_status in (
        gp.ModelStatus.NoSolutionReturned,
        gp.ModelStatus.ErrorNoSolution,
        gp.ModelStatus.NotSolved,
    )
    return SolverResult(
        None if no_point else xv,
        outcome,
        iterations=int(model.num_iterations or 0),
        message=f"PATH via GAMSPy: {solve_status.name} / {model_status.name}",
        extras={
            "solver_seconds": float(model.solve_model_time or 0.0),
            "solve_call_seconds": call,
            "path_status": f"{solve_status.name}/{model_status.name}",
        },
    )


def _gams_outcome(gp: Any, solve_status: Any, model_status: Any) -> Outcome:
    if solve_status == gp.SolveStatus.IterationInterrupt:
        return Outcome.ITERATION_LIMIT
    if solve_status == gp.SolveStatus.ResourceInterrupt:
        return Outcome.TIME_LIMIT
    if solve_status == gp.SolveStatus.NormalCompletion and model_status in (
        gp.ModelStatus.OptimalGlobal,
        gp.ModelStatus.OptimalLocal,
    ):
        return Outcome.CONVERGED
    return Outcome.FAILED


def _solve_pyomo(mcp: MCP, poly: Polynomial, x0: np.ndarray, opts: PathOptions) -> SolverResult:
    import pyomo.environ as pe
    from pyomo.mpec import Complementarity, complements
    from pyomo.opt import TerminationCondition

    n = mcp.n
    A = poly.A.tocsr()
    qi, qj, qk, qc = poly.quad
    order = np.argsort(qi, kind="stable")
    qi, qj, qk, qc = qi[order], qj[order], qk[order], qc[order]
    starts = np.searchsorted(qi, np.arange(n + 1))
    lb, ub = mcp.lb, mcp.ub
    box = [r for r in range(n) if np.isfinite(lb[r]) and np.isfinite(ub[r])]
    m = pe.ConcreteModel()
    m.I = pe.RangeSet(0, n - 1)
    m.B = pe.Set(initialize=box)

    def bounds(_m, r):
        if r in m.B:
            return (None, None)
        return (None if np.isinf(lb[r]) else float(lb[r]), None if np.isinf(ub[r]) else float(ub[r]))

    m.x = pe.Var(m.I, bounds=bounds, initialize=lambda _m, r: float(x0[r]))
    m.w = pe.Var(m.B, bounds=(0, None), initialize=0.0)
    m.v = pe.Var(m.B, bounds=(0, None), initialize=0.0)

    def row(r: int):
        lo_, hi_ = A.indptr[r], A.indptr[r + 1]
        expr = float(poly.q[r]) + sum(
            float(val) * m.x[int(col)] for col, val in zip(A.indices[lo_:hi_], A.data[lo_:hi_])
        )
        s, e = starts[r], starts[r + 1]
        return expr + sum(float(c) * m.x[int(a)] * m.x[int(b)] for a, b, c in zip(qj[s:e], qk[s:e], qc[s:e]))

    def pair(_m, r):
        F = row(r)
        if r in m.B:
            return complements(F - m.w[r] + m.v[r] == 0, m.x[r])
        if np.isfinite(lb[r]):
            return complements(m.x[r] >= float(lb[r]), F >= 0)
        if np.isfinite(ub[r]):
            return complements(m.x[r] <= float(ub[r]), F <= 0)
        return complements(F == 0, m.x[r])

    m.c = Complementarity(m.I, rule=pair)
    m.cw = Complementarity(m.B, rule=lambda _m, r: complements(m.w[r] >= 0, m.x[r] - float(lb[r]) >= 0))
    m.cv = Complementarity(m.B, rule=lambda _m, r: complements(m.v[r] >= 0, float(ub[r]) - m.x[r] >= 0))
    solver = pe.SolverFactory("path")
    solver.options["convergence_tolerance"] = float(opts.tol)
    solver.options["cumulative_iteration_limit"] = int(opts.max_iter)
    if opts.time_limit is not None:
        solver.options["time_limit"] = float(opts.time_limit)
    for key, value in opts.native.items():
        solver.options[key] = value
    t1 = time.perf_counter()
    try:
        res = solver.solve(m, load_solutions=False)
    except Exception as exc:  # pathampl crash, NL writer refusal
        return SolverResult(
            None,
            Outcome.FAILED,
            message=f"pathampl error: {type(exc).__name__}: {exc}",
            extras={"solve_call_seconds": time.perf_counter() - t1},
        )
    call = time.perf_counter() - t1
    term = res.solver.termination_condition
    xv = None
    if len(res.solution) > 0:
        m.solutions.load_from(res)
        xv = np.array([pe.value(m.x[r], exception=False) or 0.0 for r in range(n)])
    outcome = {
        TerminationCondition.optimal: Outcome.CONVERGED,
        TerminationCondition.locallyOptimal: Outcome.CONVERGED,
        TerminationCondition.maxIterations: Outcome.ITERATION_LIMIT,
        TerminationCondition.maxTimeLimit: Outcome.TIME_LIMIT,
    }.get(term, Outcome.FAILED)
    return SolverResult(
        xv,
        outcome,
        message=f"PATH via pathampl: {term} ({res.solver.message})",
        extras={"solve_call_seconds": call, "path_status": str(term)},
    )
