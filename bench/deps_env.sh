# bench/deps_env.sh - sourced by the device scripts (bash, from the
# repository root): the one place where what the device machine lacks is
# unpacked from what was carried with the call (the device machines reach no
# package registry). Sourcing it twice, or from a script that bench/device.sh
# runs, does the work once: the results are exported.
#
#   cJSON       the system's, else .deps/libcjson1_*.deb + libcjson-dev_*.deb
#               unpacked under /tmp/deps (DEBS: the .deb files to unpack
#               instead of .deps/*.deb; a helper's staging copy in
#               .wt/NAME finds the checkout's ../../.deps/*.deb)
#   zlib        zlib.h for `streamlab train`: the system's, else the carried
#               zlib1g-dev_*.deb (among the same .debs, or .zdeps/), linked
#               against the machine's libz.so.1 (libz.a only without one)
#   cuDNN       the softmax peer: headers from .cudnn/include (carried, never
#               committed), libraries from torch's wheel (nvidia-cudnn-cu*)
#   Fashion-MNIST  the system's /usr/share/datasets/fashion-mnist, else the
#               carried .data/dataset-fashion-mnist_*.deb (bench/fashion_mnist.sh)
#
# Sets and exports:
#   PREFIX_ARGS      the CMake option that finds cJSON ("" when not needed)
#   ZARGS            the CMake options that find the carried zlib ("" when not needed)
#   CUDNN_ARGS       -DSL_CUDNN_INCLUDE_DIR=... where .cudnn/include is carried
#   SL_FASHION_MNIST where Fashion-MNIST is
#   LD_LIBRARY_PATH  with cJSON's and cuDNN's library directories in front.
if [ "${SL_DEPS_ENV_DONE:-}" = 1 ]; then
    return 0
fi
PREFIX_ARGS=""
ZARGS=""
CUDNN_ARGS=""
_sl_debs=${DEBS:-$(ls .deps/*.deb 2>/dev/null || ls ../../.deps/*.deb 2>/dev/null)}
_sl_unpack() {  # _sl_unpack DEB DIR
    mkdir -p "$2"
    if command -v dpkg-deb >/dev/null; then
        dpkg-deb -x "$1" "$2"
    else # dpkg-deb missing: the data member by hand
        local abs
        abs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
        (cd "$2" && ar x "$abs" data.tar.xz && tar xf data.tar.xz && rm data.tar.xz)
    fi
}
# zlib1g-dev's libz.so is an absolute link to the runtime of its own Debian
# release (libz.so.1.2.13), which another machine may not have; left dangling,
# CMake falls back to libz.a, which is not built position-independent and so
# cannot go into the tests' shared library (streamlab_dev). Point it at the
# machine's own libz.so.1 when there is one (the ABI is the same).
_sl_fix_libz() {  # _sl_fix_libz DIR: DIR/usr/lib/x86_64-linux-gnu/libz.so
    local so="$1/usr/lib/x86_64-linux-gnu/libz.so" sys
    [ -L "$so" ] && [ ! -e "$so" ] || return 0
    sys=$(ldconfig -p 2>/dev/null | awk '/libz\.so\.1 .*x86-64/ {print $NF; exit}')
    [ -n "$sys" ] && ln -sf "$sys" "$so"
}
if ! ldconfig -p 2>/dev/null | grep -q libcjson.so && [ -n "$_sl_debs" ]; then
    for _sl_deb in $_sl_debs; do
        _sl_unpack "$_sl_deb" /tmp/deps
    done
    _sl_fix_libz /tmp/deps
    PREFIX_ARGS="-DCMAKE_PREFIX_PATH=/tmp/deps/usr"
    export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
fi
if [ ! -f /usr/include/zlib.h ]; then  # the carried zlib1g-dev
    _sl_zdeb=$(ls $_sl_debs .zdeps/zlib1g-dev_*.deb 2>/dev/null | grep zlib1g-dev | head -1)
    if [ -n "$_sl_zdeb" ]; then
        _sl_unpack "$_sl_zdeb" /tmp/z
        _sl_fix_libz /tmp/z
        _sl_zlib=/tmp/z/usr/lib/x86_64-linux-gnu/libz.so   # the machine's libz.so.1
        [ -e "$_sl_zlib" ] || _sl_zlib=/tmp/z/usr/lib/x86_64-linux-gnu/libz.a
        ZARGS="-DZLIB_INCLUDE_DIR=/tmp/z/usr/include -DZLIB_LIBRARY=$_sl_zlib"
    fi
fi
[ -f .cudnn/include/cudnn.h ] && CUDNN_ARGS="-DSL_CUDNN_INCLUDE_DIR=$PWD/.cudnn/include"
_sl_cudnn_lib=$(python3 -c 'import nvidia.cudnn, os; print(os.path.join(list(nvidia.cudnn.__path__)[0], "lib"))' 2>/dev/null)
[ -n "$_sl_cudnn_lib" ] && [ -d "$_sl_cudnn_lib" ] && export LD_LIBRARY_PATH=$_sl_cudnn_lib:${LD_LIBRARY_PATH:-}
. bench/fashion_mnist.sh
SL_FASHION_MNIST=${SL_FASHION_MNIST:-$(fashion_mnist_dir)}
export PREFIX_ARGS ZARGS CUDNN_ARGS SL_FASHION_MNIST SL_DEPS_ENV_DONE=1
unset _sl_debs _sl_deb _sl_zdeb _sl_zlib _sl_cudnn_lib
