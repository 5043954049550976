#!/bin/bash
# bench/h200.sh - everything the GPU issues need from the device, in one call:
# build for sm_90 (warnings as errors, ptxas resource report), SASS of the
# add kernels, the full ctest suite (GPU tests included), compute-sanitizer
# memcheck on the GPU tests, `streamlab list`, the main job with JSON and
# Markdown results, and the rung-7/8 exploration.
#
# Run through the device tool from the repository root:
#   run(command="bash bench/h200.sh", carry=[".deps"])
# where .deps holds libcjson1 and libcjson-dev .debs (apt-get download ...),
# since the device machine cannot reach a package registry.
# Results land in $OUT (or ./bench-out when OUT is unset):
#   ladder:  build.log tests.log list.txt explore.txt h200-DATE.{json,md} h200-DATE-pow2.{json,md}
#   probe:   h200-probe-DATE.md, NVIDIA-H200.profile.json, ceilings-alone.json
#   model:   h200-model-DATE.{json,md} (run + explain with the probe's profile)
#   issue 6: h200-axpy-DATE.{json,md}, h200-dtypes-DATE.{json,md}, h200-hints-DATE.{json,md},
#            h200-misaligned-DATE.json, torch-DATE.json  (stages axpy dtypes hints misaligned torch)
#   issue 5: h200-counters-DATE.{json,md}, ncu-check.md, h200-l2write-DATE.md  (stage counters)
# STAGES picks what runs (default: the ladder stages, "build tests memcheck list
# run pow2 explore"); e.g. STAGES="build tests probe model". SKIP removes
# stages from the default. CTEST_ARGS passes options to ctest (e.g. "-E huge");
# RUN_ARGS to streamlab run.
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
DATE=$(date +%F)
SKIP=${SKIP:-}
STAGES=${STAGES:-"build tests memcheck list run pow2 explore"}
RUN_ARGS=${RUN_ARGS:-"--trials 30 --warmup 5"}
t0=$(date +%s)
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
skip() {
    case " $SKIP " in *" $1 "*) return 0 ;; esac
    case " $STAGES " in *" $1 "*) return 1 ;; esac
    return 0
}

