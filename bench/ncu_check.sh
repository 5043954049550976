#!/bin/bash
# bench/ncu_check.sh - cross-check the hardware counters streamlab reads
# itself (`streamlab run --counters`, CUPTI's range profiler) against Nsight
# Compute, variant by variant, at one size.
#
#   bash bench/ncu_check.sh [BUILD_DIR]          (default: build-h200)
#
# Through the device tool, from the repository root (device.sh's `counters`
# stage calls `bash bench/ncu_check.sh build-h200` after building):
#   run(command="STAGES=counters bash bench/device.sh", carry=[".deps"])
#
# Environment:
#   VARIANTS  variants to check (default: the add ladder below)
#   N         elements (default 100M; any --sizes spelling streamlab takes)
#   OUT       output folder (default ./bench-out)
#   NCU       the ncu binary (default: ncu on PATH, else /usr/local/cuda/bin/ncu)
#   TOL       flag threshold in percent (default 2)
#   STRICT=1  exit 1 when a value is flagged or missing
#   KERNEL_REGEX_<variant>  overrides the kernel regex of that variant
#
# For each variant V:
#  (a) streamlab run --variants V --sizes N --trials 1 --warmup 0 --counters
#      --json OUT/ctr-V.json: the counters of V's row, an object keyed by
#      ncu metric name (row["counters"]).
#  (b) ncu --clock-control none --metrics <the same names> --csv --page raw
#      --print-units base, on the same command without --counters:
#      OUT/ncu-V.csv. ncu's other defaults stay: kernel replay and
#      --cache-control all (caches flushed before every pass), which is what
#      streamlab's session imitates by clearing L2 before each pass.
#      Which of the profiled launches is V's: the kernel name regex from the
#      row's "kernel" field when it is a name (a string, or an object with
#      "name"), else KERNEL_REGEX_<V>, else the table below (old and new
#      kernel names both listed). ncu profiles only launches matching it
#      (-k regex:... --launch-count 1: V runs two or three times per run,
#      verification, the timed trial, verification, and with ncu's cache
#      flush they count the same; should several rows come back, the last
#      is compared). A variant with no regex has every kernel of the run
#      profiled (up to 50), and the launch with the largest
#      dram__bytes_read.sum is taken: the timed kernel streams all of its
#      inputs, while the fill kernels only write. A variant whose launch is
#      several kernels is compared kernel against range, which this check
#      does not sum: such rows will differ.
# Output: a table per variant (metric, streamlab, ncu, streamlab/ncu),
# flagging |ratio - 1| > TOL% for DRAM bytes and instructions, printed and
# written to OUT/ncu-check.md; the per-variant files ctr-V.{json,log} and
# ncu-V.{csv,log} go to NCU_WORK (default /tmp/ncu-check), so that OUT
# holds only what is worth bringing back. gpu__time_duration.sum is shown, not flagged:
# streamlab's covers the whole range (fn and the waits around it), ncu's
# one kernel. Exit status: 2 when ncu, python3 or the binary is missing,
# 1 with STRICT=1 and a flagged or missing value, else 0.
SL_ARGS_MAX=1 . "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail

BUILD=${1:-build-h200}
OUT=${OUT:-$PWD/bench-out}
N=${N:-100M}
TOL=${TOL:-2}
STRICT=${STRICT:-0}
VARIANTS=${VARIANTS:-"naive grid_stride vec4 grid_vec4 ilp2 ilp4 tile4 bulk sl_add cub"}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC_TABLE="$HERE/../src/core/counters.c"

die() { echo "ncu_check: $*" >&2; exit 2; }

NCU=${NCU:-}
if [ -z "$NCU" ]; then
    if command -v ncu >/dev/null 2>&1; then NCU=$(command -v ncu)
    elif [ -x /usr/local/cuda/bin/ncu ]; then NCU=/usr/local/cuda/bin/ncu
    else
        for cand in /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute-*/ncu; do
            [ -x "$cand" ] && NCU=$cand
        done
    fi
fi
[ -n "$NCU" ] && [ -x "$NCU" ] || die "Nsight Compute (ncu) not found: install it, put it on PATH, or set NCU=/path/to/ncu"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read ncu's CSV and streamlab's JSON"
[ -x "$BUILD/streamlab" ] || die "no streamlab binary at $BUILD/streamlab: build first (bash bench/device.sh runs the build stage)"
[ -f "$SRC_TABLE" ] || die "cannot find the metric table $SRC_TABLE"
mkdir -p "$OUT" || die "cannot create $OUT"

