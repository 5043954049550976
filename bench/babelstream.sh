#!/bin/bash
# bench/babelstream.sh - build and run BabelStream's CUDA model as a peer of
# streamlab on the same GPU, in the same device call, and turn its output
# into $OUT/babelstream.json.
#
# The peer is BabelStream 6.0 (UoB-HPC/BabelStream main, commit 57637d5,
# 2026-04-10; CMakeLists.txt says VERSION 6.0, main.cpp still prints "5.0"),
# built with its own CMake as
#   cmake -DMODEL=cuda -DCUDA_ARCH=sm_90 -DCMAKE_BUILD_TYPE=Release
# (BabelStream's Release is -O3; nvcc -arch=sm_90). Issue 25: the README's
# 1.226 x BabelStream was against 5.0 (tag v5.0, f6ae48de), built the same
# way. What each version's numbers include:
#  - 6.0 (src/cuda/CUDAStream.cu): copy/mul/add/triad/nstream are one
#    for_each kernel of 256-thread blocks (TBSIZE), grid-stride, with
#    n / UNROLL_FACTOR / 256 blocks (UNROLL_FACTOR = 4 by default: four
#    elements a thread), on a non-blocking stream, each call followed by
#    cudaStreamSynchronize; dot: 4 x SMs blocks of 1024 threads, partials
#    written to pinned host memory, summed on the host.
#  - 5.0: one element per thread, n / 1024 blocks of 1024 threads,
#    cudaDeviceSynchronize after each launch; dot as 6.0 but a blocking
#    cudaMemcpy of the partials.
#  - Both: src/main.cpp times each call with std::chrono on the host
#    (launch + kernel + synchronisation), drops the first of --numtimes,
#    counts Copy 2, Mul 2, Add 3, Triad 3, Dot 2, Nstream 4 x sizeof(T) x n
#    bytes, and prints MB/s = 1e-6 bytes / min time (6.0's CSV header says
#    max_MB_per_sec, 5.0's max_mbytes_per_sec).
#
# Usage (device tool, repository root; BabelStream is never committed: its
# source is exported into a git-ignored folder and carried):
#   run(command="BS_SRC=.peers-bs/main bash bench/babelstream.sh", carry=[".peers-bs", ...])
# Env: BS_SRC (default .peers-bs/main, else ../../.peers-bs/main), OUT (default ./bench-out),
#      BS_BUILD (/tmp/babelstream-build), BS_ARCH (sm_90), BS_NUMTIMES (100),
#      BS_SIZES ("33554432 268435456"), BS_PRECISIONS ("f64 f32"),
#      BS_NSTREAM (1: also --nstream-only), BS_CSV (1: use --csv),
#      BS_CMAKE_EXTRA (more cmake options, e.g. -DUNROLL_FACTOR=1),
#      BS_STEP (all | build | run), BS_PARSE_ONLY=FILE (only convert a raw file).
# Writes: $OUT/babelstream-build.log, babelstream-raw.txt, babelstream.json.
# Exit: 0 ok; 1 build or run failure; 2 source missing; 77 built but no GPU.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
BS_SRC=${BS_SRC:-.peers-bs/main}
# a helper's staging copy (.wt/NAME) finds the checkout's carried .peers-bs
[ -d "$BS_SRC" ] || [ ! -d "../../$BS_SRC" ] || BS_SRC=../../$BS_SRC
BS_BUILD=${BS_BUILD:-/tmp/babelstream-build}
BS_ARCH=${BS_ARCH:-sm_90}
BS_NUMTIMES=${BS_NUMTIMES:-100}
BS_SIZES=${BS_SIZES:-"33554432 268435456"}
BS_NSTREAM=${BS_NSTREAM:-1}
BS_CSV=${BS_CSV:-1}
BS_PRECISIONS=${BS_PRECISIONS:-"f64 f32"}
BS_CMAKE_EXTRA=${BS_CMAKE_EXTRA:-}
BS_STEP=${BS_STEP:-all}
mkdir -p "$OUT"
LOG=$OUT/babelstream-build.log
RAW=$OUT/babelstream-raw.txt
JSON=$OUT/babelstream.json

