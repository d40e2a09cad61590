"""The globalization shared by both methods of the ``newton`` solver, and its options.

A *method* (:class:`NewtonMethod`) supplies what differs between box MCPs
(:mod:`contactmodel.solvers.newton`: Fischer-Burmeister merit, diagonal ``Da, Db``) and MCPs with
Coulomb cone blocks (:mod:`contactmodel.solvers.newton.cones`: natural map with the cone
projection, d x d blocks): the point evaluation (``Phi``, ``psi = 1/2 ||Phi||^2``, the unscaled
natural residual), the projection onto the feasible set, the gradient ``H^T Phi`` of ``psi``, the
(regularized) Newton and Levenberg-Marquardt directions, the proximal weight, and optional
accelerating steps. This module owns everything else, once:

* :func:`run`: the attempts (the first, then restarts from the starting point with the method's
  option changes while the budgets last; a method's fallback after the first attempt, e.g. Lemke's
  method on an LCP) and the result with its ``extras``;
* :func:`iterate`: one attempt: stopping tests (tolerance with optional refinement, iterations,
  time, stall), the watchdog, the nonmonotone reference, and the step ladder: Newton step, the same
  regularized once a plain one is unusable, Levenberg-Marquardt, projected gradient, each through
  the Armijo arc search :func:`arc_search`.
"""

from __future__ import annotations

import copy
import math
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from contactmodel.constants import Choice
from contactmodel.errors import OptionError
from contactmodel.mcp.types import MCP
from contactmodel.solvers.base import Options, Outcome, SolverResult
from contactmodel.solvers.newton import kernels


class Merit(Choice):
    """``NewtonOptions.merit``: the box method's merit function."""

    FB = "fb"  # Fischer-Burmeister
    PENALIZED_FB = "penalized_fb"  # Chen-Chen-Kanzow


class When(Choice):
    """``NewtonOptions.polish`` and ``NewtonOptions.regularize``: when a step is used."""

    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


class Kernels(Choice):
    """``NewtonOptions.kernels``: which code runs the hot loops."""

    AUTO = "auto"  # numba when installed, else numpy
    NUMBA = "numba"
    NUMPY = "numpy"


