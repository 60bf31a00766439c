#!/usr/bin/python3
"""siskin's chosen plan against SciPy's CSC kernels, side by side: the CSC rows of
bench/planner_error.py (SpMV with a CSC matrix, SpGEMM and add of CSC matrices into CSC) run
through the Python package (siskin.compile: the planner's plan 0, as `siskin run` compiles it),
each round timing one siskin run (Kernel.time_runs: the kernel call, its output's allocation
included, timed in C++) then one SciPy call, so that load on the machine falls on both alike.

Usage: SISKIN_NUM_THREADS=1 PYTHONPATH=build/python bench/planner_csc.py [--repeat N]
Prints per workload the plan, the medians and SciPy's time over siskin's (goal >= 1.0).
"""
import os
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import planner_error  # noqa: E402  (the same inputs)
import siskin  # noqa: E402


def main():
    repeat = 30
    if "--repeat" in sys.argv:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1])
    print(f"uptime before: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    print(f"threads: {os.environ.get('SISKIN_NUM_THREADS', '(all cores)')}, {repeat} rounds")
    print("| workload | plan 0 | siskin ms | scipy ms | scipy/siskin |")
    print("|---|---|---|---|---|")
    for title, program, inputs, (out, out_format), peers in planner_error.workloads():
        if "csc" not in title:
            continue
        kernel = siskin.compile(program, formats={out: out_format})
        # scipy matrices as they are (csc); the n x 1 vector of the .mtx rows as a vector.
        tensors = {name: (m[:, 0] if isinstance(m, np.ndarray) else m) for name, (m, _) in inputs.items()}
        got = kernel(**tensors)[out]
        peer = list(peers.values())[0]
        want = peer()
        if hasattr(want, "toarray"):  # compared sparse: the add's 40000 x 40000 would be 12.8 GB dense
            assert abs(got.to_scipy("csc") - want).max() == 0, title
        else:
            want_dense = np.asarray(want)
            assert np.array_equal(got.to_numpy().reshape(want_dense.shape), want_dense), title
        native = {name: siskin.asarray(m)._native for name, m in tensors.items()}
        ours, theirs = [], []
        for _ in range(repeat):
            ours.append(kernel.time_runs(native, 1)[0] * 1e3)
            t = time.perf_counter()
            peer()
            theirs.append((time.perf_counter() - t) * 1e3)
        s, p = statistics.median(ours), statistics.median(theirs)
        print(f"| {title} | {kernel.plan} | {s:.3f} | {p:.3f} | {p / s:.2f} |", flush=True)
    print(f"uptime after: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")


if __name__ == "__main__":
    main()
