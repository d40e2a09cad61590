"""Contact generation between steps: closed-form pair tests of body shapes.

A :class:`Plane` is a fixed half-space boundary (the ground, an incline). Bodies declared with a
:class:`~contactmodel.shapes.Box` or :class:`~contactmodel.shapes.Sphere` shape get contacts with
every plane: a box one per vertex, a sphere one at its lowest point. Between two shaped bodies
(:func:`pair_candidates`):

- sphere-sphere: one contact on the line of centres, normal from b's centre to a's;
- sphere-box: one contact at the sphere's point nearest the box (the sphere is body a), normal
  from the box's nearest point to the centre, or along the nearest face's normal when the centre
  is inside the box;
- box-box: the face of either box that best separates them (separating-axis test over the 12
  face normals; the higher-indexed box's face unless the other box's separates by ``TIE``
  times the smallest half extent more, so nearly parallel faces do not swap roles from step to
  step) is the reference
  face; the most anti-parallel face of the other (incident) box is clipped to its sides, and of
  the clipped points within reach the 4 spanning the largest area (near ties broken by name)
  are the contacts. Each point is named by the two lines it lies on (incident face edges
  ``e0``..``e3``, reference face sides ``c0``..``c3``), so a contact keeps its name while the
  geometry moves. Its frame's t axis is an edge direction of the
  reference face: it turns with that box (direction-dependent laws see the face's own axes).
  Edge-edge contacts are not generated, so crossed edges can pass through each other; boxes
  resting face on face or on a vertex are covered.

A candidate becomes an active contact when its gap g (m, signed distance along the normal,
negative when penetrating) satisfies ``g <= margin + h * max(0, -v_n)``: within ``margin`` of
touching, or close enough to touch during the coming step at its current approach speed v_n.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from contactmodel.errors import DeclarationError
from contactmodel.friction.base import FrictionLaw
from contactmodel.friction.spec import parse_friction
from contactmodel.geometry import contact_frame, vector
from contactmodel.shapes import Box, Sphere
from contactmodel.simulation.kinematics import cross

#: box i's face is the reference face of a box pair (i, j) only when it separates the boxes by
#: more than this fraction of the smallest half extent of the two beyond box j's best face: faces
#: within about 0.01 rad of parallel keep their roles from step to step
TIE = 0.01
#: of the quadrilaterals spanning a box-face contact polygon, those within this fraction of the
#: largest area are taken as equal (the first by corner names is chosen)
SPREAD = 0.02


@dataclass(frozen=True)
class Plane:
    """The plane through ``point`` (m, world) with unit ``normal`` pointing out of the solid side
    (a unit vector, as ``System.add_contact`` requires: (0, 0, 2) is refused, not rescaled).

    ``friction`` is the law of the contacts generated on it (a law or a spec such as
    ``"cone:0.5"``; default: ``simulate``'s ``friction``); ``tangent`` fixes the contact frames'
    t axis (default: the unit projection of the world axis least aligned with the normal),
    which matters for direction-dependent laws such as the pyramid.
    """

    normal: tuple[float, float, float] = (0.0, 0.0, 1.0)
    point: tuple[float, float, float] = (0.0, 0.0, 0.0)
    name: str = "plane"
    friction: object | None = None
    tangent: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        # the rule of System.add_contact: a unit normal (within geometry.UNIT_TOL), an optional
        # unit tangent orthogonal to it; the frame's normal is stored exactly unit
        frame = contact_frame(self.normal, self.tangent, f"Plane '{self.name}'")
        object.__setattr__(self, "normal", tuple((frame[0] / np.linalg.norm(frame[0])).tolist()))
        object.__setattr__(self, "point", tuple(vector(self.point, 3, f"Plane '{self.name}'.point").tolist()))
        if isinstance(self.friction, str):
            object.__setattr__(self, "friction", parse_friction(self.friction))
        elif self.friction is not None and not isinstance(self.friction, FrictionLaw):
            raise DeclarationError(
                f"Plane '{self.name}'.friction must be a friction law (e.g. contactmodel.CoulombCone(0.5)) "
                f"or a spec such as 'cone:0.5' (got {self.friction!r})"
            )

    @property
    def frame(self) -> np.ndarray:
        """Rows (n, t, o) of the contacts generated on this plane."""
        return contact_frame(self.normal, self.tangent, f"Plane '{self.name}'")

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Signed distances (k,) of points (k, 3) from the plane, positive on the normal's side."""
        return (np.atleast_2d(points) - np.asarray(self.point)) @ np.asarray(self.normal)


def box_vertices(size, position: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """(8, 3) world vertices of a box of edge lengths ``size`` centred at ``position``."""
    half = 0.5 * np.asarray(size, dtype=float)
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
    return position + (signs * half) @ rotation.T


class PlaneCandidates:
    """The candidate points of every Box and Sphere body of ``shapes`` against a plane, in body
    order: a box's 8 vertices ``v0``..``v7`` (as :func:`box_vertices`), a sphere's lowest point
    ``s``. ``owner`` (K,) and ``labels`` (K,) depend on the shapes alone and are made once (a run's
    bodies keep their shapes); :meth:`points` gives the world points of a pose."""

    def __init__(self, shapes: list) -> None:
        self.shapes = list(shapes)
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=float)
        self.box = [i for i, s in enumerate(shapes) if isinstance(s, Box)]
        half = 0.5 * np.array([shapes[i].size for i in self.box], dtype=float).reshape(-1, 3)
        self.local = signs[None, :, :] * half[:, None, :]  # (boxes, 8, 3)
        self.sphere = [i for i, s in enumerate(shapes) if isinstance(s, Sphere)]
        self.radius = np.array([shapes[i].radius for i in self.sphere], dtype=float)
        owner = np.array([i for i in self.box for _ in range(8)] + self.sphere, dtype=int)
        self.order = np.argsort(owner, kind="stable")
        self.owner = owner[self.order]
        self.labels = ["s" if isinstance(shapes[i], Sphere) else "" for i in self.owner]
        vertex = 0
        for k, i in enumerate(self.owner):
            if self.labels[k] == "":
                vertex = vertex + 1 if k and self.owner[k - 1] == i else 0
                self.labels[k] = f"v{vertex}"

    def fits(self, shapes: list) -> bool:
        """Whether these candidates were made for ``shapes`` (the same objects)."""
        return len(shapes) == len(self.shapes) and all(a is b for a, b in zip(shapes, self.shapes))

    def points(self, positions: np.ndarray, rotations: np.ndarray, normal: np.ndarray) -> np.ndarray:
        """(K, 3) world points of the candidates, bodies at ``positions`` (nb, 3) with ``rotations``
        (nb, 3, 3), against a plane of unit ``normal``."""
        parts = []
        if self.box:
            turned = np.einsum("bjk,bvk->bvj", rotations[self.box], self.local)
            parts.append((positions[self.box][:, None, :] + turned).reshape(-1, 3))
        if self.sphere:
            parts.append(positions[self.sphere] - self.radius[:, None] * np.asarray(normal)[None, :])
        if not parts:
            return np.zeros((0, 3))
        return np.concatenate(parts)[self.order]


@dataclass
class PairCandidate:
    """A candidate contact between shaped bodies ``a`` and ``b`` (indices into the body list):
    ``label`` names it within the pair, ``point`` (3,) world m, ``normal`` (3,) unit from b
    into a, ``gap`` m (negative when penetrating), ``tangent`` (3,) unit t axis of its frame
    (None: the rule of :func:`frames`)."""

    a: int
    b: int
    label: str
    point: np.ndarray
    normal: np.ndarray
    gap: float
    tangent: np.ndarray | None = None


def bounding_radius(shape) -> float:
    """Radius (m) of the sphere about the centre that holds the shape (0 for unsupported)."""
    if isinstance(shape, Box):
        return 0.5 * float(np.linalg.norm(shape.size))
    if isinstance(shape, Sphere):
        return float(shape.radius)
    return 0.0


def pair_candidates(
    shapes: list, positions: np.ndarray, rotations: np.ndarray, reach: np.ndarray, skip: set
) -> list[PairCandidate]:
    """Candidate contacts between every two shaped bodies whose bounding spheres come within
    ``reach[i] + reach[j]`` (m, per body: the margin plus the distance it may travel in a step)
    of touching, except the index pairs in ``skip`` (i < j)."""
    radius = np.array([bounding_radius(s) for s in shapes])
    idx = np.flatnonzero(radius > 0)
    if idx.size < 2:
        return []
    x = positions[idx]
    dist = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2)
    near = dist <= radius[idx][:, None] + radius[idx][None, :] + reach[idx][:, None] + reach[idx][None, :]
    pairs = [(int(idx[p]), int(idx[q])) for p, q in zip(*np.nonzero(np.triu(near, 1)))]
    pairs = [pq for pq in pairs if pq not in skip]
    boxes = [pq for pq in pairs if isinstance(shapes[pq[0]], Box) and isinstance(shapes[pq[1]], Box)]
    out: list[PairCandidate] = []
    if boxes:
        i, j = np.array(boxes).T
        half = np.array(
            [0.5 * np.asarray(b.size, float) if isinstance(b, Box) else np.zeros(3) for b in shapes]
        )
        x, R = positions, rotations
        sep, ref_i, k, sign = face_separation(x[i], R[i], half[i], x[j], R[j], half[j])
        tol = reach[i] + reach[j]
        for p in np.flatnonzero(sep <= tol):
            ref, inc = (i[p], j[p]) if ref_i[p] else (j[p], i[p])
            out += _box_box(int(inc), int(ref), int(k[p]), float(sign[p]), positions, rotations, half, tol[p])
    for i, j in pairs:
        if not (isinstance(shapes[i], Box) and isinstance(shapes[j], Box)):
            out += _pair(i, j, shapes, positions, rotations, float(reach[i] + reach[j]))
    return out


