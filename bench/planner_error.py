#!/usr/bin/python3
"""The planner's error: for SpMV, SpGEMM and add with CSC inputs and outputs, and a chain of three
matrices of very different densities, `siskin explain` lists the candidate plans with their
estimated costs; every candidate is then run (`siskin run --plan N`, one thread, the median of
--repeat runs of the kernel) and its output compared with SciPy's, and SciPy's CSC kernels are
timed in the same run (the chain both left to right and in the better hand-chosen order).

Usage: bench/planner_error.py [SISKIN] [--repeat N] [--out FILE] [--only TEXT]
--only runs the workloads whose title contains TEXT (e.g. --only chain), for a quick check of one
row; --help prints this.
Writes bench/results/PLANNER.md (or FILE): per workload the planner's choice, each candidate's
estimated cost and measured time, the model's error (the chosen plan's time over the best
candidate's; goal <= 1.2) and SciPy's time over the chosen plan's (goal >= 1.0), with `uptime`.
"""
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

ROOT = pathlib.Path(__file__).resolve().parent.parent


def random_matrix(n, m, per_row, seed):
    rng = np.random.default_rng(seed)
    a = sp.random(n, m, density=per_row / m, random_state=rng, format="csc")
    a.data = np.floor(a.data * 5) + 1  # whole numbers: every summation order gives the same bits
    return a


def workloads():
    a = random_matrix(40000, 40000, 12, 1)
    b = random_matrix(40000, 40000, 12, 2)
    g1, g2 = random_matrix(4000, 4000, 6, 3), random_matrix(4000, 4000, 6, 4)
    c1, c2, c3 = random_matrix(1500, 1500, 1, 5), random_matrix(1500, 1500, 1.5, 6), random_matrix(1500, 1500, 150, 7)
    s1 = random_matrix(1500, 1500, 0.05, 8)
    x = np.ones((40000, 1))
    return [
        ("SpMV, A csc", "y[i] += A[i,j] * x[j]", {"A": (a, "csc"), "x": (x, "dense")}, ("y", "dense"),
         {"scipy A @ x": lambda: a @ x[:, 0]}),
        ("SpGEMM, csc x csc -> csc", "C[i,j] += A[i,k] * B[k,j]", {"A": (g1, "csc"), "B": (g2, "csc")}, ("C", "csc"),
         {"scipy A @ B": lambda: g1 @ g2}),
        ("add, csc + csc -> csc", "C[i,j] = A[i,j] + B[i,j]", {"A": (a, "csc"), "B": (b, "csc")}, ("C", "csc"),
         {"scipy A + B": lambda: a + b}),
        ("chain A B C (1, 1.5, 150 a row), csr", "D[i,l] += A[i,j] * B[j,k] * C[k,l]",
         {"A": (c1.tocsr(), "csr"), "B": (c2.tocsr(), "csr"), "C": (c3.tocsr(), "csr")}, ("D", "csr"),
         {"scipy (A @ B) @ C": lambda: (c1.tocsr() @ c2.tocsr()) @ c3.tocsr(),
          "scipy A @ (B @ C)": lambda: c1.tocsr() @ (c2.tocsr() @ c3.tocsr())}),
        ("chain A B C (0.05, 1.5, 150 a row), csr", "D[i,l] += A[i,j] * B[j,k] * C[k,l]",
         {"A": (s1.tocsr(), "csr"), "B": (c2.tocsr(), "csr"), "C": (c3.tocsr(), "csr")}, ("D", "csr"),
         {"scipy (A @ B) @ C": lambda: (s1.tocsr() @ c2.tocsr()) @ c3.tocsr(),
          "scipy A @ (B @ C)": lambda: s1.tocsr() @ (c2.tocsr() @ c3.tocsr())}),
    ]


def same_values(got, want):
    """Whether siskin's result holds SciPy's values; sparse results are compared sparse (the
    add's 40000 x 40000 would be 12.8 GB dense)."""
    if sp.issparse(got) and sp.issparse(want):
        return got.shape == want.shape and (abs(got - want).max() if got.nnz or want.nnz else 0) == 0
    got = got.toarray() if sp.issparse(got) else np.asarray(got)
    want = want.toarray() if sp.issparse(want) else np.asarray(want)
    return bool(np.array_equal(got.reshape(want.shape), want))


def median_ms(f, repeat):
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


CAP_S = 60  # a plan still running after this long is reported as slower than it

PLAN_LINE = re.compile(r"^plan (\d+)(?: \(cheapest\))?: (.*); estimated cost (\S+) \((.*)\)$")


