#!/usr/bin/python3
"""The scale-out model of docs/scale-out.md: per-rank messages and bytes of the row (PETSc
MPIAIJ) and the 2-D (CombBLAS) partition, from the real partitions of the shared matrices and
from generated matrices at 10^8..10^9 rows, and their time under a stated network model.

    scripts/scaleout_model.py measure [--siskin build/siskin]     # local rates -> rates.json
    scripts/scaleout_model.py shared [--dir /work/shared/data/matrices]  # SHARED-IB100.md, .json
    scripts/scaleout_model.py [--network eth25] extrapolate        # EXTRAPOLATE-ETH25.md, .json
    scripts/scaleout_model.py ranks A.mtx -p 4 [--split rows|entries]    # per-rank JSON
    scripts/scaleout_model.py compare A.mtx --comm-stats stats.json [--split ...]

Outputs go to bench/results/scaleout/ (--out). /usr/bin/python3 with numpy and scipy only.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scaleout import network as net                          # noqa: E402
from scaleout import rates, tables                            # noqa: E402
from scaleout.extrapolate import crossovers, extrapolate      # noqa: E402
from scaleout.grid_partition import grid_partition_stats      # noqa: E402
from scaleout.matrices import read_pattern                    # noqa: E402
from scaleout.partition import SPLITS                         # noqa: E402
from scaleout.records import rank_records                     # noqa: E402
from scaleout.row_partition import row_partition_stats        # noqa: E402
from scaleout.summary import grid_summary, row_summary        # noqa: E402
from scaleout.compare import compare_records                  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RANKS = [1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
EXTRAPOLATION_RANKS = [1, 4, 16, 64, 256, 1024, 4096]


def load_compute(path, node_speedup):
    with open(path) as f:
        measured = json.load(f)
    return {cls: net.Compute(r["spmv_per_entry"] / node_speedup, r["spgemm_per_flop"] / node_speedup,
                             f"{path}: one core x {node_speedup}")
            for cls, r in measured["classes"].items()}


def matrix_class(name):
    return "powerlaw" if name in tables.POWERLAW else "mesh"


def command_shared(args, network, compute):
    rows = []
    files = sorted(f for f in os.listdir(args.dir) if f.endswith((".mtx", ".tns")))
    for f in files:
        a = read_pattern(os.path.join(args.dir, f))
        name = f.rsplit(".", 1)[0]
        c = compute[matrix_class(name)]
        for p in args.ranks:
            row = {"matrix": name, "rows": a.rows, "cols": a.cols, "nnz": a.nnz, "p": p}
            for split, make in SPLITS.items():
                row[split] = row_summary(row_partition_stats(a, make(a, p)), network, c)
            row["grid"] = grid_summary(grid_partition_stats(a, p), network, c)
            rows.append(row)
        print(f"{name}: done", file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "results", "scaleout"))
    ap.add_argument("--network", choices=sorted(net.NETWORKS), default="ib100")
    ap.add_argument("--node-speedup", type=float, default=8.0,
                    help="node rate / one core's rate for the local kernels (default 8)")
    sub = ap.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--siskin", default=os.path.join(ROOT, "build", "siskin"))
    s = sub.add_parser("shared")
    s.add_argument("--dir", default="/work/shared/data/matrices")
    s.add_argument("--ranks", type=lambda t: [int(x) for x in t.split(",")], default=RANKS)
    sub.add_parser("extrapolate")
    for name in ("ranks", "compare"):
        r = sub.add_parser(name)
        r.add_argument("matrix")
        r.add_argument("--split", choices=sorted(SPLITS), default="rows")
        r.add_argument("--index-bytes", type=int, default=8)
        if name == "ranks":
            r.add_argument("-p", type=int, required=True)
        else:
            r.add_argument("--comm-stats", required=True)
            r.add_argument("--operations", default="spmv,halo_setup",
                           help="operations to compare, of spmv, halo_setup, spgemm")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    network = net.NETWORKS[args.network]
    rates_path = os.path.join(args.out, "rates.json")

    if args.command == "measure":
        measured = rates.measure(args.siskin)
        with open(rates_path, "w") as f:
            json.dump(measured, f, indent=1)
        print(json.dumps(measured, indent=1))
    elif args.command in ("ranks", "compare"):
        a = read_pattern(args.matrix)
        if args.command == "ranks":
            stats = row_partition_stats(a, SPLITS[args.split](a, args.p), index_bytes=args.index_bytes)
            json.dump(rank_records(stats), sys.stdout, indent=1)
            print()
        else:
            with open(args.comm_stats) as f:
                measured = json.load(f)
            ok, report = compare_records(a, measured, args.split, args.operations.split(","),
                                         args.index_bytes)
            print(report)
            sys.exit(0 if ok else 1)
    else:
        compute = load_compute(rates_path, args.node_speedup)
        if args.command == "shared":
            result = command_shared(args, network, compute)
            tables.write(args.out, f"shared-{args.network}", result, tables.shared_markdown(result, network, args))
        else:
            result = extrapolate(EXTRAPOLATION_RANKS, network, compute)
            cross = {key: crossovers(result, key)
                     for key in ("spmv_seconds", "spmv_comm_seconds", "spgemm_seconds")}
            tables.write(args.out, f"extrapolate-{args.network}", {"rows": result, "crossover": cross},
                         tables.extrapolate_markdown(result, cross, network, args))


if __name__ == "__main__":
    main()
