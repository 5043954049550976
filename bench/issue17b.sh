#!/bin/bash
# bench/issue17b.sh - issue 17, second round on the H200, one device call:
# build for sm_90, test_gpu_align + test_gpu_graph and their memcheck, then
# the measurements behind the four open points:
#   1. alignx: each side's time (sl, CUB, bulk, bulk128, the two-LDG funnel
#      rungs) at the offset triples that fell below 0.99 x CUB and controls;
#      ncu counters (DRAM and L2 sectors) of sl, CUB and bulk128 at the worst
#      and best triples (align_bench ncu1);
#   2. hostpath (the host cost of each piece of sl_add's path) and l2 (warm,
#      cold, and warm queued behind a spin kernel: GPU time only);
#   3. the model: the add ladder at 2^26 / 2^28 (every rung) and 2^30 (a
#      subset), f32 and bf16, and ncu counters of the DRAM-bound rungs
#      (grid-stride against one-tile-per-block) at 2^26;
#   4. run --reprobe (its cost and the rates the results file records), and
#      streamlab probe's device fields (a quick profile in /tmp, not kept).
#
#   run(kind="nvidia-h200", carry=[".wt/issue17", ".deps"],
#       command="cd .wt/issue17 && cp -r ../../.deps . && bash bench/issue17b.sh")
#
# STAGES (default: all of "build tests sweep align persist sass host model ncu reprobe")
# picks stages; ncu2 = ncu with the per-SM active-cycle counters (the tail).
# Call 1: STAGES="build tests align host model ncu reprobe" (no sweep, persist, sass).
# Call 2: STAGES="build tests sweep align persist sass ncu2".
# Call 3: STAGES="build tests sweep model" ALIGN_TRIALS=3 MODEL_TRIALS=7.
# $OUT gets issue17b.log (this output) and issue17b.tgz (everything under $W).
set -uo pipefail
OUT=${OUT:-$PWD/bench-out}
W=/tmp/i17b
mkdir -p "$OUT" "$W"
t0=$(date +%s)
exec > >(tee "$OUT/issue17b.log") 2>&1
trap 'tar czf "$OUT/issue17b.tgz" -C "$W" .' EXIT
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
STAGES=${STAGES:-build tests sweep align persist sass host model ncu reprobe}
has() { [[ " $STAGES " == *" $1 "* ]]; }

. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it
B=build-h200
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
stage "device"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,ecc.mode.current --format=csv
git log --oneline -1 2>/dev/null || true
if has build; then
    stage "build"
    cmake -S . -B $B -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_PTXAS_VERBOSE=ON -DSL_BUILD_BENCH=ON \
        $PREFIX_ARGS > "$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }
    cmake --build $B -j 16 --target streamlab_cli test_gpu_align test_gpu_graph align_bench \
        >> "$W/build.log" 2>&1 || { grep -E "error" -A3 "$W/build.log" | head -60; exit 1; }
    grep -E "spill" "$W/build.log" | grep -v " 0 bytes spill" | head -5
fi
if has tests; then
    stage "tests"
    for t in test_gpu_align test_gpu_graph; do
        s=$(date +%s)
        timeout 120 $B/tests/$t > "$W/$t.out" 2>&1; rc=$?
        echo "$t rc=$rc ($(( $(date +%s) - s ))s): $(tail -1 "$W/$t.out")"
        [ $rc -ne 0 ] && tail -20 "$W/$t.out"
    done
    stage "memcheck (quick)"
    for t in test_gpu_graph test_gpu_align; do
        STREAMLAB_TEST_QUICK=1 timeout 80 compute-sanitizer --tool memcheck --leak-check full $B/tests/$t 2>&1 | tail -3
    done | tee "$W/memcheck.log"
fi
if has sweep; then
    stage "align_bench align: every offset combination, f32 and f64, add and axpy, 2^26 and 2^28"
    ALIGN_DTYPES=f32,f64 ALIGN_TRIALS=${ALIGN_TRIALS:-5} timeout 120 $B/align_bench "$W/align.json" align; echo "align rc=$?"
fi
if has align; then
    stage "align_bench alignx"
    timeout 90 $B/align_bench "$W/alignx.json" alignx; echo "alignx rc=$?"
fi
if has persist; then
    stage "align_bench persist: static vs dynamic persistent grid vs one-vector blocks"
    timeout 60 $B/align_bench "$W/persist.json" persist; echo "persist rc=$?"
fi
if has sass; then
    stage "SASS: the global loads of the add rungs (f32)"
    cuobjdump --dump-sass $B/libstreamlab.a 2>/dev/null | awk '/Function :/{f=$3} /LDG|STG|UBLKCP|LDGSTS/{print f" "$2}' \
        | grep -E "ew_vecILi0E8sl_k_addLb0E|ew_grid_vec_ilpILi[124]ELi0E8sl_k_addLb0E|ew_tileILi256ELi1ELi[0-4]ELi0E8sl_k_addLb0E|ew_bulk_tileILi256ELi1ELb0ELi0E8sl_k_addLb0E" \
        | sed -E 's/ +/ /g' | sort | uniq -c | tee "$W/sass-loads.txt"
fi
if has host; then
    stage "align_bench hostpath smalln l2"
    timeout 90 $B/align_bench "$W/host.json" hostpath smalln l2; echo "host rc=$?"
