"""The Dask per-chunk overhead: siskin tensors as chunks of a dask.array against calling siskin
directly on the same blocks, side by side in one process, interleaved call by call.

Workloads over a shared matrix cut into blocks (2x2 and 4x1): SpMV (A @ x), an elementwise chain
(A * 2 + A, one kernel per block) and row sums of that chain ((A * 2 + A).sum(axis=1)). Columns:
  direct   a Python loop over the blocks: one siskin kernel per block, partials added by NumPy
  sync     dask.compute(scheduler="sync"): the same kernels, plus graph building, optimization
           and task dispatch in this process
  cluster  a distributed.LocalCluster of 2 worker processes over loopback (with --cluster):
           serialization and scheduling too; blocks persisted on the workers beforehand
The overhead per chunk is (dask - direct) / number of blocks.

Usage: /usr/bin/python3 bench/dask_chunks.py [--matrix cage11] [--cluster] [--out FILE]
Needs the package built (build/python) and Debian's python3-dask and python3-distributed.
"""

import argparse
import logging
import os
import statistics
import sys
import time
import warnings

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
sys.path.insert(0, os.path.join(repo, "build", "python"))
sys.path.insert(0, os.path.join(here, "peers"))

import dask  # noqa: E402
import dask.array as da  # noqa: E402

import inputs  # noqa: E402  (bench/peers/inputs.py: the shared matrices, cleaned)
import siskin  # noqa: E402


def median_ms(calls, repeat):
    for call in calls.values():  # warm: compiles, loads, first-touch
        call()
    times = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            t0 = time.perf_counter()
            call()
            times[name].append((time.perf_counter() - t0) * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


def blocks_of(x):
    """The persisted chunks of a dask array, as a nested list of siskin tensors."""
    graph = x.__dask_graph__()
    return [[graph[key] for key in row] for row in x.__dask_keys__()]


def direct(workload, blocks, xs):
    """siskin called on each block: the work Dask's tasks do, without Dask."""
    if workload == "chain":
        return [[(b * 2 + b).compute() for b in row] for row in blocks]
    if workload == "rowsum":
        return [sum(np.sum(b * 2 + b, axis=1).to_numpy() for b in row) for row in blocks]
    return [sum((b @ xs[j]).to_numpy() for j, b in enumerate(row)) for row in blocks]


def dask_expression(workload, x, v):
    if workload == "chain":
        return x * 2 + x
    if workload == "rowsum":
        return (x * 2 + x).sum(axis=1)
    return x @ v


def main():
    # dask.compute(scheduler="sync") beside a live Client is what the "sync" column measures.
    warnings.filterwarnings("ignore", message="Running on a single-machine scheduler")
    parser = argparse.ArgumentParser()
    parser.add_argument("--matrix", default="cage11")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--cluster", action="store_true")
    parser.add_argument("--matrices", default=os.environ.get("SISKIN_MATRICES",
                                                             os.path.join(repo, "..", "shared", "data", "matrices")))
    parser.add_argument("--out", default=os.path.join(here, "results", "DASK.md"))
    args = parser.parse_args()

    A, _ = inputs.load(args.matrix, args.matrices)
    T = siskin.asarray(A)
    n = A.shape[1]
    vector = np.linspace(-1.0, 1.0, n)
    client = None
    if args.cluster:
        import distributed

        cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                           host="127.0.0.1", dashboard_address=None,
                                           silence_logs=logging.ERROR)
        client = distributed.Client(cluster)
    rows = []
    for grid in [(2, 2), (4, 1)]:
        chunks = (-(-A.shape[0] // grid[0]), -(-n // grid[1]))
        x = da.from_array(T, chunks=chunks).persist(scheduler="sync")
        v = da.from_array(vector, chunks=(chunks[1],)).map_blocks(siskin.asarray).persist(scheduler="sync")
        blocks = blocks_of(x)
        xs = [siskin.asarray(vector[j * chunks[1]:(j + 1) * chunks[1]]) for j in range(grid[1])]
        nblocks = grid[0] * grid[1]
        remote = None
        if client is not None:
            remote = client.persist([x, v])
            distributed.wait(remote)
        for workload in ["spmv", "chain", "rowsum"]:
            expression = dask_expression(workload, x, v)
            calls = {"direct": lambda: direct(workload, blocks, xs),
                     "sync": lambda: dask.compute(expression, scheduler="sync")}
            if remote is not None:
                remote_expression = dask_expression(workload, remote[0], remote[1])
                calls["cluster"] = lambda: dask.compute(remote_expression, scheduler=client)
            ms = median_ms(calls, args.repeat)
            want = dask.compute(expression, scheduler="sync")[0]
            got = direct(workload, blocks, xs)
            if workload != "chain":
                assert np.allclose(np.asarray(want), np.concatenate(got)), workload
            rows.append((f"{grid[0]}x{grid[1]}", workload, nblocks, ms))
    if client is not None:
        client.close()
        cluster.close()

    command = "/usr/bin/python3 bench/dask_chunks.py " + " ".join(sys.argv[1:])
    load = os.getloadavg()
    lines = [f"# Dask per-chunk overhead ({args.matrix}, {A.shape[0]}x{n}, {A.nnz} stored)", "",
             f"`{command}`; load average {load[0]:.1f} on {os.cpu_count()} cores; medians of "
             f"{args.repeat} interleaved runs in ms. Overhead per chunk = (dask - direct) / blocks.",
             "The cluster column also ships every result block back to this process (for `chain`,",
             "the whole matrix); `spmv` through Dask adds its matmul steps (a new axis per block,",
             "then a sum of the partial products: two more kernels per block row).",
             "", "| blocks | workload | direct ms | sync ms | sync overhead / chunk ms |"
             + (" cluster ms | cluster overhead / chunk ms |" if args.cluster else ""),
             "|---|---|---|---|---|" + ("---|---|" if args.cluster else "")]
    for grid, workload, nblocks, ms in rows:
        line = (f"| {grid} | {workload} | {ms['direct']:.2f} | {ms['sync']:.2f} | "
                f"{(ms['sync'] - ms['direct']) / nblocks:.2f} |")
        if "cluster" in ms:
            line += f" {ms['cluster']:.2f} | {(ms['cluster'] - ms['direct']) / nblocks:.2f} |"
        lines.append(line)
    text = "\n".join(lines) + "\n"
    print(text)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
