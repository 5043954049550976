#!/bin/bash
# bench/correctness_h200.sh - issue 25, second device call: after the first
# (bench/split_cost_babelstream.sh) measured the exact split of x - m at +12% on
# sl_softmax f32 4096 x 2^15, the GPU kernels went back to the rounded
# difference (the base tree's code) and the bound was stated instead
# ((16 + ln(1 / |y|) + ln n) x 2^-24, softmax/api.h). This call builds
# this tree (sm_90, warnings as errors) and runs test_gpu_softmax (every
# CUDA rung, the wide rows against the stated bound and the bound
# tightened), test_gpu_bits (the cuBLAS peer's quieting of signalling NaNs
# now left out), test_gpu_ops for copy and dot (copy's fp8), and
# `streamlab run --op softmax` (the harness's verifier with the log terms).
#
#   run(kind="nvidia-h200", carry=[".wt/correct", ".deps"],
#       command="cd .wt/correct && bash bench/correctness_h200.sh")
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/i25b
mkdir -p "$OUT" "$W"
trap 'tar czf "$OUT/correctness-out.tgz" -C "$W" . 2>/dev/null' EXIT
t0=$(date +%s)
exec > >(tee "$OUT/correctness-h200.log") 2>&1
stage() { echo "== [$(($(date +%s) - t0))s] $*"; }
DEBS="$(ls ../../.deps/*.deb 2>/dev/null)" . bench/deps_env.sh
NEW=/tmp/new
stage "device"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
stage "build (sm_90, -DSL_WERROR=ON)"
cmake -S . -B $NEW -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > $W/build.log 2>&1 &&
    cmake --build $NEW -j 16 --target streamlab_cli test_gpu_softmax test_gpu_bits test_gpu_ops test_softmax_cpu \
        >> $W/build.log 2>&1
echo "build rc=$?"; grep -E "error|warning" $W/build.log | head
stage "test_softmax_cpu"
$NEW/tests/test_softmax_cpu 2>&1 | tail -6
stage "test_gpu_softmax"
timeout 100 $NEW/tests/test_gpu_softmax > $W/test_gpu_softmax.txt 2>&1
echo "test_gpu_softmax exit $?"; grep -v "^  " $W/test_gpu_softmax.txt | tail -8
stage "test_gpu_bits, test_gpu_ops (copy, dot)"
timeout 60 $NEW/tests/test_gpu_bits 2>&1 | tail -4; echo "test_gpu_bits exit ${PIPESTATUS[0]}"
STREAMLAB_TEST_OPS=copy,dot timeout 60 $NEW/tests/test_gpu_ops 2>&1 | tail -3; echo "test_gpu_ops exit ${PIPESTATUS[0]}"
stage "streamlab run --op softmax (the harness's verifier, log terms)"
$NEW/streamlab run --op softmax --shape 4096x2^15,128x2^17 --dtype f32,bf16 --variants sl_softmax,online \
    --trials 3 --warmup 1 --json $W/harness.json --md $W/harness.md --quiet 2>&1 | tail -2
stage "done"
