#!/bin/bash
# bench/h200.sh - everything the GPU issues need from the device, in one call:
# build for sm_90 (warnings as errors, ptxas resource report), SASS of the
# kernels, the full ctest suite (GPU tests included), compute-sanitizer
# memcheck on the GPU tests, and the benchmark stages below.
#
# Run through the device tool from the repository root:
#   run(command="STAGES='build tests memcheck' bash bench/h200.sh", carry=[".deps", ".peers-bs"])
# where .deps holds libcjson1 and libcjson-dev .debs (apt-get download ...),
# since the device machine cannot reach a package registry, and .peers-bs holds
# BabelStream 6.0 (main/ of github:UoB-HPC/BabelStream; bench/babelstream.sh; never committed).
#
# The device tool brings back at most 8 files from $OUT: every stage writes
# under $WORK, and the script packs $WORK into $OUT/h200-out.tgz at the end
# (also when it fails or is stopped), beside $OUT/h200.log (this output).
# Unpack with: tar xzf h200-out.tgz.
#
# Stages (STAGES, default "build tests memcheck list"; SKIP removes some):
#   build tests memcheck list     correctness: ctest -V, memcheck of the GPU tests
#   smoke      every op, f32 and f64, at 2^20 (a quick look at every rung)
#   streamset  issue 10: every op at 2^25 and 2^28, f64 (event and wall
#              timers) and f32, -> streamset-{f64,f64-wall,f32}.{json,md}
#   babelstream  BabelStream 6.0 CUDA (-DMODEL=cuda -DCUDA_ARCH=sm_90 Release) beside it
#              (bench/babelstream.sh; carry .peers-bs)
#   ladders    the add and axpy ladders as committed before, for comparison
#   run pow2 explore probe model axpy dtypes hints misaligned torch counters
#              the earlier issues' stages (see their results' headers)
# CTEST_ARGS passes options to ctest (e.g. "-E huge"); RUN_ARGS to streamlab run;
# SL_CMAKE_EXTRA to cmake (e.g. "-DSL_BUILD_BENCH=ON" for bench/align_bench).
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/sl-work}
mkdir -p "$OUT" "$WORK"
DATE=$(date +%F)
SKIP=${SKIP:-}
STAGES=${STAGES:-"build tests memcheck list"}
RUN_ARGS=${RUN_ARGS:-"--trials 30 --warmup 5"}
t0=$(date +%s)
exec > >(tee "$OUT/h200.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
skip() {
    case " $SKIP " in *" $1 "*) return 0 ;; esac
    case " $STAGES " in *" $1 "*) return 1 ;; esac
    return 0
}
pack() { tar czf "$OUT/h200-out.tgz" -C "$WORK" . 2>/dev/null; }
trap pack EXIT

# cJSON: use the system's, else unpack the carried Debian packages.
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it

# cuDNN (the softmax peer): headers carried in .cudnn/include (never
# committed), libraries from torch's wheel.
CUDNN_ARGS=""
[ -f .cudnn/include/cudnn.h ] && CUDNN_ARGS="-DSL_CUDNN_INCLUDE_DIR=$PWD/.cudnn/include"
CUDNN_LIB=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
[ -n "$CUDNN_LIB" ] && [ -d "$CUDNN_LIB" ] && export LD_LIBRARY_PATH=$CUDNN_LIB:${LD_LIBRARY_PATH:-}

