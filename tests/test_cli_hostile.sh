#!/bin/sh
# Issue 35's findings (a new user's first run, and about 170 hostile
# inputs), each a check that failed before its fix: a write failing on
# /dev/full for every output flag, shapes of the wrong rank, results files
# that are not streamlab's (wrong types, missing fields, absurd values),
# JSON nested past the parser's limit, messages that name the wrong thing,
# the table's memory column, explain without a GPU, and train and probe
# under SIGINT / SIGTERM.
#
# Usage: test_cli_hostile.sh STREAMLAB JSON_CHECK TMPDIR HW_DIR
set -u
SL=$1
JC=$2
T=$3
HW=$4
rm -rf "$T"
mkdir -p "$T"
SMALL="--device cpu --sizes 1000 --trials 1 --warmup 0"

. "$(dirname "$0")/cli_common.sh" # fail, check, expect_text

# ---- 2: a write that fails is a failed run, for every output flag --------
for flag in --csv --json --md; do
    expect_text 1 "cannot write /dev/full" -- run $SMALL $flag /dev/full --quiet
    # and with more than one row, where the last write is not the first to fail
    expect_text 1 "cannot write /dev/full" -- run --device cpu --sizes 1000,2000 --trials 1 --warmup 0 $flag /dev/full
done
expect_text 1 "cannot write /dev/full" -- probe --device cpu --quick --only launch --json /dev/full
expect_text 1 "cannot write /dev/full" -- probe --device cpu --quick --only launch --md /dev/full
expect_text 1 "cannot write /dev/full" -- explain --hw "$HW/rtx4060.json" --json /dev/full

# ---- 2: a shape of the wrong rank is refused, not cut ----------------------
expect_text 2 "transpose takes two sides" -- run --device cpu --op transpose --shape 4x4x999
expect_text 2 "softmax takes two sides" -- run --device cpu --op softmax --shape 4x4x7
expect_text 2 "transpose takes two sides" -- explain --hw "$HW/rtx4060.json" --op transpose --shape 64x64x3
expect_text 2 "give MxNxK" -- run --device cpu --op matmul --shape 4x4
expect_text 0 "" -- run --device cpu --op transpose --shape 64x64 --trials 1 --warmup 0 --quiet
expect_text 0 "" -- run --device cpu --op stencil --shape 64x64x2 --trials 1 --warmup 0 --quiet

# ---- 2: streamlab report reads streamlab's run files and nothing else ------
# A minimal run file the checks accept (it then fails only for want of
# gnuplot, exit 1, or succeeds), and one bad field at a time.
good() {
    cat <<JSON
{"schema": "streamlab.run/1", "device": {"name": "cpu", "backend": "cpu"},
 "results": [{"op": "add", "dtype": "f32", "variant": "serial", "n": $1, "bytes": 12000, "status": "ok",
              "time_ms": {"median": 0.01}, "gbs": $2}]}
JSON
}
good 1000 1.5 > "$T/good.json"
checks=$((checks + 1))
out=$(timeout 120 "$SL" report "$T/good.json" -o "$T/good.html" 2>&1)
rc=$?
[ $rc = 2 ] && fail "report refused a well-formed run file: $out"
report_bad() { # report_bad NAME PATH-IN-MESSAGE: the file $T/NAME.json must be refused naming the field
    expect_text 2 "$2" -- report "$T/$1.json" -o "$T/$1.html"
    checks=$((checks + 1))
    [ -e "$T/$1.html" ] && fail "report of $1.json left a page"
}
good 1000 '"fast"' > "$T/gbs_string.json"
report_bad gbs_string '$.results[0].gbs: a number from 0 to'
good -5 1.5 > "$T/n_negative.json"
report_bad n_negative '$.results[0].n: a whole number from 0 to'
good 1e999 1.5 > "$T/n_inf.json"
report_bad n_inf '$.results[0].n:'
good 1000 1e308 > "$T/gbs_huge.json"
report_bad gbs_huge '$.results[0].gbs:'
good 1000.5 1.5 > "$T/n_fraction.json"
report_bad n_fraction '$.results[0].n: a whole number'
sed 's/"op": "add"/"op": null/' "$T/good.json" > "$T/op_null.json"
report_bad op_null '$.results[0].op: a non-empty string, not null'
sed 's/"device": {"name": "cpu", "backend": "cpu"},//' "$T/good.json" > "$T/no_device.json"
report_bad no_device '$.device: the device the rows ran on'
printf '{"schema": "streamlab.run/1", "device": {"name": "cpu", "backend": "cpu"}, "results": []}\n' > "$T/empty.json"
report_bad empty '$.results: at least one row'
printf '{"schema": "streamlab.profile/1", "device": 7}\n' > "$T/profile_device.json"
report_bad profile_device '$.device: an object'

# ---- 6: JSON nested past the parser's limit says so --------------------------
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' \
    > "$T/deep.json"