def face_separation(xi, Ri, hi, xj, Rj, hj):
    """Separating-axis test over the 6 face normals of P box pairs: positions (P, 3), rotations
    (P, 3, 3), half extents (P, 3). Returns the largest separation (P,) m (negative: the least
    penetration), whether the face is box i's (P,) bool, its axis k (P,) and the sign (P,) with
    which ``sign * R_ref[:, k]`` points from the reference box to the other one. Box j's faces
    win unless one of box i's separates by ``TIE`` times the smallest half extent more."""
    d = xi - xj
    C = np.einsum("pba,pbk->pak", Ri, Rj)  # C[a, k] = Ri[:, a] . Rj[:, k]
    proj_j = np.einsum("pa,pak->pk", d, Rj)
    sep_j = np.abs(proj_j) - hj - np.einsum("pa,pak->pk", hi, np.abs(C))
    proj_i = np.einsum("pa,pak->pk", -d, Ri)
    sep_i = np.abs(proj_i) - hi - np.einsum("pb,pkb->pk", hj, np.abs(C))
    tie = TIE * np.minimum(hi.min(axis=1), hj.min(axis=1))[:, None]
    both = np.concatenate([sep_j, sep_i - tie], axis=1)
    best = np.argmax(both, axis=1)
    rows = np.arange(len(d))
    proj = np.concatenate([proj_j, proj_i], axis=1)[rows, best]
    return both[rows, best] + tie[:, 0] * (best >= 3), best >= 3, best % 3, np.where(proj >= 0, 1.0, -1.0)


