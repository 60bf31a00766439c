#!/usr/bin/python3
"""The work threshold of parallel loops (CompileOptions::parallel_min_work): SpMV, row sums and a
sparse add into CSR (per-thread parts joined in order) on random CSR matrices whose work (rows
plus stored entries) spans the threshold, run by
`siskin run` on 1 and on 2 threads with the threshold off (--parallel-min-work 0), side by side.
Below the work where 2 threads beat 1, starting the team costs more than it saves.

Usage: bench/thread_threshold.py [SISKIN] [--repeat N]
Prints a Markdown table (the fastest of N runs each, the 1-thread/2-thread ratios of the fastest
and of the medians) with `uptime`.
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io
import scipy.sparse as sp

PER_ROW = 8
WORKS = [int(2 ** (k / 2)) for k in range(22, 37)]  # 2048 .. 262144 rows plus entries, steps of sqrt(2)
PROGRAMS = {"SpMV": "y[i] += A[i,j] * x[j]", "row sums": "y[i] += A[i,j]", "add (CSR)": "C[i,j] = A[i,j] + B[i,j]"}


def times_ms(siskin, program, folder, threads, repeat):
    """The fastest and the median run: on a loaded machine a second thread the scheduler leaves
    waiting stalls the region by a time slice, so the fastest run is what a quiet machine gives."""
    stats = folder / f"stats{threads}.json"
    inputs = ["-i", f"A={folder / 'A.mtx'}:csr"]
    if "x[" in program:
        inputs += ["-i", f"x={folder / 'x.mtx'}:dense"]
    if "B[" in program:
        inputs += ["-i", f"B={folder / 'B.mtx'}:csr", "-o", f"C={folder / 'C.mtx'}:csr"]
    subprocess.run([siskin, "run", program, *inputs, "--threads", str(threads), "--parallel-min-work", "0",
                    "--repeat", str(repeat), "--stats", str(stats)], check=True, capture_output=True)
    stats = json.loads(stats.read_text())
    return stats["min_ms"], stats["median_ms"]


def main():
    args = sys.argv[1:]
    repeat = 400
    if "--repeat" in args:
        k = args.index("--repeat")
        repeat = int(args[k + 1])
        del args[k:k + 2]
    siskin = args[0] if args else "build/siskin"
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"`uptime` before: {uptime}\n")
    print("| program | work | rows | entries | fastest 1 thread ms | fastest 2 threads ms | 1/2 fastest | 1/2 median |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(21)
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for work in WORKS:
            rows = work // (PER_ROW + 1)
            A = sp.random(rows, rows, density=PER_ROW / rows, format="csr", random_state=rng)
            scipy.io.mmwrite(str(folder / "A.mtx"), A)
            scipy.io.mmwrite(str(folder / "B.mtx"), sp.random(rows, rows, density=PER_ROW / rows, format="csr",
                                                              random_state=rng))
            scipy.io.mmwrite(str(folder / "x.mtx"), rng.uniform(-1, 1, (rows, 1)))
            for name, program in PROGRAMS.items():
                one = times_ms(siskin, program, folder, 1, repeat)
                two = times_ms(siskin, program, folder, 2, repeat)
                print(f"| {name} | {rows + A.nnz} | {rows} | {A.nnz} | {one[0]:.4f} | {two[0]:.4f} | "
                      f"{one[0] / two[0]:.2f} | {one[1] / two[1]:.2f} |", flush=True)
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"\n`uptime` after: {uptime}")


if __name__ == "__main__":
    main()
