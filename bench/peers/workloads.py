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
import sparse

import operands as ops

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
    not stored sets: an explicit zero equals an absent entry); Entries (operands.py) by fill and
    the entries that differ from it."""
    if isinstance(ref, ops.Entries) or isinstance(got, ops.Entries):
        if not (isinstance(ref, ops.Entries) and isinstance(got, ops.Entries)):
            return False, "one result is Entries, the other is not"
        return ref.compare(got, rtol)
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
    def __init__(self, name, title, program, inputs, output_format, peers, bytes_model=None, guarded=False,
                 family="core", ndims=(2,), memory=False, new_syntax=False, output_ndims=None,
                 output_shapes=None, entries=False):
        self.name = name
        self.title = title
        self.program = program          # siskin program text, or function(ctx) -> text
        self.inputs = inputs            # siskin tensor names -> context attribute, or function(ctx) -> tensor
        self.output_format = output_format  # {output: format or ""}, or function(ctx) -> that
        self.peers = peers              # peer -> function(ctx) -> Runner
        self.bytes_model = bytes_model  # function(ctx, result) -> bytes, or "io": siskin's inputs + outputs
        self.guarded = guarded          # cost can explode: first run tried under a time limit
        self.family = family            # the REPORT.md section (report.FAMILIES)
        self.ndims = ndims              # input orders it runs on (the 3-tensor only where 3 is listed)
        self.memory = memory            # also measure peak memory (fused ufuncs)
        self.new_syntax = new_syntax    # siskin may refuse its program text: a note, not a failure
        self.output_ndims = output_ndims or {}  # outputs that are not matrices
        self.output_shapes = output_shapes      # function(ctx) -> {output: shape}, for outputs written
                                                # through slices (a concatenation's phases)
        self.entries = entries          # results compared as Entries (vectors, COO outputs)

    def shapes(self, ctx):
        return self.output_shapes(ctx) if self.output_shapes else {}

    def text(self, ctx):
        return self.program(ctx) if callable(self.program) else self.program

    def siskin_inputs(self, ctx):
        return {k: (v(ctx) if callable(v) else getattr(ctx, v)) for k, v in self.inputs.items()}

    def outputs(self, ctx):
        """({output: format}, {output: ndims})."""
        if callable(self.output_format):
            f = self.output_format(ctx)
            return f, {k: ctx.ops.ndim for k in f}
        return self.output_format, dict(self.output_ndims)


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

# ---- sparse array programming (issue 4 item 10): ufuncs, fused ufuncs, masked products, slices ----
# Operands come from ctx.ops (operands.py): A, its last mode shifted by one (B) and by two (C),
# the shifted ones holding the constant 2 (float64, int64 or true); _f float64, _i int64, _b bool.

def _ix(ctx):
    return ",".join("ijk"[:ctx.ops.ndim])


def _ufunc_program(expr):
    """Program text for an elementwise expression over A, B (and C) of the input's order."""
    def text(ctx):
        ix = _ix(ctx)
        return f"Z[{ix}] = " + expr.format(A=f"A[{ix}]", B=f"B[{ix}]", C=f"C[{ix}]")
    return text


def _sparse_out(ctx):
    return {"Z": "/".join(["dense(0)"] + [f"sparselist({k})" for k in range(1, ctx.ops.ndim)])}


def _op(name):
    return lambda ctx: ctx.ops.siskin(name)


def pydata_ufunc(f, *names, note=""):
    return lambda ctx: Runner(python_timed(lambda: f(*(ctx.ops.pydata(n) for n in names))), ops.pydata_entries,
                              note)


def siskin_entries_value(outputs):
    return ops.siskin_entries(outputs)


UFUNC_NDIMS = (2, 3)
UNFUSED = "unfused: NumPy ufuncs on COO, one temporary per inner call"


def ufunc(name, title, expr, names, f, memory=False, family="ufunc", note=""):
    return Workload(name, title, _ufunc_program(expr), {k: _op(n) for k, n in zip("ABC", names)}, _sparse_out,
                    {"pydata": pydata_ufunc(f, *names, note=note)}, "io", family=family, ndims=UFUNC_NDIMS,
                    memory=memory)