@dataclass
class NewtonOptions(Options):
    """Options of the ``newton`` solver (both methods: box MCPs and Coulomb cone blocks).

    Every field has a default, stated once: in the field declarations below (the shipped presets
    in ``contactmodel/solvers/presets/newton.toml`` only override). Fields marked *box only* are
    ignored by the cone-block method of :mod:`contactmodel.solvers.newton.cones`.

    tol: stop when ``||x - mid(lb, x - F(x), ub)||_inf <= tol`` on the MCP given, which
        ``cm.solve`` normalizes by its data's scale (:mod:`contactmodel.mcp.scale`).
    max_iter: maximum number of Newton / gradient iterations.
    time_limit: wall-clock limit in seconds, None for none.
    merit: *box only* ``"fb"`` (Fischer-Burmeister) or ``"penalized_fb"`` (Chen-Chen-Kanzow).
    fb_lambda: *box only* weight ``lam`` in (0, 1] of the FB term for ``"penalized_fb"``.
    armijo_sigma: sufficient-decrease constant of the Armijo rule.
    backtrack: step reduction factor of the line search, in (0, 1).
    min_step: smallest step length of the gradient safeguard search.
    newton_min_step: smallest step length tried along a Newton direction before falling back to
        the gradient step.
    feasible: keep every iterate in the box: steps are projected onto [lb, ub] and the safeguard
        is a projected-gradient arc search (Kanzow's feasible variant).
    nonmonotone_memory: number of past merit values whose maximum is the Armijo reference;
        1 is a monotone line search.
    descent_rho, descent_p: the Newton direction ``d`` is used only if
        ``grad psi . d <= -descent_rho * ||d||^descent_p``.
    newton_reg: proximal regularization of the Newton matrix: the step solves
        ``(diag(da) + diag(db) (J + eps I)) d = -Phi`` with ``eps = newton_reg * ||Phi||_inf``
        (box MCPs; cone blocks scale it by ``|J|`` and the progress, see
        :mod:`contactmodel.solvers.newton.cones`), the
        generalized Jacobian of ``F + eps (x - x_k)``; it keeps the matrix nonsingular on the
        degenerate, non-unique solutions of friction LCPs and vanishes at a solution, so local
        convergence stays quadratic; 0 gives the plain semismooth Newton step.
    newton_reg_max: *box only* upper bound on ``eps`` (same units as ``J``, whose rows are scaled to
        ``max_j |J_ij| <= 1``): far from a solution the uncapped weight
        damps the step into a short gradient-like move; on the seeded friction-pyramid LCPs of
        ``benchmarks/newton_pyramid.py`` (seeds 1-50, n = 50, 200, 1000) the present default cap cut the
        mean iterations by 8% (median 13.5-14 -> 12 at n = 200) with about as many pivoting
        fallbacks (9 -> 11 of 300; all solved); inf gives the uncapped rule. Affine box MCPs only:
        on nonlinear rows (the cone MNCP) the capped weight left degenerate answers 1e-7 off the
        law where the uncapped one reaches them exactly (catalogue box_push_sliding), and cone
        blocks have their own rule.
    regularize: when to use ``newton_reg``: ``"auto"`` (plain Newton steps until one is unusable,
        not a descent direction, or needs a step shorter than 1, or the watchdog fires, or half
        of ``stall_iter`` passes without progress; regularized from then on), ``"always"`` or
        ``"never"``.
    lm_mu: Levenberg-Marquardt weight; when the Newton system is singular or its solution is not a
        descent direction the step solves ``(H^T H + mu I) d = -H^T Phi`` with
        ``mu = lm_mu * ||Phi||_2``.
    polish: *box only* active-set polish step: ``"auto"`` (when the set of rows at a bound in the natural
        map is the same at two consecutive iterates), ``"always"`` or ``"never"``.
    stall_iter: end an attempt as FAILED (then restart, see ``restarts``) when the best natural
        residual has not decreased by 1% for this many iterations.
    restarts: after a failed attempt, restart from the starting point with the regularization and
        polish always on, then with the regularization off, then also without row scaling.
        ``max_iter`` bounds all attempts together: the first may use it all, each restart gets an
        equal share of the iterations left (a slow restart cannot starve the next ones: on the
        fuzz scenes of ``benchmarks/fuzz_run.py`` the last restart solved cone blocks that the
        earlier ones had crept on for over 100 iterations).
    scale_rows: build the merit from ``F_i / s_i`` with ``s_i = max(1, max_j |J_ij(x0)|)`` (same
        solutions, better balanced merit for stiff rows); the stopping test always uses the
        unscaled natural residual.
    pivot_fallback: *box only* for an LCP (affine F, lb = 0, ub = +inf) of size at most ``pivot_max_n``, run
        Lemke's method (:mod:`contactmodel.solvers.lemke`, lexicographic, covering-vector
        restarts) when the first Newton attempt has not converged within ``pivot_after``
        iterations: PATH's pivoting safeguard on the linearization, which for an LCP is the
        problem itself. Its ray on a copositive-plus ``M``, or a verified Farkas vector, is
        reported as INFEASIBLE. A mixed LCP (affine ``F``, rows free or nonnegative, e.g. the
        sparse form of a polyhedral law) gets the same fallback on the LCP left after
        eliminating its free rows (:mod:`contactmodel.solvers.newton.blocks`).
    pivot_after: iterations of the first Newton attempt before the pivoting fallback.
    pivot_max_n: largest LCP handed to the (dense, O(n^2) per pivot) fallback.
    pivot_restarts: Lemke runs with random covering vectors after a ray that proves nothing.
    refine_iter: *box only* once the residual is below ``tol``, at most this many more iterations while
        each cuts it only linearly (by a factor between 1.1 and 100): at degenerate solutions, e.g.
        the quadratic cone slack at ``c_n = 0``, a residual ``r`` leaves the forces ~``sqrt(r)``
        off, and Newton converges there linearly.
    chord_steps: *box only* affine ``F`` only: after a Newton step taken whole, up to this many simplified
        Newton (chord) steps ``d = -H^-1 Phi(x)`` with that step's factored matrix ``H``, each kept
        while it cuts the merit ``psi`` by ``chord_decrease`` and does not raise the natural
        residual: two triangular solves instead of a factorization. On the friction-pyramid LCPs
        of ``benchmarks/peers.py`` they save a quarter of the factorizations at n = 200 (seeds
        1-30; time about even) and a fifth of the median time at n = 1000 (seeds 1-10), with as
        many solved. 0 turns them off.
    chord_decrease: merit reduction factor in (0, 1) a chord step must reach.
    kernels: the hot loops (the FB function with its partials and the natural residual when every
        bound is a lower bound; the dense Newton matrix of an affine problem; the cone blocks'
        natural map, row scales and the sparse pattern and entries of their Newton matrix; on
        small affine cone problems factored dense, the whole attempt,
        :mod:`contactmodel.solvers.newton.small`; on small affine box problems without upper
        bounds, the whole attempt too, :mod:`contactmodel.solvers.newton.small_box`): ``"auto"``
        (compiled by numba when it is installed, ``pip install -e ".[fast]"``, else numpy),
        ``"numba"`` (an error without it) or ``"numpy"``; the same numbers either way, see
        :mod:`contactmodel.solvers.newton.kernels`.
    decouple: when the MCP falls into independent blocks (connected components of the coupling
        graph of ``J`` and the cone blocks: e.g. contact groups that share no body), run the whole
        for at most 50 iterations, then solve each block not yet solved on its own, with its own
        ``max_iter``, restarts and fallbacks, so one hard block cannot stall the others; see
        :mod:`contactmodel.solvers.newton.blocks`.
    liftoff_rounds: *cones only* after every attempt has failed (the restarts included), at most
        this many lift-off rounds from the best point: each holds one more cone block separated
        (reaction 0, its rows dropped) - the one with both its normal reaction and its normal
        acceleration positive by most, ``min(c_N, rho a_N)`` - releases the held blocks whose
        normal acceleration has turned negative, and runs one attempt from the last round's point
        (at most ``max_iter`` iterations); the answer is accepted only on the natural residual of
        the problem as given. Two nearly coincident contacts (normal rows of the Delassus matrix
        equal to 1e-5) that slide together leave Newton at a point where both carry load while one
        separates and the other penetrates by ~1e-6: a local minimum of the merit whose
        linearization is nearly singular; holding one separated removes the near-dependence (FCLIB
        RockPile_tob1). 0 turns them off; see :mod:`contactmodel.solvers.newton.cones`.
    active_set_steps: *box MCPs only* (no cone blocks, at most ``SETUP_CACHE_N`` rows) when the
        starting point does not meet ``tol``, at most this many active-set steps are tried from
        it before any attempt. For an affine ``F`` the first holds the rows at a bound at the
        start (``x`` not strictly inside its bounds) there and solves ``F = 0`` on the others for
        the least change of their ``x`` (least squares: the rows of a degenerate, non-unique
        solution leave the rest as they were), each next one does the same at the active set of
        the natural map at the last point. For a nonlinear ``F``, from a start within
        ``sqrt(tol)`` only, each step puts the natural map's active set at its bound and takes
        one least-norm Newton step on the other rows (``J`` at the step's point). The first
        point that meets ``tol`` is the answer; when none does, the attempts start from the
        starting point as without them. A time step's start is the last step's answer: its
        active set, where the motion keeps its mode (a slide slowing down), gives the step's
        answer in one or two linear solves, where the iteration needs five to eight
        (``cm.simulate`` sets 2 unless given). 0 turns them off.
    x0: starting point (length n); None uses ``mcp.x0``, then the projection of 0 on the box.
    """

    tol: float = 1e-10
    max_iter: int = 200
    time_limit: float | None = None
    merit: Merit = Merit.FB
    fb_lambda: float = 0.95
    armijo_sigma: float = 1e-4
    backtrack: float = 0.5
    min_step: float = 1e-12
    newton_min_step: float = 1e-6
    feasible: bool = True
    nonmonotone_memory: int = 8
    descent_rho: float = 1e-10
    descent_p: float = 2.1
    lm_mu: float = 1e-3
    newton_reg: float = 1.0
    newton_reg_max: float = 0.1
    regularize: When = When.AUTO
    polish: When = When.AUTO
    stall_iter: int = 30
    restarts: bool = True
    scale_rows: bool = True
    pivot_fallback: bool = True
    pivot_after: int = 50
    pivot_max_n: int = 5000
    pivot_restarts: int = 2
    refine_iter: int = 10
    chord_steps: int = 2
    chord_decrease: float = 0.5
    kernels: Kernels = Kernels.AUTO
    decouple: bool = True
    liftoff_rounds: int = 30
    active_set_steps: int = 0
    x0: np.ndarray | None = field(default=None, repr=False)

    def validate(self) -> None:
        """Raise :class:`OptionError` naming the first invalid field (the choices are checked on
        assignment, see :class:`~contactmodel.solvers.base.Options`)."""
        if not self.tol > 0:
            raise OptionError(f"NewtonOptions.tol must be > 0, got {self.tol!r}")
        if self.max_iter < 0:
            raise OptionError(f"NewtonOptions.max_iter must be >= 0, got {self.max_iter!r}")
        if self.time_limit is not None and not self.time_limit > 0:
            raise OptionError(f"NewtonOptions.time_limit must be > 0 or None, got {self.time_limit!r}")
        if not 0.0 < self.fb_lambda <= 1.0:
            raise OptionError(f"NewtonOptions.fb_lambda must be in (0, 1], got {self.fb_lambda!r}")
        if not 0.0 < self.armijo_sigma < 0.5:
            raise OptionError(f"NewtonOptions.armijo_sigma must be in (0, 0.5), got {self.armijo_sigma!r}")
        if not 0.0 < self.backtrack < 1.0:
            raise OptionError(f"NewtonOptions.backtrack must be in (0, 1), got {self.backtrack!r}")
        if self.nonmonotone_memory < 1:
            raise OptionError(
                f"NewtonOptions.nonmonotone_memory must be >= 1, got {self.nonmonotone_memory!r}"
            )
        if not self.newton_reg >= 0.0:
            raise OptionError(f"NewtonOptions.newton_reg must be >= 0, got {self.newton_reg!r}")
        if not self.newton_reg_max > 0.0:
            raise OptionError(
                f"NewtonOptions.newton_reg_max must be > 0 (inf for no cap), got {self.newton_reg_max!r}"
            )
        if self.stall_iter < 1:
            raise OptionError(f"NewtonOptions.stall_iter must be >= 1, got {self.stall_iter!r}")
        if self.refine_iter < 0:
            raise OptionError(f"NewtonOptions.refine_iter must be >= 0, got {self.refine_iter!r}")
        if self.chord_steps < 0:
            raise OptionError(f"NewtonOptions.chord_steps must be >= 0, got {self.chord_steps!r}")
        if not 0.0 < self.chord_decrease < 1.0:
            raise OptionError(f"NewtonOptions.chord_decrease must be in (0, 1), got {self.chord_decrease!r}")
        if self.kernels is Kernels.NUMBA and not kernels.AVAILABLE:
            raise OptionError(
                "NewtonOptions.kernels='numba' needs numba: pip install -e '.[fast]' (or kernels='auto')"
            )
        if self.liftoff_rounds < 0:
            raise OptionError(f"NewtonOptions.liftoff_rounds must be >= 0, got {self.liftoff_rounds!r}")
        if self.active_set_steps < 0:
            raise OptionError(f"NewtonOptions.active_set_steps must be >= 0, got {self.active_set_steps!r}")
        if self.pivot_after < 0:
            raise OptionError(f"NewtonOptions.pivot_after must be >= 0, got {self.pivot_after!r}")