BUILD=build-h200
SL=$BUILD/streamlab
if ! skip build; then
    stage "device" | tee "$WORK/build.log"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,ecc.mode.current,power.draw --format=csv >> "$WORK/build.log" 2>&1
    nvcc --version | tail -2 >> "$WORK/build.log"
    stage "build"
    cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON ${SL_CMAKE_EXTRA:-} $PREFIX_ARGS $CUDNN_ARGS \
        >> "$WORK/build.log" 2>&1 || { echo "cmake failed"; tail -30 "$WORK/build.log"; exit 1; }
    cmake --build $BUILD -j 16 >> "$WORK/build.log" 2>&1 || { echo "build failed"; grep -E "error|Error" "$WORK/build.log" | head -30; exit 1; }
    if command -v cuobjdump >/dev/null; then
        cuobjdump --dump-sass $BUILD/libstreamlab.a 2>/dev/null \
            | grep -E "Function :|LDG|STG|LDS|UBLKCP|SYNCS|LDGSTS|DFMA|\.L1::" > "$WORK/sass.txt"
        grep -E "ptxas info|spill" "$WORK/build.log" | grep -B1 -E "[1-9][0-9]* bytes spill" | head -20
    fi
fi

ctest_rc=-
if ! skip tests; then
    stage "ctest"
    # fuzz_short is CPU-only and runs in CI (4 minutes); test_install needs
    # pkg-config, which the device image may lack.
    exclude="fuzz_short"
    command -v pkg-config >/dev/null || { exclude="$exclude|test_install"; echo "no pkg-config here: test_install left to CI"; }
    ctest --test-dir $BUILD --output-on-failure -V -E "$exclude" ${CTEST_ARGS:-} > "$WORK/tests.log" 2>&1
    ctest_rc=$?
    grep -E "tests passed|Test +#|SKIPPED|FAILED" "$WORK/tests.log" | tail -24
fi

if ! skip memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck"
    # Every GPU test program but the 2^31-element one (MEMCHECK_TESTS to pick).
    for t in ${MEMCHECK_TESTS:-$(cd $BUILD/tests && ls test_gpu_* 2>/dev/null | grep -v -E 'huge|\.')}; do
        STREAMLAB_TEST_QUICK=1 STREAMLAB_TEST_DTYPES=${MEMCHECK_DTYPES:-f32,f64,bf16,fp8e4m3} STREAMLAB_TEST_SKIP_HUGE=1 \
            timeout ${MEMCHECK_TIMEOUT:-300} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
            $BUILD/tests/$t > "$WORK/memcheck-$t.log" 2>&1
        echo "memcheck $t exit: $?"
        grep -E "ERROR SUMMARY|LEAK SUMMARY|FAILED" "$WORK/memcheck-$t.log" | tail -4
    done
fi

if ! skip list; then
    stage "list"
    $SL list > "$WORK/list.txt" 2>&1
    grep -E "^cuda .*(api|bulk|vec)" "$WORK/list.txt" | head -30
fi

if ! skip smoke; then
    stage "smoke: every op, f32 and f64, 2^20 (+ --cold)"
    $SL run --op all --dtype f32,f64 --sizes 2^20 --trials 5 --warmup 2 --cold --json "$WORK/smoke.json" \
        --md "$WORK/smoke.md" --quiet 2>&1 | tail -3
    sed -n '/^## Summary/,$p' "$WORK/smoke.md"
    grep -E "FAIL|ERROR" "$WORK/smoke.md" | head -20
fi

if ! skip streamset; then
    # Issue 10: the STREAM / BabelStream set, f64 at 2^25 and 2^28, 100
    # trials (BabelStream's --numtimes), event-timed; the public functions
    # again host-timed around launch + sync, as BabelStream times; f32 at
    # 2^28 beside CUB.
    stage "streamset f64 (events)"
    $SL run --op all --dtype f64 --sizes 2^25,2^28 --trials 100 --warmup 5 \
        --json "$WORK/streamset-f64.json" --md "$WORK/streamset-f64.md" --quiet 2>&1 | tail -2
    sed -n '/^## Summary/,$p' "$WORK/streamset-f64.md"
    stage "streamset f64 (wall clock, as BabelStream)"
    $SL run --op copy,scale,add,triad,dot,nstream --dtype f64 --sizes 2^25,2^28 --trials 100 --warmup 5 --timer wall \
        --variants sl_copy,sl_scale,sl_add,sl_triad,sl_dot,sl_nstream \
        --json "$WORK/streamset-f64-wall.json" --md "$WORK/streamset-f64-wall.md" --quiet 2>&1 | tail -2
    sed -n '/^## Summary/,$p' "$WORK/streamset-f64-wall.md"
    stage "streamset f32"
    $SL run --op all --dtype f32 --sizes 2^28 --trials 100 --warmup 5 \
        --json "$WORK/streamset-f32.json" --md "$WORK/streamset-f32.md" --quiet 2>&1 | tail -2
    sed -n '/^## Summary/,$p' "$WORK/streamset-f32.md"
