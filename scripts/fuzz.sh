#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang, AddressSanitizer and UBSan into build-fuzz/
# and runs each for SECONDS (default 60), one after another, growing a corpus per target in
# build-fuzz/corpus/ (seeded from data/ and fuzz/seeds/). A crash, a hang (over FUZZ_TIMEOUT
# seconds for one input: default 30, and 150 for the differential target, above the C compiler's
# own limit of 120 s) or a leak is kept in build-fuzz/crashes/TARGET/ and fails the run; the last
# lines print each target's executions and coverage.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: the fuzz/*_fuzz.cpp names)
# SISKIN_JOBS sets the build's parallelism (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh fuzz
seconds=${1:-60}
shift || true
build=build-fuzz
if [ ! -f "$build/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  CC=clang CXX=clang++ cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSISKIN_FUZZ=ON -DSISKIN_BUILD_TESTS=OFF >/dev/null
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in fuzz/*_fuzz.cpp; do targets+=("$(basename "$f" .cpp)"); done
fi
cmake --build "$build" -j "${SISKIN_JOBS:-$(nproc 2>/dev/null || echo 2)}" --target "${targets[@]}"

# Seeds: one file per entry of a seed list (entries separated by lines "%%"), the bundled
# matrices, and for formats a first byte that picks the number of dimensions.
seed_list() { # list-file corpus-dir
  awk -v dir="$2" 'BEGIN { n = 0; f = sprintf("%s/seed-%03d", dir, n) }
       /^%%$/ { close(f); n++; f = sprintf("%s/seed-%03d", dir, n); next }
       { print > f }' "$1"
}
corpus=$build/corpus
mkdir -p "$corpus"
for f in fuzz/*_fuzz.cpp; do mkdir -p "$corpus/$(basename "$f" .cpp)"; done
for t in "${targets[@]}"; do mkdir -p "$build/crashes/$t"; done
seed_list fuzz/seeds/programs.txt "$corpus/program_fuzz"
seed_list fuzz/seeds/programs.txt "$corpus/differential_fuzz"
seed_list fuzz/seeds/functions.txt "$corpus/function_fuzz"
n=0
while read -r dims spelling; do
  printf "\\x$(printf %02x $((dims - 1)))%s" "$spelling" > "$corpus/format_fuzz/seed-$n"; n=$((n + 1))
done < fuzz/seeds/formats.txt
for m in data/karate.mtx data/1138_bus.mtx; do cp "$m" "$corpus/matrix_market_fuzz/"; done
printf '# a 3-D tensor\n1 1 1 2.5\n2 3 1 -1\n3 2 4 7\n' > "$corpus/frostt_fuzz/seed-0"
printf '1 1 1.0\n4 2 2.0\n' > "$corpus/frostt_fuzz/seed-1"

# Each target in its own folder: libFuzzer writes crash-*, timeout-* and leak-* files there.
# Kernels the differential fuzzer compiles go to a cache of their own.
export SISKIN_CACHE_DIR=$PWD/$build/kernel-cache
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
status=0
summary=()
for t in "${targets[@]}"; do
  log=$build/crashes/$t/log
  timeout=${FUZZ_TIMEOUT:-30}
  [ "$t" != differential_fuzz ] || timeout=${FUZZ_TIMEOUT:-150}
  echo "== $t for ${seconds} s"
  (cd "$build/crashes/$t" && "../../fuzz/$t" -max_total_time="$seconds" -timeout="$timeout" \
      -rss_limit_mb=4096 -print_final_stats=1 -max_len=4096 "../../corpus/$t") >"$log" 2>&1 || status=1
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  crashes=$(find "$build/crashes/$t" -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' | wc -l)
  [ "$crashes" -eq 0 ] || status=1
  summary+=("$(printf '%-20s %8s s %10s execs  coverage %6s edges  %s findings' "$t" "$seconds" "${execs:-?}" "${cov:-?}" "$crashes")")
done
printf '%s\n' "${summary[@]}"
[ $status -eq 0 ] || echo "findings and logs are in $build/crashes/" >&2
exit $status
