"""The Python demo (scripts/demo.sh runs it): siskin on SciPy's arrays in place, checked
against SciPy and NumPy. Usage: python3 python/examples/demo.py [DATA_DIR]"""

import os
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import siskin

data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "data")
A = sp.csr_array(scipy.io.mmread(os.path.join(data, "1138_bus.mtx")))
x = np.arange(A.shape[1], dtype=np.float64)

# SpMV over SciPy's own indptr, indices and data (no copy), compiled once for csr.
spmv = siskin.compile("y[i] += A[i,j] * x[j]")
y = spmv(A=A, x=x)["y"].to_numpy()
assert np.allclose(y, A @ x), "SpMV differs from SciPy"
start = time.perf_counter()
for _ in range(100):
    spmv(A=A, x=x)
per_call = (time.perf_counter() - start) / 100
print(f"SpMV on 1138_bus ({A.shape[0]}x{A.shape[1]}, {A.nnz} stored): matches scipy; "
      f"{per_call * 1e6:.1f} us a call from Python")

# The same matrix with fill inf: unstored entries are "no edge"; one (min, +) step.
d = np.full(A.shape[0], np.inf)
d[0] = 0.0
W = siskin.asarray(abs(A), fill_value=np.inf)
step = siskin.run("y[i] min= d[j] + W[j,i]", W=W, d=d)["y"].to_numpy()
dense = W.to_numpy()
assert np.array_equal(step, np.min(d[:, None] + dense, axis=0)), "(min, +) differs from NumPy"
print(f"(min, +) step from vertex 0 under fill inf: {np.isfinite(step).sum()} vertices reached")

# The Array API namespace is the siskin module: lazy expressions, one kernel when computed.
S = siskin.asarray(A)
xp = S.__array_namespace__()
degree = np.asarray(xp.sum(xp.astype(S != 0, xp.int64), axis=1))
assert np.array_equal(degree, np.diff(A.indptr)), "degrees differ from SciPy's"
empty = xp.zeros(A.shape, format="csr")
print(f"Array API: {xp.__name__}.sum(astype(A != 0, int64), axis=1) gives the degrees "
      f"(max {degree.max()}); zeros(format='csr') stores {empty.nnz} entries")

# A user function with its properties, and the C siskin generates.
siskin.function("def absmax(a: float64, b: float64) -> float64 { return max(abs(a), abs(b)) }",
                commutative=True, associative=True, identity=0.0, replace=True)
m = siskin.run("m[] <<absmax>>= A[i,j]", A=A)["m"].to_numpy()
assert m == abs(A).max(), "absmax differs from SciPy"
print(f"largest magnitude through a user function: {float(m):.4g}")
print(f"generated C for csr SpMV: {len(spmv.c_source.splitlines())} lines (siskin.c prints it)")
