#!/bin/bash
# bench/py_h200.sh - issue 28 on the device, in one call: build and install
# the Python package (pip install ., the GPU's architecture), run the pytest
# suite (CUDA tests: streams, graphs, torch.compile, opcheck), the overhead
# and kernel-time checks (bench/py_bench.py against bench/py_graph_c.c), and
# two `python -m streamlab.bench` tables. From the main checkout's root:
#   run(command="cd .wt/py && bash bench/py_h200.sh", carry=[".wt/py"], kind="nvidia-h200")
. "$(dirname "${BASH_SOURCE[0]}")/_help.sh"
set -uo pipefail
OUT=${OUT:-$PWD/py-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/py_h200.log") 2>&1
t0=$(date +%s)
stage() { echo "== [$(( $(date +%s) - t0 ))s] $*"; }
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=16
stage "environment"
python3 -c 'import torch, sys; print(sys.version.split()[0], torch.__version__, torch.cuda.get_device_name())'
nvcc --version | tail -2
stage "pip install . (build: /tmp/skb)"
s=$(date +%s)
python3 -m pip install --no-build-isolation --no-deps -C build-dir=/tmp/skb . > "$OUT/pip.log" 2>&1 || { tail -40 "$OUT/pip.log"; exit 1; }
echo "pip install: $(( $(date +%s) - s )) s"; grep -E "streamlab:|Successfully" "$OUT/pip.log" | head
cd /tmp && python3 -c 'import streamlab; print("installed:", streamlab.LIB_PATH, streamlab.BACKENDS)'; cd - >/dev/null
stage "pytest"
python3 -m pytest -q -rs -p no:cacheprovider python/tests > "$OUT/pytest.txt" 2>&1
echo "pytest exit $?"; grep -E "passed|failed|^FAILED|^ERROR" "$OUT/pytest.txt" | tail -30
stage "C graph timer"
SITE=$(cd /tmp && python3 -c 'import streamlab, os; print(os.path.dirname(streamlab.__file__))')
gcc -O2 -std=c11 bench/py_graph_c.c -I"$SITE/include" -I/usr/local/cuda/include -L"$SITE" -lstreamlab \
    -Wl,-rpath,"$SITE" -L/usr/local/cuda/lib64 -lcudart -Wl,-rpath,/usr/local/cuda/lib64 -o /tmp/py_graph_c || exit 1
stage "overhead and kernel time"
python3 bench/py_bench.py /tmp/py_graph_c "$OUT/py_bench.json"
stage "binding cost (ctypes vs a C extension)"
python3 bench/py_binding_cost.py || echo "(binding cost: no compiler or Python headers here)"
stage "python -m streamlab.bench"
for op in softmax add transpose; do python3 -m streamlab.bench $op --markdown; done
stage "done"
