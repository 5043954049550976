#!/bin/sh
# The Python package's CI step (issue 28; docs/python.md), run by .ci/run after
# the ctest suite: a fresh venv, `pip install .` (the library compiled once
# more, for sm_90 only where nvcc is present, to keep this step short: 204
# CPU-seconds, 4 min 52 s wall on the shared 2-core development machine,
# 2026-11-26), then the pytest suite from the installed package. NumPy tests
# always run, and the torch tests on the CPU where torch installs (below); the
# CUDA tests skip without a GPU and run on the device (bench/py_h200.sh,
# bench/verify_h200.sh). Fails when pytest fails or collects nothing.
set -eu
cd "$(dirname "$0")/.."
V=${SL_PY_VENV:-build/py-venv}
if ! python3 -m venv --clear "$V" 2>/dev/null; then
    # Debian's python3 keeps venv (ensurepip) in a package of its own.
    pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "python$pyver-venv" python3-venv >/dev/null 2>&1 || true
    python3 -m venv --clear "$V"
fi
"$V/bin/python" -m pip install -q --upgrade pip
"$V/bin/python" -m pip install -q "numpy>=1.23" pytest
# torch, for the torch tests on the CPU (torch CPU tensors, torch.library opcheck,
# torch.compile, autograd): PyPI's Linux wheel (the CUDA build, ~4 GB with its
# nvidia-* wheels; 97 s to install on the development machine, 2026-11-26) runs on
# a machine without a GPU. SL_PY_TORCH=0 leaves it out; if it cannot be installed,
# the torch tests skip and say so.
if [ "${SL_PY_TORCH:-1}" != 0 ]; then
    "$V/bin/python" -m pip install -q torch || echo "python_ci: torch could not be installed; its tests will skip"
fi
start=$(date +%s)
"$V/bin/python" -m pip install . -C build-dir="${SL_PY_BUILD_DIR:-build/py}" \
    -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 -C cmake.define.SL_WERROR=ON ${SL_PY_PIP_ARGS:-}
echo "python_ci: pip install . took $(( $(date +%s) - start )) s"
# From the tests' folder's parent's parent (the repository), with the
# installed package: python/ is not on sys.path, so nothing is imported from
# the source tree.
"$V/bin/python" -c 'import streamlab, sys; print("streamlab", streamlab.__version__, streamlab.BACKENDS, streamlab.BINDING, streamlab.LIB_PATH)'
LOG=${SL_PY_LOG:-build/py-pytest.log}
mkdir -p "$(dirname "$LOG")"
set +e
"$V/bin/python" -m pytest -q -rs -p no:cacheprovider python/tests > "$LOG" 2>&1
rc=$?
set -e
grep -v "^SKIPPED" "$LOG" | tail -15
echo "python_ci: $(grep -c "^SKIPPED" "$LOG") skip reasons (see $LOG), e.g.:"
grep "^SKIPPED" "$LOG" | head -3
if [ $rc -eq 5 ]; then
    echo "python_ci: pytest collected no tests" >&2
    exit 1
fi
[ $rc -eq 0 ] || exit $rc
grep -Eq "[1-9][0-9]* passed" "$LOG" || { echo "python_ci: no test passed" >&2; exit 1; }

# The C++ call on torch tensors (streamlab._torchcall, python/torchcall.cpp) is built
# only against an installed torch, which pip's isolated build above does not see:
# reinstall with --no-build-isolation (a build directory of its own, so the CMake cache
# of the isolated build is left alone) and run the suite again on that path. The library
# is CPU-only this time (SL_ENABLE_CUDA=OFF): the first install above built and tested
# the CUDA one, and here only the binding changes (no GPU in CI either way).
if [ "${SL_PY_TORCH:-1}" != 0 ] && "$V/bin/python" -c "import torch" 2>/dev/null; then
    "$V/bin/python" -m pip install -q scikit-build-core
    start=$(date +%s)
    "$V/bin/python" -m pip install --no-build-isolation --no-deps . -C build-dir="${SL_PY_BUILD_DIR:-build/py}-torch" \
        -C cmake.define.SL_ENABLE_CUDA=OFF -C cmake.define.SL_WERROR=ON -C cmake.define.SL_TORCHCALL=ON \
        ${SL_PY_PIP_ARGS:-}
    echo "python_ci: pip install --no-build-isolation . took $(( $(date +%s) - start )) s"
    "$V/bin/python" -c 'import streamlab, sys; print("streamlab torchcall:", streamlab.TORCHCALL)
sys.exit(0 if streamlab.TORCHCALL.startswith("on") else 1)' || { echo "python_ci: _torchcall did not load" >&2; exit 1; }
    LOG2="${LOG%.log}-torchcall.log"
    set +e
    "$V/bin/python" -m pytest -q -rs -p no:cacheprovider python/tests > "$LOG2" 2>&1
    rc=$?
    set -e
    grep -v "^SKIPPED" "$LOG2" | tail -5
    [ $rc -eq 0 ] || exit $rc
    grep -Eq "[1-9][0-9]* passed" "$LOG2" || {
        echo "python_ci: the torchcall run passed nothing" >&2; exit 1; }
fi
