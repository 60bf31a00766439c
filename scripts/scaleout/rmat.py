"""R-MAT power-law graphs (Chakrabarti et al.; Graph500's generator), partitioned without being
built: expected per-rank counts in closed form, at 2^27..2^30 vertices.

The graph has n = 2^scale vertices and m = edge_factor * n generated edges; each edge picks, for
every bit of the row and column ids, quadrant a (0,0), b (0,1), c (1,0) or d (1,1). The matrix
stores the symmetrised pattern (u,v) and (v,u) of the distinct edges, and, as Graph500 does,
vertex ids are randomly permuted, so a rank's rows are a random n/p subset of the vertices.

The probability of an edge (v, u) depends only on how many bits of each kind the pair has, so
sums over the n^2 pairs are sums over popcount classes: with t the popcount of v and j0 (j1)
the one bits of u among v's zero (one) bits, P(v,u) = a^(k-t-j0) b^j0 c^(t-j1) d^j1. The pair
(v, u) is stored with probability 1 - exp(-m (P(v,u) + P(u,v))) (Poisson draws). A column v
meets a random fraction f of the rows with probability 1 - prod_u (1 - f * stored(v,u)).
Expected counts ignore the spread between ranks (the slowest rank is taken as the mean one).
"""
from dataclasses import dataclass
from functools import cached_property
from math import comb, exp, log1p

import numpy as np

from .exchange import Exchange
from .grid_partition import GridPartitionStats, grid_shape, summa_exchange
from .matrices import from_coordinates
from .row_partition import RowPartitionStats

GRAPH500 = (0.57, 0.19, 0.19, 0.05)


@dataclass(frozen=True)
class Rmat:
    scale: int
    edge_factor: int = 16
    probabilities: tuple = GRAPH500

    @property
    def n(self):
        return 2 ** self.scale

    @property
    def m(self):
        return self.edge_factor * self.n

    @property
    def name(self):
        a, b, c, d = self.probabilities
        return "rmat" if self.probabilities == GRAPH500 else f"rmat({a},{b},{c},{d})"

    @cached_property
    def _classes(self):
        """Per popcount t of a vertex: the vertex count C(k, t) and, over the other vertices u
        in classes (j0, j1), their counts and the probability that (v, u) is stored."""
        k, (a, b, c, d) = self.scale, self.probabilities
        out = []
        for t in range(k + 1):
            counts, stored = [], []
            for j0 in range(k - t + 1):
                for j1 in range(t + 1):
                    p_vu = a ** (k - t - j0) * b ** j0 * c ** (t - j1) * d ** j1
                    p_uv = a ** (k - t - j0) * c ** j0 * b ** (t - j1) * d ** j1
                    counts.append(comb(k - t, j0) * comb(t, j1))
                    stored.append(-np.expm1(-self.m * (p_vu + p_uv)))
            out.append((comb(k, t), np.array(counts, dtype=np.float64), np.array(stored)))
        return out

    @cached_property
    def degrees(self):
        """Expected stored entries of a row (= column), per popcount class."""
        return np.array([float(cnt @ st) for _, cnt, st in self._classes])

    @cached_property
    def class_sizes(self):
        return np.array([float(size) for size, _, _ in self._classes])

    @property
    def nnz(self):
        return float(self.class_sizes @ self.degrees)

    def meets(self, fraction):
        """Per class: probability that a column has a stored entry in a random `fraction` of rows."""
        with np.errstate(divide="ignore"):   # fraction 1: a stored entry is surely met
            return np.array([-np.expm1(float(cnt @ np.log1p(-fraction * st))) for _, cnt, st in self._classes])

    def partners(self, fraction, chunk_fraction):
        """Probability that a random `fraction` of the rows needs at least one column of a random
        chunk holding `chunk_fraction` of the columns."""
        with np.errstate(divide="ignore"):
            log_none = float(self.class_sizes @ np.log1p(-chunk_fraction * self.meets(fraction)))
        return -np.expm1(log_none)


def _uniform(value, p):
    return np.full(p, float(value))


