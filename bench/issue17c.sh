#!/bin/bash
# bench/issue17c.sh - issue 17, fourth round on the H200 (one device call):
#   f64x   f64 axpy at (x, y) = (0, 0), (1, 0), (0, 1): sl, CUB, the bulk
#          rung's tile shapes, x's extra vector by LDG, the bulk copies alone
#          (align_bench f64x; docs/ladder.md "What is left");
#   hints  DRAM bandwidth of read/write mixes per load cache hint
#          (align_bench hints; docs/model.md "Cache-hint loads");
#   model  the add ladder, f32 and bf16, 2^26 and 2^28 every rung, 2^30 a
#          subset, on whatever H200 this call gets (the committed profile
#          may come from another one: the run says so);
#   tests  test_gpu_align and test_gpu_graph, and their memcheck (quick);
#   full   the whole build and ctest suite (bench/h200.sh build tests);
#   probe  streamlab probe: the device profile (with the ceilings probe's
#          plain and demoted-load add kernels), copied over
#          profiles/NVIDIA-H200.profile.json on the device for `model`;
#   pmemcheck  compute-sanitizer memcheck of the ceilings probe (--quick:
#          64 MiB at most, 2 trials);
#   sweep  align_bench align: every offset combination of add and axpy,
#          ALIGN_DTYPES (default f32, f64, bf16), 2^26 and 2^28, ratios to CUB;
#   memcheckall  compute-sanitizer memcheck of every test_gpu_* (quick);
#   pcheck memcheck of the SM probes in check-only mode;
#   host   align_bench hostpath smalln l2 (issue 17's small-n and 2^20 bars);
#   reprobe  streamlab run --reprobe: its time and the rates it records;
#   vecx   align_bench vecx: axpy v5_vec realigned in random order and
#          after each predecessor;
#   ncuvec Nsight Compute on add vec4, axpy v5_vec and tile4, aligned and
#          realigned (align_bench ncu1, ALIGN_NCU=vec).
#
#   call 1: run(kind="nvidia-h200", carry=[".deps"], command="bash bench/issue17c.sh")
#   call 2: STAGES="full f64x" (carry .deps .cudnn .data), then at once
#   call 3: STAGES="build tests sweep f64x" BUILD_EXTRA="test_gpu_align test_gpu_graph"
#          (after the realigned bulk body moved to 128-byte lines), then at once
#   call 4: STAGES="probe model pmemcheck"
#   call 5: STAGES=A bash bench/final.sh (carry .deps .cudnn .data: the whole ctest suite), then at once
#   call 6: STAGES="memcheckall pcheck pmemcheck ncuvec"
#   call 7: STAGES="sweep f64x probe model" ALIGN_DTYPES=f32,f64,bf16,f16,fp8e4m3,fp8e5m2
#   call 8: STAGES="build vecx"
#   call 9: STAGES="build host reprobe"
#
# STAGES (default "build f64x hints model"). $OUT gets issue17c.log (this
# output) and issue17c.tgz (everything under $W).
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/i17c
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/issue17c.log") 2>&1
trap 'tar czf "$OUT/issue17c.tgz" -C "$W" .' EXIT
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
STAGES=${STAGES:-build f64x hints model}
has() { [[ " $STAGES " == *" $1 "* ]]; }

. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
. bench/fashion_mnist.sh
B=build-h200
stage "device"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,ecc.mode.current --format=csv
git log --oneline -1 2>/dev/null || true
if has build; then
    stage "build"
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON -DSL_BUILD_BENCH=ON \
        $PREFIX_ARGS > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
    cmake --build $B -j 16 --target streamlab_cli align_bench ${BUILD_EXTRA:-} \
        >> "$W/build.log" 2>&1 || { grep -E "error" -A3 "$W/build.log" | head -60; exit 1; }
    grep -E "spill" "$W/build.log" | grep -v " 0 bytes spill" | head -5
    grep -A2 "bulk_ldg_tile\|copy_only" "$W/build.log" | grep -E "registers|spill" | head -6
fi
if has full; then
    stage "full build and ctest (bench/h200.sh)"
    SL_FASHION_MNIST=$(fashion_mnist_dir) SL_CMAKE_EXTRA=-DSL_BUILD_BENCH=ON WORK=$W/full STAGES='build tests' OUT=$W/full \
        bash bench/h200.sh > /dev/null 2>&1; echo "h200.sh rc=$?"
    grep -E "tests passed|tests failed|FAILED|\*\*\*" $W/full/tests.log | tail -8
    grep -E "spill" $W/full/h200.log | grep -v " 0 bytes spill" | sort | uniq -c | head -5
fi
if has probe; then
    stage "probe (bench/h200.sh probe)"
    WORK=$W/probe STAGES=probe OUT=$W/probe bash bench/h200.sh > /dev/null 2>&1; echo "probe rc=$?"
    grep -A12 "== ceilings" $W/probe/h200-probe-*.md | head -14
fi
if has memcheckall; then
    stage "memcheck: every GPU test program (bench/h200.sh memcheck, quick mode)"
    WORK=$W/mc STAGES=memcheck OUT=$W/mc MEMCHECK_TIMEOUT=${MEMCHECK_TIMEOUT:-150} bash bench/h200.sh > /dev/null 2>&1
    echo "h200.sh memcheck rc=$?"; grep -E "memcheck .* exit|ERROR SUMMARY" $W/mc/h200.log | paste - - | head -12
