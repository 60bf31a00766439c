#!/usr/bin/env bash
# bench/many_operands.sh [N] [LENGTH] [DENSITY] [REPEAT]: the union of N sparse vectors,
# `o[i] = x0[i] + ... + x{N-1}[i]`, compiled as one kernel (the k-way merge of
# src/compiler/lower_merge.cpp beyond a few operands) against the same sum done pairwise (a
# balanced tree of N-1 two-operand kernels, sparse intermediates). Prints, for a sparselist and
# a dense output: the C lines, the siskin time to generate the C (`siskin c`, no C compiler), the
# kernel's compile_ms - cc_ms on a cache miss, and the fastest kernel times of --repeat REPEAT
# runs (min_ms: on a shared machine the median moves with the load of others; the minimum less).
# The two forms run in turn ROUNDS times (env, default 3) and each keeps its best round, so a burst
# of load from other processes falls on both alike.
# Defaults: N=12, LENGTH=1000000, DENSITY=0.01 (each vector), REPEAT=20. Not a test: timings.
# Needs build/siskin (cmake --build build --target siskin_cli) and python3.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
siskin="${SISKIN:-$root/build/siskin}"
n="${1:-12}" len="${2:-1000000}" density="${3:-0.01}" repeat="${4:-20}" rounds="${ROUNDS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export SISKIN_CACHE_DIR="$work/cache"

python3 - "$work" "$n" "$len" "$density" <<'PY'
import random, sys
work, n, length, density = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
rng = random.Random(16)
for k in range(n):
    idx = sorted(rng.sample(range(length), int(length * density)))
    with open(f"{work}/x{k}.mtx", "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write(f"{length} 1 {len(idx)}\n")
        f.writelines(f"{i + 1} 1 {rng.randint(1, 9)}\n" for i in idx)
PY

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])" "$@"; }
now() { date +%s.%N; }

for out in 'sparselist(0)' dense; do
    prog="o[i] =" inputs=() formats=()
    for ((k = 0; k < n; k++)); do
        ((k > 0)) && prog+=" +"
        prog+=" x$k[i]"
        inputs+=(-i "x$k=$work/x$k.mtx:sparselist(0)")
        formats+=(-f "x$k=sparselist(0)")
    done
    formats+=(-f "o=$out")
    t0=$(now)
    lines=$("$siskin" c "$prog" "${formats[@]}" | wc -l)
    t1=$(now)
    kway_ms='' pair_ms='' gen_ms=''
    for ((round = 0; round < rounds; round++)); do
        "$siskin" run "$prog" "${inputs[@]}" -o "o=$work/kway.mtx:$out" --stats "$work/kway.json" --repeat "$repeat"
        ms=$(json "$work/kway.json" min_ms)
        kway_ms=$(python3 -c "print(min(x for x in ($ms, ${kway_ms:-$ms})))")
        [[ -n "$gen_ms" ]] || gen_ms=$(python3 -c "print(round($(json "$work/kway.json" compile_ms) - $(json "$work/kway.json" cc_ms), 1))")

        # Pairwise: a balanced tree of two-operand sums; intermediates sparselist, the root in $out.
        level=()
        for ((k = 0; k < n; k++)); do level+=("$work/x$k.mtx"); done
        sum_ms=0 step=0
        while ((${#level[@]} > 1)); do
            next=()
            for ((k = 0; k + 1 < ${#level[@]}; k += 2)); do
                step=$((step + 1))
                fmt='sparselist(0)'
                ((${#level[@]} == 2)) && fmt="$out"
                dst="$work/t$step.mtx"
                "$siskin" run 'o[i] = a[i] + b[i]' -i "a=${level[k]}:sparselist(0)" -i "b=${level[k+1]}:sparselist(0)" \
                    -o "o=$dst:$fmt" --stats "$work/pair.json" --repeat "$repeat"
                sum_ms=$(python3 -c "print($sum_ms + $(json "$work/pair.json" min_ms))")
                next+=("$dst")
            done
            ((${#level[@]} % 2)) && next+=("${level[-1]}")
            level=("${next[@]}")
        done
        pair_ms=$(python3 -c "print(min(x for x in ($sum_ms, ${pair_ms:-$sum_ms})))")
    done
    same=$(python3 - "$work/kway.mtx" "${level[0]}" <<'PY'
import sys
def read(p):
    rows = [l.split() for l in open(p) if not l.startswith('%')]
    return {(r[0], r[1]): float(r[2]) for r in rows[1:] if float(r[2]) != 0} if len(rows[0]) == 3 else \
        {(str(i + 1), '1'): float(r[0]) for i, r in enumerate(rows[1:]) if float(r[0]) != 0}
print("same" if read(sys.argv[1]) == read(sys.argv[2]) else "DIFFERENT")
PY
)
    printf 'N=%s length=%s density=%s output=%s: C lines %s, siskin c %.0f ms, compile-cc %s ms; ' \
        "$n" "$len" "$density" "$out" "$lines" "$(python3 -c "print(($t1 - $t0) * 1000)")" "$gen_ms"
    printf 'one kernel %.3f ms, pairwise %.3f ms (%s kernels), ratio pairwise/one %.2f; results %s\n' \
        "$kway_ms" "$pair_ms" "$step" "$(python3 -c "print($pair_ms / $kway_ms)")" "$same"
done
