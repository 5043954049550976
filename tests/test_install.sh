#!/bin/sh
# test_install.sh - install this build tree into a scratch prefix and use it
# as another project would (issue 13): build examples/add_dot.c against it
# with pkg-config (shared, and static with --static) and with CMake's
# find_package (shared and static), run every binary, run the installed
# streamlab, and check what the shared library exports and needs.
#
#   sh tests/test_install.sh BUILD_DIR SOURCE_DIR WORK_DIR CMAKE C_COMPILER
#
# ctest runs it (test_install); it needs pkg-config and says so if missing.
# LD_LIBRARY_PATH is left as the caller set it (cJSON may come from there),
# but must not name the scratch prefix: the installed binaries find
# libstreamlab.so and the CUDA libraries through their run paths, and the
# examples through -Wl,-rpath, except the plain -lstreamlab one, which is
# run with LD_LIBRARY_PATH as its user would.
set -u

build=$1 src=$2 work=$3 cmake=$4 cc=$5
prefix=$work/prefix
log=$work/log.txt

fails=0
ok() { echo "ok: $*"; }
bad() { echo "FAILED: $*" >&2; fails=$((fails + 1)); }
die() { echo "FAILED: $*" >&2; [ -f "$log" ] && tail -n 40 "$log" >&2; exit 1; }
# Run a command with its output in the log; show the log's tail if it fails.
logged() { echo "+ $*" >> "$log"; "$@" >> "$log" 2>&1; }

if [ -n "${SL_SANITIZER:-}" ]; then
    echo "SKIP: a build with -fsanitize=$SL_SANITIZER installs libraries that need the sanitizer runtime, which the"
    echo "      examples (plain cc, static links) do not link; the main CI stage runs this test"
    exit 77
fi
command -v pkg-config >/dev/null 2>&1 ||
    die "pkg-config not found: install it (Debian/Ubuntu: apt-get install pkg-config; scripts/deps.sh does)"
command -v make >/dev/null 2>&1 || die "make not found"

rm -rf "$work"
mkdir -p "$work"
: > "$log"

# ---- install ------------------------------------------------------------------
logged "$cmake" --install "$build" --prefix "$prefix" || die "cmake --install $build --prefix $prefix"
pc=$(find "$prefix" -name streamlab.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || die "no streamlab.pc under $prefix"
libdir=$(dirname "$(dirname "$pc")")
for f in bin/streamlab include/streamlab.h include/streamlab_ops.h share/man/man1/streamlab.1; do
    [ -f "$prefix/$f" ] || bad "not installed: $f"
done
for f in libstreamlab.a libstreamlab.so libstreamlab.so.0 cmake/streamlab/streamlabConfig.cmake \
         cmake/streamlab/streamlabConfigVersion.cmake cmake/streamlab/streamlabTargets.cmake \
         cmake/streamlab/streamlabStaticTargets.cmake; do
    [ -e "$libdir/$f" ] || bad "not installed: ${libdir#"$prefix"/}/$f"
done
ok "installed into $prefix"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR 2>/dev/null || true
version=$(pkg-config --modversion streamlab) || die "pkg-config --modversion streamlab"
cuda=0
case " $(pkg-config --static --libs streamlab) " in *" -lcudart_static "*) cuda=1 ;; esac
[ $cuda = 1 ] && what="CUDA build" || what="CPU-only build"
ok "pkg-config: streamlab $version ($what): $(pkg-config --cflags --libs streamlab)"

# ---- the shared library: SONAME, exports, dependencies -------------------------------
so=$libdir/libstreamlab.so
if command -v readelf >/dev/null 2>&1; then
    dyn=$(readelf -d "$so")
    echo "$dyn" | grep -q 'SONAME.*\[libstreamlab\.so\.0\]' || bad "libstreamlab.so: SONAME is not libstreamlab.so.0"
    if [ $cuda = 1 ]; then
        echo "$dyn" | grep -q 'NEEDED.*libcublas' || bad "libstreamlab.so does not record libcublas (DT_NEEDED)"
        echo "$dyn" | grep -Eq '(RUNPATH|RPATH).*/' || bad "libstreamlab.so has no run path to the CUDA toolkit"
        echo "$dyn" | grep -q 'NEEDED.*libcudart\.so' && bad "libstreamlab.so needs libcudart.so (cudart_static expected inside)"
    fi
    ok "libstreamlab.so: $(echo "$dyn" | sed -n 's/.*(SONAME).*\[\(.*\)\]/SONAME \1/p'), needs" \
       "$(echo "$dyn" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
