"""The LCP of a formulated problem, pair by pair, and its dependence on the applied forces.

For a reduced-form problem whose laws are all polyhedral (Frictionless, Planar, Pyramid,
Polygonal, or any law at a sliding contact) the compiled MCP is the LCP
``0 <= z _|_ y = M z + q >= 0``. Its constant is affine in the assembly's b,
``q = q0 + S b``, and b is affine in the applied generalized forces f of the free coordinates,
``b = G_F M_FF^-1 f_F + (prescribed and G_dot nu terms)``. Choosing coordinates C of f as the
"wrench" w gives ``q = q_rest + Q w`` with ``Q = S (G_F M_FF^-1)[:, C]``: gravity, declared
wrenches and velocity products acting on C are part of w; everything else is ``q_rest``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from contactmodel._pyomo import pe
from contactmodel.assembly import Assembly
from contactmodel.errors import FormulationError
from contactmodel.formulation import Problem
from contactmodel.mcp.types import Pair
from contactmodel.modes import pairs_of


@dataclass
class WrenchMap:
    """q = q_rest + Q w for the chosen coordinates (see module docstring).

    ``coordinates`` names the d entries of w; ``w0`` (d,) is their current value in the
    problem; ``M`` (n, n) and ``q0`` (n,) are the LCP at the current data.
    """

    M: np.ndarray
    q0: np.ndarray
    Q: np.ndarray  # (n, d)
    q_rest: np.ndarray  # (n,)
    w0: np.ndarray  # (d,)
    coordinates: list[str]
    pairs: list[Pair]

    @property
    def homogeneous(self) -> bool:
        """True when q_rest = 0: the mode sets are cones in w-space."""
        scale = max(
            1.0, float(np.abs(self.Q).max(initial=0.0)) * max(1.0, float(np.abs(self.w0).max(initial=0)))
        )
        return float(np.abs(self.q_rest).max(initial=0.0)) <= 1e-10 * scale


def q_of_b(problem: Problem) -> tuple[np.ndarray, np.ndarray]:
    """(q at b = 0, S = dq/db) of the compiled LCP; model.b is restored afterwards."""
    compiled = problem.compile()
    model = problem.model
    b = np.array([pe.value(model.b[i]) for i in range(len(problem.assembly.rows))])
    m = b.size
    try:
        for i in range(m):
            model.b[i] = 0.0
        compiled.update()
        q_zero = compiled.mcp.q.copy()
        S = np.zeros((q_zero.size, m))
        for i in range(m):
            model.b[i] = 1.0
            compiled.update()
            S[:, i] = compiled.mcp.q - q_zero
            model.b[i] = 0.0
    finally:
        for i in range(m):
            model.b[i] = float(b[i])
        compiled.update()
    return q_zero, S


def check_lcp(problem: Problem) -> None:
    """Raise FormulationError unless the problem compiles to a standard LCP in reduced form."""
    if problem.form != "reduced":
        raise FormulationError("mode cones need the reduced form: problem.reformulate(form='reduced')")
    if not problem.compile().mcp.is_lcp:
        raise FormulationError(
            "mode cones need an LCP: use polyhedral laws (Planar, Pyramid, Polygonal, Frictionless) "
            "at rolling contacts, e.g. problem.reformulate(friction=cm.Pyramid(mu))"
        )


def coordinate_indices(problem: Problem, body: str | None, coordinates) -> list[int]:
    """Indices into the assembly's coordinates of w: a body's six, the given names, or all free."""
    asm = problem.assembly
    if not isinstance(asm, Assembly):
        raise FormulationError("no bodies behind a problem given by matrices: use space='b'")
    names = asm.coordinates
    if coordinates is not None:
        idx = []
        for c in coordinates:
            full = c if c in names else (f"{body}.{c}" if body else c)
            if full not in names:
                raise FormulationError(f"unknown coordinate '{c}' (coordinates: {names})")
            idx.append(names.index(full))
    elif body is not None:
        idx = [i for i, n in enumerate(names) if n.startswith(f"{body}.")]
        if not idx:
            raise FormulationError(f"unknown body '{body}' (coordinates: {names})")
    else:
        idx = list(range(len(names)))
    if any(asm.prescribed[i] for i in idx):
        raise FormulationError("w may not include coordinates whose acceleration is prescribed")
    return idx


def wrench_map(problem: Problem, body: str | None = None, coordinates=None, space: str = "f") -> WrenchMap:
    """The LCP of ``problem`` as a function of the wrench w (see module docstring).

    ``space="f"``: w = applied generalized forces on ``body`` (its 6 coordinates), on the named
    ``coordinates`` (e.g. ``["disc.vx", "disc.vy", "disc.wz"]``), or on every free coordinate.
    ``space="b"``: w = b itself (m entries; also the only choice for matrix-given problems).
    """
    check_lcp(problem)
    compiled = problem.compile()
    M = compiled.mcp.M.toarray()
    q = compiled.mcp.q.copy()
    q_zero, S = q_of_b(problem)
    asm = problem.assembly
    b = np.asarray(asm.b, dtype=float)
    if space == "b" or not isinstance(asm, Assembly):
        B = np.eye(b.size)
        names = [f"b[{c}.{k}]" for c, k in asm.rows]
        w0 = b.copy()
    else:
        idx = coordinate_indices(problem, body, coordinates)
        free = np.flatnonzero(asm.free)
        pos = {int(j): k for k, j in enumerate(free)}
        GF = asm.G[:, asm.free]
        GMinv = np.asarray((GF @ asm.M_free_inverse).todense())
        B = GMinv[:, [pos[i] for i in idx]]
        names = [asm.coordinates[i] for i in idx]
        w0 = asm.f[idx].astype(float)
    Q = S @ B
    q_rest = q_zero + S @ (b - B @ w0)
    return WrenchMap(M, q, Q, q_rest, w0, names, pairs_of(problem))
