#!/bin/bash
# bench/smem_probe_h200.sh - issue 11's shared-memory probes, model and
# counters on the H200, in one device call (about 90 s):
#   build (sm_90, warnings as errors) of the CLI and the tests below;
#   streamlab probe --only smem,bank           -> $OUT/probe-smem.{json,md}
#   streamlab explain --op transpose --shape 8192x8192 with that profile
#   streamlab run --op transpose --shape 8192x8192 --variants tile32,pad33 --counters
#   ctest: test_model, test_probe_math, test_counters, test_counters_gpu, test_gpu_transpose
# Run from the repository root (the staged worktree), with .deps (cJSON .debs):
#   run(kind="nvidia-h200", carry=[".wt/issue11c", ".deps"],
#       command="cd .wt/issue11c && cp -r ../../.deps . && bash bench/smem_probe_h200.sh")
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/smem_probe.log") 2>&1
t0=$(date +%s)
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
stage build
git_rev=$(git rev-parse --short HEAD 2>/dev/null || echo staged)
cmake -S . -B build-h200 -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON \
    $PREFIX_ARGS > "$OUT/cmake.log" 2>&1 || { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build build-h200 -j16 --target streamlab_cli test_model test_probe_math test_counters \
    test_gpu_transpose > "$OUT/build.log" 2>&1 || { grep -E "error|warning" "$OUT/build.log" | head -40; exit 1; }
SL=build-h200/streamlab
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,clocks.sm,ecc.mode.current --format=csv
stage probe
$SL probe --only smem,bank --json "$OUT/probe-smem.json" --md "$OUT/probe-smem.md"; echo "probe rc=$?"
stage explain
$SL explain --op transpose --shape 8192x8192 --profile "$OUT/probe-smem.json"; echo "explain rc=$?"
stage run counters
$SL run --op transpose --shape 8192x8192 --variants tile32,pad33 --counters --profile "$OUT/probe-smem.json" \
    --json "$OUT/run-counters.json" --md "$OUT/run-counters.md"; echo "run rc=$?"
stage ctest
(cd build-h200 && ctest --output-on-failure -R '^(test_model|test_probe_math|test_counters|test_counters_gpu|test_gpu_transpose)$'); echo "ctest rc=$?"
stage done
