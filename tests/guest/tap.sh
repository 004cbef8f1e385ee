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