class Point(Protocol):
    """What the loop reads of an iterate: ``x`` (n,), the scaled ``Phi(x)`` (n,), the merit
    ``psi = 1/2 ||Phi||^2`` and the unscaled natural residual ``res`` (inf-norm)."""

    x: np.ndarray
    phi: np.ndarray
    psi: float
    res: float


class NewtonMethod(ABC):
    """The parts of a semismooth Newton method that :func:`iterate` and :func:`run` plug in.

    Subclasses set ``restarts`` (option changes of the restart attempts) and
    ``escalate_on_short_step``, and implement the
    abstract methods; ``opt`` is the options of the current attempt (set by :func:`run`).
    """

    restarts: tuple[dict[str, Any], ...] = ()
    # a Newton or LM step the arc search shortened switches the regularization on
    escalate_on_short_step = True
    # whether the ``refine_iter`` steps after convergence apply (box MCPs only)
    refines = True

    def __init__(self, mcp: MCP, opt: NewtonOptions) -> None:
        self.mcp, self.opt = mcp, opt
        self.n = mcp.n
        self.regularized = False
        self.last_step = 1.0  # step length of the last successful arc search
        self.n_factor = self.n_feval = self.n_jeval = 0
        self.n_gradient = self.n_lm = self.n_watchdog = self.n_restarts = self.n_refine = 0

    # -- what each method supplies ------------------------------------------------------------
    @abstractmethod
    def begin_attempt(self, x: np.ndarray) -> Point | None:
        """Set up an attempt with the options ``self.opt`` (scaling, regularization, memory) and
        return the point at ``x``; None if ``F(x)`` is not finite."""

    @abstractmethod
    def point(self, x: np.ndarray) -> Point | None:
        """The iterate at ``x``; None where ``F(x)`` is not finite."""

    @abstractmethod
    def project(self, x: np.ndarray) -> np.ndarray:
        """``x`` projected onto the set the iterates stay in."""

    @abstractmethod
    def J(self, x: np.ndarray) -> sp.csr_matrix:
        """The Jacobian of ``F`` at ``x`` (n, n)."""

    @abstractmethod
    def gradient(self, pt: Point, J: sp.csr_matrix) -> np.ndarray:
        """``H^T Phi`` (n,), the gradient of ``psi`` where it is differentiable."""

    @abstractmethod
    def eps(self, pt: Point) -> float:
        """The proximal weight of the Newton matrix at ``pt``; 0 while not regularized."""

    @abstractmethod
    def newton_step(self, pt: Point, J: sp.csr_matrix, eps: float) -> np.ndarray | None:
        """The solution ``d`` of ``H_eps d = -Phi``; None if singular or unusable."""

    @abstractmethod
    def lm_direction(self, pt: Point, J: sp.csr_matrix) -> np.ndarray | None:
        """The Levenberg-Marquardt step ``(H^T H + mu I) d = -H^T Phi``; None if it fails."""

    # -- hooks with a default -------------------------------------------------------------------
    def accelerate(self, pt: Point, J: sp.csr_matrix, ref: float) -> Point | None:
        """A cheaper step tried before the Newton ladder (None: none taken)."""
        return None

    def took_newton_step(self, pt: Point, new: Point) -> None:
        """Called after a whole (unit length) Newton step from ``pt`` to ``new``."""
        return None

    def forget(self) -> None:
        """Called at a watchdog return: drop memory tied to the abandoned iterates."""
        return None

    def watchdog(self) -> None:
        """Called at a watchdog return, after :meth:`forget`: more damping from the best point."""
        self.escalate()

    def compiled_attempt(
        self, pt: Point, deadline: float, max_iter: int, history: list[float]
    ) -> tuple[Point, Outcome, str, int] | None:
        """The whole attempt of :func:`iterate` from ``pt`` run by compiled code, with the same
        iterates and result; None when the method has none for this problem (then the loop below
        runs)."""
        return None

    def first_budget(self, budget: int) -> int:
        """The iteration budget of the first attempt."""
        return budget

    def fallback(self) -> tuple[Point | None, Outcome, str] | None:
        """After a first attempt that did not converge: ``(point, outcome, message)`` of another
        algorithm, or None when there is none."""
        return None

    def rescue(self, best: Point, deadline: float, history: list[float]) -> tuple[Point, int, str] | None:
        """After every attempt failed (not at the time limit): another search from the best point
        ``best``; ``(its best point, iterations, note for the message)``, or None when the method
        has none. The point's ``res`` must be the natural residual of the problem as given."""
        return None

    def extras(self) -> dict[str, Any]:
        """Method-specific entries of the result's ``extras``."""
        return {}

    def escalate(self) -> bool:
        """Switch on the regularization for the rest of the attempt; True if it was off."""
        if self.regularized or self.opt.newton_reg <= 0.0 or self.opt.regularize == "never":
            return False
        self.regularized = True
        return True


