"""The printed table, REPORT.md and the plots of a run (from the results dictionary)."""
import math
import os

PEERS = ["scipy", "pydata", "graphblas"]
PEER_TITLES = {"scipy": "scipy.sparse", "pydata": "pydata/sparse", "graphblas": "GraphBLAS"}


def load_remark(machine):
    """Whether other work shared the machine: a load average above the core count (the first
    number of the machine line) makes absolute times noisy, while interleaving keeps ratios fair."""
    cores = int(machine["machine"].split(" cores")[0].rsplit(", ", 1)[-1])
    if max(machine["load_at_start"][0], machine["load_at_end"][0]) > cores:  # 1-minute averages
        return (" (above the core count: other work shared the machine during the run, so absolute "
                "times are noisy; the interleaving keeps ratios fair).")
    return " (at or below the core count: the machine was quiet)."


def _ms(e):
    if e is None:
        return "-"
    if e["status"] == "ok":
        return f"{e['median_ms']:.3g}" + ("*" if e.get("note") else "")
    return e["status"]


def _ratio(row, peer):
    r = row["ratios"].get(peer)
    return f"{r:.2f}x" if r is not None else "-"


def threads_of(row):
    return row.get("threads", 1)


def label(row):
    """The workload, with the thread count when above 1: rows are grouped by it."""
    t = threads_of(row)
    return row["workload"] if t == 1 else f"{row['workload']} [{t} threads]"


def row_line(row):
    """One progress line per measured row."""
    s = row["libs"].get("siskin")
    parts = [f"{row['workload']:8s} t{threads_of(row)} siskin {_ms(s):>9s} ms"]
    if "siskin_compile_ms" in row:
        parts.append(f"(compile {row['siskin_compile_ms']:.0f} ms, {row['siskin_cache']})")
    for p in PEERS:
        parts.append(f"{p} {_ms(row['libs'].get(p)):>9s} ({_ratio(row, p)})")
    if "bandwidth" in row:
        parts.append(f"bw {100 * row['bandwidth']['fraction_of_triad']:.0f}%")
    for lib, e in row["libs"].items():
        if e["status"] != "ok":
            parts.append(f"[{lib}: {e['note']}]")
    return "  ".join(parts)


HEADER = ["workload", "input", "threads", "siskin ms", "scipy ms", "ratio", "pydata ms", "ratio", "GraphBLAS ms", "ratio",
          "BW %"]


def _cells(row):
    cells = [row["workload"], row["input"], str(threads_of(row)), _ms(row["libs"].get("siskin"))]
    for p in PEERS:
        cells += [_ms(row["libs"].get(p)), _ratio(row, p)]
    cells.append(f"{100 * row['bandwidth']['fraction_of_triad']:.0f}" if "bandwidth" in row else "")
    return cells


def stream_text(stream):
    """The probe's copy and triad rates, one core and (when measured) every core."""
    text = f"one core copy {stream['copy_gbs']:.2f} GB/s, triad {stream['triad_gbs']:.2f} GB/s"
    if "triad_gbs_all" in stream:
        text += (f"; {stream['threads_all']} threads copy {stream['copy_gbs_all']:.2f} GB/s, "
                 f"triad {stream['triad_gbs_all']:.2f} GB/s")
    return text


