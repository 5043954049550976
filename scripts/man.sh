#!/bin/sh
# scripts/man.sh - streamlab's man page, written from the binary's own help,
# so that the two cannot drift apart. POSIX sh and awk; the build runs it
# (cmake/install.cmake) after linking the CLI.
#
#   sh scripts/man.sh STREAMLAB OUT.1          write the page (roff, man macros)
#   sh scripts/man.sh --check STREAMLAB PAGE   check a page against the binary
#
# The page: NAME and DESCRIPTION from `streamlab --help`, SYNOPSIS from the
# usage line of `streamlab help <command>` for each command, COMMANDS with
# one subsection per command holding its help (paragraphs as text, the
# indented "term  description" lines as tagged paragraphs), EXIT STATUS from
# the "exit codes:" block of --help.
#
# --check fails (exit 1) if a command has no subsection, if a long option
# that a command's help prints is missing from the page, or, where groff or
# man is installed, if rendering the page gives any warning.
# SOURCE_DATE_EPOCH, if set, dates the page (reproducible builds).
set -eu

COMMANDS="run list info probe explain"

die() { echo "man.sh: $*" >&2; exit 1; }

# The roff conversion. Input: one help text. Variables: part = "name",
# "description", "usage", "body" or "exit" picks what is written.
AWK_PROG='
function esc(s,    out, i, c, prev, inopt) {
    # Backslashes become \e; a dash that starts a word (an option, or a
    # minus sign) and the dashes of the rest of that option become \-, so
    # they render as ASCII hyphen-minus; other dashes stay hyphens.
    out = ""; prev = " "; inopt = 0
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "-" && (inopt || index(" \t([`\"/|,={" sq, prev) > 0)) {
            out = out "\\-"; inopt = 1
        } else {
            if (!(c ~ /[A-Za-z0-9_]/)) inopt = 0
            out = out (c == "\\" ? "\\e" : c)
        }
        prev = c
    }
    return out
}
function line(s) {
    # A text line must not start with a control character.
    if (substr(s, 1, 1) == "." || substr(s, 1, 1) == sq) s = "\\&" s
    print s
}
function bold(s) { return "\\fB" esc(s) "\\fR" }
function ital(s) { return "\\fI" esc(s) "\\fR" }
function token(t,    pre, post) {
    # [--device N|cpu] -> [\fB\-\-device\fR \fIN|cpu\fR]; <command> -> \fIcommand\fR
    pre = ""; post = ""
    while (t ~ /^[[(]/) { pre = pre substr(t, 1, 1); t = substr(t, 2) }
    while (t ~ /[])]$/ && length(t) > 1) { post = substr(t, length(t), 1) post; t = substr(t, 1, length(t) - 1) }
    if (t ~ /^-/) {
        if (t ~ /,$/) return pre bold(substr(t, 1, length(t) - 1)) "," post
        return pre bold(t) post
    }
    if (t ~ /^<.*>$/) t = substr(t, 2, length(t) - 2)
    if (t == "" || t == "|" || t == "...") return pre esc(t) post
    return pre ital(t) post
}
function term(t,    n, w, i, s) {
    # An option list ("-h, --help", "--op NAME|LIST|all") is formatted word
    # by word; any other term (an op, a probe, a command) is bold.
    if (t !~ /^-/) return bold(t)
    n = split(t, w, " ")
    s = token(w[1])
    for (i = 2; i <= n; i++) s = s " " token(w[i])
    return s
}
function usage(u,    n, w, i, s) {
    # "usage: streamlab run [options]" -> \fBstreamlab run\fR [\fIoptions\fR]
    sub(/^usage: */, "", u)
    n = split(u, w, " ")
    s = bold(w[1])
    i = 2
    if (n >= 2 && w[2] ~ /^[a-z]+$/) { s = bold(w[1] " " w[2]); i = 3 }
    for (; i <= n; i++) s = s " " token(w[i])
    return s
}
function columns(d) {
    # Columns inside a description ("c = a      STREAM ...") -> " \(em ".
    gsub(/   */, " \\(em ", d)
    return d
}
function flush_item() {
    if (item_term != "") {
        print ".TP"
        line(term(item_term))
        if (item_desc != "") line(columns(esc(item_desc)))
        item_term = ""; item_desc = ""
        need_pp = 1
    }
}
function para() {
    if (need_pp) { print ".PP"; need_pp = 0 }
}

