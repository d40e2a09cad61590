"""Siconos LCP .dat reader on every file of bench/lcp (dense and sparse-block storage)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from contactmodel.errors import DeclarationError
from contactmodel.io.siconos_lcp import read_lcp

BENCH = Path(__file__).resolve().parents[1] / "data" / "lcp"

# name: (n, symmetric, min eigenvalue of (M + M^T)/2), from bench/lcp/README.md
TABLE = {
    "lcp_CPS_1.dat": (2, True, 0.0),
    "lcp_CPS_2.dat": (3, False, -1.0),
    "lcp_CPS_3.dat": (4, False, -37.6),
    "lcp_CPS_4.dat": (4, False, 0.0),
    "lcp_CPS_4bis.dat": (4, False, 0.0),
    "lcp_CPS_5.dat": (2, True, 0.0),
    "lcp_Pang_isolated_sol.dat": (3, False, -1.0),
    "lcp_Pang_isolated_sol_perturbed.dat": (3, False, -1.0),
    "lcp_inf_sol_perturbed.dat": (3, False, 0.0),
    "lcp_deudeu.dat": (2, True, 1.0),
    "lcp_deudeu_block.dat": (2, True, 1.0),
    "lcp_trivial.dat": (9, True, 1.0),
    "lcp_trivial_block.dat": (9, True, 1.0),
    "lcp_ortiz.dat": (4, False, 1.13),
    "lcp_ortiz_block.dat": (4, False, 1.13),
    "lcp_exp_murty.dat": (6, False, 0.0),
    "lcp_exp_murty2.dat": (6, False, 0.0),
    "lcp_enum_fails.dat": (9, False, -0.0174),
    "lcp_mmc.dat": (26, True, 302.0),
    "lcp_tobenna.dat": (40, False, -2060.0),
}


def need(name: str) -> Path:
    if not (BENCH / name).is_file():
        pytest.skip(f"benchmark data {BENCH / name} not available")
    return BENCH / name


def test_table_covers_every_file() -> None:
    if not BENCH.is_dir():
        pytest.skip(f"benchmark data {BENCH} not available")
    assert {p.name for p in BENCH.glob("*.dat")} == set(TABLE)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_sizes_and_properties(name: str) -> None:
    n, symmetric, min_eig = TABLE[name]
    M, q = read_lcp(need(name))
    assert M.shape == (n, n) and q.shape == (n,)
    assert np.all(np.isfinite(M)) and np.all(np.isfinite(q))
    assert np.array_equal(M, M.T) == symmetric
    eig = np.linalg.eigvalsh((M + M.T) / 2)[0]
    assert eig == pytest.approx(min_eig, rel=0.01, abs=2e-3)


@pytest.mark.parametrize("base", ["deudeu", "trivial", "ortiz"])
def test_block_storage_equals_dense(base: str) -> None:
    Md, qd = read_lcp(need(f"lcp_{base}.dat"))
    Mb, qb = read_lcp(need(f"lcp_{base}_block.dat"))
    np.testing.assert_array_equal(Md, Mb)
    np.testing.assert_array_equal(qd, qb)


def test_dense_is_column_major() -> None:
    M, q = read_lcp(need("lcp_exp_murty.dat"))
    np.testing.assert_array_equal(M, np.triu(2.0 * np.ones((6, 6)), 1) + np.eye(6))
    np.testing.assert_array_equal(q, -np.ones(6))
    _, q2 = read_lcp(need("lcp_exp_murty2.dat"))
    np.testing.assert_array_equal(q2, [-126, -124, -120, -112, -96, -64])


def test_deudeu_values() -> None:
    M, q = read_lcp(need("lcp_deudeu_block.dat"))
    np.testing.assert_array_equal(M, [[2.0, 1.0], [1.0, 2.0]])
    np.testing.assert_array_equal(q, [-5.0, -6.0])


def test_handwritten_files(tmp_path: Path) -> None:
    dense = tmp_path / "d.dat"
    dense.write_text("2\n0\n2\n2\n2 2\n1 3\n2 4\n-1 -2\n# comment 7 8\n")
    M, q = read_lcp(dense)
    np.testing.assert_array_equal(M, [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(q, [-1.0, -2.0])
    block = tmp_path / "b.dat"
    block.write_text(
        "3\n1\n3\n3\n"  # n, storage 1, 3 x 3
        "2\n2 2\n1 3\n2 3\n3 2\n0 1 2\n0 1\n"  # 2 blocks, row ends 1 3, col ends 2 3
        "0\n1 2\n1\n5\n6\n"  # block 0: 1 x 2 at (0, 0); block 1: 2 x 1 at (1, 2)
        "7 8\n1 2 3\n"  # q, then ignored tokens
    )
    M, q = read_lcp(block)
    expected = np.zeros((3, 3))
    expected[0:1, 0:2] = [[1.0, 2.0]]
    expected[1:3, 2:3] = [[5.0], [6.0]]
    np.testing.assert_array_equal(M, expected)
    np.testing.assert_array_equal(q, [7.0, 8.0, 1.0])
    bad = tmp_path / "t.dat"
    bad.write_text("2\n0\n2\n2\n2 2\n1 2 3\n")
    with pytest.raises(DeclarationError, match="ends"):
        read_lcp(bad)
    sparse = tmp_path / "s.dat"
    sparse.write_text("2\n2\n2\n2\n")
    with pytest.raises(DeclarationError, match="storage 2"):
        read_lcp(sparse)
