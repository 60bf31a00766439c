#!/usr/bin/env bash
# The cost of the MPI layer on one machine: SpMV on the larger shared matrices, serial (one
# thread) against `--distributed` on 1 and 2 ranks, the three interleaved round by round in one
# run; and the communication of each rank (--comm-stats) on 2 and 4 ranks. On a 2-core machine
# this measures overhead, not scaling. Writes bench/results/MPI.md and bench/results/mpi/*.json.
# With PETSc (build/bench/petsc_spmv: SISKIN_PETSC and SISKIN_BUILD_BENCH on), also siskin's
# distributed SpMV against PETSc's MatMult on the same partition.
# Usage: bench/mpi_spmv.sh [MATRIX_DIR] [REPEAT] [ROUNDS]   (build/siskin built with SISKIN_MPI)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-../shared/data/matrices}
repeat=${2:-100}
rounds=${3:-3}
matrices=(cage11 bcsstk33 raefsky2 email-Enron luxembourg_osm)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
out=bench/results/mpi
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spmv='y[i] += A[i,j] * x[j]'
for m in "${matrices[@]}"; do
  a="$dir/$m.mtx"
  n=$(awk '!/^%/ { print $2; exit }' "$a")
  { echo '%%MatrixMarket matrix array real general'; echo "$n 1"
    awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) printf "%g\n", 1 + (i % 7) / 8 }'; } > "$tmp/x.mtx"
  for r in $(seq "$rounds"); do
    build/siskin run "$spmv" -i A="$a" -i x="$tmp/x.mtx" --threads 1 --repeat "$repeat" \
        --stats "$out/$m-serial-$r.json"
    for np in 1 2; do
      mpirun -np "$np" build/siskin run "$spmv" -i A="$a" -i x="$tmp/x.mtx" --repeat "$repeat" \
          --distributed --stats "$out/$m-np$np-$r.json"
    done
  done
  for np in 2 4; do
    mpirun -np "$np" build/siskin run "$spmv" -i A="$a" -i x="$tmp/x.mtx" --distributed \
        --comm-stats "$out/$m-comm-np$np.json"
  done
  # PETSc's MatMult on siskin's partition, the two alternating in one run (built with PETSc).
  if [[ -x build/bench/petsc_spmv ]]; then
    for np in 1 2; do
      mpirun -np "$np" build/bench/petsc_spmv "$a" "$repeat" "$rounds" > "$out/$m-petsc-np$np.json"
    done
  fi
done
/usr/bin/python3 - "$out" "$repeat" "$rounds" "$(uptime)" "${matrices[@]}" > bench/results/MPI.md <<'PY'
import json, statistics, sys
out, repeat, rounds, load, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
def median_ms(m, kind):
    return statistics.median(json.load(open(f"{out}/{m}-{kind}-{r}.json"))["median_ms"] for r in range(1, rounds + 1))
print("# MPI layer: SpMV overhead on one machine, and communication per rank\n")
print("Written by `bench/mpi_spmv.sh` (the commands are in it): SpMV `y[i] += A[i,j] * x[j]` on")
print("the larger shared matrices, `siskin run` serially on one thread against `siskin run")
print("--distributed` under `mpirun -np 1` and `-np 2` (one thread per rank), interleaved round by")
print(f"round ({rounds} rounds of --repeat {repeat}; each figure is the median over rounds of a")
print("round's median; a distributed run's time is its slowest rank's). The machine has 2 cores")
print("and is shared with other jobs, so 2 ranks cannot show a speed-up here: the ratios are the")
print(f"layer's overhead. Load when the run ended: `{load.strip()}`.\n")
print("| matrix | rows | serial ms | 1 rank ms | 2 ranks ms | 1 rank / serial | 2 ranks / 1 rank |")
print("|---|---:|---:|---:|---:|---:|---:|")
for m in names:
    s, one, two = median_ms(m, "serial"), median_ms(m, "np1"), median_ms(m, "np2")
    rows = sum(r["rows"] for r in json.load(open(f"{out}/{m}-comm-np2.json")))
    print(f"| {m} | {rows} | {s:.3f} | {one:.3f} | {two:.3f} | {one / s:.2f} | {two / one:.2f} |")
print("\nWith one rank the layer adds to the serial kernel only its bookkeeping per product (a")
print("signature key, an MPI_Allreduce of one int that agrees on errors, the output vector); with")
print("two, each rank runs half the rows, the halo messages go through shared memory, and the two")
print("ranks share the 2 cores with the other jobs of the machine.\n")
import os
if all(os.path.exists(f"{out}/{m}-petsc-np{p}.json") for m in names for p in (1, 2)):
    print("## Against PETSc's MatMult on the same partition\n")
    print("`build/bench/petsc_spmv` (bench/petsc_spmv.cpp) reads the matrix with siskin, exports it to")
    print("PETSc (`siskin::distributed::PetscMatrix`, MatCreateMPIAIJWithSplitArrays over the same")
    print(f"blocks) and alternates `distributed::spmv` with `MatMult` round by round ({rounds} rounds of")
    print(f"{repeat} products; the median round; a round's time is its slowest rank's). siskin's call")
    print("returns a new vector each time, MatMult writes into one it is given. Ratio above 1: siskin")
    print("is faster.\n")
    print("| matrix | ranks | siskin ms | PETSc ms | PETSc / siskin |")
    print("|---|---:|---:|---:|---:|")
    for m in names:
        for p in (1, 2):
            r = json.load(open(f"{out}/{m}-petsc-np{p}.json"))
            print(f"| {m} | {p} | {r['siskin_ms']:.3f} | {r['petsc_ms']:.3f} | {r['petsc_ms'] / r['siskin_ms']:.2f} |")
    print()
print("## Communication per rank (`--comm-stats`, one SpMV)\n")
print("Fields as src/distributed/README.md defines them; SpMV figures per call, `halo_setup` once")
print("per matrix, `read` the routing of the parallel read (24 bytes per entry). The scale-out")
print("model (`scripts/scaleout_model.py`, docs/scale-out.md) predicts these counts from the")
print("partition alone; tests/scaleout/test_comm_stats.py checks that they are equal.\n")
print("| matrix | ranks | rank | rows | nnz_diag | nnz_offdiag | halo_columns | spmv msgs sent | spmv bytes sent | spmv bytes received | read bytes sent |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for m in names:
    for p in (2, 4):
        for r in json.load(open(f"{out}/{m}-comm-np{p}.json")):
            o = r["operations"]
            spmv, read = o.get("spmv", {}), o.get("read", {})
            print(f"| {m} | {p} | {r['rank']} | {r['rows']} | {r['nnz_diag']} | {r['nnz_offdiag']} | "
                  f"{r['halo_columns']} | {spmv.get('messages_sent', 0)} | {spmv.get('bytes_sent', 0)} | "
                  f"{spmv.get('bytes_received', 0)} | {read.get('bytes_sent', 0)} |")
PY
echo "wrote bench/results/MPI.md"