fi

if ! skip babelstream; then
    stage "BabelStream 6.0 CUDA (main; -DMODEL=cuda -DCUDA_ARCH=sm_90 -DCMAKE_BUILD_TYPE=Release)"
    OUT="$WORK" bash bench/babelstream.sh 2>&1 | tail -30
fi

if ! skip ladders; then
    # add and axpy as their committed results ran them, to compare (within noise).
    stage "ladders: add (seed sizes) and axpy"
    $SL run $RUN_ARGS --json "$WORK/ladder-add.json" --md "$WORK/ladder-add.md" --quiet 2>&1 | tail -2
    grep -E "^\| 200M" "$WORK/ladder-add.md" | cut -d'|' -f2-14
    $SL run --op axpy --dtype f32,bf16 --sizes 2^26,2^28 $RUN_ARGS --json "$WORK/ladder-axpy.json" \
        --md "$WORK/ladder-axpy.md" --quiet 2>&1 | tail -2
    grep -E "^\| 256M" "$WORK/ladder-axpy.md" | cut -d'|' -f2-14
fi

if ! skip run; then
    stage "run"
    $SL run $RUN_ARGS --json "$WORK/h200-$DATE.json" --md "$WORK/h200-$DATE.md" 2>&1
fi
if ! skip pow2; then
    # DESIGN.md's peer sizes; --cold so that 2^20 (12 MiB, inside L2) measures DRAM.
    stage "run pow2"
    $SL run --sizes 2^20,2^24,2^28 --cold $RUN_ARGS --json "$WORK/h200-$DATE-pow2.json" \
        --md "$WORK/h200-$DATE-pow2.md" --quiet 2>&1
    grep -E "^\| (2\^|n )" "$WORK/h200-$DATE-pow2.md"
fi
if ! skip explore; then
    stage "explore"
    $BUILD/explore_add --sizes 2^20,2^24,10M,100M,200M,2^28 --rounds 5 --trials 20 2>&1 | tee "$WORK/explore.txt"
fi
if ! skip probe; then
    # The device profile, then the ceilings probe alone, to compare the two.
    stage "probe"
    mkdir -p profiles
    $SL probe --json "$WORK/NVIDIA-H200.profile.json" --md "$WORK/h200-probe-$DATE.md" 2>&1
    cp "$WORK/NVIDIA-H200.profile.json" profiles/
fi
if ! skip model; then
    stage "model"
    P=profiles/NVIDIA-H200.profile.json
    $SL run --sizes 2^16,100M,200M $RUN_ARGS --profile $P --json "$WORK/h200-model-$DATE.json" \
        --md "$WORK/h200-model-$DATE.md" 2>&1 | tail -20
fi
if ! skip torch; then
    stage "torch"
    PYTHONUNBUFFERED=1 python3 bench/torch_peer.py --sizes 2^26,2^28 --dtypes f32,bf16,f16 --ops add,axpy \
        --trials 30 --json "$WORK/torch-$DATE.json" 2>&1
fi
if ! skip counters; then
    stage "counters"
    $SL run --sizes 100M --counters $RUN_ARGS --profile profiles/NVIDIA-H200.profile.json \
        --json "$WORK/h200-counters-$DATE.json" --md "$WORK/h200-counters-$DATE.md" 2>&1 | tail -30
    OUT="$WORK" bash bench/ncu_check.sh $BUILD 2>&1 | tail -60
fi
stage "done (ctest exit $ctest_rc)"