# --- converter: raw output (CSV or text tables) -> JSON; stdlib only --------
convert() {  # convert RAWFILE JSONFILE VERSION
python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
raw, out, version = sys.argv[1], sys.argv[2], sys.argv[3]
# bytes BabelStream counts per element, times sizeof(T) (src/main.cpp:420-433)
FACTOR = {"Copy": 2, "Mul": 2, "Add": 3, "Triad": 3, "Dot": 2, "Nstream": 4}
doc = {"version": version, "source": "UoB-HPC/BabelStream, CUDA model",
       "bytes_rule": {
           "per_function_elements_times_sizeof": FACTOR,
           "formula": "bytes = factor * sizeof(T) * n (reads + writes); "
                      "MBytes/sec = 1e-6 * bytes / min_runtime; "
                      "min/max/avg skip the first of num_times iterations",
           "cite": "BabelStream src/main.cpp (v5.0 :420-433 sizes, :451 csv "
                   "MB/s, :437-441 first run dropped; 6.0 the same rules)"},
       "timing": "host std::chrono around each Stream call (main.cpp run_all "
                 ":112-145, run_nstream :184-192); each call = launch + "
                 "cudaDeviceSynchronize (CUDAStream.cu :172-246); dot adds a "
                 "blocking cudaMemcpy of 4*SMs partials + host sum "
                 "(CUDAStream.cu :273-298)",
       "gbs_unit": "1e9 bytes/s (BabelStream MBytes/sec / 1000)",
       "device": None, "commands": [], "rows": [], "phases": [],
       "messages": [],
       "phases_note": "BabelStream 5.0 swaps Init and Read: the value printed "
                      "as Init is the read_arrays time and vice versa "
                      "(src/main.cpp:342-343)"}
runs, cur = [], None
for line in open(raw, errors="replace"):
    line = line.rstrip("\n")
    m = re.match(r"^### BEGIN (.*)$", line)
    if m:
        cur = dict(kv.split("=", 1) for kv in m.group(1).split("\t") if "=" in kv)
        cur["lines"] = []
        continue
    m = re.match(r"^### END rc=(-?\d+)", line)
    if m and cur is not None:
        cur["rc"] = int(m.group(1)); runs.append(cur); cur = None
        continue
    if line.startswith("### DEVICE "):
        doc["device"] = line[len("### DEVICE "):].strip()
        continue
    if cur is not None:
        cur["lines"].append(line)
if cur is not None:            # truncated raw file: keep what is there
    cur["rc"] = None; runs.append(cur)

num = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
text_row = re.compile(r"^(Copy|Mul|Add|Triad|Dot|Nstream)\s+(%s)\s+(%s)\s+(%s)\s+(%s)\s*$"
                      % (num, num, num, num))
text_phase = re.compile(r"^(Init|Read):\s+(%s) s \(=(%s) (Mi)?Bytes/sec\)" % (num, num))
for r in runs:
    prec = r.get("precision", "f64")
    size_of = 4 if prec == "f32" else 8
    n = int(r.get("n", 0))
    doc["commands"].append({"command": r.get("cmd", ""), "rc": r["rc"],
                            "precision": prec, "n": n, "mode": r.get("mode", "all")})
    header = None
    for line in r["lines"]:
        if line.startswith("stderr: "):
            doc["messages"].append({"precision": prec, "n": n, "mode": r.get("mode"),
                                    "text": line[8:]})
            continue
        if line.startswith("Using CUDA device ") and doc["device"] is None:
            doc["device"] = line[len("Using CUDA device "):].strip()
        f = [x.strip() for x in line.split(",")]
        if f and f[0] in ("phase", "function") and len(f) >= 5:
            header = f
            if any("mibytes" in h for h in f):
                doc["messages"].append({"text": "--mibibytes output: MiB/s, not converted"})
            continue
        if header and len(f) == len(header):
            d = dict(zip(header, f))
            try:
                # 5.0: max_mbytes_per_sec; 6.0: max_MB_per_sec (both 1e6 bytes)
                bw = next((h for h in header if h.startswith("max_") and h.endswith("_per_sec")), None)
                scale = {"max_mbytes_per_sec": 1e-3, "max_MB_per_sec": 1e-3, "max_GB_per_sec": 1.0,
                         "max_TB_per_sec": 1e3}.get(bw)
                if scale is None:
                    raise KeyError(bw)
                if header[0] == "phase":
                    doc["phases"].append({"precision": prec, "n": int(d["n_elements"]),
                        "phase_as_printed": d["phase"],
                        "gbs": float(d[bw]) * scale,
                        "seconds": float(d["runtime"])})
                elif d["function"] in FACTOR and "min_runtime" in d:
                    nn, so = int(d["n_elements"]), int(d["sizeof"])
                    b = FACTOR[d["function"]] * so * nn
                    mn = float(d["min_runtime"])
                    doc["rows"].append({"precision": "f32" if so == 4 else "f64",
                        "n": nn, "function": d["function"],
                        "gbs": float(d[bw]) * scale,
                        "min_s": mn, "max_s": float(d["max_runtime"]),
                        "avg_s": float(d["avg_runtime"]), "bytes": b,
                        "num_times": int(d["num_times"]), "mode": r.get("mode", "all"),
                        "gbs_from_min_s": b / mn / 1e9 if mn > 0 else None})
                continue
            except (KeyError, ValueError):
                pass
        m = text_row.match(line)           # text table (no --csv)
        if m:
            fn = m.group(1); b = FACTOR[fn] * size_of * n; mn = float(m.group(3))
            doc["rows"].append({"precision": prec, "n": n, "function": fn,
                "gbs": float(m.group(2)) / 1e3, "min_s": mn,
                "max_s": float(m.group(4)), "avg_s": float(m.group(5)), "bytes": b,
                "num_times": None, "mode": r.get("mode", "all"),
                "gbs_from_min_s": b / mn / 1e9 if mn > 0 else None})
            continue
        m = text_phase.match(line)
        if m:
            doc["phases"].append({"precision": prec, "n": n, "phase_as_printed": m.group(1),
                "gbs": float(m.group(3)) / 1e3, "seconds": float(m.group(2))})
json.dump(doc, open(out, "w"), indent=1)
print("%d rows from %d runs -> %s" % (len(doc["rows"]), len(runs), out))
print("%-4s %10s %-8s %10s %12s %12s" % ("prec", "n", "function", "GB/s", "min_us", "avg_us"))
for x in doc["rows"]:
    print("%-4s %10d %-8s %10.1f %12.2f %12.2f" % (x["precision"], x["n"], x["function"],
          x["gbs"], x["min_s"] * 1e6, x["avg_s"] * 1e6))
for m in doc["messages"]:
    print("note [%s n=%s %s]: %s" % (m.get("precision"), m.get("n"), m.get("mode"), m["text"]))
sys.exit(0 if doc["rows"] else 3)
PY
}

