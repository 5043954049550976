#!/bin/bash
# bench/device.sh - the one entry point for measurements on a device machine:
# one stage per op or study, each named for what it measures. Run from the
# repository root through the device tool:
#
#   run(kind="nvidia-h200", carry=[".deps"], command="STAGES='tests memcheck' bash bench/device.sh")
#   run(kind="nvidia-h200", carry=[".wt/NAME", ".deps"],
#       command="cd .wt/NAME && STAGES=softmax bash bench/device.sh")      (a helper's worktree)
#
# `bash bench/device.sh --help` lists the stages; `bash bench/device.sh softmax
# transpose` is the same as STAGES="softmax transpose". What the machine lacks
# (cJSON, zlib, cuDNN's headers and libraries, Fashion-MNIST) is unpacked once,
# by bench/deps_env.sh, from what was carried (.deps, .cudnn, .data; a
# worktree's staging copy finds the checkout's ../../.deps).
#
# Outputs under $OUT (default ./bench-out; the device tool's $OUT on the
# device), for each stage S, named for the GPU ("h200" on an H200, else the
# GPU's name in lower case) and TAG (default: today's date):
#   h200-S-TAG.md     the command (this script's and every command the stage
#                     ran), the GPU, the commit, the exit status, the seconds,
#                     the files it made and the end of its output
#   h200-S-TAG.json   the same, with every JSON result file the stage wrote
#                     (up to 4 MiB) under "results"
# and device.log (this output) and device-out.tgz (every stage's folder:
# S/stage.log, S/commands.txt, its results and logs; tar xzf to read). The
# device tool brings back 8 files: three stages a call come back as loose
# files, every stage's are in device-out.tgz. Commit what matters as
# bench/results/h200-S-TAG.{md,json}, then `python3 bench/results_index.py`.
#
# Environment: STAGES (the stages, in order; default "tests"), TAG, OUT,
# WORK (/tmp/sl-device), BUILD (build-h200), SL_CMAKE_EXTRA (more cmake
# options for the shared build), BUILD_TARGETS (build only these targets,
# e.g. for a quick `tests` with CTEST_ARGS="-R ..."), CTEST_ARGS, RUN_ARGS
# (streamlab run's trials, "--trials 30 --warmup 5"), MEMCHECK_TESTS,
# MEMCHECK_DTYPES, MEMCHECK_TIMEOUT, ALIGN_PARTS (align_bench's parts,
# "align smalln l2 hostpath"), and <STAGE>_STAGES for the stages that run a
# script of their own (e.g. SOFTMAX_STAGES="build tests seed"; empty: that
# script's default).
# Exit: 0 when every stage exited 0; 1 when one did not; 2 for an unknown stage.
set -uo pipefail

# name | what it measures | how (the script it runs, or "inline")
CATALOGUE='tests|the whole ctest suite on the GPU (sm_90 build, warnings as errors, ptxas report, SASS summary)|inline
memcheck|compute-sanitizer memcheck (leak check) of every GPU test program, quick mode|inline
list|streamlab list: every variant the build has|inline
smoke|every op, f32 and f64, at 2^20 (+ --cold): a quick look at every rung|inline
streamset|the STREAM / BabelStream set: every op at 2^25 and 2^28, f64 (event and wall timers) and f32, beside CUB|inline
babelstream|BabelStream 6.0 CUDA beside it (carry .peers-bs)|bench/babelstream.sh
ladders|the add ladder at the seed sizes and the axpy ladder (f32, bf16 at 2^26, 2^28)|inline
pow2|the add ladder at 2^20, 2^24, 2^28, --cold|inline
explore|explore_add: the tile / bulk / pipeline configurations behind the add rungs 7-9|inline
probe|streamlab probe: the device profile (ceilings, latencies, SM probes)|inline
model|the add ladder measured beside the bottleneck model (f32, bf16; 2^26, 2^28, 2^30)|inline
counters|the add ladder with CUPTI counters, and those counters beside ncu (bench/ncu_check.sh)|inline
torch|torch.add and y.add_(x, alpha) beside the add and axpy ladders (bench/peers.py elementwise)|inline
alignment|align_bench: every offset combination mod 16 B, small n, L2 sizes, host path (bench/experiments/align_report.py)|inline
softmax|the softmax ladder, cuDNN and torch at the seed and DRAM shapes|bench/softmax_h200.sh
transpose|the transpose ladder, cuBLAS geam, torch, the bank-conflict probe, ncu|bench/transpose_h200.sh
stencil|the stencil ladder at 8192^2, R = 1..16, carve-out, strips, counters|bench/stencil_h200.sh
matmul|the matmul ladder beside cuBLAS and torch.matmul|bench/matmul.sh
train|streamlab train beside the torch MLP on Fashion-MNIST (carry .data)|bench/train.sh
norms|rmsnorm and its backward at the LLM shapes|bench/norms_h200.sh
xent|softmax backward, cross-entropy forward and fused forward + backward|bench/xent_h200.sh
python|the Python package: pip install, pytest on the GPU, overheads, streamlab.bench|bench/py_h200.sh
peers|the row ops beside torch, torch.compile, Liger-Kernel and quack (stage the peers first: ../shared/peers/README.md)|bench/row_peers_h200.sh
verify|a merged tree in one short call: the GPU tests, the row ops, pytest, memcheck|bench/verify_h200.sh
smem|the shared-memory probes, the transpose model and counters|bench/smem_probe_h200.sh
report|a run with the full record, CPU vs GPU, and streamlab report|bench/report.sh
mpi|MPI mode on two GPUs of one host (kind nvidia-h200-x2)|bench/mpi2.sh'

