"""The scale-out model's counts against brute-force counts on small random matrices, and its
closed forms (Poisson stencil, R-MAT) against the matrices they describe, built small."""
import math
import random

import numpy as np
import pytest

from scaleout import intervals, poisson, rmat
from scaleout.grid_partition import grid_partition_stats, grid_shape
from scaleout.matrices import from_coordinates
from scaleout.partition import entries_split, even_split
from scaleout.row_partition import row_partition_stats

VALUE, INDEX = 8, 8


def random_pattern(rows, cols, count, seed, heavy_row=None):
    rng = random.Random(seed)
    entries = {(rng.randrange(rows), rng.randrange(cols)) for _ in range(count)}
    if heavy_row is not None:
        entries |= {(heavy_row, j) for j in range(cols)}
    i, j = zip(*sorted(entries))
    return from_coordinates(rows, cols, i, j), sorted(entries)


def brute_owner(bounds, index):
    return next(r for r in range(len(bounds) - 1) if bounds[r] <= index < bounds[r + 1])


def brute_row_counts(rows, cols, entries, bounds):
    """Everything row_partition counts, one entry and one rank at a time."""
    p = len(bounds) - 1
    col_bounds = bounds if rows == cols else even_split(cols, p)
    row_length = {r: sum(1 for i, _ in entries if i == r) for r in range(rows)}
    out = {k: [0] * p for k in ("nnz_diag", "nnz_offdiag", "halo", "flops")}
    halo_sets = [set() for _ in range(p)]
    for i, j in entries:
        r = brute_owner(bounds, i)
        if brute_owner(col_bounds, j) == r:
            out["nnz_diag"][r] += 1
        else:
            out["nnz_offdiag"][r] += 1
            halo_sets[r].add(j)
        out["flops"][r] += row_length.get(j, 0)
    msgs = {k: [0] * p for k in ("spmv_ms", "spmv_bs", "spmv_mr", "spmv_br",
                                 "gemm_mr", "gemm_br", "gemm_ms", "gemm_bs")}
    for r in range(p):
        out["halo"][r] = len(halo_sets[r])
        by_owner = {}
        for j in halo_sets[r]:
            by_owner.setdefault(brute_owner(col_bounds, j), []).append(j)
        for s, js in by_owner.items():
            msgs["spmv_mr"][r] += 1
            msgs["spmv_br"][r] += VALUE * len(js)
            msgs["spmv_ms"][s] += 1
            msgs["spmv_bs"][s] += VALUE * len(js)
            if rows == cols:
                # The owner sends the rows' lengths, then their entries unless all are empty.
                entries = sum(row_length[j] for j in js)
                messages = 1 + (entries > 0)
                nbytes = INDEX * len(js) + entries * (INDEX + VALUE)
                msgs["gemm_mr"][r] += messages
                msgs["gemm_br"][r] += nbytes
                msgs["gemm_ms"][s] += messages
                msgs["gemm_bs"][s] += nbytes
    out.update(msgs)
    return out


CASES = [  # rows, cols, entries, seed, heavy row
    (37, 37, 160, 1, None),
    (50, 50, 300, 2, 7),      # one dense row: the entries split gives it a rank of its own
    (23, 31, 90, 3, None),    # rectangular: x split on its own
    (5, 5, 12, 4, None),      # more ranks than rows below: ranks that own nothing
]


@pytest.mark.parametrize("rows,cols,count,seed,heavy", CASES)
@pytest.mark.parametrize("split", ["rows", "entries"])
@pytest.mark.parametrize("p", [1, 2, 3, 4, 7, 9])
def test_row_partition_counts_equal_brute_force(rows, cols, count, seed, heavy, split, p):
    pattern, entries = random_pattern(rows, cols, count, seed, heavy)
    bounds = even_split(rows, p) if split == "rows" else entries_split(pattern.indptr, p)
    got = row_partition_stats(pattern, bounds, VALUE, INDEX)
    want = brute_row_counts(rows, cols, entries, list(bounds))
    assert list(got.nnz_diag) == want["nnz_diag"]
    assert list(got.nnz_offdiag) == want["nnz_offdiag"]
    assert list(got.halo_columns) == want["halo"]
    assert list(got.spmv.messages_sent) == want["spmv_ms"]
    assert list(got.spmv.bytes_sent) == want["spmv_bs"]
    assert list(got.spmv.messages_received) == want["spmv_mr"]
    assert list(got.spmv.bytes_received) == want["spmv_br"]
    assert list(got.spmv_setup.bytes_sent) == [INDEX * h for h in want["halo"]]
    if rows == cols:
        assert list(got.flops) == want["flops"]
        assert list(got.spgemm.messages_received) == want["gemm_mr"]
        assert list(got.spgemm.bytes_received) == want["gemm_br"]
        assert list(got.spgemm.messages_sent) == want["gemm_ms"]
        assert list(got.spgemm.bytes_sent) == want["gemm_bs"]
    else:
        assert got.spgemm is None


def test_entries_split_follows_its_rule():
    pattern, _ = random_pattern(50, 50, 300, 2, heavy_row=7)
    for p in (1, 2, 3, 5, 8, 60):
        bounds = entries_split(pattern.indptr, p)
        assert bounds[0] == 0 and bounds[-1] == 50 and all(np.diff(bounds) >= 0)
        for k in range(1, p):
            target = math.ceil(k * pattern.nnz / p)
            first = next((i for i in range(50) if pattern.indptr[i] >= target), 50)
            assert bounds[k] == first


