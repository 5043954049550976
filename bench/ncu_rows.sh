#!/bin/bash
# bench/ncu_rows.sh - where a row op's kernel loses to the copy: Nsight
# Compute's speed-of-light, memory, occupancy, launch, warp-state and
# scheduler sections of one launch of each case, on one device call, with
# the lines that answer "how far from DRAM's peak, with how many warps,
# stalled on what" printed last.
#   CASES  space-separated op:dtype:MxN:variant:kernel-regex (required), e.g.
#          "softmax:f32:16384x131072:bulk:smx_bulk xent:bf16:16384x131072:sl_cross_entropy_fwd_bwd:."
#   BUILD  the build folder (build-ncu; built here, sm_90, when it lacks the CLI)
#   run(carry=[".deps"], timeout_s=300, command="CASES='...' bash bench/ncu_rows.sh")
# Outputs under $OUT: ncu-<op>-<dtype>-<shape>-<variant>.txt, ncu-rows.log.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
t0=$(date +%s)
exec > >(tee "$OUT/ncu-rows.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
CASES=${CASES:?CASES: op:dtype:MxN:variant:kernel-regex ...}
B=${BUILD:-build-ncu}
stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
. bench/deps_env.sh
if [ ! -x "$B/streamlab" ]; then
    stage "build (sm_90, -DSL_WERROR=ON): streamlab_cli"
    cmake -S . -B "$B" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > /tmp/ncu-build.log 2>&1 &&
        timeout 240 cmake --build "$B" -j 16 --target streamlab_cli >> /tmp/ncu-build.log 2>&1
    rc=$?
    echo "build exit $rc"
    [ $rc = 0 ] || { grep -E "error|Error" /tmp/ncu-build.log | head -30; exit 1; }
fi
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for c in $CASES; do
    IFS=: read -r op dt shp var rx <<<"$c"
    f="$OUT/ncu-$op-$dt-$shp-$var.txt"
    stage "ncu: $op $dt $shp $var (kernels matching $rx, the last launch of the first three)"
    # launches: verification before, the timed one, verification after; skip the first
    timeout 120 "$NCU" --kernel-name "regex:$rx" --launch-skip 1 --launch-count 1 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
        --section SchedulerStats "$B/streamlab" run --op "$op" --dtype "$dt" --shape "$shp" --variants "$var" \
        --trials 1 --warmup 0 --quiet > "$f" 2>&1
    echo "ncu exit $?"
    grep -E "^  [a-z_]+.*\(|Duration|DRAM Throughput|Memory Throughput|L2 Hit|Registers Per|Shared Memory Config|Dynamic Shared|Achieved Occupancy|Theoretical Occupancy|Block Limit|Warp Cycles Per Issued|No Eligible|Issued Warp|Waves Per SM|Grid Size|Block Size|Cluster Size|Max Active Clusters" \
        "$f" | head -30
done
stage "done"