usage() {
    sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    echo "Stages:"
    printf '%s\n' "$CATALOGUE" | awk -F'|' '{ printf "  %-12s %s%s\n", $1, $2, ($3 == "inline" ? "" : " [" $3 "]") }'
}
case "${1:-}" in -h|--help) usage; exit 0 ;; esac
[ $# -gt 0 ] && STAGES="$*"
STAGES=${STAGES:-tests}
known=$(printf '%s\n' "$CATALOGUE" | cut -d'|' -f1)
for s in $STAGES; do
    if ! grep -qx -- "$s" <<<"$known"; then
        echo "bench/device.sh: unknown stage '$s' (bash bench/device.sh --help lists them)" >&2
        exit 2
    fi
done

# The settings given to this call, for each stage's command line (before the defaults below).
USER_ENV=""
for v in TAG BUILD BUILD_TARGETS CTEST_ARGS RUN_ARGS SL_CMAKE_EXTRA MEMCHECK_TESTS MEMCHECK_DTYPES MEMCHECK_TIMEOUT \
         ALIGN_PARTS ALIGN_DTYPES ALIGN_TRIALS; do
    [ -n "${!v+x}" ] && USER_ENV="$USER_ENV$v=$(printf '%q' "${!v}") "
done
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/sl-device}
TAG=${TAG:-$(date +%F)}
BUILD=${BUILD:-build-h200}
SL=$BUILD/streamlab
RUN_ARGS=${RUN_ARGS:-"--trials 30 --warmup 5"}
rm -rf "$WORK"  # a warm machine keeps the last call's files: none may pass for this call's
mkdir -p "$OUT" "$WORK"
t0=$(date +%s)
exec > >(tee "$OUT/device.log") 2>&1
say() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
pack() { tar czf "$OUT/device-out.tgz" -C "$WORK" . 2>/dev/null; }
trap pack EXIT

. bench/deps_env.sh
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader -i 0 2>/dev/null | head -1)
case "$GPU" in *H200*) PREFIX=h200 ;; "") PREFIX=nogpu ;; *) PREFIX=$(echo "$GPU" | tr 'A-Z ' 'a-z-' | sed 's/^nvidia-//') ;; esac
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo "${SL_COMMIT:-unknown}")
say "device: ${GPU:-no GPU}; commit $COMMIT; stages: $STAGES"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,ecc.mode.current,power.draw \
    --format=csv > "$WORK/device.txt" 2>&1
nvcc --version 2>/dev/null | tail -2 >> "$WORK/device.txt"

# x CMD...: run CMD, and record it in the stage's commands.txt (its command inside the results).
x() { printf '%s\n' "$*" >> "$SDIR/commands.txt"; echo "+ $*"; "$@"; }

