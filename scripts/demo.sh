#!/usr/bin/env bash
# Builds the siskin command and runs its demo on the bundled real matrices.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh build
scripts/build.sh siskin_cli
build/siskin demo --data data
