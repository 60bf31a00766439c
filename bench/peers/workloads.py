"""The workloads: for each, the siskin program and how every peer computes the same thing.

A workload is built per input by `setup(ctx)`, which returns one runner per library. A runner is
a callable returning (milliseconds, result) for one run; `to_value(result)` turns a result into
something `same()` compares: a float, a dense NumPy array, or a scipy CSR matrix.

siskin runners time CompiledProgram::run in C++ (kernel + fresh outputs); GraphBLAS runners
time new output + operation + GrB_wait in C++; scipy and pydata/sparse are timed in Python
around the call, which is how their users call them.
"""
import time

import numpy as np
import scipy.sparse as sp

# Bandwidth-bound workloads and the bytes each must move at least (the byte model): a CSR
# matrix is read once (8-byte values, 4-byte column indices, 4-byte row pointers), dense
# vectors are read or written once, outputs written once. Caches are ignored, so small inputs
# that stay in cache can exceed the DRAM bandwidth (fraction > 1).
def csr_bytes(a):
    return 12 * a.nnz + 4 * (a.shape[0] + 1)


def spmv_bytes(ctx, out):
    m, n = ctx.A.shape
    return csr_bytes(ctx.A) + 8 * n + 8 * m


def add_bytes(ctx, out):
    return csr_bytes(ctx.A) + csr_bytes(ctx.B) + csr_bytes(out)


def rowsum_bytes(ctx, out):
    return csr_bytes(ctx.A) + 8 * ctx.A.shape[0]


def colsum_bytes(ctx, out):
    return csr_bytes(ctx.A) + 8 * ctx.A.shape[1]


def reduce_bytes(ctx, out):
    return csr_bytes(ctx.A)


class Runner:
    """One library's way to run a workload on one input."""

    def __init__(self, run, to_value, note=""):
        self.run = run
        self.to_value = to_value
        self.note = note


def python_timed(f):
    def run():
        t0 = time.perf_counter_ns()
        r = f()
        t1 = time.perf_counter_ns()
        return (t1 - t0) / 1e6, r
    return run


# ---- turning results into comparable values -------------------------------------------------

def dense_value(r):
    if isinstance(r, np.matrix):
        return np.asarray(r).ravel()
    if hasattr(r, "todense") and not isinstance(r, np.ndarray):
        r = r.todense()
    r = np.asarray(r)
    return r.ravel() if r.ndim == 2 and 1 in r.shape and r.shape != (1, 1) else r


def scipy_sparse_value(r):
    return sp.csr_matrix(r)


def pydata_sparse_value(r):
    return sp.csr_matrix(r.to_scipy_sparse())


def siskin_value(outputs):
    (d,) = outputs.values()
    fmt = d["format"].replace("@32", "").replace("@64", "")  # index widths do not matter here
    shape = tuple(d["shape"])
    vals = d["values"]
    if len(shape) == 0:
        return float(vals[0])
    if all(lv["kind"] == "dense" for lv in d["levels"]):
        return vals.reshape(shape)
    lv = d["levels"][1]
    if fmt.startswith("dense(0)/sparselist(1)"):
        return sp.csr_matrix((vals, lv["crd"], lv["pos"]), shape=shape)
    if fmt.startswith("dense(1)/sparselist(0)"):
        return sp.csr_matrix(sp.csc_matrix((vals, lv["crd"], lv["pos"]), shape=shape))
    raise ValueError("no reader for siskin output format " + fmt)


def graphblas_vector_value(v):
    size, idx, x = v.tuples()
    out = np.zeros(size)
    out[idx.astype(np.int64)] = x
    return out


def graphblas_matrix_value(m):
    rows, cols, i, j, x = m.tuples()
    return sp.csr_matrix((x, (i.astype(np.int64), j.astype(np.int64))), shape=(rows, cols))


