#!/bin/bash
# bench/issue11b.sh - issue 11, third pass, on the H200 in one device call:
#   build (sm_90, warnings as errors, ptxas report) of the CLI and the GPU tests;
#   streamlab probe --only smem,bank,l1,const,divergence          -> probe.{json,md}
#   the GPU tests: test_gpu_transpose, test_gpu_stencil, and a check-only probe run;
#   compute-sanitizer memcheck of both tests (quick) and of the five SM probes
#     (STREAMLAB_PROBE_CHECK_ONLY=1: light kernels, data checks only);
#   the transpose ladder (f32, 8192^2 and 16384^2, with the copy ceiling and
#     cublasSgeam) and PyTorch's x.t().contiguous();
#   the stencil ladder (8192^2, R = 1, 2, 4, 8, 16);
#   ncu counters (DRAM bytes, L2 sectors, throughput, stall reasons) of the
#     transpose rungs vec / vec_big / cublasSgeam and an SM copy kernel at
#     8192^2, and of stencil regwin4 / regwin4_d8 at R = 4.
# From the lead's checkout, with this tree staged in .wt/issue11:
#   run(kind="nvidia-h200", carry=[".wt/issue11", ".deps"],
#       command="cd .wt/issue11 && cp -r ../../.deps . && bash bench/issue11b.sh")
# Everything lands in $WORK, packed into $OUT/issue11b-out.tgz after every
# stage (so a timeout still returns what finished), with this output in
# $OUT/issue11b.log. STAGES (default: all) picks stages.
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/i11b}
mkdir -p "$OUT" "$WORK"
STAGES=${STAGES:-"build probe tests memcheck transpose torch stencil ncu"}   # and ncuraw (second call)
t0=$(date +%s)
exec > >(tee "$OUT/issue11b.log") 2>&1
pack() { tar czf "$OUT/issue11b-out.tgz" -C "$WORK" . 2>/dev/null; }
stage() { pack; echo "== [$(( $(date +%s) - t0 ))s] $*"; }
want() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
trap pack EXIT

. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
B=build-i11b
SL=$B/streamlab
PROBES=smem,bank,l1,const,divergence

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$WORK/device.txt"

if want build; then
    stage "build (sm_90)"
    cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON \
        -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS > "$WORK/build.log" 2>&1 || { echo "cmake failed"; tail -30 "$WORK/build.log"; exit 1; }
    cmake --build $B -j 16 --target streamlab_cli test_gpu_transpose test_gpu_stencil >> "$WORK/build.log" 2>&1 \
        || { echo "build failed"; grep -E "error|Error" "$WORK/build.log" | head -40; exit 1; }
    grep -E "Compiling entry function '_Z[0-9]+(probe_|tp_vecI|stencil_regwin4)" -A2 "$WORK/build.log" \
        | grep -E "[1-9][0-9]* bytes spill" | head -5
    echo "spill lines above (none: no spills in the probe, vec and regwin4 kernels)"
fi

if want probe; then
    stage "streamlab probe --only $PROBES"
    $SL probe --only $PROBES --json "$WORK/probe.json" --md "$WORK/probe.md"; echo "probe rc=$?"
fi

if want tests; then
    stage "tests"
    $B/tests/test_gpu_transpose > "$WORK/test_gpu_transpose.log" 2>&1; echo "test_gpu_transpose exit $?"
    tail -3 "$WORK/test_gpu_transpose.log"
    $B/tests/test_gpu_stencil > "$WORK/test_gpu_stencil.log" 2>&1; echo "test_gpu_stencil exit $?"
    tail -3 "$WORK/test_gpu_stencil.log"
    STREAMLAB_PROBE_CHECK_ONLY=1 $SL probe --only $PROBES --json "$WORK/probe-checkonly.json" \
        > "$WORK/probe-checkonly.log" 2>&1; echo "probe check-only exit $?"
fi

if want memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck: the SM probes (check-only)"
    STREAMLAB_PROBE_CHECK_ONLY=1 timeout 120 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        $SL probe --only $PROBES --quick --json "$WORK/probe-memcheck.json" > "$WORK/memcheck-probe.log" 2>&1
    echo "memcheck probe exit: $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|check-only" "$WORK/memcheck-probe.log" | tail -7
    stage "memcheck: test_gpu_transpose (quick), test_gpu_stencil (quick)"
    STREAMLAB_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        $B/tests/test_gpu_transpose > "$WORK/memcheck-transpose.log" 2>&1
    echo "memcheck test_gpu_transpose exit: $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|checks" "$WORK/memcheck-transpose.log" | tail -3
    STREAMLAB_TEST_QUICK=1 timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        $B/tests/test_gpu_stencil > "$WORK/memcheck-stencil.log" 2>&1
    echo "memcheck test_gpu_stencil exit: $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|checks" "$WORK/memcheck-stencil.log" | tail -3