def test_even_split_is_petsc_decide():
    assert list(even_split(10, 4)) == [0, 3, 6, 8, 10]
    assert list(even_split(2, 4)) == [0, 1, 2, 2, 2]


@pytest.mark.parametrize("rows,cols,count,seed,heavy", CASES[:3])
@pytest.mark.parametrize("p", [1, 2, 4, 6, 9])
def test_grid_partition_counts_equal_brute_force(rows, cols, count, seed, heavy, p):
    pattern, entries = random_pattern(rows, cols, count, seed, heavy)
    pr, pc = grid_shape(p)
    y, x = list(even_split(rows, p)), list(even_split(cols, p))
    row_blocks, col_blocks = y[::pc], x[::pr]
    block_cols = [set() for _ in range(p)]
    block_rows = [set() for _ in range(p)]
    nnz = [0] * p
    for i, j in entries:
        rank = brute_owner(row_blocks, i) * pc + brute_owner(col_blocks, j)
        nnz[rank] += 1
        block_cols[rank].add(j)
        block_rows[rank].add(i)
    received, sent = [0] * p, [0] * p
    partners = [set() for _ in range(p)]
    for rank in range(p):
        for j in block_cols[rank]:
            if brute_owner(x, j) != rank:
                received[rank] += VALUE
                partners[rank].add(("from", brute_owner(x, j)))
        for i in block_rows[rank]:
            if brute_owner(y, i) != rank:
                sent[rank] += VALUE
                partners[rank].add(("to", brute_owner(y, i)))
    got = grid_partition_stats(pattern, p, VALUE, INDEX)
    assert list(got.nnz) == nnz
    assert list(got.expand.bytes_received) == received
    assert list(got.fold.bytes_sent) == sent
    assert list(got.expand.messages_received + got.fold.messages_sent) == [len(s) for s in partners]
    assert sum(got.spmv.bytes_sent) == sum(got.spmv.bytes_received)
    if rows == cols and pr == pc:
        # SUMMA flops: rank (i, j) multiplies A(i, k) by B(k, j) for every k.
        flops = [0] * p
        for i, k in entries:
            for k2, j in entries:
                if k2 == k:
                    flops[brute_owner(row_blocks, i) * pc + brute_owner(col_blocks, j)] += 1
        assert list(got.flops) == flops


def test_intervals():
    s = intervals.normalise([(5, 9), (0, 2), (1, 3), (9, 9), (8, 12)])
    assert s == [(0, 3), (5, 12)]
    assert intervals.subtract(s, 6, 8) == [(0, 3), (5, 6), (8, 12)]
    assert intervals.counts_by_owner(s, [0, 4, 4, 10, 20]) == [(0, 3), (2, 5), (3, 2)]
    assert intervals.shifted(2, 4, [-3, 1], 10) == [(0, 1), (3, 5)]


@pytest.mark.parametrize("stencil", [poisson.Stencil(2, 30), poisson.Stencil(3, 12)])
@pytest.mark.parametrize("p", [2, 3, 4, 9, 16])
def test_poisson_intervals_match_the_built_stencil(stencil, p):
    """The interval model ignores the grid's faces: it may over-count by the faces' share."""
    built = poisson.materialise(stencil)
    tol = 2 * stencil.dim / stencil.N
    one, want = poisson.stencil_row_stats(stencil, p), row_partition_stats(built, even_split(built.rows, p))
    assert list(one.spmv.messages_received) == list(want.spmv.messages_received)
    assert np.all(one.halo_columns >= want.halo_columns)
    assert np.all(one.halo_columns <= want.halo_columns * (1 + tol) + 1)
    assert np.all(one.nnz_diag + one.nnz_offdiag <= (want.nnz_diag + want.nnz_offdiag) * (1 + tol) + 1)
    two, want2 = poisson.stencil_grid_stats(stencil, p), grid_partition_stats(built, p)
    assert np.all(two.nnz >= want2.nnz) and np.all(two.nnz <= want2.nnz * (1 + tol) + 1)
    assert np.all(two.spmv.bytes_received >= want2.spmv.bytes_received)
    assert np.all(two.spmv.bytes_received <= want2.spmv.bytes_received * (1 + tol) + VALUE)


def test_rmat_closed_form_matches_a_sampled_graph():
    g = rmat.Rmat(12)
    built = rmat.materialise(g, seed=5)
    assert g.nnz == pytest.approx(built.nnz, rel=0.01)
    for p in (4, 16, 64):
        one, want = rmat.rmat_row_stats(g, p), row_partition_stats(built, even_split(built.rows, p))
        assert one.halo_columns[0] == pytest.approx(np.mean(want.halo_columns), rel=0.02)
        assert one.spmv.messages_received[0] == pytest.approx(np.mean(want.spmv.messages_received), rel=0.03)
        assert one.entries_fetched[0] == pytest.approx(np.mean(want.entries_fetched), rel=0.03)
        assert one.flops[0] == pytest.approx(np.mean(want.flops), rel=0.03)
        two, want2 = rmat.rmat_grid_stats(g, p), grid_partition_stats(built, p)
        assert two.spmv.bytes_received[0] == pytest.approx(np.mean(want2.spmv.bytes_received), rel=0.03)
        assert two.spmv.messages_received[0] == pytest.approx(np.mean(want2.spmv.messages_received), rel=0.03)
