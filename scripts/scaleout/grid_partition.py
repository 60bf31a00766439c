"""Communication of the 2-D partition (CombBLAS-style), counted from a matrix's real pattern.

p ranks form a pr x pc grid (pr the largest divisor of p not above sqrt(p)); rank r is grid
position (r // pc, r % pc). The vectors are split over all p ranks in rank order (PETSC_DECIDE
chunks, as CombBLAS's FullyDistVec), and the matrix blocks follow them: row block i is the rows
of y-chunks i*pc .. i*pc+pc-1 and column block j the columns of x-chunks j*pr .. j*pr+pr-1, so
y's owners of row block i are exactly the ranks of grid row i.

- SpMV y = A x: expand — rank (i, j) fetches x for the distinct columns of its block from the
  pr owners of column block j (CombBLAS: a transpose then an allgather down grid column j;
  here one message from each owner, only the needed values); local product; fold — it sends the
  partial sums of the distinct rows of its block to their owners in grid row i, which add them.
  Setup, once per pattern: the index lists of both.
- SpGEMM C = A * A by SUMMA on a square grid (p = s*s): in stage k, block A(i, k) is broadcast
  along grid row i and B(k, j) down grid column j. Counts assume a flat broadcast (the root
  sends the block to the s-1 others); blocks are doubly compressed (CombBLAS DCSC): a block
  costs nnz * (index_bytes + value_bytes) + nonempty_rows * 2 * index_bytes.
"""
from dataclasses import dataclass
from math import isqrt
from typing import Optional

import numpy as np

from .exchange import Exchange, exchange_of_items
from .partition import even_split, owner


def grid_shape(p):
    """(pr, pc) with pr * pc = p and pr the largest divisor of p at most sqrt(p)."""
    pr = next(d for d in range(isqrt(p), 0, -1) if p % d == 0)
    return pr, p // pr


@dataclass
class GridPartitionStats:
    """Arrays indexed by rank, except block_bytes (s x s, for SUMMA's stages)."""
    grid: tuple
    nnz: np.ndarray
    block_rows: np.ndarray      # distinct rows of the rank's block (partial sums it folds)
    block_columns: np.ndarray   # distinct columns of the rank's block (x values it needs)
    expand: Exchange
    fold: Exchange
    spmv_setup: Exchange
    spgemm: Optional[Exchange]
    block_bytes: Optional[np.ndarray]
    flops: Optional[np.ndarray]

    @property
    def spmv(self):
        return self.expand + self.fold

    @property
    def ranks(self):
        return self.grid[0] * self.grid[1]


def grid_partition_stats(pattern, p, value_bytes=8, index_bytes=8):
    pr, pc = grid_shape(p)
    y_chunks = even_split(pattern.rows, p)
    x_chunks = even_split(pattern.cols, p)
    row_blocks = y_chunks[::pc]
    col_blocks = x_chunks[::pr]
    entry_row = pattern.entry_rows()
    entry_col = pattern.indices
    block_i = owner(row_blocks, entry_row)
    block_j = owner(col_blocks, entry_col)
    entry_rank = block_i * pc + block_j

    cols = np.unique(entry_rank * pattern.cols + entry_col)
    col_rank, col = cols // pattern.cols, cols % pattern.cols
    rows = np.unique(entry_rank * pattern.rows + entry_row)
    row_rank, row = rows // pattern.rows, rows % pattern.rows
    x_owner = owner(x_chunks, col)
    y_owner = owner(y_chunks, row)

    stats = GridPartitionStats(
        grid=(pr, pc),
        nnz=np.bincount(entry_rank, minlength=p),
        block_rows=np.bincount(row_rank, minlength=p),
        block_columns=np.bincount(col_rank, minlength=p),
        expand=exchange_of_items(p, x_owner, col_rank, value_bytes),
        fold=exchange_of_items(p, row_rank, y_owner, value_bytes),
        spmv_setup=(exchange_of_items(p, col_rank, x_owner, index_bytes)
                    + exchange_of_items(p, row_rank, y_owner, index_bytes)),
        spgemm=None, block_bytes=None, flops=None)

    if pattern.square and pr == pc:
        stats.block_bytes, stats.flops, stats.spgemm = _summa(
            pattern, pr, row_blocks, col_blocks, entry_rank, row_rank, value_bytes, index_bytes)
    return stats


def _summa(pattern, s, row_blocks, col_blocks, entry_rank, row_rank, value_bytes, index_bytes):
    nnz = np.bincount(entry_rank, minlength=s * s)
    nonempty_rows = np.bincount(row_rank, minlength=s * s)
    block_bytes = (nnz * (index_bytes + value_bytes) + nonempty_rows * 2 * index_bytes).reshape(s, s)

    # flops of rank (i, j) = sum over entries (r, k) of A with r in row block i of the entries of
    # B's row k in column block j: (entries of A by row block and column) @ (B by row and column block).
    entry_block_i = owner(row_blocks, pattern.entry_rows())
    a_by_block_row = np.bincount(entry_block_i * pattern.cols + pattern.indices,
                                 minlength=s * pattern.cols).reshape(s, pattern.cols)
    b_by_row_block = np.bincount(pattern.entry_rows() * s + owner(col_blocks, pattern.indices),
                                 minlength=pattern.rows * s).reshape(pattern.rows, s)
    flops = (a_by_block_row.astype(np.float64) @ b_by_row_block.astype(np.float64))
    flops = np.rint(flops).astype(np.int64).reshape(s * s)

    return block_bytes, flops, summa_exchange(block_bytes)


def summa_exchange(block_bytes):
    """SUMMA's flat broadcasts on an s x s grid with block sizes block_bytes[i, k]: rank (i, j)
    receives A(i, k) for k != j and B(k, j) for k != i (B = A), and sends its own block to the
    s - 1 others of its grid row and of its grid column."""
    s = block_bytes.shape[0]
    row_total = block_bytes.sum(axis=1, keepdims=True)
    col_total = block_bytes.sum(axis=0, keepdims=True)
    received = (row_total - block_bytes) + (col_total - block_bytes)
    messages = np.full(s * s, 2 * (s - 1), dtype=np.int64)
    return Exchange(messages_sent=messages.copy(), bytes_sent=(2 * (s - 1) * block_bytes).reshape(s * s),
                    messages_received=messages.copy(), bytes_received=received.reshape(s * s))
