"""Sparse convolutions and stencils: siskin against its peers, timed side by side in one process.

Run by bench/run-conv through bench/peers' siskin_peers (siskin is the built-in module
`siskin_native`). Every row is one program on one seeded random input at one density: siskin
compiles it once (outside timing) and runs it; each peer computes the same result; the fastest
of --repeat runs is reported, with ratios peer / siskin (above 1: siskin is faster): on a
machine loaded past its cores a run of 1.5 ms now and then took 9-13 ms (descheduled), and a
median of five caught those on one side and not the other. Every result is checked against the
dense peer before it is reported. Single-threaded everywhere.

What is timed, on every side: a fresh output (allocated and zeroed) and the computation into it.
siskin's run allocates its outputs and its kernel writes the fill (0) over the dense output;
the MLIR peer's run allocates np.zeros (calloc) and passes it as the linalg output it
accumulates into; scipy and numpy allocate their results. Convolution rows also give siskin's
time on an all-zero input of the same format and shape (`empty`: the same kernel with no
entries, so the output's allocation and zeroing alone): the per-entry part of a row is its time
less that.

Peers:
  ndimage   scipy.ndimage.correlate on the dense array (mode="constant", cropped to the valid
            region), the dense baseline;
  scatter   the best hand-written sparse scatter: every stored entry times every filter tap,
            accumulated into the dense output with one np.bincount;
  shifted   scipy.sparse's idiom: the sum over the filter of weight * (the CSR input sliced by
            the tap's offset) (2-D only);
  einsum    for the NHWC layer: numpy.tensordot over a sliding-window view (BLAS, one thread).
  mlir      the MLIR sparsifier (mlir-opt-22 --sparsifier, the convolution paper's own system) on
            the same input in the same level format (mlir_peer.py); optional: the column is
            absent when mlir-22-tools and llvm-22 are not installed.
"""
import argparse
import json
import os
import sys
import time

for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[v] = "1"

import numpy as np  # noqa: E402
import scipy.ndimage as ndi  # noqa: E402
import scipy.sparse as sp  # noqa: E402

import siskin_native as native  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlir_peer  # noqa: E402

MLIR_DIR = mlir_peer.workdir() if mlir_peer.available() else None


