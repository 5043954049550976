#!/bin/bash
# bench/nbwd_h200.sh - the norms' backwards (issue 32, third session) on one
# device call: build, the two GPU tests, the backward rungs beside the copy
# at the issue's bf16 shapes (the grid of this session against the one
# before it, SL_NBWD_OLDGRID=1, in the same process family and call), the
# grid each launch chose (SL_NBWD_TRACE=1), CUPTI counters, and Nsight
# Compute's warp-state / occupancy sections of the register kernel.
#   run(kind="nvidia-h200", carry=[".wt/nbwd", ".deps"], timeout_s=480,
#       command="cd .wt/nbwd && ln -sfn ../../.deps .deps && bash bench/nbwd_h200.sh")
# STAGES (default "build qtests time ab ncu"): qtests = the tests at their
# quick sizes (SL_NORM_QUICK), tests = whole. Outputs under $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/sl-nbwd
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/nbwd.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
STAGES=${STAGES:-"build qtests time ab ncu"}
has() { [[ " $STAGES " == *" $1 "* ]]; }
B=build-nbwd
SH=${SHAPES:-32768x4096,8192x65536,64x4096}
V=regs,regs_pf,sl_rmsnorm_bwd,sl_layernorm_bwd
stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
. bench/deps_env.sh
if has build; then
    stage "build (sm_90, -DSL_WERROR=ON)"
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > "$W/build.log" 2>&1 &&
        timeout 240 cmake --build $B -j 16 --target streamlab_cli streamlab_shared test_gpu_rmsnorm test_gpu_layernorm \
            >> "$W/build.log" 2>&1
    rc=$?
    echo "build exit $rc"
    [ $rc = 0 ] || { grep -E "error|Error" "$W/build.log" | head -30; exit 1; }
fi
if has qtests || has tests; then
    q=""; has qtests && q="STREAMLAB_TEST_QUICK=1 SL_NORM_QUICK=1"
    stage "GPU tests ${q:-whole}"
    for t in test_gpu_rmsnorm test_gpu_layernorm; do
        env $q timeout ${TEST_S:-150} $B/tests/$t > "$W/$t.log" 2>&1
        echo "$t exit $?"
        tail -4 "$W/$t.log"
    done
fi
if has time; then
    stage "timing: this session's grid (SL_NBWD_TRACE: the grid per launch)"
    SL_NBWD_TRACE=1 timeout 200 $B/streamlab run --op rmsnorm_bwd,layernorm_bwd --dtype bf16 --shape $SH \
        --variants $V --trials 20 --warmup 3 --counters --json "$OUT/new.json" --md "$OUT/new.md" > "$W/new.txt" 2> "$W/new.err"
    echo "run exit $?"
    cat "$W/new.txt"; sort "$W/new.err" | uniq -c | head -30
fi
if has ab; then
    stage "timing: the grid before (SL_NBWD_OLDGRID=1), 8192x65536"
    SL_NBWD_OLDGRID=1 SL_NBWD_TRACE=1 timeout 120 $B/streamlab run --op rmsnorm_bwd,layernorm_bwd --dtype bf16 \
        --shape 8192x65536 --variants $V --trials 20 --warmup 3 --json "$OUT/old.json" --md "$OUT/old.md" \
        > "$W/old.txt" 2> "$W/old.err"
    echo "run exit $?"
    cat "$W/old.txt"; sort "$W/old.err" | uniq -c | head -30
fi
if has ncu; then
    NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for c in "rmsnorm_bwd 32768x4096 sl_rmsnorm_bwd" "layernorm_bwd 8192x65536 sl_layernorm_bwd" \
             "layernorm_bwd 32768x4096 regs_pf"; do
        read -r op shp var <<<"$c"
        stage "ncu: $op $shp $var"
        timeout 90 $NCU --kernel-name regex:norm_bwd_regs --launch-count 1 --section SpeedOfLight \
            --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
            $B/streamlab run --op $op --dtype bf16 --shape $shp --variants $var --trials 1 --warmup 0 --quiet \
            > "$OUT/ncu-$op-$shp-$var.txt" 2>&1
        echo "ncu exit $?"
        grep -E "Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|Issued Ipc|No Eligible|Stall|Waves Per SM|Grid Size|Dynamic Shared|Cluster" \
            "$OUT/ncu-$op-$shp-$var.txt" | head -40
    done
fi
stage "done"