# The shared build (sm_90, warnings as errors, ptxas report, SASS summary),
# once per call for every inline stage that needs it.
need_build() {
    [ -f "$WORK/.built" ] && return 0
    local extra=""
    case " $STAGES " in *" explore "*|*" alignment "*) extra="-DSL_BUILD_BENCH=ON" ;; esac
    say "build ($BUILD)"
    x cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $extra \
        ${SL_CMAKE_EXTRA:-} $PREFIX_ARGS $ZARGS $CUDNN_ARGS > "$WORK/build.log" 2>&1 \
        || { echo "cmake failed"; tail -30 "$WORK/build.log"; return 1; }
    local targets=""
    [ -n "${BUILD_TARGETS:-}" ] && targets="--target $BUILD_TARGETS"
    x cmake --build $BUILD -j 16 $targets >> "$WORK/build.log" 2>&1 \
        || { echo "build failed"; grep -E "error|Error" "$WORK/build.log" | head -30; return 1; }
    if command -v cuobjdump >/dev/null && [ -f $BUILD/libstreamlab.a ]; then
        # in the background, beside the stage (about 2 minutes on 16
        # cores); the stage's subshell waits for it before it ends
        { cuobjdump --dump-sass $BUILD/libstreamlab.a | grep -E "Function :|LDG|STG|LDS|UBLKCP|SYNCS|LDGSTS|DFMA|\.L1::" \
            > "$WORK/sass.txt"; } 2>/dev/null &
        SASS_PID=$!
    fi
    grep -E "ptxas info|spill" "$WORK/build.log" | grep -B1 -E "[1-9][0-9]* bytes spill" | head -20
    touch "$WORK/.built"
}

