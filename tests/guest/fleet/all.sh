#!/bin/bash
# Runs the fleet suites (run.sh: issue 6; sig.sh, apt.sh: issue 11;
# uefi.sh: issue 12; uki.sh: issue 34; export.sh: issue 15) one after the other, each printing its own TAP, and
# ends with one summary:
# the suites that failed and their "not ok" lines with details, so that
# the tail of a CI log names what failed however long the output above.
#
#   tests/guest/fleet/all.sh [SUITE...]     (default: run sig apt uefi uki export)
set -uo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out=$(mktemp -d /tmp/imatrust-fleet-all.XXXXXX)
trap 'rm -rf "$out"' EXIT
[ $# -gt 0 ] || set -- run sig apt uefi uki export

rc=0
for suite in "$@"; do
	"$dir/$suite.sh" | tee "$out/$suite.tap"
	st=${PIPESTATUS[0]}
	[ "$st" = 0 ] || rc=1
	echo "$st" >"$out/$suite.rc"
done

echo "# fleet suites:"
for suite in "$@"; do
	st=$(cat "$out/$suite.rc")
	if [ "$st" = 0 ]; then
		echo "#   $suite.sh: passed ($(tail -n 1 "$out/$suite.tap"))"
		continue
	fi
	echo "#   $suite.sh: FAILED, exit $st ($(tail -n 1 "$out/$suite.tap"))"
	# each "not ok" line with the "# " detail lines that follow it
	awk '/^not ok / { p = 1; print "#     " $0; next }
	     p && /^# / { print "#     " $0; next }
	     { p = 0 }' "$out/$suite.tap"
done
exit $rc
