#!/bin/sh
# run.sh - the ctest fuzz_short: build the libFuzzer targets of tests/fuzz
# with clang in a build of their own, then run each for a bounded time over
# a copy of its seed corpus. Exits 1 if any target crashes or breaks a
# property (the input that did it is kept, and the command to replay it is
# printed), 77 (ctest: skipped) if clang cannot build a fuzzer here.
#
#   run.sh CLANG SOURCE_DIR WORK_DIR [SECONDS]
#
# SECONDS per target (default 60); the environment's SL_FUZZ_SECONDS, when
# set, wins. Everything is written under WORK_DIR (a directory in the build
# tree): the clang build, the corpora (seeds plus what the run adds), the
# logs and any crashing input. The source tree is only read.
set -u
if [ $# -lt 3 ]; then
    echo "usage: run.sh CLANG SOURCE_DIR WORK_DIR [SECONDS]" >&2
    exit 2
fi
clang=$1
src=$2
work=$3
secs=${SL_FUZZ_SECONDS:-${4:-60}}
targets="sizes shape profile hw"
build=$work/build

case $secs in
'' | *[!0-9]*) echo "run.sh: SL_FUZZ_SECONDS must be a whole number of seconds, not '$secs'" >&2; exit 2 ;;
esac
if ! command -v "$clang" >/dev/null 2>&1; then
    echo "run.sh: no clang at '$clang': fuzz targets not built (skipped)"
    exit 77
fi
mkdir -p "$work" || exit 1

# A separate CPU-only build of the whole tree with clang; only the fuzz
# targets get built, and no tests (nothing here re-registers fuzz_short).
echo "run.sh: configuring a clang build in $build"
if ! cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER="$clang" -DCMAKE_BUILD_TYPE=Release -DSL_FUZZ=ON \
    -DSL_ENABLE_CUDA=OFF -DBUILD_TESTING=OFF >"$work/configure.log" 2>&1; then
    cat "$work/configure.log"
    echo "run.sh: FAILED: configuring the clang build (log: $work/configure.log)"
    exit 1
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
echo "run.sh: building the fuzz targets"
if ! cmake --build "$build" --target fuzz -j "$jobs" >"$work/build.log" 2>&1; then
    cat "$work/build.log"
    echo "run.sh: FAILED: building the fuzz targets (log: $work/build.log)"
    exit 1
fi

fails=0
for t in $targets; do
    exe=$build/tests/fuzz/fuzz_$t
    corpus=$work/corpus/$t
    artifacts=$work/artifacts/$t
    case $t in
    shape) dict=$src/tests/fuzz/sizes.dict ;; # shapes are made of counts: one token list
    *) dict=$src/tests/fuzz/$t.dict ;;
    esac
    mkdir -p "$corpus" "$artifacts" || exit 1
    cp "$src/tests/fuzz/corpus/$t/"* "$corpus/" || exit 1
    log=$work/fuzz_$t.log
    echo "run.sh: fuzz_$t for ${secs} s over $(ls "$corpus" | wc -l) inputs"
    # -timeout: one input taking 10 s is a hang; -rss_limit_mb: a parser
    # that needs 2 GiB for a few KiB of text is a bug too.
    "$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -dict="$dict" -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        fails=$((fails + 1))
        tail -n 60 "$log"
        echo "run.sh: FAILED: fuzz_$t exited $rc (log: $log)"
        for a in "$artifacts"/*; do
            [ -f "$a" ] && echo "run.sh:   replay: $exe $a"
        done
    else
        grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed "s/^/run.sh:   fuzz_$t: /"
    fi
done
if [ $fails -ne 0 ]; then
    echo "run.sh: $fails of 4 fuzz targets failed"
    exit 1
fi
echo "run.sh: 4 fuzz targets ran ${secs} s each with no crash and no broken property"
