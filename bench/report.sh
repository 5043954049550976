#!/bin/bash
# bench/report.sh - issue 14 on the H200, in one short call (well under
# 120 s): build for sm_90, issue 14's tests, a short run that carries the
# full reproducibility record (NVML per row, relative sizes, --stdrel), a
# --devices cpu,0 run (CPU vs GPU), and `streamlab report` over the results
# with the committed H200 profile.
#
# Run through the device tool from the repository root:
#   run(kind="nvidia-h200", carry=[".deps"], command="bash bench/report.sh", timeout_s=300)
# (.deps: the libcjson .debs, as for bench/device.sh). Results come back in
# $OUT: record.{json,md}, cpu-gpu.{json,md}, report.log and, where the
# device has gnuplot, report.html. Where it has none (the device image
# cannot install packages), make the page here from the returned files:
#   streamlab report record.json cpu-gpu.json profiles/NVIDIA-H200.profile.json -o report.html
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
t0=$(date +%s)
exec > >(tee "$OUT/report.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }

# cJSON: the system's, else the carried Debian packages (as bench/device.sh).
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it

BUILD=${BUILD:-build-report}   # BUILD=build-h200 SKIP_BUILD=1: reuse bench/device.sh's build
SL=$BUILD/streamlab
if [ -z "${SKIP_BUILD:-}" ]; then
    stage "build (sm_90)"
    nvidia-smi --query-gpu=name,driver_version,persistence_mode,compute_mode,clocks.sm,clocks.mem,temperature.gpu,power.draw \
        --format=csv 2>&1 | tail -2
    cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > "$OUT/build.log" 2>&1 \
        || { echo "cmake failed"; tail -30 "$OUT/build.log"; exit 1; }
    # only what this script runs: the CLI and issue 14's unit tests (the library's kernels come with the CLI)
    cmake --build $BUILD -j 16 --target streamlab_cli json_check test_stoprule test_compare test_relsize >> "$OUT/build.log" 2>&1 \
        || { echo "build failed"; grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
fi

stage "tests: stop rule, CPU vs GPU, relative sizes, report, README, the multi-device CLI"
ctest --test-dir $BUILD --output-on-failure -R "test_stoprule|test_compare|test_relsize|test_report|check_readme|test_gpu_cli" \
    2>&1 | grep -E "Test +#|tests passed|SKIP|FAILED|Skipped"

stage "a run with the record: add at 2^20, 0.5xL2, 4xL2, 2^28; --stdrel 0.5 (at most 0.5 s a row)"
$SL run --op add --variants naive,vec4,sl_add --sizes 2^20,0.5xL2,4xL2,2^28 --trials 10 --warmup 3 --stdrel 0.5 \
    --max-time 0.5 --json "$OUT/record.json" --md "$OUT/record.md" 2>&1 | tail -28

stage "CPU vs GPU: --devices cpu,0 --include-transfer, add f32, 1K .. 2^28"
$SL run --devices cpu,0 --op add --variants naive,vec4,sl_add,serial,omp --sizes 1K,64Ki,1M,16M,2^28 --trials 5 --include-transfer \
    --warmup 2 --json "$OUT/cpu-gpu.json" --md "$OUT/cpu-gpu.md" --quiet 2>&1 | tail -3
sed -n '/^## CPU vs GPU/,$p' "$OUT/cpu-gpu.md"

stage "streamlab report"
if command -v gnuplot >/dev/null 2>&1; then
    $SL report "$OUT/record.json" "$OUT/cpu-gpu.json" profiles/NVIDIA-H200.profile.json -o "$OUT/report.html"
else
    echo "no gnuplot on this machine: make the page where gnuplot is (see the header of bench/report.sh)"
fi
python3 - "$OUT/record.json" <<'PY' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
print("record:", json.dumps(d.get("record", {}).get("devices")))
rows = d["results"]
thr = sum(1 for r in rows if (r.get("nvml") or {}).get("throttled"))
print(f"{len(rows)} rows, {thr} flagged throttled; first row's NVML: {json.dumps(rows[0].get('nvml'))}")
PY
stage "done"
