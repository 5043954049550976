#!/bin/bash
# Experiment (bench/experiments/): supports docs/ladder.md, "The STREAM /
# BabelStream set (issue 10)", "Against BabelStream 6.0 (issue 25)".
# bench/experiments/split_cost_babelstream.sh - issue 25 on the H200 in one device call:
#  1. builds, in parallel on the 16 cores: this tree (sm_90, warnings as
#     errors, ptxas report), the base tree (the repository root the device
#     receives: the code before issue 25, for the softmax before / after
#     timing), and BabelStream 6.0 (main), 6.0 with UNROLL_FACTOR=1 and 5.0,
#     each with -DMODEL=cuda -DCUDA_ARCH=sm_90 -DCMAKE_BUILD_TYPE=Release
#     (bench/babelstream.sh);
#  2. the tests of what changed: test_bits / test_gpu_bits, test_contract,
#     test_softmax_cpu, test_gpu_softmax, test_gpu_ops (copy, dot),
#     test_gpu_matmul, test_cpu_matmul;
#  3. sl_softmax before / after at the DRAM shapes (4096 x 2^15,
#     16384 x 2^14; f32, bf16): bench/softmax_bench from both builds in
#     alternation, base, new, base, new (graph replay, copy ceiling in each
#     process);
#  4. BabelStream's three builds at 2^28 f64 beside `streamlab run` (events
#     and wall clock) for copy, scale, add, triad, dot;
#  5. compute-sanitizer memcheck of test_gpu_bits, test_gpu_softmax
#     (SL_SOFTMAX_QUICK) and test_gpu_ops (copy, dot, quick);
#  6. `streamlab run --op softmax` at the DRAM shapes through the harness
#     (inputs of magnitude 2^-8..2^8: rows spanning +-256), this tree and
#     the base tree.
# Stages past DEADLINE seconds (default 400) are skipped and say so.
#
#   run(kind="nvidia-h200", carry=[".wt/correct", ".deps", ".peers-bs"],
#       command="cd .wt/correct && bash bench/experiments/split_cost_babelstream.sh")
#
# .peers-bs/{main,v5.0}: BabelStream's source exported from
# github:UoB-HPC/BabelStream (main 57637d5, tag v5.0 f6ae48de), git-ignored,
# never committed. Everything goes to /tmp/i25, packed into
# $OUT/split-cost-out.tgz; $OUT/split-cost-h200.log is this output and
# $OUT/split-cost-summary.md the comparison tables (bench/experiments/split_cost_summary.py).
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=${WORK:-/tmp/i25}
DEADLINE=${DEADLINE:-400}
mkdir -p "$OUT" "$W"
trap 'tar czf "$OUT/split-cost-out.tgz" -C "$W" . 2>/dev/null' EXIT
t0=$(date +%s)
exec > >(tee "$OUT/split-cost-h200.log") 2>&1
stage() { echo "== [$(($(date +%s) - t0))s] $*"; }
# go N: true while the call is under N seconds in; else say what is skipped
go() {
    [ $(($(date +%s) - t0)) -lt "$1" ] && return 0
    echo "== [$(($(date +%s) - t0))s] SKIPPED (past ${1}s): $2"
    return 1
}

DEBS="$(ls ../../.deps/*.deb 2>/dev/null)" . bench/deps_env.sh
BASE=../..
BS=../../.peers-bs
NEW=/tmp/new
OLD=/tmp/base

stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem,ecc.mode.current --format=csv,noheader
nvcc --version | tail -1
echo "this tree: $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-80)"

stage "builds: this tree, the base tree, BabelStream 6.0, 6.0 UNROLL_FACTOR=1, 5.0 (in parallel)"
COMMON="-G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_BUILD_BENCH=ON $PREFIX_ARGS"
(cmake -S . -B $NEW $COMMON -DSL_PTXAS_VERBOSE=ON > $W/build-new.log 2>&1 &&
    cmake --build $NEW -j 16 --target streamlab_cli softmax_bench test_softmax_cpu test_gpu_softmax test_bits \
        test_gpu_bits test_contract test_gpu_ops test_gpu_matmul test_cpu_matmul >> $W/build-new.log 2>&1
 echo "this tree's build: rc=$? at $(($(date +%s) - t0))s") &
p_new=$!
(cmake -S $BASE -B $OLD $COMMON > $W/build-base.log 2>&1 &&
    cmake --build $OLD -j 16 --target streamlab_cli softmax_bench >> $W/build-base.log 2>&1
 echo "base tree's build: rc=$? at $(($(date +%s) - t0))s") &
p_old=$!
bs_env() { # NAME -> the env of its babelstream.sh
    case $1 in
    main) echo "BS_SRC=$BS/main BS_BUILD=/tmp/bs-main BS_CMAKE_EXTRA=" ;;
    main-u1) echo "BS_SRC=$BS/main BS_BUILD=/tmp/bs-main-u1 BS_CMAKE_EXTRA=-DUNROLL_FACTOR=1" ;;
    v5.0) echo "BS_SRC=$BS/v5.0 BS_BUILD=/tmp/bs-v5.0 BS_CMAKE_EXTRA=" ;;
    esac
}
BSN="main main-u1 v5.0"
bs_pids=""
for b in $BSN; do
    mkdir -p $W/bs-$b
    (env $(bs_env $b) OUT=$W/bs-$b BS_STEP=build bash bench/babelstream.sh > $W/bs-$b/step-build.txt 2>&1
     echo "BabelStream $b build: rc=$?") &
    bs_pids="$bs_pids $!"
