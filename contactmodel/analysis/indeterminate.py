"""Statically indeterminate contact forces: internal-force directions among the loaded contacts.

A set of contact forces c with W c = G^T c fixed moves the bodies the same way. When the
rows of the contacts that carry load and roll (or stick) are linearly dependent in G, a
nonzero d with G[rows]^T d = 0 exists: adding a small multiple of d changes the forces and
not the motion. Where those contacts carry their load strictly inside their friction sets
(c_n > 0, friction below its limit), every small enough step along d is again a solution,
so the forces are not unique; ``cm.decide`` proves it case by case (its "continuum test").

:func:`internal_force_directions` counts the directions (the dimension of the null space of
G[rows]^T); zero means the loaded rolling contacts determine their forces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

#: relative threshold of the singular values counted as zero (of the largest one)
RANK_TOL = 1e-9


def internal_force_directions(G, rows: Sequence[int]) -> int:
    """Dimension of {d : G[rows]^T d = 0}: the internal-force directions of ``rows``.

    ``G``: (m, nq) contact Jacobian (dense or scipy sparse); ``rows``: the row indices (force
    components) that may change. Returns 0 when the rows are independent."""
    rows = list(rows)
    if not rows:
        return 0
    block = G[rows]
    block = block.toarray() if hasattr(block, "toarray") else np.asarray(block, dtype=float)
    s = np.linalg.svd(block, compute_uv=False)
    if s.size == 0 or s[0] == 0.0:
        return len(rows)
    return len(rows) - int(np.sum(s > RANK_TOL * s[0]))


def loaded_rolling_rows(
    contact_rows: Mapping[str, Mapping[str, int]],
    forces: Mapping[str, Sequence[float]],
    modes: Mapping[str, str],
    load_tol: float = 1e-9,
) -> list[int]:
    """The rows of the contacts whose normal force exceeds ``load_tol`` (N, or N s for
    impulses) and whose mode is not a sliding or separating one (every component of such a
    contact may change). ``forces[name]``: (c_n, ...); ``modes[name]``: the contact's mode."""
    out: list[int] = []
    for name, comp in contact_rows.items():
        force = forces.get(name)
        mode = modes.get(name, "")
        if force is None or not np.isfinite(force[0]) or force[0] <= load_tol:
            continue
        if mode.startswith(("slide", "separate", "free")):
            continue
        out.extend(comp.values())
    return out


def indeterminacy(problem, solution) -> int:
    """Internal-force directions of a solved contact problem (0: the loaded rolling contacts'
    forces are determined). ``problem``: a formulated :class:`~contactmodel.Problem` with an
    Assembly (G, contact_rows); ``solution``: its :class:`~contactmodel.Solution`."""
    assembly = problem.assembly
    if not hasattr(assembly, "G") or not hasattr(assembly, "contact_rows"):
        return 0
    forces = {c.name: c.force for c in solution.contacts}
    modes = {c.name: c.mode for c in solution.contacts}
    return internal_force_directions(assembly.G, loaded_rolling_rows(assembly.contact_rows, forces, modes))


def note(directions: int, names: Iterable[str] = ()) -> str:
    """A one-line warning for a table or a plot, '' when ``directions`` is 0."""
    if directions <= 0:
        return ""
    where = ", ".join(names)
    return (
        f"forces not unique: statically indeterminate ({directions} internal-force "
        f"direction{'s' if directions > 1 else ''}{' among ' + where if where else ''}); "
        "the solver returns one of many (cm.decide proves it)"
    )


__all__ = ["RANK_TOL", "indeterminacy", "internal_force_directions", "loaded_rolling_rows", "note"]
