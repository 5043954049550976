#!/bin/bash
# bench/final.sh - the verification of a merged tree on the H200, in calls
# back to back on one warm machine (the build directory survives between
# them while the machine stays held):
#
#   run(kind="nvidia-h200", carry=[".deps", ".cudnn", ".data"], command="STAGES=A bash bench/final.sh")
#   run(..., command="STAGES=B bash bench/final.sh")
#   run(..., command="STAGES=C bash bench/final.sh")
#
#   A  build (sm_90, warnings as errors) and the whole ctest suite
#      (bench/h200.sh build tests), with Fashion-MNIST unpacked from the
#      carried .deb for the training tests;
#   B  compute-sanitizer memcheck of every GPU test program (bench/h200.sh
#      memcheck), then issue 17's alignment sweep (bench/issue17b.sh sweep:
#      every offset combination of f32/f64 add and axpy, 2^26 and 2^28);
#   C  streamlab probe (the device profile, every probe) and Nsight Compute
#      counters of the add rungs with and without cache hints, bf16 and f32
#      at 2^26 (DRAM bytes, L2 sectors, long-scoreboard stalls per issue,
#      achieved occupancy: issue 17's tile1_lu / tile1_nc model residual).
#   D  after a change to the elementwise split (src/ops/common): an
#      incremental build, test_gpu_align and test_gpu_graph with their
#      memcheck, the alignment sweep of add and axpy in f32, f64 and bf16
#      (every offset combination, 2^26 and 2^28), and f64 axpy's offset
#      pairs under ncu again.
#
# Everything comes back under $OUT: h200.log / h200-out.tgz (A, B, C's
# probe), issue17b.log / issue17b.tgz (B's sweep), ncu-*.csv (C; and
# f64 axpy's four offset pairs at 2^28 under ncu: sl, CUB and bulk128).
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
STAGES=${STAGES:-A}
. bench/fashion_mnist.sh
export SL_FASHION_MNIST=$(fashion_mnist_dir)
# Nsight Compute, one CSV per measurement (C, D): DRAM bytes, L2 sectors,
# instructions, long-scoreboard stalls, occupancy.
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
M=$M,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,dram__cycles_active.avg
ncu_csv() { # name, kernel regex, command...: $OUT/ncu-NAME.csv (and .err)
    local name=$1 rx=$2; shift 2
    timeout 200 $NCU --clock-control none --metrics "$M" -k "regex:$rx" --csv --page raw --print-units base \
        "$@" > "$OUT/ncu-$name.csv" 2> "$OUT/ncu-$name.err"
    echo "ncu $name exit $?: $(grep -c '^"[0-9]' "$OUT/ncu-$name.csv") kernels"
}
case " $STAGES " in *" A "*)
    WORK=/tmp/final-A STAGES='build tests' bash bench/h200.sh
    cp /tmp/final-A/tests.log "$OUT/tests-A.log" 2>/dev/null
    ;;
esac
case " $STAGES " in *" B "*)
    WORK=/tmp/final-B STAGES='memcheck' MEMCHECK_TIMEOUT=${MEMCHECK_TIMEOUT:-150} bash bench/h200.sh
    mv "$OUT/h200.log" "$OUT/memcheck-B.log"
    STAGES='sweep' ALIGN_TRIALS=${ALIGN_TRIALS:-3} bash bench/issue17b.sh
    ;;
esac
case " $STAGES " in *" C "*)
    [ -x build-h200/streamlab ] || WORK=/tmp/final-C0 STAGES='build' bash bench/h200.sh  # a fresh machine
    WORK=/tmp/final-C STAGES='probe' bash bench/h200.sh
    cp /tmp/final-C/NVIDIA-H200.profile.json /tmp/final-C/h200-probe-*.md "$OUT/" 2>/dev/null
    for dt in bf16 f32; do # the cache-hint rungs against their control (issue 17's model residual)
        ncu_csv hints-$dt 'ew_tile|ew_vec' build-h200/streamlab run --op add --dtype $dt --sizes 2^26 --trials 1 \
            --warmup 0 --variants vec4,tile1,tile1_cs,tile1_lu,tile1_nc,tile1_ef --quiet --json /tmp/final-C/hints-$dt.json
    done
    # f64 axpy's four offset pairs at 2^28: sl, CUB, bulk128 (launch order: align_bench's "ncu1 launch K" lines)
    ALIGN_NCU=f64axpy ncu_csv f64axpy 'ew_bulk|transform' build-h200/align_bench /tmp/final-C/ncu1.json ncu1
    ;;
esac
case " $STAGES " in *" D "*)
    WORK=/tmp/final-D STAGES='build memcheck' MEMCHECK_TESTS='test_gpu_align test_gpu_graph' bash bench/h200.sh
    mv "$OUT/h200.log" "$OUT/build-memcheck-D.log"
    for t in test_gpu_align test_gpu_graph; do
        timeout 120 build-h200/tests/$t > "$OUT/$t-D.log" 2>&1
        echo "$t exit $?: $(tail -1 "$OUT/$t-D.log")"
    done
    ALIGN_DTYPES=f32,f64,bf16 ALIGN_TRIALS=${ALIGN_TRIALS:-3} timeout 300 build-h200/align_bench "$OUT/align-D.json" align \
        2>&1 | tee "$OUT/align-D.log"
    ALIGN_NCU=f64axpy ncu_csv f64axpy-D 'ew_bulk|transform' build-h200/align_bench /tmp/final-D/ncu1.json ncu1
    ;;
esac