def with_fields(opt: NewtonOptions, **changes: Any) -> NewtonOptions:
    """``dataclasses.replace(opt, **changes)`` without checking the unchanged fields again (the
    changed ones are checked on assignment, then the cross-field checks run): ~40 us less."""
    new = copy.copy(opt)
    for key, value in changes.items():
        setattr(new, key, value)
    new.validate()
    return new


#: problems of at most this many rows keep their set-up between solves (see :func:`setup_cache`)
SETUP_CACHE_N = 300
_SETUP_CACHE_SIZE = 8
_SETUPS: dict[int, tuple[weakref.ref, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]] = {}


def setup_cache(M: sp.spmatrix | None) -> dict[str, Any] | None:
    """A dict that lives as long as the matrix ``M`` of an affine MCP of at most
    :data:`SETUP_CACHE_N` rows is unchanged: what a method derives from ``M`` alone (its CSR
    copy, transpose, dense copy, row scales, blocks) is kept there and read again by the next solve
    of the same matrix (a re-solve, a sweep, a time step whose matrix did not change) instead of
    made again. None for other problems. The entry is dropped when ``M`` is garbage collected
    or its entries or pattern were changed in place (checked on every lookup: O(nnz)); what is kept
    must not hold ``M`` itself (store None for it), else ``M`` would never be collected."""
    if M is None or not sp.isspmatrix_csr(M) or M.shape[0] > SETUP_CACHE_N:
        return None
    key = id(M)
    entry = _SETUPS.get(key)
    if entry is not None:
        ref, data, indices, indptr, kept = entry
        if (
            ref() is M
            and np.array_equal(M.data, data)
            and np.array_equal(M.indices, indices)
            and np.array_equal(M.indptr, indptr)
        ):
            return kept
        _SETUPS.pop(key, None)  # pops, not del: solves may run in threads
    if len(_SETUPS) >= _SETUP_CACHE_SIZE:
        _SETUPS.pop(next(iter(_SETUPS), None), None)  # the oldest
    kept = {}
    try:
        ref = weakref.ref(M, lambda _, key=key, table=_SETUPS: table.pop(key, None))
    except TypeError:
        return None
    _SETUPS[key] = (ref, M.data.copy(), M.indices.copy(), M.indptr.copy(), kept)
    return kept


