#!/bin/bash
# bench/norms_fwd_h200.sh - the norms' forwards (issue 32, third session:
# the lean and lean4 rungs; sixth: decode, aligned; seventh: bulk, the row
# in shared memory) in one device call: build for sm_90 (warnings as
# errors, the ptxas report of the forward kernels), test_gpu_rmsnorm and
# test_gpu_layernorm whole (rmsnorm, layernorm, add_rmsnorm and the
# backwards, which share the tests), streamlab run of the forward rungs
# beside the copy at 32768 x 4096 and 8192 x 65536 (bf16) and 64 x 4096
# (--cold; SHAPES replaces the first two), compute-sanitizer memcheck of both tests (SL_NORM_QUICK=1) and
# racecheck / synccheck of the lean rungs through the CLI at small shapes.
#
#   run(kind="nvidia-h200", carry=[".wt/nfwd", ".deps"], timeout_s=600,
#       command="cd .wt/nfwd && ln -sfn ../../.deps .deps && bash bench/norms_fwd_h200.sh")
#
# Outputs under $OUT: nfwd.log (this output), nfwd-build.log, fwd.json,
# fwd.md, decode.json, tests.tgz (the test and sanitizer logs).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/nfwd
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/nfwd.log") 2>&1
trap 'tar czf "$OUT/tests.tgz" -C "$W" . 2>/dev/null' EXIT
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
. bench/deps_env.sh
B=build-nfwd
SL=$B/streamlab
V=${VARIANTS:-copy,regs,regs_pf,lean,lean4,decode,aligned,bulk,sl_rmsnorm_fwd,sl_layernorm_fwd,sl_add_rmsnorm_fwd}
SV=${SAN_VARIANTS:-lean,lean4,decode,aligned,bulk}  # racecheck and synccheck
OPS=rmsnorm,layernorm,add_rmsnorm

stage "build"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
git log --oneline -1
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON $PREFIX_ARGS \
    > "$OUT/nfwd-build.log" 2>&1 || { echo "cmake failed"; tail -30 "$OUT/nfwd-build.log"; exit 1; }
timeout 300 cmake --build $B -j 16 --target streamlab_cli test_gpu_rmsnorm test_gpu_layernorm \
    >> "$OUT/nfwd-build.log" 2>&1 || { echo "build failed"; grep -E "error" "$OUT/nfwd-build.log" | head -30; exit 1; }
echo "ptxas, the bf16 forward kernels of the lean rungs: registers and spills"
python3 - "$OUT/nfwd-build.log" <<'PY'
import re, sys
L = open(sys.argv[1]).read().split("\n")
seen = set()
for i, l in enumerate(L):
    m = re.search(r"Function properties for _Z\d+norm_fwd_regsILi2ELi2ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELb(\d)ELi(\d)ELi(\d+)ELb1", l)
    if m and m.groups() not in seen and i + 2 < len(L):
        seen.add(m.groups())
        r = re.search(r"Used (\d+) registers", L[i + 2])
        print("block %s team %s cluster %s vpt %s pf %s mode %s minb %s:" % m.groups(), r.group(1) if r else "?",
              "registers;", L[i + 1].strip())
    m = re.search(r"Function properties for _Z\d+norm_fwd_bulkILi(\d)ELi(\d)ELi(\d)E", l)
    if m and ("bulk",) + m.groups() not in seen and i + 2 < len(L):
        seen.add(("bulk",) + m.groups())
        r = re.search(r"Used (\d+) registers", L[i + 2])
        print("bulk dtype %s w %s mode %s:" % m.groups(), r.group(1) if r else "?", "registers;", L[i + 1].strip())
PY

stage "GPU tests, whole (both at once)"
timeout 280 $B/tests/test_gpu_rmsnorm > "$W/test-rms.log" 2>&1 &
p1=$!
timeout 280 $B/tests/test_gpu_layernorm > "$W/test-ln.log" 2>&1 &
p2=$!
wait $p1; echo "test_gpu_rmsnorm exit: $?"
wait $p2; echo "test_gpu_layernorm exit: $?"
grep -hE "FAIL|passed|failed|largest" "$W/test-rms.log" "$W/test-ln.log" | head -12

stage "forward rungs, bf16, ${SHAPES:-32768x4096,8192x65536}"
timeout 150 $SL run --op $OPS --dtype bf16 --shape "${SHAPES:-32768x4096,8192x65536}" --variants $V --trials 20 --warmup 3 \
    --json "$OUT/fwd.json" --md "$OUT/fwd.md" > "$W/fwd.txt" 2>&1
echo "exit $?"
grep -vE "^ +[a-z]" "$W/fwd.txt" | tail -50
stage "decode, 1, 16, 64 x 4096 bf16, --cold"
timeout 60 $SL run --op $OPS --dtype bf16 --shape 1x4096,16x4096,64x4096 --variants $V --cold --trials 50 --warmup 5 \
    --json "$OUT/decode.json" > "$W/decode.txt" 2>&1
echo "exit $?"
grep -vE "^ +[a-z]" "$W/decode.txt" | tail -24

stage "memcheck (quick) of both tests at once; racecheck and synccheck of $SV through the CLI"
SL_NORM_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_rmsnorm \
    > "$W/memcheck-rms.log" 2>&1 &
p1=$!
SL_NORM_QUICK=1 timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/test_gpu_layernorm \
    > "$W/memcheck-ln.log" 2>&1 &
p2=$!
for tool in racecheck synccheck; do
    timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $SL run --op $OPS --dtype f32,bf16 \
        --shape 7x4096,3x30001,2x65536 --variants $SV --trials 1 --warmup 0 > "$W/$tool.log" 2>&1
    echo "$tool exit: $?"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Error" "$W/$tool.log" | head -4
done
wait $p1; echo "memcheck test_gpu_rmsnorm exit: $?"
wait $p2; echo "memcheck test_gpu_layernorm exit: $?"
grep -hE "ERROR SUMMARY|FAILED|passed|failed" "$W/memcheck-rms.log" "$W/memcheck-ln.log" | tail -6
stage "done"
