#!/usr/bin/env bash
# `siskin run --distributed` under mpirun on 1 to 4 ranks against the serial run: the same output
# file (values within rounding), --comm-stats with one object per rank, and errors (a bad line in
# the middle of a file, a program the distributed layer does not run) reported once, as the
# serial run reports them.
# Usage: cli_test.sh SISKIN MPIEXEC DATA_DIR
set -euo pipefail
siskin=$1 mpiexec=$2 data=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
mpi() { local np=$1; shift; "$mpiexec" --oversubscribe -np "$np" "$@"; }

n=$(awk '!/^%/ { print $1; exit }' "$data/1138_bus.mtx")
{ echo '%%MatrixMarket matrix coordinate real general'; echo "$n 1 $n"
  awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) printf "%d 1 %g\n", i, 1 + (i % 7) / 8 }'; } > x.mtx
spmv='y[i] += A[i,j] * x[j]'
"$siskin" run "$spmv" -i A="$data/1138_bus.mtx" -i x=x.mtx -o y=serial.mtx
for np in 1 2 3 4; do
  mpi "$np" "$siskin" run "$spmv" -i A="$data/1138_bus.mtx" -i x=x.mtx -o y=dist$np.mtx \
      --distributed --comm-stats stats$np.json
  /usr/bin/python3 "$here/same_values.py" serial.mtx dist$np.mtx || fail "SpMV on $np ranks"
  /usr/bin/python3 - stats$np.json "$np" "$n" <<'PY' || fail "--comm-stats of SpMV on $np ranks"
import json, sys
stats = json.load(open(sys.argv[1]))
assert [r["rank"] for r in stats] == list(range(int(sys.argv[2])))
assert sum(r["rows"] for r in stats) == int(sys.argv[3])
for r in stats:
    spmv = r["operations"]["spmv"]
    assert spmv["calls"] == 1 and spmv["messages_sent"] <= int(sys.argv[2]) - 1
    assert spmv["bytes_received"] == 8 * r["halo_columns"]
PY
done

# The other programs the distributed layer runs, on 3 ranks (and SpGEMM on 4, rows split on
# entries): the files of a serial run.
A="$data/1138_bus.mtx"
for case in 'C=OUT.mtx|C[i,j] += A[i,k] * B[k,j]|-i A=$A -i B=$A' \
            'C=OUT.mtx|C[i,j] = max(A[i,j], B[i,j]) + 1|-i A=$A -i B=$A:coo' \
            'r=OUT.mtx|r[i] max= A[i,j]|-i A=$A' \
            'r=OUT.mtx|r[i] += A[i,j] * B[i,j]|-i A=$A -i B=$A' \
            's=OUT.tns|s[] += A[i,j]|-i A=$A' \
            's=OUT.tns|s[] min= A[i,j]|-i A=$A'; do
  IFS='|' read -r out program args <<< "$case"
  eval "inputs=($args)"
  name=${out%%=*} file=${out#*=}
  np=3 split=()
  [[ $program == *'A[i,k]'* ]] && np=4 split=(--row-split entries)
  "$siskin" run "$program" "${inputs[@]}" -o "$name=${file/OUT/serial}"
  mpi "$np" "$siskin" run "$program" "${inputs[@]}" -o "$name=${file/OUT/dist}" --distributed "${split[@]}"
  /usr/bin/python3 "$here/same_values.py" "${file/OUT/serial}" "${file/OUT/dist}" 1e-9 ||
    fail "$program on $np ranks"
  rm -f "${file/OUT/serial}" "${file/OUT/dist}"
done

# A malformed line in the middle of the file: the serial message, once.
awk 'NR == 2000 { $2 = "x" } { print }' "$data/1138_bus.mtx" > bad.mtx
"$siskin" run "$spmv" -i A=bad.mtx -i x=x.mtx -o y=out.mtx 2> serial.err && fail "the serial run took bad.mtx"
if mpi 3 "$siskin" run "$spmv" -i A=bad.mtx -i x=x.mtx -o y=out.mtx --distributed > /dev/null 2> dist.err; then
  fail "the distributed run took bad.mtx"
fi
grep -q ':2000:' serial.err || fail "serial message: $(cat serial.err)"
[ "$(grep -c '^siskin: error:' dist.err)" = 1 ] || fail "not one message: $(cat dist.err)"
grep -F "$(cat serial.err)" dist.err > /dev/null || fail "$(cat dist.err) is not $(cat serial.err)"
[ ! -e out.mtx ] || fail "a failed run wrote its output"

# A program the distributed layer does not run: an error that names what it runs, once.
if mpi 2 "$siskin" run 'C[i,j] = A[j,i]' -i A="$data/1138_bus.mtx" -o C=c.mtx --distributed 2> refused.err; then
  fail "the transpose ran distributed"
fi
[ "$(grep -c '^siskin: error:' refused.err)" = 1 ] || fail "not one message: $(cat refused.err)"
grep -q 'SpMV y\[i\] += A\[i,j\] \* x\[j\]' refused.err || fail "$(cat refused.err)"
echo "cli_test: ok"
