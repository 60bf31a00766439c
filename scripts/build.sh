#!/usr/bin/env bash
# Configures and builds siskin into build/ (Ninja when present). Usage: scripts/build.sh [targets...]
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
jobs=$(nproc 2>/dev/null || echo 2)
if [ $# -gt 0 ]; then
  targets=(); for t in "$@"; do targets+=(--target "$t"); done
  cmake --build build -j "$jobs" "${targets[@]}"
else
  cmake --build build -j "$jobs"
fi
