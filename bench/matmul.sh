#!/bin/bash
# bench/matmul.sh - issue 12 on the device, in one call: build the matmul op
# alone for sm_90 (its kernels, reference, CPU rungs, the cuBLAS peers and
# the two programs; a dozen files instead of the whole library, so the call
# stays short), ptxas resource report and SASS summary, test_gpu_matmul
# (every rung vs the fp64 reference at odd sizes) plain and under
# compute-sanitizer memcheck, then bench/matmul_bench (the ladder, every
# row verified) and bench/matmul_torch.py (torch.matmul) in the same call.
#
#   run(kind="nvidia-h200", carry=[".wt/issue12"],
#       command="cd .wt/issue12 && bash bench/matmul.sh")
#
# Environment: SIZES (1024,2048,4096,8192), SHAPES (MxNxK,... beside the
# squares), GRAPH (N: time N launches captured in one CUDA graph over
# rotated operand sets, issue 26's protocol; empty: one launch between
# events), VARIANTS (the bench's --variants), CMAKE_TARGETS, PAR (1: the
# CMake build runs in the background while the bench times; GPU kernel
# times by graph replay do not depend on the host's load), DTYPES (f32,bf16,f16), EXPLORE
# (1: time rung 7's other configurations), STAGES ("build cmake test
# memcheck bench torch cli"; cmake builds the library, CLI and tests, which
# test, memcheck and cli use; ncu profiles NCU_CASES), CLI_DTYPE (bf16), CLI_SHAPES (4096^3),
# NCU_CASES ("wgmma:4096 cublas:4096": variant:size pairs, bf16; Nsight
# Compute's throughput, pipe, memory, warp-state, scheduler and
# per-instruction stall sections of one launch at the real clocks, the
# report and its SASS-level source page kept). Outputs: $OUT/matmul-out.tgz (default ./matmul-out).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
# Every output goes under $W; at exit they are packed into
# $OUT/matmul-out.tgz (the device tool returns at most 8 files), and the
# bench's JSON and Markdown and the log are copied beside it.
FINAL=${OUT:-$PWD/matmul-out}
W=/tmp/mm-out
mkdir -p "$FINAL" "$W"
OUT=$W
pack() { tar czf "$FINAL/matmul-out.tgz" -C "$W" . 2>/dev/null; cp "$W"/matmul.json "$W"/matmul.md "$W"/matmul.log "$FINAL"/ 2>/dev/null; }
trap pack EXIT
SIZES=${SIZES:-1024,2048,4096,8192}
DTYPES=${DTYPES:-f32,bf16,f16}
EXPLORE=${EXPLORE:-1}
STAGES=${STAGES:-"build cmake test memcheck bench torch cli"}
B=/tmp/mm-build
mkdir -p $B
t0=$(date +%s)
exec > >(tee "$OUT/matmul.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
has() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

rc_test=-; rc_mem=-; rc_bench=-; rc_cmake=-
SL=/tmp/mm-cmake/streamlab
TG=/tmp/mm-cmake/tests/test_gpu_matmul
if has cmake; then
    # (PAR=1: started first, in the background, beside the standalone build) the library, the CLI and the tests (CUDA sm_90 + the wgmma file's sm_90a), -DSL_WERROR=ON
    stage "cmake build"
    . bench/deps_env.sh
    cmake_build() {
        cmake -S . -B /tmp/mm-cmake -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > "$OUT/cmake.log" 2>&1 \
            && timeout ${CMAKE_S:-240} cmake --build /tmp/mm-cmake -j ${CMAKE_J:-16} --target ${CMAKE_TARGETS:-streamlab_cli test_gpu_matmul test_cpu_matmul} \
            >> "$OUT/cmake.log" 2>&1
    }
    if [ "${PAR:-0}" = 1 ]; then
        cmake_build & cmake_pid=$!
    else
        cmake_build; rc_cmake=$?
        grep -E "wgmma|error|warning|FAILED" "$OUT/cmake.log" | head -10
    fi
fi
INC="-Iinclude -I$B/include -Isrc/core -Isrc/cuda -Isrc/ops/matmul -Isrc/ops/matmul/cuda"
if has build; then
    stage "device"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw --format=csv
    nvcc --version | tail -1
    # the generated public header, as CMake writes it (no op functions are used here)
    mkdir -p $B/include && echo "/* standalone matmul build: no op functions */" > $B/include/streamlab_ops.h
    stage "build"
    pids=()
    for f in src/ops/matmul/cuda/*.cu src/cuda/device_util.cu; do
        nvcc -arch=sm_90 -O3 -std=c++17 -Xptxas -v --expt-relaxed-constexpr -Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror $INC -c $f -o $B/$(basename $f .cu).o \
            > $B/$(basename $f .cu).log 2>&1 &
        pids+=($!)
    done
    # the wgmma rung: sm_90a (cmake/wgmma.cmake does the same in the CMake build)
    nvcc -gencode arch=compute_90a,code=sm_90a -DSL_MM_WGMMA_SM90A=1 -O3 -std=c++17 -Xptxas -v --expt-relaxed-constexpr \
        -Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Werror $INC -Isrc/ops/common -c src/ops/matmul/sm90a/08_wgmma.cu \
        -o $B/08_wgmma.o > $B/08_wgmma.log 2>&1 &
    pids+=($!)
    # test_gpu_matmul calls sl_gemm through a context (the whole library): the CMake build (stage cmake) makes it
    for f in src/ops/matmul/*.c src/core/status.c src/core/dtype_conv.c src/cuda/libs.c bench/mm_glue.c \
             bench/matmul_bench.c; do
        gcc -std=c11 -O3 -fopenmp -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -DSL_HAVE_CUDA=1 $INC \
            -I/usr/local/cuda/include -c $f -o $B/c_$(basename $f .c).o > $B/c_$(basename $f .c).log 2>&1 &
        pids+=($!)
    done
    fail=0
    for p in "${pids[@]}"; do wait $p || fail=1; done
    cat $B/*.log | grep -E "error|warning" | head -20
    [ $fail = 0 ] || { echo "build failed"; exit 1; }
    grep -hE "Compiling entry|registers|spill" $B/*.log | grep -B2 -E "[1-9][0-9]* bytes spill" | head -10
    grep -hE "Compiling entry|registers" $B/*.log > "$OUT/ptxas.txt"
    LIBO=$(ls $B/*.o | grep -v -E "c_matmul_bench")
    nvcc -arch=sm_90 -o $B/matmul_bench $B/c_matmul_bench.o $LIBO -lcublas -lgomp || exit 1
    cuobjdump --dump-sass $B/08_wgmma.o 2>/dev/null | grep -oE "\b(HGMMA|UTMALDG|SYNCS|WARPGROUP|USETMAXREG|LDS|STG|STS)[.A-Z0-9_]*" \
        | sort | uniq -c > "$OUT/sass-wgmma.txt"
    cat "$OUT/sass-wgmma.txt"
    cuobjdump --dump-sass $B/matmul_bench 2>/dev/null | grep -E "Function :|HMMA|LDGSTS|LDS\.128|LDG\.E\.128|FFMA" \
        | awk '/Function/{f=$0; next} {split($0,a," "); for(i=1;i<=NF;i++) if ($i ~ /^(HMMA|LDGSTS|LDS|LDG|FFMA)/){c[f" "$i]++; break}} END{for(k in c) print c[k], k}' \
        | sort -k2 > "$OUT/sass-summary.txt"
fi
bench_stage2() {
if has bench; then
    stage "bench"
    EX=""; [ "$EXPLORE" = 1 ] && EX=--explore
    # a test failure (or hang) of the wgmma rung: time the others only, its numbers would mean nothing
    if [ "$rc_test" != 0 ] && [ "$rc_test" != - ] && grep -q "FAIL wgmma\|FAIL sl_gemm" "$OUT/test_gpu_matmul.txt" 2>/dev/null; then
        EX="$EX --variants cublas,wmma,best"
    fi
    [ -n "${SHAPES:-}" ] && EX="$EX --shapes $SHAPES"
    [ -n "${GRAPH:-}" ] && EX="$EX --graph $GRAPH"
    [ -n "${VARIANTS:-}" ] && EX="$EX --variants $VARIANTS"
    OMP_PROC_BIND=close timeout ${BENCH_S:-200} $B/matmul_bench --sizes $SIZES --dtypes $DTYPES $EX --json "$OUT/matmul.json" \
        --md "$OUT/matmul.md"; rc_bench=$?
fi
}
if [ "${PAR:-0}" = 1 ] && has cmake; then
    bench_stage2
    stage "waiting for the CMake build"
    wait $cmake_pid; rc_cmake=$?
    grep -E "wgmma|error|warning|FAILED" "$OUT/cmake.log" | head -10
    BENCH_DONE=1
fi
if has test; then
    stage "test_gpu_matmul"
    timeout ${TEST_S:-180} $TG > "$OUT/test_gpu_matmul.txt" 2>&1; rc_test=$?
    tail -5 "$OUT/test_gpu_matmul.txt"; grep FAIL "$OUT/test_gpu_matmul.txt" | head -20
fi
[ "${BENCH_DONE:-0}" = 1 ] || bench_stage2
if has torch; then
    stage "torch"
    timeout 90 python3 bench/matmul_torch.py --sizes $SIZES --json "$OUT/torch.json"
fi
rc_cli=-
if has cli; then
    stage "cli: streamlab run --op matmul"
    timeout ${CLI_S:-200} $SL run --op matmul --dtype ${CLI_DTYPE:-bf16} --shape ${CLI_SHAPES:-4096x4096x4096} --trials 10 --warmup 2 \
        --json "$OUT/cli.json" --md "$OUT/cli.md"; rc_cli=$?
    $SL run --op matmul --shape 0x4x4; echo "zero extent: exit $?"
    $SL explain --op matmul --shape 8192x8192x8192 --dtype bf16 > "$OUT/explain-bf16.txt"; echo "explain: exit $?"
    tail -30 "$OUT/explain-bf16.txt"
fi
if has memcheck; then
    stage "memcheck"
    timeout ${MEMCHECK_S:-120} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $TG --quick \
        > "$OUT/memcheck.txt" 2>&1; rc_mem=$?
    tail -4 "$OUT/memcheck.txt"
fi
if has ncu; then
    NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    cuobjdump --dump-sass $B/08_wgmma.o 2>/dev/null | gzip > "$OUT/wgmma.sass.gz"
    for c in ${NCU_CASES:-wgmma:4096 cublas:4096}; do
        v=${c%%:*}; sz=${c##*:}
        stage "ncu: $v at ${sz}^3 bf16 (the third kernel launch of matmul_bench: no kernel filter)"
        timeout ${NCU_S:-120} "$NCU" --clock-control none --launch-skip 2 --launch-count 1 --import-source no \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
            --section SourceCounters -f -o "$OUT/ncu-$v-$sz" \
            $B/matmul_bench --sizes $sz --dtypes bf16 --variants $v --trials 3 > "$OUT/ncu-$v-$sz.log" 2>&1
        echo "ncu exit $?"
        "$NCU" -i "$OUT/ncu-$v-$sz.ncu-rep" > "$OUT/ncu-$v-$sz.txt" 2>&1
        "$NCU" -i "$OUT/ncu-$v-$sz.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip > "$OUT/ncu-$v-$sz-sass.csv.gz"
        grep -E "^  [a-z_]+.*\(|Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|DRAM Throughput|Registers|Stall|Issue Slots Busy|Executed Ipc A|No Eligible|Warp Cycles Per Issued" "$OUT/ncu-$v-$sz.txt" | head -40
    done
fi
stage "done: cmake rc=$rc_cmake test rc=$rc_test memcheck rc=$rc_mem bench rc=$rc_bench cli rc=$rc_cli"
