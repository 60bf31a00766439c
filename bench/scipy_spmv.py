#!/usr/bin/python3
"""scipy.sparse on the matrices and operations of bench/bench_spmv.cpp, for ratios.

    /usr/bin/python3 bench/scipy_spmv.py [--dir /work/shared/data/matrices] [--runs 200]

Prints one line per matrix and operation: the median wall and CPU time in ms of many runs (SpMV: A @ x on
csr with int32 indices; SpGEMM: A @ A; Add: A + B with B the same seeded random matrix the C++
benchmark builds). Run it right before or after siskin_bench, on an otherwise quiet machine.
"""
import argparse
import os
import statistics
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

MATRICES = ["bcsstk13", "cage11", "raefsky2", "email-Enron", "luxembourg_osm", "bcsstk33",
            "random20000"]
MASK = (1 << 64) - 1


def splitmix_stream(seed, count):
    """The splitmix64 stream of bench_spmv.cpp, vectorised."""
    k = np.arange(1, count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + k * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def random_matrix(rows, cols, count, seed):
    z = splitmix_stream(seed, 2 * count)
    i = (z[0::2] % np.uint64(rows)).astype(np.int64)
    j = (z[1::2] % np.uint64(cols)).astype(np.int64)
    a = sp.coo_matrix((np.ones(count), (i, j)), shape=(rows, cols)).tocsr()
    a.sum_duplicates()
    return a


def load(directory, name):
    if name == "random20000":
        return random_matrix(20000, 20000, 400000, 20000)
    a = scipy.io.mmread(os.path.join(directory, name + ".mtx"))
    return sp.csr_matrix(a, dtype=np.float64)


def median_ms(fn, runs, min_seconds=0.3):
    """Median wall and CPU (this thread) ms per call; on a shared machine CPU time is the fairer
    one to set against Google Benchmark's CPU column."""
    fn()  # warm up
    wall, cpu = [], []
    start = time.perf_counter()
    while len(wall) < runs or time.perf_counter() - start < min_seconds:
        t0, c0 = time.perf_counter(), time.thread_time()
        fn()
        c1, t1 = time.thread_time(), time.perf_counter()
        wall.append(t1 - t0)
        cpu.append(c1 - c0)
        if len(wall) >= 20 * runs:
            break
    return f"wall {1000 * statistics.median(wall):9.4f}  cpu {1000 * statistics.median(cpu):9.4f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=os.environ.get("SISKIN_MATRIX_DIR", "/work/shared/data/matrices"))
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--ops", default="spmv,spgemm,add")
    args = ap.parse_args()
    ops = args.ops.split(",")
    print(f"scipy {scipy.__version__}, numpy {np.__version__}; median ms")
    for name in MATRICES:
        a = load(args.dir, name)
        a.indices = a.indices.astype(np.int32)
        a.indptr = a.indptr.astype(np.int32)
        n, m = a.shape
        x = 1.0 + (np.arange(m) % 7) / 8
        if "spmv" in ops:
            print(f"{name:16s} SpMV   {median_ms(lambda: a @ x, args.runs)}  nnz={a.nnz}")
        if "spgemm" in ops and n == m:
            runs = max(3, args.runs // 20)
            print(f"{name:16s} SpGEMM {median_ms(lambda: a @ a, runs, 1.0)}")
        if "add" in ops:
            b = random_matrix(n, m, a.nnz, 7)
            print(f"{name:16s} Add    {median_ms(lambda: a + b, args.runs // 5 or 1)}")


if __name__ == "__main__":
    main()
