#!/bin/sh
# The bench/ entry points without a GPU: bench/device.sh --help lists every
# stage and refuses an unknown one (exit 2); bench/stage_report.py writes a
# stage's .md and .json with its commands and results inside; bench/peers.py
# lists its ops and refuses a call without one (exit 2); bench/ab_summary.py
# compares a candidate's rounds with the base's over the same copy kernel;
# bench/keep_mtimes.py keeps unchanged files' recorded times; every
# bench/*.py and every device script bench/*.sh answers --help and refuses
# an unknown option (exit 2) before any work.
# Usage: test_bench_scripts.sh SOURCE_DIR
set -u
SRC=$1
T=${TMPDIR:-/tmp}/test_bench_scripts.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
cd "$SRC" || exit 1

bash bench/device.sh --help > "$T/help" 2>&1 || fail "device.sh --help exits $?"
for s in tests memcheck streamset babelstream softmax transpose stencil matmul train alignment probe model python \
         norms xent; do
    grep -q "^  $s " "$T/help" || fail "device.sh --help does not list the stage $s"
done
bash bench/device.sh no_such_stage > "$T/bad" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "device.sh with an unknown stage exits $rc, not 2"
grep -q "unknown stage 'no_such_stage'" "$T/bad" || fail "device.sh does not name the unknown stage"

mkdir -p "$T/stage/sub"
printf 'streamlab run --op add --json x.json\n' > "$T/stage/commands.txt"
printf 'line 1\nthe last line\n' > "$T/stage/stage.log"
printf '{"rows": [1, 2]}\n' > "$T/stage/sub/x.json"
printf '{not json\n' > "$T/stage/bad.json"
python3 bench/stage_report.py --dir "$T/stage" --stage add --rc 3 --seconds 7 --command "STAGES=add bash bench/device.sh" \
    --gpu "NVIDIA H200" --commit abc --out "$T/h200-add-test" || fail "stage_report.py exits $?"
grep -q "STAGES=add bash bench/device.sh" "$T/h200-add-test.md" || fail "stage md lacks the command"
grep -q "streamlab run --op add --json x.json" "$T/h200-add-test.md" || fail "stage md lacks the stage's commands"
grep -q "the last line" "$T/h200-add-test.md" || fail "stage md lacks the end of the output"
python3 - "$T/h200-add-test.json" <<'PY' || fail "stage json is not as expected"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["exit"] == 3 and d["seconds"] == 7 and d["stage"] == "add", d
assert d["results"] == {"sub/x.json": {"rows": [1, 2]}}, d["results"]
assert d["results_left_out"] == ["bad.json (JSONDecodeError)"], d["results_left_out"]
assert d["commands"] == ["streamlab run --op add --json x.json"]
PY
python3 bench/stage_report.py --dir "$T/none" --stage x --rc 0 --command c --out "$T/x" 2> /dev/null
rc=$?
[ $rc -eq 2 ] || fail "stage_report.py without its folder exits $rc, not 2"

python3 bench/peers.py --list > "$T/list" 2>&1 || fail "peers.py --list exits $?"
for op in elementwise softmax transpose; do
    grep -q "^$op: " "$T/list" || fail "peers.py --list lacks $op"
done
python3 bench/peers.py > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "peers.py without an op exits $rc, not 2"

