#!/bin/sh
# MPI mode of `streamlab run` (issue 15) with 2 CPU ranks on this machine:
#   1. add, triad and dot: the per-rank and aggregate rows are present and
#      consistent (mpi_check recomputes them from the raw trial times), one
#      device record per rank, the Markdown table, the distributed dot
#      within its bound;
#   2. a wrong result on rank 1 (STREAMLAB_INJECT_CORRUPT) ends the job with
#      exit 1 and an error naming rank 1 and its host; the JSON keeps the
#      rows finished, status failed;
#   3. a failed launch on rank 0 (STREAMLAB_INJECT_FAULT) likewise;
#   4. a lost partial in the distributed dot (STREAMLAB_INJECT_DOT_RANK) is
#      caught by the global reference;
#   5. a rank that stops answering: the others give up after --mpi-timeout
#      and end the job (MPI_Abort) instead of hanging; a rank killed by
#      SIGKILL ends the job too;
#   6. usage errors exit 2 with one message.
# Skipped (77) where mpirun is absent or the build has no MPI mode.
# Usage: test_mpi.sh STREAMLAB MPI_CHECK OUT_DIR MPIEXEC
set -u
SL=$1
CHECK=$2
OUT=$3
MPIEXEC=${4:-}
if [ -z "$MPIEXEC" ] || ! command -v "$MPIEXEC" >/dev/null 2>&1; then
    MPIEXEC=$(command -v mpirun 2>/dev/null || true)
fi
if [ -z "$MPIEXEC" ]; then
    echo "SKIPPED: no mpirun (install openmpi-bin libopenmpi-dev: scripts/deps.sh) - the MPI tests need it"
    exit 77
fi
# Under a sanitizer (SL_SANITIZE): Open MPI is built without frame pointers,
# so LeakSanitizer needs the slow unwinder to see that the blocks it keeps
# past MPI_Finalize are its own (tests/lsan.supp names its libraries), and
# its components must stay loaded to be named.
if [ -n "${SL_SANITIZER:-}" ]; then
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:fast_unwind_on_malloc=0:malloc_context_size=40"
    OMPI_MCA_mca_base_component_disable_dlclose=1
    export ASAN_OPTIONS OMPI_MCA_mca_base_component_disable_dlclose
fi
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
SL=$(abs "$SL")
CHECK=$(abs "$CHECK")
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT" || exit 1
# Open MPI refuses root without --allow-run-as-root; --oversubscribe lets 2
# ranks run on a machine with fewer slots. Other MPIs: neither flag.
FLAGS=""
if "$MPIEXEC" --version 2>&1 | grep -qi "open mpi\|openrte"; then
    FLAGS="--oversubscribe"
    [ "$(id -u)" = 0 ] && FLAGS="$FLAGS --allow-run-as-root"
fi
MPI="$MPIEXEC $FLAGS -np 2"
fails=0
fail() {
    echo "FAILED: $*"
    fails=$((fails + 1))
}
# run NAME TIMEOUT CMD...: stdout, stderr and exit code into NAME.{out,err,rc}
run() {
    name=$1
    t=$2
    shift 2
    timeout "$t" "$@" >"$name.out" 2>"$name.err"
    echo $? >"$name.rc"
}
rc() { cat "$1.rc"; }

# Is this build's MPI mode there at all?
run probe 60 $MPI "$SL" run --device cpu --help
if grep -q "built without MPI" probe.err; then
    echo "SKIPPED: this streamlab was built without MPI (configure with -DSL_MPI=ON)"
    exit 77
fi

# 1. the rows
run ok 300 $MPI "$SL" run --device cpu --op add,triad,dot --sizes 65539,5 --trials 5 --warmup 2 --seed 11 --json ok.json --md ok.md
[ "$(rc ok)" = 0 ] || { fail "the 2-rank run exited $(rc ok)"; cat ok.err; }
"$CHECK" ok.json complete 2 6 || fail "mpi_check on the 2-rank run"
grep -q "^add .* sl_add " ok.out || fail "no sl_add row in the table"
grep -q "per-rank GB/s min/med/max" ok.out || fail "no per-rank column in the table"
grep -q "^f32   65539" ok.out || grep -q "^f32 " ok.out || fail "no distributed dot line"
grep -q "all-reduce transport: host memory (CPU ranks)" ok.out || fail "the transport is not stated"
grep -q "^# streamlab mpirun (2 ranks" ok.md || fail "Markdown title"
grep -q "aggregate / (K x single)" ok.md || fail "Markdown aggregate column"
n=$(grep -c '"device_key"' ok.json)
[ "$n" = 2 ] || fail "$n device records in the JSON, want 2"

