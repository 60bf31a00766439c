"""bench/run-peers driver: siskin against scipy.sparse, pydata/sparse and SuiteSparse:GraphBLAS in
one process (run inside bench/peers/siskin_peers, which provides the module `siskin_native`).

For each input and workload: build every library's operands (outside timing), compile the
siskin program (compile time recorded apart), warm every library up, check every peer's result
equal to siskin's (a mismatch fails the command), then time them interleaved, round by round
(siskin, scipy, pydata, GraphBLAS, siskin, ...), each library getting at least --min-runs runs
and more when a run is short, spread evenly over the rounds. Median and min are reported.
"""
import argparse
import gc
import signal
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# NumPy, SciPy and numba single-threaded: set before they load their thread pools (siskin and
# GraphBLAS take each row's thread count explicitly).
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
            "NUMBA_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[var] = "1"

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import sparse  # noqa: E402

import siskin_native as native  # noqa: E402

import inputs as inputs_mod  # noqa: E402
import machine  # noqa: E402
import operands  # noqa: E402
import report  # noqa: E402
from workloads import BY_NAME, WORKLOADS, Runner, same, siskin_value  # noqa: E402

MEMORY_NOTE = ("peak memory: one run in a forked child after malloc_trim and siskin's release_free_memory, with "
               "the file pages mapped (MADV_POPULATE_READ) and the peak RSS reset (/proc/self/clear_refs 5); "
               "extra = VmHWM - VmRSS before the run")


def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field + " not in /proc/self/status")


MADV_POPULATE_READ = 22  # Linux 5.14+


def _map_file_pages():
    """Fork copies no page-table entries of file mappings (code and read-only data, which the
    kernel can fault in again from the page cache), so a forked child's first run faults in every
    code page it executes, about 1 MB that is the parent's page cache, not memory the run
    allocates. Mapping the readable file pages up front (MADV_POPULATE_READ) leaves only the run's
    own pages to the measurement; on an older kernel the call fails and that floor stays."""
    import ctypes
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    with open("/proc/self/maps") as f:
        spans = [line.split() for line in f]
    for parts in spans:
        if len(parts) >= 6 and parts[5].startswith("/") and parts[1].startswith("r"):
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            libc.madvise(lo, hi - lo, MADV_POPULATE_READ)  # errors (a page past the file's end) are harmless


def peak_extra_bytes(run):
    """Bytes the peak resident set grows by during one run(), measured in a forked child (so the
    parent's heap is untouched): free heap pages go back to the system first (malloc_trim), so a
    run's allocations show as new resident pages, then the peak is reset to the current RSS. None
    where the kernel cannot reset the peak."""
    import ctypes
    r, w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            gc.collect()
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            native.release_free_memory()  # siskin's kept pages too, so neither allocator's reuse hides a page
            _map_file_pages()
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
            before = _status_kb("VmRSS")
            run()
            os.write(w, str((_status_kb("VmHWM") - before) * 1024).encode())
        except BaseException:
            pass
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        text = f.read()
    os.waitpid(pid, 0)
    return int(text) if text else None

PEERS = ["scipy", "pydata", "graphblas"]
LIBS = ["siskin"] + PEERS


class Context:
    """Every library's operands for one input, built once (the sparse array programming ones,
    ctx.ops, when a workload first asks). A 3-tensor gets only ctx.ops."""

    def __init__(self, a):
        self.gb = native.graphblas
        if isinstance(a, inputs_mod.Tensor3):
            self.ops = operands.Operands(native, operands.Coords(a.shape, a.coords, a.vals, 0.0))
            return
        self.ops = operands.Operands(native, operands.Coords.of_matrix(a))
        rng = np.random.default_rng(inputs_mod.SEED + 7)
        m, n = a.shape
        self.A = a
        self.B = inputs_mod.second_operand(a)
        self.x = rng.uniform(-1.0, 1.0, n)
        self.xt = rng.uniform(-1.0, 1.0, m)
        self.D = rng.uniform(-1.0, 1.0, (n, 32))
        # pydata/sparse: COO, its main format; GCXS (its CSR) for the conversion.
        self.pA = sparse.COO.from_scipy_sparse(a)
        self.pB = sparse.COO.from_scipy_sparse(self.B)
        self.pG = sparse.GCXS.from_scipy_sparse(a)
        # GraphBLAS: row-major matrices, full vectors and a full row-major B for SpMM.
        self.gb = native.graphblas
        self.gA = self._gb_matrix(a)
        self.gB = self._gb_matrix(self.B)
        self.gx = self.gb.dense_vector(self.x)
        self.gxt = self.gb.dense_vector(self.xt)
        self.gD = self.gb.dense_matrix(self.D)
        # siskin: CSR with 32-bit indices, dense vectors and matrices.
        self.sA = self._siskin_csr(a)
        self.sB = self._siskin_csr(self.B)
        self.sx = native.dense(self.x)
        self.sxt = native.dense(self.xt)
        self.sD = native.dense(self.D)

    def _gb_matrix(self, a):
        c = a.tocoo()
        return self.gb.from_coo(a.shape[0], a.shape[1], c.row.astype(np.int64), c.col.astype(np.int64), c.data)

    @staticmethod
    def _siskin_csr(a):
        return native.compressed(list(a.shape), "csr", a.indptr.astype(np.int32), a.indices.astype(np.int32),
                                 a.data)


