#!/usr/bin/env bash
# stages.sh STAGE... - "make check": each STAGE a make target, run in turn
# with its output shown as it comes. Every stage runs even after one
# failed, so one run shows every failure. Ends with each stage's time,
# slowest first, and one line "check: N passed, N failed" that adds up
# the stages' own summary lines ("[NAME: ]N passed, N failed[, N
# skipped]"); a stage that failed without a summary of its failures
# counts one. Exit status non-zero when any stage failed.
set -u

make=${MAKE:-make}
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
summary_re='^([A-Za-z0-9_.-]+: )?([0-9]+) passed, ([0-9]+) failed'
passed=0
failed=0
bad_stages=()
: >"$logdir/times"
start_all=$SECONDS

for stage in "$@"; do
	echo "=== $stage ($(date -u +%H:%M:%S) UTC)"
	start=$SECONDS
	"$make" --no-print-directory "$stage" 2>&1 | tee "$logdir/$stage.log"
	rc=${PIPESTATUS[0]}
	secs=$((SECONDS - start))
	p=$(grep -E "$summary_re" "$logdir/$stage.log" |
		sed -E "s/$summary_re.*/\\2/" | awk '{ n += $1 } END { print n + 0 }')
	f=$(grep -E "$summary_re" "$logdir/$stage.log" |
		sed -E "s/$summary_re.*/\\3/" | awk '{ n += $1 } END { print n + 0 }')
	if [ "$rc" -ne 0 ]; then
		bad_stages+=("$stage")
		[ "$f" -eq 0 ] && f=1
	elif [ "$p" -eq 0 ]; then
		# a stage that passed having run nothing did not pass
		echo "$stage: no test ran"
		bad_stages+=("$stage")
		f=$((f + 1))
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '%6d s  %-24s %s\n' "$secs" "$stage" \
		"$([ "$rc" -eq 0 ] && echo "$p passed" || echo "FAILED (exit $rc)")" \
		>>"$logdir/times"
done

echo "=== stages, slowest first ($(((SECONDS - start_all) / 60)) min in all)"
sort -rn "$logdir/times"
[ "${#bad_stages[@]}" -gt 0 ] && echo "failed stages: ${bad_stages[*]}"
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "${#bad_stages[@]}" -eq 0 ]
