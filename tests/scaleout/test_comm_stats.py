"""The model's per-rank counts against `siskin run --distributed --comm-stats` under mpirun.

Skipped where the siskin command (SISKIN_CLI, set by ctest) is missing, was built without MPI,
or mpirun is absent. The counts must be equal, not close: the model and the MPI layer define
them alike (docs/scale-out.md, src/distributed/README.md)."""
import os
import random

import pytest

from scaleout.compare import compare_records
from scaleout.matrices import read_pattern
from scaleout.mpi_run import distributed_siskin, spgemm_comm_stats, spmv_comm_stats

CLI = os.environ.get("SISKIN_CLI", "")

pytestmark = pytest.mark.skipif(not distributed_siskin(CLI),
                                reason="needs mpirun and a siskin built with MPI (--distributed)")


def write_matrix(path, n, count, seed, heavy_row):
    """A random n x n matrix with one dense row (it reaches every rank) and an explicit zero."""
    rng = random.Random(seed)
    entries = {(rng.randrange(n), rng.randrange(n)) for _ in range(count)}
    entries |= {(heavy_row, j) for j in range(n)}
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix coordinate real general\n{n} {n} {len(entries)}\n")
        for k, (i, j) in enumerate(sorted(entries)):
            f.write(f"{i + 1} {j + 1} {0.0 if k == 0 else rng.uniform(1, 2)}\n")


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_spmv_counts_equal_the_model(tmp_path, ranks):
    matrix = str(tmp_path / "a.mtx")
    write_matrix(matrix, 41, 200, seed=ranks, heavy_row=5)
    measured = spmv_comm_stats(CLI, matrix, ranks, str(tmp_path))
    ok, report = compare_records(read_pattern(matrix), measured, "rows")
    assert ok, report


def test_a_symmetric_pattern_file_counts_both_triangles(tmp_path):
    matrix = os.path.join(os.path.dirname(__file__), "..", "..", "data", "karate.mtx")
    ok, report = compare_records(read_pattern(matrix), spmv_comm_stats(CLI, matrix, 3, str(tmp_path)), "rows")
    assert ok, report


def test_ranks_that_own_no_rows(tmp_path):
    matrix = str(tmp_path / "small.mtx")
    write_matrix(matrix, 5, 8, seed=9, heavy_row=2)
    ok, report = compare_records(read_pattern(matrix), spmv_comm_stats(CLI, matrix, 7, str(tmp_path)), "rows")
    assert ok, report


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_spgemm_counts_equal_the_model(tmp_path, ranks):
    """A * A fetches the rows of B named by A's halo: lengths, then entries, per neighbour."""
    matrix = str(tmp_path / "a.mtx")
    write_matrix(matrix, 41, 120, seed=10 + ranks, heavy_row=3)   # some rows are empty
    measured = spgemm_comm_stats(CLI, matrix, ranks, str(tmp_path))
    ok, report = compare_records(read_pattern(matrix), measured, "rows", operations=("spgemm",))
    assert ok, report


@pytest.mark.parametrize("ranks", [3, 4])
def test_the_entries_split_counts_equal_the_model(tmp_path, ranks):
    matrix = str(tmp_path / "a.mtx")
    write_matrix(matrix, 41, 200, seed=20 + ranks, heavy_row=30)
    for run, operations in ((spmv_comm_stats, ("spmv", "halo_setup")), (spgemm_comm_stats, ("spgemm",))):
        measured = run(CLI, matrix, ranks, str(tmp_path), split="entries")
        ok, report = compare_records(read_pattern(matrix), measured, "entries", operations=operations)
        assert ok, report
