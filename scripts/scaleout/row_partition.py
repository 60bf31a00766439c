"""Communication of the row partition (PETSc MPIAIJ), counted from a matrix's real pattern.

Rank r owns rows [lo, hi) and the same range of x (the column split). Its entries whose column
it owns form the diagonal block; the others the off-diagonal block, whose columns are
compressed to the distinct remote columns (the halo: PETSc's garray).

- SpMV y = A x, per product: every owner sends each rank the x values of its halo columns it
  owns, one message per (owner, rank) pair, value_bytes each.
- SpMV setup, once per pattern: each rank sends every owner the indices of the columns it needs
  (index_bytes each), so that owners know what to send.
- SpGEMM C = A * A, per product: rank r needs row k of B for every column k of its rows, and
  fetches the remote ones (its halo rows) once. Their owners already know which (the SpMV
  setup's lists), so each owner sends each neighbour two messages: the rows' lengths
  (index_bytes each), then their entries (index_bytes + value_bytes each; no message when the
  rows are all empty). `flops` counts the multiply-adds of the local product.
"""
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .exchange import Exchange, exchange_of_items
from .partition import column_split, owner


@dataclass
class RowPartitionStats:
    """Arrays indexed by rank."""
    bounds: np.ndarray
    rows: np.ndarray
    nnz_diag: np.ndarray
    nnz_offdiag: np.ndarray
    halo_columns: np.ndarray
    spmv: Exchange
    spmv_setup: Exchange
    spgemm: Optional[Exchange]
    rows_fetched: Optional[np.ndarray]
    entries_fetched: Optional[np.ndarray]
    flops: Optional[np.ndarray]

    @property
    def ranks(self):
        return len(self.bounds) - 1


def row_partition_stats(pattern, bounds, value_bytes=8, index_bytes=8):
    """Per-rank counts of the row partition `bounds` (a split of pattern.rows)."""
    p = len(bounds) - 1
    col_bounds = column_split(pattern, bounds)
    entry_rank = owner(bounds, pattern.entry_rows())
    entry_col = pattern.indices
    col_owner = owner(col_bounds, np.arange(pattern.cols, dtype=np.int64))
    diag = col_owner[entry_col] == entry_rank

    # Distinct (rank, column) pairs: the columns each rank's rows touch.
    touched = np.unique(entry_rank * pattern.cols + entry_col)
    touch_rank, touch_col = touched // pattern.cols, touched % pattern.cols
    touch_owner = col_owner[touch_col]
    halo = touch_owner != touch_rank
    halo_rank, halo_col, halo_owner = touch_rank[halo], touch_col[halo], touch_owner[halo]

    stats = RowPartitionStats(
        bounds=bounds,
        rows=np.diff(bounds),
        nnz_diag=np.bincount(entry_rank[diag], minlength=p),
        nnz_offdiag=np.bincount(entry_rank[~diag], minlength=p),
        halo_columns=np.bincount(halo_rank, minlength=p),
        spmv=exchange_of_items(p, halo_owner, halo_rank, value_bytes),
        spmv_setup=exchange_of_items(p, halo_rank, halo_owner, index_bytes),
        spgemm=None, rows_fetched=None, entries_fetched=None, flops=None)

    if pattern.square:
        # B = A, so B's rows are split as A's columns and the halo columns are the remote rows.
        row_length = pattern.row_lengths()
        fetched_length = row_length[halo_col]
        lengths = exchange_of_items(p, halo_owner, halo_rank, index_bytes)
        rows = fetched_length > 0
        entries = exchange_of_items(p, halo_owner[rows], halo_rank[rows],
                                    fetched_length[rows] * (index_bytes + value_bytes))
        stats.spgemm = lengths + entries
        stats.rows_fetched = stats.halo_columns
        stats.entries_fetched = np.bincount(halo_rank, weights=row_length[halo_col],
                                            minlength=p).astype(np.int64)
        stats.flops = np.bincount(entry_rank, weights=row_length[entry_col],
                                  minlength=p).astype(np.int64)
    return stats
