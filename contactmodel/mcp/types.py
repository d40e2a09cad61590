"""The numeric box-constrained MCP every solver works on.

Find x with lb <= x <= ub such that, componentwise,
    x_i = lb_i      => F_i(x) >= 0
    lb_i < x_i < ub_i => F_i(x) = 0
    x_i = ub_i      => F_i(x) <= 0
(lb_i = -inf, ub_i = +inf makes row i an equation with a free variable). An LCP is the case
F(x) = M x + q with lb = 0, ub = +inf.

An MCP may also hold Coulomb cone blocks (``cones``): three variables x[index[j]] = c (free in lb,
ub) and the rows F[index[j]] = a at the same positions form the second-order-cone complementarity
c in K_mu _|_ a_hat in K_mu^* of :mod:`contactmodel.mcp.cones` instead of three box rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from contactmodel import validate
from contactmodel.errors import FormulationError
from contactmodel.mcp.cones import residual as cone_residual
from contactmodel.sparse_product import dense_csr


@dataclass(frozen=True)
class CoulombBlocks:
    """Coulomb cone blocks of an MCP: ``index`` (k, d) int, the MCP positions of (normal, t, o) of
    each block, or of (normal, t, o, r) (d = 4: a soft-finger contact's block of scaled variables;
    one d for all blocks, a 1-D ``index`` read as d = 3); ``mu`` (k,) its friction coefficient
    (>= 0)."""

    index: np.ndarray
    mu: np.ndarray

    def __post_init__(self) -> None:
        index = np.asarray(self.index, dtype=np.int64)
        index = index if index.ndim == 2 else index.reshape(-1, 3)
        if index.shape[1] not in (3, 4):
            raise FormulationError(
                f"CoulombBlocks.index must have 3 or 4 columns (n, t, o[, r]) per block, got {index.shape[1]}"
            )
        mu = np.asarray(self.mu, dtype=float).reshape(-1)
        if mu.shape[0] != index.shape[0]:
            raise FormulationError(
                f"CoulombBlocks.mu has {mu.shape[0]} entries for {index.shape[0]} blocks: give one per block"
            )
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "mu", mu)

    @property
    def k(self) -> int:
        return int(self.index.shape[0])

    @property
    def d(self) -> int:
        """The components of each block: 3 (n, t, o) or 4 (n, t, o, r)."""
        return int(self.index.shape[1])


@dataclass(frozen=True)
class QuadraticRows:
    """What a compiled solver loop reads of an MCP whose rows are linear and quadratic:
    ``F(x) = (L (s x) + q + Q(s x)) / s`` with ``Q_i(y) = sum of qv[k] y[qa[k]] y[qb[k]]`` over
    the terms k with ``qi[k] = i``, and ``J(x)`` the sum of L and Q's derivatives at ``s x``.
    ``parts()`` gives ``(L, q, qi, qa, qb, qv)`` as they are now (L canonical CSR (n, n); the
    MCP's matrix and constants may change in place between solves), or None when the MCP's own
    F and J are not computed in a way a loop can repeat exactly (see
    :meth:`contactmodel.mcp.compiled.Functions.quadratic_parts`); ``s`` is a power of two (the
    normalization of :mod:`contactmodel.mcp.scale`)."""

    parts: Callable[[], tuple | None]
    s: float = 1.0


@dataclass
class MCP:
    """A box-constrained mixed complementarity problem (see module docstring).

    ``F(x) -> (n,)`` and ``J(x) -> (n, n)`` sparse CSR Jacobian dF/dx. ``M, q`` are set when F
    is affine (``F(x) = M @ x + q``). ``names[i]`` is a readable name of variable i / row i.
    ``hess(x, w)`` returns sum_i w_i * Hessian(F_i)(x) (n x n sparse, symmetric); None means F is
    affine (zero second derivatives). ``cones``: Coulomb cone blocks (None: a plain box MCP).
    ``quadratic``: F's linear and quadratic parts when those are all it has (see
    :class:`QuadraticRows`), for a solver's compiled loop; None otherwise.
    """

    F: Callable[[np.ndarray], np.ndarray]
    J: Callable[[np.ndarray], sp.csr_matrix]
    lb: np.ndarray
    ub: np.ndarray
    x0: np.ndarray | None = None
    names: Sequence[str] = field(default_factory=list)
    M: sp.csr_matrix | None = None
    q: np.ndarray | None = None
    hess: Callable[[np.ndarray, np.ndarray], sp.csr_matrix] | None = None
    cones: CoulombBlocks | None = None
    quadratic: QuadraticRows | None = None

    @property
    def n(self) -> int:
        return int(self.lb.shape[0])

    @property
    def is_linear(self) -> bool:
        return self.M is not None

    @property
    def is_lcp(self) -> bool:
        """True when this is a standard LCP: affine F, lb = 0, ub = +inf, no cone blocks."""
        return (
            self.is_linear
            and self.cones is None
            and bool(np.all(self.lb == 0.0) and np.all(np.isinf(self.ub)))
        )

    @classmethod
    def from_lcp(cls, M, q, names: list[str] | None = None) -> MCP:
        """The LCP 0 <= z _|_ M z + q >= 0 as an MCP."""
        q = validate.real_array(q, "LCP q", ndim=1, error=FormulationError)
        n = q.shape[0]
        if sp.issparse(M):
            M = sp.csr_matrix(M, dtype=float)
            if M.shape != (n, n) or not np.all(np.isfinite(M.data)):
                raise FormulationError(
                    f"LCP M must be a finite ({n}, {n}) matrix for q of length {n}, got {M.shape}"
                )
        else:
            M = dense_csr(validate.real_array(M, "LCP M", shape=(n, n), error=FormulationError))
        if names is not None:
            names = validate.names(names, "LCP names", n, error=FormulationError)
        return cls(
            F=lambda x: M @ x + q,
            J=lambda x: M,
            lb=np.zeros(n),
            ub=np.full(n, np.inf),
            x0=np.zeros(n),
            names=list(names) if names is not None else IndexNames(n),
            M=M,
            q=q,
        )


class IndexNames(Sequence):
    """The names "z[0]", ..., "z[n-1]" of an LCP's variables, each made when read."""

    def __init__(self, n: int) -> None:
        self._n = n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [f"z[{k}]" for k in range(self._n)[i]]
        k = range(self._n)[i]  # IndexError past the end; negative i from the end
        return f"z[{k}]"

    def __len__(self) -> int:
        return self._n