# The metric names, from the one table in src/core/counters.c.
METRICS=$(python3 - "$SRC_TABLE" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
names = re.findall(r'\{SL_CTR_\w+,\s*"([a-z0-9_]+__[a-z0-9_.]+)"', src)
print(",".join(names))
PY
)
[ -n "$METRICS" ] || die "no metric names found in $SRC_TABLE"

# Kernel name regexes (--kernel-name-base demangled; Python and ncu regex
# alike): the names before and after the elementwise rewrite.
default_regex() {
    case "$1" in
        naive) echo 'add_naive|ew_naive' ;;
        grid_stride) echo 'add_grid_stride|ew_grid_stride' ;;
        vec4) echo 'add_vec4|ew_vec[^_a-z0-9]|ew_vec$' ;;
        grid_vec4|ilp2|ilp4) echo 'add_grid_vec4|grid_vec4_ilp|ew_grid_vec' ;;
        tile4) echo 'add_tile|ew_tile' ;;
        bulk|sl_add) echo 'add_bulk|ew_bulk' ;;
        cub) echo 'transform' ;;
        *) echo '' ;;
    esac
}

echo "ncu_check: $NCU, metrics $METRICS, n = $N, variants: $VARIANTS"
WORK=${NCU_WORK:-/tmp/ncu-check}
mkdir -p "$WORK" || die "cannot create $WORK"
JOBS="$WORK/ncu-jobs.tsv"
: > "$JOBS"
for V in $VARIANTS; do
    json="$WORK/ctr-$V.json"
    csv="$WORK/ncu-$V.csv"
    rm -f "$json" "$csv"
    echo "== $V: streamlab --counters"
    "$BUILD/streamlab" run --variants "$V" --sizes "$N" --trials 1 --warmup 0 --counters --json "$json" --quiet \
        > "$WORK/ctr-$V.log" 2>&1
    echo "   exit $? (log: $WORK/ctr-$V.log)"

    re=""
    if [ -f "$json" ]; then
        re=$(python3 - "$json" "$V" <<'PY'
import json, re, sys
try:
    rows = [r for r in json.load(open(sys.argv[1])).get("results", []) if r.get("variant") == sys.argv[2]]
except Exception:
    rows = []
k = rows[-1].get("kernel") if rows else None
name = k if isinstance(k, str) else (k.get("name") if isinstance(k, dict) else None)
print(re.escape(name) if isinstance(name, str) and name else "")
PY
)
    fi
    override_var="KERNEL_REGEX_$V"
    [ -z "$re" ] && re=${!override_var:-}
    [ -z "$re" ] && re=$(default_regex "$V")
    # With a regex one matching launch is enough (they count the same under
    # ncu's cache flush); without one, every kernel up to a cap.
    kfilter=(--launch-count 50)
    [ -n "$re" ] && kfilter=(-k "regex:$re" --launch-count 1)
    echo "== $V: ncu (kernels: ${re:-all, largest DRAM read})"
    "$NCU" --clock-control none --metrics "$METRICS" --csv --page raw --print-units base \
        --kernel-name-base demangled "${kfilter[@]}" --log-file "$csv" \
        "$BUILD/streamlab" run --variants "$V" --sizes "$N" --trials 1 --warmup 0 --quiet \
        > "$WORK/ncu-$V.log" 2>&1
    echo "   exit $? (log: $WORK/ncu-$V.log)"
    printf '%s\t%s\t%s\t%s\n' "$V" "$json" "$csv" "$re" >> "$JOBS"
done

python3 - "$OUT/ncu-check.md" "$METRICS" "$TOL" "$STRICT" "$N" "$JOBS" <<'PY'
import csv, json, math, re, sys

