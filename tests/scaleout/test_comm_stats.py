"""The model's per-rank counts against `siskin run --distributed --comm-stats` under mpirun.

Skipped where the siskin command (SISKIN_CLI, set by ctest) is missing, was built without MPI,
or mpirun is absent. The counts must be equal, not close: the model and the MPI layer define
them alike (docs/scale-out.md, src/distributed/README.md)."""
import json
import os
import random
import shutil
import subprocess

import pytest

from scaleout.compare import compare_records
from scaleout.matrices import read_pattern

CLI = os.environ.get("SISKIN_CLI", "")
MPIRUN = shutil.which("mpirun")
# OpenMPI refuses root and more ranks than cores unless told.
MPI_ENV = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def distributed_cli():
    if not (CLI and os.path.exists(CLI) and MPIRUN):
        return False
    help_text = subprocess.run([CLI, "run", "--help"], capture_output=True, text=True).stdout
    return "--comm-stats" in help_text


pytestmark = pytest.mark.skipif(not distributed_cli(),
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


def comm_stats(tmp_path, matrix, ranks):
    n = read_pattern(matrix).cols
    x = tmp_path / "x.mtx"
    x.write_text(f"%%MatrixMarket matrix array real general\n{n} 1\n" + "1\n" * n)
    out = tmp_path / f"stats{ranks}.json"
    run = subprocess.run([MPIRUN, "-np", str(ranks), CLI, "run", "y[i] += A[i,j] * x[j]",
                          "-i", f"A={matrix}", "-i", f"x={x}", "--distributed", "--comm-stats", str(out)],
                         capture_output=True, text=True, env=MPI_ENV, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(out.read_text())


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_spmv_counts_equal_the_model(tmp_path, ranks):
    matrix = tmp_path / "a.mtx"
    write_matrix(matrix, 41, 200, seed=ranks, heavy_row=5)
    ok, report = compare_records(read_pattern(str(matrix)), comm_stats(tmp_path, matrix, ranks), "rows")
    assert ok, report
