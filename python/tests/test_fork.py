"""Threaded kernels in a forked child (multiprocessing's default start method on Linux): libgomp's
thread pool does not survive a fork, so a child whose parent ran a parallel kernel would wait for
threads that do not exist. siskin runs a forked child's kernels on one thread: same results, no
hang."""

import multiprocessing

import numpy as np
import scipy.sparse as sp

import siskin

# Set by the test before the fork: the child inherits them.
_state = {}


def _in_child():
    s = _state
    y = s["spmv"](A=s["A"], x=s["x"])["y"].to_numpy()
    C = s["add"](A=s["A"], B=s["B"])["C"].to_scipy("csr")
    return y, C.indptr, C.indices, C.data


def test_a_forked_child_runs_threaded_kernels(monkeypatch):
    monkeypatch.setenv("SISKIN_NUM_THREADS", "2")
    rng = np.random.default_rng(7)
    n = 3000  # 3000 rows and about 90000 entries: above the default work threshold
    A = sp.random(n, n, density=0.01, format="csr", random_state=rng, dtype=np.float64)
    B = sp.random(n, n, density=0.01, format="csr", random_state=rng, dtype=np.float64)
    x = rng.uniform(-1, 1, n)
    assert "#pragma omp parallel" in siskin.c("y[i] += A[i,j] * x[j]", formats={"A": "csr"})
    spmv = siskin.compile("y[i] += A[i,j] * x[j]")
    add = siskin.compile("C[i,j] = A[i,j] + B[i,j]", formats={"C": "csr"})
    # The parent runs both on two threads: libgomp's pool now has a thread.
    want_y = spmv(A=A, x=x)["y"].to_numpy()
    want_C = add(A=A, B=B)["C"].to_scipy("csr")
    np.testing.assert_allclose(want_y, A @ x, rtol=1e-12, atol=1e-12)
    _state.update(spmv=spmv, add=add, A=A, B=B, x=x)
    try:
        with multiprocessing.get_context("fork").Pool(1) as pool:
            y, indptr, indices, data = pool.apply_async(_in_child).get(timeout=120)
    finally:
        _state.clear()
    # Each row is summed in the serial order whatever the thread count: the same bits.
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(indptr, want_C.indptr)
    np.testing.assert_array_equal(indices, want_C.indices)
    np.testing.assert_array_equal(data, want_C.data)
    assert abs(want_C - (A + B)).max() == 0
