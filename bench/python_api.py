"""Python-level rows: the run-peers workloads called through the siskin Python package (call
overhead included) against scipy.sparse and pydata/sparse, timed side by side in one process,
interleaved call by call; and the call overhead of a cached kernel on small inputs, reported
separately (a call from Python minus the kernel's own run, timed in C++).

Each workload runs two ways from Python: a compiled kernel (`siskin.compile`, called with the
tensors) and the lazy Array API expression (`siskin.matmul(A, x).compute()`, ...), on two kinds
of memory: scipy's arrays used in place (`siskin.asarray(a)`), and a copy in siskin's own memory
(`siskin.asarray(a, copy=True)`), which is what the C++ rows time (tensors read from files).
The difference: a kernel compiled for finite values (mul skips 0 * x where one operand stores
nothing) checks before each call that its inputs still are; memory NumPy may write is scanned
every time, siskin's own once (python/README.md, "Finiteness"). The checks are timed in C++ too.

The goal of issue 20: the ratios of the C++ rows hold within 10 % for inputs above 10^4 stored
entries. The table checks it against the same kernel timed in C++ in this process (the scipy
ratio moves by python / kernel alone), against the kernel plus the checks a C++ caller holding
the same tensors makes (the Python layer alone), and against the C++ rows of bench/run-peers'
last results (--cpp-results: another process and time, so noisier).

Usage: /usr/bin/python3 bench/python_api.py [--quick] [--inputs a,b] [--out FILE] [--cpp-results F]
Needs the package built (build/python, as scripts/build.sh builds it); bench/run-peers runs it
after its C++ rows. Writes a Markdown table to --out (default bench/results/PYTHON.md) and
prints it.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

# One thread, as the C++ rows it is compared with (run-peers --threads 1) and as scipy and
# pydata run: kernels otherwise take every core, and on a loaded machine a parallel region's
# wake-up alone can cost milliseconds. Set before siskin loads.
os.environ["SISKIN_NUM_THREADS"] = "1"

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
    # name (run-peers'): (program, siskin output formats, scipy call, pydata call, lazy Array API call)
    "spmv": ("y[i] += A[i,j] * x[j]", {}, lambda A, B, x: A @ x, lambda A, B, x: A @ x,
             lambda A, B, x: siskin.matmul(A, x).compute()),
    "add": ("C[i,j] = A[i,j] + B[i,j]", {"C": "csr"}, lambda A, B, x: A + B, lambda A, B, x: A + B,
            lambda A, B, x: siskin.add(A, B).compute("csr")),
    "mul": ("C[i,j] = A[i,j] * B[i,j]", {"C": "csr"}, lambda A, B, x: A.multiply(B),
            lambda A, B, x: A * B, lambda A, B, x: siskin.multiply(A, B).compute("csr")),
    "rowsum": ("r[i] += A[i,j]", {}, lambda A, B, x: A.sum(axis=1), lambda A, B, x: A.sum(axis=1),
               lambda A, B, x: siskin.sum(A, axis=1).compute()),
}
GOAL_MIN_STORED = 10**4  # the goal covers inputs above this many stored entries
GOAL_DRIFT = 0.10
GOAL_OVERHEAD_US = 10  # a cached kernel called from Python, above the kernel, on small inputs
# The inputs' memory: scipy's arrays used in place, or copied into siskin's own (asarray's copy=).
MEMORY = {"scipy's": False, "siskin's": True}


class SelfTimed:
    """A call that measures itself and returns its seconds (the kernel timed in C++)."""

    def __init__(self, call):
        self.call = call


def median_seconds(calls, repeat, budget, at_least=5):
    """Interleaved: every call once to warm it (pydata/sparse compiles on first use), then once
    per round, for `repeat` rounds or until the time budget (but `at_least` rounds). A result
    is freed after its timing, as the C++ timing frees its outputs after the clock stops."""
    for call in calls:
        (call.call if isinstance(call, SelfTimed) else call)()
    times = [[] for _ in calls]
    start = time.perf_counter()
    for round in range(repeat):
        for k, call in enumerate(calls):
            if isinstance(call, SelfTimed):
                times[k].append(call.call())
                continue
            t0 = time.perf_counter()
            result = call()
            times[k].append(time.perf_counter() - t0)
            del result
        if round + 1 >= at_least and time.perf_counter() - start > budget:
            break
    return [statistics.median(t) for t in times]


def overhead(repeat):
    """Microseconds a cached kernel call from Python costs above the kernel (median of each), and
    the checks before the run (signatures, shapes, the finiteness scan) timed in C++."""
    rows = []
    rng = np.random.default_rng(1)
    import scipy.sparse as sp

    A = siskin.asarray(sp.random(10, 10, density=0.3, format="csr", random_state=rng))
    B = siskin.asarray(sp.random(10, 10, density=0.3, format="csr", random_state=rng))
    x = siskin.asarray(np.ones(10))
    for name, (program, formats, _, _, _) in WORKLOADS.items():
        kernel = siskin.compile(program, formats=formats)
        args = {"A": A, "B": B, "x": x}
        given = {k: v for k, v in args.items() if k in kernel.inputs}
        kernel(**given)
        native = {k: v._native for k, v in given.items()}
        # The better of three rounds of each: other work on the machine only adds time.
        python = min(median_seconds([lambda: kernel(**given)], repeat, 5)[0] for _ in range(3))
        alone = min(statistics.median(kernel.time_runs(native, repeat)) for _ in range(3))
        checks = min(statistics.median(kernel.time_checks(native, repeat)) for _ in range(3))
        rows.append((name, python * 1e6, alone * 1e6, checks * 1e6, (python - alone) * 1e6))
    return rows


def compare(names, matrices, repeat, budget):
    rows = []
    for name in names:
        a, _ = inputs.load(name, matrices)
        b = inputs.second_operand(a)
        x = np.random.default_rng(0).uniform(-1, 1, a.shape[1])
        pa = pb = None
        if sparse is not None:
            pa, pb = sparse.COO.from_scipy_sparse(a), sparse.COO.from_scipy_sparse(b)
        for memory, copy in MEMORY.items():
            t0 = time.perf_counter()
            A, B, X = (siskin.asarray(v, copy=copy) for v in (a, b, x))
            wrap_ms = (time.perf_counter() - t0) * 1e3
            rows += compare_workloads(name, memory, a, b, x, A, B, X, pa if not copy else None, pb,
                                      wrap_ms, repeat, budget)
    return rows


def check_against_scipy(title, want, results):
    """Stops the run when a siskin result differs from scipy's. Sparse results are compared as
    sparse matrices: email-Enron's sum densified is 10.8 GB, banded's 80 GB."""
    sparse_want = hasattr(want, "tocsr")
    want = want.tocsr() if sparse_want else np.asarray(want).reshape(-1)
    values = want.data if sparse_want else want
    # Float sums are reassociated: compare against the largest magnitude.
    tolerance = 1e-9 * (np.abs(values).max() if values.size else 0.0) + 1e-12
    for what, result in results.items():
        if sparse_want:
            difference = abs(result.to_scipy("csr") - want)
            within = (difference.max() if difference.nnz else 0.0) <= tolerance
        else:
            value = np.asarray(result).reshape(-1)
            within = value.shape == want.shape and np.allclose(value, want, rtol=1e-9, atol=tolerance)
        if not within:
            raise SystemExit(f"{title}: siskin's {what} differs from scipy")


def compare_workloads(name, memory, a, b, x, A, B, X, pa, pb, wrap_ms, repeat, budget):
    """The rows of one input on one kind of memory; pydata/sparse is timed when pa is given."""
    rows = []
    for workload, (program, formats, scipy_call, pydata_call, lazy_call) in WORKLOADS.items():
        kernel = siskin.compile(program, formats=formats)
        given = {k: v for k, v in {"A": A, "B": B, "x": X}.items() if k in kernel.inputs}
        got = next(iter(kernel(**given).values()))
        check_against_scipy(f"{name} {workload}", scipy_call(a, b, x),
                            {"kernel": got, "lazy expression": lazy_call(A, B, X)})
        native = {k: v._native for k, v in given.items()}
        # siskin and scipy interleaved for many rounds; pydata/sparse (often 100 times slower)
        # in rounds of its own with siskin, so that it does not leave the others few samples.
        # The kernel alone (timed in C++) in the same rounds, so load drift hits both alike.
        med = median_seconds([lambda: kernel(**given), lambda: scipy_call(a, b, x),
                              SelfTimed(lambda: kernel.time_runs(native, 1)[0]),
                              SelfTimed(lambda: kernel.time_checks(native, 1)[0])], repeat, budget)
        pydata = None
        if pa is not None:
            pydata = median_seconds([lambda: kernel(**given), lambda: pydata_call(pa, pb, x)], 5, budget,
                                    at_least=3)[1]
        # The lazy expression (lowered and looked up on every compute) in rounds of its own too.
        lazy = median_seconds([lambda: kernel(**given), lambda: lazy_call(A, B, X)], 10, budget,
                              at_least=3)[1]
        rows.append((name, a.nnz, workload, memory, med[0], med[2], med[3], med[1], pydata, wrap_ms, lazy))
    return rows


def cpp_ratios(path):
    """{(input, workload): scipy time / siskin time} of the 1-thread C++ rows of a run-peers
    results file (empty when there is none)."""
    import json

    try:
        with open(path) as f:
            rows = json.load(f)["rows"]
    except (OSError, ValueError, KeyError):
        return {}
    return {(r["input"], r["workload"]): r["ratios"]["scipy"] for r in rows
            if r.get("threads", 1) == 1 and "scipy" in r.get("ratios", {})}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="two inputs, short budgets")
    parser.add_argument("--inputs", help="comma-separated input names (bench/peers/inputs.py)")
    parser.add_argument("--matrices", default=os.environ.get("SISKIN_MATRICES",
                                                             os.path.join(repo, "..", "shared", "data", "matrices")))
    parser.add_argument("--out", default=os.path.join(here, "results", "PYTHON.md"))
    parser.add_argument("--cpp-results", default=os.path.join(here, "results", "latest.json"),
                        help="bench/run-peers' results, whose C++ rows the Python rows are compared with")
    args = parser.parse_args()
    names = args.inputs.split(",") if args.inputs else (["bcsstk13", "uniform"] if args.quick else
                                                        ["bcsstk13", "cage11", "email-Enron", "uniform", "banded"])
    repeat, budget = (30, 2.0) if args.quick else (100, 8.0)

    load = os.getloadavg()
    lines = [f"# Python-level rows (bench/python_api.py{' --quick' if args.quick else ''})", "",
             f"Load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (other work on the machine "
             f"makes timings noisy; ratios are measured side by side, interleaved call by call).", "",
             "## Call overhead of a cached kernel (10x10 inputs, 30 stored)", "",
             "*checks* are what the call does before the run (signatures, shapes, the finiteness "
             "scan), timed in C++; they are part of the overhead.", "",
             "| workload | call from Python (us) | kernel alone, timed in C++ (us) | checks, timed in C++ (us) "
             "| overhead (us) |",
             "|---|---|---|---|---|"]
    small = overhead(2000 if not args.quick else 500)
    for name, python, alone, checks, extra in small:
        lines.append(f"| {name} | {python:.2f} | {alone:.2f} | {checks:.2f} | {extra:.2f} |")
    lines += ["", f"Goal (at most {GOAL_OVERHEAD_US} us above the kernel): "
              f"{sum(extra <= GOAL_OVERHEAD_US for *_, extra in small)} of {len(small)} workloads hold."]
    cpp = cpp_ratios(args.cpp_results)
    lines += ["", "## Workloads through the Python API", "",
              "Times are medians in ms; ratios are the peer's time over siskin's Python call (above 1: "
              "siskin is faster). *memory*: scipy's arrays used in place (`siskin.asarray(a)`: the wrap "
              "column is the one-time check of their indices), or copied into siskin's own "
              "(`siskin.asarray(a, copy=True)`: the wrap column is the copy), as the C++ rows' tensors "
              "read from files are. *kernel* is the compiled kernel called with the tensors "
              "(`siskin.compile`), *lazy* the Array API expression computed on each call "
              "(`siskin.matmul(A, x).compute()`). *checks*: what a call checks before it runs the "
              "kernel, timed in C++ (a kernel compiled for finite values scans scipy's memory on every "
              "call, siskin's once). *drift* is how far the scipy ratio of the Python call moves from "
              "the C++ one: kernel call / kernel alone - 1 (same process); kernel call / (kernel + "
              "checks) - 1, the Python layer alone (what a C++ caller holding the same tensors pays "
              "is the kernel plus the checks); and against the run-peers C++ row (scipy / siskin, 1 "
              f"thread) of {os.path.relpath(args.cpp_results, repo)}, another process. pydata/sparse "
              "is timed once per input, with the first memory.", "",
              "| input | stored | workload | memory | siskin kernel from Python | kernel alone (C++) | checks (C++) "
              "| lazy | scipy | pydata | scipy / siskin | pydata / siskin | drift vs kernel alone "
              "| drift vs kernel + checks | run-peers C++ scipy ratio | drift vs run-peers | wrap (ms) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    held = {}  # memory: [rows within the goal vs kernel alone, vs kernel + checks, rows checked]
    for name, nnz, workload, memory, py, alone, checks, sc, pd, wrap, lazy in compare(names, args.matrices,
                                                                                    repeat, budget):
        pd_text = f"{pd * 1e3:.3f}" if pd is not None else "-"
        pd_ratio = f"{pd / py:.2f}" if pd is not None else "-"
        drift, layer_drift = py / alone - 1, py / (alone + checks) - 1
        other = cpp.get((name, workload))
        other_text = f"{other:.2f}" if other else "-"
        other_drift = f"{(sc / py) / other - 1:+.0%}" if other else "-"
        if nnz > GOAL_MIN_STORED:
            count = held.setdefault(memory, [0, 0, 0])
            count[0] += abs(drift) <= GOAL_DRIFT
            count[1] += abs(layer_drift) <= GOAL_DRIFT
            count[2] += 1
        lines.append(f"| {name} | {nnz} | {workload} | {memory} | {py * 1e3:.3f} | {alone * 1e3:.3f} | "
                     f"{checks * 1e3:.4f} | {lazy * 1e3:.3f} | {sc * 1e3:.3f} | {pd_text} | {sc / py:.2f} | "
                     f"{pd_ratio} | {drift:+.0%} | {layer_drift:+.0%} | {other_text} | {other_drift} | {wrap:.2f} |")
    lines += ["", f"Goal (ratios of the C++ rows within {GOAL_DRIFT:.0%} above {GOAL_MIN_STORED} stored "
              "entries), same process:"]
    for memory, (alone_held, layer_held, checked) in held.items():
        lines.append(f"- {memory} memory: {alone_held} of {checked} rows hold against the kernel alone, "
                     f"{layer_held} of {checked} against the kernel plus its checks.")
    end = os.getloadavg()
    lines += ["", f"Load average at the end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f}."]
    text = "\n".join(lines) + "\n"
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