expect_text 2 "too deeply nested: arrays and objects open 1000 deep" -- report "$T/deep.json" -o "$T/deep.html"
expect_text 2 "too deeply nested" -- explain --hw "$T/deep.json"
printf '{"a": x}' > "$T/syntax.json"
expect_text 2 "not valid JSON (parsing stopped at byte 6 of 8)" -- report "$T/syntax.json" -o "$T/x.html"
printf '{"a": [1, 2' > "$T/truncated.json"
expect_text 2 "not valid JSON (parsing stopped at byte 10 of 11)" -- report "$T/truncated.json" -o "$T/x.html"

# ---- 6: messages name what they are about ----------------------------------
expect_text 2 "--scalar wants a finite number, not 'nan'" -- run --device cpu --op triad --scalar nan
expect_text 2 "--scalar wants a finite number, not 'inf'" -- run --device cpu --op triad --scalar=inf
expect_text 2 "--alpha wants a finite number, not '1e999'" -- run --device cpu --op axpy --alpha 1e999
# an option with a value given twice: the first was dropped without a word (--op add --op copy ran copy only)
expect_text 2 "--op given twice ('add', then 'copy'): give it once, as a list: --op add,copy" -- \
    run --device cpu --op add --op copy --sizes 1000 --trials 1
expect_text 2 "--sizes given twice" -- run --device cpu -s 1000 --sizes 2000 --trials 1
expect_text 2 "--trials given twice" -- run --device cpu --sizes 1000 -n 1 --trials=2
expect_text 2 "--device given twice" -- run --device cpu --devices cpu --sizes 1000 --trials 1
expect_text 2 "--shape given twice" -- run --device cpu --op softmax --shape 4x4 --shape 8x8 --trials 1
# ... and in every other subcommand (the last one used to win there)
expect_text 2 "--op given twice ('add', then 'triad')" -- explain --device cpu -o add --op triad
expect_text 2 "--trials given twice" -- probe --device cpu --trials 1 -n 2
expect_text 2 "--epochs given twice ('1', then '2'): give it once" -- train --epochs 1 --epochs=2
expect_text 2 "--output given twice" -- report -o a.html --output b.html x.json
expect_text 2 "--device given twice" -- list --device cpu -d cpu
expect_text 0 "" -- run --device cpu --sizes 1000 --trials 1 --warmup 0 --quiet --quiet --cold --cold
# an output that is a loop of symbolic links says so (not "a link to a missing file")
ln -s "$T/loop_b.json" "$T/loop_a.json" && ln -s "$T/loop_a.json" "$T/loop_b.json"
expect_text 2 "it is a symbolic link in a loop" -- run --device cpu --sizes 1000 --trials 1 --json "$T/loop_a.json"
# an output file that streamlab wrote as something else: what was checked, and what it is
expect_text 0 "" -- run $SMALL --json "$T/t3.json" --quiet
expect_text 2 "it exists and is a streamlab.run/1 JSON file: streamlab wrote it, but not as this output" -- \
    report "$T/t3.json" -o "$T/t3.json"
"$JC" "$T/t3.json" complete 4 4 || fail "report's refusal changed t3.json"
printf 'precious\n' > "$T/precious.csv"
expect_text 2 "its first 4 KiB lack [backend,device,op,], the mark of the file streamlab writes here" -- \
    run $SMALL --csv "$T/precious.csv"

# ---- 4: every row says where its working set lives, in the table itself ----
# (a row at 1000 elements fits in any last-level cache; --cold flushes it)
out=$(timeout 120 "$SL" run $SMALL 2>&1)
checks=$((checks + 1))
printf '%s\n' "$out" | grep -q '^n  *memory  *variant' || fail "the table has no memory column: $out"
for v in copy serial omp sl_add; do
    checks=$((checks + 1))
    printf '%s\n' "$out" | grep -q "^1K  *LLC  *$v " || fail "the $v row at 1000 elements is not marked LLC"
done
out=$(timeout 120 "$SL" run $SMALL --cold 2>&1)
checks=$((checks + 1))
printf '%s\n' "$out" | grep -q "^1K  *DRAM  *omp " || fail "a --cold row is not marked DRAM: $out"

