"""The MLIR sparsifier (mlir-opt-22 --sparsifier), the convolution paper's own system, as a peer.

Optional: available() is False unless /usr/lib/llvm-22/bin has mlir-opt, mlir-translate and llc
(Debian bookworm-security: mlir-22-tools, llvm-22). Each kernel is a linalg named convolution
whose input is a sparse tensor assembled in place (sparse_tensor.assemble) from the level
buffers of the same input siskin runs on, compiled by the sparsifier in codegen mode
(enable-runtime-library=false) to a shared object at -O3, and called through its C interface
with memref descriptors: the timing covers the kernel and its output allocation, as siskin's.
"""
import ctypes
import os
import subprocess
import tempfile

import numpy as np

BIN = "/usr/lib/llvm-22/bin"
LIB = "/usr/lib/llvm-22/lib"


def available():
    return all(os.path.exists(os.path.join(BIN, t)) for t in ("mlir-opt", "mlir-translate", "llc"))


def _memref_type(ndim):
    class MemRef(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64),
                    ("sizes", ctypes.c_int64 * ndim), ("strides", ctypes.c_int64 * ndim)]
    return MemRef


def _memref(a):
    a = np.ascontiguousarray(a)
    d = _memref_type(a.ndim)()
    d.allocated = d.aligned = a.ctypes.data
    d.offset = 0
    for k in range(a.ndim):
        d.sizes[k] = a.shape[k]
        d.strides[k] = a.strides[k] // a.itemsize
    return d, a  # keep the array alive with the descriptor


def _levels(kinds):
    """MLIR level types for siskin level kinds ("dense", "sparselist")."""
    return ", ".join(f"d{k} : {'dense' if kind == 'dense' else 'compressed'}" for k, kind in enumerate(kinds))


OPS = {1: "linalg.conv_1d", 2: "linalg.conv_2d", 3: "linalg.conv_3d", "nhwc": "linalg.conv_2d_nhwc_hwcf"}


class Conv:
    """One compiled convolution: input of `shape` in level kinds `kinds`, a dense filter."""

    def __init__(self, op, shape, kinds, fshape, out_shape, workdir):
        nd = len(shape)
        dims = ", ".join(f"d{k}" for k in range(nd))
        enc = f"#sparse_tensor.encoding<{{ map = ({dims}) -> ({_levels(kinds)}), posWidth = 32, crdWidth = 32 }}>"
        t = lambda s: "x".join(map(str, s)) + "xf64"  # noqa: E731
        self.nbuf = 2 * sum(1 for k in kinds if k != "dense")
        bufs = ", ".join(f"%b{k}: tensor<?xi32>" for k in range(self.nbuf))
        names = ", ".join(f"%b{k}" for k in range(self.nbuf))
        types = ", ".join("tensor<?xi32>" for _ in range(self.nbuf))
        text = f"""
#ENC = {enc}
func.func @conv({bufs}, %vals: tensor<?xf64>, %filter: tensor<{t(fshape)}>, %out: tensor<{t(out_shape)}>)
    -> tensor<{t(out_shape)}> attributes {{ llvm.emit_c_interface }} {{
  %input = sparse_tensor.assemble ({names}), %vals : ({types}), tensor<?xf64> to tensor<{t(shape)}, #ENC>
  %0 = {OPS[op]} ins(%input, %filter : tensor<{t(shape)}, #ENC>, tensor<{t(fshape)}>)
                 outs(%out : tensor<{t(out_shape)}>) -> tensor<{t(out_shape)}>
  return %0 : tensor<{t(out_shape)}>
}}
"""
        base = os.path.join(workdir, f"conv_{abs(hash(text))}")
        with open(base + ".mlir", "w") as f:
            f.write(text)
        run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
        run(f"{BIN}/mlir-opt", base + ".mlir", "--sparsifier=enable-runtime-library=false", "-o", base + ".llvm.mlir")
        run(f"{BIN}/mlir-translate", "--mlir-to-llvmir", base + ".llvm.mlir", "-o", base + ".ll")
        run(f"{BIN}/llc", "-O3", "-mcpu=native", "-filetype=obj", "-relocation-model=pic", base + ".ll", "-o", base + ".o")
        run("cc", "-shared", base + ".o", "-o", base + ".so", f"-L{LIB}", "-lmlir_c_runner_utils", f"-Wl,-rpath,{LIB}")
        self.lib = ctypes.CDLL(base + ".so")
        self.fn = self.lib._mlir_ciface_conv
        self.out_shape = out_shape
        self.result_type = _memref_type(len(out_shape))

    def bind(self, level_buffers, values, filt):
        """level_buffers: [pos, crd] per compressed level, in order."""
        self.args, self.keep = [], []
        for b in list(level_buffers) + [values, filt]:
            d, a = _memref(b)
            self.args.append(ctypes.byref(d))
            self.keep += [d, a]

    def run(self):
        out, a = _memref(np.zeros(self.out_shape))  # linalg accumulates into its output
        self.last = a  # the result may be this very buffer: keep it alive, no copy
        result = self.result_type()
        self.fn(ctypes.byref(result), *self.args, ctypes.byref(out))
        n = int(np.prod(self.out_shape))
        base = ctypes.cast(result.aligned, ctypes.POINTER(ctypes.c_double))
        flat = np.ctypeslib.as_array(base, shape=(result.offset + n,))[result.offset:]
        return flat.reshape(self.out_shape)


def workdir():
    return tempfile.mkdtemp(prefix="siskin-bench-mlir-")