out_md, metrics, tol, strict, n_arg = sys.argv[1], sys.argv[2].split(","), float(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
jobs = [l.rstrip("\n").split("\t", 3) for l in open(sys.argv[6]) if l.strip()]
FLAGGED = {"dram__bytes_read.sum", "dram__bytes_write.sum", "smsp__inst_executed.sum"}
SCALE = {"byte": 1, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
         "nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}

def number(s):
    s = (s or "").strip().replace(",", "")
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) else None

def ncu_rows(path):
    """Data rows of ncu's raw CSV as dicts of metric -> value (base units),
    plus the kernel name; tolerates ncu's own log lines around the table."""
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return []
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"') and "Name" in l), None)
    if start is None:
        return []
    table = list(csv.reader([l for l in lines[start:] if l.startswith('"')]))
    head, body = table[0], table[1:]
    units = {}
    if body and not body[0][0].strip():          # the units row
        units = dict(zip(head, body[0]))
        body = body[1:]
    name_col = next((c for c in ("Kernel Name", "Function Name", "Demangled Name") if c in head), None)
    rows = []
    for r in body:
        d = dict(zip(head, r))
        row = {"_name": d.get(name_col, "") if name_col else ""}
        for m in metrics:
            v = number(d.get(m))
            if v is not None:
                v *= SCALE.get(units.get(m, "").strip().lower(), 1)
            row[m] = v
        rows.append(row)
    return rows

def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 1e5:
        return "%.4e" % v
    return "%.4g" % v

md = ["# streamlab counters vs Nsight Compute, n = %s" % n_arg, "",
      "streamlab: `run --counters` (CUPTI range profiler, user range + user replay, L2 cleared before each pass). "
      "ncu: `--clock-control none --cache-control all` (default), the last launch of the variant's kernel. "
      "Flag: |streamlab/ncu - 1| > %g%% on DRAM bytes and instructions." % tol, ""]
bad = 0
for v, jpath, cpath, regex in jobs:
    md.append("## %s" % v)
    md.append("")
    sl = {}
    note = []
    try:
        rows = [r for r in json.load(open(jpath)).get("results", []) if r.get("variant") == v]
        if rows:
            c = rows[-1].get("counters")
            if isinstance(c, dict):
                sl = {k: (float(x) if isinstance(x, (int, float)) else None) for k, x in c.items()}
            else:
                note.append("streamlab's row has no counters (%s)" % rows[-1].get("counters_error", rows[-1].get("message", "see the log")))
        else:
            note.append("no row for %s in %s" % (v, jpath))
    except (OSError, ValueError) as e:
        note.append("streamlab JSON unreadable: %s" % e)
    # ncu writes its table to --log-file; older ones may print it with the
    # program's output instead.
    all_rows = ncu_rows(cpath) or ncu_rows(cpath[:-4] + ".log")
    pick = None
    if regex:
        hits = [r for r in all_rows if re.search(regex, r["_name"])]
        if hits:
            pick = hits[-1]
            note.append("ncu: %d launch(es) matched /%s/; the last is compared" % (len(hits), regex))
        else:
            note.append("ncu: no launch matched /%s/" % regex)
    if pick is None and all_rows:
        pick = max(all_rows, key=lambda r: r.get("dram__bytes_read.sum") or -1)
        note.append("ncu: %d kernel(s) profiled; the one with the largest dram__bytes_read.sum is compared" % len(all_rows))
    if pick is None:
        note.append("ncu gave no kernel rows (see %s and its .log)" % cpath)
    else:
        note.append("ncu kernel: `%s`" % pick["_name"][:120])
    md.extend("- " + x for x in note)
    md.append("")
    md.append("| metric | streamlab | ncu | streamlab/ncu | |")
    md.append("|---|--:|--:|--:|---|")
    for m in metrics:
        a = sl.get(m)
        b = pick.get(m) if pick else None
        ratio = a / b if a is not None and b not in (None, 0) else None
        flag = ""
        if m in FLAGGED:
            if ratio is None:
                flag = "missing"
                bad += 1
            elif abs(ratio - 1) * 100 > tol:
                flag = "**off by %+.1f%%**" % ((ratio - 1) * 100)
                bad += 1
        md.append("| %s | %s | %s | %s | %s |" % (m, fmt(a), fmt(b), "-" if ratio is None else "%.4f" % ratio, flag))
    md.append("")
md.append("%d flagged or missing value(s)." % bad)
text = "\n".join(md) + "\n"
open(out_md, "w").write(text)
print(text)
print("ncu_check: wrote %s" % out_md)
sys.exit(1 if strict and bad else 0)
PY
