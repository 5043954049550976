#!/bin/bash
# bench/xent_h200.sh - issue 33 on the H200 in one device call: build for
# sm_90 (warnings as errors, ptxas report of the new kernels), the
# softmax-backward and cross-entropy tests (CPU and GPU) and
# compute-sanitizer memcheck of the GPU tests (f32, QUICK), `streamlab
# explain`, then `streamlab run` of softmax_bwd, xent (fused forward +
# backward) and xent_fwd (forward only) through the harness (every
# element of every output checked against the fp64 reference before and
# after timing; CUDA-event timings; the copy_k ceiling, a copy kernel on
# the same tensor, gives %copy) at the DRAM shapes, bf16 first.
#
#   run(kind="nvidia-h200", carry=[".wt/xent", ".deps"],
#       command="cd .wt/xent && ln -sfn ../../.deps .deps && bash bench/xent_h200.sh")
#
# STAGES (default "build tests memcheck explain harness xent") picks stages;
# "sass" adds the instruction mix of the cross-entropy kernels (cuobjdump,
# per opcode, into $OUT/xent-sass.txt). SBWD=0 leaves out the softmax
# backward's tests and memcheck. The second session (sl_cross_entropy_bwd):
#   run(kind="nvidia-h200", carry=[".wt/xent2", ".deps"], command="cd .wt/xent2 &&
#       ln -sfn ../../.deps .deps && SBWD=0 STAGES='build tests memcheck xent sass'
#       XENT_SHAPES=16384x32768,4096x131072,4096x262144 bash bench/xent_h200.sh")
# Results go to $OUT (xent-h200.log, the JSON rows, the build log).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
STAGES=${STAGES:-"build tests memcheck explain harness xent"}
t0=$(date +%s)
exec > >(tee "$OUT/xent-h200.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
on() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

. bench/deps_env.sh
BUILD=/tmp/build-xent
if on build; then
    stage "device"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,ecc.mode.current --format=csv
    nvcc --version | tail -2
    stage "build"
    GEN=""; command -v ninja >/dev/null && GEN="-G Ninja"
    cmake -S . -B $BUILD $GEN -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS \
        > "$OUT/xent-build.log" 2>&1 || { echo "cmake failed"; tail -30 "$OUT/xent-build.log"; exit 1; }
    cmake --build $BUILD -j 16 --target streamlab_cli test_softmax_bwd_cpu test_gpu_softmax_bwd test_xent_cpu test_gpu_xent \
        >> "$OUT/xent-build.log" 2>&1 || { echo "build failed"; grep -E "error" "$OUT/xent-build.log" | head -30; exit 1; }
    grep -A2 "sbwd_\|cpk_\|xent_" "$OUT/xent-build.log" | grep -E "spill|Used" | sort | uniq -c | head -20
fi
SL=$BUILD/streamlab
if on tests; then
    stage "tests"
    if [ "${SBWD:-1}" != 0 ]; then
        $BUILD/tests/test_softmax_bwd_cpu 2>&1 | tail -3
        timeout 300 $BUILD/tests/test_gpu_softmax_bwd 2>&1 | tail -15; echo "test_gpu_softmax_bwd exit: ${PIPESTATUS[0]}"
    fi
    $BUILD/tests/test_xent_cpu 2>&1 | tail -3
    timeout 300 $BUILD/tests/test_gpu_xent 2>&1 | tail -25; echo "test_gpu_xent exit: ${PIPESTATUS[0]}"
fi
if on explain; then
    stage "explain"
    $SL explain --op softmax_bwd --shape 16384x131072 --dtype bf16 2>&1 | tail -9
    $SL explain --op xent --shape 16384x131072 --dtype bf16 2>&1 | tail -8
    $SL explain --op xent_fwd --shape 16384x131072 --dtype bf16 2>&1 | tail -7
fi
if on harness; then
    stage "harness softmax_bwd"
    timeout 100 $SL run --op softmax_bwd --dtype ${SBWD_DT:-bf16,f32} \
        --shape ${SBWD_SHAPES:-4096x32768,16384x16384,16384x131072} --trials 20 --warmup 3 \
        --json "$OUT/xent-softmax_bwd.json" 2>&1 | grep -v "^$" | grep -v "warning: profile" | tail -40
fi
if on xent; then
    for op in xent_fwd xent; do
        stage "harness $op"
        timeout ${XENT_T:-130} $SL run --op $op --dtype bf16 \
            --shape ${XENT_SHAPES:-16384x32000,16384x32768,16384x50304,4096x128256,4096x131072,4096x151936,4096x262144} \
            --trials 20 --warmup 3 --json "$OUT/xent-$op.json" 2>&1 | grep -v "^$" | grep -v "warning: profile" | tail -45
    done
fi
if on memcheck; then
    stage "memcheck"
    if [ "${SBWD:-1}" != 0 ]; then
        SL_SOFTMAX_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
            $BUILD/tests/test_gpu_softmax_bwd 2>&1 | tail -6; echo "memcheck exit: ${PIPESTATUS[0]}"
    fi
    SL_XENT_QUICK=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
        $BUILD/tests/test_gpu_xent 2>&1 | tail -6; echo "memcheck xent exit: ${PIPESTATUS[0]}"
fi
if on sass; then
    stage "sass"
    # per kernel: the opcode counts of its SASS (static, the whole function)
    cuobjdump -sass "$SL" 2>/dev/null | awk '
        /Function :/ { fn = $3 }
        /^ +\/\*[0-9a-f]+\*\// { if (fn ~ /xent/) { op = $2; if (op ~ /^@/) op = $3; sub(/\..*/, "", op); n[fn " " op]++ } }
        END { for (k in n) print n[k], k }' | sort -k2,2 -k1,1nr > "$OUT/xent-sass.txt"
    wc -l "$OUT/xent-sass.txt"
    awk '{t[$2] += $1} END {for (f in t) print t[f], f}' "$OUT/xent-sass.txt" | sort -k2
fi
stage "done"