UFUNC_WORKLOADS = [
    ufunc("u_xor", "logical_xor(A, B), bool", "logical_xor({A}, {B})", ("A_b", "B_b"), np.logical_xor),
    ufunc("u_ldexp", "ldexp(A, B), float64 by int64", "ldexp({A}, {B})", ("A_f", "B_i"), np.ldexp),
    ufunc("u_rshift", "right_shift(A, B), int64", "right_shift({A}, {B})", ("A_i", "B_i"), np.right_shift),
    ufunc("u_power", "power(A, B), float64 (output fill 1)", "power({A}, {B})", ("A_f", "B_f"), np.power),
    ufunc("f_and_xor", "logical_and(A, logical_xor(B, C)), bool", "logical_and({A}, logical_xor({B}, {C}))",
          ("A_b", "B_b", "C_b"), lambda a, b, c: np.logical_and(a, np.logical_xor(b, c)), True, "fused", UNFUSED),
    ufunc("f_or_xor", "logical_or(A, logical_xor(B, C)), bool", "logical_or({A}, logical_xor({B}, {C}))",
          ("A_b", "B_b", "C_b"), lambda a, b, c: np.logical_or(a, np.logical_xor(b, c)), True, "fused", UNFUSED),
    ufunc("f_and_or", "logical_and(A, logical_or(B, C)), bool", "logical_and({A}, logical_or({B}, {C}))",
          ("A_b", "B_b", "C_b"), lambda a, b, c: np.logical_and(a, np.logical_or(b, c)), True, "fused", UNFUSED),
]


# The (min, +) semiring's "+": siskin's builtin add has no annihilator (inf + -inf is NaN), so
# with operands whose fill is +inf it would visit every k; this + declares +inf its annihilator,
# which holds for these operands (finite weights, fill +inf, no -inf or NaN).
TROPICAL_PLUS = ("def tplus(a: float64, b: float64) -> float64 [commutative, associative, identity(0.0), "
                 "annihilator(inf)] { return a + b }\n")


def masked_mxv(name, ring, complement):
    neg = "!" if complement else ""
    # x is read at A's coordinates (follow): held as a bitmap (sparsebytemap), a lookup is one read.
    if ring == "or_and":
        body, a, x, fill = "y[i] |= A[i,j] && x[follow(j)]", "A_b", "x_b", 0.0
    else:
        body, a, x, fill = "y[i] min= tplus(A[i,j], x[follow(j)])", "A_w", "x_w", float("inf")
    title = (f"masked mxv y{'(~m)' if complement else '(m)'} = A {ring.replace('_', '.')} x, "
             "m and x sparse (10%), x held as a bitmap")
    return Workload(name, title, ("" if ring == "or_and" else TROPICAL_PLUS) + f"for i {{ if {neg}m[i] {{ {body} }} }}",
                    {"A": _op(a), "x": _op(x + "_bitmap"), "m": _op("m_b")}, {"y": "sparselist(0)"},
                    {"graphblas": lambda ctx: Runner(
                        lambda: ctx.gb.masked_mxv(ctx.ops.gb(a), ctx.ops.gb(x), ctx.ops.gb("m_b"), complement, ring),
                        ops.graphblas_vector_entries(fill),
                        "structural mask, replace" + (", complemented" if complement else "") +
                        f", x held as {ctx.gb.vector_sparsity(ctx.ops.gb(x))} (GraphBLAS's choice)")},
                    family="masked_mxv", output_ndims={"y": 1})


def masked_mxm(name, ring):
    if ring == "or_and":
        body, a, b, fill = "C[i,j] |= A[i,k] && B[k,j]", "A_b", "Acol_b", 0.0
    else:
        body, a, b, fill = "C[i,j] min= tplus(A[i,k], B[k,j])", "A_w", "Acol_w", float("inf")
    title = f"masked mxm C(M) = A {ring.replace('_', '.')} A, M = pattern of A (B = A held by column)"
    return Workload(name, title, ("" if ring == "or_and" else TROPICAL_PLUS) + f"for i, j {{ if M[i,j] {{ {body} }} }}",
                    {"A": _op(a), "B": _op(b), "M": _op("A_b")}, {"C": "csr"},
                    {"graphblas": lambda ctx: Runner(
                        lambda: ctx.gb.masked_mxm(ctx.ops.gb(a), ctx.ops.gb(b), ctx.ops.gb("A_b"), False, ring),
                        ops.graphblas_matrix_entries(fill), "structural mask, replace; B held by column")},
                    family="masked_mxm")


