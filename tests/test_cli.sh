#!/bin/sh
# The CLI's exit codes and messages, and its result files, on the CPU
# backend. Usage: test_cli.sh STREAMLAB JSON_CHECK TMPDIR TEST_PROFILE HW_DIR
set -u
SL=$1
JC=$2
T=$3
TP=$4
HW=$5
mkdir -p "$T"
fails=0
checks=0

# expect CODE PATTERN -- ARGS...: exit code and a pattern in stdout+stderr
# (an empty pattern checks the exit code only).
expect() {
    code=$1
    pattern=$2
    shift 3
    checks=$((checks + 1))
    out=$("$SL" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        echo "FAILED: streamlab $* exited $rc, want $code; output:"
        echo "$out" | head -20
        fails=$((fails + 1))
    elif [ -n "$pattern" ] && ! printf '%s' "$out" | grep -q -- "$pattern"; then
        echo "FAILED: streamlab $*: output lacks '$pattern':"
        echo "$out" | head -20
        fails=$((fails + 1))
    fi
}

jcheck() {
    checks=$((checks + 1))
    if ! "$JC" "$@"; then
        echo "FAILED: json_check $*"
        fails=$((fails + 1))
    fi
}

expect 2 "usage: streamlab" -- 
expect 2 "unknown command 'bogus'" -- bogus
expect 0 "usage: streamlab" -- --help
expect 0 "usage: streamlab run" -- run --help
expect 0 "usage: streamlab run" -- help run
expect 0 "streamlab 0" -- version
expect 2 "unknown option '--bogus'" -- run --bogus
expect 2 "needs a value" -- run --sizes
expect 2 "bad size '10Q'" -- run --sizes 10M,10Q
expect 2 "whole number" -- run --sizes 1.5
expect 2 "at least 1" -- run --sizes 0
expect 2 "--trials wants" -- run --trials 0
expect 2 "--warmup wants" -- run --warmup -1
expect 2 "--device wants" -- run --device banana
expect 2 "unknown variant 'nope'" -- run --device cpu --variants omp,nope
expect 2 "is not one of" -- run --dtype f128
expect 2 "axpy is offered in f32, f16, bf16, f64" -- run --op axpy --dtype fp8e4m3
expect 2 "dot is offered in f32, f64" -- run --op dot --dtype bf16
expect 2 "not implemented (available: copy, scale, add, triad, dot, nstream, axpy" -- run --op no_such_op
expect 2 "lists add twice" -- run --op add,add
expect 2 "--timer wants" -- run --timer cpu
expect 2 "unknown variant 'bulk' for these ops on the cpu" -- run --device cpu --op copy,dot --variants bulk
expect 2 "lists f32 twice" -- run --dtype f32,bf16,f32
expect 2 "wants a finite number, not 'nan'" -- run --op axpy --alpha nan
expect 2 "--offset wants" -- run --offset -1
expect 2 "unexpected argument" -- run extra
expect 2 "largest n that fits" -- run --device cpu --sizes 2^50
expect 2 "cannot write" -- run --device cpu --sizes 1000 --json "$T/no/such/dir/x.json"
expect 2 "device 99" -- run --device 99 --sizes 1000
expect 2 "device 99" -- info --device 99
expect 0 "theoretical peak" -- info --device cpu
expect 0 "serial" -- list --device cpu
expect 0 "nstream  a = a + b + s c" -- list --device cpu
expect 2 "unknown option" -- list --bogus

# A small run: table on stdout, three files, all rows verified.
expect 0 "status: complete" -- run --device cpu --sizes 1000,3 --trials 3 --warmup 1 \
    --json "$T/ok.json" --csv "$T/ok.csv" --md "$T/ok.md"
jcheck "$T/ok.json" complete 8 8
checks=$((checks + 1))
if [ "$(wc -l < "$T/ok.csv")" -ne 9 ] || ! grep -q "^cpu,-1,add,f32,f32,omp,rung,1000," "$T/ok.csv"; then
    echo "FAILED: ok.csv has not 8 rows + header with the omp row:"; cat "$T/ok.csv"; fails=$((fails + 1))
fi
checks=$((checks + 1))
if ! grep -qF "| 1K | LLC | omp | f32 | rung |" "$T/ok.md"; then
    echo "FAILED: ok.md lacks the omp row:"; cat "$T/ok.md"; fails=$((fails + 1))
fi

# Low-precision storage and axpy on the CPU backend, verified; --counters
# says once why it cannot read counters there and the run goes on.
expect 0 "status: complete" -- run --device cpu --dtype f32,bf16,fp8e4m3 --sizes 1000 --trials 2 --offset 3 \
    --json "$T/dt.json"
jcheck "$T/dt.json" complete 12 12
expect 0 "status: complete" -- run --device cpu --op axpy --dtype bf16,f16 --sizes 1001 --trials 2 --alpha 0.5 \
    --json "$T/axpy.json" --md "$T/axpy.md"
jcheck "$T/axpy.json" complete 8 8 omp=ok
checks=$((checks + 1))
grep -qF "| 1001 | LLC | omp | bf16 | rung |" "$T/axpy.md" || { echo "FAILED: axpy.md lacks the bf16 omp row"; fails=$((fails + 1)); }
expect 0 "counters unavailable" -- run --device cpu --sizes 100 --trials 1 --counters
export STREAMLAB_COUNTERS_UNAVAILABLE="test"
expect 0 "STREAMLAB_COUNTERS_UNAVAILABLE" -- run --device cpu --sizes 100 --trials 1 --counters
unset STREAMLAB_COUNTERS_UNAVAILABLE

# --variants keeps the ceiling and orders nothing differently.
expect 0 "" -- run --device cpu --sizes 100 --trials 2 --variants omp --json "$T/sel.json" --quiet
jcheck "$T/sel.json" complete 2 2 omp=ok

# A failing variant: the run goes on, exits 1, and the file says so.
export STREAMLAB_INJECT_FAULT=omp
expect 1 "failed" -- run --device cpu --sizes 1000,2000 --trials 2 \
    --json "$T/fail.json" --quiet
jcheck "$T/fail.json" failed 8 8 omp=ERROR
unset STREAMLAB_INJECT_FAULT

# An interrupted sweep leaves a valid file with what it finished.
"$SL" run --device cpu --sizes 20M --trials 100000 --variants serial --json "$T/int.json" --quiet \
    > "$T/int.out" 2>&1 &
pid=$!
sleep 2
kill -INT $pid
wait $pid
rc=$?
checks=$((checks + 1))
if [ $rc -ne 130 ]; then
    echo "FAILED: interrupted run exited $rc, want 130"; cat "$T/int.out"; fails=$((fails + 1))
fi
jcheck "$T/int.json" interrupted 0 2

# probe: usage errors, a quick CPU run that writes a readable profile, and
# --only updating that profile in place.
expect 2 "unknown probe 'bogus'" -- probe --only bogus
expect 2 "--trials wants" -- probe --trials 0
expect 0 "pointer chase" -- probe --help
expect 0 "profile written to" -- probe --device cpu --quick --trials 2 --json "$T/cpu.profile.json" \
    --md "$T/cpu.probe.md"
checks=$((checks + 1))
"$TP" --check "$T/cpu.profile.json" || fails=$((fails + 1))
expect 0 "updating" -- probe --device cpu --quick --trials 2 --only latency --json "$T/cpu.profile.json"
checks=$((checks + 1))
"$TP" --check "$T/cpu.profile.json" || { echo "FAILED: --only latency lost the ceilings"; fails=$((fails + 1)); }
checks=$((checks + 1))
grep -q '"offset":' "$T/cpu.profile.json" || { echo "FAILED: --only latency lost the other probes' points"; fails=$((fails + 1)); }
expect 2 "largest n that fits" -- run --device cpu --sizes 1537228672809129301
checks=$((checks + 1))
grep -q "== latency" "$T/cpu.probe.md" || { echo "FAILED: probe --md lacks the latency table"; fails=$((fails + 1)); }

# explain: the model with a described GPU (seed 000's RTX 4060), and its errors.
expect 0 "DRAM bandwidth  *8.8235 ms  *<- limiter" -- explain --hw "$HW/rtx4060.json" --variant naive
expect 0 "fp8 output" -- explain --hw "$HW/rtx4060.json" --variant naive
expect 0 "sl_add" -- explain --hw "$HW/rtx4060.json" --n 2^16 --json "$T/explain.json"
checks=$((checks + 1))
grep -q '"limiter"' "$T/explain.json" || { echo "FAILED: explain --json lacks limiters"; fails=$((fails + 1)); }
expect 2 "unknown variant 'nope'" -- explain --hw "$HW/rtx4060.json" --variant nope
expect 2 "cannot read" -- explain --hw "$T/no-such.json"
expect 2 "--n '10Q'" -- explain --hw "$HW/rtx4060.json" --n 10Q
expect 2 "dot is offered in f32, f64" -- explain --hw "$HW/rtx4060.json" --op dot --dtype bf16
expect 2 "is not one of" -- explain --hw "$HW/rtx4060.json" --dtype f128
expect 0 "sl_triad" -- explain --hw "$HW/rtx4060.json" --op triad --dtype f64
# Bytes come from the op's descriptor: fp8out moves 9 B/element (4 + 4 + 1),
# so its modelled bandwidth stays under the RTX 4060's 272 GB/s peak.
checks=$((checks + 1))
fp8=$("$SL" explain --hw "$HW/rtx4060.json" --n 2^28 2>&1 | awk '$1 == "fp8out" {print $3}')
if [ -z "$fp8" ] || [ "$fp8" -gt 272 ]; then
    echo "FAILED: explain shows fp8out at '$fp8' GB/s, above the 272 GB/s peak"; fails=$((fails + 1))
fi

# Every op of the STREAM / BabelStream set on the CPU, one table, verified,
# with the one-line-per-op summary at the end.
expect 0 "summary: the public function of each op" -- run --device cpu --op all --dtype f32,f64 --sizes 1000,4099 \
    --trials 2 --warmup 1 --json "$T/all.json" --md "$T/all.md" --csv "$T/all.csv"
jcheck "$T/all.json" complete 100 400 sl_dot=ok  # 310 rows with the norms of issue 32 (20 ops)
checks=$((checks + 1))
for op in copy scale add triad dot nstream axpy; do
    grep -q "sl_$op" "$T/all.md" || { echo "FAILED: all.md lacks sl_$op"; fails=$((fails + 1)); }
done
expect 0 "status: complete" -- run --device cpu --op triad,dot --dtype f64 --sizes 1000 --trials 2 --timer wall
# The backward row ops in f16: their inputs sit where real data does (y a
# probability, rstd near 1 / rms(x): sl_buf_desc.scale_log2), so the fp64
# reference no longer overflows f16 and every row is checked.
expect 0 "status: complete" -- run --device cpu --op rmsnorm_bwd,layernorm_bwd,softmax_bwd --dtype f16 --shape 64x1024,3x1000 \
    --trials 2 --warmup 1

if [ $fails -ne 0 ]; then
    echo "test_cli: $fails of $checks checks failed"
    exit 1
fi
echo "test_cli: all $checks checks passed"