def timed(f, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        out = f()
        times.append((time.perf_counter_ns() - t0) / 1e6)
    return min(times), out


def random_array(shape, density, seed):
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    a = np.zeros(shape)
    a[mask] = rng.integers(1, 9, size=int(mask.sum())).astype(float)
    return a


def siskin_dense(prog):
    d = prog.outputs()["O"]
    return np.asarray(d["values"]).reshape(d["shape"])


def valid_correlate(a, f):
    full = ndi.correlate(a, f, mode="constant", origin=0)
    lo = [k // 2 for k in f.shape]
    return full[tuple(slice(l, l + n - k + 1) for l, n, k in zip(lo, a.shape, f.shape))]


def scatter(coords, vals, f, out_shape):
    """Every stored entry times every tap, into the valid output with one bincount."""
    taps = np.argwhere(f != 0)
    flat, weights = [], []
    for tap in taps:
        c = coords - tap  # output coordinate of entry c under tap
        ok = np.all((c >= 0) & (c < np.array(out_shape)), axis=1)
        flat.append(np.ravel_multi_index(tuple(c[ok].T), out_shape))
        weights.append(vals[ok] * f[tuple(tap)])
    n = int(np.prod(out_shape))
    return np.bincount(np.concatenate(flat), np.concatenate(weights), minlength=n).reshape(out_shape)


def shifted_csr(a_csr, f, out_shape):
    X, Y = out_shape
    out = None
    for p in range(f.shape[0]):
        for q in range(f.shape[1]):
            if f[p, q] == 0:
                continue
            term = a_csr[p:p + X, q:q + Y] * f[p, q]
            out = term if out is None else out + term
    return out.toarray()


CONV = {
    1: "O[x] += I[x+i] * F[i]",
    2: "O[x,y] += I[x+i, y+j] * F[i,j]",
    3: "O[x,y,z] += I[x+i, y+j, z+k] * F[i,j,k]",
}


def kinds_of(fmt, ndims):
    """Level kinds of a format spelled level(mode)/..., in mode order 0..n-1, else None."""
    if fmt == "dense":
        return ["dense"] * ndims
    kinds = []
    for k, part in enumerate(fmt.split("/")):
        kind, mode = part.rstrip(")").split("(")
        if int(mode) != k or kind not in ("dense", "sparselist"):
            return None
        kinds.append(kind)
    return kinds


def mlir_ms(op, shape, fmt, f, out_shape, siskin_tensor, ref, repeat):
    """The MLIR sparsifier on the same level buffers, or None when it is not installed."""
    kinds = kinds_of(fmt, len(shape))
    if MLIR_DIR is None or kinds is None or "sparselist" not in kinds:
        return None
    conv = mlir_peer.Conv(op, shape, kinds, f.shape, out_shape, MLIR_DIR)
    d = siskin_tensor.describe()
    bufs = []
    for lv in d["levels"]:
        if lv["kind"] == "sparselist":
            bufs += [np.asarray(lv["pos"], dtype=np.int32), np.asarray(lv["crd"], dtype=np.int32)]
    conv.bind(bufs, np.asarray(d["values"], dtype=np.float64), f)
    ms, out = timed(conv.run, repeat)
    assert np.allclose(out, ref), f"MLIR {fmt} disagrees"
    return ms


def conv_rows(dims, shape, fshape, density, formats, repeat, cache, seed):
    a = random_array(shape, density, seed)
    f = np.arange(1, int(np.prod(fshape)) + 1, dtype=float).reshape(fshape)
    out_shape = tuple(n - k + 1 for n, k in zip(shape, fshape))
    rows = []
    ref_ms, ref = timed(lambda: valid_correlate(a, f), repeat)
    coords = np.argwhere(a != 0)
    vals = a[tuple(coords.T)]
    peers = {"ndimage": ref_ms}
    ms, out = timed(lambda: scatter(coords, vals, f, out_shape), repeat)
    assert np.allclose(out, ref), "scatter disagrees"
    peers["scatter"] = ms
    if dims == 2:
        a_csr = sp.csr_matrix(a)
        ms, out = timed(lambda: shifted_csr(a_csr, f, out_shape), repeat)
        assert np.allclose(out, ref), "shifted CSR disagrees"
        peers["shifted"] = ms
    dense_input = native.dense(a)
    for fmt in formats:
        t = native.convert_compiled(dense_input, fmt)[0] if fmt != "dense" else dense_input
        prog = native.Program(CONV[dims], {"I": t, "F": native.dense(f)}, {"O": ""}, cache,
                              {"O": dims})
        runs = [prog.run() for _ in range(repeat)]
        got = siskin_dense(prog)
        assert np.allclose(got, ref), f"siskin {fmt} disagrees"
        ms = min(runs)
        empty_input = native.convert_compiled(native.dense(np.zeros(shape)), fmt)[0] if fmt != "dense" \
            else native.dense(np.zeros(shape))
        empty = native.Program(CONV[dims], {"I": empty_input, "F": native.dense(f)}, {"O": ""}, cache, {"O": dims})
        empty_ms = min(empty.run() for _ in range(repeat))
        row_peers = dict(peers)
        m = mlir_ms(dims, shape, fmt, f, out_shape, t, ref, repeat)
        if m is not None:
            row_peers["mlir"] = m
        peers_here = row_peers
        rows.append({"kernel": f"conv{dims}d", "shape": "x".join(map(str, shape)),
                     "filter": "x".join(map(str, fshape)), "density": density, "format": fmt,
                     "siskin_ms": ms, "siskin_empty_ms": empty_ms, "peers_ms": peers_here,
                     "ratios": {k: v / ms for k, v in peers_here.items()}})
    return rows


def stencil_rows(shape, density, formats, repeat, cache, seed):
    """The sum of shifted sparse reads: a 9-point 2-D or 7-point 3-D stencil, one read per
    neighbour (a union of that many sparse operands), against scipy's sum of shifted slices."""
    a = random_array(shape, density, seed)
    nd = len(shape)
    idx = "xyz"[:nd]
    if nd == 2:
        taps = [(p, q) for p in range(3) for q in range(3)]
    else:
        taps = [(1, 1, 1)] + [tuple(1 + (d == k) * s for d in range(3)) for k in range(3) for s in (-1, 1)]
    reads = [f"I[{', '.join(f'{i}+{t}' for i, t in zip(idx, tap))}]" for tap in taps]
    text = f"O[{', '.join(idx)}] = " + " + ".join(reads)
    out_shape = tuple(n - 2 for n in shape)

    def shifted():
        if nd == 2:
            c = sp.csr_matrix(a)
            return sum(c[p:p + out_shape[0], q:q + out_shape[1]] for p, q in taps).toarray()
        return sum(a[tuple(slice(t, t + n) for t, n in zip(tap, out_shape))] for tap in taps)

    ref_ms, ref = timed(shifted, repeat)
    rows = []
    for fmt in formats:
        t = native.convert_compiled(native.dense(a), fmt)[0]
        t0 = time.perf_counter()
        prog = native.Program(text, {"I": t}, {"O": ""}, cache, {"O": nd})
        compile_s = time.perf_counter() - t0
        runs = [prog.run() for _ in range(repeat)]
        assert np.allclose(siskin_dense(prog), ref), f"siskin {fmt} disagrees on the stencil"
        ms = min(runs)
        peer = "shifted" if nd == 2 else "numpy"
        rows.append({"kernel": f"stencil{len(taps)}", "shape": "x".join(map(str, shape)), "filter": f"{len(taps)} reads",
                     "density": density, "format": fmt, "siskin_ms": ms, "compile_s": compile_s,
                     "peers_ms": {peer: ref_ms}, "ratios": {peer: ref_ms / ms}})
    return rows


def nhwc_rows(shape, fshape, density, formats, repeat, cache, seed):
    """O[n,h,w,f] += I[n, h+r, w+q, c] * F[r,q,c,f] (a ResNet-style layer)."""
    a = random_array(shape, density, seed)
    f = np.random.default_rng(seed + 1).standard_normal(fshape)
    R, Q = fshape[0], fshape[1]

    def dense():
        win = np.lib.stride_tricks.sliding_window_view(a, (R, Q), axis=(1, 2))  # n,h,w,c,r,q
        return np.tensordot(win, f, axes=([4, 5, 3], [0, 1, 2]))

    ref_ms, ref = timed(dense, repeat)
    rows = []
    for fmt in formats:
        t = native.convert_compiled(native.dense(a), fmt)[0]
        prog = native.Program("O[n,h,w,f] += I[n, h+r, w+q, c] * F[r,q,c,f]", {"I": t, "F": native.dense(f)},
                              {"O": ""}, cache, {"O": 4})
        runs = [prog.run() for _ in range(repeat)]
        assert np.allclose(siskin_dense(prog), ref), f"siskin {fmt} disagrees on the NHWC layer"
        ms = min(runs)
        peers = {"einsum": ref_ms}
        out_shape = (shape[0], shape[1] - R + 1, shape[2] - Q + 1, fshape[3])
        m = mlir_ms("nhwc", shape, fmt, f, out_shape, t, ref, repeat)
        if m is not None:
            peers["mlir"] = m
        rows.append({"kernel": "nhwc", "shape": "x".join(map(str, shape)), "filter": "x".join(map(str, fshape)),
                     "density": density, "format": fmt, "siskin_ms": ms, "peers_ms": peers,
                     "ratios": {k: v / ms for k, v in peers.items()}})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller shapes, fewer densities")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None, help="JSON file for the rows")
    ap.add_argument("--only", default=None, help="comma-separated kernels: conv1d,conv2d,conv3d,nhwc,stencil")
    ap.add_argument("--densities", default=None,
                    help="comma-separated densities of the convolution rows (default 0.5,0.25,0.1,0.01,0.001)")
    ap.add_argument("--cache", default=os.path.expanduser("~/.cache/siskin-bench-conv"))
    opts = ap.parse_args(sys.argv[1:])
    q = opts.quick
    densities = [float(d) for d in opts.densities.split(",")] if opts.densities else [0.5, 0.25, 0.1, 0.01, 0.001]
    plans = [
        (1, (100_000 if q else 1_000_000,), (3,), ["sparselist(0)"]),
        (2, (500, 500) if q else (2000, 2000), (3, 3), ["dense(0)/sparselist(1)", "sparselist(0)/sparselist(1)"]),
        (3, (48, 48, 48) if q else (128, 128, 128), (3, 3, 3),
         ["dense(0)/dense(1)/sparselist(2)", "sparselist(0)/sparselist(1)/sparselist(2)"]),
    ]
    only = set(opts.only.split(",")) if opts.only else None
    rows = []
    for dims, shape, fshape, formats in plans:
        if only and f"conv{dims}d" not in only:
            continue
        for d in densities:
            rows += conv_rows(dims, shape, fshape, d, formats, opts.repeat, opts.cache, seed=dims)
            print_row(rows[-len(formats):])
    nhwc_shape = (1, 32, 32, 16) if q else (1, 128, 128, 64)
    nhwc_filter = (3, 3, 16, 16) if q else (3, 3, 64, 64)
    for d in [0.1, 0.01, 0.001] if not only or "nhwc" in only else []:
        rows += nhwc_rows(nhwc_shape, nhwc_filter, d, ["dense(0)/dense(1)/dense(2)/sparselist(3)",
                                                        "dense(0)/sparselist(1)/sparselist(2)/sparselist(3)"],
                          opts.repeat, opts.cache, seed=7)
        print_row(rows[-2:])
    if not only or "stencil" in only:
        # CSR, DCSR (the k-way merge at both levels: rows, then the entries of the rows present)
        # and COO (one level over both dimensions); in 3-D the same three shapes.
        stencil_formats = {2: ["dense(0)/sparselist(1)", "sparselist(0)/sparselist(1)", "coo"],
                           3: ["dense(0)/dense(1)/sparselist(2)", "sparselist(0)/sparselist(1)/sparselist(2)", "coo"]}
        for d in [0.1, 0.01]:
            rows += stencil_rows((500, 500) if q else (2000, 2000), d, stencil_formats[2],
                                 opts.repeat, opts.cache, seed=11)
            print_row(rows[-3:])
            rows += stencil_rows((48, 48, 48) if q else (128, 128, 128), d, stencil_formats[3],
                                 opts.repeat, opts.cache, seed=12)
            print_row(rows[-3:])
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(rows, f, indent=1)


def print_row(rows):
    for r in rows:
        ratios = "  ".join(f"{k} {v:6.2f}x" for k, v in r["ratios"].items())
        empty = f" (empty {r['siskin_empty_ms']:.3f})" if "siskin_empty_ms" in r else ""
        print(f"{r['kernel']:7s} {r['shape']:>13s} {r['filter']:>8s} density {r['density']:<6} "
              f"{r['format']:45s} siskin {r['siskin_ms']:9.3f} ms{empty}   {ratios}", flush=True)


if __name__ == "__main__":
    main()