# cJSON: use the system's, else unpack the carried Debian packages.
PREFIX_ARGS=""
if ! ldconfig -p 2>/dev/null | grep -q libcjson.so && [ -d .deps ]; then
    mkdir -p /tmp/deps
    for deb in .deps/*.deb; do
        if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$deb" /tmp/deps
        else (cd /tmp/deps && ar x "$OLDPWD/$deb" data.tar.xz && tar xf data.tar.xz && rm data.tar.xz); fi
    done
    PREFIX_ARGS="-DCMAKE_PREFIX_PATH=/tmp/deps/usr"
    export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi

stage "device" | tee "$OUT/build.log"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,ecc.mode.current,power.draw --format=csv >> "$OUT/build.log" 2>&1
nvcc --version | tail -2 >> "$OUT/build.log"

stage "build" | tee -a "$OUT/build.log"
BUILD=build-h200
cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS \
    >> "$OUT/build.log" 2>&1 || { echo "cmake failed"; tail -30 "$OUT/build.log"; exit 1; }
cmake --build $BUILD -j 16 >> "$OUT/build.log" 2>&1 || { echo "build failed"; grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
stage "sass" | tee -a "$OUT/build.log"
if command -v cuobjdump >/dev/null; then
    cuobjdump --dump-sass $BUILD/libstreamlab.a 2>/dev/null \
        | grep -E "Function :|LDG|STG|LDS|UBLKCP|SYNCS|LDGSTS|\.L1::" >> "$OUT/build.log"
fi

ctest_rc=-
if ! skip tests; then
    stage "ctest" | tee "$OUT/tests.log"
    ctest --test-dir $BUILD --output-on-failure -V ${CTEST_ARGS:-} >> "$OUT/tests.log" 2>&1
    ctest_rc=$?
    grep -E "tests passed|Test +#|SKIPPED|FAILED" "$OUT/tests.log" | tail -20
fi

if ! skip memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck" | tee -a "$OUT/tests.log"
    for t in test_gpu_add test_gpu_axpy; do
        STREAMLAB_TEST_QUICK=1 STREAMLAB_TEST_SKIP_HUGE=1 timeout 280 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
            $BUILD/tests/$t >> "$OUT/tests.log" 2>&1
        echo "memcheck $t exit: $?" | tee -a "$OUT/tests.log"
    done
    grep -E "ERROR SUMMARY|LEAK SUMMARY" "$OUT/tests.log" | tail -4
fi

if ! skip list; then
    stage "list"
    $BUILD/streamlab list > "$OUT/list.txt" 2>&1
    cat "$OUT/list.txt"
fi

if ! skip run; then
    stage "run"
    $BUILD/streamlab run $RUN_ARGS --json "$OUT/h200-$DATE.json" --md "$OUT/h200-$DATE.md" 2>&1
fi

if ! skip pow2; then
    # DESIGN.md's peer sizes; --cold so that 2^20 (12 MiB, inside L2) measures DRAM.
    stage "run pow2"
    $BUILD/streamlab run --sizes 2^20,2^24,2^28 --cold $RUN_ARGS --json "$OUT/h200-$DATE-pow2.json" \
        --md "$OUT/h200-$DATE-pow2.md" --quiet 2>&1
    grep -E "^\| (2\^|n )" "$OUT/h200-$DATE-pow2.md"
fi

if ! skip explore; then
    stage "explore"
    $BUILD/explore_add --sizes 2^20,2^24,10M,100M,200M,2^28 --rounds 5 --trials 20 2>&1 | tee "$OUT/explore.txt"
fi
if ! skip probe; then
    # The device profile, then the ceilings probe alone, to compare the two.
    stage "probe"
    mkdir -p profiles
    $BUILD/streamlab probe --json "$OUT/NVIDIA-H200.profile.json" --md "$OUT/h200-probe-$DATE.md" 2>&1
    cp "$OUT/NVIDIA-H200.profile.json" profiles/
    stage "probe: ceilings alone"
    $BUILD/streamlab probe --only ceilings --json "$OUT/ceilings-alone.json" 2>&1 | grep -A8 "GB/s (read"
    if command -v compute-sanitizer >/dev/null; then
        stage "probe under memcheck (quick)"
        compute-sanitizer --tool memcheck --error-exitcode 9 $BUILD/streamlab probe --quick --trials 1 \
            --json /tmp/quick.profile.json > /tmp/probe-memcheck.log 2>&1
        echo "probe memcheck exit: $?"; grep -E "ERROR SUMMARY" /tmp/probe-memcheck.log
        grep -B2 -A8 "=== *Program hit\|Invalid\|Error" /tmp/probe-memcheck.log | head -40
    fi
fi

if ! skip model; then
    # Model beside measurement: run with the profile, and explain's tables.
    stage "model"
    P=profiles/NVIDIA-H200.profile.json
    $BUILD/streamlab run --sizes 2^16,100M,200M $RUN_ARGS --profile $P --json "$OUT/h200-model-$DATE.json" \
        --md "$OUT/h200-model-$DATE.md" 2>&1
    {
        echo; echo '## streamlab explain (same profile)'; echo
        for args in "--n 200M" "--n 200M --variant naive" "--n 200M --variant bulk" "--n 2^16 --variant sl_add" \
                    "--n 2^16"; do
            echo '```'; echo "\$ streamlab explain $args --profile $P"
            $BUILD/streamlab explain $args --profile $P 2>&1; echo '```'
        done
    } >> "$OUT/h200-model-$DATE.md"
    tail -60 "$OUT/h200-model-$DATE.md"
fi
if ! skip axpy; then
    # Issue 6: the SAXPY ladder beside cuBLAS, f32 / bf16 / f16, at n >= 2^26.
    stage "axpy"
    $BUILD/streamlab run --op axpy --dtype f32,bf16,f16 --sizes 2^26,2^28 $RUN_ARGS \
        --json "$OUT/h200-axpy-$DATE.json" --md "$OUT/h200-axpy-$DATE.md" --quiet 2>&1
    grep -E "^\| " "$OUT/h200-axpy-$DATE.md" | cut -d'|' -f2-13
fi
if ! skip dtypes; then
    # Issue 6: add in every storage dtype beside CUB, and the FP8-output experiment.
    stage "dtypes"
    $BUILD/streamlab run --op add --dtype f32,f16,bf16,fp8e4m3,fp8e5m2 --sizes 2^26,2^28 $RUN_ARGS \
        --variants vec4,tile4,bulk,fp8out,sl_add --json "$OUT/h200-dtypes-$DATE.json" \
        --md "$OUT/h200-dtypes-$DATE.md" --quiet 2>&1
    grep -E "^\| " "$OUT/h200-dtypes-$DATE.md" | cut -d'|' -f2-13
fi
if ! skip hints; then
    # Issue 6: cache-hint rungs beside the same kernel without hints, one run.
    stage "hints"
    $BUILD/streamlab run --sizes 100M,2^28 $RUN_ARGS --variants tile1,tile1_cs,tile1_lu,tile1_nc,tile1_ef,vec4,fp8out \
        --json "$OUT/h200-hints-$DATE.json" --md "$OUT/h200-hints-$DATE.md" --quiet 2>&1
    grep -E "^\| " "$OUT/h200-hints-$DATE.md" | cut -d'|' -f2-13
fi
if ! skip misaligned; then
    # Issue 6: bf16 haxpy, n = 1e9, every array 3 elements past its allocation.
    stage "misaligned"
    $BUILD/streamlab run --op axpy --dtype bf16 --sizes 1e9 --offset 3 --variants v5_vec,tile4,bulk,sl_axpy \
        $RUN_ARGS --json "$OUT/h200-misaligned-$DATE.json" 2>&1 | grep -E "GB/s|^1G|copy|sl_axpy|cublas"
fi
if ! skip torch; then
    stage "torch"
    PYTHONUNBUFFERED=1 python3 bench/torch_peer.py --sizes 2^26,2^28 --dtypes f32,bf16,f16 --ops add,axpy \
        --trials 30 --json "$OUT/torch-$DATE.json" 2>&1
fi
if ! skip counters; then
    # Issue 5: counters beside the add ladder at 100M, the L2 experiments, ncu cross-check.
    stage "counters"
    $BUILD/streamlab run --sizes 100M --counters $RUN_ARGS --profile profiles/NVIDIA-H200.profile.json \
        --json "$OUT/h200-counters-$DATE.json" --md "$OUT/h200-counters-$DATE.md" 2>&1 | tail -30
    $BUILD/streamlab probe --only l2-write --counters --md "$OUT/h200-l2write-$DATE.md" \
        --json /tmp/l2write.profile.json 2>&1 | tail -30
    OUT="$OUT" bash bench/ncu_check.sh $BUILD 2>&1 | tail -60
fi
stage "done (ctest exit $ctest_rc)"