NR == 1 && /^usage:/ {
    if (part == "usage") { line(usage($0)); exit }
    next
}
part == "usage" { next }

part == "name" {
    # The first line of the first paragraph, up to its colon or full stop.
    if ($0 ~ /^[ \t]*$/) { if (started) exit; next }
    started = 1
    s = $0
    if (match(s, /[:.]/)) s = substr(s, 1, RSTART - 1)
    s = tolower(substr(s, 1, 1)) substr(s, 2)
    line(esc(s))
    exit
}

part == "description" {
    # Everything of --help but the usage line and the exit codes.
    if ($0 ~ /^exit codes:/) exit
}
part == "exit" {
    if ($0 ~ /^exit codes:/) { grab = 1; sub(/^exit codes: */, "") }
    if (grab) { t = $0; sub(/^[ \t]+/, "", t); codes = codes (codes == "" ? "" : " ") t }
    next
}

{
    if ($0 ~ /^[ \t]*$/) { flush_item(); need_pp = 1; next }
    if ($0 ~ /^[A-Za-z][A-Za-z -]*:$/) {
        flush_item(); print ".PP"; need_pp = 0; line(bold($0)); need_pp = 1; next
    }
    if ($0 ~ /^  [^ ]/) {
        flush_item(); need_pp = 0
        t = substr($0, 3)
        if (match(t, /   *[^ ]/)) {
            item_term = substr(t, 1, RSTART - 1)
            item_desc = substr(t, RSTART + RLENGTH - 1)
        } else {
            item_term = t; item_desc = ""
        }
        next
    }
    if ($0 ~ /^   / && item_term != "") {
        t = $0; sub(/^ +/, "", t)
        item_desc = item_desc (item_desc == "" ? "" : " ") t
        next
    }
    flush_item()
    if ($0 ~ /^exit codes:/) need_pp = 1
    para()
    t = $0; sub(/^ +/, "", t)
    line(esc(t))
}

END {
    flush_item()
    if (part == "exit") {
        # "0 ok, 1 a run failed (wrong result, ...), 2 usage error, 130 interrupted":
        # split at ", <digits> " outside parentheses.
        depth = 0; cur = ""
        for (i = 1; i <= length(codes); i++) {
            c = substr(codes, i, 1)
            if (c == "(") depth++
            if (c == ")") depth--
            if (c == "," && depth == 0 && substr(codes, i + 1) ~ /^ [0-9]+ /) {
                entry[++n] = cur; cur = ""; i++; continue
            }
            cur = cur c
        }
        if (cur != "") entry[++n] = cur
        for (k = 1; k <= n; k++) {
            e = entry[k]; sub(/^ +/, "", e)
            code = e; sub(/ .*/, "", code)
            text = e; sub(/^[^ ]* */, "", text)
            print ".TP"
            line(bold(code))
            line(esc(text))
        }
    }
}
'