_TABLES: list[dict] = []  # the methods' own tables of kept set-ups (see kept_table)


def kept_table() -> dict:
    """A new dict for a method's own set-ups kept between solves (e.g. block structures), emptied
    by :func:`clear_setup_cache` with the others."""
    table: dict = {}
    _TABLES.append(table)
    return table


def clear_setup_cache() -> None:
    """Forget every set-up kept by :func:`setup_cache` and in the tables of :func:`kept_table`
    (the next solves make theirs again)."""
    _SETUPS.clear()
    for table in _TABLES:
        table.clear()


def dense_lu(H: np.ndarray, pivot_tol: float = 0.0) -> Callable[[np.ndarray], np.ndarray] | None:
    """LAPACK's LU of the square ``H`` (overwritten when Fortran-ordered): a solver of ``H y = r``,
    or None when a pivot is at most ``pivot_tol * max(1, max|H|)`` (0: exactly zero).

    LAPACK is called directly, not through ``scipy.linalg.lu_factor``: that one warns on a zero
    pivot, and silencing a warning (``warnings.catch_warnings``) is not thread-safe, so solves
    running in threads (a Dask worker's) let it through."""
    bound = pivot_tol * max(1.0, float(np.abs(H).max())) if pivot_tol > 0.0 and H.size else 0.0
    lu, piv, info = sla.lapack.dgetrf(H, overwrite_a=True)
    if info != 0 or (bound > 0.0 and np.abs(np.diag(lu)).min() <= bound):
        return None
    return lambda r: sla.lapack.dgetrs(lu, piv, r)[0]