# 2. a wrong result on rank 1
run corrupt 300 env STREAMLAB_INJECT_CORRUPT=sl_add STREAMLAB_INJECT_RANK=1 \
    $MPI "$SL" run --device cpu --op add,triad --sizes 65539 --trials 3 --warmup 1 --json corrupt.json
[ "$(rc corrupt)" = 1 ] || fail "a wrong result on rank 1: exit $(rc corrupt), want 1"
grep -q "error: rank 1 (host .*) failed add sl_add f32 .*differ" corrupt.err ||
    { fail "the error does not name rank 1 and the mismatch"; cat corrupt.err; }
"$CHECK" corrupt.json failed 2 1 1 || fail "mpi_check on the failed run"
grep -q '"variant":[[:space:]]*"sl_add"' corrupt.json || fail "the failing row is not in the file"
if grep -q '"op":[[:space:]]*"triad"' corrupt.json; then fail "triad ran after the failure"; fi

# 3. a failed launch on rank 0
run fault 300 env STREAMLAB_INJECT_FAULT=omp STREAMLAB_INJECT_RANK=0 \
    $MPI "$SL" run --device cpu --op add --sizes 1000 --trials 3 --warmup 1 --json fault.json
[ "$(rc fault)" = 1 ] || fail "a failed launch on rank 0: exit $(rc fault), want 1"
grep -q "error: rank 0 (host .*) failed add omp" fault.err || { fail "the error does not name rank 0"; cat fault.err; }
"$CHECK" fault.json failed 2 1 0 || fail "mpi_check on the launch failure"

# 4. the distributed dot's check catches a lost partial
run drop 300 env STREAMLAB_INJECT_DOT_RANK=1 \
    $MPI "$SL" run --device cpu --op dot --sizes 65539 --trials 3 --warmup 1 --solo none --json drop.json
[ "$(rc drop)" = 1 ] || fail "a lost partial: exit $(rc drop), want 1"
grep -q "error: distributed dot f32 .*reference.*> bound" drop.err || { fail "the lost partial is not reported"; cat drop.err; }

# 5. a rank that hangs, and one killed: the job ends
start=$(date +%s)
run hang 120 env STREAMLAB_INJECT_STALL=serial:hang STREAMLAB_INJECT_RANK=1 \
    $MPI "$SL" run --device cpu --op add --sizes 1000 --trials 3 --warmup 1 --mpi-timeout 3 --json hang.json
took=$(($(date +%s) - start))
[ "$(rc hang)" != 0 ] && [ "$(rc hang)" != 124 ] || fail "a hanging rank: exit $(rc hang) after ${took}s (124: it hung)"
grep -q "rank 0 (host .*): the other ranks did not answer for [0-9]* s at a timed row" hang.err ||
    { fail "no timeout message"; cat hang.err; }
grep -q '"status":[[:space:]]*"failed"' hang.json || fail "the JSON of the hung run is not marked failed"
run kill 120 env STREAMLAB_INJECT_STALL=serial:kill STREAMLAB_INJECT_RANK=1 \
    $MPI "$SL" run --device cpu --op add --sizes 1000 --trials 3 --warmup 1 --mpi-timeout 10 --json kill.json
[ "$(rc kill)" != 0 ] && [ "$(rc kill)" != 124 ] || fail "a killed rank: exit $(rc kill) (124: it hung)"

# 6. usage errors: exit 2, said once (by rank 0)
run usage 60 $MPI "$SL" run --device cpu --trials 5000
[ "$(rc usage)" = 2 ] || fail "--trials 5000: exit $(rc usage), want 2"
n=$(grep -c "trials wants" usage.err)
[ "$n" = 1 ] || fail "--trials 5000: said $n times, want once"
run variant 60 $MPI "$SL" run --device cpu --variants nosuch --sizes 1000
[ "$(rc variant)" = 2 ] || fail "--variants nosuch: exit $(rc variant), want 2"
grep -q "'nosuch' is no variant" variant.err || fail "--variants nosuch: no message"
run dev 60 $MPI "$SL" run --device 0,cpu,1 --sizes 1000
[ "$(rc dev)" != 0 ] || fail "--device 0,... on a machine with no GPU succeeded"

if [ $fails -ne 0 ]; then
    echo "test_mpi: $fails failures (outputs in $OUT)"
    exit 1
fi
echo "test_mpi: all checks passed"
