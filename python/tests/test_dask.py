"""siskin tensors as Dask chunks on a LocalCluster of two worker processes over loopback: blocked
results equal the single-process ones and NumPy's on the densified inputs, for even and uneven
chunkings, several formats and a non-zero fill; a fused chain runs one kernel per block; workers
load kernels another process compiled from the shared disk cache."""

import logging
import multiprocessing
import os
import time

import numpy as np
import pytest

import siskin
from conftest import assert_same, random_dense

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
import dask.array as da  # noqa: E402

# (format, fill, chunks) over 8x10 matrices: even and uneven chunkings.
CASES = [("csr", 2.0, ((5, 3), 10)), ("coo(0,1)", 0.0, (4, 5)), ("csc", 0.0, (8, (7, 3)))]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       host="127.0.0.1", dashboard_address=None,
                                       silence_logs=logging.ERROR)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def operands(seed, format, fill):
    rng = np.random.default_rng(seed)
    a = random_dense(rng, (8, 10), fill=fill)
    b = random_dense(rng, (8, 10), fill=fill)
    c = random_dense(rng, (10, 6), fill=fill)
    return (a, b, c), [siskin.asarray(m, fill_value=fill).asformat(format) for m in (a, b, c)]


@pytest.mark.parametrize("format,fill,chunks", CASES)
def test_blocked_results_equal_single_process_and_numpy(client, format, fill, chunks):
    (a, b, c), (A, B, C) = operands(7, format, fill)
    x = da.from_array(A, chunks=chunks)
    y = da.from_array(B, chunks=chunks)
    z = da.from_array(C, chunks=(x.chunks[1], 3))
    assert isinstance(x._meta, siskin.Tensor)
    blocked = {
        "sum": x.sum(), "sum0": x.sum(axis=0), "max1": x.max(axis=1),
        "chain": x * 2 + y - 1, "fused": (x * 2 + y).sum(axis=1), "matmul": x @ z,
        "concatenate": da.concatenate([x, y], axis=1),
    }
    single = {
        "sum": np.sum(A), "sum0": np.sum(A, axis=0), "max1": np.max(A, axis=1),
        "chain": A * 2 + B - 1, "fused": np.sum(A * 2 + B, axis=1), "matmul": A @ C,
        "concatenate": np.concatenate([A, B], axis=1),
    }
    dense = {
        "sum": a.sum(), "sum0": a.sum(axis=0), "max1": a.max(axis=1),
        "chain": a * 2 + b - 1, "fused": (a * 2 + b).sum(axis=1), "matmul": a @ c,
        "concatenate": np.concatenate([a, b], axis=1),
    }
    results = dict(zip(blocked, dask.compute(*blocked.values(), scheduler=client)))
    for name, got in results.items():
        assert isinstance(got, (siskin.Tensor, siskin.Array)), name
        if name != "max1":  # max of an empty meta raises, as NumPy's: numpy meta
            assert isinstance(blocked[name]._meta, (siskin.Tensor, siskin.Array)), name
        assert_same(np.asarray(got), np.asarray(single[name]), rtol=1e-12)
        assert_same(np.asarray(got), np.asarray(dense[name]), rtol=1e-12)


def test_mean(client):
    (a, _, _), (A, _, _) = operands(13, "csr", 0.0)
    x = da.from_array(A, chunks=(3, 4))
    got = dask.compute(x.mean(), x.mean(axis=0), scheduler=client)
    assert_same(np.asarray(got[0]), np.asarray(a.mean()), rtol=1e-12)
    assert_same(np.asarray(got[1]), a.mean(axis=0), rtol=1e-12)


def test_map_blocks_asarray_and_elementwise_ufuncs(client):
    rng = np.random.default_rng(3)
    a = random_dense(rng, (8, 10))
    x = da.from_array(a, chunks=(3, 4)).map_blocks(siskin.asarray)
    assert isinstance(x._meta, siskin.Tensor)
    y = np.maximum(np.abs(x), 0.5) + np.exp(x * 0)
    assert isinstance(y._meta, siskin.Array)
    assert_same(np.asarray(y.compute(scheduler=client)), np.maximum(np.abs(a), 0.5) + 1.0,
                rtol=1e-12)