fi

if want transpose; then
    stage "transpose ladder f32 8192^2, 16384^2"
    $SL run --op transpose --shape 8192x8192,16384x16384 --dtype f32 --trials 30 --warmup 5 \
        --json "$WORK/transpose.json" --md "$WORK/transpose.md" 2>&1 | tail -40
fi

if want torch; then
    stage "PyTorch x.t().contiguous()"
    timeout 90 python3 bench/transpose_torch.py --shapes 8192x8192,16384x16384 --dtypes f32 --json "$WORK/torch.json" 2>&1 | tail -6
fi

if want stencil; then
    stage "stencil ladder 8192^2, R = 1 2 4 8 16"
    $SL run --op stencil --shape 8192x8192x1,8192x8192x2,8192x8192x4,8192x8192x8,8192x8192x16 --trials 20 --warmup 3 \
        --json "$WORK/stencil.json" --md "$WORK/stencil.md" 2>&1 | tail -45
fi

if want ncu && command -v ncu >/dev/null; then
    NCU_M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum
    stage "ncu: transpose vec, vec_big, cublas at 8192^2 f32"
    timeout 120 ncu --clock-control none --section WarpStateStats --section Occupancy --metrics $NCU_M \
        -k regex:"tp_vec|geam|transpose" --launch-count 8 -f -o "$WORK/ncu-tp" \
        $SL run --op transpose --shape 8192x8192 --dtype f32 --variants vec,vec_big,cublas --trials 1 --warmup 0 --quiet \
        > "$WORK/ncu-tp.out" 2>&1; echo "ncu exit $?"
    ncu -i "$WORK/ncu-tp.ncu-rep" --csv --page details > "$WORK/ncu-tp.csv" 2>&1
    stage "ncu: an SM copy kernel (copy op, vec) over the same bytes"
    timeout 60 ncu --clock-control none --section WarpStateStats --metrics $NCU_M --launch-count 3 -f -o "$WORK/ncu-copy" \
        $SL run --op copy --sizes 67108864 --variants vec --trials 1 --warmup 0 --quiet > "$WORK/ncu-copy.out" 2>&1
    echo "ncu exit $?"
    ncu -i "$WORK/ncu-copy.ncu-rep" --csv --page details > "$WORK/ncu-copy.csv" 2>&1
    stage "ncu: stencil regwin4, regwin4_d8 at 8192x8192x4"
    timeout 90 ncu --clock-control none --section WarpStateStats --section Occupancy --metrics $NCU_M \
        -k regex:"stencil_regwin4" --launch-count 6 -f -o "$WORK/ncu-st" \
        $SL run --op stencil --shape 8192x8192x4 --variants regwin4,regwin4_d8 --trials 1 --warmup 0 --quiet \
        > "$WORK/ncu-st.out" 2>&1; echo "ncu exit $?"
    ncu -i "$WORK/ncu-st.ncu-rep" --csv --page details > "$WORK/ncu-st.csv" 2>&1
fi
if want ncuraw && command -v ncu >/dev/null; then
    # the second call: stall reasons (raw WarpStateStats metrics) and DRAM throughput of the rungs that miss,
    # beside SM copy kernels (copy op: vec, bulk) over the same bytes
    for job in "tp|tp_vec|geam|transpose|--op transpose --shape 8192x8192 --dtype f32 --variants vec,vec_big,cublas" \
               "copy|ew_vec|bulk|--op copy --sizes 67108864 --variants vec,bulk" \
               "st|stencil_regwin4|--op stencil --shape 8192x8192x1,8192x8192x4 --variants regwin4,regwin4_d8"; do
        name=${job%%|*}; rest=${job#*|}; args=${rest##*|}; rx=${rest%|*}
        stage "ncu raw: $name ($rx)"
        timeout 100 ncu --clock-control none --section WarpStateStats --section SpeedOfLight --section Occupancy \
            --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum \
            -k regex:"$rx" --launch-count 12 -f -o "$WORK/ncuraw-$name" \
            $SL run $args --trials 1 --warmup 0 --quiet > "$WORK/ncuraw-$name.out" 2>&1; echo "ncu exit $?"
        ncu -i "$WORK/ncuraw-$name.ncu-rep" --csv --page raw > "$WORK/ncuraw-$name.csv" 2>&1
    done
fi
if want tilewalk; then
    stage "tile walk: a copy in the transpose's 16 KiB tiles, 1 .. 128 rows per tile (bench/tile_walk.cu)"
    nvcc -O3 -arch=sm_90 -Werror all-warnings -o "$WORK/tile_walk" bench/tile_walk.cu && "$WORK/tile_walk" 20 | tee "$WORK/tile_walk.txt"
    echo "tile_walk exit ${PIPESTATUS[0]}"
fi
stage "done"