# ---- the inline stages: st_NAME DIR -------------------------------------------
st_tests() {
    need_build || return 1
    # fuzz_short is CPU-only and runs in CI (4 minutes); test_install needs
    # pkg-config, which the device image may lack.
    local exclude="fuzz_short"
    command -v pkg-config >/dev/null || { exclude="$exclude|test_install"; echo "no pkg-config here: test_install left to CI"; }
    # With ctest -j, each CPU test's OpenMP team (a thread per core) spins
    # at its barriers beside the others: test_cpu took 203 s at -j 4, and
    # 24 s with passive waiting (h100-tests-2026-11-26d.md).
    # Four programs at once unless CTEST_ARGS says -j: the whole suite then
    # fits one device call with the build: 335 s in all on an H100 host
    # (bench/results/h100-tests-2026-11-26f.md).
    local par="-j 4"
    case " ${CTEST_ARGS:-} " in *" -j"*|*" --parallel"*) par="" ;; esac
    x env OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} \
        ctest --test-dir $BUILD --output-on-failure -V -E "$exclude" $par ${CTEST_ARGS:-} > "$1/tests.log" 2>&1
    local rc=$?
    grep -E "tests passed|Test +#|SKIPPED|FAILED" "$1/tests.log" | tail -40
    return $rc
}
st_memcheck() {
    need_build || return 1
    command -v compute-sanitizer >/dev/null || { echo "no compute-sanitizer here"; return 1; }
    local t rc fail=0
    # Every GPU test program but the 2^31-element one (MEMCHECK_TESTS to pick).
    for t in ${MEMCHECK_TESTS:-$(cd $BUILD/tests && ls test_gpu_* 2>/dev/null | grep -v -E 'huge|\.')}; do
        x env STREAMLAB_TEST_QUICK=1 STREAMLAB_TEST_DTYPES=${MEMCHECK_DTYPES:-f32,f64,bf16,fp8e4m3} STREAMLAB_TEST_SKIP_HUGE=1 \
            timeout ${MEMCHECK_TIMEOUT:-300} compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
            $BUILD/tests/$t > "$1/memcheck-$t.log" 2>&1
        rc=$?
        echo "memcheck $t exit: $rc"
        [ $rc = 0 ] || fail=1
        grep -E "ERROR SUMMARY|LEAK SUMMARY|FAILED" "$1/memcheck-$t.log" | tail -4
    done
    return $fail
}
st_list() {
    need_build || return 1
    x $SL list > "$1/list.txt" 2>&1 || return 1
    grep -E "^cuda .*(api|bulk|vec)" "$1/list.txt" | head -30
}
st_smoke() {
    need_build || return 1
    x $SL run --op all --dtype f32,f64 --sizes 2^20 --trials 5 --warmup 2 --cold --json "$1/smoke.json" \
        --md "$1/smoke.md" --quiet 2>&1 | tail -3
    local rc=${PIPESTATUS[0]}
    sed -n '/^## Summary/,$p' "$1/smoke.md"
    grep -E "FAIL|ERROR" "$1/smoke.md" | head -20
    return $rc
}
st_streamset() {
    # The STREAM / BabelStream set, f64 at 2^25 and 2^28, 100 trials
    # (BabelStream's --numtimes), event-timed; the public functions again
    # host-timed around launch + sync, as BabelStream times; f32 at 2^28 beside CUB.
    need_build || return 1
    local fail=0
    say "streamset f64 (events)"
    x $SL run --op all --dtype f64 --sizes 2^25,2^28 --trials 100 --warmup 5 \
        --json "$1/streamset-f64.json" --md "$1/streamset-f64.md" --quiet 2>&1 | tail -2; [ ${PIPESTATUS[0]} = 0 ] || fail=1
    sed -n '/^## Summary/,$p' "$1/streamset-f64.md"
    say "streamset f64 (wall clock, as BabelStream)"
    x $SL run --op copy,scale,add,triad,dot,nstream --dtype f64 --sizes 2^25,2^28 --trials 100 --warmup 5 --timer wall \
        --variants sl_copy,sl_scale,sl_add,sl_triad,sl_dot,sl_nstream \
        --json "$1/streamset-f64-wall.json" --md "$1/streamset-f64-wall.md" --quiet 2>&1 | tail -2; [ ${PIPESTATUS[0]} = 0 ] || fail=1
    sed -n '/^## Summary/,$p' "$1/streamset-f64-wall.md"
    say "streamset f32"
    x $SL run --op all --dtype f32 --sizes 2^28 --trials 100 --warmup 5 \
        --json "$1/streamset-f32.json" --md "$1/streamset-f32.md" --quiet 2>&1 | tail -2; [ ${PIPESTATUS[0]} = 0 ] || fail=1
    sed -n '/^## Summary/,$p' "$1/streamset-f32.md"
    return $fail
}
st_ladders() {
    need_build || return 1
    local fail=0
    x $SL run $RUN_ARGS --json "$1/ladder-add.json" --md "$1/ladder-add.md" --quiet 2>&1 | tail -2; [ ${PIPESTATUS[0]} = 0 ] || fail=1
    grep -E "^\| 200M" "$1/ladder-add.md" | cut -d'|' -f2-14
    x $SL run --op axpy --dtype f32,bf16 --sizes 2^26,2^28 $RUN_ARGS --json "$1/ladder-axpy.json" \
        --md "$1/ladder-axpy.md" --quiet 2>&1 | tail -2; [ ${PIPESTATUS[0]} = 0 ] || fail=1
    grep -E "^\| 256M" "$1/ladder-axpy.md" | cut -d'|' -f2-14
    return $fail
}
st_pow2() {
    # DESIGN.md's peer sizes; --cold so that 2^20 (12 MiB, inside L2) measures DRAM.
    need_build || return 1
    x $SL run --sizes 2^20,2^24,2^28 --cold $RUN_ARGS --json "$1/pow2.json" --md "$1/pow2.md" --quiet 2>&1 | tail -2
    local rc=${PIPESTATUS[0]}
    grep -E "^\| (2\^|n )" "$1/pow2.md"
    return $rc
}
st_explore() {
    need_build || return 1
    [ -x $BUILD/explore_add ] || { echo "no $BUILD/explore_add (SL_BUILD_BENCH=ON needs a GPU at configure time)"; return 1; }
    x $BUILD/explore_add --sizes 2^20,2^24,10M,100M,200M,2^28 --rounds 5 --trials 20 2>&1 | tee "$1/explore.txt"
    return ${PIPESTATUS[0]}
}
st_probe() {
    need_build || return 1
    x $SL probe --json "$1/device.profile.json" --md "$1/probe.md" 2>&1 | tail -40
    return ${PIPESTATUS[0]}
}
st_model() {
    # The add ladder measured beside the model's prediction, with the
    # committed H200 profile (docs/model.md).
    need_build || return 1
    local dt fail=0 P=profiles/NVIDIA-H200.profile.json
    for dt in f32 bf16; do
        x timeout 90 $SL run --op add --dtype $dt --sizes 2^26,2^28 --trials 9 --warmup 3 --quiet --profile $P \
            --json "$1/model-$dt.json" --md "$1/model-$dt.md" || fail=1
        x timeout 60 $SL run --op add --dtype $dt --sizes 2^30 --trials 5 --warmup 2 --quiet --profile $P \
            --variants copy,cub,vec4,grid_vec4,ilp2,ilp4,tile4,bulk,tile1,tile1_lu,tile1_nc,sl_add \
            --json "$1/model-$dt-2e30.json" --md "$1/model-$dt-2e30.md" || fail=1
    done
    grep -h -A30 "^## " "$1/model-f32.md" | head -40
    return $fail
}
st_counters() {
    need_build || return 1
    x $SL run --sizes 100M --counters $RUN_ARGS --profile profiles/NVIDIA-H200.profile.json \
        --json "$1/counters.json" --md "$1/counters.md" 2>&1 | tail -30
    local rc=${PIPESTATUS[0]}
    x env OUT="$1" bash bench/ncu_check.sh $BUILD 2>&1 | tail -60
    return $rc
}
st_torch() {
    x env PYTHONUNBUFFERED=1 python3 bench/peers.py elementwise --sizes 2^26,2^28 --dtypes f32,bf16,f16 --ops add,axpy \
        --trials 30 --json "$1/torch-elementwise.json"
}
st_alignment() {
    need_build || return 1
    [ -x $BUILD/align_bench ] || { echo "no $BUILD/align_bench (SL_BUILD_BENCH=ON needs a GPU at configure time)"; return 1; }
    x env ALIGN_DTYPES=${ALIGN_DTYPES:-f32,f64,bf16} ALIGN_TRIALS=${ALIGN_TRIALS:-3} \
        timeout 400 $BUILD/align_bench "$1/align.json" ${ALIGN_PARTS:-align smalln l2 hostpath} > "$1/align.log" 2>&1
    local rc=$?
    tail -20 "$1/align.log"
    x python3 bench/experiments/align_report.py "$1/align.json" > "$1/align.md" || rc=1
    return $rc
}

