#!/bin/bash
# bench/transpose_h200.sh - issue 11's transpose and bank-conflict study on
# the device, in one call: build (sm_90, warnings as errors, ptxas report)
# of the CLI and the transpose tests only, the tests, compute-sanitizer
# memcheck of the GPU test, the SASS of the transpose kernels, the
# bank-conflict probe (timed, then under ncu), the transpose ladder with its
# peers (streamlab run, twice in f32 to see the spread), PyTorch's
# transpose, and ncu's bank-conflict and DRAM counters of every rung.
#
# From the lead's checkout, with this tree staged in .wt/issue11:
#   run(kind="nvidia-h200", carry=[".wt/issue11", ".deps"],
#       command="cd .wt/issue11 && cp -r ../../.deps . && bash bench/transpose_h200.sh")
# Everything lands under $WORK and is packed into $OUT/transpose-out.tgz,
# beside $OUT/transpose.log (this output).
# STAGES (default: all) picks: build tests memcheck sass bank run torch ncu
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/tp-work}
mkdir -p "$OUT" "$WORK"
STAGES=${STAGES:-"build tests memcheck sass bank run torch ncu"}
t0=$(date +%s)
exec > >(tee "$OUT/transpose.log") 2>&1
stage() { pack; echo "== [$(( $(date +%s) - t0 ))s] $*"; }
want() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
pack() { tar czf "$OUT/transpose-out.tgz" -C "$WORK" . 2>/dev/null; }
trap pack EXIT

# cJSON: the system's, else the carried Debian packages (as bench/h200.sh).
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
BUILD=build-tp
SL=$BUILD/streamlab
NCU_METRICS=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,gpu__time_duration.sum

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,power.draw --format=csv | tee "$WORK/device.txt"
git -C . log -1 --format=%H 2>/dev/null | tee -a "$WORK/device.txt"

if want build; then
    stage "build (sm_90): streamlab, test_transpose, test_gpu_transpose, bank_conflicts"
    cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS \
        > "$WORK/build.log" 2>&1 || { echo "cmake failed"; tail -30 "$WORK/build.log"; exit 1; }
    cmake --build $BUILD -j 16 --target streamlab_cli test_transpose test_gpu_transpose >> "$WORK/build.log" 2>&1 \
        || { echo "build failed"; grep -E "error|Error" "$WORK/build.log" | head -30; exit 1; }
    nvcc -O3 -arch=sm_90 -Werror all-warnings -Xptxas -v -o $BUILD/bank_conflicts bench/experiments/bank_conflicts.cu \
        >> "$WORK/build.log" 2>&1 || { echo "bank_conflicts build failed"; tail -20 "$WORK/build.log"; }
    grep -A2 -E "Compiling entry function '_Z[0-9]+tp_" "$WORK/build.log" | grep -E "registers|spill" | sort | uniq -c | head -20
fi

if want tests; then
    stage "tests"
    $BUILD/tests/test_transpose 2>&1 | tail -5
    $BUILD/tests/test_gpu_transpose > "$WORK/test_gpu_transpose.log" 2>&1; echo "test_gpu_transpose exit $?"
    tail -5 "$WORK/test_gpu_transpose.log"
fi

if want memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck test_gpu_transpose"
    STREAMLAB_TEST_QUICK=1 timeout 240 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        $BUILD/tests/test_gpu_transpose > "$WORK/memcheck.log" 2>&1
    echo "memcheck exit: $?"
    grep -E "ERROR SUMMARY|LEAK SUMMARY|checks" "$WORK/memcheck.log" | tail -3
fi

if want sass && command -v cuobjdump >/dev/null; then
    stage "SASS of the transpose kernels"
    for o in $(find $BUILD -path "*transpose/cuda/*.o"); do
        cuobjdump --dump-sass "$o" 2>/dev/null
    done > "$WORK/sass-transpose.txt"
    awk '/Function :/{f=$3} /(LDG|STG|LDS|STS)/{match($0,/(LDG|STG|LDS|STS)[A-Z0-9._]*/); print f, substr($0,RSTART,RLENGTH)}' \
        "$WORK/sass-transpose.txt" | sort | uniq -c | grep -E "tp_(tile|vec)I?j" | head -20
fi

if want bank; then
    stage "bank-conflict probe: strides 1-32, 4/8/16-byte words, ld and st"
    $BUILD/bank_conflicts > "$WORK/bank.csv" 2>&1; echo "exit $?"
    grep -E "^(4|8|16),(1|2|3|4|8|16|32),ld" "$WORK/bank.csv"
    if command -v ncu >/dev/null; then
        stage "bank-conflict probe under ncu (strides 1,2,3,4,8,16,32; one launch each)"
        timeout 200 ncu --clock-control none --metrics $NCU_METRICS -k regex:probe -f -o "$WORK/bank" \
            $BUILD/bank_conflicts 1,2,3,4,8,16,32 1 > "$WORK/bank-ncu.out" 2>&1
        echo "ncu exit $?"; tail -2 "$WORK/bank-ncu.out"
        ncu -i "$WORK/bank.ncu-rep" --csv > "$WORK/bank-ncu.csv" 2>&1; wc -l < "$WORK/bank-ncu.csv"
    fi
fi

if want run; then
    for dt in f32 f64 bf16; do
        stage "streamlab run --op transpose --dtype $dt"
        $SL run --op transpose --shape 8192x8192,16384x16384 --dtype $dt --trials 30 --warmup 5 \
            --json "$WORK/run-$dt.json" --md "$WORK/run-$dt.md" 2>&1 | tail -24
    done
    stage "streamlab run f32 again (the spread between two runs)"
    $SL run --op transpose --shape 8192x8192,16384x16384 --dtype f32 --trials 30 --warmup 5 \
        --json "$WORK/run-f32-again.json" --md "$WORK/run-f32-again.md" 2>&1 | tail -20
    stage "odd shapes, f32 and f16 (verified, timed)"
    $SL run --op transpose --shape 8191x8193,1000x3,33x17,3x100000 --dtype f32,f16 --trials 10 --warmup 2 \
        --json "$WORK/run-odd.json" --md "$WORK/run-odd.md" 2>&1 | tail -40
fi

if want torch; then
    stage "PyTorch x.t().contiguous()"
    python3 bench/peers.py transpose --shapes 8192x8192,16384x16384 --dtypes f32,f64,bf16 --json "$WORK/torch.json" 2>&1
fi

if want ncu && command -v ncu >/dev/null; then
    stage "ncu: every transpose rung at 4096x4096, f32 f64 bf16"
    timeout 240 ncu --clock-control none --metrics $NCU_METRICS -k regex:"tp_|geam|transpose" -f -o "$WORK/tp" \
        $SL run --op transpose --shape 4096x4096 --dtype f32,f64,bf16 --trials 1 --warmup 0 --quiet \
        > "$WORK/ncu-transpose.out" 2>&1
    echo "ncu exit $?"; tail -3 "$WORK/ncu-transpose.out"
    ncu -i "$WORK/tp.ncu-rep" --csv > "$WORK/ncu-transpose.csv" 2>&1; wc -l < "$WORK/ncu-transpose.csv"
fi
stage "done"