# version of the carried tree: the export writes .peer-version (tag + commit)
VERSION="unknown"
if [ -f "$BS_SRC/.peer-version" ]; then VERSION=$(head -1 "$BS_SRC/.peer-version")
elif [ -f "$BS_SRC/src/main.cpp" ]; then
    VERSION=$(sed -n 's/^#define VERSION_STRING "\(.*\)"/\1/p' "$BS_SRC/src/main.cpp")
fi

if [ -n "${BS_PARSE_ONLY:-}" ]; then
    convert "$BS_PARSE_ONLY" "$JSON" "$VERSION"; exit $?
fi

# --- build -------------------------------------------------------------------
if [ ! -f "$BS_SRC/CMakeLists.txt" ] || [ ! -f "$BS_SRC/src/cuda/CUDAStream.cu" ]; then
    echo "error: BabelStream source not found at '$BS_SRC' (need CMakeLists.txt and" \
         "src/cuda/CUDAStream.cu): carry its folder with the device run" \
         "(run(..., carry=[\".peers-bs\"]))" >&2
    exit 2
fi
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "error: nvcc not found" >&2; exit 1; }
GEN=(); command -v ninja >/dev/null && GEN=(-G Ninja)
# 6.0 links NVML (-lnvidia-ml): the toolkit's stub library satisfies the
# link where the image has only the driver's libnvidia-ml.so.1; the binary
# loads the driver's at run time.
STUBS=$(dirname "$NVCC")/../lib64/stubs
CMAKE_ARGS=(-S "$BS_SRC" -B "$BS_BUILD" "${GEN[@]}" -DMODEL=cuda -DCUDA_ARCH="$BS_ARCH" -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_CUDA_COMPILER="$NVCC" "-DCMAKE_EXE_LINKER_FLAGS=-L$STUBS" $BS_CMAKE_EXTRA)
BIN=""
find_bin() {  # load_model() names the target <model>-stream (cmake/register_models.cmake)
    BIN=""
    for b in "$BS_BUILD/cuda-stream" "$BS_BUILD/babelstream"; do [ -x "$b" ] && { BIN=$b; break; }; done
}
if [ "$BS_STEP" != run ]; then
    {
        echo "== BabelStream $VERSION from $BS_SRC"
        "$NVCC" --version | tail -2; cmake --version | head -1
        echo "+ cmake ${CMAKE_ARGS[*]}"
    } > "$LOG" 2>&1
    rm -rf "$BS_BUILD"
    if ! cmake "${CMAKE_ARGS[@]}" >> "$LOG" 2>&1; then
        echo "error: BabelStream cmake configure failed (see $LOG)" >&2; tail -30 "$LOG" >&2; exit 1
    fi
    echo "+ cmake --build $BS_BUILD -v" >> "$LOG"
    if ! cmake --build "$BS_BUILD" -j "$(nproc)" -v >> "$LOG" 2>&1; then
        echo "error: BabelStream build failed (see $LOG)" >&2; grep -iE "error" "$LOG" | head -30 >&2; exit 1
    fi
    find_bin
    [ -n "$BIN" ] || { echo "error: no cuda-stream binary in $BS_BUILD after build" >&2; exit 1; }
    echo "built $BIN ($VERSION: MODEL=cuda CUDA_ARCH=$BS_ARCH CMAKE_BUILD_TYPE=Release $BS_CMAKE_EXTRA)"
    command -v cuobjdump >/dev/null && cuobjdump --list-elf "$BIN" >> "$LOG" 2>&1
    [ "$BS_STEP" = build ] && exit 0