MASKED_WORKLOADS = [
    masked_mxv("mxv_or_m", "or_and", False),
    masked_mxv("mxv_or_cm", "or_and", True),
    masked_mxv("mxv_min_m", "min_plus", False),
    masked_mxv("mxv_min_cm", "min_plus", True),
    masked_mxm("mxm_or_m", "or_and"),
    masked_mxm("mxm_min_m", "min_plus"),
]


def _rows(ctx):
    m = ctx.A.shape[0]
    return m // 4, 3 * m // 4


SLICE_WORKLOADS = [
    Workload("slice_add", "slice + add C = A[lo:hi, :] + B[lo:hi, :] (the middle half of the rows)",
             lambda ctx: "C[i,j] = A[i({0}:{1}), j] + B[i({0}:{1}), j]".format(*_rows(ctx)),
             {"A": "sA", "B": "sB"}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A[_rows(c)[0]:_rows(c)[1], :] + c.B[_rows(c)[0]:_rows(c)[1], :],
                                    scipy_sparse_value)},
             family="slicing", new_syntax=True),
    Workload("stride_add", "stride + add C = A[::2, ::2] + B[::2, ::2]",
             "C[i,j] = A[i(::2), j(::2)] + B[i(::2), j(::2)]", {"A": "sA", "B": "sB"}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A[::2, ::2] + c.B[::2, ::2], scipy_sparse_value)},
             family="slicing", new_syntax=True),
]

# ---- shape operators (issue 17): the two halves of each matrix as operands, as the paper does ----

def _halves(ctx, axis):
    """The two halves of A (rows for axis 0, columns for 1): scipy CSR, pydata COO, siskin CSR."""
    key = f"_halves{axis}"
    if not hasattr(ctx, key):
        a = ctx.A.tocsr()
        k = a.shape[axis] // 2
        parts = [a[:k, :], a[k:, :]] if axis == 0 else [a[:, :k], a[:, k:]]
        parts = [p.tocsr() for p in parts]
        for p in parts:
            p.sort_indices()
        setattr(ctx, key, (parts, [sparse.COO.from_scipy_sparse(p) for p in parts],
                           [ctx._siskin_csr(p) for p in parts]))
    return getattr(ctx, key)


def _vstack_spmv_program(ctx):
    # What siskin eval 'vstack((T, U)) @ x' compiles to: one SpMV loop nest per operand.
    m1, m = _halves(ctx, 0)[0][0].shape[0], ctx.A.shape[0]
    return (f"for i0 in 0:{m1}, i1 in 0:{ctx.A.shape[1]} {{ y[i0(0:{m1})] += T[i0, i1] * x[i1] }}\n"
            f"for i2 in 0:{m - m1}, i3 in 0:{ctx.A.shape[1]} {{ y[i2({m1}:{m})] += U[i2, i3] * x[i3] }}")


def _hstack_spmv_program(ctx):
    # What siskin eval 'hstack((L, R)) @ x' compiles to: the reduced loop cut in two.
    n1, n = _halves(ctx, 1)[0][0].shape[1], ctx.A.shape[1]
    m = ctx.A.shape[0]
    return (f"for i0 in 0:{m}, i1 in 0:{n1} {{ y[i0] += L[i0, i1] * x[i1(0:{n1})] }}\n"
            f"for i2 in 0:{m}, i3 in 0:{n - n1} {{ y[i2] += R[i2, i3] * x[i3({n1}:{n})] }}")


def _row_slice(ctx):
    return 0, ctx.A.shape[0] // 2, 2


