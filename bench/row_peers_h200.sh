#!/bin/bash
# bench/row_peers_h200.sh - the row ops (RMSNorm, LayerNorm, the fused add,
# softmax and its backward, cross-entropy) beside torch, torch.compile,
# Liger-Kernel and quack, in one process per group, on one device call.
#
# The peers must be staged first (../shared/peers/README.md): two device
# calls, the second at once, this script in the second:
#   run(carry=[".peers1"], command="mkdir -p /tmp/peers && cp .peers1/* /tmp/peers/")
#   run(carry=[".peers2", ".deps"], command="source .peers2/activate.sh && bash bench/row_peers_h200.sh")
# Without the first call Liger still imports and quack's columns say why not.
#
# Steps: build libstreamlab (sm_90, warnings as errors), put the package of
# the source tree beside it (ctypes binding; kernel time is what is
# compared, by CUDA-graph replay), then bench/row_peers.py once per group
# of PLAN, each cut at its own time limit. row_peers.py rewrites its files
# after every case, so a group cut short still leaves valid files.
#
# PLAN (environment): groups separated by ';', each "name ops shapes seconds"
# (ops and shapes comma-separated, shapes MxN; "-" = the op's shapes from
# the issues). DTYPES (bf16). Outputs under $OUT: row-peers-<name>.{json,md}
# for each group, row-peers.log.
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/sl-peers}
mkdir -p "$OUT" "$WORK"
t0=$(date +%s)
exec > >(tee "$OUT/row-peers.log") 2>&1
say() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
PLAN=${PLAN:-"norms rmsnorm,rmsnorm_bwd,layernorm,layernorm_bwd,add_rmsnorm 32768x4096,8192x65536,64x4096 220;
xent xent,xent_fwd_bwd,xent_bwd 16384x131072,16384x32000 110;
softmax softmax,softmax_bwd 128x32768,4096x32768,16384x131072 90"}
export PYTHONUNBUFFERED=1

say "device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
. bench/deps_env.sh
B=${BUILD:-build-peers}
say "build libstreamlab (sm_90, -DSL_WERROR=ON)"
python3 bench/keep_mtimes.py . $B
cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON $PREFIX_ARGS > "$WORK/build.log" 2>&1 &&
    timeout 240 cmake --build $B -j 16 --target streamlab_shared >> "$WORK/build.log" 2>&1
rc=$?
echo "build exit $rc"
[ $rc = 0 ] || { grep -E "error|Error" "$WORK/build.log" | head -30; exit 1; }
# The package learns its library's backends from _build_info.py (written by
# the SL_PYTHON install): a copy of python/ with that file, at the top level
# as python/ is.
P=.peers-py
rm -rf "$P" && cp -r python "$P"
printf 'BACKENDS = "cuda,cpu"\nVERSION = "peers"\n' > "$P/streamlab/_build_info.py"
export STREAMLAB_LIBRARY=$PWD/$B/libstreamlab.so PYTHONPATH=$PWD/$P${PYTHONPATH:+:$PYTHONPATH}

fail=0
IFS=';' read -ra groups <<<"$(tr '\n' ' ' <<<"$PLAN")"  # one line: read stops at a newline
for g in "${groups[@]}"; do
    read -r name ops shapes secs <<<"$g"
    [ -n "${name:-}" ] || continue
    say "group $name: $ops at ${shapes} (cut at ${secs} s)"
    sh_arg=(); [ "$shapes" != "-" ] && sh_arg=(--shapes "$shapes")
    timeout "$secs" python3 bench/row_peers.py --ops "$ops" --dtypes "${DTYPES:-bf16}" "${sh_arg[@]}" \
        --json "$OUT/row-peers-$name.json" --md "$OUT/row-peers-$name.md"
    rc=$?
    echo "group $name exit $rc$([ $rc = 124 ] && echo ' (cut at its limit: the files hold the cases finished)')"
    [ $rc = 0 ] || fail=1
done
say "done (exit $fail)"
exit $fail