# ---- the stages that run a script of their own --------------------------------
# Each gets OUT and WORK inside the stage's folder, and STAGES from
# <STAGE>_STAGES (empty: the script's default stages).
delegate() {  # delegate DIR SCRIPT
    local var sub
    var=$(echo "${STAGE}_STAGES" | tr 'a-z' 'A-Z')
    sub=${!var:-}
    printf '%s\n' "${sub:+STAGES=\"$sub\" }bash $2" >> "$SDIR/commands.txt"
    echo "+ ${sub:+STAGES=\"$sub\" }bash $2"
    OUT="$1" WORK="$1/work" STAGES="$sub" SKIP="" bash "$2"
}

fail=0
for STAGE in $STAGES; do
    SDIR=$WORK/$STAGE
    mkdir -p "$SDIR"
    : > "$SDIR/commands.txt"
    how=$(printf '%s\n' "$CATALOGUE" | awk -F'|' -v s="$STAGE" '$1 == s { print $3 }')
    say "stage $STAGE"
    s0=$(date +%s)
    if [ "$how" = inline ]; then
        ( "st_$STAGE" "$SDIR"; r=$?; [ -n "${SASS_PID:-}" ] && wait "$SASS_PID"; exit $r ) 2>&1 | tee "$SDIR/stage.log"
    else
        delegate "$SDIR" "$how" 2>&1 | tee "$SDIR/stage.log"
    fi
    rc=${PIPESTATUS[0]}
    [ $rc = 0 ] || fail=1
    subvar=$(echo "${STAGE}_STAGES" | tr 'a-z' 'A-Z')
    subenv=""; [ -n "${!subvar:-}" ] && subenv="$subvar=$(printf '%q' "${!subvar}") "
    python3 bench/stage_report.py --dir "$SDIR" --stage "$STAGE" --rc $rc --seconds $(( $(date +%s) - s0 )) \
        --command "${USER_ENV}${subenv}STAGES=$STAGE bash bench/device.sh" --gpu "${GPU:-none}" --commit "$COMMIT" \
        --device-info "$WORK/device.txt" --out "$OUT/$PREFIX-$STAGE-$TAG" \
        || echo "stage_report failed for $STAGE"
    say "stage $STAGE: exit $rc ($OUT/$PREFIX-$STAGE-$TAG.md)"
    pack
done
say "done (exit $fail)"
exit $fail