def worker_counts(client):
    counts = client.run(siskin.kernel_counts).values()
    return {k: sum(c[k] for c in counts) for k in ("compiled", "loaded_from_disk", "runs")}


def test_a_fused_chain_runs_one_kernel_per_block(client):
    (a, b, _), (A, B, _) = operands(11, "csr", 0.0)
    x = da.from_array(A, chunks=(4, 5))
    y = da.from_array(B, chunks=(4, 5))
    persisted = client.persist([x, y])  # the chunks cut out on the workers first
    x, y = persisted
    distributed.wait(persisted)
    result = (x * 2 + y).sum(axis=1)
    before = worker_counts(client)
    got = result.compute(scheduler=client)
    runs = worker_counts(client)["runs"] - before["runs"]
    # Four blocks, each task one kernel for x * 2 + y and its row sums, and two tasks that add
    # the partial sums of a row of blocks: 6 kernel runs (one per operator would be 4 * 3 + 2).
    assert runs == 6
    assert_same(np.asarray(got), (a * 2 + b).sum(axis=1), rtol=1e-12)


def test_workers_load_kernels_compiled_elsewhere_from_the_disk_cache(client):
    (a, b, _), (A, B, _) = operands(5, "coo(0,1)", 0.0)
    # A constant of this run only: kernels no process has compiled before.
    constant = 1.0 + (time.time_ns() % 1_000_000) / 1e7
    result = (da.from_array(A, chunks=(4, 5)) * constant + da.from_array(B, chunks=(4, 5))).sum(axis=0)
    local = siskin.kernel_counts()
    want = result.compute(scheduler="sync")  # this process compiles the chunk kernels
    assert siskin.kernel_counts()["compiled"] > local["compiled"]
    before = worker_counts(client)
    got = result.compute(scheduler=client)
    after = worker_counts(client)
    assert after["compiled"] == before["compiled"]
    assert after["loaded_from_disk"] > before["loaded_from_disk"]
    assert_same(np.asarray(got), np.asarray(want), rtol=1e-12)
    assert_same(np.asarray(got), (a * constant + b).sum(axis=0), rtol=1e-12)


def compile_at_once(barrier, constant, queue):
    a = np.arange(12.0).reshape(3, 4)
    t = siskin.asarray(a, format="csr")
    barrier.wait()
    y = (siskin.lazy(t) * constant + 1).sum(axis=0).to_numpy()
    counts = siskin.kernel_counts()
    queue.put((y.tolist(), counts["compiled"], counts["loaded_from_disk"]))


def test_two_processes_compiling_one_kernel_at_once(tmp_path):
    context = multiprocessing.get_context("spawn")
    barrier, queue = context.Barrier(2), context.Queue()
    constant = 3.0 + (time.time_ns() % 1_000_000) / 1e7
    env = dict(os.environ)
    os.environ["SISKIN_CACHE_DIR"] = str(tmp_path)  # the children start with an empty cache
    try:
        children = [context.Process(target=compile_at_once, args=(barrier, constant, queue))
                    for _ in range(2)]
        for p in children:
            p.start()
        results = [queue.get(timeout=300) for _ in children]  # a loaded machine compiles slowly
        for p in children:
            p.join(timeout=60)
            assert p.exitcode == 0
    finally:
        os.environ.clear()
        os.environ.update(env)
    want = (np.arange(12.0).reshape(3, 4) * constant + 1).sum(axis=0)
    for values, compiled, loaded in results:
        np.testing.assert_allclose(values, want, rtol=1e-12)
        assert compiled + loaded == 1  # one kernel, compiled or loaded, never half-written
    kernels = [f for f in os.listdir(tmp_path) if f.endswith(".so")]
    assert len(kernels) == 1
    assert not [f for f in os.listdir(tmp_path) if f.startswith("tmp-") or ".tmp-" in f]
