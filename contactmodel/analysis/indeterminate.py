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

from contactmodel.friction.sets import BoxPart

#: relative threshold of the singular values counted as zero (of the largest one)
RANK_TOL = 1e-9
#: a friction component lies strictly inside its part when it is inside by more than this
#: fraction of the part's size at the contact's normal force
BOUNDARY_TOL = 1e-6


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
    laws: Mapping | None = None,
) -> np.ndarray:
    """The rows along which the loaded contacts' forces may change without leaving their
    friction laws: every row of a contact that rolls (sticks), and for a sliding contact the
    one combined row G_n + sum_j (c_j / c_n) G_j (its friction is fixed by its normal force and
    its sliding direction). Contacts whose normal force is at most ``load_tol`` (N, or N s for
    impulses) or that separate are left out. ``forces[name]``: (c_n, c_t, ...) in the order of
    ``contact_rows[name]``; ``modes[name]``: the contact's mode. ``laws[name]`` (optional): the
    contact's friction law; when it describes its friction set, the rows are read from the set at
    the force instead (:func:`_set_rows`: a frictionless contact gives its normal row alone, a
    pyramid contact sliding along t keeps its o row while |c_o| is inside its interval, where the
    modes alone give one combined row). Returns a dense (k, nq) array."""
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
        law = None if laws is None else laws.get(name)
        if law is not None and law.describes_set:
            out.extend(_set_rows(dense, comp, np.asarray(force, dtype=float), law, mode.startswith("slide")))
        elif mode.startswith("slide"):
            ratios = np.asarray(force, dtype=float)[: len(rows)] / force[0]
            out.append(ratios @ dense[rows])
        else:
            out.extend(dense[rows])
    return np.array(out).reshape(len(out), dense.shape[1])


def _set_rows(
    dense: np.ndarray, comp: Mapping[str, int], force: np.ndarray, law, sliding: bool
) -> list[np.ndarray]:
    """The rows of one loaded contact read from its law's friction set (components in no part
    carry no force and give no row). Rolling: the normal row and the row of every component of
    the set. Sliding, at ``force`` (n, t, o[, r] in the order of ``comp``): the row of every
    component strictly inside its part (an interval axis with |c_i| < w_i c_n, a round or
    polytope part with the force strictly inside; relative margin :data:`BOUNDARY_TOL`), and one
    combined row G_n + sum_j (c_j / c_n) G_j of the normal and the components on their part's
    boundary (fixed by the normal force and the sliding direction)."""
    value = {axis: float(force[i]) for i, axis in enumerate(comp)}
    cn = value["n"]
    combined = dense[comp["n"]].copy()
    free: list[np.ndarray] = []
    for part in law.friction_set().parts:
        axes = [a for a in part.components if a in comp]
        f = np.array([value[a] for a in axes])
        if not sliding:
            inside = np.ones(len(axes), dtype=bool)
        elif isinstance(part, BoxPart):
            w = part.w[[part.components.index(a) for a in axes]]
            inside = np.abs(f) < w * cn * (1.0 - BOUNDARY_TOL)
        else:
            inside = np.full(len(axes), part.excess(cn, f) < -BOUNDARY_TOL * cn)
        for axis, fa, interior in zip(axes, f, inside):
            if interior:
                free.append(dense[comp[axis]])
            else:
                combined = combined + (fa / cn) * dense[comp[axis]]
    return [combined, *free]


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
    laws = getattr(problem, "laws", None)
    return internal_force_directions(
        loaded_block(assembly.G, assembly.contact_rows, forces, modes, laws=laws)
    )


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


def table_note(problem, solution) -> str:
    """The note :meth:`Solution.table <contactmodel.Solution.table>` prints under the contact
    table when the loaded contacts' forces are not unique, '' when they are determined. The count
    is :func:`indeterminacy`: the rows of the loaded contacts (:func:`loaded_block`, contacts
    with a normal force above 1e-9) whose Jacobian has a rank below their number, singular values
    at most :data:`RANK_TOL` (1e-9) times the largest counting as zero. Where the rolling
    contacts carry their load strictly inside their friction sets, a small step along any such
    direction is again a solution with the same motion; ``cm.decide`` proves it case by case."""
    directions = indeterminacy(problem, solution)
    if directions <= 0:
        return ""
    plural = "s" if directions > 1 else ""
    return (
        f"note: the contact forces are not unique: the loaded contacts are statically indeterminate "
        f"({directions} internal-force direction{plural}: their Jacobian rows are rank deficient). "
        "Every such split of the forces gives this same motion; the split shown is one of many, "
        "not a property of the physics (cm.decide proves it case by case)."
    )


__all__ = [
    "BOUNDARY_TOL",
    "RANK_TOL",
    "indeterminacy",
    "internal_force_directions",
    "loaded_block",
    "note",
    "table_note",
]