def table_text(results):
    rows = [HEADER] + [_cells(r) for r in results["rows"]]
    widths = [max(len(r[k]) for r in rows) for k in range(len(HEADER))]
    lines = ["  ".join(c.rjust(w) if k >= 3 else c.ljust(w) for k, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    lines.append("ratio = peer median / siskin median (> 1: siskin faster). * = see the note in REPORT.md. "
                 "BW % = siskin's share of the triad bandwidth at the row's thread count.")
    return "\n".join(lines)


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summary(results):
    """{peer: {workload: geomean ratio}} and the overall geomean per peer."""
    per = {p: {} for p in PEERS}
    workloads = []
    for r in results["rows"]:
        if label(r) not in workloads:
            workloads.append(label(r))
    for p in PEERS:
        for w in workloads:
            per[p][w] = geomean([r["ratios"].get(p) for r in results["rows"] if label(r) == w])
        per[p]["all"] = geomean([r["ratios"].get(p) for r in results["rows"]])
    return per, workloads


def plot(results, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results["rows"]
    workloads = list(dict.fromkeys(r["workload"] for r in rows))
    inputs = list(dict.fromkeys(r["input"] for r in rows))
    cmap = plt.get_cmap("tab10")
    files = []

    peers = [p for p in PEERS if any(p in r["ratios"] for r in rows)]
    fig, axes = plt.subplots(len(peers), 1, figsize=(max(10, len(workloads) * 1.2), 3.6 * len(peers)), sharex=True,
                             squeeze=False)
    axes = axes[:, 0]
    width = 0.8 / max(1, len(inputs))
    for ax, peer in zip(axes, peers):
        for k, inp in enumerate(inputs):
            xs, ys = [], []
            for wi, w in enumerate(workloads):
                for r in rows:
                    if r["workload"] == w and r["input"] == inp and peer in r["ratios"]:
                        xs.append(wi - 0.4 + width * (k + 0.5))
                        ys.append(r["ratios"][peer])
            # Bars grow from 1 (equal speed): up where siskin is faster, down where slower.
            ax.bar(xs, [y - 1 for y in ys], bottom=1, width=width, color=cmap(k % 10), label=inp)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel(f"{PEER_TITLES[peer]} time / siskin time")
        ax.set_title(f"siskin vs {PEER_TITLES[peer]} (above 1: siskin faster)", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[-1].set_xticks(range(len(workloads)))
    axes[-1].set_xticklabels(workloads, rotation=30)
    axes[0].legend(fontsize=7, ncol=min(5, len(inputs)), loc="upper right")
    fig.tight_layout()
    path = os.path.join(out_dir, "ratios.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    files.append(path)

    bw_workloads = [w for w in workloads if any("bandwidth" in r for r in rows if r["workload"] == w)]
    if bw_workloads:
        fig, ax = plt.subplots(figsize=(max(8, len(bw_workloads) * 1.2), 4))
        for k, inp in enumerate(inputs):
            xs, ys = [], []
            for wi, w in enumerate(bw_workloads):
                for r in rows:
                    if r["workload"] == w and r["input"] == inp and "bandwidth" in r:
                        xs.append(wi - 0.4 + width * (k + 0.5))
                        ys.append(r["bandwidth"]["fraction_of_triad"])
            ax.bar(xs, ys, width=width, color=cmap(k % 10), label=inp)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(bw_workloads)))
        ax.set_xticklabels(bw_workloads, rotation=30)
        ax.set_ylabel("siskin bytes/s / triad bandwidth")
        ax.set_title(f"Fraction of the measured triad bandwidth at the row's thread count "
                     f"({stream_text(results['stream'])}) siskin reaches", fontsize=10)
        ax.grid(axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=min(5, len(inputs)))
        fig.tight_layout()
        path = os.path.join(out_dir, "bandwidth.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        files.append(path)
    return files


# The sparse array programming families (a workload's `family` names one): title, peer, and
# issue 4's goal for siskin's geometric-mean speed-up over that peer. Kept here, not in
# workloads.py, so that report.py can regenerate a report from a results file alone.
FAMILIES = {
    "ufunc": ("Single ufuncs against pydata/sparse", "pydata", 10.0),
    "fused": ("Fused ufuncs against pydata/sparse (unfused there)", "pydata", 20.0),
    "masked_mxv": ("Masked mxv against SuiteSparse:GraphBLAS", "graphblas", 1.3),
    "masked_mxm": ("Masked mxm against SuiteSparse:GraphBLAS", "graphblas", None),
    "slicing": ("Slicing and striding against scipy.sparse", "scipy", 3.0),
    "shape": ("Shape operators (issue 17) against scipy.sparse", "scipy", 3.9),
}


def _mb(b):
    return "-" if b is None else f"{b / 1e6:.2f}"


def family_sections(results):
    """REPORT.md lines: per family, its rows with the ratio to its peer, and the geometric mean
    next to issue 4's goal."""
    lines = []
    for fam, (title, peer, goal) in FAMILIES.items():
        rows = [r for r in results["rows"] if r.get("family") == fam]
        if not rows:
            continue
        g = geomean([r["ratios"].get(peer) for r in rows])
        measured = f"{g:.2f}x" if g else "no ratio in this run"
        if not g and all("not selected" in r["libs"].get(peer, {}).get("note", "") for r in rows):
            measured += f" ({PEER_TITLES[peer]} not selected: --quick leaves out pydata/sparse; --peers adds it)"
        source = "issue 17" if fam == "shape" else "issue 4 item 10"
        verdict = "" if not (g and goal) else (" (goal met)" if g >= goal else " (goal not met)")
        lines += [f"## {title}", "",
                  f"Geometric mean of {PEER_TITLES[peer]} time / siskin time: **{measured}**" +
                  (f"; goal ({source}): >= {goal:g}x{verdict}." if goal else "; no goal set."), ""]
        header = ["workload", "input", "threads", "siskin ms", f"{PEER_TITLES[peer]} ms", "ratio", "BW"]
        with_mem = any("memory" in r for r in rows)
        if with_mem:
            header += ["inputs MB", "output MB", "siskin peak +MB", f"{PEER_TITLES[peer]} peak +MB", "no-op +MB"]
        trows = []
        for r in rows:
            c = [r["workload"], r["input"], threads_of(r), _ms(r["libs"].get("siskin")), _ms(r["libs"].get(peer)),
                 _ratio(r, peer),
                 f"{100 * r['bandwidth']['fraction_of_triad']:.0f}%" if "bandwidth" in r else ""]
            if with_mem:
                m = r.get("memory", {})
                c += [_mb(m.get("inputs_bytes")), _mb(m.get("output_bytes")), _mb(m.get("siskin_extra_bytes")),
                      _mb(m.get("pydata_extra_bytes")), _mb(m.get("noop_extra_bytes"))]
            trows.append(c)
        lines += [_md_table(header, trows), ""]
        progs = list(dict.fromkeys((r["workload"], r["program"]) for r in rows))
        lines += ["Programs:", ""] + [f"- {w}: `{p.strip()}`".replace("\n", " ") for w, p in progs] + [""]
        if with_mem:
            lines += ["Peak memory: one more run of each library in a forked child; the child first returns free "
                      "memory to the system (malloc_trim, and siskin's `release_free_memory` for the pages it keeps "
                      "for reuse), maps its file pages (`MADV_POPULATE_READ`: fork copies no page-table entries of "
                      "code, so a child's first run would fault in about 1 MB of code that is the parent's page "
                      "cache) and resets its peak resident set (`/proc/self/clear_refs` 5), then *peak +MB* = VmHWM "
                      "after the run - VmRSS before it: what the run allocated and touched beyond the inputs, which "
                      "are resident already. A fused kernel that keeps no temporary shows about the output's size: "
                      "a kernel run before starts its output arrays with the room they ended with last time, and "
                      "large arrays are mappings of their own that grow by mremap, without copying and without "
                      "touching unused room (runtime/siskin_memory.h); the unfused peer also holds the inner call's "
                      "result. *no-op +MB* is the same measurement around a call that does nothing: the method's "
                      "floor.", ""]
        for r in rows:
            for lib, e in r["libs"].items():
                if e["status"] not in ("ok", "cannot") and lib in ("siskin", peer) and \
                        "not selected" not in e.get("note", ""):
                    lines.append(f"- {r['workload']} on {r['input']}, {lib}: {e['status']}: {e.get('note', '')}")
        lines += [""]
    return lines


def thread_section(results):
    """REPORT.md lines: per workload and input measured at several thread counts, each library's
    self-speedup (its 1-thread median / its N-thread median) and siskin against GraphBLAS at each."""
    by_key = {}
    for r in results["rows"]:
        by_key.setdefault((r["workload"], r["input"]), {})[threads_of(r)] = r
    keyed = {k: v for k, v in by_key.items() if 1 in v and len(v) > 1}
    if not keyed:
        return []

    def median(r, lib):
        e = r["libs"].get(lib, {})
        return e.get("median_ms") if e.get("status") == "ok" else None

    def speedup(one, many, lib):
        a, b = median(one, lib), median(many, lib)
        return f"{a / b:.2f}x" if a and b else "-"

    counts = sorted({t for v in keyed.values() for t in v if t > 1})
    header = ["workload", "input", "siskin ms t1"] + [f"t{t}" for t in counts]
    header += [f"siskin 1/{t} threads" for t in counts]
    header += ["GraphBLAS ms t1"] + [f"t{t}" for t in counts]
    header += [f"GraphBLAS 1/{t} threads" for t in counts]
    header += ["GraphBLAS/siskin at 1"] + [f"GraphBLAS/siskin at {t}" for t in counts]
    trows = []
    for (w, inp), v in keyed.items():
        c = [w, inp, _ms(v[1]["libs"].get("siskin"))]
        c += [_ms(v[t]["libs"].get("siskin")) if t in v else "-" for t in counts]
        c += [speedup(v[1], v[t], "siskin") if t in v else "-" for t in counts]
        c += [_ms(v[1]["libs"].get("graphblas"))]
        c += [_ms(v[t]["libs"].get("graphblas")) if t in v else "-" for t in counts]
        c += [speedup(v[1], v[t], "graphblas") if t in v else "-" for t in counts]
        c += [_ratio(v[1], "graphblas")] + [_ratio(v[t], "graphblas") if t in v else "-" for t in counts]
        trows.append(c)
    return ["## Threads", "",
            "Medians in ms at each thread count (tN: N threads). Self-speedup = a library's median at 1 "
            "thread / its median at N threads. siskin runs the outer loop of a kernel that writes disjoint "
            "rows of dense outputs, or appends the rows of a CSR output (per-thread buffers joined in row "
            "order), as one chunk of rows per thread, balanced by stored entries, and a sum into a scalar as "
            "a partial per thread, and a min or max of a whole matrix as a slice per thread (docs/compiler.md, "
            "parallel loops); a column sum reduces into a copy of the vector per thread where the matrix "
            "holds at least 4 entries per element of it. Loops of less work "
            "than 32768 rows plus entries run on one thread. With the load average above the core count, "
            "2-thread medians measure the scheduler more than the kernels: latest.json has the minima too.",
            "",
            _md_table(header, trows), ""]


def _md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def write(results, out_dir):
    files = plot(results, out_dir)
    m = results["machine"]
    per, workloads = summary(results)
    lines = [
        "# siskin against its peers",
        "",
        f"Produced by `bench/run-peers{' --quick' if results['quick'] else ''}` on {results['date']}.",
        "",
        f"- Machine: {m['machine']}",
        f"- Software: {m['versions']}",
        f"- Load average at start {', '.join(f'{x:.1f}' for x in m['load_at_start'])}; at end "
        f"{', '.join(f'{x:.1f}' for x in m['load_at_end'])}" + load_remark(m),
        f"- Memory bandwidth (bench/peers/stream_probe.c): {stream_text(results['stream'])}.",
        f"- Timing: every library in one process, each row at one thread count (column *threads*: siskin's "
        "`CompileOptions::threads`, GraphBLAS's `GxB_NTHREADS`; scipy.sparse and pydata/sparse run at 1 only); warm-up, then at least "
        f"{results['options']['min_runs']} runs per library (more for short runs, up to "
        f"{results['options']['max_runs']}), interleaved round by round; median (and min in latest.json). "
        "Ratio = peer median / siskin median: above 1, siskin is faster.",
        f"- Whole run: {m['wall_s']:.0f} s.",
        "",
        "## Geometric-mean ratio per workload",
        "",
    ]
    header = ["workload"] + [PEER_TITLES[p] for p in PEERS]
    trows = []
    for w in workloads + ["all"]:
        trows.append([f"**{w}**" if w == "all" else w] +
                     [f"{per[p][w]:.2f}x" if per[p][w] else "-" for p in PEERS])
    lines += [_md_table(header, trows), ""]

    lines += family_sections(results)
    lines += thread_section(results)

    lines += ["## Ahead and behind, per peer", ""]
    for p in PEERS:
        if not any(p in r["ratios"] for r in results["rows"]):
            lines.append(f"- {PEER_TITLES[p]}: no ratios in this run.")
            continue
        ahead, behind, mixed = [], [], []
        for w in workloads:
            rs = [r["ratios"][p] for r in results["rows"] if label(r) == w and p in r["ratios"]]
            if not rs:
                continue
            (ahead if min(rs) >= 1 else behind if max(rs) < 1 else mixed).append(
                f"{w} ({min(rs):.2g}-{max(rs):.2g}x)" if len(rs) > 1 else f"{w} ({rs[0]:.2g}x)")
        lines.append(f"- {PEER_TITLES[p]}: siskin ahead on every input: {', '.join(ahead) or 'none'}; "
                     f"behind on every input: {', '.join(behind) or 'none'}; mixed: {', '.join(mixed) or 'none'}.")
    lines += [""]

    lines += ["## siskin compile times", "",
              "Each kernel's first compile in the run (a fresh JIT cache: the C compiler runs); later inputs "
              "reuse it (kernels are specialised to formats, not shapes). Run times above exclude this.", ""]
    crows = []
    for w in workloads:
        first = next((r for r in results["rows"] if label(r) == w and "siskin_compile_ms" in r), None)
        if first:
            crows.append([w, f"`{first['program']}`", f"{first['siskin_compile_ms']:.0f}",
                          f"{first['siskin_c_compiler_ms']:.0f}", first["siskin_cache"]])
    lines += [_md_table(["workload", "program", "compile_for ms", "of which C compiler ms", "cache"], crows), ""]

    lines += ["## Plots", ""] + [f"![{os.path.basename(f)}]({os.path.basename(f)})" for f in files] + [""]

    lines += ["## All rows", "", "Times are medians in milliseconds; ratio = peer / siskin.", ""]
    header = ["workload", "input", "threads", "siskin", "compile", "scipy", "ratio", "pydata", "ratio", "GraphBLAS",
              "ratio", "BW"]
    trows, notes = [], []
    for r in results["rows"]:
        c = [r["workload"], r["input"], threads_of(r), _ms(r["libs"].get("siskin")),
             f"{r['siskin_compile_ms']:.0f} ({r['siskin_cache']})" if "siskin_compile_ms" in r else "-"]
        for p in PEERS:
            c += [_ms(r["libs"].get(p)), _ratio(r, p)]
        c.append(f"{100 * r['bandwidth']['fraction_of_triad']:.0f}%" if "bandwidth" in r else "")
        trows.append(c)
        for lib, e in r["libs"].items():
            for part in (e.get("note") or "").split("; "):
                if part:
                    notes.append((label(r), lib, e["status"], part, r["input"]))
    lines += [_md_table(header, trows), ""]
    if notes:
        grouped = {}
        for w, lib, status, note, inp in notes:
            grouped.setdefault((w, lib, status, note), []).append(inp)
        all_inputs = list(results["inputs"])
        lines += ["Notes (`*` in the table, and every library that did not run):", ""]
        for (w, lib, status, note), inps in grouped.items():
            where = "every input" if inps == all_inputs else ", ".join(inps)
            lines.append(f"- {w}, {lib} ({where}): {'' if status == 'ok' else status + ': '}{note}")
        lines += [""]

    lines += [
        "## Inputs",
        "",
        _md_table(["input", "rows", "cols", "nnz", "nnz of B (add, multiply)", "source"],
                  [[k, "x".join(map(str, v["dims"])) if "dims" in v else v["rows"],
                    "" if "dims" in v else v["cols"], v["nnz"], v["nnz_B"] if v["nnz_B"] is not None else "-",
                    v["description"]]
                   for k, v in results["inputs"].items()]),
        "",
        "B, the second operand of add and elementwise multiply, is A with its columns shifted by one "
        "(cyclically) and values halved. Explicit zeros in the files are dropped once at load.",
        "",
        "## Method",
        "",
        "- siskin: each workload is a program in siskin's text (column *program* of latest.json), compiled by "
        "`compile_for` for CSR inputs with 32-bit indices; *compile* is that call's wall time in ms (parse, "
        "lower, C compiler, load): `miss` means the C compiler ran (a fresh JIT cache directory per run), "
        "`hit (memory)` that the kernel compiled for an earlier input was reused (kernels are not specialised "
        "to shapes). The timed call is `CompiledProgram::run`: the kernel plus allocating its outputs.",
        "- scipy.sparse (CSR) and pydata/sparse (COO; GCXS for the conversion) are timed in Python around "
        "the call; GraphBLAS in C++ from creating the output to `GrB_wait` (non-blocking mode finishes "
        "there), with `GxB_NTHREADS` = the row's thread count.",
        "- Equality: before timing, every peer's result is compared with siskin's, to a relative "
        "1e-9 of the largest magnitude; sparse results as matrices (values, not stored sets). A mismatch "
        "fails the command.",
        "- Bandwidth (column BW): bytes a kernel must move at least / siskin's median time / the triad "
        "bandwidth at the row's thread count (one core's at 1 thread, every core's above). Byte model: a CSR matrix is 12 bytes per nonzero (8-byte value, 4-byte column index) "
        "plus 4 per row pointer; dense vectors 8 bytes per element, read or written once; add and "
        "multiply read A and B and write C. Caches are not modelled: an input that fits in cache can "
        "exceed 100%.",
        "- min/max are over every element, the implicit zeros included (siskin's dense semantics, "
        "scipy's and pydata's `min()`); GraphBLAS reduces stored entries, so the implicit zero is folded "
        "in afterwards inside its timed region. GraphBLAS stores a matrix whose values are all equal "
        "(the pattern inputs, all ones) as iso-valued, one value, so its min/max there is O(1).",
        "- SpGEMM and the conversion first try one siskin run in a forked child under a time limit "
        "(--run-limit-s) so that an exploding kernel yields a 'too slow' row instead of a stalled command; "
        "SpGEMM is left out (with a row saying so) where A*A needs more multiply-adds than "
        "--spgemm-max-flops. A library whose one run exceeds --slow-cap-s runs fewer times (marked).",
        "- Sparse array programming operands (bench/peers/operands.py): B (and C) are A with its last mode "
        "shifted by one (and two), cyclically, holding the constant 2 (float64, int64 or true, as the ufunc "
        "needs: logical ops on bool, ldexp's exponent and right_shift on int64; right_shift's A holds seeded "
        "integers in [4, 1024) on A's pattern). siskin reads CSR (the 3-tensor: dense/sparselist/sparselist, "
        "32-bit indices) and writes a sparse output of the same levels with the fill inferred (power's is 1); "
        "pydata/sparse computes the same NumPy ufuncs on COO. Results are compared by fill and by every entry "
        "that differs from it.",
        "- Masked products: A as bool (all true) or as weights |a| whose absent entries are +inf; x and the mask "
        "m are seeded sparse vectors with 10% of the entries; the mxm mask is A's pattern and B is A held by "
        "column (both libraries get it so). GraphBLAS: structural mask, replace, GrB_LOR_LAND_SEMIRING_BOOL or "
        "GrB_MIN_PLUS_SEMIRING_FP64. siskin reads x as a sparsebytemap (a bitmap, as GraphBLAS holds it: "
        "see each row's note) at A's coordinates (`x[follow(j)]`), and its (min, +) uses `tplus`, a + declared "
        "in the program with annihilator +inf (siskin's builtin add has none, so it would visit every k).",
        "",
    ]
    with open(os.path.join(out_dir, "REPORT.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    # Regenerates REPORT.md and the plots from a results file: report.py bench/results/latest.json
    import json
    import sys
    with open(sys.argv[1]) as f:
        data = json.load(f)
    write(data, os.path.dirname(os.path.abspath(sys.argv[1])))