def arc_search(
    method: NewtonMethod, pt: Point, d: np.ndarray, grad: np.ndarray, ref: float, min_step: float
) -> Point | None:
    """Armijo search on ``x(t) = P(x + t d)``: accept ``psi(x(t)) <= ref + sigma g.(x(t) - x)``,
    ``t = 1, backtrack, backtrack^2, ... >= min_step``; ``P`` is ``method.project``. None on
    failure; the accepted ``t`` is left in ``method.last_step``."""
    opt = method.opt
    t = 1.0
    while t >= min_step:
        xt = method.project(pt.x + t * d)
        dec = float(grad @ (xt - pt.x))
        if dec < 0.0:
            cand = method.point(xt)
            if cand is not None and cand.psi <= ref + opt.armijo_sigma * dec:
                method.last_step = t
                return cand
        t *= opt.backtrack
    return None


def linear_rate(history: list[float]) -> bool:
    """True when the last step cut the natural residual by a factor in [1.1, 100]: linear, not
    quadratic, convergence, the mark of a degenerate (singular) solution."""
    if len(history) < 2 or not history[-2] > 0.0:
        return False
    return 0.01 * history[-2] <= history[-1] <= 0.9 * history[-2]


def _is_descent(grad: np.ndarray, d: np.ndarray, opt: NewtonOptions) -> bool:
    """``grad . d <= -rho ||d||^p`` (sufficient descent test of De Luca, Facchinei, Kanzow)."""
    return float(grad @ d) <= -opt.descent_rho * math.sqrt(float(d @ d)) ** opt.descent_p


