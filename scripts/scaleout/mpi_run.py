"""Runs `siskin run --distributed --comm-stats` under mpirun and returns what every rank counted."""
import json
import os
import shutil
import subprocess

from .matrices import read_pattern
from .rates import SPGEMM, SPMV, write_ones

# OpenMPI refuses root and more ranks than cores unless told.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def mpirun():
    return shutil.which("mpirun")


def distributed_siskin(siskin):
    """Whether `siskin` exists, mpirun too, and it was built with MPI (its help offers
    --comm-stats and does not say that it was built without MPI, as a sanitized build is)."""
    if not (siskin and os.path.exists(siskin) and mpirun()):
        return False
    text = subprocess.run([siskin, "run", "--help"], capture_output=True, text=True).stdout
    return "--comm-stats" in text and "built without MPI" not in text


# The model's split names and the command's (--row-split).
ROW_SPLIT = {"rows": "even", "entries": "entries"}


def _run(siskin, args, ranks, split, out, timeout):
    run = subprocess.run([mpirun(), "-np", str(ranks), siskin, "run", *args, "--distributed",
                          "--row-split", ROW_SPLIT[split], "--comm-stats", out],
                         capture_output=True, text=True, env={**os.environ, **MPI_ENV}, timeout=timeout)
    if run.returncode != 0:
        raise RuntimeError(f"mpirun -np {ranks} siskin run {' '.join(args)} --distributed failed:\n{run.stderr}")
    with open(out) as f:
        return json.load(f)


def spmv_comm_stats(siskin, matrix, ranks, workdir, split="rows", timeout=300):
    """The --comm-stats array of one distributed SpMV of the matrix file with x all ones."""
    n = read_pattern(matrix).cols
    x = os.path.join(workdir, f"x{n}.mtx")
    if not os.path.exists(x):
        write_ones(x, n)
    out = os.path.join(workdir, f"spmv-{ranks}.json")
    return _run(siskin, [SPMV, "-i", f"A={matrix}", "-i", f"x={x}"], ranks, split, out, timeout)


def spgemm_comm_stats(siskin, matrix, ranks, workdir, split="rows", timeout=300):
    """The --comm-stats array of one distributed A * A of the matrix file."""
    out = os.path.join(workdir, f"spgemm-{ranks}.json")
    return _run(siskin, [SPGEMM, "-i", f"A={matrix}", "-i", f"B={matrix}"], ranks, split, out, timeout)
