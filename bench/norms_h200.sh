#!/bin/bash
# bench/norms_h200.sh - issue 32 (rmsnorm and its backward) on the H200 in
# one device call: build for sm_90 (warnings as errors, ptxas report of the
# register rungs), the norms' and softmax's tests (softmax: row.cuh moved
# out of softmax.cuh), streamlab run of the ladders at the issue's shapes
# (bf16, M = 32768 x N = 1024 .. 65536, and the decode shapes M = 1, 16, 64
# x 4096, --cold), then compute-sanitizer memcheck of test_gpu_rmsnorm
# (SL_NORM_QUICK=1), then f16 and f32 at two shapes.
#
#   run(kind="nvidia-h200", carry=[".wt/norms", ".deps"],
#       command="cd .wt/norms && ln -sfn ../../.deps .deps && bash bench/norms_h200.sh")
#
# Issue 32's second session adds layernorm, layernorm_bwd and add_rmsnorm
# (stages lntests, lnrun, lnmemcheck, and rmscheck: rmsnorm's register rungs
# again after their kernels moved to common/norm_fwd.cuh / norm_bwd.cuh):
#
#   run(kind="nvidia-h200", carry=[".wt/norms2", ".deps"],
#       command="cd .wt/norms2 && ln -sfn ../../.deps .deps && \
#                STAGES='build tests lntests lnrun rmscheck lnmemcheck' bash bench/norms_h200.sh")
#
# (at most 8 files come back from $OUT: those stages write norms-h200.log,
# norms-build.log, norms-test-gpu.log, ln-test-gpu.log, ln.json, ln-bwd.json,
# arms.json and ln-memcheck.log).
#
# STAGES (default "build tests softmax run naive memcheck dtypes") picks stages; results
# go straight to $OUT, so they come back even if the call is cut short.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=$OUT
mkdir -p "$OUT"
STAGES=${STAGES:-"build tests softmax run naive memcheck dtypes"}
VARIANTS_F=${VARIANTS_F:-copy,block,regs,regs_pf,sl_rmsnorm_fwd}
VARIANTS_B=${VARIANTS_B:-copy,block,regs,regs_pf,sl_rmsnorm_bwd}
t0=$(date +%s)
exec > >(tee "$OUT/norms-h200.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
on() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it

BUILD=build-h200
SL=$BUILD/streamlab
if on build; then
    stage "build"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
    git log --oneline -1
    cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS \
        > "$W/norms-build.log" 2>&1 || { echo "cmake failed"; tail -30 "$W/norms-build.log"; exit 1; }
    cmake --build $BUILD -j 16 --target streamlab_cli test_gpu_rmsnorm test_rmsnorm_cpu test_gpu_softmax \
        test_softmax_cpu test_gpu_layernorm test_layernorm_cpu >> "$W/norms-build.log" 2>&1 || { echo "build failed"; grep -E "error" "$W/norms-build.log" | head -30; exit 1; }
    echo "ptxas, the norms' register rungs (registers, spills):"
    grep -A2 -E "norm_fwd_regs|norm_bwd_regs" "$W/norms-build.log" | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" \
        | sort | uniq -c | sort -rn | head -16
fi
if on tests; then
    stage "tests"
    timeout 240 $BUILD/tests/test_gpu_rmsnorm > "$W/norms-test-gpu.log" 2>&1; echo "test_gpu_rmsnorm exit: $?"
    grep -E "FAIL|passed|failed|largest" "$W/norms-test-gpu.log" | tail -8
    timeout 60 $BUILD/tests/test_rmsnorm_cpu 2>&1 | tail -2; echo "test_rmsnorm_cpu exit: ${PIPESTATUS[0]}"
fi
if on softmax; then
    stage "softmax tests (row.cuh)"
    timeout 150 $BUILD/tests/test_gpu_softmax > "$W/softmax-test.log" 2>&1; echo "test_gpu_softmax exit: $?"
    grep -E "FAIL|passed|failed" "$W/softmax-test.log" | tail -4
    timeout 60 $BUILD/tests/test_softmax_cpu 2>&1 | tail -1
fi
BIG=32768x1024,32768x2048,32768x4096,32768x8192,32768x16384,32768x32768,32768x65536
if on run; then
    stage "rmsnorm bf16, M = 32768"
    $SL run --op rmsnorm --dtype bf16 --shape $BIG --variants $VARIANTS_F --trials 20 --warmup 3 \
        --json "$W/fwd-bf16.json" --md "$W/fwd-bf16.md" --quiet 2>&1 | tail -40
    stage "rmsnorm_bwd bf16, M = 32768"
    $SL run --op rmsnorm_bwd --dtype bf16 --shape $BIG --variants $VARIANTS_B --trials 20 --warmup 3 \
        --json "$W/bwd-bf16.json" --md "$W/bwd-bf16.md" --quiet 2>&1 | tail -40
    stage "decode: M = 1, 16, 64 x 4096, bf16, --cold"
    $SL run --op rmsnorm,rmsnorm_bwd --dtype bf16 --shape 1x4096,16x4096,64x4096 --cold --trials 50 --warmup 5 \
        --json "$W/decode-bf16.json" --md "$W/decode-bf16.md" --quiet 2>&1 | tail -30
fi
if on naive; then
    stage "naive rungs, 32768 x 4096 bf16"
    $SL run --op rmsnorm,rmsnorm_bwd --dtype bf16 --shape 32768x4096 --variants copy,naive --trials 3 --warmup 1 \
        2>&1 | grep -E "naive|copy" | tail -8
fi
if on memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck"
    SL_NORM_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $BUILD/tests/test_gpu_rmsnorm \
        > "$W/norms-memcheck.log" 2>&1
    echo "memcheck test_gpu_rmsnorm exit: $?"
    grep -E "ERROR SUMMARY|FAILED|passed|failed" "$W/norms-memcheck.log" | tail -4
fi
if on dtypes; then
    stage "f16, f32: 32768 x 4096 and 32768 x 65536"
    $SL run --op rmsnorm --dtype f16,f32 --shape 32768x4096,32768x65536 --variants copy,regs,regs_pf,sl_rmsnorm_fwd \
        --trials 10 --warmup 2 --json "$W/fwd-f16f32.json" --quiet 2>&1 | tail -14
    $SL run --op rmsnorm_bwd --dtype f32 --shape 32768x4096,32768x65536 --variants copy,regs,regs_pf,sl_rmsnorm_bwd \
        --trials 10 --warmup 2 --json "$W/bwd-f32.json" --quiet 2>&1 | tail -8
fi
if on lntests; then
    stage "layernorm, layernorm_bwd, add_rmsnorm tests"
    timeout 300 $BUILD/tests/test_gpu_layernorm > "$W/ln-test-gpu.log" 2>&1; echo "test_gpu_layernorm exit: $?"
    grep -E "FAIL|passed|failed|largest" "$W/ln-test-gpu.log" | tail -8
    timeout 60 $BUILD/tests/test_layernorm_cpu 2>&1 | tail -2; echo "test_layernorm_cpu exit: ${PIPESTATUS[0]}"
fi
LNBIG=${LNBIG:-$BIG}
if on lnrun; then
    stage "layernorm bf16, M = 32768"
    $SL run --op layernorm --dtype bf16 --shape $LNBIG --variants copy,regs,regs_pf,regs_1k,sl_layernorm_fwd --trials 20 \
        --warmup 3 --json "$W/ln.json" 2>&1 | tail -40
    stage "layernorm_bwd bf16, M = 32768"
    $SL run --op layernorm_bwd --dtype bf16 --shape $LNBIG --variants copy,regs,sl_layernorm_bwd --trials 20 \
        --warmup 3 --json "$W/ln-bwd.json" 2>&1 | tail -30
    stage "add_rmsnorm bf16, M = 32768, and decode"
    $SL run --op add_rmsnorm --dtype bf16 --shape $LNBIG,1x4096,16x4096,64x4096 --variants copy,regs,sl_add_rmsnorm_fwd \
        --trials 20 --warmup 3 --json "$W/arms.json" 2>&1 | tail -40
fi
if on rmscheck; then
    stage "rmsnorm / rmsnorm_bwd bf16 after the kernels' move (regs rungs; first session's numbers to compare)"
    $SL run --op rmsnorm --dtype bf16 --shape 32768x1024,32768x8192,32768x32768,32768x65536 \
        --variants copy,regs,regs_pf,regs_1k,sl_rmsnorm_fwd --trials 10 --warmup 2 2>&1 | grep -E "^32768|copy|regs|sl_" | tail -24
    $SL run --op rmsnorm_bwd --dtype bf16 --shape 32768x1024,32768x8192,32768x32768,32768x65536 \
        --variants copy,regs,regs_pf,sl_rmsnorm_bwd --trials 10 --warmup 2 2>&1 | grep -E "^32768|copy|regs|sl_" | tail -24
fi
if on lnmemcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck (layernorm)"
    SL_NORM_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $BUILD/tests/test_gpu_layernorm \
        > "$W/ln-memcheck.log" 2>&1
    echo "memcheck test_gpu_layernorm exit: $?"
    grep -E "ERROR SUMMARY|FAILED|passed|failed" "$W/ln-memcheck.log" | tail -4
fi
stage "done"
