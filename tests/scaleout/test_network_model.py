"""The time model's arithmetic on hand-made counts (docs/scale-out.md, the network model)."""
import numpy as np
import pytest

from scaleout import network as net
from scaleout.exchange import Exchange
from scaleout.row_partition import RowPartitionStats

NET = net.Network("test", alpha=2.0, beta=0.5, source="made up")
CPU = net.Compute(spmv_per_entry=1.0, spgemm_per_flop=3.0, source="made up")


def exchange(ms, bs, mr, br):
    return Exchange(np.array(ms), np.array(bs), np.array(mr), np.array(br))


def stats(diag, off, spmv):
    z = np.zeros(len(diag), dtype=np.int64)
    return RowPartitionStats(bounds=np.arange(len(diag) + 1), rows=z, nnz_diag=np.array(diag),
                             nnz_offdiag=np.array(off), halo_columns=z, spmv=spmv, spmv_setup=spmv,
                             spgemm=spmv, rows_fetched=z, entries_fetched=z, flops=np.array(off))


def test_an_exchange_costs_the_larger_direction():
    # rank 0: 3 messages out, 1 in, 10 bytes out, 40 in -> 3 * 2 + 40 * 0.5
    e = exchange([3, 0], [10, 0], [1, 0], [40, 0])
    assert list(net.exchange_time(e, NET)) == [26.0, 0.0]


def test_spmv_overlaps_the_diagonal_block_with_the_exchange():
    s = stats(diag=[30, 5], off=[4, 7], spmv=exchange([1, 1], [8, 8], [1, 1], [8, 8]))  # comm 6 each
    # rank 0: max(30, 6) + 4 = 34; rank 1: max(5, 6) + 7 = 13
    assert net.row_spmv_time(s, NET, CPU) == 34.0
    assert net.row_spmv_time(s, NET, CPU, overlap=False) == 40.0
    # SpGEMM: fetch, then multiply: rank 1 = 6 + 7 * 3
    assert net.row_spgemm_time(s, NET, CPU) == 27.0


def test_broadcast_takes_the_cheaper_algorithm():
    # 8 ranks: tree 3 * (2 + 0.5 m); scatter + allgather (3 + 7) * 2 + 2 * 0.5 m * 7/8
    assert net.broadcast_time(4, 8, NET) == pytest.approx(3 * (2 + 2))
    assert net.broadcast_time(1000, 8, NET) == pytest.approx(20 + 1000 * 7 / 8)
    assert net.broadcast_time(1000, 1, NET) == 0.0
    blocks = np.array([[4.0, 0.0], [0.0, 4.0]])
    # 2 stages, each one broadcast along rows and one down columns of the largest block (4 bytes,
    # 2 ranks: one step of 2 + 2), plus the slowest rank's 5 flops * 3.
    assert net.summa_time(blocks, np.array([5, 1, 1, 1]), NET, CPU) == pytest.approx(4 * 4 + 15)