done
wait $p_new
wait $p_old
for p in $bs_pids; do wait $p; done
grep -E "error|FAILED" $W/build-new.log | head -20
grep -E "error|FAILED" $W/build-base.log | head -5
for b in $BSN; do tail -2 $W/bs-$b/step-build.txt; done
echo "ptxas, softmax register kernels (f32 = Li0E):"
grep -A2 "smx_regsILi[0-9]*ELi[0-9]*ELi32ELi0E" $W/build-new.log | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste - - | sort | uniq -c

if go "$DEADLINE" "quick tests"; then
    stage "tests: bits, contract, softmax CPU"
    $NEW/tests/test_bits 2>&1 | tail -3
    timeout 60 $NEW/tests/test_gpu_bits 2>&1 | tail -6; echo "test_gpu_bits exit ${PIPESTATUS[0]}"
    $NEW/tests/test_contract 2>&1 | tail -3
    $NEW/tests/test_softmax_cpu 2>&1 | tail -9
fi

if go $((DEADLINE - 120)) "softmax before / after"; then
    stage "sl_softmax before / after (base, new, base, new)"
    for i in 1 2; do
        for t in base new; do
            B=$OLD; [ $t = new ] && B=$NEW
            timeout 90 $B/softmax_bench --shapes 4096x2^15,16384x2^14 --dtypes f32,bf16 --variants copy,sl_softmax \
                --trials 10 --json $W/smx-$t-$i.json > $W/smx-$t-$i.txt 2>&1
            echo "$t $i: exit $?"; grep -E "sl_softmax|copy" $W/smx-$t-$i.txt
        done
    done
fi

if go $((DEADLINE - 90)) "BabelStream beside streamlab"; then
    stage "BabelStream (6.0, 6.0 UNROLL_FACTOR=1, 5.0) at 2^28 f64 beside streamlab run"
    SL=$NEW/streamlab
    $SL run --op copy,scale,add,triad,dot --dtype f64 --sizes 2^28 --trials 100 --warmup 5 \
        --variants sl_copy,sl_scale,sl_add,sl_triad,sl_dot,naive --json $W/sl-f64.json --md $W/sl-f64.md --quiet 2>&1 | tail -1
    for b in $BSN; do
        env $(bs_env $b) OUT=$W/bs-$b BS_STEP=run BS_SIZES=268435456 BS_PRECISIONS=f64 BS_NSTREAM=0 \
            timeout 60 bash bench/babelstream.sh 2>&1 | tail -7
    done
    $SL run --op copy,scale,add,triad,dot --dtype f64 --sizes 2^28 --trials 100 --warmup 5 --timer wall \
        --variants sl_copy,sl_scale,sl_add,sl_triad,sl_dot --json $W/sl-f64-wall.json --md $W/sl-f64-wall.md --quiet 2>&1 | tail -1
fi

if go $((DEADLINE - 60)) "test_gpu_softmax"; then
    stage "test_gpu_softmax"
    timeout 100 $NEW/tests/test_gpu_softmax > $W/test_gpu_softmax.txt 2>&1
    echo "test_gpu_softmax exit $?"; grep -v "^  " $W/test_gpu_softmax.txt | tail -8
fi
if go $((DEADLINE - 40)) "test_gpu_ops, test_gpu_matmul, test_cpu_matmul"; then
    stage "test_gpu_ops (copy, dot), test_gpu_matmul, test_cpu_matmul"
    STREAMLAB_TEST_OPS=copy,dot timeout 60 $NEW/tests/test_gpu_ops 2>&1 | tail -4; echo "test_gpu_ops exit ${PIPESTATUS[0]}"
    timeout 60 $NEW/tests/test_gpu_matmul 2>&1 | tail -3; echo "test_gpu_matmul exit ${PIPESTATUS[0]}"
    timeout 60 $NEW/tests/test_cpu_matmul 2>&1 | tail -2
fi

if go $((DEADLINE - 20)) "memcheck"; then
    stage "memcheck"
    MC="compute-sanitizer --tool memcheck --error-exitcode 9"
    timeout 60 $MC $NEW/tests/test_gpu_bits > $W/mc-bits.txt 2>&1; echo "memcheck test_gpu_bits exit $?"; tail -2 $W/mc-bits.txt
    SL_SOFTMAX_QUICK=1 timeout 100 $MC $NEW/tests/test_gpu_softmax > $W/mc-softmax.txt 2>&1
    echo "memcheck test_gpu_softmax (quick) exit $?"; grep -E "ERROR SUMMARY|checks|wide|issue 25" $W/mc-softmax.txt | tail -4
    STREAMLAB_TEST_QUICK=1 STREAMLAB_TEST_OPS=copy,dot timeout 60 $MC $NEW/tests/test_gpu_ops > $W/mc-ops.txt 2>&1
    echo "memcheck test_gpu_ops (copy, dot, quick) exit $?"; tail -2 $W/mc-ops.txt
fi

if go "$DEADLINE" "streamlab run --op softmax (harness)"; then
    stage "streamlab run --op softmax at the DRAM shapes (rows spanning +-256): this tree, then the base tree"
    $NEW/streamlab run --op softmax --shape 4096x2^15,16384x2^14 --dtype f32,bf16 --variants sl_softmax,regs,online \
        --trials 3 --warmup 1 --json $W/harness-new.json --md $W/harness-new.md 2>&1 | tail -3
    $OLD/streamlab run --op softmax --shape 4096x2^15 --dtype f32 --variants sl_softmax \
        --trials 3 --warmup 1 --json $W/harness-base.json 2>&1 | tail -3
fi

stage "summary"
python3 bench/experiments/split_cost_summary.py $W > $W/summary.md 2>&1
cat $W/summary.md
cp $W/summary.md "$OUT/split-cost-summary.md"
stage "done"
