# bench/deps_env.sh - sourced by the device scripts (bash, from the
# repository root): where the machine has no cJSON, unpack the Debian
# packages carried in .deps/ (libcjson1, libcjson-dev, and zlib1g-dev for
# `streamlab train` where the image lacks zlib.h: the device machines
# reach no package registry) under /tmp/deps, and set
#   PREFIX_ARGS      the CMake option that finds them ("" when not needed)
#   LD_LIBRARY_PATH  with their library directory in front.
# DEBS (optional): the .deb files to unpack instead of .deps/*.deb.
PREFIX_ARGS=""
if ! ldconfig -p 2>/dev/null | grep -q libcjson.so; then
    _sl_debs=${DEBS:-$(ls .deps/*.deb 2>/dev/null)}
    if [ -n "$_sl_debs" ]; then
        mkdir -p /tmp/deps
        for _sl_deb in $_sl_debs; do
            if command -v dpkg-deb >/dev/null; then
                dpkg-deb -x "$_sl_deb" /tmp/deps
            else # dpkg-deb missing: the data member by hand
                _sl_abs=$(cd "$(dirname "$_sl_deb")" && pwd)/$(basename "$_sl_deb")
                (cd /tmp/deps && ar x "$_sl_abs" data.tar.xz && tar xf data.tar.xz && rm data.tar.xz)
            fi
        done
        PREFIX_ARGS="-DCMAKE_PREFIX_PATH=/tmp/deps/usr"
        export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
    fi
fi
