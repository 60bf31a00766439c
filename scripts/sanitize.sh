#!/usr/bin/env bash
# Builds siskin, its command and its tests with AddressSanitizer and UndefinedBehaviorSanitizer
# into build-sanitize/ and runs the test suite; the kernels the JIT compiles during the run are
# built with the same sanitizers (through SISKIN_CFLAGS), so the code siskin generates is checked
# too. Any finding fails the run, also one in a `siskin` subprocess whose test expected it to fail.
# Usage: scripts/sanitize.sh [ctest args...]   (e.g. -R 'Hardening|Storage' -j1)
# SISKIN_JOBS sets the build's parallelism (default: every core).
# Cost: the build (-O0 -g1, CMakeLists.txt says why) is about 300 steps; the library and the
# command (184 of them) took 51 min at -j1 on a 2-core machine at load 9, where ccache had nothing.
# At that load Examples.Programs alone ran more than 300 s.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test

build=build-sanitize
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSISKIN_SANITIZE=ON >/dev/null
fi
cmake --build "$build" -j "${SISKIN_JOBS:-$(nproc 2>/dev/null || echo 2)}"
root=$(pwd)

# Reports go to files as well as failing the process: a test that runs `siskin` and expects it to
# fail would otherwise take a sanitizer's exit for the failure it wanted. Checked after ctest.
logs="$root/$build/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
suppressions="$root/scripts/sanitize-suppressions"
asan=(halt_on_error=1 detect_leaks=1 abort_on_error=0 check_initialization_order=1
      strict_init_order=1 detect_stack_use_after_return=0 log_path="$logs/asan")
ubsan=(halt_on_error=1 print_stacktrace=1 log_path="$logs/ubsan")
lsan=()
[ -f "$suppressions.lsan" ] && lsan+=(suppressions="$suppressions.lsan")
[ -f "$suppressions.ubsan" ] && ubsan+=(suppressions="$suppressions.ubsan")
export ASAN_OPTIONS=$(IFS=:; echo "${asan[*]}")
export UBSAN_OPTIONS=$(IFS=:; echo "${ubsan[*]}")
export LSAN_OPTIONS=$(IFS=:; echo "${lsan[*]}")

# The JIT's default flags (those `siskin c --print-compiler` shows, or the caller's SISKIN_CFLAGS)
# with the sanitizers added; kernels get a cache of their own. -O1 (the sanitizers' recommended
# level) after the JIT's -O3: an instrumented CSR SpGEMM kernel took 3.2 s of cc at -O3 and 0.5 s
# at -O1, and compiling kernels is most of the suite's time.
sanitize_flags="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1"
if [ -z "${SISKIN_CFLAGS:-}" ]; then
  command=$("$build/siskin" c --print-compiler)
  read -r _cc defaults <<<"$command"
  defaults=${defaults% -fPIC -shared}
  SISKIN_CFLAGS=$defaults
fi
export SISKIN_CFLAGS="$SISKIN_CFLAGS $sanitize_flags"
export SISKIN_CACHE_DIR="$root/$build/kernel-cache"
# Instrumented kernels compile slower: HardeningAnswers.Case03's 64-dimensional kernel passed the
# JIT's 120 s default at load 9.
export SISKIN_CC_TIMEOUT=${SISKIN_CC_TIMEOUT:-900}
echo "kernels: ${SISKIN_CC:-cc} $SISKIN_CFLAGS"

status=0
[ $# -gt 0 ] || set -- -j "$(nproc 2>/dev/null || echo 2)"
(cd "$build" && ctest --output-on-failure "$@") || status=$?
if compgen -G "$logs/*" >/dev/null; then
  echo "sanitizer reports (in $logs):" >&2
  for f in "$logs"/*; do echo "--- $f" >&2; head -n 60 "$f" >&2; done
  status=1
fi
exit "$status"
