#!/usr/bin/env bash
# run-suite.sh NAME TEST...
#
# Each TEST is a command line (a program and its arguments), perhaps after
# VAR=VALUE words (VALUE may be in single quotes): its environment, left
# out of the PASS line. Runs cmocka test binaries and TAP scripts, shows
# the log of anything that failed (with its whole command line), each
# test's wall-clock seconds, and ends with the slowest test, the scripts
# skipped whole (by name, with their reason) and one line
# "NAME: N passed, N failed[, N skipped]".
#
# A TAP script must print exactly one plan ("1..N", before or after its
# tests) and exactly N "ok"/"not ok" lines: no plan, two plans or another
# count is a failure, so a script that dies half way or never reaches its
# checks cannot pass. "1..0 # SKIP why" skips the whole script.
#
# Strict mode (CI=true, or IMATRUST_STRICT=1 as "make check" sets): any
# skip -- a whole script, a TAP "# SKIP" test or a cmocka skip() -- is a
# failure. A skip says which Debian package is missing (tests/lib/need.sh);
# skipping is for the inner loop only ("make check-fast" outside CI).
#
# Exit status is non-zero when any test failed or any program crashed.
set -u

name=$1
shift
passed=0
failed=0
skipped=0
slowest=""
slowest_secs=-1
whole_skips=()
strict=0
if [ "${CI:-}" = true ] || [ "${IMATRUST_STRICT:-0}" = 1 ]; then
	strict=1
fi
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# cmocka: every test prints "[ RUN      ]", passing ones "[       OK ]";
# a skipped test is named twice (when it runs, and listed at the end):
# the summary line counts them. Sets ok, bad, skip, why.
count_cmocka() {
	local log=$1 run

	run=$(grep -c '^\[ RUN      \]' "$log")
	ok=$(grep -c '^\[       OK \]' "$log")
	skip=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test(s), listed below:$/\1/p' \
		"$log" | awk '{ n += $1 } END { print n + 0 }')
	bad=$((run - ok - skip))
	why="cmocka skip(): $(sed -n 's/^\[  SKIPPED \] \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' \
		"$log" | sort -u | tr '\n' ' ')"
}

# TAP: "ok N ...", "not ok N ...", "ok N # SKIP ...", one plan "1..N".
# Sets ok, bad, skip, why, whole (1 for "1..0 # SKIP"), and plan_error.
count_tap() {
	local log=$1 plans plan ran

	whole=0
	plan_error=""
	why=""
	skip=$(grep -cE '^ok( [0-9]+)?( .*)?# *SKIP' "$log")
	ran=$(grep -cE '^(not )?ok( |$)' "$log")
	ok=$(($(grep -cE '^ok( |$)' "$log") - skip))
	bad=$(grep -cE '^not ok( |$)' "$log")
	plans=$(grep -cE '^1\.\.[0-9]+' "$log")
	if [ "$plans" -ne 1 ]; then
		plan_error="$plans TAP plans (1..N), wanted one"
		return
	fi
	plan=$(sed -nE 's/^1\.\.([0-9]+).*/\1/p' "$log")
	if [ "$plan" -eq 0 ] && [ "$ran" -eq 0 ]; then
		why=$(sed -nE 's/^1\.\.0 *# *SKIP:? *(.*)/\1/p' "$log")
		if [ -z "$why" ]; then
			plan_error="plan 1..0 without a # SKIP reason"
			return
		fi
		whole=1
		skip=1
		return
	fi
	if [ "$plan" -ne "$ran" ]; then
		plan_error="planned $plan tests, ran $ran"
	fi
	[ "$skip" -gt 0 ] && why=$(grep -E '^ok( [0-9]+)?( .*)?# *SKIP' "$log" |
		sed -E 's/.*# *SKIP:? *//' | head -n 1)
}

run_one() {
	local t=$1 cmd prog log start rc secs extra

	cmd=$t
	while [[ $cmd =~ $assign ]]; do
		cmd=${BASH_REMATCH[2]}
	done
	prog=${cmd%% *}
	log="$logdir/$(basename "$prog").log"
	start=$SECONDS
	bash -c "$t" >"$log" 2>&1 </dev/null
	rc=$?
	secs=$((SECONDS - start))
	whole=0
	plan_error=""
	if grep -q '^\[==========\]' "$log"; then
		count_cmocka "$log"
	else
		count_tap "$log"
	fi
	[ -n "$plan_error" ] && bad=$((bad + 1))
	# A program that died without reporting a failed test still failed.
	if [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; then
		bad=1
	fi
	if [ "$strict" -eq 1 ] && [ "$skip" -gt 0 ]; then
		plan_error="${plan_error:+$plan_error; }$skip skipped in strict mode"
		plan_error+=" (CI=true or make check): $why"
		bad=$((bad + skip))
		skip=0
	fi
	passed=$((passed + ok))
	failed=$((failed + bad))
	skipped=$((skipped + skip))
	if [ "$secs" -gt "$slowest_secs" ]; then
		slowest_secs=$secs
		slowest=$cmd
	fi
	if [ "$bad" -ne 0 ]; then
		echo "FAIL $t (exit $rc, $secs s)${plan_error:+: $plan_error}:"
		sed 's/^/    /' "$log"
	elif [ "$whole" -eq 1 ]; then
		echo "SKIP $cmd (skipped whole: $why)"
		whole_skips+=("$cmd: $why")
	else
		extra=""
		[ "$skip" -gt 0 ] && extra=", $skip skipped"
		echo "PASS $cmd ($ok passed$extra, $secs s)"
	fi
}

assign="^[A-Za-z_][A-Za-z0-9_]*=('[^']*'|[^ ']*) +(.*)$"
for t in "$@"; do
	run_one "$t"
done

if [ "$#" -eq 0 ] || [ $((passed + failed + skipped)) -eq 0 ]; then
	echo "$name: no test ran"
	failed=$((failed + 1))
fi
[ -n "$slowest" ] && echo "$name: slowest: $slowest ($slowest_secs s)"
for s in "${whole_skips[@]}"; do
	echo "$name: skipped whole: $s"
done
line="$name: $passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
