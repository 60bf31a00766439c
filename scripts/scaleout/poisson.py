"""The Poisson stencil matrix (5-point on an N x N grid, 7-point on N x N x N, natural order),
partitioned without being built: its rows and columns near a range are intervals, so the counts
of row_partition and grid_partition come from interval arithmetic at any size.

The interval model treats row i's neighbours as i + d for every offset d with 0 <= i + d < n; it
ignores that a grid point on a face of the grid lacks the neighbour across it. That over-counts
a rank's halo by at most a grid line (N values) in a halo of a grid plane (N^(dim-1) values):
a relative error below about 2 / N. `materialise` builds the true matrix for small N, which
tests/scaleout checks the model against.
"""
from dataclasses import dataclass

import numpy as np

from . import intervals
from .exchange import Exchange, exchange_of_items
from .grid_partition import GridPartitionStats, grid_shape, summa_exchange
from .matrices import from_coordinates
from .partition import even_split
from .row_partition import RowPartitionStats


@dataclass(frozen=True)
class Stencil:
    dim: int   # 2 or 3
    N: int     # grid points per side

    @property
    def n(self):
        return self.N ** self.dim

    @property
    def offsets(self):
        """Column offsets of the off-diagonal entries."""
        steps = [self.N ** k for k in range(self.dim)]
        return [s for s in steps] + [-s for s in steps]

    @property
    def name(self):
        return f"poisson{self.dim}d"

    def entries_in(self, lo, hi, clo, chi, offsets=None):
        """Stored entries (i, i + d) with i in [lo, hi), i + d in [clo, chi), d in offsets + {0}."""
        offs = [0] + self.offsets if offsets is None else offsets
        return sum(max(0, min(hi, chi - d) - max(lo, clo - d)) for d in offs)


def materialise(stencil):
    """The true stencil pattern (grid faces respected), for small N."""
    N, dim = stencil.N, stencil.dim
    coords = np.stack(np.unravel_index(np.arange(stencil.n), (N,) * dim), axis=1)[:, ::-1]
    rows, cols = [np.arange(stencil.n)], [np.arange(stencil.n)]
    for axis in range(dim):
        for step in (1, -1):
            ok = (coords[:, axis] + step >= 0) & (coords[:, axis] + step < N)
            i = np.nonzero(ok)[0]
            rows.append(i)
            cols.append(i + step * N ** axis)
    return from_coordinates(stencil.n, stencil.n, np.concatenate(rows), np.concatenate(cols))


def _exchange(p, senders, receivers, sizes):
    if not senders:
        return Exchange.empty(p)
    return exchange_of_items(p, np.array(senders), np.array(receivers), np.array(sizes))


def stencil_row_stats(stencil, p, value_bytes=8, index_bytes=8):
    """RowPartitionStats of the PETSC_DECIDE row split (the entries split differs from it by
    at most the rows at the grid's two ends)."""
    n, offs = stencil.n, stencil.offsets
    row_len = len(offs) + 1
    bounds = even_split(n, p)
    rows, diag, off, halo = (np.zeros(p, dtype=np.int64) for _ in range(4))
    s_, r_, v_, i_, e_ = [], [], [], [], []
    for r in range(p):
        lo, hi = int(bounds[r]), int(bounds[r + 1])
        rows[r] = hi - lo
        diag[r] = stencil.entries_in(lo, hi, lo, hi)
        off[r] = stencil.entries_in(lo, hi, 0, n) - diag[r]
        need = intervals.subtract(intervals.shifted(lo, hi, offs, n), lo, hi)
        halo[r] = intervals.size(need)
        pieces = intervals.counts_by_owner(need, bounds)
        for other, count in pieces:
            s_.append(other), r_.append(r), v_.append(count * value_bytes)
            i_.append(count * index_bytes), e_.append(count * row_len * (index_bytes + value_bytes))
    spmv = _exchange(p, s_, r_, v_)
    setup = _exchange(p, r_, s_, i_)
    lengths = _exchange(p, s_, r_, i_)   # SpGEMM: the fetched rows' lengths, then their entries
    return RowPartitionStats(
        bounds=bounds, rows=rows, nnz_diag=diag, nnz_offdiag=off, halo_columns=halo,
        spmv=spmv, spmv_setup=setup, spgemm=lengths + _exchange(p, s_, r_, e_),
        rows_fetched=halo, entries_fetched=halo * row_len, flops=rows * row_len * row_len)


def stencil_grid_stats(stencil, p, value_bytes=8, index_bytes=8):
    n, offs = stencil.n, stencil.offsets
    all_offs = [0] + offs
    pr, pc = grid_shape(p)
    chunks = even_split(n, p)
    row_blocks, col_blocks = chunks[::pc], chunks[::pr]
    nnz, brows, bcols = (np.zeros(p, dtype=np.int64) for _ in range(3))
    ex, fo = ([], [], []), ([], [], [])
    for i in range(pr):
        rlo, rhi = int(row_blocks[i]), int(row_blocks[i + 1])
        for j in range(pc):
            rank = i * pc + j
            clo, chi = int(col_blocks[j]), int(col_blocks[j + 1])
            nnz[rank] = stencil.entries_in(rlo, rhi, clo, chi)
            cols = intervals.intersect(intervals.shifted(rlo, rhi, all_offs, n), clo, chi)
            rows = intervals.intersect(intervals.shifted(clo, chi, [-d for d in all_offs], n), rlo, rhi)
            bcols[rank], brows[rank] = intervals.size(cols), intervals.size(rows)
            for other, count in intervals.counts_by_owner(cols, chunks):
                ex[0].append(other), ex[1].append(rank), ex[2].append(count * value_bytes)
            for other, count in intervals.counts_by_owner(rows, chunks):
                fo[0].append(rank), fo[1].append(other), fo[2].append(count * value_bytes)
    expand, fold = _exchange(p, *ex), _exchange(p, *fo)
    setup = _exchange(p, ex[1], ex[0], [b // value_bytes * index_bytes for b in ex[2]]) + \
        _exchange(p, *fo[:2], [b // value_bytes * index_bytes for b in fo[2]])
    stats = GridPartitionStats(grid=(pr, pc), nnz=nnz, block_rows=brows, block_columns=bcols,
                               expand=expand, fold=fold, spmv_setup=setup,
                               spgemm=None, block_bytes=None, flops=None)
    if pr == pc:
        s = pr
        block_bytes = (nnz * (index_bytes + value_bytes) + brows * 2 * index_bytes).reshape(s, s)
        flops = np.zeros(p, dtype=np.int64)
        pair_offsets = [a + b for a in all_offs for b in all_offs]
        for i in range(s):
            for j in range(s):
                flops[i * s + j] = stencil.entries_in(int(row_blocks[i]), int(row_blocks[i + 1]),
                                                      int(col_blocks[j]), int(col_blocks[j + 1]),
                                                      pair_offsets)
        stats.block_bytes, stats.flops = block_bytes, flops
        stats.spgemm = summa_exchange(block_bytes)
    return stats
