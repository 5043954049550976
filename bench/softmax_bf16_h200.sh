#!/bin/bash
# bench/softmax_bf16_h200.sh - issue 18's second pass (bf16 / f16 at DRAM
# shapes: 64 packed elements a thread, 08_regs.cu smx_regs_pk) on the H200
# in one short device call: build for sm_90 (warnings as errors, ptxas
# report of the register rung), test_gpu_softmax, compute-sanitizer
# memcheck of it (SL_SOFTMAX_QUICK=1: f32, plus the many-row cases in every
# dtype), then softmax_bench and bench/peers.py softmax at the DRAM shapes
# (--cold; f32, bf16, f16) and the seed shapes (f32, bf16), for
# bench/softmax_report.py. A trimmed bench/softmax_h200.sh (same set-up).
#
#   run(kind="nvidia-h200", carry=[".wt/issue18b", ".deps"],
#       command="cd .wt/issue18b && cp -r ../../.deps . && bash bench/softmax_bf16_h200.sh")
#
# .cudnn/include (cudnn*.h, never committed) is carried beside it for the
# cuDNN peer. STAGES (default "build tests dram memcheck seed") picks stages.
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=${WORK:-$OUT} # results straight to $OUT: they come back even if the call is cut short
mkdir -p "$OUT" "$W"
STAGES=${STAGES:-"build tests dram memcheck seed"}
t0=$(date +%s)
exec > >(tee "$OUT/softmax-bf16-h200.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
on() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

. bench/deps_env.sh   # cJSON, and cuDNN (headers from .cudnn/include, libraries from torch's wheel): CUDNN_ARGS

BUILD=build-h200
if on build; then
    stage "build"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON -DSL_BUILD_BENCH=ON \
        $PREFIX_ARGS $CUDNN_ARGS > "$W/softmax-build.log" 2>&1 || { echo "cmake failed"; tail -30 "$W/softmax-build.log"; exit 1; }
    grep -i cudnn "$W/softmax-build.log" | head -2
    cmake --build $BUILD -j 16 --target test_gpu_softmax softmax_bench \
        >> "$W/softmax-build.log" 2>&1 || { echo "build failed"; grep -E "error" "$W/softmax-build.log" | head -30; exit 1; }
    echo "ptxas, 08_regs (registers / spills, each instantiation):"
    grep -A2 "smx_regs" "$W/softmax-build.log" | grep -E "spill" | sort | uniq -c
fi
if on tests; then
    stage "test_gpu_softmax"
    timeout 100 $BUILD/tests/test_gpu_softmax > "$W/softmax-test.log" 2>&1; echo "test_gpu_softmax exit: $?"
    grep -E "FAIL|passed|failed" "$W/softmax-test.log" | tail -8
fi
if on dram; then
    stage "DRAM shapes, cold: streamlab"
    $BUILD/softmax_bench --shapes 4096x2^15,16384x2^14 --dtypes bf16,f16,f32 --cold --no-graph --trials 15 \
        --variants copy,cudnn,online,regs,sl_softmax --json "$W/softmax-dram.json"
    echo "softmax_bench exit: $?"
    stage "DRAM shapes, cold: torch"
    PYTHONUNBUFFERED=1 python3 bench/peers.py softmax --shapes 4096x2^15,16384x2^14 --dtypes bf16,f16,f32 --cold \
        --trials 15 --graph-calls 10 --graph-reps 3 --json "$W/torch-dram.json"
fi
if on memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck"
    SL_SOFTMAX_QUICK=1 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $BUILD/tests/test_gpu_softmax \
        > "$W/softmax-memcheck.log" 2>&1
    echo "memcheck exit: $?"; tail -4 "$W/softmax-memcheck.log"
fi
if on seed; then
    stage "seed shapes: streamlab (event, graph)"
    $BUILD/softmax_bench --dtypes f32,bf16 --trials 15 --graph-reps 5 --variants copy,cudnn,regs,sl_softmax --json "$W/softmax-seed.json"
    echo "softmax_bench exit: $?"
    stage "seed shapes: torch"
    PYTHONUNBUFFERED=1 python3 bench/peers.py softmax --dtypes f32,bf16 --trials 15 --graph-reps 5 --json "$W/torch-seed.json"
fi
stage "done"
