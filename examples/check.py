#!/usr/bin/python3
"""Runs the example programs through `siskin run` and checks them against SciPy and NumPy.

    examples/check.py --cli build/siskin [--matrices DIR]

Inputs: small seeded random graphs and matrices, the repository's data/ matrices, and, when the
shared matrix folder exists (--matrices, $SISKIN_MATRICES, else ../shared/data/matrices beside
the repository), some of its graphs and symmetric matrices. Exits non-zero at the first
mismatch, naming the example and the input.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy import ndimage
from scipy.sparse import csgraph

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def run(cli, program, args):
    cmd = [cli, "run", "@" + os.path.join(HERE, program)] + args
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{program}: siskin run failed ({' '.join(cmd)}):\n{done.stderr}")


def write_matrix(path, m):
    scipy.io.mmwrite(path, sp.coo_matrix(m), symmetry="general")


def write_vector(path, v):
    scipy.io.mmwrite(path, np.asarray(v, dtype=float).reshape(-1, 1))


def read_vector(path):
    return np.asarray(scipy.io.mmread(path)).reshape(-1)


def read_scalar(path):
    # A 0-d output in a FROSTT file: one line holding the value (or nothing: the fill, 0).
    values = [line.split()[-1] for line in open(path) if line.strip() and not line.startswith("#")]
    return float(values[0]) if values else 0.0


def graph_inputs(matrices):
    """(name, adjacency as CSR with unit weights, no self loops) pairs."""
    rng = np.random.default_rng(5)
    out = [("random 300", sp.random(300, 300, density=0.01, random_state=rng, format="csr"))]
    for name in ("karate.mtx", "1138_bus.mtx"):
        out.append((name, scipy.io.mmread(os.path.join(REPO, "data", name)).tocsr()))
    if matrices:
        for name in ("email-Enron.mtx", "ca-GrQc.mtx"):
            path = os.path.join(matrices, name)
            if os.path.exists(path):
                out.append((name, scipy.io.mmread(path).tocsr()))
    graphs = []
    for name, a in out:
        a = (a != 0).astype(float)
        a = (sp.triu(a, 1) + sp.tril(a, -1)).tocsr()  # no self loops
        graphs.append((name, a))
    return graphs


def check_bfs(cli, tmp, name, a, program="bfs.siskin", interpret=False):
    """bfs.siskin (push) or bfs_direction.siskin (push or pull by the frontier's size, reading
    the transpose too) against scipy.sparse.csgraph; with `interpret`, also the reference
    evaluator's levels and parents, equal to the compiled ones."""
    n = a.shape[0]
    source = n // 3
    s = np.zeros(n)
    s[source] = 1
    write_matrix(f"{tmp}/A.mtx", a)
    write_vector(f"{tmp}/s.mtx", s)
    args = ["-i", f"A={tmp}/A.mtx:csr", "--type", "A=bool", "-i", f"s={tmp}/s.mtx", "--type", "s=bool"]
    if program == "bfs_direction.siskin":
        write_matrix(f"{tmp}/AT.mtx", a.T)
        args += ["-i", f"AT={tmp}/AT.mtx:csr", "--type", "AT=bool"]
    run(cli, program, args + ["-o", f"L={tmp}/L.mtx", "-o", f"parent={tmp}/p.mtx"])
    if interpret:
        run(cli, program, args + ["-o", f"L={tmp}/Lr.mtx", "-o", f"parent={tmp}/pr.mtx", "--interpret"])
        for mine, ref in (("L", "Lr"), ("p", "pr")):
            if not np.array_equal(read_vector(f"{tmp}/{mine}.mtx"), read_vector(f"{tmp}/{ref}.mtx")):
                sys.exit(f"{program} on {name}: {mine} differs from the reference evaluator's")
    got = read_vector(f"{tmp}/L.mtx")
    want = csgraph.shortest_path(a, directed=True, unweighted=True, indices=source)
    want = np.where(np.isinf(want), -1, want)
    if not np.array_equal(got, want):
        sys.exit(f"{program} on {name}: levels differ from scipy.sparse.csgraph at "
                 f"{np.flatnonzero(got != want)[:10]}")
    parent = read_vector(f"{tmp}/p.mtx").astype(np.int64)
    edges = a.todok()
    for j in range(n):
        if j == source or got[j] < 0:
            ok = parent[j] == -1
        else:
            ok = 0 <= parent[j] < n and got[parent[j]] == got[j] - 1 and (parent[j], j) in edges
        if not ok:
            sys.exit(f"{program} on {name}: parent {parent[j]} of vertex {j} (level {got[j]}) "
                     f"is not one level up with an edge to it")


