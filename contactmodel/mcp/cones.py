"""Coulomb cone complementarity blocks: the math, vectorized over k blocks with numpy.

One block is a contact force c = (c_n, c_t, c_o) (N) and the relative acceleration a = (a_n, a_t,
a_o) (m/s^2) in the same frame (or d = 4 components (n, t, o, r) of scaled variables, the soft
finger's cone block: every formula below holds with c_T = (c_t, c_o, c_r); the blocks of one call
have one d), related by the second-order-cone complementarity with De Saxce's
modified acceleration (Coulomb's law with maximum dissipation at a rolling contact):

    c in K_mu = {|c_T| <= mu c_n},   a_hat = (a_n + mu |a_T|, a_t, a_o) in K_mu^* = {|y_T| <= y_n / mu},
    c . a_hat = 0.

Its natural map (FCLIB / Siconos ``fc3d``) is ``R(c, a) = c - Proj_{K_mu}(c - rho a_hat)``, zero
exactly at the solutions for every rho > 0. :func:`natural_map` returns ``R`` and one element
``(Da, Db)`` of its generalized Jacobian, ``dR = Da dc + Db da``.

:class:`~contactmodel.mcp.soc_block.SOCComplementarity` is the Pyomo component that declares one
such block in a contact's Block; :func:`contactmodel.mcp.compile.compile_model` reads it. Nothing
here imports Pyomo.
"""

from __future__ import annotations

import numpy as np

from contactmodel.errors import FormulationError

AXES = ("n", "t", "o")
#: the axes of a four-component block (a soft-finger contact's cone block)
TORSION_AXES = ("n", "t", "o", "r")


def blocks(v) -> np.ndarray:
    """``v`` as (k, d) blocks: a 2-D array as it is, anything else as (k, 3)."""
    v = np.asarray(v, dtype=float)
    return v if v.ndim == 2 else v.reshape(-1, 3)


def block_size(sizes) -> int:
    """The one size (3 or 4) of an MCP's cone blocks given each block's (3 when there is none);
    a FormulationError when they differ (one MCP holds blocks of one size)."""
    found = set(sizes)
    if len(found) > 1:
        raise FormulationError(
            "cone blocks of 3 rows (CoulombCone, AnisotropicCone, EllipticTorsion in the SOC form) and "
            "of 4 rows (Ellipsoid(form='soc')) cannot be mixed in one problem: give the one kind "
            "form='mncp' (e.g. CoulombCone(mu, form='mncp'))"
        )
    return found.pop() if found else 3


def tangential_norm(v: np.ndarray) -> np.ndarray:
    """|v_T| (k,) of blocks v (k, d): numpy's hypot over the tangential components, in order."""
    r = np.hypot(v[:, 1], v[:, 2])
    for j in range(3, v.shape[1]):
        r = np.hypot(r, v[:, j])
    return r