def _pair(i: int, j: int, shapes, positions, rotations, tol: float) -> list[PairCandidate]:
    """Candidates of a pair with a sphere (box-box pairs go to :func:`_box_box`)."""
    si, sj = shapes[i], shapes[j]
    if isinstance(si, Sphere) and isinstance(sj, Sphere):
        d = positions[i] - positions[j]
        dist = float(np.linalg.norm(d))
        n = d / dist if dist > 1e-12 else np.array([0.0, 0.0, 1.0])
        return [PairCandidate(i, j, "s", positions[i] - si.radius * n, n, dist - si.radius - sj.radius)]
    if isinstance(si, Box) and isinstance(sj, Sphere):
        i, j, si, sj = j, i, sj, si
    found = _sphere_box(si.radius, positions[i], sj.size, positions[j], rotations[j])
    return [PairCandidate(i, j, "s", *found)] if found[2] <= tol else []


def _sphere_box(r: float, c: np.ndarray, size, xb: np.ndarray, Rb: np.ndarray):
    """(point, normal, gap) of a sphere (radius r, centre c) against a box."""
    half = 0.5 * np.asarray(size, dtype=float)
    u = Rb.T @ (c - xb)
    excess = np.abs(u) - half
    if np.all(excess <= 0):  # centre inside: leave through the nearest face
        k = int(np.argmax(excess))
        n = np.sign(u[k] if u[k] != 0 else 1.0) * Rb[:, k]
        return c - r * n, n, float(excess[k]) - r
    d = u - np.clip(u, -half, half)
    dist = float(np.linalg.norm(d))
    n = Rb @ (d / dist)
    return c - r * n, n, dist - r


