#!/usr/bin/python3
"""A sample of siskin's multi-threaded kernels under ThreadSanitizer (scripts/tsan.sh runs this).

Each program's C (`siskin c --threads T`) is compiled with clang, -fsanitize=thread and -fopenmp
(LLVM's libomp, whose Archer tool tells ThreadSanitizer what OpenMP's fork, join, barriers and
critical sections order), and run by kernel_driver (a ThreadSanitizer executable) on inputs large
enough for every thread to get rows: above the kernels' work threshold. Its results are checked
against SciPy, and any ThreadSanitizer report fails the run; a control kernel with a race planted
in it must be reported.

Usage: threaded_kernels.py SISKIN KERNEL_DRIVER WORK_DIR
"""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import scipy.sparse as sp

C_TYPES = {"int32_t": np.int32, "int64_t": np.int64, "double": np.float64, "bool": np.uint8}
THREADS = (2, 3, 7)
ROOT = pathlib.Path(__file__).resolve().parents[2]


def matrix(rows, cols, per_row, seed, empty_rows=(0, 5), full_row=3):
    """A CSR matrix of positive values: a few empty rows and one full row (a very long fibre)."""
    rng = np.random.default_rng(seed)
    m = sp.random(rows, cols, density=per_row / cols, random_state=rng, format="lil",
                  data_rvs=lambda n: rng.uniform(0.5, 2.0, n))
    for r in empty_rows:
        m[r, :] = 0
    m[full_row, :] = rng.uniform(0.5, 2.0, cols)
    out = sp.csr_matrix(m)
    out.sort_indices()
    out.indptr = out.indptr.astype(np.int32)
    out.indices = out.indices.astype(np.int32)
    return out


def abi(c_source):
    """The kernel's buffers (index -> (name, numpy type)) and dimensions (index -> (tensor, axis))."""
    types = {}
    for t, name in re.findall(r"const (\w+) \*restrict (\w+) = \(const \w+ \*\)buffers", c_source):
        types[name] = C_TYPES[t]
    for t, name in re.findall(r"\b(\w+) \*(?:restrict )?(\w+) = \(\w+ \*\)\w+_buf->data;", c_source):
        types.setdefault(name, C_TYPES[t])
    buffers = {}
    for name, k in re.findall(r"\b(\w+) = (?:\([^()]*\))?buffers\[(\d+)LL\]", c_source):
        name = name[:-4] if name.endswith("_buf") else name
        buffers[int(k)] = (name, types[name])
    dims = {int(k): (t, int(a)) for t, a, k in re.findall(r"const int64_t (\w+)_dim(\d+) = dims\[(\d+)LL\]", c_source)}
    # The element after the last dimension is the call's thread cap (compiler/bind.hpp): the
    # driver's 0 past the manifest's dimensions must land there, so unread dimensions count too.
    caps = [int(k) for k in re.findall(r"siskin_team_size\(.*, dims\[(\d+)LL\]\)", c_source)]
    return buffers, dims, max(caps, default=0)


