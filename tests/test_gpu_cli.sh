#!/bin/sh
# The CLI on a GPU: a CUDA fault in the middle of a sweep names the variant,
# exits 1, and leaves a valid JSON file with the rows finished before it; a
# normal small run verifies every row. Skips (77) without a GPU.
# Usage: test_gpu_cli.sh STREAMLAB JSON_CHECK TMPDIR
set -u
SL=$1
JC=$2
T=$3
mkdir -p "$T"
if ! "$SL" info 2>/dev/null | grep -q "compute cap"; then
    echo "test_gpu_cli: SKIPPED: no CUDA device on this machine"
    exit 77
fi
fails=0

"$SL" run --sizes 1M,3 --trials 3 --json "$T/ok.json" > "$T/ok.out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "status: complete" "$T/ok.out"; then
    echo "FAILED: small GPU run exited $rc"; cat "$T/ok.out"; fails=$((fails + 1))
fi
"$JC" "$T/ok.json" complete 4 100 sl_add=ok || fails=$((fails + 1))

# A real sticky fault (illegal address) in place of ilp2's first launch.
STREAMLAB_INJECT_FAULT=ilp2 "$SL" run --sizes 1M --trials 3 --json "$T/fault.json" > "$T/fault.out" 2>&1
rc=$?
if [ $rc -ne 1 ]; then
    echo "FAILED: the faulting run exited $rc, want 1"; cat "$T/fault.out"; fails=$((fails + 1))
fi
if ! grep -q "ilp2 failed at n=1M" "$T/fault.out" || ! grep -qi "illegal" "$T/fault.out"; then
    echo "FAILED: the fault message does not name ilp2 and the illegal address:"; cat "$T/fault.out"
    fails=$((fails + 1))
fi
"$JC" "$T/fault.json" failed 2 100 ilp2=ERROR || fails=$((fails + 1))
"$JC" "$T/fault.json" failed 2 100 naive=ok || fails=$((fails + 1))

# Two devices in one run (--devices): the GPU's sweep, then the CPU's, one
# table with a device column, one JSON document listing both devices, every
# row verified; the CSV names each row's backend.
"$SL" run --devices 0,cpu --op add,dot --sizes 4099 --trials 2 --json "$T/two.json" --csv "$T/two.csv" \
    > "$T/two.out" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "status: complete" "$T/two.out"; then
    echo "FAILED: the --devices 0,cpu run exited $rc"; cat "$T/two.out"; fails=$((fails + 1))
fi
"$JC" "$T/two.json" complete 8 100 sl_add=ok sl_dot=ok || fails=$((fails + 1))
if ! grep -q '"devices"' "$T/two.json" || ! grep -q '^cuda,0,add,' "$T/two.csv" || ! grep -q '^cpu,-1,dot,' "$T/two.csv"; then
    echo "FAILED: two.json lacks the devices list or two.csv a backend's rows"; fails=$((fails + 1))
fi

if [ $fails -ne 0 ]; then
    echo "test_gpu_cli: $fails checks failed"
    exit 1
fi
echo "test_gpu_cli: all checks passed"
