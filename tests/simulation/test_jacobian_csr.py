"""The step Jacobian G of :class:`BodyKinematics` (entries placed by a pattern kept per contact
structure) against its formula written out densely: row j of a contact at point p with frame rows
C on body a is [C_j, (p - x_a) x C_j] on a's columns, minus the same on body b's, and a torsion row
is [0, n] (minus on b). A pattern kept from an earlier step gives the G a fresh one gives."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation

import contactmodel as cm
from contactmodel.simulation.kinematics import BodyKinematics
from contactmodel.system import Contact


def _system(rng: np.random.Generator, nb: int) -> cm.System:
    system = cm.System()
    for k in range(nb):
        system.add_body(
            f"b{k}",
            1.0,
            cm.inertia.box(1.0, (0.2, 0.3, 0.4)),
            position=tuple(rng.normal(size=3)),
            orientation=Rotation.random(random_state=int(rng.integers(1 << 30))).as_matrix(),
        )
    return system


def _contacts(rng: np.random.Generator, system: cm.System, nc: int) -> list[Contact]:
    bodies = [*system.bodies, system.ground]
    out = []
    for k in range(nc):
        i, j = rng.choice(len(bodies), size=2, replace=False)  # two different bodies (one may be the ground)
        out.append(
            Contact(
                name=f"c{k}",
                body_a=bodies[i],
                body_b=bodies[j],
                point=rng.normal(size=3),
                frame=Rotation.random(random_state=int(rng.integers(1 << 30))).as_matrix(),
                friction=cm.Pyramid(0.5),
                torsion=bool(rng.random() < 0.4),
            )
        )
    return out


def _dense_G(system: cm.System, contacts: list[Contact]) -> np.ndarray:
    index = {id(b): i for i, b in enumerate(system.bodies)}
    G = np.zeros((sum(c.dimension for c in contacts), 6 * len(system.bodies)))
    row = 0
    for c in contacts:
        for body, sign in ((c.body_a, 1.0), (c.body_b, -1.0)):
            if id(body) not in index:
                continue
            cols = slice(6 * index[id(body)], 6 * index[id(body)] + 6)
            r = np.asarray(c.point) - body.position
            for j in range(3):
                G[row + j, cols] = sign * np.concatenate([c.frame[j], np.cross(r, c.frame[j])])
            if c.dimension == 4:
                G[row + 3, cols] = sign * np.concatenate([np.zeros(3), c.frame[0]])
        row += c.dimension
    return G


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), nb=st.integers(1, 4), nc=st.integers(1, 7))
def test_jacobian_is_its_formula_and_a_kept_pattern_changes_nothing(seed, nb, nc):
    rng = np.random.default_rng(seed)
    system = _system(rng, nb)
    contacts = _contacts(rng, system, nc)
    kin = BodyKinematics(system)
    G, rows, contact_rows, _ = kin.jacobian(contacts)
    assert G.has_canonical_format  # sorted, no entry twice
    assert np.array_equal(G.toarray(), _dense_G(system, contacts))
    assert [r for r, _ in rows] == [c.name for c in contacts for _ in range(c.dimension)]
    assert all(contact_rows[name][comp] == k for k, (name, comp) in enumerate(rows))
    for body in system.bodies:  # the next step: the same structure, bodies and points moved
        body.position = body.position + rng.normal(size=3)
    moved = [dataclasses.replace(c, point=np.asarray(c.point) + rng.normal(size=3)) for c in contacts]
    again = kin.jacobian(moved)[0]  # the pattern kept from the first call
    fresh = BodyKinematics(system).jacobian(moved)[0]
    for name in ("indptr", "indices", "data"):
        assert np.array_equal(getattr(again, name), getattr(fresh, name)), name
    assert np.array_equal(again.toarray(), _dense_G(system, moved))