def step(method: NewtonMethod, pt: Point, J: sp.csr_matrix, ref: float) -> Point | str:
    """The next iterate from ``pt`` (nonmonotone reference ``ref``): a method's accelerating step,
    else the ladder Newton -> regularized Newton -> Levenberg-Marquardt -> projected gradient.
    A message (str) instead when no step decreases the merit enough: the attempt ends there."""
    opt = method.opt
    new = method.accelerate(pt, J, ref)
    if new is not None:
        return new
    grad = method.gradient(pt, J)
    gnorm = float(np.abs(pt.x - method.project(pt.x - grad)).max(initial=0.0))
    if gnorm == 0.0 or not math.isfinite(gnorm):
        return "projected merit gradient is zero or not finite at a non-solution"
    d = method.newton_step(pt, J, method.eps(pt))
    if (d is None or not _is_descent(grad, d, opt)) and method.escalate():
        d = method.newton_step(pt, J, method.eps(pt))
    newton = d is not None and _is_descent(grad, d, opt)
    if not newton:
        d = method.lm_direction(pt, J)
        if d is not None and not _is_descent(grad, d, opt):
            d = None
    if d is not None:
        new = arc_search(method, pt, d, grad, ref, opt.newton_min_step)
        if new is None or (method.last_step < 1.0 and method.escalate_on_short_step):
            method.escalate()
        elif newton:
            method.took_newton_step(pt, new)
    if new is None:
        method.n_gradient += 1
        new = arc_search(method, pt, -grad, grad, ref, opt.min_step)
    if new is None:
        return "line search failed: no sufficient decrease of the merit function"
    return new


def iterate(
    method: NewtonMethod, pt: Point, deadline: float, max_iter: int, history: list[float]
) -> tuple[Point, Outcome, str, int]:
    """One attempt from ``pt`` with the options ``method.opt``: ``(best point, outcome, message,
    iterations)``; appends the natural residual of every new iterate to ``history``.

    The best point is the one with the smallest natural residual. Stops when it is below ``tol``
    (after up to ``refine_iter`` more steps while the convergence is only linear), at
    ``max_iter``, at the deadline, or when the best residual has not dropped by 1% for
    ``stall_iter`` iterations (half of that switches the regularization on and counts afresh).
    The watchdog returns to the last point that decreased ``psi`` when ``nonmonotone_memory``
    steps in a row did not.
    """
    done = method.compiled_attempt(pt, deadline, max_iter, history)
    if done is not None:
        return done
    opt = method.opt
    refine_iter = opt.refine_iter if method.refines else 0
    best, best_it = pt, 0
    watch, watch_count = pt, 0
    merits = [pt.psi]
    it = refine = 0
    while True:
        if best.res <= opt.tol:
            if refine >= refine_iter or not linear_rate(history):
                return best, Outcome.CONVERGED, "natural residual below tolerance", it
            refine += 1
            method.n_refine += 1
        if it >= max_iter:
            return best, Outcome.ITERATION_LIMIT, "iteration limit reached", it
        if time.perf_counter() > deadline:
            return best, Outcome.TIME_LIMIT, f"time limit {opt.time_limit} s reached", it
        if it - best_it >= opt.stall_iter // 2 and method.escalate():
            best_it = it
        if it - best_it >= opt.stall_iter:
            message = f"no progress in the natural residual for {opt.stall_iter} iterations"
            return best, Outcome.FAILED, message, it
        it += 1
        if watch_count >= opt.nonmonotone_memory:
            method.n_watchdog += 1
            method.forget()
            method.watchdog()
            pt, merits, watch_count = watch, [watch.psi], 0
        ref = max(merits[-opt.nonmonotone_memory :])
        new = step(method, pt, method.J(pt.x), ref)
        if isinstance(new, str):
            return best, Outcome.FAILED, new, it
        pt = new
        history.append(pt.res)
        merits.append(pt.psi)
        if pt.res < best.res:
            if pt.res < 0.99 * best.res:
                best_it = it
            best = pt
        if pt.psi < (1.0 - 1e-4) * watch.psi:
            watch, watch_count = pt, 0
        else:
            watch_count += 1


@dataclass
class _Tally:
    """What the attempts of :func:`run` leave: the best point (None if ``F(x0)`` is not finite),
    the fallback's and the rescue's point when it was the best, iterations, the last outcome and
    message, the note of the fallback that did not solve and the rescue's note."""

    best: Point | None = None
    fallback_point: Point | None = None
    rescue_point: Point | None = None
    rescue_note: str = ""
    iterations: int = 0
    outcome: Outcome = Outcome.FAILED
    message: str = ""
    note: str = ""


def run(method: NewtonMethod, x: np.ndarray, t0: float, c0: float) -> SolverResult:
    """All attempts of ``method`` from the starting point ``x`` (already projected): the first
    with ``method.opt``, then the restarts of ``method.restarts`` while an attempt fails and the
    iteration and time budgets last. ``t0, c0``: the solve's start in wall and process time."""
    opt = method.opt
    history: list[float] = []
    tally = _attempts(method, x, t0, history)
    method.opt = opt
    outcome, message = _verdict(method, tally)
    res = tally.best.res if tally.best is not None else math.inf
    return SolverResult(
        x=tally.best.x if tally.best is not None else x,
        outcome=outcome,
        iterations=tally.iterations,
        message=message,
        extras=_extras(method, history, res, t0, c0),
    )


