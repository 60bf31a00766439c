#!/usr/bin/python3
"""SpMV of siskin, a hand-written C loop and scipy.sparse, timed call by call in turn in one
process, so that a busy machine slows all three alike (bench_spmv.cpp and scipy_spmv.py run one
after the other, and on a shared machine their ratios swing by 20 %).

    cmake --build build --target siskin_cli
    /usr/bin/python3 bench/spmv_interleaved.py [--siskin build/siskin] [--dir MATRICES]

siskin's kernel is the C that `siskin c` prints, the hand loop is bench_spmv.cpp's, both built
here with the JIT's compiler and flags (`siskin c --print-compiler`; set SISKIN_CC / SISKIN_CFLAGS
as for the JIT) and called through ctypes with the kernel ABI
(siskin_buffer **buffers, const int64_t *dims). Prints median ms per call and the ratios.
"""
import argparse
import ctypes
import os
import shlex
import statistics
import subprocess
import tempfile
import time

import numpy as np

import scipy_spmv  # same directory: matrices, loading

HAND_C = r"""#include <stdint.h>
#define SPMV(NAME, IDX)                                                                  \
void NAME(int64_t n, const IDX *restrict pos, const IDX *restrict crd,                   \
          const double *restrict val, const double *restrict x, double *restrict y) {    \
    for (int64_t i = 0; i < n; i++) {                                                    \
        double s = 0.0;                                                                  \
        for (int64_t p = pos[i]; p < pos[i + 1]; p++) s += val[p] * x[crd[p]];           \
        y[i] = s;                                                                        \
    }                                                                                    \
}
SPMV(spmv_i32, int32_t)
SPMV(spmv_i64, int64_t)
"""


class Buffer(ctypes.Structure):  # siskin_buffer / siskin::RawBuffer
    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_int64), ("capacity", ctypes.c_int64)]


def build(command, source, out, repo):
    src = out + ".c"
    with open(src, "w") as f:
        f.write(source)
    subprocess.run([*command, "-I", os.path.join(repo, "runtime"), src, "-o", out], check=True)
    return ctypes.CDLL(out)


def buffer(array):
    return Buffer(array.ctypes.data, array.size, array.size)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--siskin", default=os.path.join(repo, "build", "siskin"))
    ap.add_argument("--dir", default=os.environ.get("SISKIN_MATRIX_DIR", "/work/shared/data/matrices"))
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="siskin-spmv-")
    # The JIT's compiler and flags, for siskin's kernels and the hand loop alike.
    command = shlex.split(subprocess.run([args.siskin, "c", "--print-compiler"], check=True,
                                         capture_output=True, text=True).stdout)
    hand = build(command, HAND_C, os.path.join(tmp, "hand.so"), repo)
    kernels = {}
    for bits in (32, 64):
        c = subprocess.run([args.siskin, "c", "y[i] += A[i,j] * x[j]", "-f", "A=csr", "--index-bits", str(bits)],
                           check=True, capture_output=True, text=True).stdout
        kernels[bits] = build(command, c, os.path.join(tmp, f"siskin{bits}.so"), repo).siskin_kernel
    print("median ms per call (calls interleaved); ratios siskin/hand, siskin/scipy")
    print(f"{'matrix':15s} {'idx':>3s} {'siskin':>8s} {'hand C':>8s} {'scipy':>8s}  {'s/hand':>6s} {'s/scipy':>7s}")
    for name in scipy_spmv.MATRICES:
        a = scipy_spmv.load(args.dir, name)
        n, m = a.shape
        x = 1.0 + (np.arange(m) % 7) / 8
        for bits, idx in ((32, np.int32), (64, np.int64)):
            pos, crd = a.indptr.astype(idx), a.indices.astype(idx)
            val = a.data.astype(np.float64)
            s = scipy_spmv.sp.csr_matrix((val, crd, pos), shape=a.shape)
            y1, y2 = np.zeros(n), np.zeros(n)
            bufs = (Buffer * 5)(buffer(pos), buffer(crd), buffer(val), buffer(x), buffer(y1))
            ptrs = (ctypes.POINTER(Buffer) * 5)(*[ctypes.pointer(b) for b in bufs])
            dims = (ctypes.c_int64 * 4)(n, m, m, n)
            fn = getattr(hand, f"spmv_i{bits}")
            hand_args = (ctypes.c_int64(n), ctypes.c_void_p(pos.ctypes.data), ctypes.c_void_p(crd.ctypes.data),
                         ctypes.c_void_p(val.ctypes.data), ctypes.c_void_p(x.ctypes.data),
                         ctypes.c_void_p(y2.ctypes.data))
            kernel = kernels[bits]
            assert kernel(ptrs, dims) == 0
            fn(*hand_args)
            want = s @ x
            assert np.allclose(y1, want) and np.allclose(y2, want), name
            t_s, t_h, t_p = [], [], []
            for _ in range(args.calls):
                t0 = time.perf_counter()
                kernel(ptrs, dims)
                t1 = time.perf_counter()
                fn(*hand_args)
                t2 = time.perf_counter()
                s @ x
                t3 = time.perf_counter()
                t_s.append(t1 - t0)
                t_h.append(t2 - t1)
                t_p.append(t3 - t2)
            ms = [1000 * statistics.median(t) for t in (t_s, t_h, t_p)]
            print(f"{name:15s} {bits:3d} {ms[0]:8.4f} {ms[1]:8.4f} {ms[2]:8.4f}  {ms[0] / ms[1]:6.2f} {ms[0] / ms[2]:7.2f}")


if __name__ == "__main__":
    main()
