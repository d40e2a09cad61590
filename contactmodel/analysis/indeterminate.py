"""Statically indeterminate contact forces: internal-force directions among the loaded contacts.

Contact forces c with the same G^T c move the bodies the same way. When the rows along
which the loaded contacts' forces may change (every row of a rolling contact; for a sliding
one the single row that scales its normal force with its friction, :func:`loaded_block`) are
linearly dependent, a nonzero d with B^T d = 0 exists: adding a small multiple of d changes
the forces and not the motion. Where the rolling contacts carry their load strictly inside
their friction sets, every small enough step along d is again a solution, so the forces are
not unique; ``cm.decide`` proves it case by case (its "continuum test").

:func:`internal_force_directions` counts the directions (the dimension of the null space of
B^T); zero means the loaded contacts determine their forces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

#: relative threshold of the singular values counted as zero (of the largest one)
RANK_TOL = 1e-9


def internal_force_directions(G, rows: Sequence[int] | None = None) -> int:
    """Dimension of {d : B^T d = 0} for B = G[rows] (or G itself when ``rows`` is None): the
    internal-force directions of those rows.

    ``G``: (m, nq) contact Jacobian or a block of combined rows (dense or scipy sparse).
    Returns 0 when the rows are independent."""
    block = G if rows is None else G[list(rows)]
    block = block.toarray() if hasattr(block, "toarray") else np.asarray(block, dtype=float)
    if block.shape[0] == 0:
        return 0
    s = np.linalg.svd(block, compute_uv=False)
    if s.size == 0 or s[0] == 0.0:
        return block.shape[0]
    return block.shape[0] - int(np.sum(s > RANK_TOL * s[0]))


def loaded_block(
    G,
    contact_rows: Mapping[str, Mapping[str, int]],
    forces: Mapping[str, Sequence[float]],
    modes: Mapping[str, str],
    load_tol: float = 1e-9,
) -> np.ndarray:
    """The rows along which the loaded contacts' forces may change without leaving their
    friction laws: every row of a contact that rolls (sticks), and for a sliding contact the
    one combined row G_n + sum_j (c_j / c_n) G_j (its friction is fixed by its normal force and
    its sliding direction). Contacts whose normal force is at most ``load_tol`` (N, or N s for
    impulses) or that separate are left out. ``forces[name]``: (c_n, c_t, ...) in the order of
    ``contact_rows[name]``; ``modes[name]``: the contact's mode. Returns a dense (k, nq) array."""
    dense = G.toarray() if hasattr(G, "toarray") else np.asarray(G, dtype=float)
    out: list[np.ndarray] = []
    for name, comp in contact_rows.items():
        force = forces.get(name)
        mode = modes.get(name, "")
        if force is None or not np.isfinite(force[0]) or force[0] <= load_tol:
            continue
        if mode.startswith(("separate", "free")):
            continue
        rows = list(comp.values())
        if mode.startswith("slide"):
            ratios = np.asarray(force, dtype=float)[: len(rows)] / force[0]
            out.append(ratios @ dense[rows])
        else:
            out.extend(dense[rows])
    return np.array(out).reshape(len(out), dense.shape[1])


def indeterminacy(problem, solution) -> int:
    """Internal-force directions of a solved contact problem (0: the loaded contacts' forces
    are determined; see :func:`loaded_block`). ``problem``: a formulated
    :class:`~contactmodel.Problem` with an Assembly (G, contact_rows); ``solution``: its
    :class:`~contactmodel.Solution`."""
    assembly = problem.assembly
    if not hasattr(assembly, "G") or not hasattr(assembly, "contact_rows"):
        return 0
    forces = {c.name: c.force for c in solution.contacts}
    modes = {c.name: c.mode for c in solution.contacts}
    return internal_force_directions(loaded_block(assembly.G, assembly.contact_rows, forces, modes))


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


__all__ = ["RANK_TOL", "indeterminacy", "internal_force_directions", "loaded_block", "note"]