def _attempts(method: NewtonMethod, x: np.ndarray, t0: float, history: list[float]) -> _Tally:
    """Run the first attempt, the fallback after it, and the restarts, until one solves, the
    budgets run out, or the restarts are used up."""
    opt = method.opt
    deadline = math.inf if opt.time_limit is None else t0 + opt.time_limit
    tally = _Tally()
    ladder = [{}] + (list(method.restarts) if opt.restarts else [])
    for k, changes in enumerate(ladder):
        method.opt = replace(opt, **changes) if changes else opt
        method.n_restarts = k
        start = method.begin_attempt(x)
        if start is None:
            tally.message = tally.message or "F is not finite at the starting point"
            break
        history.append(start.res)
        tally.best = tally.best or start
        budget = opt.max_iter - tally.iterations
        # the first attempt may use the whole budget; each restart an equal share of what is left,
        # so that a slow restart cannot starve the next ones
        budget = method.first_budget(budget) if k == 0 else -(-budget // (len(ladder) - k))
        pt, tally.outcome, tally.message, its = iterate(method, start, deadline, budget, history)
        tally.iterations += its
        if pt.res < tally.best.res:
            tally.best = pt
        if tally.best.res <= opt.tol or tally.outcome in (Outcome.CONVERGED, Outcome.TIME_LIMIT):
            break
        if k == 0 and _use_fallback(method, tally):
            break
        if tally.iterations >= opt.max_iter:
            tally.outcome = Outcome.ITERATION_LIMIT
            break
    failed = tally.outcome in (Outcome.FAILED, Outcome.ITERATION_LIMIT)
    if tally.best is not None and tally.best.res > opt.tol and failed:
        method.opt = opt
        found = method.rescue(tally.best, deadline, history)
        if found is not None:
            pt, its, tally.rescue_note = found
            tally.iterations += its
            if pt.res < tally.best.res:
                tally.best = tally.rescue_point = pt
            if time.perf_counter() > deadline and pt.res > opt.tol:
                tally.outcome, tally.message = Outcome.TIME_LIMIT, f"time limit {opt.time_limit} s reached"
    return tally


def _use_fallback(method: NewtonMethod, tally: _Tally) -> bool:
    """Run the method's fallback after the first attempt; True when it ends the run (solved, or
    a certificate of infeasibility)."""
    alt = method.fallback()
    if alt is None:
        return False
    cand, outcome, message = alt
    if cand is not None and cand.res < tally.best.res:
        tally.best = tally.fallback_point = cand
    if tally.best.res <= method.opt.tol or outcome is Outcome.INFEASIBLE:
        tally.outcome, tally.message = outcome, message
        return True
    tally.note = f"; pivoting fallback: {message}"
    return False


def _verdict(method: NewtonMethod, tally: _Tally) -> tuple[Outcome, str]:
    """The outcome and message of the run: CONVERGED iff the best residual is below ``tol``."""
    opt, outcome, message = method.opt, tally.outcome, tally.message
    if outcome is Outcome.ITERATION_LIMIT:
        message = f"iteration limit {opt.max_iter} reached"
    message += tally.note
    if tally.best is not None and tally.best.res <= opt.tol:
        outcome, message = Outcome.CONVERGED, "natural residual below tolerance"
        if tally.best is tally.fallback_point:
            message += " (Lemke's method, after the Newton attempt stalled)"
        elif tally.best is tally.rescue_point:
            message += f" ({tally.rescue_note})"
        return outcome, message
    if tally.rescue_note:
        message += f"; {tally.rescue_note}"
    if method.n_restarts and outcome is not Outcome.INFEASIBLE:
        message = f"{message} (after {method.n_restarts} restarts)"
    return outcome, message


def _extras(method: NewtonMethod, history: list[float], res: float, t0: float, c0: float) -> dict[str, Any]:
    """The result's ``extras``: counters of both methods, then the method's own."""
    return {
        "residual": res,
        "residual_history": history,
        "residual_history_length": len(history),
        "factorizations": method.n_factor,
        "gradient_steps": method.n_gradient,
        "lm_steps": method.n_lm,
        "watchdog_restarts": method.n_watchdog,
        "refine_steps": method.n_refine,
        "restarts": method.n_restarts,
        "regularized": method.regularized,
        **method.extras(),
        "f_evals": method.n_feval,
        "j_evals": method.n_jeval,
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
    }