mkdir -p "$T/ab"
for s in a:2.0 b:1.0; do
    printf '{"results": [{"op": "softmax", "variant": "copy_k", "dtype": "bf16", "status": "ok", "shape": {"rows": 2, "cols": 8}, "time_ms": {"median": 1.0}, "gbs": 100.0}, {"op": "softmax", "variant": "regs", "dtype": "bf16", "status": "ok", "shape": {"rows": 2, "cols": 8}, "time_ms": {"median": %s}, "gbs": %s}]}\n' \
        "${s#*:}" "$(python3 -c "print(100 / ${s#*:})")" > "$T/ab/${s%%:*}-1.json"
done
# a rung only the candidate has (B's rows add "new"): its base columns are "-"
sed 's/}]}$/}, {"op": "softmax", "variant": "new", "dtype": "bf16", "status": "ok", "shape": {"rows": 2, "cols": 8}, "time_ms": {"median": 0.5}, "gbs": 200.0}]}/' \
    "$T/ab/b-1.json" > "$T/ab/b-1.tmp" && mv "$T/ab/b-1.tmp" "$T/ab/b-1.json"
python3 bench/ab_summary.py "$T/ab" > "$T/ab.md" || fail "ab_summary.py exits $?"
grep -q "| softmax | bf16 | 2x8 | new | 0/1 | - | 500.00 | - | - | 2.000 |" "$T/ab.md" ||
    fail "ab_summary.py leaves out or mislabels a rung only B has: $(cat "$T/ab.md")"
grep -q "| softmax | bf16 | 2x8 | regs | 1/1 | 2000.00 | 1000.00 | 0.500 | 0.500 | 1.000 |" "$T/ab.md" ||
    fail "ab_summary.py's row is not B/A = 0.5 with copy fractions 0.5 and 1.0: $(cat "$T/ab.md")"
# a third extent (the stencil's radius, matmul's K) keeps two shapes apart
mkdir -p "$T/abk"
for s in a b; do
    for k in 1 4; do
        printf '{"results": [{"op": "stencil", "variant": "copy_k", "dtype": "f32", "status": "ok", "shape": {"rows": 8, "cols": 8, "k": %s}, "time_ms": {"median": 1.0}, "gbs": 100.0}, {"op": "stencil", "variant": "regwin", "dtype": "f32", "status": "ok", "shape": {"rows": 8, "cols": 8, "k": %s}, "time_ms": {"median": %s}, "gbs": 50.0}]}\n' \
            $k $k $k > "$T/abk/$s-1-$k.json"
    done
done
python3 bench/ab_summary.py "$T/abk" > "$T/abk.md" || fail "ab_summary.py (k) exits $?"
grep -q "| stencil | f32 | 8x8x1 | regwin | 1/1 | 1000.00 | 1000.00 |" "$T/abk.md" &&
    grep -q "| stencil | f32 | 8x8x4 | regwin | 1/1 | 4000.00 | 4000.00 |" "$T/abk.md" ||
    fail "ab_summary.py merged two radii of one shape: $(cat "$T/abk.md")"
# padded rows (ld > cols) are another shape: their own row, over their own copy
mkdir -p "$T/abl"
for s in a b; do
    printf '{"results": [{"op": "rmsnorm_bwd", "variant": "copy", "technique": "copy kernel of x into dx", "dtype": "bf16", "status": "ok", "shape": {"rows": 8, "cols": 64, "ld": 64}, "time_ms": {"median": 1.0}, "gbs": 100.0}, {"op": "rmsnorm_bwd", "variant": "bulk", "dtype": "bf16", "status": "ok", "shape": {"rows": 8, "cols": 64, "ld": 64}, "time_ms": {"median": 2.0}, "gbs": 50.0}, {"op": "rmsnorm_bwd", "variant": "copy", "technique": "copy kernel of x into dx", "dtype": "bf16", "status": "ok", "shape": {"rows": 8, "cols": 64, "ld": 72}, "time_ms": {"median": 1.0}, "gbs": 80.0}, {"op": "rmsnorm_bwd", "variant": "bulk", "dtype": "bf16", "status": "ok", "shape": {"rows": 8, "cols": 64, "ld": 72}, "time_ms": {"median": 3.0}, "gbs": 40.0}]}\n' > "$T/abl/$s-1.json"
done
python3 bench/ab_summary.py "$T/abl" > "$T/abl.md" || fail "ab_summary.py (ld) exits $?"
grep -q "| rmsnorm_bwd | bf16 | 8x64 | bulk | 1/1 | 2000.00 | 2000.00 | 1.000 | 0.500 | 0.500 |" "$T/abl.md" &&
    grep -q "| rmsnorm_bwd | bf16 | 8x64:72 | bulk | 1/1 | 3000.00 | 3000.00 | 1.000 | 0.500 | 0.500 |" "$T/abl.md" ||
    fail "ab_summary.py merged padded and unpadded rows of one shape: $(cat "$T/abl.md")"
# an op with only the cudaMemcpy ceiling (transpose): fractions over it,
# starred; a variant only B has (A_LACKS) printed with "-" for A
mkdir -p "$T/abt"
for s in a b; do
    extra=""
    [ $s = b ] && extra=', {"op": "transpose", "variant": "tma", "dtype": "f32", "status": "ok", "shape": {"rows": 8, "cols": 8}, "time_ms": {"median": 2.0}, "gbs": 50.0}'
    printf '{"results": [{"op": "transpose", "variant": "copy", "technique": "cudaMemcpyAsync device to device: the copy ceiling", "dtype": "f32", "status": "ok", "shape": {"rows": 8, "cols": 8}, "time_ms": {"median": 1.0}, "gbs": 100.0}, {"op": "transpose", "variant": "vec", "dtype": "f32", "status": "ok", "shape": {"rows": 8, "cols": 8}, "time_ms": {"median": 1.25}, "gbs": 80.0}%s]}\n' "$extra" > "$T/abt/$s-1.json"
done
python3 bench/ab_summary.py "$T/abt" > "$T/abt.md" || fail "ab_summary.py (transpose) exits $?"
grep -q "| transpose | f32 | 8x8 | vec | 1/1 | 1250.00 | 1250.00 | 1.000 | 0.800\* | 0.800\* |" "$T/abt.md" &&
    grep -q "| transpose | f32 | 8x8 | tma | 0/1 | - | 2000.00 | - | - | 0.500\* |" "$T/abt.md" ||
    fail "ab_summary.py's memcpy fallback or B-only row: $(cat "$T/abt.md")"
mkdir -p "$T/none"
python3 bench/ab_summary.py "$T/none" > /dev/null 2>&1
rc=$?
[ $rc -eq 1 ] || fail "ab_summary.py with no rows exits $rc, not 1"
python3 bench/ab_summary.py "$T/no_such_folder" > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "ab_summary.py on a missing folder exits $rc, not 2"

# bench/keep_mtimes.py: an unchanged file gets back the time its content
# was first recorded, a changed one a new time, KEEP_MTIMES=0 touches
# nothing, and a call without its two arguments is a usage error.
K="$T/km"
mkdir -p "$K/src" "$K/build-x"
echo a > "$K/src/a.c"; echo b > "$K/src/b.c"; echo o > "$K/build-x/o"
python3 bench/keep_mtimes.py "$K" "$K/build-x" > /dev/null || fail "keep_mtimes.py exits $?"
t0=$(stat -c %Y "$K/src/a.c")
touch -d '2099-01-01' "$K/src/a.c" "$K/src/b.c" # a fresh copy of the tree
echo c > "$K/src/b.c"
touch -d '2099-01-01' "$K/src/b.c"
python3 bench/keep_mtimes.py "$K" "$K/build-x" > "$T/km.out" || fail "keep_mtimes.py (second) exits $?"
[ "$(stat -c %Y "$K/src/a.c")" = "$t0" ] || fail "keep_mtimes.py did not give the unchanged file its recorded time"
[ "$(stat -c %Y "$K/src/b.c")" -lt "$(date -d 2099-01-01 +%s)" ] && [ "$(stat -c %Y "$K/src/b.c")" -ge "$t0" ] ||
    fail "keep_mtimes.py did not give the changed file the present time"
grep -q "1 of 2 files unchanged" "$T/km.out" || fail "keep_mtimes.py's count: $(cat "$T/km.out")"
touch -d '2099-01-01' "$K/src/a.c"
KEEP_MTIMES=0 python3 bench/keep_mtimes.py "$K" "$K/build-x" || fail "KEEP_MTIMES=0 exits $?"
[ "$(stat -c %Y "$K/src/a.c")" = "$(date -d 2099-01-01 +%s)" ] || fail "KEEP_MTIMES=0 still touched a file"
python3 bench/keep_mtimes.py > /dev/null 2>&1
rc=$?
[ $rc -eq 2 ] || fail "keep_mtimes.py without arguments exits $rc, not 2"

# Every Python script of bench/ (bench/_cli.py): --help prints its
# description and exits 0 without needing torch, NumPy or a GPU; an unknown
# option is a usage error (exit 2) that prints the usage; neither ends in a
# traceback.
for f in bench/*.py; do
    case $f in bench/_*) continue ;; esac
    timeout 60 python3 "$f" --help > "$T/h.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "$f --help exits $rc: $(head -3 "$T/h.out")"
    [ "$(wc -l < "$T/h.out")" -ge 3 ] || fail "$f --help says less than three lines"
    grep -q Traceback "$T/h.out" && fail "$f --help ends in a traceback"
    timeout 60 python3 "$f" --no-such-flag > "$T/b.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "$f --no-such-flag exits $rc, not 2: $(head -3 "$T/b.out")"
    grep -qi "usage" "$T/b.out" || fail "$f --no-such-flag does not print its usage"
    grep -q Traceback "$T/b.out" && fail "$f --no-such-flag ends in a traceback"
done

# Every device script (bench/_help.sh): it sources the guard (checked
# first, so that a script without it is never run here); --help prints its
# header comment from the top and exits 0; an option or a positional
# argument it does not take is refused by the guard (exit 2; device.sh:
# an unknown stage); none of these starts any work: nothing is written to
# the tree or to $OUT. ncu_check.sh's one argument (its build folder) gets
# past the guard.
for f in bench/*.sh; do
    case $f in bench/_help.sh | bench/deps_env.sh | bench/fashion_mnist.sh) continue ;; esac # sourced, not run
    if [ "$f" = bench/device.sh ]; then
        refused="unknown stage"
    else
        grep -q '^\(SL_ARGS_MAX=[0-9]* \)\{0,1\}\. "$(dirname "${BASH_SOURCE\[0\]}")/_help.sh"$' "$f" ||
            { fail "$f does not source bench/_help.sh"; continue; }
        refused="unexpected argument"
    fi
    before=$(git status --porcelain --ignored 2> /dev/null | wc -l)
    OUT="$T/out" timeout 60 bash "$f" --help > "$T/h.out" 2>&1
    rc=$?
    [ $rc -eq 0 ] || fail "$f --help exits $rc: $(head -3 "$T/h.out")"
    [ "$(head -1 "$T/h.out")" = "$(sed -n 2p "$f" | sed 's/^# \{0,1\}//')" ] ||
        fail "$f --help does not start with its header comment: $(head -1 "$T/h.out")"
    [ "$(wc -l < "$T/h.out")" -ge 5 ] || fail "$f --help says less than five lines"
    for bad in --no-such-flag "no_such_arg another_arg"; do
        # shellcheck disable=SC2086 # the second is two arguments
        OUT="$T/out" timeout 60 bash "$f" $bad > "$T/b.out" 2>&1
        rc=$?
        [ $rc -eq 2 ] || fail "$f $bad exits $rc, not 2: $(head -3 "$T/b.out")"
        grep -q "$refused" "$T/b.out" || fail "$f $bad is not refused by its guard: $(head -3 "$T/b.out")"
    done
    [ -e "$T/out" ] && fail "$f wrote under \$OUT for --help or a bad argument"
    [ "$(git status --porcelain --ignored 2> /dev/null | wc -l)" = "$before" ] ||
        fail "$f changed the tree for --help or a bad argument"
done
NCU=/bin/false OUT="$T/out" bash bench/ncu_check.sh "$T/no_build" > "$T/n.out" 2>&1
grep -q "unexpected argument" "$T/n.out" && fail "ncu_check.sh's build folder argument is refused by the guard"
grep -q "no streamlab binary at $T/no_build" "$T/n.out" ||
    fail "ncu_check.sh BUILD_DIR does not reach its own checks: $(head -3 "$T/n.out")"
rm -rf "$T/out"
python3 bench/py_bench.py OUT.json --overhead-only > "$T/p.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "unknown option --overhead-only" "$T/p.out" ||
    fail "py_bench.py takes --overhead-only after its file (exit $rc): $(head -2 "$T/p.out")"

[ $fails -eq 0 ] && echo "test_bench_scripts: all checks passed"
[ $fails -eq 0 ]