fi
if has pcheck; then
    stage "memcheck: the SM probes (check-only: smem, bank, l1, const, divergence share block_out.cuh)"
    STREAMLAB_PROBE_CHECK_ONLY=1 timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        $B/streamlab probe --only smem,bank,l1,const,divergence --quick --json $W/probe-sm-checkonly.json \
        > $W/memcheck-probe-sm.log 2>&1
    echo "memcheck SM probes exit $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY" $W/memcheck-probe-sm.log | tail -2
fi
if has ncuvec; then
    stage "ncu: add vec4 / axpy v5_vec / tile4, aligned and realigned, f32 2^26"
    NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
    M=$M,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
    M=$M,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum
    M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,dram__cycles_active.avg
    ALIGN_NCU=vec timeout 200 $NCU --clock-control none --metrics "$M" -k "regex:ew_vec|ew_tile" --csv --page raw \
        --print-units base $B/align_bench $W/ncu-vec.json ncu1 > $W/ncu-vec.csv 2> $W/ncu-vec.err
    echo "ncu vec exit $?: $(grep -c '^"[0-9]' $W/ncu-vec.csv) kernels"; grep "ncu1 launch" $W/ncu-vec.csv | head -12
fi
if has pmemcheck; then
    stage "memcheck: the ceilings probe, quick"
    timeout 200 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        $B/streamlab probe --only ceilings --quick --trials 2 --json $W/probe-quick.json > $W/memcheck-probe.log 2>&1
    echo "memcheck probe exit $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY" $W/memcheck-probe.log | tail -2
fi
if has tests; then
    stage "tests"
    for t in test_gpu_align test_gpu_graph; do
        timeout 120 $B/tests/$t > "$W/$t.out" 2>&1; rc=$?
        echo "$t rc=$rc: $(tail -1 "$W/$t.out")"
        [ $rc -ne 0 ] && tail -20 "$W/$t.out"
    done
    stage "memcheck (quick)"
    for t in test_gpu_graph test_gpu_align; do
        STREAMLAB_TEST_QUICK=1 timeout 80 compute-sanitizer --tool memcheck --leak-check full $B/tests/$t 2>&1 | tail -3
    done | tee "$W/memcheck.log"
fi
if has sweep; then
    stage "align_bench align: every offset combination, f32, f64 and bf16, add and axpy, 2^26 and 2^28"
    ALIGN_DTYPES=${ALIGN_DTYPES:-f32,f64,bf16} ALIGN_TRIALS=${ALIGN_TRIALS:-3} timeout 300 $B/align_bench "$W/align.json" align \
        > "$W/align.log" 2>&1; echo "align rc=$?"; grep -E "^align " "$W/align.log" | tail -14
fi
if has f64x; then
    stage "align_bench f64x"
    timeout 120 $B/align_bench "$W/f64x.json" f64x; echo "f64x rc=$?"
fi
if has vecx; then
    stage "align_bench vecx"
    timeout 120 $B/align_bench "$W/vecx.json" vecx; echo "vecx rc=$?"
fi
if has host; then
    stage "align_bench hostpath smalln l2 (per-call cost, 2^18 .. 2^24 warm and cold)"
    timeout 120 $B/align_bench "$W/host.json" hostpath smalln l2 > "$W/host.log" 2>&1; echo "host rc=$?"
    grep -E "^smalln|^l2 .*2\^20|^hostpath" "$W/host.log" | head -30
fi
if has reprobe; then
    stage "run --reprobe: its cost and the rates it records"
    timeout 60 $B/streamlab run --op add --dtype f32 --sizes 2^28 --trials 5 --warmup 2 --quiet --reprobe \
        --variants tile1,tile1_lu,sl_add --json "$W/model-reprobe.json" --md "$W/model-reprobe.md"
    echo "reprobe rc=$?"; grep -oE "re-probed now[^;]*|demoted-load factor [0-9.]+ \([a-z-]+\)" "$W/model-reprobe.md" | head -3
fi
if has hints; then
    stage "align_bench hints"
    timeout 60 $B/align_bench "$W/hints.json" hints; echo "hints rc=$?"
fi
if has model; then
    stage "model: add ladder, f32 and bf16, 2^26 and 2^28 every rung, 2^30 a subset"
    for dt in f32 bf16; do
        timeout 90 $B/streamlab run --op add --dtype $dt --sizes 2^26,2^28 --trials ${MODEL_TRIALS:-9} --warmup 3 --quiet \
            --json "$W/model-$dt.json" --md "$W/model-$dt.md"
        echo "model $dt rc=$?"
        timeout 60 $B/streamlab run --op add --dtype $dt --sizes 2^30 --trials 5 --warmup 2 --quiet \
            --variants copy,cub,vec4,grid_vec4,ilp2,ilp4,tile4,bulk,tile1,tile1_lu,tile1_nc,sl_add \
            --json "$W/model-$dt-2e30.json" --md "$W/model-$dt-2e30.md"
        echo "model $dt 2^30 rc=$?"
    done
    grep -h "profile\|UUID\|another" "$W"/model-f32.md | head -5
fi
stage "done"