def natural_residual(mcp: MCP, x: np.ndarray, F: np.ndarray | None = None) -> np.ndarray:
    """Natural-map residual x - mid(lb, x - F(x), ub), componentwise; zero exactly at solutions.

    At the positions of cone blocks it is the fc3d natural map c - Proj_{K_mu}(c - a_hat) instead.
    ``F``: F(x), when the caller has it.
    """
    x = np.asarray(x, dtype=float)
    F = mcp.F(x) if F is None else F
    out = x - np.clip(x - F, mcp.lb, mcp.ub)
    if mcp.cones is not None and mcp.cones.k:
        idx = mcp.cones.index
        out[idx] = cone_residual(x[idx], F[idx], mcp.cones.mu)
    return out


@dataclass
class Pair:
    """One complementarity pair of the compiled MCP: ``contact[NAME].pairs[key]``."""

    contact: str
    key: str
    index: int  # MCP index (variable and row)
    variables: Sequence = field(repr=False)  # the MCP's Pyomo variables

    @property
    def var(self):
        """The Pyomo variable (read from the MCP's variables when asked: a problem compiled
        without its model builds it then)."""
        return self.variables[self.index]

    @property
    def variable(self) -> str:
        """The Pyomo variable's name (computed on use: Pyomo names are slow to build)."""
        return self.var.name