def same(ref, got, rtol=1e-9):
    """(equal, detail): equal to rounding. Sparse results are compared as matrices (values,
    not stored sets: an explicit zero equals an absent entry)."""
    if isinstance(ref, float) or np.isscalar(ref):
        ok = abs(float(ref) - float(got)) <= rtol * max(1.0, abs(float(ref)))
        return ok, "" if ok else f"{ref!r} vs {got!r}"
    if sp.issparse(ref) or sp.issparse(got):
        a, b = sp.csr_matrix(ref), sp.csr_matrix(got)
        if a.shape != b.shape:
            return False, f"shape {a.shape} vs {b.shape}"
        d = (a - b).tocsr()
        worst = float(abs(d.data).max()) if d.nnz else 0.0
        scale = max(1.0, float(abs(a.data).max()) if a.nnz else 0.0)
        ok = worst <= rtol * scale
        return ok, "" if ok else f"max |difference| {worst:g} (scale {scale:g})"
    a, b = np.asarray(ref, dtype=np.float64), np.asarray(got, dtype=np.float64)
    if a.shape != b.shape:
        return False, f"shape {a.shape} vs {b.shape}"
    worst = float(np.max(np.abs(a - b))) if a.size else 0.0
    scale = max(1.0, float(np.max(np.abs(a))) if a.size else 0.0)
    ok = worst <= rtol * scale
    return ok, "" if ok else f"max |difference| {worst:g} (scale {scale:g})"


# ---- the workloads ----------------------------------------------------------------------------

class Workload:
    def __init__(self, name, title, program, inputs, output_format, peers, bytes_model=None, guarded=False):
        self.name = name
        self.title = title
        self.program = program          # siskin program text
        self.inputs = inputs            # siskin tensor names -> context attribute
        self.output_format = output_format  # {output: format or ""}
        self.peers = peers              # peer -> function(ctx) -> Runner
        self.bytes_model = bytes_model
        self.guarded = guarded          # cost can explode: first run tried under a time limit


def scipy_runner(f, to_value=dense_value, note=""):
    return lambda ctx: Runner(python_timed(lambda: f(ctx)), to_value, note)


def pydata_runner(f, to_value=dense_value, note=""):
    return lambda ctx: Runner(python_timed(lambda: f(ctx)), to_value, note)


def graphblas_runner(f, to_value, note=""):
    return lambda ctx: Runner(lambda: f(ctx), to_value, note)


def gb_scalar(r):
    return float(r)


MINMAX_NOTE = "reduces stored entries, then folds in the implicit zero (O(1))"

