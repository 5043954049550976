#!/bin/sh
# streamlab report in a real browser: the page of a fresh CPU run, the
# committed H200 results and the H200 probe profile is loaded by headless
# Chromium, which must log nothing to the console (the page logs nothing
# itself, so any console line is an error: a script error, a resource that
# failed to load) and must lay out every figure (the page's own load
# handler marks each figure whose SVG rendered with a size and content);
# then it is rendered to a PNG. Skips (77) where Chromium or gnuplot is
# absent. Usage: test_report_browser.sh STREAMLAB SOURCE_DIR WORK_DIR
set -u
SL=$1
SRC=$2
T=$3
rm -rf "$T" && mkdir -p "$T" || exit 1
fails=0
fail() { echo "FAILED: $*"; fails=$((fails + 1)); }
CHROME=${CHROMIUM:-}
if [ -z "$CHROME" ]; then
    for c in chromium chromium-browser chromium-headless-shell google-chrome; do
        command -v "$c" >/dev/null 2>&1 && { CHROME=$(command -v "$c"); break; }
    done
fi
if [ -z "$CHROME" ]; then
    echo "SKIP: Chromium is not installed (Debian: apt-get install chromium; scripts/deps.sh installs it)"
    exit 77
fi
if ! command -v gnuplot >/dev/null 2>&1 && [ -z "${STREAMLAB_GNUPLOT:-}" ]; then
    echo "SKIP: gnuplot is not installed (scripts/deps.sh installs gnuplot-nox)"
    exit 77
fi
# Chromium wants a writable home and profile; root needs --no-sandbox.
export HOME="$T/home"
mkdir -p "$HOME"
chrome() {
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 --virtual-time-budget=10000 "$@"
}
console_lines() { grep -a 'CONSOLE' "$1"; }

# The console check must see an error where there is one.
printf '<!DOCTYPE html><html><body><p>x</p><script>no_such_function();</script></body></html>\n' > "$T/bad.html"
chrome --dump-dom "file://$T/bad.html" > "$T/bad.dom" 2> "$T/bad.err"
console_lines "$T/bad.err" > /dev/null || fail "the console check saw no error on a page with a script error: $(tail -3 "$T/bad.err")"

"$SL" run --devices cpu --sizes 100000,1M --trials 3 --warmup 1 --json "$T/cpu.json" --quiet || fail "run exited $?"
"$SL" report "$T/cpu.json" "$SRC/bench/results/h200-ladders-2026-11-22-add.json" \
    "$SRC/profiles/NVIDIA-H200.profile.json" -o "$T/report.html" > /dev/null || fail "report exited $?"
want=$(sed -n 's/.*<meta name="streamlab-figures" content="\([0-9]*\)".*/\1/p' "$T/report.html")
[ -n "$want" ] && [ "$want" -gt 0 ] || fail "the page declares no figures"

chrome --dump-dom "file://$T/report.html" > "$T/report.dom" 2> "$T/report.err"
if console_lines "$T/report.err" > "$T/console"; then
    fail "the browser console logged:"
    cat "$T/console"
fi
got=$(sed -n 's/.*data-figures-rendered="\([0-9]*\)".*/\1/p' "$T/report.dom" | head -1)
[ "$got" = "$want" ] || fail "Chromium rendered ${got:-no} of $want figures"
for id in $(grep -o '<figure class="plot" id="[^"]*"' "$T/report.html" | sed 's/.*id="\([^"]*\)"/\1/'); do
    grep -q "id=\"$id\"[^>]*data-rendered=\"[0-9]*x[0-9]*\"" "$T/report.dom" || fail "figure $id did not render"
done

chrome --hide-scrollbars --window-size=1200,4000 --screenshot="$T/report.png" "file://$T/report.html" \
    > /dev/null 2> "$T/shot.err"
if [ ! -s "$T/report.png" ]; then
    fail "no screenshot: $(tail -3 "$T/shot.err")"
else
    magic=$(od -An -tx1 -N8 "$T/report.png" | tr -d ' \n')
    [ "$magic" = "89504e470d0a1a0a" ] || fail "the screenshot is not a PNG ($magic)"
    size=$(wc -c < "$T/report.png")
    [ "$size" -gt 20000 ] || fail "the screenshot is only $size bytes"
fi
if [ $fails -ne 0 ]; then
    echo "test_report_browser: $fails failure(s)"
    exit 1
fi
echo "test_report_browser: Chromium ($("$CHROME" --version 2>/dev/null | head -1)) rendered all $want figures, no console output; $T/report.png"