def _symmetric(p, messages, nbytes):
    return Exchange(_uniform(messages, p), _uniform(nbytes, p), _uniform(messages, p), _uniform(nbytes, p))


def rmat_row_stats(g, p, value_bytes=8, index_bytes=8):
    """Expected RowPartitionStats of an even row split (equal in expectation for the entries split)."""
    meets = g.meets(1 / p)
    halo = (1 - 1 / p) * float(g.class_sizes @ meets)
    partners = (p - 1) * g.partners(1 / p, 1 / p)
    fetched = (1 - 1 / p) * float(g.class_sizes @ (meets * g.degrees))
    nnz = g.nnz / p
    setup = _symmetric(p, partners, halo * index_bytes)
    # SpGEMM: per partner, the fetched rows' lengths, then their entries (R-MAT rows are not empty).
    fetch = _symmetric(p, 2 * partners, halo * index_bytes + fetched * (index_bytes + value_bytes))
    return RowPartitionStats(
        bounds=np.linspace(0, g.n, p + 1), rows=_uniform(g.n / p, p),
        nnz_diag=_uniform(nnz / p, p), nnz_offdiag=_uniform(nnz * (1 - 1 / p), p),
        halo_columns=_uniform(halo, p), spmv=_symmetric(p, partners, halo * value_bytes),
        spmv_setup=setup, spgemm=fetch, rows_fetched=_uniform(halo, p),
        entries_fetched=_uniform(fetched, p),
        flops=_uniform(float(g.class_sizes @ g.degrees ** 2) / p, p))


def rmat_grid_stats(g, p, value_bytes=8, index_bytes=8):
    """Expected GridPartitionStats of the pr x pc grid."""
    pr, pc = grid_shape(p)
    columns = float(g.class_sizes @ g.meets(1 / pr)) / pc   # distinct columns of a block
    rows = float(g.class_sizes @ g.meets(1 / pc)) / pr      # distinct rows of a block
    # y's owners of row block i are grid row i, the rank included; x's owners of column block j
    # are ranks j*pr .. j*pr+pr-1, which include the rank itself for a fraction `own` of ranks.
    own = sum(j * pr <= i * pc + j < (j + 1) * pr for i in range(pr) for j in range(pc)) / p
    expand = _symmetric(p, (pr - own) * g.partners(1 / pr, 1 / p), columns * (1 - own / pr) * value_bytes)
    fold = _symmetric(p, (pc - 1) * g.partners(1 / pc, 1 / p), rows * (1 - 1 / pc) * value_bytes)
    setup = _symmetric(p, expand.messages_sent[0] + fold.messages_sent[0],
                       (expand.bytes_sent[0] + fold.bytes_sent[0]) / value_bytes * index_bytes)
    stats = GridPartitionStats(grid=(pr, pc), nnz=_uniform(g.nnz / p, p), block_rows=_uniform(rows, p),
                               block_columns=_uniform(columns, p), expand=expand, fold=fold,
                               spmv_setup=setup, spgemm=None, block_bytes=None, flops=None)
    if pr == pc:
        block = g.nnz / p * (index_bytes + value_bytes) + rows * 2 * index_bytes
        stats.block_bytes = np.full((pr, pc), block)
        stats.flops = _uniform(float(g.class_sizes @ g.degrees ** 2) / p, p)
        stats.spgemm = summa_exchange(stats.block_bytes)
    return stats


def materialise(g, seed):
    """A sampled R-MAT graph (ids randomly permuted, symmetrised), for small scales."""
    rng = np.random.default_rng(seed)
    rows = np.zeros(g.m, dtype=np.int64)
    cols = np.zeros(g.m, dtype=np.int64)
    for bit in range(g.scale):   # one bit of every edge at a time: memory O(m), not O(m * scale)
        quadrant = rng.choice(4, size=g.m, p=list(g.probabilities))
        rows |= (quadrant >= 2).astype(np.int64) << bit
        cols |= (quadrant % 2).astype(np.int64) << bit
    perm = rng.permutation(g.n)
    rows, cols = perm[rows], perm[cols]
    return from_coordinates(g.n, g.n, np.concatenate([rows, cols]), np.concatenate([cols, rows]))