SHAPE_WORKLOADS = [
    Workload("vstack_spmv", "SpMV on a vstack y = vstack(T, U) @ x (T, U: the row halves of A), fused",
             _vstack_spmv_program,
             {"T": lambda ctx: _halves(ctx, 0)[2][0], "U": lambda ctx: _halves(ctx, 0)[2][1], "x": "sx"},
             {"y": ""},
             {"scipy": scipy_runner(lambda c: sp.vstack(_halves(c, 0)[0], format="csr") @ c.x),
              "pydata": scipy_runner(lambda c: sparse.concatenate(_halves(c, 0)[1], axis=0) @ c.x)},
             family="shape", output_ndims={"y": 1},
             output_shapes=lambda ctx: {"y": [ctx.A.shape[0]]}),
    Workload("hstack_spmv", "SpMV on an hstack y = hstack(L, R) @ x (L, R: the column halves of A), fused",
             _hstack_spmv_program,
             {"L": lambda ctx: _halves(ctx, 1)[2][0], "R": lambda ctx: _halves(ctx, 1)[2][1], "x": "sx"},
             {"y": ""},
             {"scipy": scipy_runner(lambda c: sp.hstack(_halves(c, 1)[0], format="csr") @ c.x),
              "pydata": scipy_runner(lambda c: sparse.concatenate(_halves(c, 1)[1], axis=1) @ c.x)},
             family="shape", output_ndims={"y": 1}),
    Workload("row_slice", "slice of the first dimension C = A[0:m/2:2, :] into CSR",
             lambda ctx: "C[i,j] = A[i({}:{}:{}), j]".format(*_row_slice(ctx)), {"A": "sA"}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A[slice(*_row_slice(c)), :], scipy_sparse_value),
              "pydata": scipy_runner(lambda c: c.pA[slice(*_row_slice(c))],
                                     lambda r: scipy_sparse_value(r.tocsr()))},
             family="shape"),
]

# ---- the rest of the paper's kernels (Figs. 24-26): collapse, split, concatenations with their
#      output formats, slices into COO, and the fused kernels; operands again the halves of A ----

def _collapsed(ctx):
    """A flattened in C order (coordinate i*n + j), plus the same entries shifted by 10 (the
    paper's second operand of the fused kernels): scipy 1 x mn CSR, pydata 1-D COO and siskin
    sparselist(0) with 64-bit coordinates (mn passes 2^31 on the larger matrices)."""
    if not hasattr(ctx, "_collapsed"):
        import siskin_native as native
        a = ctx.A.tocsr()
        a.sort_indices()
        m, n = a.shape
        c = a.tocoo()
        parts = []
        for shift in (0, 10):
            k = np.sort((c.row.astype(np.int64) * n + c.col + shift) % (m * n))
            order = np.argsort((c.row.astype(np.int64) * n + c.col + shift) % (m * n), kind="stable")
            vals = c.data[order]
            parts.append((sp.csr_matrix((vals, k, np.array([0, len(k)], dtype=np.int64)), shape=(1, m * n)),
                          sparse.COO(k[None, :], vals, shape=(m * n,), has_duplicates=False, sorted=True),
                          native.tensor([m * n], "sparselist(0)@64", "float64", 0.0,
                                        [{"pos": np.array([0, len(k)], dtype=np.int64), "crd": k}], vals)))
        ctx._collapsed = parts
    return ctx._collapsed


def _coo_halves(ctx, axis):
    """The halves of A as siskin COO tensors (coo(0,1), 32-bit) and scipy COO matrices."""
    key = f"_coo_halves{axis}"
    if not hasattr(ctx, key):
        import siskin_native as native
        out = []
        for p in _halves(ctx, axis)[0]:
            c = p.tocoo()
            out.append((c, native.tensor(list(c.shape), "coo(0,1)@32", "float64", 0.0,
                                         [{"pos": np.array([0, c.nnz], dtype=np.int32),
                                           "crd0": c.row.astype(np.int32), "crd1": c.col.astype(np.int32)}],
                                         c.data)))
        setattr(ctx, key, out)
    return getattr(ctx, key)


def _vector_entries(r):
    """A 1 x N scipy row (scipy has no 1-D sparse array) as the entries of an N-vector."""
    c = sp.coo_matrix(r)
    return ops.Entries((c.shape[1],), 0.0, c.col[None, :], c.data)


def _vstack_program(ctx, out):
    # What siskin eval 'vstack((T, U))' compiles to: a loop nest per operand, its rows a window.
    m1, m, n = _halves(ctx, 0)[0][0].shape[0], ctx.A.shape[0], ctx.A.shape[1]
    return (f"for i0 in 0:{m1}, i1 in 0:{n} {{ {out}[i0(0:{m1}), i1] = T[i0, i1] }}\n"
            f"for i2 in 0:{m - m1}, i3 in 0:{n} {{ {out}[i2({m1}:{m}), i3] = U[i2, i3] }}")


