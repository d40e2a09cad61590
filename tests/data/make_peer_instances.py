"""Generate seeded random contact instances for the peer-solver comparison.

Usage:
    python3 make_peer_instances.py OUTDIR [--seed 0]

Writes into OUTDIR:
    lcp_roll_n{10,50,200,1000}.npz   pyramid LCP, every contact rolling
    lcp_slide_n{10,50,200,1000}.npz  pyramid LCP, about 1/5 of contacts sliding (>= 5)
    lcp_psdskew_n{10,50,200,1000}.npz control LCP, M = B B^T + skew (PSD plus), q in [-5,5]
    fc3d_c{5,20,100,400}.npz         3D Coulomb-cone friction contact (Siconos fc3d form)

Physical model (Trinkle, Pang, Sudarsky, Lo): rigid bodies with 6 dof each
(mass in [0.5, 2], diagonal inertia in [0.05, 0.5]); each contact touches one
body and either the ground or a second body, with a random orthonormal frame
(n, t, o) and random lever arms.  Bodies ~ contacts/3, so the system Jacobian
has more columns than dof and A = J^T M^-1 J is singular PSD, as for real
multi-contact scenes.  b = J^T M^-1 w for a random wrench w (so b lies in the
range of J^T and Theorem 1(a) gives existence for the all-rolling problems);
b is scaled so that max|b| = 5.

LCP files hold M, q (the LCP (32)-(33) of the paper: unknowns
[c_Sn, c_Rn, s_Rt+, s_Ro+, a_Rt-, a_Ro-]) and also the contact-space data
A (ordered [n-block, t-block, o-block]), b, mu, sliding (bool per contact),
vt, vo (sliding directions, zero for rolling).
fc3d files hold W (3nc x 3nc, per-contact blocks ordered normal first),
q (3nc), mu (nc) = 0.5, i.e. W, q = A, b interleaved per contact.
"""

import argparse
import os

import numpy as np


def skew(r):
    return np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])