fi
if has model; then
    stage "model: add ladder, f32 and bf16, 2^26 and 2^28 every rung, 2^30 a subset"
    for dt in f32 bf16; do
        timeout 60 $B/streamlab run --op add --dtype $dt --sizes 2^26,2^28 --trials ${MODEL_TRIALS:-11} --warmup 3 --quiet \
            --json "$W/model-$dt.json" --md "$W/model-$dt.md"
        echo "model $dt rc=$?"
        timeout 60 $B/streamlab run --op add --dtype $dt --sizes 2^30 --trials 5 --warmup 2 --quiet \
            --variants ${MODEL_2E30:-copy,cub,vec4,grid_vec4,ilp2,ilp4,tile4,bulk,tile1,tile1_lu,tile1_nc,sl_add} \
            --json "$W/model-$dt-2e30.json" --md "$W/model-$dt-2e30.md"
        echo "model $dt 2^30 rc=$?"
    done
fi
if has ncu || has ncu2; then
    stage "ncu: metrics available"
    $NCU --query-metrics --chip gh100 > "$W/ncu-metrics.txt" 2>&1
    # DRAM and L2 names this chip has that could show turnarounds, row
    # activity or partial writes (the list is kept: which exist is a finding)
    grep -oiE '^(dram|fbpa|lts)__[a-z0-9_]*(turn|activ|row|page|partial|masked|rmw|prech|bank)[a-z0-9_]*' \
        "$W/ncu-metrics.txt" | sort -u > "$W/ncu-extra.txt"
    echo "$(wc -l < "$W/ncu-extra.txt") extra DRAM/L2 metric names:"; head -40 "$W/ncu-extra.txt"
    EXTRA=$(head -12 "$W/ncu-extra.txt" | sed 's/$/.sum/' | paste -sd, -)
    SAFE=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum
    BASE=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__cycles_active.avg,dram__cycles_elapsed.avg,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread,launch__occupancy_limit_registers,launch__waves_per_multiprocessor
    run_ncu() { # name, metrics, kernel regex, command...
        local name=$1 metrics=$2 rx=$3; shift 3
        timeout 120 $NCU --clock-control none --metrics "$metrics" -k "regex:$rx" --csv --page raw --print-units base \
            "$@" > "$W/ncu-$name.csv" 2> "$W/ncu-$name.err"
        local rc=$?
        [ $rc -ne 0 ] && { echo "ncu $name rc=$rc (retrying with the base metrics)"; tail -3 "$W/ncu-$name.err";
            timeout 120 $NCU --clock-control none --metrics "$SAFE" -k "regex:$rx" --csv --page raw --print-units base \
                "$@" > "$W/ncu-$name.csv" 2>> "$W/ncu-$name.err"; }
        echo "ncu $name: $(grep -c '^"[0-9]' "$W/ncu-$name.csv") kernels"
    }
    stage "ncu: alignment (sl, CUB, bulk128 at worst and best triples, f32 2^26)"
    run_ncu align "$BASE${EXTRA:+,$EXTRA}" 'ew_bulk|transform' $B/align_bench "$W/ncu1.json" ncu1
    if has ncu2; then
        BASE=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__cycles_active.avg,dram__cycles_elapsed.avg,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.avg,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size
        EXTRA=
    fi
    stage "ncu: the model's rungs (f32 add 2^26)"
    for v in vec4 grid_vec4 ilp2 ilp4 tile1 tile1_lu bulk; do
        run_ncu "rung-$v" "$BASE${EXTRA:+,$EXTRA}" 'ew_' --launch-count 1 \
            $B/streamlab run --op add --dtype f32 --sizes 2^26 --variants $v --trials 1 --warmup 0 --quiet \
            --json "$W/ncu-run-$v.json"
    done
fi
if has reprobe; then
    stage "run --reprobe"
    s=$(( $(date +%s%N) / 1000000 ))
    timeout 40 $B/streamlab run --op add --dtype f32 --sizes 2^28 --trials 10 --warmup 3 --quiet --reprobe \
        --variants bulk,grid_vec4,sl_add --json "$W/model-reprobe.json" --md "$W/model-reprobe.md"
    echo "reprobe rc=$? wall $(( $(date +%s%N) / 1000000 - s )) ms"
    s=$(( $(date +%s%N) / 1000000 ))
    timeout 40 $B/streamlab run --op add --dtype f32 --sizes 2^28 --trials 10 --warmup 3 --quiet \
        --variants bulk,grid_vec4,sl_add --json "$W/model-noreprobe.json" --md "$W/model-noreprobe.md"
    echo "no-reprobe rc=$? wall $(( $(date +%s%N) / 1000000 - s )) ms"
    grep -iE "re-probed|reprobe" "$W/model-reprobe.md" | head -5
    python3 - "$W/model-reprobe.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def find(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("model_parameters", "reprobe", "profile") or "reprobe" in k:
                print(path + "/" + k, json.dumps(v)[:900])
            else:
                find(v, path + "/" + k)
    elif isinstance(o, list):
        for i, v in enumerate(o[:3]):
            find(v, f"{path}[{i}]")
find(d)
PY
    stage "streamlab probe --quick --only ceilings (device fields; not kept)"
    timeout 60 $B/streamlab probe --quick --only ceilings --json /tmp/probe-quick.json > "$W/probe-quick.log" 2>&1
    echo "probe rc=$?"
    python3 -c "import json; d=json.load(open('/tmp/probe-quick.json')); print(json.dumps(d.get('device'), indent=None)[:600])"
fi
stage "done"