def _box_box(inc: int, ref: int, k: int, sign: float, positions, rotations, half, tol: float):
    """Face-face candidates of two boxes (see the module docstring) once
    :func:`face_separation` chose the reference face (axis ``k`` of box ``ref``, outward normal
    ``sign * R_ref[:, k]``): the most anti-parallel face of the incident box ``inc`` is clipped
    to the reference face's sides, and the clipped points within ``tol`` of the reference plane
    are the contacts (at most 4, see :func:`_spread`). The incident box is body a, the normal
    points out of the reference face. The clipping runs in the reference box's axes (its sides
    are then coordinate planes) on plain floats: a pair costs a few numpy calls, not one per
    polygon corner."""
    xr, Rr, hr = positions[ref], rotations[ref], half[ref]
    xa, Ra, ha = positions[inc], rotations[inc], half[inc]
    n = sign * Rr[:, k]
    m = int(np.argmax(np.abs(Ra.T @ n)))
    face_sign = -1.0 if Ra[:, m] @ n > 0 else 1.0
    p, q = [a for a in range(3) if a != m]
    # the incident face's centre and half edges in the reference box's axes
    centre, ep, eq = (
        Rr.T @ np.column_stack([xa - xr + face_sign * ha[m] * Ra[:, m], ha[p] * Ra[:, p], ha[q] * Ra[:, q]])
    ).T
    polygon = [
        tuple(centre + ep + eq),
        tuple(centre - ep + eq),
        tuple(centre - ep - eq),
        tuple(centre + ep - eq),
    ]
    lines = ["e0", "e1", "e2", "e3"]  # lines[i]: the line of the side arriving at polygon[i]
    side = 0
    bounds = hr.tolist()
    for axis in (a for a in range(3) if a != k):
        for bound in (1.0, -1.0):
            polygon, lines = _clip(polygon, lines, axis, bound, bounds[axis], f"c{side}")
            side += 1
    if not polygon:
        return []
    local = np.array(polygon)
    names = [_corner(lines[i], lines[(i + 1) % len(lines)]) for i in range(len(lines))]
    gaps = sign * local[:, k] - hr[k]
    keep = gaps <= tol
    local, gaps = local[keep], gaps[keep]
    names = [name for name, kept in zip(names, keep) if kept]
    if len(set(names)) < len(names):  # degenerate clipping (zero-length sides): index names
        names = [f"{name}.{i}" for i, name in enumerate(names)]
    chosen = _spread(local[:, [a for a in range(3) if a != k]], names)
    pts = xr + local @ Rr.T
    t = Rr[:, (k + 1) % 3]
    return [PairCandidate(inc, ref, names[c], pts[c], n, float(gaps[c]), t) for c in chosen]


def _corner(arriving: str, leaving: str) -> str:
    """The name of a clipped polygon's corner: the two lines it lies on, in a fixed order."""
    return "".join(sorted((arriving, leaving)))


def _clip(
    polygon: list[tuple[float, float, float]],
    lines: list[str],
    axis: int,
    bound: float,
    limit: float,
    line: str,
) -> tuple[list[tuple[float, float, float]], list[str]]:
    """Sutherland-Hodgman: the part of a convex polygon (corners in the reference box's axes)
    with ``bound * x[axis] <= limit``, and the line of the side arriving at each of its corners
    (``line`` for sides on the clipping line)."""
    out: list[tuple[float, float, float]] = []
    out_lines: list[str] = []
    for i, cur in enumerate(polygon):
        prev = polygon[i - 1]
        dc, dp = bound * cur[axis] - limit, bound * prev[axis] - limit
        if dc <= 0:
            if dp > 0:
                s = dp / (dp - dc)
                out.append(tuple(a + (b - a) * s for a, b in zip(prev, cur)))
                out_lines.append(line)
            out.append(cur)
            out_lines.append(lines[i])
        elif dp <= 0:
            s = dp / (dp - dc)
            out.append(tuple(a + (b - a) * s for a, b in zip(prev, cur)))
            out_lines.append(lines[i])
    return out, out_lines


def _spread(uv: np.ndarray, names: list[str]) -> list[int]:
    """Indices of at most 4 of the corners of a convex polygon (in order; ``uv`` (k, 2) m, its
    corners in the face's plane) that span it: the quadrilateral of the largest area, or, among
    those within ``SPREAD`` of it, the first by corner names, so near ties (the two corners of a
    small cut) do not swap from step to step."""
    k = len(uv)
    if k <= 4:
        return list(range(k))
    quads = np.array(list(itertools.combinations(range(k), 4)))
    x, y = uv[quads, 0], uv[quads, 1]
    area = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1))
    near = np.flatnonzero(area >= (1.0 - SPREAD) * area.max())
    best = min(near, key=lambda q: [names[i] for i in quads[q]])
    return quads[best].tolist()


def frames(normals: np.ndarray) -> np.ndarray:
    """(k, 3, 3) contact frames, rows (n, t, o), of unit normals (k, 3): t is the unit projection
    of the world axis least aligned with n (as :func:`contactmodel.geometry.contact_frame`)."""
    n = np.atleast_2d(normals)
    axis = np.eye(3)[np.argmin(np.abs(n), axis=1)]
    t = axis - np.sum(axis * n, axis=1)[:, None] * n
    t /= np.linalg.norm(t, axis=1)[:, None]
    return np.stack([n, t, cross(n, t)], axis=1)
