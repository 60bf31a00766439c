#!/usr/bin/env bash
# Prints how often each area of src/ includes a header of another area ("levels -> lowering"),
# so the layering (docs/compiler.md, the README of each area) can be checked at a glance.
# Usage: scripts/include-graph.sh [--check]   (--check: exit 1 if a floor includes one above it)
set -euo pipefail
cd "$(dirname "$0")/.."
edges=$(grep -rHo '#include "[a-z_]*/' src --include='*.cpp' --include='*.hpp' |
    awk -F: '{ split($1, p, "/"); to = $2; sub(/#include "/, "", to); sub(/\/$/, "", to);
               if (p[2] != to && to != "siskin") print p[2] " -> " to }' |
    sort | uniq -c | sort -k2)
echo "$edges"
if [[ "${1:-}" == --check ]]; then
    # Bottom up; an area may include only areas before it in this list.
    order=(codegen lowering looplets wrappers levels simplify compiler planner)
    bad=0
    while read -r _ from _ to; do
        fi=-1; ti=-1
        for k in "${!order[@]}"; do
            [[ ${order[$k]} == "$from" ]] && fi=$k
            [[ ${order[$k]} == "$to" ]] && ti=$k
        done
        if ((fi >= 0 && ti >= 0 && ti > fi)); then echo "layering: $from includes $to" >&2; bad=1; fi
    done <<< "$edges"
    exit $bad
fi
