#!/usr/bin/env bash
# Builds the siskin command and runs its demo on the bundled real matrices; builds the Python
# package, installs it where /usr/bin/python3 finds it from any folder, and runs its demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh demo
scripts/build.sh siskin_cli _siskin
build/siskin demo --data data
scripts/install-python.sh
repo=$(pwd)
(cd / && /usr/bin/python3 "$repo/python/examples/demo.py" "$repo/data")