def finishes_within(run, limit_s):
    """Whether one run finishes within limit_s seconds, tried in a forked child (killed when
    over), so a kernel whose cost explodes cannot stall the whole command."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            run()
            os._exit(0)
        except BaseException:
            os._exit(3)
    deadline = time.time() + limit_s
    while time.time() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return True  # a failure shows again in the parent's own run, with its message
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return False


def spgemm_flops(a):
    """Multiply-adds of A*A: sum over k of (entries in column k) * (entries in row k)."""
    return int((np.diff(a.indptr) * np.bincount(a.indices, minlength=a.shape[1])).sum())


def run_counts(estimates, opts):
    """Runs per library: enough to fill the time budget, at least min_runs (fewer only for a
    library whose min_runs runs would exceed the slow cap: that row says so)."""
    counts, notes = {}, {}
    for lib, ms in estimates.items():
        ms = max(ms, 1e-4)
        n = int(opts.budget_s * 1e3 / ms)
        n = max(opts.min_runs, min(n, opts.max_runs))
        if ms * opts.min_runs > opts.slow_cap_s * 1e3:
            n = max(3, int(opts.slow_cap_s * 1e3 / ms))
            notes[lib] = f"only {n} runs: one run takes {ms / 1e3:.1f} s"
        counts[lib] = n
    return counts, notes


def interleaved(runners, counts):
    """Round-robin timing; a library with fewer runs than the most is spread evenly over the
    rounds, so machine drift hits every library alike."""
    rounds = max(counts.values())
    samples = {lib: [] for lib in runners}
    gc.disable()
    try:
        for k in range(rounds):
            for lib, r in runners.items():
                n = counts[lib]
                if (k + 1) * n // rounds > k * n // rounds:
                    ms, result = r.run()
                    del result
                    samples[lib].append(ms)
    finally:
        gc.enable()
    return samples


SINGLE_THREADED = ("scipy", "pydata")  # no thread count to set: they run at 1 thread only


def measure(workload, inp, ctx, opts, cache_dir, threads=1):
    row = {"workload": workload.name, "title": workload.title, "input": inp, "program": workload.text(ctx),
           "libs": {}, "ratios": {}, "threads": threads}
    runners = {}
    row["family"] = workload.family
    if workload.name == "spgemm":
        flops = spgemm_flops(ctx.A)
        row["spgemm_flops"] = flops
        if flops > opts.spgemm_max_flops:
            for lib in LIBS:
                row["libs"][lib] = {"status": "not run", "note": f"A*A needs {flops:.3g} multiply-adds, over "
                                    f"--spgemm-max-flops {opts.spgemm_max_flops:.3g}"}
            return row
    # siskin: compile (timed apart), then its runner.
    prog = None
    row["program"] = workload.text(ctx)
    try:
        formats, ndims = workload.outputs(ctx)
        prog = native.Program(row["program"], workload.siskin_inputs(ctx), formats, cache_dir, ndims,
                              workload.shapes(ctx), threads)
        row["siskin_compile_ms"] = prog.compile_ms
        row["siskin_c_compiler_ms"] = prog.c_compiler_ms
        row["siskin_cache"] = prog.cache
        value = (siskin_value if workload.family in ("core", "slicing", "shape") and not workload.entries
                 else operands.siskin_entries)
        runners["siskin"] = Runner(lambda: (prog.run(), prog), lambda p: value(p.outputs()))
    except native.SiskinError as e:
        msg = str(e)
        status = "unsupported" if msg.startswith("Unsupported") else "error"
        if workload.new_syntax:  # e.g. slices before the slicing branch is merged: a note, not a failure
            status, msg = "not run", "this siskin build refuses the program: " + msg
        row["libs"]["siskin"] = {"status": status, "note": msg.splitlines()[0]}
    for peer in PEERS:
        if peer not in opts.peers:
            row["libs"][peer] = {"status": "not run", "note": "not selected (--peers)"}
            continue
        if threads > 1 and peer in SINGLE_THREADED:
            row["libs"][peer] = {"status": "not run", "note": "single-threaded library"}
            continue
        if peer not in workload.peers:
            row["libs"][peer] = {"status": "cannot", "note": f"{peer} has no such operation"}
            continue
        runners[peer] = workload.peers[peer](ctx)

    all_runners = dict(runners)
    # Warm-up (two runs: the first may JIT, e.g. numba in pydata) and the estimate of one run.
    # A library whose first run exceeds the slow cap runs once only (that run is its sample).
    values, estimates, single = {}, {}, {}
    for lib, r in list(runners.items()):
        # Only siskin is guarded: its loop structure is the compiler's choice; the peers' are fixed
        # (and a forked try would throw away pydata's numba compile).
        if lib == "siskin" and workload.guarded and not finishes_within(r.run, opts.run_limit_s):
            row["libs"][lib] = {"status": "too slow",
                                "note": f"one run did not finish within --run-limit-s {opts.run_limit_s:g} s"}
            runners.pop(lib)
            continue
        try:
            ms, result = r.run()
            if ms > opts.slow_cap_s * 1e3:  # maybe a one-time cost (pydata's numba JIT): once more
                del result
                ms, result = r.run()
            if ms > opts.slow_cap_s * 1e3:
                single[lib] = ms
                del runners[lib]
            else:
                ms, result = r.run()
                estimates[lib] = ms
            values[lib] = r.to_value(result)
            del result
        except Exception as e:  # a library that fails is reported, not skipped
            status = "unsupported" if str(e).startswith("Unsupported") else "error"
            row["libs"][lib] = {"status": status, "note": f"{type(e).__name__}: {str(e).splitlines()[0]}"}
            runners.pop(lib, None)

    # The conversion row times the copy kernel convert_compiled builds; check it is the same.
    if workload.name == "csr2csc" and "siskin" in values:
        t, compiled, reason = native.convert_compiled(ctx.sA, "csc")
        ok, detail = same(values["siskin"], siskin_value({"B": t.describe()}))
        if not ok or not compiled:
            row["libs"]["siskin"] = {"status": "error", "note": "differs from convert_compiled: " +
                                     (detail or "it fell back to the runtime: " + reason)}
            for d in (runners, values, estimates, single):
                d.pop("siskin", None)

    # Equality before any ratio: every peer against siskin.
    if "siskin" in values:
        for peer in PEERS:
            if peer in values:
                ok, detail = same(values["siskin"], values[peer])
                if not ok:
                    row["libs"][peer] = {"status": "mismatch", "note": detail}
                    runners.pop(peer, None)
                    estimates.pop(peer, None)
                    single.pop(peer, None)

    counts, notes = run_counts(estimates, opts)
    samples = interleaved(runners, counts) if runners else {}
    for lib, ms in single.items():
        samples[lib] = [ms]
        notes[lib] = f"1 run only: it takes {ms / 1e3:.1f} s, over the slow cap of {opts.slow_cap_s:g} s"
    for lib, s in samples.items():
        entry = {"status": "ok", "median_ms": statistics.median(s), "min_ms": min(s), "runs": len(s)}
        note = "; ".join(x for x in (all_runners[lib].note, notes.get(lib, "")) if x)
        if lib != "siskin" and "siskin" not in values:
            note = "; ".join(x for x in (note, "not checked: siskin has no result") if x)
        if note:
            entry["note"] = note
        row["libs"][lib] = entry
    s = row["libs"].get("siskin", {})
    if s.get("status") == "ok":
        for peer in PEERS:
            p = row["libs"].get(peer, {})
            if p.get("status") == "ok":
                row["ratios"][peer] = p["median_ms"] / s["median_ms"]
        if workload.bytes_model is not None:
            if workload.bytes_model == "io":  # every input and output buffer, once
                nbytes = sum(t.nbytes() for t in workload.siskin_inputs(ctx).values()) + prog.output_bytes
            else:
                nbytes = workload.bytes_model(ctx, values["siskin"])
            gbs = nbytes / (s["median_ms"] * 1e-3) / 1e9
            # Against the triad of as many threads as the row ran on (one core's, or every core's).
            triad = opts.stream["triad_gbs"] if threads == 1 else opts.stream["triad_gbs_all"]
            row["bandwidth"] = {"bytes": int(nbytes), "gbs": gbs, "fraction_of_triad": gbs / triad}
    if workload.memory and "siskin" in values:
        mem = {"inputs_bytes": int(sum(t.nbytes() for t in workload.siskin_inputs(ctx).values())),
               "output_bytes": int(prog.output_bytes), "method": MEMORY_NOTE}
        mem["noop_extra_bytes"] = peak_extra_bytes(lambda: (0.0, None))  # the method's own floor
        mem["siskin_extra_bytes"] = peak_extra_bytes(all_runners["siskin"].run)
        if "pydata" in values:
            mem["pydata_extra_bytes"] = peak_extra_bytes(all_runners["pydata"].run)
        row["memory"] = mem
    return row


def find_matrices(root):
    """shared/data/matrices beside the checkout or beside one of its parents (a worktree)."""
    d = os.path.abspath(root)
    while True:
        cand = os.path.join(os.path.dirname(d), "shared", "data", "matrices")
        if os.path.isdir(cand):
            return cand
        if os.path.dirname(d) == d:
            sys.exit("no shared/data/matrices found above " + root + "; pass --matrices or set SISKIN_MATRICES")
        d = os.path.dirname(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 inputs, short budgets (under 2 minutes)")
    ap.add_argument("--inputs", help="comma-separated input names (default: the full or quick set)")
    ap.add_argument("--workloads", help="comma-separated workload names (default: all)")
    ap.add_argument("--peers", help="comma-separated peers to run: scipy,pydata,graphblas (default all; "
                    "--quick leaves out pydata, whose numba warm-up alone takes a minute)")
    ap.add_argument("--out", help="results directory (default bench/results, or bench/results/quick)")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)), help="repository root")
    ap.add_argument("--matrices", help="directory of the .mtx files (default $SISKIN_MATRICES, else the first "
                    "shared/data/matrices beside ROOT or one of its parents)")
    ap.add_argument("--stream", required=True, help="the stream_probe executable")
    ap.add_argument("--threads", default="1,2",
                    help="comma-separated thread counts: every row runs at each (siskin's CompileOptions::threads, "
                    "GraphBLAS's GxB_NTHREADS; scipy and pydata at 1 only). Default 1,2")
    ap.add_argument("--min-runs", type=int, default=20)
    ap.add_argument("--budget-s", type=float, help="timing budget per library per row, seconds")
    ap.add_argument("--max-runs", type=int)
    ap.add_argument("--slow-cap-s", type=float,
                    help="seconds: a library whose min-runs runs would take longer gets fewer (at least 3); one "
                    "whose single run takes longer runs once (default 10, quick 1)")
    ap.add_argument("--run-limit-s", type=float,
                    help="seconds: for SpGEMM and the conversion, whose cost can explode, one siskin run is first "
                    "tried in a forked child; over this limit the row says 'too slow' (default 60, quick 5)")
    ap.add_argument("--spgemm-max-flops", type=float,
                    help="leave out SpGEMM (with a row saying so) on inputs needing more multiply-adds "
                    "(default 45e6, quick 10e6)")
    opts = ap.parse_args(sys.argv[1:])
    quick = opts.quick
    opts.budget_s = opts.budget_s or (0.05 if quick else 0.4)
    opts.max_runs = opts.max_runs or (200 if quick else 2000)
    opts.slow_cap_s = opts.slow_cap_s or (1.0 if quick else 10.0)
    opts.run_limit_s = opts.run_limit_s or (5.0 if quick else 60.0)
    opts.spgemm_max_flops = opts.spgemm_max_flops or (10e6 if quick else 45e6)
    opts.matrices = opts.matrices or os.environ.get("SISKIN_MATRICES") or find_matrices(opts.root)
    opts.out = opts.out or os.path.join(opts.root, "bench", "results", "quick" if quick else "")
    input_names = opts.inputs.split(",") if opts.inputs else (
        inputs_mod.QUICK if quick else inputs_mod.REAL_FULL + inputs_mod.SYNTHETIC_FULL)
    opts.peers = opts.peers.split(",") if opts.peers else (["scipy", "graphblas"] if quick else PEERS)
    unknown = [p for p in opts.peers if p not in PEERS]
    if unknown:
        sys.exit(f"unknown peer {unknown[0]}: choose from {', '.join(PEERS)}")
    workloads = [BY_NAME[w] for w in opts.workloads.split(",")] if opts.workloads else WORKLOADS
    thread_counts = [int(t) for t in opts.threads.split(",")]
    if any(t < 1 for t in thread_counts):
        sys.exit("--threads: give positive thread counts, e.g. 1,2")

    t_start = time.time()
    info = machine.describe(native)
    info["load_at_start"] = os.getloadavg()
    if native.graphblas.nthreads() != 1:
        sys.exit("GraphBLAS is not single-threaded")
    print(f"siskin vs peers, {info['date']}\n{info['machine']}\n{info['versions']}", flush=True)
    stream = json.loads(subprocess.run([opts.stream], check=True, capture_output=True, text=True).stdout)
    opts.stream = stream
    print(f"memory bandwidth (STREAM-style): one core copy {stream['copy_gbs']:.2f} GB/s, "
          f"triad {stream['triad_gbs']:.2f} GB/s; {stream['threads_all']} threads copy "
          f"{stream['copy_gbs_all']:.2f} GB/s, triad {stream['triad_gbs_all']:.2f} GB/s", flush=True)
    cache_dir = tempfile.mkdtemp(prefix="siskin-peers-jit-")  # empty: the first compile of each kernel is real

    rows, input_info = [], {}
    for inp in input_names:
        t0 = time.time()
        a, desc = inputs_mod.load(inp, opts.matrices)
        ctx = Context(a)
        input_info[inp] = {"description": desc, "rows": a.shape[0], "cols": a.shape[1], "nnz": int(a.nnz),
                           "nnz_B": int(ctx.B.nnz) if hasattr(ctx, "B") else None}
        if len(a.shape) == 3:
            input_info[inp]["dims"] = list(a.shape)
        print(f"\n== {inp}: {'x'.join(map(str, a.shape))}, {a.nnz} nonzeros ({desc}; setup {time.time() - t0:.1f} s)",
              flush=True)
        order = 3 if isinstance(a, inputs_mod.Tensor3) else 2
        for w in workloads:
            if order not in w.ndims:  # e.g. SpMV on the 3-tensor: not a question to ask
                continue
            for threads in thread_counts:
                native.graphblas.set_nthreads(threads)
                row = measure(w, inp, ctx, opts, cache_dir, threads)
                rows.append(row)
                print(report.row_line(row), flush=True)
            native.graphblas.set_nthreads(1)
        del ctx

    info["load_at_end"] = os.getloadavg()
    info["wall_s"] = time.time() - t_start
    results = {"date": info["date"], "machine": info, "stream": stream, "quick": quick, "inputs": input_info,
               "options": {"min_runs": opts.min_runs, "budget_s": opts.budget_s, "max_runs": opts.max_runs,
                           "slow_cap_s": opts.slow_cap_s, "spgemm_max_flops": opts.spgemm_max_flops,
                           "run_limit_s": opts.run_limit_s, "threads": thread_counts},
               "rows": rows}
    os.makedirs(opts.out, exist_ok=True)
    if quick:  # developer runs are not committed
        with open(os.path.join(opts.out, ".gitignore"), "w") as f:
            f.write("*\n")
    with open(os.path.join(opts.out, "latest.json"), "w") as f:
        json.dump(results, f, indent=1)
    report.write(results, opts.out)
    print("\n" + report.table_text(results))
    print(f"\nwrote {opts.out}/latest.json, REPORT.md and plots ({info['wall_s']:.0f} s)")
    bad = [(r["workload"], r["input"], lib, e["note"]) for r in rows for lib, e in r["libs"].items()
           if e["status"] == "mismatch" or (lib == "siskin" and e["status"] == "error")]
    if bad:
        for b in bad:
            print("FAILED: {} on {}: {}: {}".format(*b), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
