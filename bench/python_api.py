"""Python-level rows: the run-peers workloads called through the siskin Python package (call
overhead included) against scipy.sparse and pydata/sparse, timed side by side in one process,
interleaved call by call; and the call overhead of a cached kernel on small inputs, reported
separately (a call from Python minus the kernel's own run, timed in C++).

Usage: /usr/bin/python3 bench/python_api.py [--quick] [--inputs a,b] [--out FILE]
Needs the package built (build/python, as scripts/build.sh builds it). Writes a Markdown table
to --out (default bench/results/PYTHON.md) and prints it.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
sys.path.insert(0, os.path.join(repo, "build", "python"))
sys.path.insert(0, os.path.join(here, "peers"))

import inputs  # noqa: E402  (bench/peers/inputs.py: the same matrices as run-peers)
import siskin  # noqa: E402

try:
    import sparse  # pydata/sparse
except ImportError:
    sparse = None

WORKLOADS = {
    # name: (program, siskin output formats, scipy call, pydata call)
    "spmv": ("y[i] += A[i,j] * x[j]", {}, lambda A, B, x: A @ x, lambda A, B, x: A @ x),
    "add": ("C[i,j] = A[i,j] + B[i,j]", {"C": "csr"}, lambda A, B, x: A + B, lambda A, B, x: A + B),
    "multiply": ("C[i,j] = A[i,j] * B[i,j]", {"C": "csr"}, lambda A, B, x: A.multiply(B),
                 lambda A, B, x: A * B),
    "rowsum": ("r[i] += A[i,j]", {}, lambda A, B, x: A.sum(axis=1), lambda A, B, x: A.sum(axis=1)),
}


def median_seconds(calls, repeat, budget, at_least=5):
    """Interleaved: every call once to warm it (pydata/sparse compiles on first use), then once
    per round, for `repeat` rounds or until the time budget (but `at_least` rounds)."""
    for call in calls:
        call()
    times = [[] for _ in calls]
    start = time.perf_counter()
    for round in range(repeat):
        for k, call in enumerate(calls):
            t0 = time.perf_counter()
            call()
            times[k].append(time.perf_counter() - t0)
        if round + 1 >= at_least and time.perf_counter() - start > budget:
            break
    return [statistics.median(t) for t in times]


def overhead(repeat):
    """Microseconds a cached kernel call from Python costs above the kernel (median of each)."""
    rows = []
    rng = np.random.default_rng(1)
    import scipy.sparse as sp

    A = siskin.asarray(sp.random(10, 10, density=0.3, format="csr", random_state=rng))
    B = siskin.asarray(sp.random(10, 10, density=0.3, format="csr", random_state=rng))
    x = siskin.asarray(np.ones(10))
    for name, (program, formats, _, _) in WORKLOADS.items():
        kernel = siskin.compile(program, formats=formats)
        args = {"A": A, "B": B, "x": x}
        given = {k: v for k, v in args.items() if k in kernel.inputs}
        kernel(**given)
        native = {k: v._native for k, v in given.items()}
        # The better of three rounds of each: other work on the machine only adds time.
        python = min(median_seconds([lambda: kernel(**given)], repeat, 5)[0] for _ in range(3))
        alone = min(statistics.median(kernel._native.time_runs(native, repeat)) for _ in range(3))
        rows.append((name, python * 1e6, alone * 1e6, (python - alone) * 1e6))
    return rows


def compare(names, matrices, repeat, budget):
    rows = []
    for name in names:
        a, _ = inputs.load(name, matrices)
        b = inputs.second_operand(a)
        x = np.random.default_rng(0).uniform(-1, 1, a.shape[1])
        t0 = time.perf_counter()
        A, B, X = siskin.asarray(a), siskin.asarray(b), siskin.asarray(x)
        wrap_ms = (time.perf_counter() - t0) * 1e3
        pa = pb = None
        if sparse is not None:
            pa, pb = sparse.COO.from_scipy_sparse(a), sparse.COO.from_scipy_sparse(b)
        for workload, (program, formats, scipy_call, pydata_call) in WORKLOADS.items():
            kernel = siskin.compile(program, formats=formats)
            given = {k: v for k, v in {"A": A, "B": B, "x": X}.items() if k in kernel.inputs}
            out = kernel(**given)
            want = np.asarray(scipy_call(a, b, x).todense() if workload in ("add", "multiply")
                              else scipy_call(a, b, x)).reshape(-1)
            got = next(iter(out.values())).to_numpy().reshape(-1)
            # Float sums are reassociated: compare against the largest magnitude.
            scale = np.abs(want).max() if want.size else 0.0
            if not np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale):
                raise SystemExit(f"{name} {workload}: siskin differs from scipy")
            native = {k: v._native for k, v in given.items()}
            # siskin and scipy interleaved for many rounds; pydata/sparse (often 100 times slower)
            # in rounds of its own with siskin, so that it does not leave the others few samples.
            med = median_seconds([lambda: kernel(**given), lambda: scipy_call(a, b, x)], repeat, budget)
            pydata = None
            if pa is not None:
                pydata = median_seconds([lambda: kernel(**given), lambda: pydata_call(pa, pb, x)], 5, budget,
                                        at_least=3)[1]
            alone = statistics.median(kernel._native.time_runs(native, repeat))
            rows.append((name, a.nnz, workload, med[0], alone, med[1], pydata, wrap_ms))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="two inputs, short budgets")
    parser.add_argument("--inputs", help="comma-separated input names (bench/peers/inputs.py)")
    parser.add_argument("--matrices", default=os.environ.get("SISKIN_MATRICES",
                                                             os.path.join(repo, "..", "shared", "data", "matrices")))
    parser.add_argument("--out", default=os.path.join(here, "results", "PYTHON.md"))
    args = parser.parse_args()
    names = args.inputs.split(",") if args.inputs else (["bcsstk13", "uniform"] if args.quick else
                                                        ["bcsstk13", "cage11", "email-Enron", "uniform", "banded"])
    repeat, budget = (30, 2.0) if args.quick else (100, 8.0)

    load = os.getloadavg()
    lines = [f"# Python-level rows (bench/python_api.py{' --quick' if args.quick else ''})", "",
             f"Load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (other work on the machine "
             f"makes timings noisy; ratios are measured side by side, interleaved call by call).", "",
             "## Call overhead of a cached kernel (10x10 inputs, 30 stored)", "",
             "| workload | call from Python (us) | kernel alone, timed in C++ (us) | overhead (us) |",
             "|---|---|---|---|"]
    for name, python, alone, extra in overhead(2000 if not args.quick else 500):
        lines.append(f"| {name} | {python:.2f} | {alone:.2f} | {extra:.2f} |")
    lines += ["", "## Workloads through the Python API", "",
              "Times are medians in ms; ratios are the peer's time over siskin's Python call (above 1: "
              "siskin is faster). Inputs are wrapped once (`siskin.asarray`, zero-copy over scipy's "
              "arrays: the wrap column is that one-time check of the indices).", "",
              "| input | stored | workload | siskin from Python | kernel alone | scipy | pydata | scipy / siskin | pydata / siskin | wrap (ms) |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for name, nnz, workload, py, alone, sc, pd, wrap in compare(names, args.matrices, repeat, budget):
        pd_text = f"{pd * 1e3:.3f}" if pd is not None else "not run"
        pd_ratio = f"{pd / py:.2f}" if pd is not None else "-"
        lines.append(f"| {name} | {nnz} | {workload} | {py * 1e3:.3f} | {alone * 1e3:.3f} | {sc * 1e3:.3f} | "
                     f"{pd_text} | {sc / py:.2f} | {pd_ratio} | {wrap:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
