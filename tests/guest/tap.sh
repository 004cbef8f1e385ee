# shellcheck shell=bash
# tap.sh - TAP lines and their counters, shared by the guest test runners
# (sourced). The runner prints "1..$n" and "$passed passed, $failed
# failed" at the end and exits non-zero when $failed is not 0.

passed=0
failed=0
n=0

ok() { n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $1"; }

# not_ok DESCRIPTION [DETAIL...]: each detail becomes a "# " line
not_ok() {
	local line

	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for line in "$@"; do echo "# $line"; done
}

# tap_guard LOG: from here on an exit before tap_end (a die in a sourced
# helper, say) still ends the TAP: a "not ok" naming the exit status with
# the last lines of LOG (where the runner sends its setup's stderr), the
# plan and the summary, so that a CI log names why the run stopped.
tap_guard() {
	tap_log=$1
	tap_ended=0
	trap 'tap_guard_exit $?' EXIT
}

tap_guard_exit() {
	local lines=()

	[ "$tap_ended" = 0 ] || return 0
	mapfile -t lines < <(tail -n 12 "$tap_log" 2>/dev/null)
	not_ok "the run ended early (exit $1), last lines of $tap_log:" \
	    ${lines[@]+"${lines[@]}"}
	echo "1..$n"
	echo "$passed passed, $failed failed"
}

# The runner's summary follows: an exit from here on is no early end.
tap_end() { tap_ended=1; }