WORKLOADS = [
    Workload("spmv", "SpMV y = A x (CSR)", "y[i] += A[i,j] * x[j]", {"A": "sA", "x": "sx"}, {"y": ""},
             {"scipy": scipy_runner(lambda c: c.A @ c.x),
              "pydata": pydata_runner(lambda c: c.pA @ c.x),
              "graphblas": graphblas_runner(lambda c: c.gb.mxv(c.gA, c.gx, False), graphblas_vector_value)},
             spmv_bytes),
    Workload("spmv_t", "SpMV y = A^T x (A in CSR)", "for i, j { y[j] += A[i,j] * x[i] }",
             {"A": "sA", "x": "sxt"}, {"y": ""},
             {"scipy": scipy_runner(lambda c: c.A.T @ c.xt),
              "pydata": pydata_runner(lambda c: c.pA.T @ c.xt, note="COO transpose (a copy) inside the timed call"),
              "graphblas": graphblas_runner(lambda c: c.gb.mxv(c.gA, c.gxt, True), graphblas_vector_value)},
             spmv_bytes),
    Workload("spmm", "SpMM C = A B, B dense with 32 columns", "for i, k, j { C[i,j] += A[i,k] * B[k,j] }",
             {"A": "sA", "B": "sD"}, {"C": ""},
             {"scipy": scipy_runner(lambda c: c.A @ c.D),
              "pydata": pydata_runner(lambda c: c.pA @ c.D),
              "graphblas": graphblas_runner(lambda c: c.gb.mxm(c.gA, c.gD), graphblas_matrix_value)}),
    Workload("spgemm", "SpGEMM C = A A (CSR output)", "for i, k, j { C[i,j] += A[i,k] * B[k,j] }",
             {"A": "sA", "B": "sA"}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A @ c.A, scipy_sparse_value),
              "pydata": pydata_runner(lambda c: c.pA @ c.pA, pydata_sparse_value),
              "graphblas": graphblas_runner(lambda c: c.gb.mxm(c.gA, c.gA), graphblas_matrix_value)},
             guarded=True),
    Workload("add", "sparse add C = A + B (CSR)", "C[i,j] = A[i,j] + B[i,j]", {"A": "sA", "B": "sB"},
             {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A + c.B, scipy_sparse_value),
              "pydata": pydata_runner(lambda c: c.pA + c.pB, pydata_sparse_value),
              "graphblas": graphblas_runner(lambda c: c.gb.ewise(c.gA, c.gB, True), graphblas_matrix_value)},
             add_bytes),
    Workload("mul", "elementwise C = A .* B (CSR)", "C[i,j] = A[i,j] * B[i,j]", {"A": "sA", "B": "sB"},
             {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A.multiply(c.B), scipy_sparse_value),
              "pydata": pydata_runner(lambda c: c.pA * c.pB, pydata_sparse_value),
              "graphblas": graphblas_runner(lambda c: c.gb.ewise(c.gA, c.gB, False), graphblas_matrix_value)},
             add_bytes),
    Workload("rowsum", "row sums y[i] = sum_j A[i,j]", "y[i] += A[i,j]", {"A": "sA"}, {"y": ""},
             {"scipy": scipy_runner(lambda c: c.A.sum(axis=1)),
              "pydata": pydata_runner(lambda c: c.pA.sum(axis=1)),
              "graphblas": graphblas_runner(lambda c: c.gb.reduce_vector(c.gA, False), graphblas_vector_value)},
             rowsum_bytes),
    Workload("colsum", "column sums y[j] = sum_i A[i,j] (A in CSR)", "for i, j { y[j] += A[i,j] }",
             {"A": "sA"}, {"y": ""},
             {"scipy": scipy_runner(lambda c: c.A.sum(axis=0)),
              "pydata": pydata_runner(lambda c: c.pA.sum(axis=0)),
              "graphblas": graphblas_runner(lambda c: c.gb.reduce_vector(c.gA, True), graphblas_vector_value)},
             colsum_bytes),
    Workload("min", "min over all elements (implicit zeros included)", "m[] min= A[i,j]", {"A": "sA"}, {"m": ""},
             {"scipy": scipy_runner(lambda c: c.A.min(), float),
              "pydata": pydata_runner(lambda c: c.pA.min(), float),
              "graphblas": graphblas_runner(lambda c: c.gb.reduce_scalar(c.gA, True), gb_scalar, MINMAX_NOTE)},
             reduce_bytes),
    Workload("max", "max over all elements (implicit zeros included)", "m[] max= A[i,j]", {"A": "sA"}, {"m": ""},
             {"scipy": scipy_runner(lambda c: c.A.max(), float),
              "pydata": pydata_runner(lambda c: c.pA.max(), float),
              "graphblas": graphblas_runner(lambda c: c.gb.reduce_scalar(c.gA, False), gb_scalar, MINMAX_NOTE)},
             reduce_bytes),
    # The copy program convert_compiled builds for a CSC target (loops in the target's level
    # order); compiled here through the same path so its compile time is reported apart.
    Workload("csr2csc", "conversion CSR -> CSC", "for i1, i0 { B[i0,i1] = A[i0,i1] }", {"A": "sA"}, {"B": "csc"},
             {"scipy": scipy_runner(lambda c: c.A.tocsc(), scipy_sparse_value),
              "pydata": pydata_runner(lambda c: c.pG.change_compressed_axes((1,)), pydata_sparse_value,
                                      "GCXS compressed on rows -> compressed on columns"),
              "graphblas": graphblas_runner(lambda c: c.gb.transpose(c.gA), lambda m: graphblas_matrix_value(m).T.tocsr(),
                                            "GrB_transpose into a row-major matrix = A held by column")},
             guarded=True),
]

BY_NAME = {w.name: w for w in WORKLOADS}