def check_bellman_ford(cli, tmp, name, a):
    n = a.shape[0]
    rng = np.random.default_rng(n)
    w = a.copy()
    w.data = rng.integers(1, 10, size=w.nnz).astype(float)
    sources = [0, n // 2]
    s = np.zeros(n)
    s[sources] = 1
    write_matrix(f"{tmp}/W.mtx", w)
    write_vector(f"{tmp}/s.mtx", s)
    run(cli, "bellman_ford.siskin", ["-i", f"W={tmp}/W.mtx:csr", "-i", f"s={tmp}/s.mtx",
                                     "--type", "s=bool", "-o", f"d={tmp}/d.tns",
                                     "-o", f"p={tmp}/p.mtx"])
    d = np.full(n, np.inf)
    for line in open(f"{tmp}/d.tns"):
        if line.strip() and not line.startswith("#"):
            i, v = line.split()
            d[int(i) - 1] = float(v)
    p = read_vector(f"{tmp}/p.mtx").astype(np.int64)
    want = csgraph.shortest_path(w, method="BF", directed=True, indices=sources).min(axis=0)
    if not np.array_equal(d, want):
        sys.exit(f"bellman_ford.siskin on {name}: distances differ from scipy.sparse.csgraph at "
                 f"{np.flatnonzero(d != want)[:10]}")
    wd = w.todok()
    for j in range(n):
        if s[j]:
            ok = p[j] == j
        elif np.isinf(d[j]):
            ok = p[j] == -1
        else:
            ok = 0 <= p[j] < n and (p[j], j) in wd and d[p[j]] + wd[p[j], j] == d[j]
        if not ok:
            sys.exit(f"bellman_ford.siskin on {name}: parent {p[j]} of vertex {j} is not on a "
                     f"shortest path (distance {d[j]})")


def symmetric_inputs(matrices):
    rng = np.random.default_rng(9)
    m = sp.random(200, 200, density=0.03, random_state=rng)
    out = [("random 200", (m + m.T).tocsr()),
           ("1138_bus.mtx", scipy.io.mmread(os.path.join(REPO, "data", "1138_bus.mtx")).tocsr())]
    if matrices and os.path.exists(os.path.join(matrices, "bcsstk13.mtx")):
        out.append(("bcsstk13.mtx", scipy.io.mmread(os.path.join(matrices, "bcsstk13.mtx")).tocsr()))
    return out


def check_symmetric_spmv(cli, tmp, name, s):
    n = s.shape[0]
    x = np.random.default_rng(n).standard_normal(n)
    write_matrix(f"{tmp}/T.mtx", sp.tril(s))
    write_vector(f"{tmp}/x.mtx", x)
    run(cli, "symmetric_spmv.siskin", ["-i", f"T={tmp}/T.mtx:csr", "-i", f"x={tmp}/x.mtx",
                                       "-o", f"y={tmp}/y.mtx"])
    got = read_vector(f"{tmp}/y.mtx")
    want = s @ x
    if not np.allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(s).sum()):
        sys.exit(f"symmetric_spmv.siskin on {name}: y differs from S @ x by "
                 f"{np.abs(got - want).max()}")


def check_triangles(cli, tmp, name, a):
    """triangles.siskin (walk) and triangles_gallop.siskin against the masked product sum((L L^T) .* L)."""
    sym = ((a + a.T) != 0).astype(float)
    lower = sp.tril(sym, -1).tocsr()
    write_matrix(f"{tmp}/L.mtx", lower)
    want = (lower @ lower.T).multiply(lower).sum()
    for program in ("triangles.siskin", "triangles_gallop.siskin"):
        run(cli, program, ["-i", f"L={tmp}/L.mtx:csr", "-o", f"t={tmp}/t.tns"])
        got = read_scalar(f"{tmp}/t.tns")
        if got != want:
            sys.exit(f"{program} on {name}: {got} triangles, scipy counts {want}")


