#!/bin/sh
# Check what streamlab needs to build and, where we can (root or sudo with
# apt-get), install what is missing from Debian/Ubuntu packages. Prints the
# exact command otherwise. nvcc is optional: without it the build is CPU-only.
# Also, optionally (a failure only warns: their tests skip without them):
# gnuplot for `streamlab report`, python3 and Chromium for its tests
# (SL_DEPS_NO_BROWSER=1 leaves Chromium out), and Fashion-MNIST
# (dataset-fashion-mnist) for `streamlab train`. zlib is required (train
# reads gzip IDX files).
# `deps.sh --run` (make run): what the CLI's build needs and nothing else
# (cmake, a C compiler, make, cJSON, zlib): no Open MPI, no pkg-config, none
# of the optional packages, so a first `make run` installs the least.
set -u
for_run=0
[ "${1:-}" = "--run" ] && for_run=1
missing=""
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
command -v make >/dev/null 2>&1 || missing="$missing make"
# pkg-config: the install test (tests/test_install.sh) links examples/ with it.
[ $for_run = 1 ] || command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
found_cjson=0
for d in /usr/include /usr/local/include ${CMAKE_PREFIX_PATH:+$(echo "$CMAKE_PREFIX_PATH" | tr ':' ' ' | sed 's|\([^ ]*\)|\1/include|g')}; do
    [ -f "$d/cjson/cJSON.h" ] && found_cjson=1
done
[ $found_cjson = 1 ] || missing="$missing libcjson-dev"
# zlib: streamlab train reads the gzip-compressed IDX files (src/train/idx.c).
[ -f /usr/include/zlib.h ] || missing="$missing zlib1g-dev"
# Open MPI: the MPI mode of `streamlab run` (mpirun -np K; docs/scale.md) and
# its tests. The build works without it (CMake's SL_MPI=AUTO then leaves MPI
# mode out and says so).
if [ $for_run = 0 ]; then
    command -v mpicc >/dev/null 2>&1 || missing="$missing libopenmpi-dev"
    command -v mpirun >/dev/null 2>&1 || missing="$missing openmpi-bin"
fi
# streamlab report plots with gnuplot; its tests read the page with Python
# and render it in headless Chromium (tests/test_report*.sh skip without them).
optional=""
command -v gnuplot >/dev/null 2>&1 || optional="$optional gnuplot-nox"
command -v python3 >/dev/null 2>&1 || optional="$optional python3"
if [ "${SL_DEPS_NO_BROWSER:-0}" != 1 ] && ! command -v chromium >/dev/null 2>&1 &&
    ! command -v chromium-browser >/dev/null 2>&1; then
    optional="$optional chromium"
fi
# Fashion-MNIST for streamlab train and its accuracy tests (which skip
# without it): Debian's dataset-fashion-mnist.
[ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ] || optional="$optional dataset-fashion-mnist"
[ $for_run = 1 ] && optional=""
[ -z "$missing" ] && [ -z "$optional" ] && exit 0

install_optional() {
    [ -z "$optional" ] && return 0
    echo "streamlab: installing for streamlab report, streamlab train and their tests:$optional"
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $optional >/dev/null 2>&1 ||
        echo "streamlab: warning: could not install$optional (streamlab report needs gnuplot, streamlab train a data set; their tests skip without them)"
}

if [ -z "$missing" ]; then
    if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }; then
        SUDO=""
        [ "$(id -u)" = 0 ] || SUDO="sudo -n"
        $SUDO apt-get update -qq >/dev/null 2>&1 || true
        install_optional
    else
        echo "streamlab: optional, for streamlab report and its tests:$optional (sudo apt-get install -y$optional)"
    fi
    exit 0
fi

echo "streamlab: missing build dependencies:$missing"
if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        SUDO=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "streamlab: install them with: sudo apt-get install -y$missing"
        exit 1
    fi
    echo "streamlab: installing with apt-get:$missing"
    $SUDO apt-get update -qq >/dev/null 2>&1 || true
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null || {
        echo "streamlab: apt-get install failed; install by hand:$missing"
        exit 1
    }
    install_optional
    exit 0
fi
echo "streamlab: no apt-get here: install$missing with your package manager, or point CMAKE_PREFIX_PATH at cJSON"
exit 1
