#!/usr/bin/env bash
# run-suite.sh NAME TEST...
#
# Each TEST is a command line (a program and its arguments), perhaps after
# VAR=VALUE words (VALUE may be in single quotes): its environment, left
# out of the PASS line. Runs cmocka test binaries and TAP scripts, shows
# the log of anything that failed (with its whole command line), each
# test's wall-clock seconds, and ends with one line
# "NAME: N passed, N failed[, N skipped]".
# Exit status is non-zero when any test failed or any program crashed.
set -u

name=$1
shift
passed=0
failed=0
skipped=0
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

assign="^[A-Za-z_][A-Za-z0-9_]*=('[^']*'|[^ ']*) +(.*)$"
for t in "$@"; do
	cmd=$t
	while [[ $cmd =~ $assign ]]; do
		cmd=${BASH_REMATCH[2]}
	done
	prog=${cmd%% *}
	log="$logdir/$(basename "$prog").log"
	start=$SECONDS
	bash -c "$t" >"$log" 2>&1
	rc=$?
	secs=$((SECONDS - start))
	if grep -q '^\[==========\]' "$log"; then
		# cmocka: every test prints "[ RUN      ]", passing ones "[       OK ]"
		run=$(grep -c '^\[ RUN      \]' "$log")
		ok=$(grep -c '^\[       OK \]' "$log")
		# a skipped test is named twice (when it runs, and listed at
		# the end): the summary line counts them
		skip=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:$/\1/p' \
			"$log" | tail -n 1)
		skip=${skip:-0}
		bad=$((run - ok - skip))
	else
		# TAP: "ok N ...", "not ok N ...", "ok N # SKIP ..."
		skip=$(grep -cE '^ok [0-9]+.*# SKIP' "$log")
		ok=$(($(grep -cE '^ok [0-9]+' "$log") - skip))
		bad=$(grep -cE '^not ok [0-9]+' "$log")
	fi
	# A program that died without reporting a failed test still failed.
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + skip))
	if [ "$bad" -ne 0 ]; then
		echo "FAIL $t (exit $rc, $secs s):"
		sed 's/^/    /' "$log"
	else
		extra=""
		[ "$skip" -gt 0 ] && extra=", $skip skipped"
		echo "PASS $cmd ($ok passed$extra, $secs s)"
	fi
done

line="$name: $passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
