#!/bin/sh
# The layering of src/ (docs/architecture.md), checked from the #include
# lines: the core includes nothing above it; the backends nothing of the
# lab or the ops; the ops nothing of the lab; and no header includes,
# directly or through others, itself. Usage: check_layers.sh SRC_DIR
set -u
SRC=${1:-src}
fails=0
# headers by layer (bare names: the build puts each folder on the include path)
names() { find "$@" -maxdepth 2 \( -name '*.h' -o -name '*.cuh' \) -exec basename {} \; 2>/dev/null | sort -u; }
LAB=$(names "$SRC/lab" "$SRC/lab/probes" "$SRC/lab/results")
BACKEND=$(names "$SRC/cuda" "$SRC/cpu")
OPS=$(find "$SRC/ops" \( -name '*.h' -o -name '*.cuh' \) -exec basename {} \; | grep -v '^api\.h$' | sort -u)

# forbid FILES... -- HEADERS: no file may include any of the headers
forbid() {
    what=$1; files=$2; headers=$3
    for f in $files; do
        for h in $headers; do
            if grep -qE "^#include \"([^\"]*/)?$h\"" "$f"; then
                echo "FAILED: $f includes $h ($what)"; fails=$((fails + 1))
            fi
        done
    done
}
CORE_FILES=$(find "$SRC/core" -type f)
BACKEND_FILES=$(find "$SRC/cuda" "$SRC/cpu" -type f)
OPS_FILES=$(find "$SRC/ops" -type f)
forbid "the core includes nothing of the backends" "$CORE_FILES" "$BACKEND"
forbid "the core includes nothing of the lab" "$CORE_FILES" "$LAB"
forbid "the core includes nothing of the ops" "$CORE_FILES" "$OPS"
forbid "the backends include nothing of the lab" "$BACKEND_FILES" "$LAB"
forbid "the backends include nothing of the ops" "$BACKEND_FILES" "$OPS"
forbid "the ops include nothing of the lab" "$OPS_FILES" "$LAB"

# no include cycle among the project's headers: a depth-first walk
ALL=$(find "$SRC" \( -name '*.h' -o -name '*.cuh' -o -name '*.def' \))
edges=$(for f in $ALL; do
    b=$(basename "$f")
    grep -oE '^#include "[^"]+"' "$f" | sed -E 's/^#include "([^"]*\/)?([^"]+)"/\2/' | while read -r h; do
        echo "$b $h"
    done
done)
cycle=$(printf '%s\n' "$edges" | awk '
    { if ($1 != $2) { adj[$1] = adj[$1] " " $2 } else { self = $1 } }
    function visit(n,   i, k, parts) {
        if (state[n] == 1) { found = found " " n; return }
        if (state[n] == 2) return
        state[n] = 1
        k = split(adj[n], parts, " ")
        for (i = 1; i <= k; i++) visit(parts[i])
        state[n] = 2
    }
    END { if (self != "") print self; for (n in adj) visit(n); if (found != "") print found }')
if [ -n "$cycle" ]; then
    echo "FAILED: an include cycle through:$cycle"; fails=$((fails + 1))
fi
if [ $fails -ne 0 ]; then
    echo "check_layers: $fails violations"
    exit 1
fi
echo "check_layers: the core includes no backend, op or lab header; no include cycle"