help_of() { # help_of BIN [COMMAND]
    if [ $# -eq 1 ]; then "$1" --help; else "$1" help "$2"; fi
}

generate() {
    bin=$1 out=$2
    [ -x "$bin" ] || die "no executable '$bin'"
    version=$("$bin" version | awk '{ print $NF }') || die "'$bin version' failed"
    if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
        date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d 2>/dev/null ||
               date -u -r "$SOURCE_DATE_EPOCH" +%Y-%m-%d)
    else
        date=$(date -u +%Y-%m-%d)
    fi
    main=$(help_of "$bin") || die "'$bin --help' failed"
    tmp="$out.tmp.$$"
    trap 'rm -f "$tmp"' EXIT
    {
        printf '%s\n' ".\\\" streamlab.1 - generated by scripts/man.sh from 'streamlab --help' and" \
                      ".\\\" 'streamlab help <command>'. Do not edit: change the help text instead."
        echo ".TH STREAMLAB 1 \"$date\" \"streamlab $version\" \"User Commands\""
        echo ".nh"
        echo ".ad l"
        echo ".SH NAME"
        printf 'streamlab \\- %s\n' "$(printf '%s\n' "$main" | awk -v sq="'" -v part=name "$AWK_PROG")"
        echo ".SH SYNOPSIS"
        printf '%s\n' "$main" | awk -v sq="'" -v part=usage "$AWK_PROG"
        for c in $COMMANDS; do
            echo ".br"
            help_of "$bin" "$c" | awk -v sq="'" -v part=usage "$AWK_PROG"
        done
        echo ".SH DESCRIPTION"
        printf '%s\n' "$main" | awk -v sq="'" -v part=description "$AWK_PROG"
        echo ".SH COMMANDS"
        for c in $COMMANDS; do
            h=$(help_of "$bin" "$c") || die "'$bin help $c' failed"
            echo ".SS $c"
            printf '%s\n' "$h" | awk -v sq="'" -v part=usage "$AWK_PROG"
            printf '%s\n' "$h" | awk -v sq="'" -v part=body "$AWK_PROG"
        done
        echo ".SH EXIT STATUS"
        printf '%s\n' "$main" | awk -v sq="'" -v part=exit "$AWK_PROG"
        echo ".SH SEE ALSO"
        echo "The README and docs/ of the streamlab sources: the model (docs/model.md),"
        echo "the probes (docs/probes.md) and the kernel ladders (docs/ladder.md)."
    } > "$tmp"
    mv "$tmp" "$out"
    trap - EXIT
}

check() {
    bin=$1 page=$2
    [ -f "$page" ] || die "no page '$page'"
    fail=0
    head -n 5 "$page" | grep -q '^\.TH STREAMLAB 1 ' || { echo "man.sh: $page: no .TH line" >&2; fail=1; }
    for s in NAME SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS"; do
        grep -qx "\\.SH $s" "$page" || { echo "man.sh: $page: no section $s" >&2; fail=1; }
    done
    for c in $COMMANDS; do
        grep -qx "\\.SS $c" "$page" || { echo "man.sh: $page: no subsection for '$c'" >&2; fail=1; }
        # Every long option the command prints, in the page's \-\- spelling.
        for o in $(help_of "$bin" "$c" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
            roff=$(printf '%s' "$o" | sed 's/-/\\-/g')
            grep -qF -- "$roff" "$page" ||
                { echo "man.sh: $page: '$c' prints $o, the page lacks it" >&2; fail=1; }
        done
    done
    # Render it: any warning (bad macro, unknown escape, overlong line) fails.
    if command -v groff >/dev/null 2>&1; then
        warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1) || warn="$warn (groff failed)"
        renderer=groff
    elif command -v man >/dev/null 2>&1; then
        warn=$(MANPAGER=cat MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null) || warn="$warn (man failed)"
        renderer=man
    else
        warn="" renderer=""
        echo "man.sh: neither groff nor man here: page not rendered" >&2
    fi
    if [ -n "$warn" ]; then
        echo "man.sh: $renderer warns about $page:" >&2
        printf '%s\n' "$warn" >&2
        fail=1
    fi
    [ $fail = 0 ] || exit 1
    echo "man.sh: $page: every command and long option of the help is there${renderer:+; $renderer renders it without warnings}"
}

if [ "${1:-}" = "--check" ]; then
    [ $# -eq 3 ] || die "usage: man.sh --check STREAMLAB PAGE"
    check "$2" "$3"
else
    [ $# -eq 2 ] || die "usage: man.sh STREAMLAB OUT.1 | man.sh --check STREAMLAB PAGE"
    generate "$1" "$2"
fi
