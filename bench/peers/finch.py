"""bench/run-finch driver: the Finch paper's applications and structured SpMV against their peers,
in one process (run inside bench/peers/siskin_peers, which provides the module `siskin_native`).

- BFS and Bellman-Ford: the programs of examples/ (compiled once, run whole: every kernel of the
  while loop and the host loop between them) against SuiteSparse:GraphBLAS written as LAGraph
  writes them (native_graphblas.cpp: bfs, bellman_ford), at 1 thread each and at every core
  (GraphBLAS's own default is every core).
- Erosion: examples/erosion.siskin on dense bytes, on runs (dense(0)/runlist(1)) with a dense
  result, and run-length end to end (image, intermediate and result dense(0)/sparserunlist(1),
  Finch's RLE format) against OpenCV's cv2.erode with a 3x3 square, on binary images tiled from
  the shared sparse-images digits (32x32) magnified 4x and 16x.
- Triangle counting: examples/triangles.siskin and triangles_gallop.siskin (the masked product
  walked and galloped) against GraphBLAS's C<L> = L * L' (plus_pair) and its sum.
- Masked histogram: examples/histogram.siskin with the mask csr or runs against cv2.calcHist
  with the same mask, on the erosion images.
- Structured SpMV: y[i] += A[i,j] * x[j] with A in csr, sparseband, sparseblocklist,
  runlist-of-values and sparsepoint formats; on a symmetric matrix also
  examples/symmetric_spmv.siskin on its stored lower triangle (csr, diagonal included), and on a
  matrix whose stored values are all one value c each format with a pattern leaf (y[i] += c *
  A[i,j] * x[j]); against scipy CSR and (banded inputs) scipy DIA.

Every result is checked against the peer's (levels and distances equal, parents valid, images
and vectors equal) before timing; a mismatch fails the command. Timing interleaves the libraries
round by round; medians and their ratios go to the report.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[var] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import scipy.io  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import siskin_native as native  # noqa: E402

import machine  # noqa: E402
from driver import interleaved  # noqa: E402


def example(root, name):
    with open(os.path.join(root, "examples", name)) as f:
        return f.read()


def csr_tensor(a, type_name="float64", fill=0.0):
    """A csr siskin tensor (32-bit indices) of the scipy matrix a, values cast to type_name."""
    a = sp.csr_matrix(a)
    a.sort_indices()
    values = a.data.astype({"float64": np.float64, "bool": np.bool_}[type_name])
    return native.tensor(list(a.shape), "dense(0)/sparselist(1)@32", type_name, fill,
                         [{}, {"pos": a.indptr.astype(np.int32), "crd": a.indices.astype(np.int32)}], values)


def dense_tensor(v, type_name):
    v = np.ascontiguousarray(v)
    fmt = "/".join(f"dense({k})" for k in range(v.ndim))
    fill = False if type_name == "bool" else 0.0
    return native.tensor(list(v.shape), fmt, type_name, fill, [{} for _ in range(v.ndim)], v.reshape(-1))


def values_of(outputs, name):
    return np.asarray(outputs[name]["values"])


# A bool image as rows of runs of set pixels with gaps of fill (Finch's RLE image format).
RUNS = "dense(0)/sparserunlist(1)"


def runs_to_dense(e):
    """A dense(0)/sparserunlist(1) output (outputs()[name]) as a dense array: run q of row y
    covers columns left[q] up to right[q], exclusive."""
    runs = e["levels"][1]
    out = np.full(e["shape"], e["fill"] == "true")
    for y in range(e["shape"][0]):
        for q in range(runs["pos"][y], runs["pos"][y + 1]):
            out[y, runs["left"][q]:runs["right"][q]] = e["values"][q]
    return out


class Timed:
    """A runner for driver.interleaved: run() returns (ms, result) from a call that returns
    (ms, result...) (GraphBLAS's graph algorithms return several arrays)."""

    def __init__(self, call):
        self.call = call

    def run(self):
        ms, *result = self.call()
        return ms, result


def time_interleaved(runners, min_runs, budget_s):
    """Round-robin timing of every runner, min_runs each (fewer, at least 3, where one run is so
    slow that min_runs would pass budget_s)."""
    first = {lib: r.run()[0] for lib, r in runners.items()}  # warm-up, also sizes the counts
    counts = {lib: max(3, min(min_runs, int(budget_s * 1e3 / max(ms, 1e-3)))) for lib, ms in first.items()}
    return {lib: statistics.median(s) for lib, s in interleaved(runners, counts).items()}


def vector_program(text, inputs, names, threads, cache_dir, formats=None):
    """The program compiled for these inputs, its outputs `names` dense vectors (other vector
    outputs in `formats`), run once: (the program, the outputs' values)."""
    outputs = {n: "" for n in names} | (formats or {})
    prog = native.Program(text, inputs, outputs, cache_dir, {n: 1 for n in outputs}, {}, threads)
    prog.run()
    out = prog.outputs()
    return prog, [values_of(out, n) for n in names]


def symmetric_graph(path):
    a = scipy.io.mmread(path).tocsr()
    a = ((a != 0).astype(np.float64))
    a = (sp.triu(a, 1) + sp.tril(a, -1)).tocsr()
    a.sort_indices()
    return a


def check_parents(name, a, level, parent, sources):
    """Every reached non-source vertex's parent is one level (or distance) up with an edge to it."""
    coo = a.tocoo()
    edges = set(zip(coo.row.tolist(), coo.col.tolist()))
    for j in range(a.shape[0]):
        if j in sources or level[j] < 0:
            continue
        p = int(parent[j])
        if not (0 <= p < a.shape[0] and (p, j) in edges):
            sys.exit(f"{name}: parent {p} of vertex {j} has no edge to it")


# (program, title, frontier format): the frontiers F and G dense, or a sparsebytemap that the
# next level walks by its stored coordinates (GraphBLAS likewise keeps a small frontier sparse).
BYTEMAP = "sparsebytemap(0)"
BFS_PROGRAMS = (("bfs.siskin", "BFS push", None), ("bfs.siskin", "BFS push, bytemap frontier", BYTEMAP),
                ("bfs_direction.siskin", "BFS direction-optimising", None),
                ("bfs_direction.siskin", "BFS direction-optimising, bytemap frontier", BYTEMAP))


def bfs_rows(root, graphs, threads, opts, cache_dir):
    rows = []
    for (program, title, frontier), (gname, a), t in ((p, g, t) for p in BFS_PROGRAMS for g in graphs
                                                     for t in threads):
        text = example(root, program)
        n = a.shape[0]
        source = 0
        s = np.zeros(n, dtype=np.bool_)
        s[source] = True
        inputs = {"A": csr_tensor(a, "bool", False), "s": dense_tensor(s, "bool")}
        if program == "bfs_direction.siskin":
            inputs["AT"] = csr_tensor(a.T, "bool", False)
        gb_a = native.graphblas.bool_from_coo(n, n, a.tocoo().row.astype(np.int64), a.tocoo().col.astype(np.int64))
        native.graphblas.set_nthreads(t)
        prog, (level, parent) = vector_program(text, inputs, ["L", "parent"], t, cache_dir,
                                               {"F": frontier, "G": frontier} if frontier else None)
        _, gl, gp = native.graphblas.bfs(gb_a, source)
        if not np.array_equal(level, gl):
            sys.exit(f"bfs on {gname}: siskin's levels differ from GraphBLAS's at {np.flatnonzero(level != gl)[:10]}")
        check_parents(f"{program} on {gname}", a, level, parent, {source})
        check_parents(f"GraphBLAS bfs on {gname}", a, gl, gp, {source})
        med = time_interleaved({"siskin": Timed(lambda: (prog.run(), None)),
                                "graphblas": Timed(lambda: native.graphblas.bfs(gb_a, source))},
                               opts.min_runs, opts.budget_s)
        rows.append({"app": f"{title} (levels and parents)", "input": gname, "threads": t,
                     "levels": int(level.max()), "ms": med, "compile_ms": prog.compile_ms})
    return rows


# (title, format of the changed-vertex sets F and G): dense, or sparse so a pass costs the
# vertices it changes.
BELLMAN_FORD_FRONTIERS = (("Bellman-Ford", None), ("Bellman-Ford, bytemap frontier", BYTEMAP))


def bellman_ford_rows(root, graphs, threads, opts, cache_dir):
    rows = []
    text = example(root, "bellman_ford.siskin")
    for gname, a in graphs:
        n = a.shape[0]
        w = a.copy()
        w.data = np.random.default_rng(n).integers(1, 10, size=w.nnz).astype(np.float64)
        sources = [0, n // 2]
        s = np.zeros(n, dtype=np.bool_)
        s[sources] = True
        inputs = {"W": csr_tensor(w, "float64", float("inf")), "s": dense_tensor(s, "bool")}
        wc = w.tocoo()
        gb_w = native.graphblas.from_coo(n, n, wc.row.astype(np.int64), wc.col.astype(np.int64), wc.data)
        src = np.array(sources, dtype=np.int64)
        for t, (title, frontier) in ((t, f) for t in threads for f in BELLMAN_FORD_FRONTIERS):
            native.graphblas.set_nthreads(t)
            prog, (d, p) = vector_program(text, inputs, ["d", "p"], t, cache_dir,
                                          {"F": frontier, "G": frontier} if frontier else None)
            _, gd, gp = native.graphblas.bellman_ford(gb_w, src)
            if not np.array_equal(d, gd):
                sys.exit(f"bellman_ford on {gname}: siskin's distances differ from GraphBLAS's at "
                         f"{np.flatnonzero(d != gd)[:10]}")
            reach = np.where(np.isinf(d), -1, 0)
            check_parents(f"bellman_ford.siskin on {gname}", w, reach, p, set(sources))
            check_parents(f"GraphBLAS bellman_ford on {gname}", w, reach, gp, set(sources))
            med = time_interleaved({"siskin": Timed(lambda: (prog.run(), None)),
                                    "graphblas": Timed(lambda: native.graphblas.bellman_ford(gb_w, src))},
                                   opts.min_runs, opts.budget_s)
            rows.append({"app": f"{title} (distances and parents)", "input": gname, "threads": t,
                         "ms": med, "compile_ms": prog.compile_ms})
    return rows


def triangle_rows(root, graphs, opts, cache_dir):
    """examples/triangles.siskin (walk) and triangles_gallop.siskin on the strict lower triangle L
    against GraphBLAS's masked product C<L> = L * L' and its sum (LAGraph's Sandia_LUT), 1 thread."""
    rows = []
    native.graphblas.set_nthreads(1)
    for gname, a in graphs:
        lower = sp.tril(a, -1).tocsr()
        lower.sort_indices()
        n = lower.shape[0]
        coo = lower.tocoo()
        gb_l = native.graphblas.bool_from_coo(n, n, coo.row.astype(np.int64), coo.col.astype(np.int64))
        _, count = native.graphblas.triangle_count(gb_l)
        want = int((lower @ lower.T).multiply(lower).sum())
        if count != want:
            sys.exit(f"GraphBLAS triangle count on {gname}: {count}, scipy {want}")
        inputs = {"L": csr_tensor(lower)}
        for program, title in (("triangles.siskin", "walk"), ("triangles_gallop.siskin", "gallop")):
            prog = native.Program(example(root, program), inputs, {"t": ""}, cache_dir, {"t": 0}, {}, 1)
            prog.run()
            got = values_of(prog.outputs(), "t").reshape(-1)
            got = int(got[0]) if got.size else 0
            if got != want:
                sys.exit(f"{program} on {gname}: {got} triangles, scipy {want}")
            med = time_interleaved({"siskin": Timed(lambda prog=prog: (prog.run(), None)),
                                    "graphblas": Timed(lambda: native.graphblas.triangle_count(gb_l))},
                                   opts.min_runs, opts.budget_s)
            rows.append({"app": f"triangle count, {title} ({want} triangles)", "input": gname, "threads": 1,
                         "ms": med, "compile_ms": prog.compile_ms})
    return rows


def histogram_rows(root, matrices, opts, cache_dir):
    """examples/histogram.siskin (16 bins of an 8-bit image over a binary mask, the mask csr or
    runs) against OpenCV's masked cv2.calcHist, on the erosion images as masks."""
    import cv2
    cv2.setNumThreads(1)
    rows = []
    text = example(root, "histogram.siskin")
    for magnify, grid in ((4, 8), (16, 4)) if not opts.quick else ((4, 4),):
        mask = digit_images(matrices, magnify, grid)
        name = f"{grid}x{grid} digits x{magnify} ({mask.shape[0]}x{mask.shape[1]}, {mask.mean():.0%} set)"
        img = np.random.default_rng(mask.size).integers(0, 256, size=mask.shape).astype(np.uint8)
        mask_u8 = mask.astype(np.uint8)
        want = cv2.calcHist([img], [0], mask_u8, [16], [0, 256]).reshape(-1)
        if not np.array_equal(want, np.bincount(img[mask] // 16, minlength=16)):
            sys.exit(f"cv2.calcHist on {name} differs from numpy's bincount")
        dense = dense_tensor(mask, "bool")
        img_t = native.tensor(list(img.shape), "dense(0)/dense(1)", "uint8", 0, [{}, {}], img.reshape(-1))
        for fmt in ("dense(0)/sparselist(1)", "dense(0)/runlist(1)"):
            m = native.convert_compiled(dense, fmt)[0]
            prog = native.Program(text, {"img": img_t, "M": m}, {"bins": ""}, cache_dir, {"bins": 1},
                                  {"bins": [16]}, 1)
            prog.run()
            got = values_of(prog.outputs(), "bins")
            if not np.array_equal(got, want):
                sys.exit(f"histogram ({fmt}) on {name}: {got.tolist()}, cv2.calcHist {want.tolist()}")

            def cv_run():
                t0 = time.perf_counter()
                r = cv2.calcHist([img], [0], mask_u8, [16], [0, 256])
                return (time.perf_counter() - t0) * 1e3, r
            med = time_interleaved({"siskin": Timed(lambda prog=prog: (prog.run(), None)), "opencv": Timed(cv_run)},
                                   opts.min_runs, opts.budget_s)
            label = "csr" if "sparselist" in fmt else fmt
            rows.append({"app": f"masked histogram, M {label}", "input": name, "threads": 1, "ms": med,
                         "compile_ms": prog.compile_ms})
    return rows


def digit_images(matrices, magnify, grid):
    """A grid x grid mosaic of the first grid^2 shared 32x32 digits, each magnified."""
    images = scipy.io.mmread(os.path.join(matrices, "sparse-images-1024_subset.mtx")).tocsr()
    tiles = [np.kron(images[k].toarray().reshape(32, 32) != 0, np.ones((magnify, magnify), dtype=bool))
             for k in range(grid * grid)]
    return np.block([[tiles[r * grid + c] for c in range(grid)] for r in range(grid)])


def erosion_rows(root, matrices, opts, cache_dir):
    import cv2
    cv2.setNumThreads(1)
    rows = []
    text = example(root, "erosion.siskin")
    kernel = np.ones((3, 3), dtype=np.uint8)
    for magnify, grid in ((4, 8), (16, 4)) if not opts.quick else ((4, 4),):
        image = digit_images(matrices, magnify, grid)
        name = f"{grid}x{grid} digits x{magnify} ({image.shape[0]}x{image.shape[1]}, {image.mean():.0%} set)"
        u8 = image.astype(np.uint8)
        # cv2's default border for erode is the largest value: outside counts as set, as in
        # erosion.siskin.
        want = cv2.erode(u8, kernel) != 0
        dense = dense_tensor(image, "bool")
        # (A's format, the format of tmp and E: "" dense), the last run-length end to end, as
        # Finch stores an RLE image: the work follows the runs, not the pixels.
        for fmt, out in (("dense", ""), ("dense(0)/runlist(1)", ""), (RUNS, RUNS)):
            a = dense if fmt == "dense" else native.convert_compiled(dense, fmt)[0]
            outputs = {"E": out} | ({"tmp": out} if out else {})
            prog = native.Program(text, {"A": a}, outputs, cache_dir, {n: 2 for n in outputs}, {}, 1)
            prog.run()
            e = prog.outputs()["E"]
            got = runs_to_dense(e) if out else values_of(prog.outputs(), "E").reshape(image.shape)
            if not np.array_equal(got, want):
                sys.exit(f"erosion ({fmt}) on {name}: differs from cv2.erode at {np.argwhere(got != want)[:5].tolist()}")

            def cv_run():
                t0 = time.perf_counter()
                r = cv2.erode(u8, kernel)
                return (time.perf_counter() - t0) * 1e3, r
            med = time_interleaved({"siskin": Timed(lambda: (prog.run(), None)), "opencv": Timed(cv_run)},
                                   opts.min_runs, opts.budget_s)
            label = f"A {fmt}" + (f", tmp and E {out}" if out else "")
            rows.append({"app": f"erosion 3x3, {label}", "input": name, "threads": 1, "ms": med,
                         "compile_ms": prog.compile_ms})
    return rows


def band_matrix(n, width, seed):
    rng = np.random.default_rng(seed)
    half = width // 2
    offsets = list(range(-half, width - half))
    return sp.diags([rng.uniform(-1, 1, n - abs(k)) for k in offsets], offsets, shape=(n, n), format="csr")


def spmv_inputs(matrices, quick):
    out = []
    for name in ("olm1000", "rdb3200l") if quick else ("olm1000", "rdb3200l", "pts5ldd03", "bcsstk13", "add32"):
        a = scipy.io.mmread(os.path.join(matrices, name + ".mtx")).tocsr()
        a.eliminate_zeros()
        out.append((name, a, False))
    for width in ((5,) if quick else (5, 30, 100)):
        out.append((f"band {width} (n 100000)", band_matrix(100_000, width, width), True))
    n = 100_000 if quick else 1_000_000
    perm = sp.csr_matrix((np.ones(n), (np.arange(n), np.arange(n)[::-1])), shape=(n, n))
    out.append((f"reverse permutation (n {n})", perm, False))
    return out


SPMV_FORMATS = ["dense(0)/sparselist(1)", "dense(0)/sparseband(1)", "dense(0)/sparseblocklist(1)",
                "dense(0)/sparserunlist(1)", "dense(0)/sparsepoint(1)"]


def is_symmetric(a):
    d = (a - a.T).tocsr()
    d.eliminate_zeros()
    return a.shape[0] == a.shape[1] and d.nnz == 0


def spmv_rows(root, matrices, opts, cache_dir):
    rows = []
    text = "y[i] += A[i,j] * x[j]"
    for name, a, banded in spmv_inputs(matrices, opts.quick):
        a = sp.csr_matrix(a)
        a.sort_indices()
        x = np.random.default_rng(a.shape[1]).standard_normal(a.shape[1])
        want = a @ x
        csr = csr_tensor(a)
        xt = dense_tensor(x, "float64")
        runners, notes = {}, {}

        def add(label, program, inputs, fmt):
            """Compiles program for inputs (y its output), checks y against scipy and adds its runner;
            a format that does not hold the matrix (a second run, ...) is noted instead."""
            try:
                prog = native.Program(program, dict(inputs(), x=xt), {"y": ""}, cache_dir, {"y": 1}, {}, 1)
            except native.SiskinError as e:
                notes[label] = str(e).splitlines()[0][:80]
                return
            prog.run()
            got = values_of(prog.outputs(), "y")
            if not np.allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(a).sum()):
                sys.exit(f"spmv ({fmt}) on {name}: differs from scipy by {np.abs(got - want).max()}")
            runners["siskin " + label] = Timed(lambda prog=prog: (prog.run(), None))

        def converted(t, fmt):
            return lambda: {"A": t if fmt == "dense(0)/sparselist(1)" else native.convert_compiled(t, fmt)[0]}

        for fmt in SPMV_FORMATS:
            label = fmt.split("/")[1].split("(")[0]
            add("csr" if label == "sparselist" else label, text, converted(csr, fmt), fmt)
        if is_symmetric(a):  # Finch's case 9: half the entries, each read once for two outputs
            tri = sp.tril(a).tocsr()
            add("symmetric", example(root, "symmetric_spmv.siskin"), lambda: {"T": csr_tensor(tri)},
                "symmetric_spmv.siskin on the lower triangle")
        if a.nnz and np.all(a.data == a.data[0]):  # one stored value c: the pattern times c
            c = float(a.data[0])
            pattern_text = text if c == 1.0 else f"y[i] += {c!r} * A[i,j] * x[j]"
            pattern = csr_tensor(a, "bool", False)
            for fmt in SPMV_FORMATS:
                label = ("csr" if "sparselist" in fmt else fmt.split("/")[1].split("(")[0]) + " pattern"
                add(label, pattern_text, converted(pattern, fmt + "/pattern"), fmt + "/pattern")

        def scipy_run(m):
            def run():
                t0 = time.perf_counter()
                r = m @ x
                return (time.perf_counter() - t0) * 1e3, r
            return Timed(run)
        runners["scipy csr"] = scipy_run(a)
        if banded:
            runners["scipy dia"] = scipy_run(a.todia())
        med = time_interleaved(runners, opts.min_runs, opts.budget_s)
        rows.append({"app": "SpMV", "input": name, "threads": 1, "ms": med, "nnz": int(a.nnz), "refused": notes})
    return rows


def ratio_table(rows, peer, ours):
    lines = ["| application | input | threads | siskin ms | " + peer + " ms | siskin speed-up |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        s, p = r["ms"][ours], r["ms"][peer]
        lines.append(f"| {r['app']} | {r['input']} | {r['threads']} | {s:.3f} | {p:.3f} | {p / s:.2f}x |")
    return lines


def spmv_table(rows):
    libs = []
    for r in rows:
        libs += [lib for lib in r["ms"] if lib not in libs]
    lines = ["| input | nnz | " + " | ".join(f"{lib} ms" for lib in libs) +
             " | best siskin / siskin csr | best siskin / scipy csr | best scipy / best siskin |",
             "|---|---|" + "---|" * (len(libs) + 3)]
    for r in rows:
        ms = r["ms"]
        cells = [f"{ms[lib]:.3f}" if lib in ms else "-" for lib in libs]
        best = min(v for k, v in ms.items() if k.startswith("siskin"))
        scipy_best = min(v for k, v in ms.items() if k.startswith("scipy"))
        lines.append(f"| {r['input']} | {r['nnz']} | " + " | ".join(cells) +
                     f" | {ms['siskin csr'] / best:.2f}x | {ms['scipy csr'] / best:.2f}x | {scipy_best / best:.2f}x |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--out", required=True, help="the report (.md); the rows go beside it as .json")
    parser.add_argument("--matrices", default=None)
    parser.add_argument("--quick", action="store_true", help="small inputs, one thread count (a smoke run)")
    parser.add_argument("--threads", default=None, help="thread counts of the graph rows (default 1,all cores)")
    parser.add_argument("--min-runs", type=int, default=7)
    parser.add_argument("--budget-s", type=float, default=10.0, help="fewer runs where one is slower than this / min-runs")
    parser.add_argument("--only", default="bfs,bellman_ford,triangles,erosion,histogram,spmv")
    parser.add_argument("--command", default="bench/run-finch", help="the command line to record in the report")
    opts = parser.parse_args()
    matrices = opts.matrices or os.path.join(opts.root, "..", "shared", "data", "matrices")
    threads = ([int(t) for t in opts.threads.split(",")] if opts.threads
               else [1] if opts.quick else sorted({1, os.cpu_count() or 1}))
    names = ("ca-GrQc",) if opts.quick else ("luxembourg_osm", "email-Enron")
    graphs = [(n, symmetric_graph(os.path.join(matrices, n + ".mtx"))) for n in names]
    only = set(opts.only.split(","))
    load_before = os.getloadavg()
    cache_dir = tempfile.mkdtemp(prefix="siskin-finch-jit-")
    rows = {}
    if "bfs" in only:
        rows["bfs"] = bfs_rows(opts.root, graphs, threads, opts, cache_dir)
    if "bellman_ford" in only:
        rows["bellman_ford"] = bellman_ford_rows(opts.root, graphs, threads, opts, cache_dir)
    if "triangles" in only:
        rows["triangles"] = triangle_rows(opts.root, graphs, opts, cache_dir)
    if "erosion" in only:
        rows["erosion"] = erosion_rows(opts.root, matrices, opts, cache_dir)
    if "histogram" in only:
        rows["histogram"] = histogram_rows(opts.root, matrices, opts, cache_dir)
    if "spmv" in only:
        rows["spmv"] = spmv_rows(opts.root, matrices, opts, cache_dir)
    native.graphblas.set_nthreads(1)
    load_after = os.getloadavg()
    info = machine.describe(native)
    import cv2
    lines = [f"# Finch's applications against their peers ({'quick smoke run' if opts.quick else 'full run'})", "",
             f"Command: `{opts.command}` ({info['date']}).", "",
             f"Machine: {info['machine']}. {info['versions']}, OpenCV {cv2.__version__}.", "",
             f"Load average (1, 5, 15 min) before: {', '.join(f'{x:.2f}' for x in load_before)}; "
             f"after: {', '.join(f'{x:.2f}' for x in load_after)}. On a loaded machine these ratios are "
             "a smoke run, not a measurement.", "",
             "Medians of interleaved runs (siskin, peer, siskin, ...), each result checked against the peer's "
             "first. siskin runs the whole example program (every kernel of its while loop and the host loop "
             "between them), compiled once before timing. GraphBLAS runs at the row's thread count (its own "
             "default is every core); siskin at the same count. Speed-up > 1: siskin is faster.", ""]
    for key, peer, title in (("bfs", "graphblas", "BFS (examples/bfs.siskin, bfs_direction.siskin) against "
                              "GraphBLAS push BFS"),
                             ("bellman_ford", "graphblas",
                              "Bellman-Ford (examples/bellman_ford.siskin) against GraphBLAS min.+ passes"),
                             ("triangles", "graphblas", "Triangle counting (examples/triangles.siskin, "
                              "triangles_gallop.siskin) against GraphBLAS masked mxm C<L> = L*L', plus_pair"),
                             ("erosion", "opencv", "Erosion (examples/erosion.siskin) against cv2.erode"),
                             ("histogram", "opencv", "Masked histogram (examples/histogram.siskin) against "
                              "cv2.calcHist with the mask")):
        if key in rows:
            lines += [f"## {title}", ""] + ratio_table(rows[key], peer, "siskin") + [""]
    if "spmv" in rows:
        lines += ["## Structured SpMV (y[i] += A[i,j] * x[j], 1 thread)", "",
                  "Formats the matrix does not fit are absent from its row (refused at conversion). "
                  "siskin symmetric: examples/symmetric_spmv.siskin on the stored lower triangle (csr, "
                  "diagonal included; symmetric matrices only, checked with scipy). siskin ... pattern: "
                  "the format with a pattern leaf (only where every stored value is the same c; the "
                  "program multiplies by c unless it is 1).", ""]
        lines += spmv_table(rows["spmv"]) + [""]
        best = [min(v for k, v in r["ms"].items() if k.startswith("siskin")) for r in rows["spmv"]]
        geo = float(np.exp(np.mean([np.log(r["ms"]["siskin csr"] / b) for r, b in zip(rows["spmv"], best)])))
        lines += [f"Geomean of the best format over siskin csr: {geo:.2f}x.", ""]
    os.makedirs(os.path.dirname(os.path.abspath(opts.out)), exist_ok=True)
    with open(opts.out, "w") as f:
        f.write("\n".join(lines))
    with open(os.path.splitext(opts.out)[0] + ".json", "w") as f:
        json.dump({"info": info, "load_before": load_before, "load_after": load_after, "rows": rows}, f, indent=1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