fi
find_bin
[ -n "$BIN" ] || { echo "error: no cuda-stream binary in $BS_BUILD (BS_STEP=run needs a build)" >&2; exit 1; }

# --- GPU present? --------------------------------------------------------------
NOGPU='no CUDA-capable device|insufficient|No devices found|CUDA driver|cudaError|initialization error'
if ! nvidia-smi -L > "$OUT/.bs-smi" 2>&1 || ! grep -q '^GPU ' "$OUT/.bs-smi"; then
    echo "no GPU: nvidia-smi fails or lists none; BabelStream built fine, nothing run" >&2
    rm -f "$OUT/.bs-smi"; exit 77
fi
rm -f "$OUT/.bs-smi"
LIST=$("$BIN" --list 2>&1); lrc=$?
if [ $lrc -ne 0 ] || grep -qE "$NOGPU" <<<"$LIST"; then
    echo "no GPU: '$BIN --list' says: $(tr '\n' ' ' <<<"$LIST")" >&2; exit 77
fi

# --- runs ----------------------------------------------------------------------
DEVICE=$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader -i 0 2>/dev/null)
{ echo "### DEVICE $DEVICE"; echo "### VERSION $VERSION"; } > "$RAW"
MODES=(all); [ "$BS_NSTREAM" = 1 ] && MODES+=(nstream)
fail=0
for prec in $BS_PRECISIONS; do
  for n in $BS_SIZES; do
    for mode in "${MODES[@]}"; do
      args=(--arraysize "$n" --numtimes "$BS_NUMTIMES")
      [ "$BS_CSV" = 1 ] && args+=(--csv)
      [ "$prec" = f32 ] && args+=(--float)
      [ "$mode" = nstream ] && args+=(--nstream-only)
      cmd="$BIN ${args[*]}"
      echo "+ $cmd"
      printf '### BEGIN precision=%s\tn=%s\tmode=%s\tcmd=%s\n' "$prec" "$n" "$mode" "$cmd" >> "$RAW"
      "$BIN" "${args[@]}" > "$OUT/.bs-stdout" 2> "$OUT/.bs-stderr"; rc=$?
      { cat "$OUT/.bs-stdout"; sed 's/^/stderr: /' "$OUT/.bs-stderr"; echo "### END rc=$rc"; } >> "$RAW"
      if [ $rc -ne 0 ]; then
        cat "$OUT/.bs-stderr" >&2
        if grep -qE "$NOGPU" "$OUT/.bs-stdout" "$OUT/.bs-stderr"; then
          echo "no GPU usable by BabelStream (rc=$rc)" >&2; rm -f "$OUT"/.bs-std*; exit 77
        fi
        fail=1
      fi
    done
  done
done
rm -f "$OUT"/.bs-std*

# --- JSON + table --------------------------------------------------------------
convert "$RAW" "$JSON" "$VERSION ($BS_SRC; cmake -DMODEL=cuda -DCUDA_ARCH=$BS_ARCH -DCMAKE_BUILD_TYPE=Release $BS_CMAKE_EXTRA)" || fail=1
exit $fail