def run_kernel(siskin, driver, work, program, formats, threads, inputs, shapes, racy=False):
    """Compiles and runs the kernel; returns its C, its outputs' buffers by name and the run's
    stderr. `racy`: every thread of the region also adds to one global (the control)."""
    args = [siskin, "c", program, "--threads", str(threads)]
    for name, f in formats.items():
        args += ["-f", f"{name}={f}"]
    c_source = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    if racy:
        # After the region's first barrier where it has one: planted at the region's start, the
        # race was reported in 1 run of 10 under load (a thread that starts late seems to be
        # ordered after the others' arrival at that barrier); after it, in 10 of 10.
        mark = "siskin_team_barrier();" if "siskin_team_barrier();" in c_source else "= omp_get_thread_num();"
        c_source = "static int siskin_tsan_control;\n" + c_source.replace(mark, mark + " siskin_tsan_control += 1;", 1)
    work.mkdir(parents=True, exist_ok=True)
    (work / "kernel.c").write_text(c_source)
    subprocess.run(["clang", "-std=c11", "-O1", "-g", "-fsanitize=thread", "-fopenmp", "-fPIC", "-shared",
                    "-DSISKIN_BLOCK_NO_MAP",
                    "-I", str(ROOT / "runtime"), str(work / "kernel.c"), "-o", str(work / "kernel.so")],
                   check=True)
    buffers, dims, cap_slot = abi(c_source)
    arrays = {}
    for name, value in inputs.items():
        if sp.issparse(value):
            arrays.update({f"{name}_pos": value.indptr, f"{name}_crd": value.indices, f"{name}_values": value.data})
        else:
            arrays[f"{name}_values"] = np.ascontiguousarray(value)
    lines = []
    for k in range(max(buffers) + 1):
        name, dtype = buffers[k]
        size = np.dtype(dtype).itemsize
        if name in arrays:
            a = np.ascontiguousarray(arrays[name], dtype=dtype)
            a.tofile(work / f"in{k}.bin")
            lines.append(f"in {size} {a.size}")
        else:
            lines.append(f"out {size} 0")
    dim_values = [0] * max(max(dims) + 1 if dims else 0, cap_slot)
    for k, (tensor, axis) in dims.items():
        dim_values[k] = shapes[tensor][axis]
    (work / "manifest").write_text(f"{len(lines)} {len(dim_values)}\n{' '.join(map(str, dim_values))}\n" +
                                   "\n".join(lines) + "\n")
    env = dict(os.environ, OMP_TOOL_LIBRARIES=archer(), TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=0 exitcode=0")
    run = subprocess.run([driver, str(work / "kernel.so"), str(work)], capture_output=True, text=True, env=env)
    if run.returncode != 0 or "status 0" not in run.stdout:
        raise SystemExit(f"{program} on {threads} threads failed: {run.stdout}{run.stderr}")
    outputs = {}
    for k, (name, dtype) in buffers.items():
        if name not in arrays:
            outputs[name] = np.fromfile(work / f"out{k}.bin", dtype=dtype)
    return c_source, outputs, run.stderr


def archer():
    found = sorted(pathlib.Path("/usr/lib").glob("llvm-*/lib/libarcher.so"))
    if not found:
        raise SystemExit("no libarcher.so (Debian: libomp-dev)")
    return str(found[-1])


def csr_of(outputs, name, shape):
    return sp.csr_matrix((outputs[f"{name}_values"], outputs[f"{name}_crd"], outputs[f"{name}_pos"]), shape=shape)


def same_csr(got, want):
    want = sp.csr_matrix(want)
    want.eliminate_zeros()
    want.sort_indices()
    return (np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
            and np.allclose(got.data, want.data, rtol=1e-12))


def main():
    siskin, driver, work = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    n = 3000
    A, B, M = matrix(n, n, 15, 1), matrix(n, n, 15, 2), matrix(n, n, 15, 3)
    x = np.random.default_rng(4).uniform(-1, 1, n)
    csr = "csr"
    cases = [
        ("y[i] += A[i,j] * x[j]", {"A": csr, "x": "dense"}, {"A": A, "x": x},
         lambda o: np.allclose(o["y_values"], A @ x, rtol=1e-12)),
        ("s[] += A[i,j]", {"A": csr}, {"A": A}, lambda o: np.isclose(o["s_values"][0], A.sum(), rtol=1e-12)),
        ("C[i,j] = A[i,j] + B[i,j]", {"A": csr, "B": csr, "C": csr}, {"A": A, "B": B},
         lambda o: same_csr(csr_of(o, "C", (n, n)), A + B)),
        ("C[i,j] += A[i,k] * B[k,j]", {"A": csr, "B": csr, "C": csr}, {"A": A, "B": B},
         lambda o: same_csr(csr_of(o, "C", (n, n)), A @ B)),
        ("C[i,k] += M[i,k] * A[i,j] * B[k,j]", {"M": csr, "A": csr, "B": csr, "C": csr}, {"M": M, "A": A, "B": B},
         lambda o: same_csr(csr_of(o, "C", (n, n)), M.multiply(A @ B.T))),
        # A copy of y per thread, folded in order; a slice of A's values per thread.
        ("for i, j { y[j] += A[i,j] }", {"A": csr}, {"A": A},
         lambda o: np.allclose(o["y_values"], np.asarray(A.sum(axis=0)).ravel(), rtol=1e-12)),
        ("s[] max= A[i,j]", {"A": csr}, {"A": A},
         lambda o: o["s_values"][0] == max(A.data.max(), 0.0 if A.nnz < n * n else -np.inf)),
    ]
    shapes = {name: (n, n) for name in ("A", "B", "C", "M")}
    shapes.update({"x": (n,), "y": (n,), "s": (), "C_ws": (n,)})
    failures = 0
    for program, formats, inputs, check in cases:
        for threads in THREADS:
            c, outputs, report = run_kernel(siskin, driver, work / f"case{len(program)}_{threads}", program, formats,
                                            threads, inputs, shapes)
            problems = []
            if "#pragma omp parallel" not in c:
                problems.append("no parallel region")
            if "WARNING: ThreadSanitizer" in report:
                problems.append("ThreadSanitizer report:\n" + report)
            if not check(outputs):
                problems.append("wrong result")
            print(f"{'ok  ' if not problems else 'FAIL'} {threads} threads  {program}", flush=True)
            for p in problems:
                print("     " + p)
            failures += bool(problems)
    # The control: a kernel whose threads all write one global must be reported (ThreadSanitizer
    # with Archer catches a race in most runs, not all: up to three tries).
    caught = False
    for attempt in range(3):
        program, formats, inputs, _ = cases[2]
        _, _, report = run_kernel(siskin, driver, work / f"control{attempt}", program, formats, 2, inputs, shapes,
                                  racy=True)
        caught = "WARNING: ThreadSanitizer: data race" in report
        if caught:
            break
    print(f"{'ok  ' if caught else 'FAIL'} control: a race planted in {cases[2][0]} is reported", flush=True)
    failures += not caught
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
