#!/bin/bash
# bench/softmax_bulk_h200.sh - the softmax forward's bulk rung (issue 33;
# src/ops/softmax/cuda/09_bulk.cu) in one device call, each stage under its
# own time limit (170 + 110 + 130 s at most, under 420 s with the rest):
#   1. build for sm_90 with warnings as errors, the ptxas report of the
#      bulk kernels (registers, spills, shared memory) and their SASS counts;
#   2. test_softmax_cpu, test_gpu_softmax whole, and beside it
#      compute-sanitizer memcheck of test_gpu_softmax at quick sizes on the
#      bulk rung (SL_SOFTMAX_QUICK=1 SL_SOFTMAX_VARIANTS=bulk);
#   3. streamlab run of the register rungs, bulk and sl_softmax beside the
#      copy kernel (copy_k) and cudaMemcpy (copy), f32 and bf16, at issue
#      33's and issue 26's shapes (16384 x 131072 last: if the limit cuts
#      it, the files keep the rows before it), then a table of each
#      variant's bandwidth / copy_k's, shape by shape.
#
#   run(kind="nvidia-h200", carry=[".deps"], timeout_s=480, command="bash bench/softmax_bulk_h200.sh")
#
# Environment: VARIANTS (regs,regs_cl,bulk,sl_softmax), SHAPES (issue 33's
# list), TRIALS (20). Outputs under $OUT: smbulk.log (this output),
# smbulk-build.log, smbulk.json, smbulk.md, smbulk-logs.tgz (the test and
# memcheck logs, the SASS).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/smbulk
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/smbulk.log") 2>&1
trap 'tar czf "$OUT/smbulk-logs.tgz" -C "$W" . 2>/dev/null' EXIT
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
. bench/deps_env.sh
B=build-smbulk
SL=$B/streamlab
V=${VARIANTS:-regs,regs_cl,bulk,sl_softmax}
SHAPES=${SHAPES:-128x4096,128x32768,128x131072,1x4096,64x4096,4096x32768,16384x16384,16384x131072}

stage "build (sm_90, -DSL_WERROR=ON)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
git log --oneline -1 2>/dev/null
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS \
    > "$OUT/smbulk-build.log" 2>&1 || { echo "cmake failed"; tail -30 "$OUT/smbulk-build.log"; exit 1; }
timeout 170 cmake --build $B -j 16 --target streamlab_cli test_softmax_cpu test_gpu_softmax \
    >> "$OUT/smbulk-build.log" 2>&1 || { echo "build failed"; grep -E "error" "$OUT/smbulk-build.log" | head -30; exit 1; }
echo "ptxas, smx_bulk<dtype> (0 f32, 1 f16, 2 bf16):"
grep -A2 "Function properties for _Z8smx_bulk" "$OUT/smbulk-build.log" | grep -E "properties|spill|Used" | sed 's/ptxas info *: //'
obj=$(find $B -name "09_bulk.cu.o" | head -1)
if [ -n "$obj" ] && command -v cuobjdump >/dev/null; then
    cuobjdump --dump-sass "$obj" > "$W/09_bulk.sass" 2>&1
    echo "09_bulk SASS: $(grep -c 'UBLKCP' "$W/09_bulk.sass") UBLKCP, $(grep -c 'LDS.128' "$W/09_bulk.sass") LDS.128," \
         "$(grep -c 'STG.E.128' "$W/09_bulk.sass") STG.E.128, $(grep -cE 'LDL|STL' "$W/09_bulk.sass") local accesses"
fi

stage "tests: test_softmax_cpu; test_gpu_softmax whole beside its memcheck on the bulk rung (quick)"
timeout 30 $B/tests/test_softmax_cpu > "$W/test-cpu.log" 2>&1
echo "test_softmax_cpu exit: $?"
timeout 110 $B/tests/test_gpu_softmax > "$W/test-gpu.log" 2>&1 &
p1=$!
SL_SOFTMAX_QUICK=1 SL_SOFTMAX_VARIANTS=bulk timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 \
    $B/tests/test_gpu_softmax > "$W/memcheck.log" 2>&1 &
p2=$!
wait $p1; echo "test_gpu_softmax exit: $?"
grep -E "FAIL|^bulk:|wide rows|issue 25|passed|failed" "$W/test-gpu.log" | head -14
wait $p2; echo "memcheck (bulk, quick) exit: $?"
grep -E "ERROR SUMMARY|FAIL|^bulk:|passed|failed" "$W/memcheck.log" | head -6

stage "timing: streamlab run --op softmax --dtype f32,bf16, $V beside copy_k"
timeout -s INT 130 $SL run --op softmax --dtype f32,bf16 --shape "$SHAPES" --variants "$V" --trials "${TRIALS:-20}" \
    --warmup 3 --json "$OUT/smbulk.json" --md "$OUT/smbulk.md" > "$W/run.txt" 2>&1
echo "streamlab run exit: $? (130: cut by the limit; the files hold the rows before)"
grep -vE "^ +[a-z]" "$W/run.txt" | tail -8
python3 - "$OUT/smbulk.json" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1]))["results"]
except Exception as e:  # the run may have been cut before its first row
    print("no rows:", e)
    sys.exit(0)
def key(r):
    s = r.get("shape") or {}
    return (r.get("dtype"), "%sx%s" % (s.get("rows"), s.get("cols")) if s else str(r.get("n")))
ck, table, order = {}, {}, []
for r in rows:
    k, v, g = key(r), r.get("variant"), r.get("gbs")
    if g is None or r.get("status") != "ok":
        continue
    if k not in order:
        order.append(k)
    if v == "copy_k":
        ck[k] = g
    table.setdefault(k, {})[v] = g
names = [v for v in ["copy", "regs", "regs_cl", "bulk", "sl_softmax", "cudnn"] if any(v in t for t in table.values())]
print("bandwidth / copy_k's (same process), copy_k GB/s")
print("%-5s %-13s %8s " % ("dtype", "shape", "copy_k") + " ".join("%10s" % n for n in names))
for k in order:
    c = ck.get(k)
    print("%-5s %-13s %8s " % (k[0], k[1], "%.0f" % c if c else "-") +
          " ".join("%10s" % ("%.3f" % (table[k][n] / c) if c and n in table[k] else "-") for n in names))
PY
stage "done"
