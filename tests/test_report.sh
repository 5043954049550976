#!/bin/sh
# streamlab report, structurally (no browser): a fresh CPU run and a quick
# CPU probe profile, beside the committed H200 results and profile, into
# one page; tests/check_report.py then checks it against the inputs. Also
# the command's errors: a missing gnuplot, an input that is not ours, and
# an output that is not ours.
# Usage: test_report.sh STREAMLAB SOURCE_DIR WORK_DIR
set -u
SL=$1
SRC=$2
T=$3
rm -rf "$T" && mkdir -p "$T" || exit 1
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
# --devices cpu,0: with a GPU, both run and the comparison follows the
# table; without one, the CPU runs alone and says so.
"$SL" run --devices cpu,0 --sizes 100000,1M --trials 3 --warmup 1 --include-transfer --json "$T/cmp.json" \
    > "$T/cmp.out" 2>&1
rc=$?
[ $rc = 0 ] || { cat "$T/cmp.out"; fail "run --devices cpu,0 exited $rc"; }
if grep -q "running on the CPU alone" "$T/cmp.out"; then
    grep -q '"cpu_vs_gpu"' "$T/cmp.json" && fail "a CPU-only run wrote a CPU vs GPU comparison"
    echo "test_report: --devices cpu,0 without a GPU: the CPU ran alone, with the message"
else
    grep -q "CPU vs GPU" "$T/cmp.out" || fail "a cpu,0 run printed no CPU vs GPU comparison"
    grep -q '"cpu_vs_gpu"' "$T/cmp.json" || fail "a cpu,0 run's JSON has no cpu_vs_gpu"
    # the GPU part of the record: versions, UUID, modes, NVML per row
    for key in cuda_runtime_version uuid persistence_mode compute_mode '"nvml"' temperature_c throttled \
        '"transfer_ms"' gpu_with_transfer_over_omp; do
        grep -q "$key" "$T/cmp.json" || fail "the record of a GPU run lacks $key"
    done
fi
# the record of every run: build, host, OpenMP, command line, seed
for key in '"record"' git_describe '"cpu"' max_threads proc_bind OMP_PLACES '"command"' '"seed"'; do
    grep -q "$key" "$T/cmp.json" || fail "the record lacks $key"
done
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is not installed (scripts/deps.sh installs it): the structural check is a Python script"
    [ $fails = 0 ] && exit 77 || exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1 && [ -z "${STREAMLAB_GNUPLOT:-}" ]; then
    # Without gnuplot the command must say so and exit 1, and that is all we can test.
    "$SL" report "$SRC/profiles/NVIDIA-H200.profile.json" -o "$T/r.html" 2> "$T/err"
    rc=$?
    grep -q "gnuplot is not installed" "$T/err" && [ $rc = 1 ] || { cat "$T/err"; fail "no gnuplot: exit $rc"; }
    echo "SKIP: gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
    [ $fails = 0 ] && exit 77 || exit 1
fi

"$SL" run --devices cpu --op add,triad --sizes 100000,1M --trials 3 --warmup 1 --seed 7 --json "$T/cpu.json" --quiet \
    || fail "streamlab run (cpu) exited $?"
"$SL" probe -d cpu --quick --json "$T/cpu.profile.json" > "$T/probe.out" 2>&1 || { tail -5 "$T/probe.out"; fail "probe exited $?"; }
H200="$SRC/bench/results/h200-ladders-2026-11-22-add.json $SRC/bench/results/h200-ladders-2026-11-22-axpy.json"
set -- "$T/cpu.json" "$T/cmp.json" "$T/cpu.profile.json" $H200 "$SRC/profiles/NVIDIA-H200.profile.json"
"$SL" report "$@" -o "$T/report.html" > "$T/report.out" 2>&1 || { cat "$T/report.out"; fail "report exited $?"; }
python3 "$SRC/tests/check_report.py" "$T/report.html" "$@" || fail "check_report.py"

# The check itself must fail on a page that lacks a figure the inputs call for.
python3 "$SRC/tests/check_report.py" "$T/report.html" "$@" "$SRC/bench/results/h200-dtypes-2026-11-20.json" \
    > "$T/neg.out" 2>&1 && fail "check_report.py passed a page missing the figures of an input"

# Replacing: our own page yes; a file that is not ours, never.
"$SL" report "$T/cpu.json" -o "$T/report.html" > /dev/null 2>&1 || fail "report could not replace its own page"
echo "precious" > "$T/notours.html"
"$SL" report "$T/cpu.json" -o "$T/notours.html" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 2 ] || fail "report over a file that is not ours: exit $rc, want 2"
grep -qx precious "$T/notours.html" || fail "report replaced a file that is not ours"
# Inputs: not JSON, not ours, missing; no -o.
"$SL" report "$T/notours.html" -o "$T/x.html" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "report of a file that is not JSON: exit $rc, want 2"
echo '{"schema": "other/1"}' > "$T/other.json"
"$SL" report "$T/other.json" -o "$T/x.html" 2> "$T/err" > /dev/null; rc=$?
[ $rc = 2 ] && grep -q "not a streamlab results file" "$T/err" || fail "report of another schema: exit $rc"
"$SL" report "$T/cpu.json" > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "report without -o: exit $rc, want 2"
[ -e "$T/x.html" ] && fail "a failed report left $T/x.html"
# gnuplot missing: a clear message, exit 1, no page.
STREAMLAB_GNUPLOT= PATH=/nonexistent "$SL" report "$T/cpu.json" -o "$T/y.html" 2> "$T/err" > /dev/null; rc=$?
[ $rc = 1 ] && grep -q "gnuplot is not installed" "$T/err" || { cat "$T/err"; fail "no gnuplot: exit $rc, want 1 and the message"; }
[ -e "$T/y.html" ] && fail "a report without gnuplot left a page"

if [ $fails -ne 0 ]; then
    echo "test_report: $fails failure(s)"
    exit 1
fi
echo "test_report: ok"
