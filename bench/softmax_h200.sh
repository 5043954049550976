#!/bin/bash
# bench/softmax_h200.sh - issue 18 on the H200 in one device call: build
# for sm_90 (warnings as errors, ptxas report), the softmax tests (CPU and
# GPU) and compute-sanitizer memcheck of the GPU test, the SASS of the
# register rung, then the benchmark: bench/softmax_bench (every rung, the
# API, cuDNN and the copy ceiling; event and CUDA-graph timings) and
# bench/peers.py softmax (torch.softmax, eager and graph) at the seed's
# shapes (128 x 2^10 .. 2^17) and, with --cold, at the DRAM-sized shapes
# (4096 x 2^15, 16384 x 2^14), f32 and bf16; and `streamlab run --op
# softmax` through the harness (every element of every row verified).
#
#   run(kind="nvidia-h200", carry=[".deps", ".cudnn"], command="STAGES=softmax bash bench/device.sh")
#   (or, alone: bash bench/softmax_h200.sh)
#
# .cudnn/include (cudnn*.h from a CUDA toolkit, never committed) is carried
# beside it: the image has cuDNN 9's libraries in torch's wheels but no
# header. STAGES (default "build tests sass seed dram harness memcheck")
# picks stages. Results go to $OUT (softmax-*.json, the logs); summarise
# with bench/softmax_report.py.
# Environment (defaults: issue 18's first pass): DRAM_DTYPES (f32,bf16),
# DRAM_VARIANTS (copy,cudnn,unroll,online,regs,regs_cl,sl_softmax),
# SEED_DTYPES (f32,bf16), SEED_ARGS (softmax_bench's, "--trials 30"),
# SEED_TORCH_ARGS ("--trials 30"). Its second pass (bf16 / f16 at the DRAM
# shapes, bench/results/h200-softmax-bf16-2026-11-23.md) is
#   STAGES="build tests dram memcheck seed" DRAM_DTYPES=bf16,f16,f32
#   DRAM_VARIANTS=copy,cudnn,online,regs,sl_softmax
#   SEED_ARGS="--trials 15 --graph-reps 5 --variants copy,cudnn,regs,sl_softmax"
#   SEED_TORCH_ARGS="--trials 15 --graph-reps 5" bash bench/softmax_h200.sh
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=${WORK:-/tmp/softmax-work}
mkdir -p "$OUT" "$W"
# the device tool brings back few files: everything goes to $W, packed
# into $OUT/softmax-out.tgz at the end (also on failure)
trap 'tar czf "$OUT/softmax-out.tgz" -C "$W" . 2>/dev/null' EXIT
STAGES=${STAGES:-"build tests sass seed dram harness memcheck"}
DRAM_DTYPES=${DRAM_DTYPES:-f32,bf16}
DRAM_VARIANTS=${DRAM_VARIANTS:-copy,cudnn,unroll,online,regs,regs_cl,sl_softmax}
SEED_DTYPES=${SEED_DTYPES:-f32,bf16}
SEED_ARGS=${SEED_ARGS:-"--trials 30"}
SEED_TORCH_ARGS=${SEED_TORCH_ARGS:-"--trials 30"}
t0=$(date +%s)
exec > >(tee "$OUT/softmax-h200.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
on() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

. bench/deps_env.sh   # cJSON, and cuDNN (headers from .cudnn/include, libraries from torch's wheel): CUDNN_ARGS

BUILD=build-h200
if on build; then
    stage "device"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,ecc.mode.current --format=csv
    nvcc --version | tail -2
    stage "build"
    cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON -DSL_BUILD_BENCH=ON \
        $PREFIX_ARGS $CUDNN_ARGS > "$W/softmax-build.log" 2>&1 || { echo "cmake failed"; tail -30 "$W/softmax-build.log"; exit 1; }
    grep -i cudnn "$W/softmax-build.log"
    cmake --build $BUILD -j 16 --target streamlab_cli test_softmax_cpu test_gpu_softmax softmax_bench \
        >> "$W/softmax-build.log" 2>&1 || { echo "build failed"; grep -E "error" "$W/softmax-build.log" | head -30; exit 1; }
    grep -A2 "smx_regs\|smx_online\|smx_vecp" "$W/softmax-build.log" | grep -E "spill|Used" | sort | uniq -c | head -12
fi
SL=$BUILD/streamlab
if on tests; then
    stage "tests"
    $BUILD/tests/test_softmax_cpu 2>&1 | tail -3
    timeout 300 $BUILD/tests/test_gpu_softmax 2>&1 | tail -15; echo "test_gpu_softmax exit: ${PIPESTATUS[0]}"
fi
if on sass && command -v cuobjdump >/dev/null; then
    stage "sass"
    obj=$(find $BUILD -name "08_regs.cu.o" | head -1)
    cuobjdump --dump-sass "$obj" > "$W/softmax-regs.sass" 2>&1
    echo "08_regs: $(grep -c 'LDG.E.128' "$W/softmax-regs.sass") LDG.E.128, $(grep -c 'STG.E.128' "$W/softmax-regs.sass") STG.E.128, $(grep -c 'LDL\|STL' "$W/softmax-regs.sass") local accesses"
fi
if on seed; then
    stage "seed shapes: streamlab (event, graph)"
    $BUILD/softmax_bench --dtypes $SEED_DTYPES $SEED_ARGS --json "$W/softmax-seed.json"
    echo "softmax_bench exit: $?"
    stage "seed shapes: torch"
    PYTHONUNBUFFERED=1 python3 bench/peers.py softmax --dtypes $SEED_DTYPES $SEED_TORCH_ARGS --json "$W/torch-seed.json"
fi
if on dram; then
    stage "DRAM shapes, cold: streamlab"
    $BUILD/softmax_bench --shapes 4096x2^15,16384x2^14 --dtypes $DRAM_DTYPES --cold --no-graph --trials 15 \
        --variants $DRAM_VARIANTS --json "$W/softmax-dram.json"
    echo "softmax_bench exit: $?"
    stage "DRAM shapes, cold: torch"
    PYTHONUNBUFFERED=1 python3 bench/peers.py softmax --shapes 4096x2^15,16384x2^14 --dtypes $DRAM_DTYPES --cold \
        --trials 15 --graph-calls 10 --graph-reps 3 --json "$W/torch-dram.json"
fi
if on harness; then
    stage "harness: streamlab run --op softmax"
    if $SL run --help 2>&1 | grep -q -- "--shape"; then
        $SL run --op softmax --dtype f32,bf16 --trials 10 --json "$W/softmax-run.json" 2>&1 | tail -40
    else
        $SL run --op softmax --dtype f32,bf16,f16 --sizes 1000,2^17,2^20 --trials 10 --json "$W/softmax-run.json" 2>&1 | tail -40
    fi
fi
if on memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck"
    SL_SOFTMAX_QUICK=1 timeout 400 compute-sanitizer --tool memcheck --error-exitcode 9 $BUILD/tests/test_gpu_softmax \
        > "$W/softmax-memcheck.log" 2>&1
    echo "memcheck exit: $?"; tail -4 "$W/softmax-memcheck.log"
fi
stage "done"