def image_inputs(matrices):
    """(name, bool image) pairs: seeded random blobs, and shared binarized digits magnified 4x."""
    rng = np.random.default_rng(3)
    out = [("random 40x50", rng.random((40, 50)) < 0.8)]
    path = os.path.join(matrices, "sparse-images-1024_subset.mtx") if matrices else ""
    if path and os.path.exists(path):
        images = scipy.io.mmread(path).tocsr()
        for k in (0, 7):
            digit = images[k].toarray().reshape(32, 32) != 0
            out.append((f"sparse-images row {k} x4", np.kron(digit, np.ones((4, 4), dtype=bool))))
    return out


def write_dense(path, image):
    scipy.io.mmwrite(path, np.asarray(image, dtype=float))


def check_erosion(cli, tmp, name, image):
    for fmt in ("dense", "csr", "dense(0)/runlist(1)"):
        write_matrix(f"{tmp}/A.mtx", sp.coo_matrix(image.astype(float)))
        run(cli, "erosion.siskin", ["-i", f"A={tmp}/A.mtx:{fmt}", "--type", "A=bool",
                                    "-o", f"E={tmp}/E.mtx:dense"])
        got = np.asarray(scipy.io.mmread(f"{tmp}/E.mtx")) != 0
        want = ndimage.binary_erosion(image, structure=np.ones((3, 3)), border_value=1)
        if not np.array_equal(got, want):
            sys.exit(f"erosion.siskin on {name} ({fmt}): differs from scipy.ndimage at "
                     f"{np.argwhere(got != want)[:5].tolist()}")


def check_histogram(cli, tmp, name, image):
    grey = np.random.default_rng(image.size).integers(0, 256, size=image.shape)
    write_dense(f"{tmp}/img.mtx", grey)
    write_matrix(f"{tmp}/M.mtx", sp.coo_matrix(image.astype(float)))
    for fmt in ("csr", "dense(0)/runlist(1)"):
        run(cli, "histogram.siskin", ["-i", f"img={tmp}/img.mtx", "--type", "img=int64",
                                      "-i", f"M={tmp}/M.mtx:{fmt}", "--type", "M=bool",
                                      "--shape", "bins=16", "-o", f"bins={tmp}/bins.mtx"])
        got = read_vector(f"{tmp}/bins.mtx")
        want = np.histogram(grey[image], bins=16, range=(0, 256))[0]
        if not np.array_equal(got, want):
            sys.exit(f"histogram.siskin on {name} ({fmt}): {got.tolist()}, numpy {want.tolist()}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--matrices", default=os.environ.get(
        "SISKIN_MATRICES", os.path.join(REPO, "..", "shared", "data", "matrices")))
    args = parser.parse_args()
    matrices = args.matrices if os.path.isdir(args.matrices) else None
    if not matrices:
        print(f"note: no shared matrices at {args.matrices}: checking generated and data/ inputs")
    with tempfile.TemporaryDirectory() as tmp:
        for name, a in graph_inputs(matrices):
            check_bfs(args.cli, tmp, name, a)
            check_bfs(args.cli, tmp, name, a, "bfs_direction.siskin", interpret=a.shape[0] <= 300)
            check_triangles(args.cli, tmp, name, a)
            check_bellman_ford(args.cli, tmp, name, a)
            print(f"ok: bfs, bfs_direction, triangles (walk, gallop), bellman_ford on {name}")
        for name, s in symmetric_inputs(matrices):
            check_symmetric_spmv(args.cli, tmp, name, s)
            print(f"ok: symmetric_spmv on {name}")
        for name, image in image_inputs(matrices):
            check_erosion(args.cli, tmp, name, image)
            check_histogram(args.cli, tmp, name, image)
            print(f"ok: erosion, histogram on {name}")


if __name__ == "__main__":
    main()