def _hstack_program(ctx, out):
    # What siskin eval 'hstack((L, R))' compiles to: the column loop cut in two inside each row.
    n1, m, n = _halves(ctx, 1)[0][0].shape[1], ctx.A.shape[0], ctx.A.shape[1]
    return (f"for i0 in 0:{m} {{ for i1 in 0:{n1} {{ {out}[i0, i1(0:{n1})] = L[i0, i1] }}; "
            f"for i2 in 0:{n - n1} {{ {out}[i0, i2({n1}:{n})] = R[i0, i2] }} }}")


def _slice_rows(ctx):
    lo, hi, st = _row_slice(ctx)
    return len(range(lo, hi, st))


def _slice_partner(ctx):
    """The second operand of slice x CSR: the first rows of B, as many as the slice has."""
    if not hasattr(ctx, "_slice_partner"):
        b = ctx.B.tocsr()[:_slice_rows(ctx), :].tocsr()
        b.sort_indices()
        ctx._slice_partner = (b, sparse.COO.from_scipy_sparse(b), ctx._siskin_csr(b))
    return ctx._slice_partner


def _shape_out(ctx):
    return {"C": list(ctx.A.shape)}


def _stack_workload(axis, fmt):
    """vstack (axis 0) or hstack (axis 1) of A's halves into `fmt` (csr: CSR operands; coo: COO
    operands, compared entry by entry), against scipy's and pydata's stacking into that format."""
    kind = ("vstack", "hstack")[axis]
    names = (("T", "U"), ("L", "R"))[axis]
    program = (_vstack_program, _hstack_program)[axis]
    stack = (sp.vstack, sp.hstack)[axis]
    if fmt == "csr":
        operand = lambda k: lambda ctx: _halves(ctx, axis)[2][k]
        scipy_run = scipy_runner(lambda c: stack(_halves(c, axis)[0], format="csr"), scipy_sparse_value)
        pydata_run = scipy_runner(lambda c: sparse.concatenate(_halves(c, axis)[1], axis=axis).tocsr(),
                                  scipy_sparse_value)
        what = f"{kind} C = {kind}({names[0]}, {names[1]}) into CSR ({names[0]}, {names[1]}: the " \
               f"{('row', 'column')[axis]} halves of A, CSR)"
    else:
        operand = lambda k: lambda ctx: _coo_halves(ctx, axis)[k][1]
        scipy_run = scipy_runner(lambda c: stack([h[0] for h in _coo_halves(c, axis)], format="coo"),
                                 ops.scipy_entries)
        pydata_run = scipy_runner(lambda c: sparse.concatenate(_halves(c, axis)[1], axis=axis), ops.pydata_entries)
        what = f"{kind} C = {kind}({names[0]}, {names[1]}) into COO ({names[0]}, {names[1]}: COO)"
    return Workload(f"{kind}_{fmt}", what, lambda ctx: program(ctx, "C"),
                    {names[0]: operand(0), names[1]: operand(1)}, {"C": fmt},
                    {"scipy": scipy_run, "pydata": pydata_run},
                    family="shape", entries=fmt == "coo", output_shapes=_shape_out)


