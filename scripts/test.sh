#!/usr/bin/env bash
# Builds siskin with its test suite and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test
scripts/build.sh
cd build
ctest --output-on-failure --no-tests=error -j "$(nproc 2>/dev/null || echo 2)"
