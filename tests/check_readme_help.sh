#!/bin/sh
# The README's "## Commands" synopsis and exit-code table against what each
# command's --help prints: every option, short alias and exit code on one
# side must be on the other. Usage: check_readme_help.sh README STREAMLAB
set -u
README=$1
SL=$2
T=${TMPDIR:-/tmp}/check_readme_help.$$
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
fails=0

# The synopsis: the first code block after "## Commands".
awk '/^## Commands/ { c = 1; next } c && /^```/ { if (in_block) exit; in_block = 1; next } in_block' "$README" \
    > "$T/synopsis"
if [ ! -s "$T/synopsis" ]; then
    echo "FAILED: $README has no code block under '## Commands'"
    exit 1
fi
# The exit-code table: "| code | meaning | commands |" rows under "### Exit codes".
awk '/^### Exit codes/ { c = 1; next } c && /^#/ { exit } c && /^\| *[0-9]+ *\|/' "$README" > "$T/codes"

for cmd in run list info probe explain report; do
    "$SL" help "$cmd" > "$T/help" 2>&1 || { echo "FAILED: streamlab help $cmd exited $?"; fails=$((fails + 1)); continue; }
    # This command's synopsis lines: from "streamlab CMD" to the next "streamlab ".
    awk -v cmd="$cmd" '$1 == "streamlab" { on = ($2 == cmd) } on' "$T/synopsis" > "$T/syn"
    grep -o -- '--[a-z][a-z0-9-]*' "$T/help" | grep -vx -- '--help' | sort -u > "$T/help.long"
    grep -o -- '--[a-z][a-z0-9-]*' "$T/syn" | sort -u > "$T/readme.long"
    # Short aliases: "-x, --name" in the help, "-x|--name" in the README.
    grep -o -- '-[a-z], --[a-z][a-z0-9-]*' "$T/help" | sed 's/, /|/' | grep -v -- '-h|--help' | sort -u > "$T/help.short"
    grep -o -- '-[a-z]|--[a-z][a-z0-9-]*' "$T/syn" | sort -u > "$T/readme.short"
    for kind in long short; do
        if ! cmp -s "$T/help.$kind" "$T/readme.$kind"; then
            echo "FAILED: $cmd: options in --help (<) and the README synopsis (>) differ:"
            diff "$T/help.$kind" "$T/readme.$kind" | grep '^[<>]'
            fails=$((fails + 1))
        fi
    done
    # Exit codes: the numbers of the help's "exit codes:" paragraph, and the
    # README table's rows whose commands column names this command or "all".
    awk '/exit codes?:/ { on = 1 } on && /^$/ { exit } on' "$T/help" | tr '\n' ' ' |
        grep -o -- '\(codes\?:\|,\) *[0-9][0-9]* ' | grep -o '[0-9][0-9]*' | sort -un > "$T/help.codes"
    awk -F'|' -v cmd="$cmd" '{ n = split($4, w, /[ ,]+/); for (i = 1; i <= n; i++) if (w[i] == cmd || w[i] == "all") { gsub(/ /, "", $2); print $2 } }' \
        "$T/codes" | sort -un > "$T/readme.codes"
    if [ ! -s "$T/help.codes" ]; then
        echo "FAILED: streamlab help $cmd has no 'exit codes:' paragraph"
        fails=$((fails + 1))
    elif ! cmp -s "$T/help.codes" "$T/readme.codes"; then
        echo "FAILED: $cmd: exit codes in --help ($(tr '\n' ' ' < "$T/help.codes")) and the README table ($(tr '\n' ' ' < "$T/readme.codes")) differ"
        fails=$((fails + 1))
    fi
done
if [ $fails -ne 0 ]; then
    echo "check_readme_help: $fails difference(s): update the README's Commands section or the --help text"
    exit 1
fi
echo "check_readme_help: the README's synopsis and exit codes match every command's --help"