PAPER_SHAPE_WORKLOADS = [
    Workload("collapse", "collapse 2-D -> 1-D c = A.reshape(-1) into a compressed vector",
             lambda ctx: "for i in 0:{0}, j in 0:{1} {{ c[i * {1} + j] = A[i, j] }}".format(*ctx.A.shape),
             {"A": "sA"}, {"c": "sparselist(0)@64"},
             {"scipy": scipy_runner(lambda c: c.A.reshape((1, c.A.shape[0] * c.A.shape[1])), _vector_entries),
              "pydata": scipy_runner(lambda c: c.pA.reshape((c.A.shape[0] * c.A.shape[1],)), ops.pydata_entries)},
             family="shape", output_ndims={"c": 1}, new_syntax=True, entries=True,
             output_shapes=lambda ctx: {"c": [ctx.A.shape[0] * ctx.A.shape[1]]}),
    Workload("split_csr", "split 1-D -> 2-D C = b.reshape(m, n) into CSR (b: A flattened)",
             lambda ctx: "for i in 0:{0}, j in 0:{1} {{ C[i, j] = b[i * {1} + j] }}".format(*ctx.A.shape),
             {"b": lambda ctx: _collapsed(ctx)[0][2]}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: _collapsed(c)[0][0].reshape(c.A.shape).tocsr(), scipy_sparse_value),
              "pydata": scipy_runner(lambda c: _collapsed(c)[0][1].reshape(c.A.shape).tocsr(), scipy_sparse_value)},
             family="shape", output_shapes=_shape_out),
    Workload("split_coo", "split 1-D -> 2-D C = b.reshape(m, n) into COO (b: A flattened)",
             lambda ctx: "for i in 0:{0}, j in 0:{1} {{ C[i, j] = b[i * {1} + j] }}".format(*ctx.A.shape),
             {"b": lambda ctx: _collapsed(ctx)[0][2]}, {"C": "coo"},
             {"scipy": scipy_runner(lambda c: _collapsed(c)[0][0].reshape(c.A.shape).tocoo(), ops.scipy_entries),
              "pydata": scipy_runner(lambda c: _collapsed(c)[0][1].reshape(c.A.shape), ops.pydata_entries)},
             family="shape", entries=True, output_shapes=_shape_out),
    _stack_workload(0, "csr"),
    _stack_workload(1, "csr"),
    _stack_workload(0, "coo"),
    _stack_workload(1, "coo"),
    Workload("vstack_mixed", "vstack C = vstack(T, U) into CSR (T: CSR, U: COO)",
             lambda ctx: _vstack_program(ctx, "C"),
             {"T": lambda ctx: _halves(ctx, 0)[2][0], "U": lambda ctx: _coo_halves(ctx, 0)[1][1]}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: sp.vstack([_halves(c, 0)[0][0], _coo_halves(c, 0)[1][0]], format="csr"),
                                    scipy_sparse_value),
              "pydata": scipy_runner(lambda c: sparse.concatenate(_halves(c, 0)[1], axis=0).tocsr(),
                                     scipy_sparse_value)},
             family="shape", output_shapes=_shape_out),
    Workload("row_slice_coo", "slice of the first dimension C = A[0:m/2:2, :] into COO",
             lambda ctx: "C[i,j] = A[i({}:{}:{}), j]".format(*_row_slice(ctx)), {"A": "sA"}, {"C": "coo"},
             {"scipy": scipy_runner(lambda c: c.A[slice(*_row_slice(c)), :].tocoo(), ops.scipy_entries),
              "pydata": scipy_runner(lambda c: c.pA[slice(*_row_slice(c))], ops.pydata_entries)},
             family="shape", entries=True),
    Workload("collapse_mul", "fused collapse x vector c = A.reshape(-1) * b (b: A flattened, shifted by 10)",
             lambda ctx: "for k in 0:{0} {{ c[k] = A[floordiv(k, {1}), k % {1}] * b[k] }}".format(
                 ctx.A.shape[0] * ctx.A.shape[1], ctx.A.shape[1]),
             {"A": "sA", "b": lambda ctx: _collapsed(ctx)[1][2]}, {"c": "sparselist(0)@64"},
             {"scipy": scipy_runner(lambda c: c.A.reshape((1, c.A.shape[0] * c.A.shape[1])).multiply(_collapsed(c)[1][0]),
                                    _vector_entries),
              "pydata": scipy_runner(lambda c: c.pA.reshape((c.A.shape[0] * c.A.shape[1],)) * _collapsed(c)[1][1],
                                     ops.pydata_entries)},
             family="shape", output_ndims={"c": 1}, entries=True,
             output_shapes=lambda ctx: {"c": [ctx.A.shape[0] * ctx.A.shape[1]]}),
    Workload("slice_mul", "fused slice x CSR C = A[0:m/2:2, :] * B[:r, :] into CSR",
             lambda ctx: "C[i,j] = A[i({}:{}:{}), j] * P[i, j]".format(*_row_slice(ctx)),
             {"A": "sA", "P": lambda ctx: _slice_partner(ctx)[2]}, {"C": "csr"},
             {"scipy": scipy_runner(lambda c: c.A[slice(*_row_slice(c)), :].multiply(_slice_partner(c)[0]).tocsr(),
                                    scipy_sparse_value),
              "pydata": scipy_runner(lambda c: (c.pA[slice(*_row_slice(c))] * _slice_partner(c)[1]).tocsr(),
                                     scipy_sparse_value)},
             family="shape"),
]

WORKLOADS += UFUNC_WORKLOADS + MASKED_WORKLOADS + SLICE_WORKLOADS + SHAPE_WORKLOADS + PAPER_SHAPE_WORKLOADS

BY_NAME = {w.name: w for w in WORKLOADS}
