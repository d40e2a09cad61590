"""Solver "path": PATH through GAMSPy or Pyomo + pathampl, each answer checked here."""

from __future__ import annotations

import importlib.util
import io
import itertools
import shutil
import types

import numpy as np
import pytest
import scipy.sparse as sp

import contactmodel as cm
from contactmodel import cli as cm_cli
from contactmodel import solvers
from contactmodel.errors import SolverError
from contactmodel.mcp import MCP
from contactmodel.solvers import path as path_solver
from contactmodel.solvers.base import Outcome
from contactmodel.solvers.path import PathOptions, gamspy_problem, polynomial, solve


@pytest.fixture(autouse=True)
def _fresh_probe():
    """Each test finds GAMSPy's state again (some hide gamspy; the probe's answer is cached)."""
    gamspy_problem.cache_clear()
    yield
    gamspy_problem.cache_clear()


@pytest.fixture
def gamspy():
    """GAMSPy able to run a job here: installed, with a license GAMS accepts (else skipped, saying why)."""
    module = pytest.importorskip("gamspy")
    problem = gamspy_problem()
    if problem is not None:
        pytest.skip(f"GAMSPy cannot run here: {problem}")
    return module


@pytest.fixture
def pathampl():
    if shutil.which("pathampl") is None:
        pytest.skip("no 'pathampl' executable on PATH")


