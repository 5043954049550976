# tests/cli_common.sh - sourced by the CLI test scripts (test_cli_files.sh,
# test_cli_hostile.sh), which set SL (the streamlab binary) first:
#   fail MESSAGE                 count a failure and say it
#   check DESCRIPTION CMD...     CMD must succeed
#   expect CODE PATTERN -- ARGS...       exit code, and PATTERN (a basic regular
#                                expression; empty: none) in stdout+stderr
#   expect_text CODE TEXT -- ARGS...     the same with a fixed string
# Every command runs under a time limit: a hang is a failure, not a stuck CI.
fails=0
checks=0

fail() {
    echo "FAILED: $*"
    fails=$((fails + 1))
}

check() {
    what=$1
    shift
    checks=$((checks + 1))
    "$@" || fail "$what"
}

# expect_with GREP-FLAGS CODE PATTERN -- ARGS...
expect_with() {
    flags=$1
    code=$2
    pattern=$3
    shift 4
    checks=$((checks + 1))
    out=$(timeout 120 "$SL" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        fail "streamlab $* exited $rc, want $code; output:"
        echo "$out" | head -20
    elif [ -n "$pattern" ] && ! printf '%s' "$out" | grep $flags -- "$pattern"; then
        fail "streamlab $*: output lacks '$pattern':"
        echo "$out" | head -20
    fi
}

expect() { expect_with -q "$@"; }
expect_text() { expect_with -qF "$@"; }
