"""The step's numbers for free bodies, vectorized over bodies and contacts.

For a system of free rigid bodies only (no manipulator) this builds the same
:class:`~contactmodel.simulation.stepper.StepAssembly` that ``assemble`` + ``StepAssembly.of``
build, without per-contact Python work on matrices: generalized velocity nu = per body
(v, omega) in world axes, M = diag(m I3, R I R^T), and for a contact with frame rows C (n, t, o)
at point p on body a (centre x_a) the rows of G on a's columns are [C, (p - x_a) x C] (row j:
``C_j . (v + omega x r) = C_j . v + (r x C_j) . omega``), minus the same on body b's columns, plus
the torsion row [0, n] (minus on b) for a torsion contact.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from contactmodel.assembly import COMPONENTS
from contactmodel.sparse_product import index_dtype, pattern_of, with_data
from contactmodel.system import Body, Contact, Ground, System

#: contact structures whose Jacobian pattern a simulation keeps (see BodyKinematics.jacobian)
PATTERNS_KEPT = 64


class BodyKinematics:
    """Per-body constants of one simulation (masses, body-frame inverse inertias, the index of
    each body, the fixed sparsity pattern of the 6x6 diagonal blocks)."""

    def __init__(self, system: System) -> None:
        self.system = system
        self.bodies = list(system.bodies)
        self.index = {id(b): i for i, b in enumerate(self.bodies)}
        nb = len(self.bodies)
        self.mass = np.array([b.mass for b in self.bodies], dtype=float)
        self.inertia = np.array([b.inertia for b in self.bodies], dtype=float).reshape(nb, 3, 3)
        self.inertia_inv = np.linalg.inv(self.inertia) if nb else np.zeros((0, 3, 3))
        axes = ("vx", "vy", "vz", "wx", "wy", "wz")
        self.coordinates = [f"{b.name}.{s}" for b in self.bodies for s in axes]
        # CSR pattern of a block diagonal of dense 6x6 blocks
        base = 6 * np.arange(nb)
        index = index_dtype(36 * nb, 6 * nb)  # each step's CSR then taken as it is
        indices = (base[:, None, None] + np.arange(6)[None, None, :]).repeat(6, axis=1).reshape(-1)
        indptr = (6 * np.arange(6 * nb + 1)).astype(index)
        self._block_pattern = pattern_of(
            sp.csr_matrix((np.zeros(36 * nb), indices.astype(index), indptr), shape=(6 * nb, 6 * nb))
        )
        self._patterns: dict[tuple, _JacobianPattern] = {}  # see jacobian

    def supported(self, contacts: list[Contact]) -> bool:
        """True when every body of ``contacts`` is a declared Body or the ground (no links)."""
        for c in contacts:
            for body in (c.body_a, c.body_b):
                if not isinstance(body, Ground) and id(body) not in self.index:
                    return False
        return True

    def _blocks(self, lin: np.ndarray, ang: np.ndarray) -> sp.csr_matrix:
        """Block diagonal of diag(lin_i I3, ang_i) (nb,), (nb, 3, 3) as a (6 nb, 6 nb) CSR."""
        nb = len(self.bodies)
        blocks = np.zeros((nb, 6, 6))
        blocks[:, 0, 0] = blocks[:, 1, 1] = blocks[:, 2, 2] = lin
        blocks[:, 3:, 3:] = ang
        return with_data(self._block_pattern, blocks.reshape(-1))

    def state(self, gravity: np.ndarray):
        """(M, Minv, f, nu) at the bodies' current state: f (6 nb,) = gravity + wrench, torque -
        omega x I_w omega; nu (6 nb,)."""
        R = np.array([b.rotation for b in self.bodies]).reshape(-1, 3, 3)
        Iw = R @ self.inertia @ R.transpose(0, 2, 1)
        Iw_inv = R @ self.inertia_inv @ R.transpose(0, 2, 1)
        v = np.array([b.velocity for b in self.bodies]).reshape(-1, 3)
        w = np.array([b.angular_velocity for b in self.bodies]).reshape(-1, 3)
        wrench = np.array([b.wrench for b in self.bodies]).reshape(-1, 6)
        force = wrench[:, :3] + self.mass[:, None] * gravity
        torque = wrench[:, 3:] - cross(w, np.einsum("kij,kj->ki", Iw, w))
        f = np.concatenate([force, torque], axis=1).reshape(-1)
        nu = np.concatenate([v, w], axis=1).reshape(-1)
        return self._blocks(self.mass, Iw), self._blocks(1.0 / self.mass, Iw_inv), f, nu

    def jacobian(self, contacts: list[Contact]):
        """(G (m, 6 nb) CSR, rows, contact_rows, frames) of ``contacts`` in their order."""
        nb = len(self.bodies)
        nc = len(contacts)
        rows: list[tuple[str, str]] = []
        contact_rows: dict[str, dict[str, int]] = {}
        frames: dict[str, np.ndarray] = {}
        b0 = 0
        for c in contacts:
            comps = COMPONENTS[: c.dimension]
            contact_rows[c.name] = {comp: b0 + k for k, comp in enumerate(comps)}
            rows += [(c.name, comp) for comp in comps]
            frames[c.name] = c.frame
            b0 += c.dimension
        if nc == 0:
            return sp.csr_matrix((0, 6 * nb)), rows, contact_rows, frames
        index = self.index
        owners = tuple(
            (-1 if isinstance(c.body_a, Ground) else index[id(c.body_a)]) for c in contacts
        ) + tuple((-1 if isinstance(c.body_b, Ground) else index[id(c.body_b)]) for c in contacts)
        key = (owners, tuple(c.dimension for c in contacts))
        pattern = self._patterns.pop(key, None)  # re-inserted: the table drops the least recent
        if pattern is None:
            pattern = _JacobianPattern(np.array(owners), np.array(key[1]), nb)
            if len(self._patterns) >= PATTERNS_KEPT:
                self._patterns.pop(next(iter(self._patterns)))
        self._patterns[key] = pattern
        C = np.array([c.frame for c in contacts]).reshape(nc, 3, 3)
        P = np.array([c.point for c in contacts]).reshape(nc, 3)
        x = np.array([b.position for b in self.bodies]).reshape(-1, 3)
        data = []
        for k, body, sign, kt in pattern.sides:
            block = np.concatenate([C[k], cross((P[k] - x[body])[:, None, :], C[k])], axis=2)  # (k, 3, 6)
            data.append(sign * block.reshape(-1))
            if kt.size:
                data.append(sign * C[kt, 0, :].reshape(-1))
        return with_data(pattern.G, np.concatenate(data)[pattern.order]), rows, contact_rows, frames


class _JacobianPattern:
    """Where the entries of G go for one contact structure (each contact's two bodies' indices,
    -1 for the ground, and its number of rows): per body side, the contacts on a body, their
    bodies, the sign and the torsion contacts; ``order`` puts the entries, made side by side, in
    CSR order (by row, then column; no entry repeats, a contact joining two different bodies);
    ``G`` is a G of that pattern (entries 0), whose copies take each step's entries. Kept per
    structure: a run's steps mostly repeat one, and sorting the entries cost a fifth of a
    one-box step's Jacobian."""

    def __init__(self, owners: np.ndarray, dims: np.ndarray, nb: int) -> None:
        nc = dims.size
        base = np.concatenate([[0], np.cumsum(dims)])
        torsion = dims == 4
        self.sides = []
        ri, ci = [], []
        for idx, sign in ((owners[:nc], 1.0), (owners[nc:], -1.0)):
            k = np.flatnonzero(idx >= 0)
            if not k.size:
                continue
            kt = k[torsion[k]]
            self.sides.append((k, idx[k], sign, kt))
            cols = 6 * idx[k][:, None] + np.arange(6)[None, :]
            ri.append((base[k][:, None, None] + np.arange(3)[None, :, None]).repeat(6, axis=2).reshape(-1))
            ci.append(np.repeat(cols[:, None, :], 3, axis=1).reshape(-1))
            if kt.size:
                ri.append(np.repeat(base[kt] + 3, 3))
                ci.append((6 * idx[kt][:, None] + 3 + np.arange(3)[None, :]).reshape(-1))
        r, c = np.concatenate(ri), np.concatenate(ci)
        self.order = np.lexsort((c, r))
        shape = (int(base[-1]), 6 * nb)
        index = index_dtype(r.size, *shape)
        indptr = np.zeros(shape[0] + 1, dtype=index)
        np.cumsum(np.bincount(r, minlength=shape[0]), out=indptr[1:])
        self.G = pattern_of(
            sp.csr_matrix((np.zeros(r.size), c[self.order].astype(index), indptr), shape=shape)
        )


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b over the last axis (length 3) with broadcasting: the products and differences of
    ``np.cross``, without its per-call overhead (~20 us on small arrays)."""
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    first = a1 * b2 - a2 * b1
    out = np.empty((*first.shape, 3))
    out[..., 0] = first
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def step_system(system: System, contacts: list[Contact], bodies: list[Body] | None = None) -> System:
    """The step's System: the simulated bodies (``bodies``, default all) with this step's
    contacts (no normal-speed check)."""
    return System(
        gravity=system.gravity,
        rolling_tol=system.rolling_tol,
        normal_velocity_tol=np.inf,
        bodies=system.bodies if bodies is None else bodies,
        manipulators=system.manipulators,
        contacts=contacts,
        ground=system.ground,
    )


__all__ = ["Body", "BodyKinematics", "cross", "step_system"]