fi
if command -v nm >/dev/null 2>&1; then
    # Exported: exactly the functions the installed headers declare.
    nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' | sed 's/@.*//' | sort -u > "$work/exported"
    sed -n 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *]\(sl_[a-z0-9_]*\)(.*/\1/p' \
        "$prefix/include/streamlab.h" "$prefix/include/streamlab_ops.h" | sort -u > "$work/declared"
    if cmp -s "$work/exported" "$work/declared"; then
        ok "libstreamlab.so exports the $(wc -l < "$work/declared") public functions and nothing else"
    else
        bad "libstreamlab.so exports differ from the public API (< exported, > declared):"
        diff "$work/exported" "$work/declared" | head -n 20 >&2
    fi
fi

# ---- the installed CLI ----------------------------------------------------------
sl=$prefix/bin/streamlab
v=$("$sl" version 2>&1) || bad "installed streamlab version: $v"
[ "$v" = "streamlab $version" ] || bad "installed 'streamlab version' says '$v', pkg-config says $version"
"$sl" --help > "$work/help.txt" 2>&1 || bad "installed streamlab --help failed"
grep -q '^usage: streamlab' "$work/help.txt" || bad "installed streamlab --help prints no usage"
logged "$sl" run --device cpu --sizes 4Ki --trials 2 --warmup 1 --quiet ||
    bad "installed streamlab run --device cpu failed (see $log)"
ok "installed streamlab: '$v', --help, a CPU run"

# ---- pkg-config: shared and static ------------------------------------------------
no_streamlab_needed() { # no_streamlab_needed BINARY: fails if it needs libstreamlab.so
    command -v readelf >/dev/null 2>&1 || return 0
    ! readelf -d "$1" | grep -q 'NEEDED.*libstreamlab'
}
run_example() { # run_example NAME BINARY [ENV...]
    name=$1 bin=$2
    shift 2
    if out=$(env "$@" "$bin" 2>&1); then
        ok "$name: $(echo "$out" | tail -n 1)"
    else
        bad "$name: $bin failed:"
        echo "$out" >&2
    fi
}

# The plain command line: -lstreamlab and nothing else.
mkdir -p "$work/pc"
# shellcheck disable=SC2046
if logged "$cc" -o "$work/pc/add_dot_plain" "$src/examples/add_dot.c" \
       $(pkg-config --cflags --libs streamlab); then
    run_example "pkg-config shared (cc add_dot.c \$(pkg-config --cflags --libs streamlab))" \
        "$work/pc/add_dot_plain" LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    bad "cc add_dot.c \$(pkg-config --cflags --libs streamlab) failed (see $log)"
fi
# examples/Makefile: shared with an rpath, and static.
if logged make -C "$work/pc" -f "$src/examples/Makefile" CC="$cc" CFLAGS="-O2 -Wall -Wextra -Werror"; then
    run_example "examples/Makefile add_dot (shared, rpath)" "$work/pc/add_dot"
    run_example "examples/Makefile add_dot_static (pkg-config --static)" "$work/pc/add_dot_static"
    no_streamlab_needed "$work/pc/add_dot_static" || bad "add_dot_static needs libstreamlab.so"
else
    bad "make -f examples/Makefile failed (see $log)"
fi

# ---- CMake: find_package(streamlab CONFIG) -----------------------------------------
if logged "$cmake" -S "$src/examples" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
       -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" &&
   logged "$cmake" --build "$work/cmake"; then
    found=$(sed -n 's/^streamlab_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
    case $found in
        "$prefix"/*) ok "find_package(streamlab) found $found" ;;
        *) bad "find_package(streamlab) found '$found', not the scratch install" ;;
    esac
    run_example "CMake streamlab::streamlab (shared)" "$work/cmake/add_dot"
    run_example "CMake streamlab::streamlab_static" "$work/cmake/add_dot_static"
    no_streamlab_needed "$work/cmake/add_dot_static" || bad "CMake add_dot_static needs libstreamlab.so"
else
    bad "the CMake build of examples/ against the install failed (see $log)"
fi

# ---- the tree moves: pkg-config's prefix follows streamlab.pc ----------------------------
mv "$prefix" "$work/moved"
moved_libdir=$work/moved${libdir#"$prefix"}
export PKG_CONFIG_PATH="$moved_libdir/pkgconfig"
# shellcheck disable=SC2046
if logged "$cc" -o "$work/pc/add_dot_moved" "$src/examples/add_dot.c" $(pkg-config --cflags --libs streamlab); then
    run_example "moved install, pkg-config shared" "$work/pc/add_dot_moved" LD_LIBRARY_PATH="$moved_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    bad "building against the moved install failed (see $log)"
fi
v=$("$work/moved/bin/streamlab" version 2>&1) && [ "$v" = "streamlab $version" ] &&
    ok "moved install, streamlab version: $v" || bad "moved install: streamlab version says '$v'"

if [ $fails -ne 0 ]; then
    echo "test_install: $fails check(s) failed; log: $log" >&2
    tail -n 30 "$log" >&2
    exit 1
fi
echo "test_install: install, pkg-config (shared, static), find_package (shared, static): all pass"