def lcp_by_enumeration(M: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The solution of a small P-matrix LCP by trying every complementary basis."""
    n = q.size
    for k in range(n + 1):
        for act in itertools.combinations(range(n), k):
            idx = list(act)
            x = np.zeros(n)
            if idx:
                x[idx] = np.linalg.solve(M[np.ix_(idx, idx)], -q[idx])
            if np.all(x >= -1e-12) and np.all(M @ x + q >= -1e-12):
                return x
    raise AssertionError("no complementary basis solves the LCP")


def small_lcp(seed: int = 3, n: int = 6) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, n))
    S = rng.standard_normal((n, n))
    return G @ G.T + 0.5 * np.eye(n) + (S - S.T), rng.uniform(-3, 3, n)


def bounded_mcp() -> tuple[MCP, np.ndarray]:
    """Affine box MCP (positive definite M) built around a chosen solution x*: one component at
    its lower bound, one at its upper bound, one strictly inside, one free, one nonnegative."""
    rng = np.random.default_rng(7)
    n = 5
    G = rng.standard_normal((n, n))
    M = G @ G.T + np.eye(n)
    lb = np.array([-1.0, -2.0, 0.0, -np.inf, 0.0])
    ub = np.array([1.0, 3.0, 4.0, np.inf, np.inf])
    x_star = np.array([-1.0, 3.0, 1.5, -0.7, 2.0])
    F_star = np.array([0.8, -1.2, 0.0, 0.0, 0.0])
    q = F_star - M @ x_star
    Ms = sp.csr_matrix(M)
    mcp = MCP(F=lambda x: Ms @ x + q, J=lambda x: Ms, lb=lb, ub=ub, x0=np.zeros(n), M=Ms, q=q)
    return mcp, x_star


def quadratic_mcp() -> MCP:
    """F = (x0 + 1, x1 - 2 + x0 x1 + x1^2 / 4, x2 - 5) on [0, inf) x R x [-1, 1].

    Solutions: x0 = 0, x2 = 1, x1 = -2 +- 2 sqrt(3); from x0 = 0 Newton-type methods find the + root.
    """

    def F(x: np.ndarray) -> np.ndarray:
        return np.array([x[0] + 1.0, x[1] - 2.0 + x[0] * x[1] + 0.25 * x[1] ** 2, x[2] - 5.0])

    def J(x: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix([[1.0, 0.0, 0.0], [x[1], 1.0 + x[0] + 0.5 * x[1], 0.0], [0.0, 0.0, 1.0]])

    def hess(x: np.ndarray, w: np.ndarray) -> sp.csr_matrix:
        return sp.csr_matrix(w[1] * np.array([[0.0, 1.0, 0.0], [1.0, 0.5, 0.0], [0.0, 0.0, 0.0]]))

    return MCP(
        F=F,
        J=J,
        hess=hess,
        lb=np.array([0.0, -np.inf, -1.0]),
        ub=np.array([np.inf, np.inf, 1.0]),
        x0=np.zeros(3),
    )


def assert_mcp_solution(mcp: MCP, x: np.ndarray, tol: float = 1e-8) -> None:
    """Every row's complementarity condition, checked on its own."""
    f = mcp.F(x)
    assert np.all(x >= mcp.lb - tol) and np.all(x <= mcp.ub + tol)
    for i in range(mcp.n):
        at_lb, at_ub = abs(x[i] - mcp.lb[i]) <= tol, abs(x[i] - mcp.ub[i]) <= tol
        if at_lb:
            assert f[i] >= -tol, (i, x[i], f[i])
        elif at_ub:
            assert f[i] <= tol, (i, x[i], f[i])
        else:
            assert abs(f[i]) <= tol, (i, x[i], f[i])


def test_registry_reason_names_gamspy_when_absent(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a, **k: None if name == "gamspy" else real(name, *a, **k)
    )
    ok, why = solvers.REGISTRY["path"].available()
    assert not ok
    assert "gamspy" in why


def test_size_over_license_limit_is_refused_before_solving():
    n = 1001
    with pytest.raises(SolverError, match=r"1001 rows.*license limit of 1000"):
        solve(MCP.from_lcp(sp.identity(n, format="csr"), -np.ones(n)), PathOptions(backend="gamspy"))


def test_bad_options_are_named():
    with pytest.raises(SolverError, match="backend"):
        solve(MCP.from_lcp(np.eye(2), -np.ones(2)), PathOptions(backend="neos"))


def test_non_quadratic_F_is_refused():
    mcp = MCP(
        F=lambda x: np.exp(x) - 2.0,
        J=lambda x: sp.diags(np.exp(x)).tocsr(),
        hess=lambda x, w: sp.diags(w * np.exp(x)).tocsr(),
        lb=np.zeros(2),
        ub=np.full(2, np.inf),
    )
    with pytest.raises(SolverError, match="affine or quadratic"):
        polynomial(mcp)


def test_polynomial_reproduces_quadratic_F():
    mcp = quadratic_mcp()
    poly = polynomial(mcp)
    x = np.array([0.3, -1.2, 0.7])
    np.testing.assert_allclose(poly(x), mcp.F(x), atol=1e-14)


def test_small_lcp(gamspy):
    M, q = small_lcp()
    res = solve(MCP.from_lcp(M, q), PathOptions(backend="gamspy"))
    assert res.outcome is Outcome.CONVERGED
    np.testing.assert_allclose(res.x, lcp_by_enumeration(M, q), atol=1e-8)
    assert np.abs(np.minimum(res.x, M @ res.x + q)).max() <= 1e-9
    assert res.extras["backend"] == "gamspy"
    assert res.extras["solver_seconds"] >= 0.0
    assert res.extras["solve_call_seconds"] > 0.0


def test_bounded_mcp_with_free_variable(gamspy):
    mcp, x_star = bounded_mcp()
    res = solve(mcp, PathOptions(backend="gamspy"))
    assert res.outcome is Outcome.CONVERGED
    assert_mcp_solution(mcp, res.x)
    np.testing.assert_allclose(res.x, x_star, atol=1e-8)


def test_quadratic_mcp(gamspy):
    mcp = quadratic_mcp()
    res = solve(mcp, PathOptions(backend="gamspy"))
    assert res.outcome is Outcome.CONVERGED
    assert_mcp_solution(mcp, res.x)
    np.testing.assert_allclose(res.x, [0.0, -2.0 + 2.0 * np.sqrt(3.0), 1.0], atol=1e-8)


def test_dispatcher_verifies_path(gamspy):
    M, q = small_lcp(seed=11, n=8)
    sol = cm.solve(cm.LCP(M, q), solver="path")
    assert sol.status is cm.Status.SOLVED
    assert sol.residual <= 1e-8
    assert "solver_seconds" in sol.extras


def test_license_refusal_at_solve_time_is_a_clear_error(gamspy):
    n = 1001
    mcp = MCP.from_lcp(sp.identity(n, format="csr"), -np.ones(n))
    with pytest.raises(SolverError, match="license limit of 1000"):
        solve(mcp, PathOptions(backend="gamspy", size_limit=None))


def test_pyomo_backend(pathampl):
    M, q = small_lcp()
    res = solve(MCP.from_lcp(M, q), PathOptions(backend="pyomo"))
    assert res.outcome is Outcome.CONVERGED
    np.testing.assert_allclose(res.x, lcp_by_enumeration(M, q), atol=1e-8)
    mcp, x_star = bounded_mcp()
    res = solve(mcp, PathOptions(backend="pyomo"))
    assert_mcp_solution(mcp, res.x)
    np.testing.assert_allclose(res.x, x_star, atol=1e-8)


#: what GAMS 54.6.1 writes when its bundled demo license has expired (captured from a GAMSPy job log)
EXPIRED_LOG = """--- Job probe.gms Start 11/28/26 08:40:06 54.6.1 20a39885 LEX-LEG x86 64bit/Linux
    License /site-packages/gamspy_base/gamslice.txt
*** Time-limited license expired 2 days ago
*** Status: Terminated due to a licensing error
***         License file: /site-packages/gamspy_base/gamslice.txt
***         Inspect listing file for more information.
--- Job probe.gms Stop 11/28/26 08:40:06 elapsed 0:00:00.005
"""


class _FatalError(Exception):
    pass


def _fake_gamspy(log: str) -> types.SimpleNamespace:
    """A stand-in for ``gamspy`` whose GAMS process writes ``log`` and dies at the first job, as
    GAMSPy does when GAMS refuses to start (it raises ``FatalError: ... GAMS is in a bad state``)."""

    class Container:
        def __init__(self, output=None):
            self.output = output

    def Set(container, name, records=None):
        container.output.write(log)
        raise _FatalError("Error while getting the return code from GAMS backend.")

    exceptions = types.SimpleNamespace(GamspyBaseException=_FatalError)
    return types.SimpleNamespace(Container=Container, Set=Set, exceptions=exceptions)


def test_an_expired_license_is_a_solver_error_quoting_gams():
    with pytest.raises(SolverError, match="Time-limited license expired 2 days ago") as err:
        path_solver._gams_container(_fake_gamspy(EXPIRED_LOG), io.StringIO())
    message = str(err.value)
    assert "gamspy install license" in message and "GAMSPY_LICENSE_PATH" in message
    assert "gamslice.txt" in message and "Inspect listing" not in message


def test_gams_that_does_not_start_is_a_solver_error_naming_the_installation():
    with pytest.raises(SolverError, match="GAMS did not start a job.*gamspy show base"):
        path_solver._gams_container(_fake_gamspy("*** Could not load gmdcclib64.so\n"), io.StringIO())


def test_an_unusable_gamspy_is_reported_by_the_registry_and_the_command_line(monkeypatch, capsys):
    why = "GAMS has no usable license (Time-limited license expired 2 days ago)"
    monkeypatch.setattr(path_solver, "gamspy_problem", lambda: why)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert solvers.REGISTRY["path"].available() == (False, why)
    assert cm_cli.main(["solvers"]) == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("path")]
    assert "no" in line.split()[:2] and "license expired" in line
    with pytest.raises(SolverError, match="cannot run here: GAMS has no usable license"):
        solve(MCP.from_lcp(np.eye(2), -np.ones(2)), PathOptions())
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/pathampl" if name == "pathampl" else None)
    assert solvers.REGISTRY["path"].available() == (True, "")  # the pyomo backend can still run
    assert path_solver._backend(PathOptions(), 10) == "pyomo"


def test_gamspy_here_either_runs_or_says_why():
    """With gamspy installed: a solve succeeds (valid license) or raises a SolverError naming the
    cause (e.g. the expired demo license); never a GAMSPy exception."""
    pytest.importorskip("gamspy")
    problem = gamspy_problem()
    M, q = small_lcp()
    if problem is None:
        assert solve(MCP.from_lcp(M, q), PathOptions(backend="gamspy")).outcome is Outcome.CONVERGED
    else:
        with pytest.raises(SolverError, match="GAMSPy backend"):
            solve(MCP.from_lcp(M, q), PathOptions(backend="gamspy"))
