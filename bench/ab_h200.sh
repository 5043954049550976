#!/bin/bash
# bench/ab_h200.sh - a kernel change measured against the tree it changes,
# in one device call: the same `streamlab run` on two checkouts, built side
# by side (sm_90, warnings as errors) and run in turns A B A B ..., so that
# both sides see the same card, clocks and neighbours. Each round's
# `streamlab run` also times the op's copy ceiling (copy_k) in its own
# process, so the summary compares bandwidth over copy_k, round by round,
# and the kernel time (median of the trials), median over the rounds.
#   A     the base checkout (default: this one; A = B builds it once)
#   B     the candidate checkout (required), e.g. a worktree carried as .wt/x
#   RUN   the `streamlab run` arguments (required; --json/--md are added);
#   A_LACKS variants new in B, left out of side A's --variants lists (A
#         would refuse an unknown name), e.g. A_LACKS=tma,regwin2
#         RUN2, RUN3, RUN4 more sets, run after RUN in each turn (other ops, dtypes or
#         shapes)
#   ROUNDS how many turns each (3); RUN_S each run's time limit (120 s)
#   PRE   a command run in B first (e.g. its GPU tests: `BUILD=$AB_BUILD_B bash
#         bench/verify_h200.sh`, which adds the tests to B's build; with B=.
#         that is build-ab); the runs go on after a failed PRE, and the
#         script then ends with exit 1 and a line saying so
# Build directories stay at the repository root (build-ab for the root
# checkout, build-ab-<name> for .wt/<name>), which a warm machine keeps
# between calls; bench/keep_mtimes.py makes a second call rebuild only
# the files that changed (the first call on a machine builds everything,
# ~175 s for two checkouts).
# Example (a worktree .wt/smld against main):
#   run(kind="nvidia-h200", carry=[".wt/smld", ".deps"], timeout_s=560,
#       command="B=.wt/smld RUN='--op softmax --dtype bf16 --shape 128x32768 --variants regs' bash bench/ab_h200.sh")
# Outputs under $OUT: ab.log, {a,b}-<round>[-2..4].json, ab.md (the summary).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/sl-ab
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/ab.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
A=$(cd "${A:-.}" && pwd)
B=$(cd "${B:?B: the candidate checkout}" && pwd)
RUN=${RUN:?RUN: the streamlab run arguments}
ROUNDS=${ROUNDS:-3}
stage "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
. bench/deps_env.sh
for side in A B; do
    d=${!side}
    echo "$side: $d at $(git -C "$d" log -1 --format='%h %s' 2>/dev/null | cut -c1-100)"
done
# Each side's build directory: build-ab in the checkout where that is the
# repository root, else build-ab-<name> at the root (a carried worktree is
# replaced by every call, the root's ignored directories are kept on a warm
# machine); bench/keep_mtimes.py then rebuilds only what changed.
ROOT=$PWD
bdir() { if [ "$1" = "$ROOT" ]; then echo "$ROOT/build-ab"; else echo "$ROOT/build-ab-$(basename "$1")"; fi; }
export AB_BUILD_B; AB_BUILD_B=$(bdir "$B")
stage "build both (sm_90, -DSL_WERROR=ON): streamlab_cli"
pids=""
for side in A B; do
    d=${!side}; bd=$(bdir "$d")
    [ "$side" = B ] && [ "$A" = "$B" ] && continue # one build dir: built once
    ( python3 "$ROOT/bench/keep_mtimes.py" "$d" "$bd" && cd "$d" &&
        cmake -S . -B "$bd" -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS &&
        timeout 300 cmake --build "$bd" -j 8 --target streamlab_cli ) > "$W/build-$side.log" 2>&1 &
    pids="$pids $!:$side"
done
fail=0
for p in $pids; do
    wait "${p%%:*}"; rc=$?
    echo "build ${p#*:} exit $rc"
    [ $rc = 0 ] || { grep -E "error|Error" "$W/build-${p#*:}.log" | head -20; fail=1; }
    grep -h "^keep_mtimes:" "$W/build-${p#*:}.log"
done
[ $fail = 0 ] || exit 1
if [ -n "${PRE:-}" ]; then
    stage "PRE in B: $PRE"
    (cd "$B" && eval "$PRE")
    pre_rc=$?
    echo "PRE exit $pre_rc"
fi
# side_args SIDE ARGS: ARGS, with A_LACKS's names left out of the
# --variants list on side A
side_args() {
    local prev="" out="" w
    for w in $2; do
        if [ "$1" = A ] && [ "$prev" = --variants ] && [ -n "${A_LACKS:-}" ]; then
            w=$(echo "$w" | tr , '\n' | grep -vxF -f <(echo "$A_LACKS" | tr , '\n') | paste -sd, -)
        fi
        out="$out${out:+ }$w"
        prev=$w
    done
    echo "$out"
}
for r in $(seq 1 "$ROUNDS"); do
    for side in A B; do
        d=${!side}; s=$(echo $side | tr A-Z a-z)
        for i in 1 2 3 4; do # RUN, then RUN2..RUN4 where set; their files end -2..-4
            v=RUN; sfx=""
            [ $i = 1 ] || { v=RUN$i; sfx=-$i; }
            [ -n "${!v:-}" ] || continue
            args=$(side_args $side "${!v}")
            stage "round $r, $side: streamlab run $args"
            timeout ${RUN_S:-120} "$(bdir "$d")/streamlab" run $args --json "$OUT/$s-$r$sfx.json" --quiet > "$W/run$sfx-$s-$r.txt" 2>&1
            echo "exit $?"
        done
    done
done
stage "summary"
python3 bench/ab_summary.py "$OUT" | tee "$OUT/ab.md"
stage "done"
# the timings above stand either way; a failed PRE (B's tests) is the last word
if [ "${pre_rc:-0}" != 0 ]; then
    echo "ab: PRE failed (exit $pre_rc): B's checks did not pass; its log is above"
    exit 1
fi