def random_scene(rng, nc):
    """Return A (3nc x 3nc, blocks [n, t, o]) and b (3nc) of a random scene."""
    nb = max(1, -(-nc // 3))
    ndof = 6 * nb
    minv = np.zeros(ndof)
    for k in range(nb):
        minv[6 * k : 6 * k + 3] = 1.0 / rng.uniform(0.5, 2.0)
        minv[6 * k + 3 : 6 * k + 6] = 1.0 / rng.uniform(0.05, 0.5, 3)
    J = np.zeros((ndof, 3 * nc))  # columns: all normals, all t, all o
    for j in range(nc):
        frame, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        a = rng.integers(nb)
        other = rng.integers(nb) if (nb > 1 and rng.random() < 0.5) else -1
        ra, rb = rng.uniform(-0.5, 0.5, 3), rng.uniform(-0.5, 0.5, 3)  # lever arms
        for k, d in enumerate(frame.T):  # d = n, t, o
            col = k * nc + j
            J[6 * a : 6 * a + 3, col] += d  # force d on body a ...
            J[6 * a + 3 : 6 * a + 6, col] += skew(ra) @ d  # ... and moment ra x d
            if other >= 0 and other != a:  # reaction on the other body
                J[6 * other : 6 * other + 3, col] -= d
                J[6 * other + 3 : 6 * other + 6, col] -= skew(rb) @ d
    A = J.T @ (minv[:, None] * J)
    A = 0.5 * (A + A.T)
    b = J.T @ (minv * rng.uniform(-1, 1, ndof))
    b *= 5.0 / np.abs(b).max()
    return A, b


def pyramid_lcp(A, b, mu, sliding, vt, vo):
    """LCP (32)-(33).  Unknowns x = [c_Sn, c_Rn, s_Rt+, s_Ro+, a_Rt-, a_Ro-],
    w = M x + q = [a_Sn, a_Rn, a_Rt+, a_Ro+, s_Rt-, s_Ro-]."""
    nc = len(mu)
    S, R = np.flatnonzero(sliding), np.flatnonzero(~sliding)
    nS, nR = len(S), len(R)
    n = nS + 5 * nR
    cn = np.concatenate([S, R])  # contact of each c_n unknown (x[:nc])
    xs_t, xs_o = nc + np.arange(nR), nc + nR + np.arange(nR)
    xa_t, xa_o = nc + 2 * nR + np.arange(nR), nc + 3 * nR + np.arange(nR)
    G = np.zeros((3 * nc, n))  # contact forces [c_n; c_t; c_o] = G x
    G[cn, np.arange(nc)] = 1.0
    G[nc + S, np.arange(nS)] = -mu[S] * vt[S]  # sliding: c_t = -mu vt c_n
    G[2 * nc + S, np.arange(nS)] = -mu[S] * vo[S]
    G[nc + R, nS + np.arange(nR)] = -mu[R]  # rolling: c_t = s_t+ - mu c_n
    G[2 * nc + R, nS + np.arange(nR)] = -mu[R]
    G[nc + R, xs_t] = 1.0
    G[2 * nc + R, xs_o] = 1.0
    rows = np.concatenate([cn, nc + R, 2 * nc + R])  # a_Sn, a_Rn, a_Rt, a_Ro
    M = np.zeros((n, n))
    M[: nc + 2 * nR] = A[rows] @ G
    M[nc + np.arange(nR), xa_t] = 1.0  # a_t+ = a_t + a_t-
    M[nc + nR + np.arange(nR), xa_o] = 1.0
    for k, xs in ((0, xs_t), (1, xs_o)):  # s- = 2 mu c_n - s+
        r = nc + 2 * nR + k * nR + np.arange(nR)
        M[r, nS + np.arange(nR)] = 2 * mu[R]
        M[r, xs] = -1.0
    q = np.concatenate([b[rows], np.zeros(2 * nR)])
    return M, q


def make_lcp(rng, n, slide_frac):
    """n must be a multiple of 5; slide_frac is the target fraction of sliding contacts."""
    nS = 0 if slide_frac == 0 else max(5, 5 * round(slide_frac * n / (5 - 4 * slide_frac) / 5))
    nR = (n - nS) // 5
    nc = nR + nS
    A, b = random_scene(rng, nc)
    mu = rng.uniform(0.2, 0.8, nc)
    sliding = np.zeros(nc, bool)
    sliding[rng.choice(nc, nS, replace=False)] = True
    ang = rng.uniform(0, 2 * np.pi, nc)
    vt, vo = np.where(sliding, np.cos(ang), 0.0), np.where(sliding, np.sin(ang), 0.0)
    M, q = pyramid_lcp(A, b, mu, sliding, vt, vo)
    assert M.shape == (n, n)
    return dict(M=M, q=q, A=A, b=b, mu=mu, sliding=sliding, vt=vt, vo=vo)


def make_psdskew(rng, n):
    """Control family, not physical: M = B B^T + (S - S^T)/2, B n x n/2, q in [-5, 5]."""
    B = rng.standard_normal((n, max(1, n // 2))) / np.sqrt(n)
    S = rng.standard_normal((n, n)) / np.sqrt(n)
    return dict(M=B @ B.T + 0.5 * (S - S.T), q=rng.uniform(-5, 5, n))


def make_fc3d(rng, nc):
    A, b = random_scene(rng, nc)
    perm = np.arange(3 * nc).reshape(3, nc).T.ravel()  # [n,t,o] blocks -> per contact
    return dict(W=A[np.ix_(perm, perm)], q=b[perm], mu=np.full(nc, 0.5))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    for k, n in enumerate([10, 50, 200, 1000]):
        for fam, frac in (("roll", 0.0), ("slide", 0.2)):
            rng = np.random.default_rng([args.seed, k, int(frac * 100)])
            np.savez(os.path.join(args.outdir, f"lcp_{fam}_n{n}.npz"), **make_lcp(rng, n, frac))
        rng = np.random.default_rng([args.seed, 200 + k])
        np.savez(os.path.join(args.outdir, f"lcp_psdskew_n{n}.npz"), **make_psdskew(rng, n))
    for k, nc in enumerate([5, 20, 100, 400]):
        rng = np.random.default_rng([args.seed, 100 + k])
        np.savez(os.path.join(args.outdir, f"fc3d_c{nc}.npz"), **make_fc3d(rng, nc))


if __name__ == "__main__":
    main()
