#!/bin/bash
# bench/verify_h200.sh - a merged tree's GPU verification in one short device
# call, for when the device budget allows no full `bench/h200.sh` run:
#   1. build (sm_90, warnings as errors) the CLI, the shared library and the
#      GPU tests named in TESTS, on 16 cores;
#   2. those GPU tests through ctest, whole (TESTS="" runs none; unset runs
#      the default list below), plus the CLI's run of the new row ops at
#      small shapes;
#   3. the Python package's pytest suite on the GPU (torch CUDA, CuPy), run
#      from the source tree against the library just built
#      (STREAMLAB_LIBRARY; no `pip install`, so the ctypes binding: the
#      compiled _fastcall wrappers are not part of this check);
#   4. compute-sanitizer memcheck of the GPU tests named in MEMCHECK (quick;
#      MEMCHECK="" runs none, unset runs the default list below).
# Options (environment):
#   PY=install    step 3 on the package `pip install .` builds (in the
#                 background during step 1: the _fastcall binding, as users
#                 get it) instead of the source tree with ctypes;
#   OVERHEAD=1    then bench/py_bench.py --overhead-only (per-call host time
#                 against torch) into $OUT/py_bench.json;
#   TIMING="args" after the tests, `streamlab run args` with its JSON and
#                 Markdown into $OUT/timing.{json,md} (a rung's measurement
#                 in the same call that checks it); TIMING2 a second one;
#   BUILD         the build directory (build-verify); BUILD=build-ab from
#                 bench/ab_h200.sh's PRE reuses the candidate's build there;
#   MEMCHECK_S    each memcheck's time limit (200 s); MEMCHECK_PAR=1 runs them
#                 at once (compute-sanitizer is CPU-bound); CTEST_S the GPU tests' (300 s:
#                 test_gpu_rmsnorm and test_gpu_layernorm take ~120 s each on an H200),
#                 CTEST_J how many at once (1); PYTEST_S pytest's (150 s);
#                 PYTEST=0 leaves step 3 out (a kernel change that the
#                 package's tests do not reach; say so where its result is used);
#   ROW_OPS       the ops of the small `streamlab run` check (the row ops);
#   PEERS="ops"   last, bench/row_peers.py --ops "ops" (needs the peers staged:
#                 ../shared/peers/README.md, source .peers2/activate.sh first)
#                 into $OUT/row_peers.{json,md}, cut at PEERS_S seconds;
#                 PEERS_ARGS more of its arguments (e.g. "--dtypes f32,bf16
#                 --sides streamlab,torch --shapes 128x1024,128x2048": torch
#                 alone needs no staged peers).
# Each stage has its own time limit so that a slow stage cannot take the
# call's budget. A stage cut at its limit (exit 124) is named as such, not
# as a pass, and the script exits 1 when the build, a GPU test, a memcheck
# or pytest failed or was cut (the last line lists which), 0 otherwise.
# From the repository root (the call's limit at its most: test_gpu_rmsnorm alone
# takes ~120 s, and the default tests run one at a time):
#   run(kind="nvidia-h200", carry=[".deps"], command="bash bench/verify_h200.sh", timeout_s=600)
# Outputs under $OUT: verify.log (this output) and verify-out.tgz (the logs).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/sl-verify
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/verify.log") 2>&1
trap 'tar czf "$OUT/verify-out.tgz" -C "$W" . 2>/dev/null' EXIT
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
failed=""
CTEST_S=${CTEST_S:-300} MEMCHECK_S=${MEMCHECK_S:-200} # the stages' limits (header)
# check NAME RC LIMIT: note a failed (or cut) check for the last line
check() {
    [ "$2" = 0 ] && return 0
    if [ "$2" = 124 ]; then
        echo "$1: cut at its time limit ($3 s) before it ended: not a pass"
        failed="$failed $1(cut)"
    else
        failed="$failed $1(exit $2)"
    fi
}
TESTS=${TESTS-"test_gpu_rmsnorm test_gpu_softmax_bwd test_gpu_xent test_gpu_softmax test_gpu_bits test_gpu_graph test_gpu_transpose test_api_only"}  # TESTS="" builds and runs none
MEMCHECK=${MEMCHECK-"test_gpu_rmsnorm test_gpu_softmax_bwd test_gpu_xent"}  # MEMCHECK="" runs none
export PYTHONUNBUFFERED=1
# the quick sizes under memcheck only; ctest runs every test whole
QUICK_ENV="STREAMLAB_TEST_QUICK=1 SL_NORM_QUICK=1 SL_XENT_QUICK=1 SL_SOFTMAX_QUICK=1"

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,ecc.mode.current --format=csv,noheader
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
B=${BUILD:-build-verify}
PY=${PY:-source}
if [ "$PY" = install ]; then
    stage "pip install . in the background (build dir /tmp/skb)"
    CMAKE_BUILD_PARALLEL_LEVEL=8 python3 -m pip install --no-build-isolation --no-deps -C build-dir=/tmp/skb . \
        > "$W/pip.log" 2>&1 &
    pip_pid=$!
