#!/bin/bash
# bench/stencil_h200.sh - issue 11's stencil half on the device, in one call:
# build for sm_90 (warnings as errors, ptxas report), SASS counts of the
# stencil kernels, test_stencil and
# test_gpu_stencil, compute-sanitizer memcheck of test_gpu_stencil, the
# stencil ladder at 8192^2 for R = 1, 2, 4, 8, 16, the L1 / shared-memory
# carve-out sweep, the regwin strip sweep, DRAM counters, and the warp
# divergence probe (streamlab probe --only divergence, which replaced bench/divergence.cu).
#
# Run through the device tool from a copy of the tree (see
# /work/helpers/GUIDE.md), e.g.
#   run(kind="nvidia-h200", carry=[".wt/NAME", ".deps"],
#       command="cd .wt/NAME && cp -r ../../.deps . && bash bench/stencil_h200.sh")
# STAGES (default: all of build sass tests ladder divergence memcheck carveout strip counters)
# picks stages. Everything lands in $WORK, packed into $OUT/stencil-out.tgz,
# with this output in $OUT/stencil.log.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/sl-stencil}
mkdir -p "$OUT" "$WORK"
STAGES=${STAGES:-"build sass tests memcheck ladder carveout strip counters divergence"}
TRIALS=${TRIALS:-"--trials 20 --warmup 3"}
t0=$(date +%s)
exec > >(tee "$OUT/stencil.log") 2>&1
stage() { pack; echo "== [$(( $(date +%s) - t0 ))s] $*"; }
want() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
pack() { tar czf "$OUT/stencil-out.tgz" -C "$WORK" . 2>/dev/null; }
trap pack EXIT

# cJSON from the carried .debs when the system lacks it (as bench/h200.sh).
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
B=build-stencil
SL=$B/streamlab
SHAPES=8192x8192x1,8192x8192x2,8192x8192x4,8192x8192x8,8192x8192x16

if want build; then
    stage "device"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$WORK/device.txt"
    nvcc --version | tail -1
    stage "build"
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON -DSL_BUILD_BENCH=ON \
        $PREFIX_ARGS > "$WORK/build.log" 2>&1 || { echo "cmake failed"; tail -30 "$WORK/build.log"; exit 1; }
    cmake --build $B -j 16 --target streamlab_cli test_stencil test_gpu_stencil >> "$WORK/build.log" 2>&1 \
        || { echo "build failed"; grep -E "error|Error" "$WORK/build.log" | head -40; exit 1; }
    grep -A2 "stencil_" "$WORK/build.log" | grep -E "registers|spill" | grep -E "[1-9][0-9]* bytes spill" | head
fi

if want sass; then
    stage "sass"
    cuobjdump --dump-sass $B/libstreamlab.a > "$WORK/all.sass" 2>/dev/null || cuobjdump --dump-sass $SL > "$WORK/all.sass"
    # per stencil kernel instance: instruction counts of interest
    awk '/Function : /{fn=$3} fn ~ /stencil_/ {for (i = 1; i <= NF; i++) if ($i ~ /^(LDG|LDS|STS|STG|BAR|FFMA|FADD|FMUL|LDL|STL|MOV)/) {split($i, a, "."); c[fn" "a[1]]++}}
         END {for (k in c) print k, c[k]}' "$WORK/all.sass" | sort > "$WORK/sass-stencil-counts.txt"
    grep -E "ILi(1|4|16)E" "$WORK/sass-stencil-counts.txt" | head -60
fi

if want tests; then
    stage "tests"
    $B/tests/test_stencil 2>&1 | tail -5
    echo "test_stencil exit ${PIPESTATUS[0]}"
    $B/tests/test_gpu_stencil 2>&1 | tail -15
    echo "test_gpu_stencil exit ${PIPESTATUS[0]}"
fi

if want ladder; then
    stage "ladder: 8192^2, R = 1 2 4 8 16"
    $SL run --op stencil --shape $SHAPES $TRIALS --json "$WORK/ladder.json" --md "$WORK/ladder.md" 2>&1 | tail -40
    $SL explain --op stencil --shape 8192x8192x4 > "$WORK/explain-r4.txt" 2>&1
    $SL explain --op stencil --shape 8192x8192x16 > "$WORK/explain-r16.txt" 2>&1
fi

if want divergence; then
    stage "divergence"
    $SL probe --only divergence --json "$WORK/divergence.profile.json" --md "$WORK/divergence.md"   # was bench/divergence.cu
fi
if want memcheck && command -v compute-sanitizer >/dev/null; then
    stage "memcheck"
    timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 $B/tests/test_gpu_stencil \
        > "$WORK/memcheck.log" 2>&1
    echo "memcheck test_gpu_stencil exit: $?"
    grep -E "ERROR SUMMARY|LEAK SUMMARY|FAILED|checks passed" "$WORK/memcheck.log" | tail -4
fi

if want carveout; then
    for c in 0 25 100; do
        stage "carve-out $c% shared memory: l1, smem at R = 4, 8, 16"
        SL_STENCIL_CARVEOUT=$c $SL run --op stencil --variants l1,smem --shape 8192x8192x4,8192x8192x8,8192x8192x16 \
            $TRIALS --json "$WORK/carveout-$c.json" --quiet 2>&1 | tail -3
        python3 - "$WORK/carveout-$c.json" <<'PY' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("results", d.get("rows", [])):
    print(" ", r.get("variant"), r.get("shape", r.get("size")), "GB/s", r.get("gbps", r.get("gb_s")), "ms", r.get("ms", r.get("time_ms")))
PY
    done
fi

if want strip; then
    for h in 128 512; do
        stage "regwin strip $h rows at R = 1, 4, 16"
        SL_STENCIL_STRIP=$h $SL run --op stencil --variants regwin,regwin4 --shape 8192x8192x1,8192x8192x4,8192x8192x16 \
            $TRIALS --json "$WORK/strip-$h.json" 2>&1 | grep -E "regwin|copy" | head -12
    done
fi

if want counters; then
    stage "counters: R = 4, 16"
    $SL run --op stencil --shape 8192x8192x4,8192x8192x16 --trials 5 --warmup 2 --counters \
        --json "$WORK/counters.json" --md "$WORK/counters.md" 2>&1 | tail -20
fi

stage "done"
