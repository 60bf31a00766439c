"""Local SpMV and SpGEMM rates of one core, measured with the siskin command on matrices of
each class built here: a 3-D Poisson stencil (mesh) and an R-MAT graph (power-law), big enough
for SpMV to stream from memory as a rank's share of a 10^9-row matrix would."""
import json
import os
import subprocess
import tempfile

import numpy as np

from . import poisson, rmat
from .partition import even_split
from .row_partition import row_partition_stats

SPMV = "y[i] += A[i,j] * x[j]"
SPGEMM = "C[i,j] += A[i,k] * B[k,j]"
INPUTS = {
    "mesh": {"spmv": poisson.Stencil(3, 100), "spgemm": poisson.Stencil(3, 40)},
    "powerlaw": {"spmv": rmat.Rmat(18), "spgemm": rmat.Rmat(13)},
}


def _pattern(generator):
    if isinstance(generator, poisson.Stencil):
        return poisson.materialise(generator)
    return rmat.materialise(generator, seed=1)


def write_matrix_market(path, pattern, seed=2):
    """Real values uniform in [1, 2), 1-based coordinates."""
    values = np.random.default_rng(seed).uniform(1.0, 2.0, pattern.nnz)
    table = np.column_stack([pattern.entry_rows() + 1, pattern.indices + 1])
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{pattern.rows} {pattern.cols} {pattern.nnz}\n")
        np.savetxt(f, np.column_stack([table, values]), fmt=["%d", "%d", "%.6f"])


def write_ones(path, n):
    with open(path, "w") as f:
        f.write(f"%%MatrixMarket matrix array real general\n{n} 1\n")
        f.write("1\n" * n)


def run_siskin(siskin, args, repeat, workdir, commands):
    stats = os.path.join(workdir, "stats.json")
    argv = [siskin, "run", *args, "--threads", "1", "--repeat", str(repeat), "--stats", stats]
    commands.append(" ".join(f"'{a}'" if " " in a else a for a in argv))
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    with open(stats) as f:
        return json.load(f)["median_ms"] / 1e3


def measure(siskin, repeat_spmv=30, repeat_spgemm=3):
    """Seconds per stored entry (SpMV) and per multiply-add (SpGEMM) on one core, per class."""
    out, commands = {}, []
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as workdir:
        for cls, gens in INPUTS.items():
            a_path = os.path.join(workdir, f"{cls}_spmv.mtx")
            a = _pattern(gens["spmv"])
            write_matrix_market(a_path, a)
            x_path = os.path.join(workdir, "x.mtx")
            write_ones(x_path, a.cols)
            spmv = run_siskin(siskin, [SPMV, "-i", f"A={a_path}", "-i", f"x={x_path}"], repeat_spmv, workdir, commands)
            b = _pattern(gens["spgemm"])
            b_path = os.path.join(workdir, f"{cls}_spgemm.mtx")
            write_matrix_market(b_path, b)
            flops = int(row_partition_stats(b, even_split(b.rows, 1)).flops[0])
            spgemm = run_siskin(siskin, [SPGEMM, "-i", f"A={b_path}", "-i", f"B={b_path}",
                                         "-o", f"C={os.path.join(workdir, 'c.tns')}"], repeat_spgemm, workdir, commands)
            out[cls] = {"spmv_matrix": f"{gens['spmv']}", "spmv_entries": a.nnz,
                        "spmv_seconds": spmv, "spmv_per_entry": spmv / a.nnz,
                        "spgemm_matrix": f"{gens['spgemm']}", "spgemm_flops": flops,
                        "spgemm_seconds": spgemm, "spgemm_per_flop": spgemm / flops}
    return {"classes": out, "commands": commands,
            "load_average_before_after": [load_before[0], os.getloadavg()[0]]}
