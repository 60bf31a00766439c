#!/usr/bin/python3
"""Finch's three SpGEMM algorithms (notes/finch.md §4.2) beside scipy's A @ B, in one run, on
shared matrices (C = A A): `siskin run` times each program (its --stats, median of --repeat runs,
the kernel and its input transposes, not the compile), scipy is timed here, single-threaded.

  inner        for i, j, k over CSR x CSC into CSR
  gustavson    for i, k, j over CSR x CSR into CSR (a sparsebytemap row workspace)
  outer-hash   for k, i, j over CSC x CSR into a sparsehash(0)/sparsehash(1) W, then C = W (CSR)
  outer-dense  the same through a dense W

Usage: bench/spgemm_strategies.py [--siskin build/siskin] [--repeat N] [--out FILE] [MATRIX ...]
Prints (and with --out writes) a Markdown table of median times and siskin/scipy ratios (above 1:
siskin slower), with `uptime`. Every product's stored count is checked against scipy's.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
MATRICES = pathlib.Path(os.environ.get("SISKIN_MATRICES", ROOT.parent / "shared" / "data" / "matrices"))
# Small enough for the inner product and the dense workspace, which visit all n^2 pairs (i, j).
DEFAULT = ["1138_bus", "rdb3200l"]

OUTER = "for k { for i { for j { W[i,j] += A[i,k] * B[k,j] } } }\nC[i,j] = W[i,j]"
STRATEGIES = [
    ("inner", "for i { for j { for k { C[i,j] += A[i,k] * B[k,j] } } }", "csr", "csc", {}),
    ("gustavson", "for i { for k { for j { C[i,j] += A[i,k] * B[k,j] } } }", "csr", "csr", {}),
    ("outer-hash", OUTER, "csc", "csr", {"W": "sparsehash(0)/sparsehash(1)"}),
    ("outer-dense", OUTER, "csc", "csr", {"W": "dense"}),
]


def scipy_ms(a, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        c = a @ a
        times.append((time.perf_counter() - start) * 1e3)
    return float(np.median(times)), c


def siskin_ms(siskin, path, strategy, folder, repeat):
    name, program, fa, fb, workspaces = strategy
    stats = folder / f"{name}.json"
    cmd = [siskin, "run", "--as-written", program, "-i", f"A={path}:{fa}", "-i", f"B={path}:{fb}",
           "-o", f"C={folder / 'c.tns'}:csr", "--threads", "1", "--stats", str(stats), "--repeat", str(repeat)]
    for w, fmt in workspaces.items():
        cmd += ["-o", f"{w}={folder / (w + '.tns')}:{fmt}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    s = json.loads(stats.read_text())
    return s["median_ms"], s["stored"]["C"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--siskin", default=str(ROOT / "build" / "siskin"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out")
    ap.add_argument("matrices", nargs="*", default=DEFAULT)
    opts = ap.parse_args()
    lines = ["| matrix | n | nnz(A) | nnz(C) | scipy ms | " +
             " | ".join(f"{s[0]} ms (ratio)" for s in STRATEGIES) + " |",
             "|---|---|---|---|---|" + "---|" * len(STRATEGIES)]
    bad = False
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for m in opts.matrices:
            path = MATRICES / f"{m}.mtx"
            a = sp.csr_array(scipy.io.mmread(path))
            a.sum_duplicates()
            base, c = scipy_ms(a, opts.repeat)
            c.eliminate_zeros()
            cells = []
            for s in STRATEGIES:
                ms, stored = siskin_ms(opts.siskin, path, s, folder, opts.repeat)
                if stored != c.nnz:
                    print(f"{m} {s[0]}: {stored} stored entries, scipy {c.nnz}", file=sys.stderr)
                    bad = True
                cells.append(f"{ms:.3g} ({ms / base:.2f})")
            lines.append(f"| {m} | {a.shape[0]} | {a.nnz} | {c.nnz} | {base:.3g} | " + " | ".join(cells) + " |")
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    text = ("## SpGEMM strategies (C = A A) against scipy, one thread\n\n"
            f"`bench/spgemm_strategies.py --repeat {opts.repeat}`; medians; ratio = siskin / scipy "
            f"(above 1: siskin slower). uptime: {load}\n\n" + "\n".join(lines) + "\n")
    print(text)
    if opts.out:
        pathlib.Path(opts.out).write_text(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
