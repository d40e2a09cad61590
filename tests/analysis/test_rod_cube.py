"""Seed 002 Example 2 (rod and cube, Table 1), reconstructed from the text.

Cube of side 2 (mass 1, inertia 3 I, centre at the origin, gravity 10 along -z) and an active rod
along x (translation s toward the cube, mass 4; rotation about its axis, inertia 2) with efforts
tau = (6, 3). Contacts (normal into the cube, tangent t, o = n x t), soft fingers with
Ellipsoid(mu = 0.9, e_t = e_o = 1, e_r = 2): rod on the front face at (1, eta - 1, zeta - 1),
n = -x, t = y; hump at the back-left bottom corner (-1, -1, -1), n = z, t = y; fixed rod on the
right face at (1 - delta, 1, gamma - 1), n = -y, t = -z. Every column of the extracted Jacobian (2)
that is legible matches this geometry, and the table's forces balance every force component
(with g = 10), but its jammed forces leave a y-moment of -5.94 N m: the table cannot be met
exactly by this (or the printed) Jacobian.
"""

from __future__ import annotations

import numpy as np

import contactmodel as cm
from contactmodel.analysis import all_solutions, verify

JAM_TABLE = [[6, 1.5767, -4.1892, 3], [4.2039, 2.3350, -2.9716, -0.2292], [3.9117, -1.6069, 3.0284, 0.6971]]


def rod_cube(mu=0.9, e_r=2.0, tau=(6.0, 3.0), eta=1.5, zeta=1.5, gamma=1.5, delta=0.5, g=10.0):
    """(problem, G (12 x 8), f (8,)) of the reconstruction (module docstring); rows n, t, o, r."""
    x, y, z = np.eye(3)
    contacts = [
        (np.array([1.0, eta - 1, zeta - 1]), -x, y, True),
        (np.array([-1.0, -1.0, -1.0]), z, y, False),
        (np.array([1 - delta, 1.0, gamma - 1]), -y, -z, False),
    ]
    rows = []
    for r, n, t, rod in contacts:
        for d in (n, t, np.cross(n, t)):
            rows.append(np.r_[d, np.cross(r, d), 0.0, 0.0])
        rows.append(np.r_[0.0, 0.0, 0.0, n, 0.0, 0.0])
        if rod:
            rows[-4][6] = -1.0
            rows[-1][7] = -1.0
    G = np.array(rows)
    Minv = np.diag(1 / np.array([1, 1, 1, 3, 3, 3, 4, 2.0]))
    f = np.array([0, 0, -g, 0, 0, 0, tau[0], tau[1]])
    law = cm.Ellipsoid(mu, 1.0, 1.0, e_r)
    problem = cm.formulate_from_matrices(G @ Minv @ G.T, G @ Minv @ f, friction=law, torsion=True)
    return problem, G, f


def test_rod_cube_jams_and_table_discrepancy() -> None:
    problem, G, f = rod_cube()
    residual = G.T @ np.ravel(JAM_TABLE) + f
    assert np.abs(np.delete(residual, 4)).max() < 1e-3 and abs(residual[4] + 5.9432) < 1e-3
    found = all_solutions(problem, starts=2, settings=(("newton", {}),))
    jams = [s for s in found if all(np.abs(c.acceleration).max() < 1e-8 for c in s.contacts)]
    assert len(jams) == 1 and found.merged[found.solutions.index(jams[0])] >= 1
    (jam,) = jams
    assert jam.contacts[0].force[0] == np.float64(6.0) or abs(jam.contacts[0].force[0] - 6.0) < 1e-8
    assert abs(jam.contacts[0].force[3] - 3.0) < 1e-8
    assert verify(jam, problem).ok