# ---- 5: explain where there is no GPU, and every number from the device named
# --device cpu (and, on a machine without a GPU, a plain explain): the bundled
# H200 description, named in the first line.
checks=$((checks + 1))
first=$(timeout 120 "$SL" explain --device cpu 2>&1 | head -1)
case $first in
*"explaining the bundled description of the NVIDIA H200 (hw/h200.json"*) ;;
*) fail "explain --device cpu: first line '$first'" ;;
esac
expect_text 0 "on NVIDIA H200" -- explain --device cpu --op matmul --dtype bf16
checks=$((checks + 1))
out=$(timeout 120 "$SL" explain 2>&1)
rc=$?
[ $rc = 0 ] || fail "explain with no arguments exited $rc: $(printf '%s' "$out" | head -3)"
# matmul with --hw: the roofline names the RTX 4060 and nothing of the H200
out=$(timeout 120 "$SL" explain --op matmul --shape 4096x4096x4096 --hw "$HW/rtx4060.json" 2>&1)
checks=$((checks + 1))
printf '%s\n' "$out" | grep -q "matmul roofline on the NVIDIA GeForce RTX 4060" || fail "matmul's roofline is not the RTX 4060's"
checks=$((checks + 1))
printf '%s\n' "$out" | grep -q "H200" && fail "explain --hw rtx4060.json prints H200 figures: $(printf '%s\n' "$out" | grep H200)"
# its FP32 peak: 24 SMs x 128 lanes x 2.46 GHz x 2 = 15.1 TFLOP/s, and cuBLAS's bound 2 x 4096^3 / 15.1e12 = 9.09 ms
checks=$((checks + 1))
printf '%s\n' "$out" | grep -q "peaks, dense: FP32 15.1 TFLOP/s" &&
    printf '%s\n' "$out" | grep -q "^cublas  *fp32  *15.1 .* 9.09[0-9]*  compute" ||
    fail "the RTX 4060's matmul roofline numbers: $(printf '%s\n' "$out" | tail -12)"

# ---- 5: train and probe under SIGINT / SIGTERM: exit 130, a valid file that
# says so (as run does). A small IDX data set of random images (the reader
# takes plain files too) so that no download is needed.
D="$T/idx"
mkdir -p "$D"
idx_set() { # idx_set PREFIX COUNT-AS-4-OCTAL-BYTES COUNT
    { printf '\000\000\010\003'; printf "$2"; printf '\000\000\000\034\000\000\000\034'; } > "$D/$1-images-idx3-ubyte"
    head -c $(($3 * 784)) /dev/urandom >> "$D/$1-images-idx3-ubyte"
    { printf '\000\000\010\001'; printf "$2"; } > "$D/$1-labels-idx1-ubyte"
    i=0
    while [ $i -lt $(($3 / 10)) ]; do
        printf '\000\001\002\003\004\005\006\007\010\011'
        i=$((i + 1))
    done >> "$D/$1-labels-idx1-ubyte"
}
idx_set train '\000\000\007\320' 2000
idx_set t10k '\000\000\001\364' 500
# signal_test NAME SIGNAL SECONDS FILE-CHECK... -- ARGS: start, signal after SECONDS, want 130 soon after
signal_test() {
    name=$1 sig=$2 after=$3
    shift 4
    checks=$((checks + 1))
    # (a background job of a script starts with SIGINT ignored: the command
    # must catch it itself; timeout ends one that does not stop)
    timeout -s KILL 60 "$SL" "$@" > "$T/$name.out" 2>&1 &
    pid=$!
    sleep "$after"
    kill -"$sig" $pid 2>/dev/null
    t0=$(date +%s)
    wait $pid
    rc=$?
    took=$(($(date +%s) - t0))
    [ $rc = 130 ] || { fail "$name: streamlab $* got SIG$sig and exited $rc, want 130"; tail -5 "$T/$name.out"; }
    [ $took -le 10 ] || fail "$name: it took $took s to stop after SIG$sig"
}
for sig in INT TERM; do
    signal_test train-$sig $sig 2 -- train --data "$D" --backend cpu --epochs 100000 --json "$T/train-$sig.json"
    checks=$((checks + 1))
    grep -q '"status":[[:space:]]*"interrupted"' "$T/train-$sig.json" &&
        grep -q "\"interrupted_by\":[[:space:]]*\"SIG$sig\"" "$T/train-$sig.json" &&
        grep -q '"complete":[[:space:]]*false' "$T/train-$sig.json" ||
        fail "train's JSON after SIG$sig does not mark the interruption"
    signal_test probe-$sig $sig 1 -- probe --device cpu --json "$T/probe-$sig.json" --md "$T/probe-$sig.md"
    checks=$((checks + 1))
    grep -q '"status":[[:space:]]*"interrupted"' "$T/probe-$sig.json" &&
        grep -q "\"interrupted_by\":[[:space:]]*\"SIG$sig\"" "$T/probe-$sig.json" &&
        grep -q "^\*\*Interrupted\*\* by SIG$sig" "$T/probe-$sig.md" ||
        fail "probe's profile or Markdown after SIG$sig does not mark the interruption"
    # the profile is still one streamlab reads (run checks a --profile on the CPU, exit 2 if unreadable)
    expect_text 0 "checked but not used" -- run $SMALL --profile "$T/probe-$sig.json"
done
# the other outputs on /dev/full: train's --json, report's page (where gnuplot is)
expect_text 1 "cannot write /dev/full" -- train --data "$D" --backend cpu --epochs 1 --json /dev/full
if command -v gnuplot >/dev/null 2>&1; then
    expect_text 1 "cannot write /dev/full" -- report "$T/good.json" -o /dev/full
fi

if [ $fails -ne 0 ]; then
    echo "test_cli_hostile: $fails of $checks checks failed"
    exit 1
fi
echo "test_cli_hostile: all $checks checks passed"