def main():
    args = sys.argv[1:]
    if "--help" in args or "-h" in args:
        print(__doc__)
        return
    repeat, out_path, only = 20, ROOT / "bench/results/PLANNER.md", ""
    if "--repeat" in args:
        k = args.index("--repeat")
        repeat = int(args[k + 1])
        del args[k:k + 2]
    if "--out" in args:
        k = args.index("--out")
        out_path = pathlib.Path(args[k + 1])
        del args[k:k + 2]
    if "--only" in args:
        k = args.index("--only")
        only = args[k + 1]
        del args[k:k + 2]
    siskin = args[0] if args else str(ROOT / "build/siskin")
    load_before = os.getloadavg()
    lines = ["# The planner's error and SciPy ratios", "",
             f"`bench/planner_error.py --repeat {repeat}`, one thread (`--threads 1`), medians of {repeat} runs of "
             "the kernel (`siskin run --stats`: the call, its transposes and output conversion included, file "
             "reading and compiling not); SciPy in the same process run. Error = the chosen plan's time over the "
             "best candidate's (goal <= 1.2); scipy/siskin = SciPy's time over the chosen plan's (goal >= 1.0). A "
             "plan estimated over 30 times dearer than the cheapest is run once, and one still running after "
             f"{CAP_S} s is stopped.",
             ""]
    summary = ["| workload | chosen | best | error | scipy/siskin |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for title, program, inputs, (out, out_format), peers in workloads():
            if only not in title:
                continue
            args_in = []
            for name, (m, fmt) in inputs.items():
                path = folder / f"{name}.mtx"
                scipy.io.mmwrite(str(path), m)
                args_in += ["-i", f"{name}={path}:{fmt}"]
            out_file = folder / f"{out}.mtx"
            args_out = ["-o", f"{out}={out_file}:{out_format}"]
            explained = subprocess.run([siskin, "explain", program, *args_in, *args_out], check=True,
                                       capture_output=True, text=True).stdout
            plans = []
            for line in explained.splitlines():
                m = PLAN_LINE.match(line)
                if m:
                    plans.append({"n": int(m.group(1)), "what": m.group(2), "cost": float(m.group(3))})
            want = None
            for p in plans:
                stats = folder / "stats.json"
                # A plan estimated 30 times dearer than the cheapest runs once (some take a minute).
                runs = repeat if p["cost"] <= 30 * plans[0]["cost"] else 1
                try:
                    subprocess.run([siskin, "run", program, *args_in, *args_out, "--plan", str(p["n"]), "--threads",
                                    "1", "--repeat", str(runs), "--stats", str(stats)], check=True,
                                   capture_output=True, timeout=CAP_S)
                except subprocess.TimeoutExpired:
                    p["ms"], p["same"] = float("inf"), None
                    continue
                p["ms"] = json.loads(stats.read_text())["median_ms"]
                got = scipy.io.mmread(str(out_file))
                if want is None:
                    want = list(peers.values())[0]()
                p["same"] = same_values(got, want)
            peer_ms = {name: median_ms(f, repeat) for name, f in peers.items()}
            chosen = plans[0]
            best = min(plans, key=lambda p: p["ms"])
            error = chosen["ms"] / best["ms"]
            scipy_ms = min(peer_ms.values())
            lines += [f"## {title}", "", f"`{program}`", "",
                      "| plan | estimated cost | ms | agrees with SciPy |", "|---|---|---|---|"]
            for p in plans:
                mark = " **(chosen)**" if p is chosen else ""
                ms = f"{p['ms']:.3f}" if p["ms"] != float("inf") else f"> {CAP_S * 1000}"
                same = {True: "yes", False: "NO", None: "(not finished)"}[p["same"]]
                lines.append(f"| {p['n']}: {p['what']}{mark} | {p['cost']:.3g} | {ms} | {same} |")
            for name, ms in peer_ms.items():
                lines.append(f"| {name} | | {ms:.3f} | |")
            lines += ["", f"Error {error:.2f} (best: plan {best['n']}); SciPy's best {scipy_ms:.3f} ms, "
                      f"scipy/siskin {scipy_ms / chosen['ms']:.2f}.", ""]
            summary.append(f"| {title} | plan 0, {chosen['ms']:.3f} ms | plan {best['n']}, {best['ms']:.3f} ms | "
                           f"{error:.2f} | {scipy_ms / chosen['ms']:.2f} |")
            print(summary[-1], flush=True)
    load_after = os.getloadavg()
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    lines[4:4] = summary + ["", f"Load average before {load_before[0]:.2f}, after {load_after[0]:.2f} "
                            f"(`uptime`: {uptime}).", ""]
    out_path.write_text("\n".join(lines) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
