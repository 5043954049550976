#!/bin/bash
# bench/issue17.sh - issue 17 on the H200 in one device call: build for
# sm_90, the offset and graph tests and test_gpu_ops (every rung, now with
# the realigned layout), align_bench (alignment, small n, L2 sizes against
# CUB), compute-sanitizer memcheck of the new tests (quick mode), and the
# add ladder with the model at 2^26 and 2^28, f32 and bf16.
#
#   run(kind="nvidia-h200", carry=[".wt/issue17", ".deps"],
#       command="cd .wt/issue17 && cp -r ../../.deps . && bash bench/issue17.sh")
#
# $OUT gets issue17.log (this output) and issue17.tgz (everything under
# $W: build.log, tests.log, the tests' outputs, align.json, memcheck.log,
# model-{f32,bf16}.{json,md}); also packed when the script fails or stops.
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/i17
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/issue17.log") 2>&1
trap 'tar czf "$OUT/issue17.tgz" -C "$W" .' EXIT
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }

. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
B=build-h200
stage "device"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,ecc.mode.current --format=csv
stage "build"
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON -DSL_BUILD_BENCH=ON \
    $PREFIX_ARGS > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
cmake --build $B -j 16 --target streamlab_cli test_gpu_ops test_gpu_axpy test_gpu_align test_gpu_graph align_bench \
    >> "$W/build.log" 2>&1 || { grep -E "error" -A3 "$W/build.log" | head -60; exit 1; }
grep -E "spill" "$W/build.log" | grep -v " 0 bytes spill" | head -5
cuobjdump --dump-sass $B/libstreamlab.a > "$W/sass.txt" 2>/dev/null
echo "SASS of libstreamlab.a: $(grep -c 'SHF.R.W' "$W/sass.txt") SHF.R.W (funnel shifts), $(grep -cE 'LDL|STL' "$W/sass.txt") LDL/STL (local memory)"
gzip -f "$W/sass.txt"
stage "tests"
for t in test_gpu_align test_gpu_graph test_gpu_axpy test_gpu_ops; do
    s=$(date +%s)
    timeout 200 $B/tests/$t > "$W/$t.out" 2>&1; rc=$?
    echo "$t rc=$rc ($(( $(date +%s) - s ))s): $(tail -1 "$W/$t.out")"
    [ $rc -ne 0 ] && tail -20 "$W/$t.out"
done > "$W/tests.log" 2>&1
cat "$W/tests.log"
stage "align_bench"
# ALIGN_DTYPES: the 2- and 1-byte dtypes' every-combination sweep ran in the
# first call (bench/results/h200-alignment-2026-11-23.md says which); their
# bulk path has not changed since. f32 and f64 again, 15 trials per combination.
ALIGN_DTYPES=${ALIGN_DTYPES:-f32,f64} timeout 170 $B/align_bench "$W/align.json" ${BENCH_PARTS:-smalln l2 axpyrungs rwmix align}
echo "align_bench rc=$?"
stage "memcheck (quick)"
for t in test_gpu_graph test_gpu_align; do
    STREAMLAB_TEST_QUICK=1 timeout 80 compute-sanitizer --tool memcheck --leak-check full $B/tests/$t 2>&1 | tail -4
done > "$W/memcheck.log"
cat "$W/memcheck.log"
stage "model: add ladder, f32 and bf16, 2^26 and 2^28 every rung, 2^30 four rungs"
for dt in f32 bf16; do
    timeout 45 $B/streamlab run --op add --dtype $dt --sizes 2^26,2^28 --trials 15 --warmup 3 --quiet \
        --json "$W/model-$dt.json" --md "$W/model-$dt.md"
    echo "model $dt rc=$?"
    timeout 45 $B/streamlab run --op add --dtype $dt --sizes 2^30 --trials 8 --warmup 2 --quiet \
        --variants grid_vec4,bulk,tile1_lu,sl_add --json "$W/model-$dt-2e30.json" --md "$W/model-$dt-2e30.md"
    echo "model $dt 2^30 rc=$?"
done
stage "run --reprobe"
timeout 30 $B/streamlab run --op add --dtype f32 --sizes 2^28 --trials 10 --warmup 3 --quiet --reprobe \
    --variants bulk,grid_vec4 --json "$W/model-reprobe.json" --md "$W/model-reprobe.md"
echo "reprobe rc=$?"
stage "done"