fi
stage "build (sm_90, -DSL_WERROR=ON): streamlab_cli streamlab_shared $TESTS"
python3 bench/keep_mtimes.py . $B
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > "$W/build.log" 2>&1 &&
    timeout 200 cmake --build $B -j 16 --target streamlab_cli streamlab_shared $TESTS >> "$W/build.log" 2>&1
rc=$?
echo "build exit $rc"
[ $rc = 0 ] || { grep -E "error|Error" "$W/build.log" | head -30; exit 1; }

if [ -n "$TESTS" ]; then
    stage "GPU tests"
    pattern=$(echo $TESTS | sed 's/ /|/g')
    timeout $CTEST_S ctest -j ${CTEST_J:-1} --test-dir $B -R "^($pattern)\$" --output-on-failure > "$W/ctest.log" 2>&1
    rc=$?
    echo "ctest exit $rc"
    check ctest $rc $CTEST_S
    grep -E "Test +#|tests passed|tests failed" "$W/ctest.log"
else
    stage "GPU tests: none (TESTS=\"\")"
fi

stage "the new row ops through streamlab run (every output checked against fp64)"
timeout 40 $B/streamlab run --op ${ROW_OPS:-rmsnorm,rmsnorm_bwd,softmax_bwd,xent,xent_fwd} --dtype f32,bf16 \
    --shape 1000x4096,77x50257 --trials 3 --warmup 1 --quiet > "$W/run.txt" 2>&1
rc=$?
echo "run exit $rc"
check run $rc 40
tail -3 "$W/run.txt"

for tv in TIMING TIMING2; do
    [ -n "${!tv:-}" ] || continue
    stage "timing: streamlab run ${!tv}"
    f=$(echo $tv | tr A-Z a-z)
    timeout 150 $B/streamlab run ${!tv} --json "$OUT/$f.json" --md "$OUT/$f.md" > "$W/$f.txt" 2>&1
    rc=$?
    echo "$tv exit $rc"
    check $tv $rc 150
    grep -vE "^ +[a-z]" "$W/$f.txt" | tail -40
done

# The package for pytest and the PEERS stage: the installed one (PY=install),
# else a copy of the source tree against $B/libstreamlab.so (ctypes). The
# package learns its library's backends from _build_info.py, which the
# SL_PYTHON install writes; without it (STREAMLAB_LIBRARY alone) it says
# "unknown" and the CUDA tests skip (they did in the first run of this
# script, 2026-11-26). So: a copy of python/ with that file. The copy sits
# at the checkout's top level, as python/ does: test_table.py reads
# ../../src/ops/ops.def from its own folder (in build-verify/py it found
# nothing: two failures in the 2026-11-26 second-session call). It is made
# with PYTEST=0 too (the PEERS stage imports it), and PYTHONPATH keeps what
# .peers2/activate.sh put there (Liger-Kernel and quack).
if [ "$PY" != install ]; then
    P=.verify-py
    rm -rf "$P" && cp -r python "$P"
    printf 'BACKENDS = "cuda,cpu"\nVERSION = "verify"\n' > "$P/streamlab/_build_info.py"
    export STREAMLAB_LIBRARY=$PWD/$B/libstreamlab.so PYTHONPATH=$PWD/$P${PYTHONPATH:+:$PYTHONPATH}