def project(z: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Euclidean projection of z (k, d) onto K_mu (mu (k,)), block by block; (k, d)."""
    return _project(z, mu, jacobian=False)[0]


def project_jacobian(z: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Proj_{K_mu}(z) (k, d), one element of its generalized Jacobian (k, d, d)).

    Three cases per block: z in K_mu (identity), z in the polar cone {mu |z_T| <= -z_n} (zero), else
    the projection onto the boundary ray through z_T, p = (z_n + mu |z_T|) / (1 + mu^2) (1, mu z_T /
    |z_T|). On the borders between the cases the side named first is used (a valid element).
    """
    p, D = _project(z, mu, jacobian=True)
    assert D is not None
    return p, D


def _project(z: np.ndarray, mu: np.ndarray, jacobian: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`project_jacobian`, the Jacobian (None) left out unless ``jacobian``."""
    z = blocks(z)
    d = z.shape[1]
    mu = np.broadcast_to(np.asarray(mu, dtype=float), z.shape[:1])
    zn, zt = z[:, 0], z[:, 1:]
    r = tangential_norm(z)
    inside = r <= mu * zn
    mid = ~inside & ~(mu * r <= -zn)  # neither in K_mu nor in its polar cone; implies r > 0
    p = np.where(inside[:, None], z, 0.0)
    D = None
    if jacobian:
        D = np.zeros((z.shape[0], d, d))
        D[inside] = np.eye(d)
    if np.any(mid):
        m, rm, zm = mu[mid], r[mid], zn[mid]
        u = zt[mid] / rm[:, None]  # unit tangential direction
        s = (zm + m * rm) / (1.0 + m * m)  # normal part of the projection
        p[mid, 0] = s
        p[mid, 1:] = (m * s)[:, None] * u
        if D is not None:
            k = 1.0 / (1.0 + m * m)
            Dm = np.zeros((m.size, d, d))
            Dm[:, 0, 0] = k
            Dm[:, 0, 1:] = (m * k)[:, None] * u
            Dm[:, 1:, 0] = (m * k)[:, None] * u
            uu = u[:, :, None] * u[:, None, :]
            rest = np.eye(d - 1) - uu
            Dm[:, 1:, 1:] = (m * m * k)[:, None, None] * uu + (m * s / rm)[:, None, None] * rest
            D[mid] = Dm
    return p, D


def desaxce(a: np.ndarray, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(a_hat (k, d), d a_hat / d a (k, d, d)) with a_hat = a + (mu |a_T|, 0, ...).

    At a_T = 0 the derivative of |a_T| is taken as 0, an element of its subdifferential (the unit
    disk).
    """
    a = blocks(a)
    d = a.shape[1]
    mu = np.broadcast_to(np.asarray(mu, dtype=float), a.shape[:1])
    r = tangential_norm(a)
    ah = a.copy()
    ah[:, 0] += mu * r
    D = np.broadcast_to(np.eye(d), (a.shape[0], d, d)).copy()
    nz = r > 0
    D[nz, 0, 1:] = mu[nz][:, None] * (a[nz, 1:] / r[nz][:, None])  # |a_T / r| <= 1: no overflow
    return ah, D


def natural_map(
    c: np.ndarray, a: np.ndarray, mu: np.ndarray, rho: np.ndarray | float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Natural map ``R = c - Proj_{K_mu}(c - rho a_hat)`` (k, d) and ``(Da, Db)`` (k, d, d), an
    element of its generalized Jacobian: ``Da = I - P'``, ``Db = rho P' d a_hat / d a``."""
    c = blocks(c)
    rho = np.broadcast_to(np.asarray(rho, dtype=float), c.shape[:1])
    ah, Dh = desaxce(a, mu)
    p, P = project_jacobian(c - rho[:, None] * ah, mu)
    Da = np.eye(c.shape[1]) - P
    Db = P.copy()  # P Dh, Dh the identity but for its row 0 (1, g1, g2): Db_ij = P_ij + P_i0 g_j
    Db[:, :, 1:] += P[:, :, :1] * Dh[:, :1, 1:]
    Db *= rho[:, None, None]
    return c - p, Da, Db


def residual(c: np.ndarray, a: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """The natural map with rho = 1 (k, d): the fc3d error per block, in N (no Jacobians formed).

    Computed by :func:`residual_loop` compiled with numba when it is installed (the ``fast``
    extra; the dispatcher checks every answer and every time step with this), else with numpy:
    the same numbers bit for bit."""
    c = blocks(c)
    a = blocks(a)
    kernel = _compiled_residual()
    if kernel is not None:
        m = np.broadcast_to(np.asarray(mu, dtype=float), c.shape[:1])
        return kernel(np.ascontiguousarray(c), np.ascontiguousarray(a), np.ascontiguousarray(m))
    return residual_numpy(c, a, mu)


def residual_numpy(c: np.ndarray, a: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """:func:`residual` with numpy, vectorized over the blocks."""
    c = blocks(c)
    a = blocks(a)
    ah = a.copy()
    ah[:, 0] += np.broadcast_to(np.asarray(mu, dtype=float), a.shape[:1]) * tangential_norm(a)
    return c - project(c - ah, mu)


def residual_loop(c: np.ndarray, a: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """:func:`residual` as one loop over the blocks (k, d): the operations of
    :func:`residual_numpy` in the same order, block by block (``mu`` (k,)); numpy's hypot (the C
    library's), not Python's own math.hypot."""
    k, d = c.shape
    out = np.empty((k, d))
    z = np.empty(d)
    for b in range(k):
        m = mu[b]
        r_a = np.hypot(a[b, 1], a[b, 2])
        for j in range(3, d):
            r_a = np.hypot(r_a, a[b, j])
        z[0] = c[b, 0] - (a[b, 0] + m * r_a)
        for j in range(1, d):
            z[j] = c[b, j] - a[b, j]
        r = np.hypot(z[1], z[2])
        for j in range(3, d):
            r = np.hypot(r, z[j])
        if r <= m * z[0]:  # in K_mu: its own projection
            pass
        elif m * r <= -z[0]:  # in the polar cone: projected to 0
            z[:] = 0.0
        else:  # onto the boundary ray through z_T
            s = (z[0] + m * r) / (1.0 + m * m)
            for j in range(1, d):
                z[j] = (m * s) * (z[j] / r)
            z[0] = s
        for j in range(d):
            out[b, j] = c[b, j] - z[j]
    return out


_KERNEL: list = []  # [the compiled residual_loop or None], filled on first use


def _compiled_residual():
    """:func:`residual_loop` compiled by numba (its machine code cached on disk), None without
    numba; made on the first call, not at import (numba's import costs ~0.3 s)."""
    if not _KERNEL:
        try:
            import numba
        except ImportError:  # the optional "fast" extra is not installed
            _KERNEL.append(None)
        else:
            _KERNEL.append(numba.njit(cache=True)(residual_loop))
    return _KERNEL[0]
