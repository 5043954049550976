# bench/_help.sh - sourced first by bench/'s device scripts (bash), before
# any work: `--help` or `-h` prints the script's header comment (what it
# runs, its environment options, the device call that runs it) and exits 0;
# any other argument is a usage error (exit 2), since these scripts take
# their options from the environment. So a newcomer's
# `bash bench/x.sh --help` never starts a build or a device job.
#   . "$(dirname "${BASH_SOURCE[0]}")/_help.sh"   # at the top, after the comment
# SL_ARGS_MAX=N before it lets N positional arguments through (ncu_check.sh
# takes its build folder); options (-x, --x) are still refused.
_sl_header() { awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$1"; }
_sl_self=${BASH_SOURCE[1]:-$0} # the script that sourced this file
case "${1:-}" in
    -h | --help)
        _sl_header "$_sl_self"
        exit 0
        ;;
esac
if [ $# -gt "${SL_ARGS_MAX:-0}" ] || case "${1:-}" in -*) true ;; *) false ;; esac; then
    echo "$(basename "$_sl_self"): unexpected argument(s): $* (its options are environment variables; --help lists them)" >&2
    _sl_header "$_sl_self" | head -12 >&2
    exit 2
fi