fi

# pytest in the background while memcheck runs (both light on the GPU;
# memcheck is CPU-bound): their output is printed after both end.
if [ "${PYTEST:-1}" = 0 ]; then
    stage "pytest: not run (PYTEST=0)"
    true &
    py_pid=$!
elif [ "$PY" = install ]; then
    stage "pytest (GPU), the installed package, in the background"
    wait $pip_pid; echo "pip install exit $?"; grep -E "streamlab:|Successfully installed" "$W/pip.log" | head -5
    (cd /tmp && python3 -c 'import streamlab; print("installed:", streamlab.LIB_PATH, streamlab.BACKENDS, streamlab.BINDING)')
    timeout ${PYTEST_S:-150} python3 -m pytest -q -rs -p no:cacheprovider python/tests -k "not bench" > "$W/pytest.txt" 2>&1 &
    py_pid=$!
else
    stage "pytest (GPU), a copy of the source tree against $B/libstreamlab.so, in the background"
    timeout ${PYTEST_S:-150} python3 -m pytest -q -rs -p no:cacheprovider "$P/tests" -k "not bench" \
        > "$W/pytest.txt" 2>&1 &
    py_pid=$!
fi

# memcheck is CPU-bound: MEMCHECK_PAR=1 runs the tests at once (each its own
# time limit), one after the other otherwise
mc_one() {
    env $QUICK_ENV timeout $MEMCHECK_S compute-sanitizer --tool memcheck --leak-check full --error-exitcode 1 $B/tests/$1 > "$W/memcheck-$1.log" 2>&1
}
mc_report() {
    echo "memcheck $1 exit: $2"
    check "memcheck-$1" $2 $MEMCHECK_S
    grep -E "ERROR SUMMARY|LEAK SUMMARY" "$W/memcheck-$1.log" | tail -2
}
if [ "${MEMCHECK_PAR:-0}" = 1 ] && [ -n "$MEMCHECK" ]; then
    stage "memcheck, at once: $MEMCHECK"
    mc_pids=""
    for t in $MEMCHECK; do
        mc_one $t &
        mc_pids="$mc_pids $!:$t"
    done
    for p in $mc_pids; do
        wait "${p%%:*}"
        mc_report "${p#*:}" $?
    done
else
    for t in $MEMCHECK; do
        stage "memcheck $t"
        mc_one $t
        mc_report $t $?
    done
fi
stage "pytest's result"
wait $py_pid
rc=$?
echo "pytest exit $rc"
check pytest $rc ${PYTEST_S:-150}
[ "${PYTEST:-1}" = 0 ] || grep -E "passed|failed|^FAILED|^ERROR" "$W/pytest.txt" | tail -12
if [ "${OVERHEAD:-0}" = 1 ]; then
    stage "per-call overhead (bench/py_bench.py --overhead-only)"
    timeout 120 python3 bench/py_bench.py --overhead-only "$OUT/py_bench.json"
fi
if [ -n "${PEERS:-}" ]; then
    stage "row ops beside their peers: $PEERS"
    timeout "${PEERS_S:-240}" python3 bench/row_peers.py --ops "$PEERS" ${PEERS_ARGS:-} --json "$OUT/row_peers.json" \
        --md "$OUT/row_peers.md" > "$W/row_peers.log" 2>&1
    echo "row_peers exit $? (124: cut at ${PEERS_S:-240} s; the files hold the cases finished)"
    grep -vE "^\|" "$W/row_peers.log" | tail -5
fi
stage "done"
if [ -n "$failed" ]; then
    echo "verify: FAILED:$failed"
    exit 1
fi
echo "verify: every check that ran passed"
