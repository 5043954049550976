#!/bin/bash
# bench/nbwd_h200.sh - the norms' backwards (issue 32, third session;
# seventh: the aligned and bulk rungs) on one device call: build, the two
# GPU tests whole beside their compute-sanitizer memcheck (quick sizes),
# then every register rung and the bulk rung of rmsnorm_bwd and
# layernorm_bwd beside the copy at bf16 shapes from N = 1024 to 65536 and
# the decode shape (streamlab run, event-timed).
#   run(kind="nvidia-h200", carry=[".wt/nbwd", ".deps"], timeout_s=420,
#       command="cd .wt/nbwd && ln -sfn ../../.deps .deps && bash bench/nbwd_h200.sh")
# The bulk rung alone at the long rows (a worktree carried as .wt/nbbulk):
#   run(kind="nvidia-h200", carry=[".wt/nbbulk", ".deps"], timeout_s=420,
#       command="cd .wt/nbbulk && ln -sfn ../../.deps .deps && SHAPES=32768x4096,32768x8192,8192x16384,8192x32768,8192x65536 VARIANTS=aligned,bulk,sl_rmsnorm_bwd,sl_layernorm_bwd bash bench/nbwd_h200.sh")
# STAGES (default "build tests sweep"; also qtests: the tests at their quick
# sizes, ncu: bench/ncu_rows.sh on the register kernel of each NCU_CASES
# entry, op:MxN:variant); SHAPES and VARIANTS override the sweep's shapes and
# rungs. Outputs under $OUT: nbwd.log, sweep.{json,md}, tests.tgz (the test
# and memcheck logs), ncu-*.txt and ncu-rows.log.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/sl-nbwd
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/nbwd.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
STAGES=${STAGES:-"build tests sweep"}
has() { [[ " $STAGES " == *" $1 "* ]]; }
B=build-nbwd
T="test_gpu_rmsnorm test_gpu_layernorm"
SH=${SHAPES:-32768x1024,32768x2048,32768x4096,32768x8192,8192x16384,8192x32768,8192x65536,64x4096}
V=${VARIANTS:-regs,regs_pf,regs_sm,aligned,bulk,sl_rmsnorm_bwd,sl_layernorm_bwd}
stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
. bench/deps_env.sh
if has build; then
    stage "build (sm_90, -DSL_WERROR=ON)"
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > "$W/build.log" 2>&1 &&
        timeout 240 cmake --build $B -j 16 --target streamlab_cli streamlab_shared $T >> "$W/build.log" 2>&1
    rc=$?
    echo "build exit $rc"
    [ $rc = 0 ] || { grep -E "error|Error" "$W/build.log" | head -30; exit 1; }
fi
if has tests || has qtests; then
    q=""; has qtests && q="STREAMLAB_TEST_QUICK=1 SL_NORM_QUICK=1"
    stage "GPU tests ${q:-whole}, beside compute-sanitizer memcheck of each (quick sizes)"
    pids=""
    for t in $T; do
        env $q timeout ${TEST_S:-170} $B/tests/$t > "$W/$t.log" 2>&1 &
        pids="$pids $!:$t"
        has tests && { env STREAMLAB_TEST_QUICK=1 SL_NORM_QUICK=1 timeout ${MEMCHECK_S:-170} compute-sanitizer \
            --tool memcheck --leak-check full --error-exitcode 1 $B/tests/$t > "$W/memcheck-$t.log" 2>&1 &
            pids="$pids $!:memcheck-$t"; }
    done
    for p in $pids; do
        wait "${p%%:*}"
        echo "${p#*:} exit $?"
        tail -3 "$W/${p#*:}.log"
    done
    tar czf "$OUT/tests.tgz" -C "$W" $(cd "$W" && ls *.log)
fi
if has sweep; then
    stage "sweep: the register and bulk rungs beside the copy, bf16"
    timeout ${SWEEP_S:-120} $B/streamlab run --op rmsnorm_bwd,layernorm_bwd --dtype bf16 --shape $SH --variants $V \
        --trials 10 --warmup 2 --json "$OUT/sweep.json" --md "$OUT/sweep.md" > "$W/sweep.txt" 2>&1
    echo "run exit $?"
    cut -c1-150 "$W/sweep.txt"
fi
if has ncu; then  # bench/ncu_rows.sh, on the register kernel of each NCU_CASES entry (op:MxN:variant, bf16)
    cases=""
    for c in ${NCU_CASES:-"rmsnorm_bwd:8192x65536:regs_sm"}; do
        IFS=: read -r op shp var <<<"$c"
        cases="$cases $op:bf16:$shp:$var:norm_bwd_regs"
    done
    BUILD=$B CASES="$cases" bash bench/ncu_rows.sh
fi
stage "done"
