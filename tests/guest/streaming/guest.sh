#!/bin/sh
# Streaming measurement list tests, run INSIDE the minimal guest as
# imatrust.run=/test/streaming.sh (see tests/guest/streaming/run.sh).
#
# imatrust.mode=patched  kernel with the series: poll, follow, read/seek
#                        patterns on the legacy and per-bank lists, resume
#                        and seek-back benchmarks
# imatrust.mode=stock    kernel without the series: the same read/seek
#                        patterns (on a window of the long lists, stock
#                        seeks cost O(list)) and the same benchmarks
# imatrust.mode=export   kernel with the series and CONFIG_IMA_STAGING:
#                        export and delete (imaexport); every record it
#                        deletes is saved first, and the lists copied to
#                        /results are the saved records followed by the
#                        list left in the kernel, for the host replay
# imatrust.sizes=10,10000,100000  list lengths to test at (export: the
#                        number of records added and deleted for the
#                        memory check)
# imatrust.only=bench    only grow the list and run the benchmarks
#                        (export: imaexport bench, sizes N or NxR, R
#                        repetitions; see tests/bench/kernel-export)
#
# Records come from files owned by uid 4242 read under the policy written
# below, so nothing else measures during the tests. TAP goes to
# /results/tap; lists, counts and PCRs of both banks are copied to
# /results at the end for the host replay; /results/done marks the end.

IMA=/sys/kernel/security/ima
TPM=/sys/class/tpm/tpm0
OUT=/results
H=/test/imastream
DIR=/tmp/records
SAVE=/tmp/saved
BIN=$IMA/binary_runtime_measurements
ASCII=$IMA/ascii_runtime_measurements

n=0
mode=patched
only=
sizes="10 10000 100000"

tap() {
	echo "$*" >>"$OUT/tap"
	echo "TAP: $*"
}

pass() { n=$((n + 1)); tap "ok $n - $1"; }
fail() { n=$((n + 1)); tap "not ok $n - $1"; }

# Run the helper; each "RESULT" line becomes a TAP line, "#" lines and
# BENCH lines are kept as comments. A helper that exits non-zero without
# reporting a failure (a crash, a usage error) is a failure of its own.
run() {
	prefix=$1
	shift
	"$H" "$@" >/tmp/helper.out 2>&1
	rc=$?
	failed=0
	while IFS= read -r line; do
		case "$line" in
		"RESULT ok "*) pass "$prefix: ${line#RESULT ok }" ;;
		"RESULT fail: "*)
			failed=1
			fail "$prefix: ${line#RESULT fail: }" ;;
		"#"*) tap "# $prefix: ${line#\# }" ;;
		BENCH*) tap "# $prefix: $line" ;;
		*) tap "# $prefix: $line" ;;
		esac
	done </tmp/helper.out
	[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] &&
		fail "$prefix: $H $1 exited $rc"
	return $rc
}

count() { cat "$IMA/runtime_measurements_count"; }

# grow_to N: add records until the list holds N.
grow_to() {
	have=$(count)
	[ "$have" -lt "$1" ] || return 0
	# every 997th new record comes with an open_writers violation
	run "grow to $1" gen "$DIR" $(($1 - have)) 997
}

# Banks the kernel shows per-bank lists for, "alg:digest-size".
banks() {
	for f in "$IMA"/binary_runtime_measurements_*; do
		[ -e "$f" ] || continue
		alg=${f##*_}
		case "$alg" in
		sha1) echo "$alg:20" ;;
		sha256) echo "$alg:32" ;;
		sha384) echo "$alg:48" ;;
		sha512) echo "$alg:64" ;;
		sm3) echo "$alg:32" ;;
		esac
	done
}

# Read/seek patterns at the current list size. win: only the last win
# records are read record by record and seeked back to (0: all); seeks:
# random seeks; back: seeks and preads back to random passed records, and
# records walked backward. Stock renders from the head at every seek: a
# seek near the end of the ascii list of 100,000 records takes seconds.
patterns_at() {
	size=$1
	if [ "$mode" = stock ] && [ "$size" -gt 1000 ]; then
		win=$((size > 50000 ? 50 : 200))
		seeks=20
		back=$((size > 50000 ? 6 : 30))
	else
		win=0
		seeks=$((size > 50000 ? 50 : 200))
		back=300
	fi
	run "$size binary" patterns "$BIN" 20 "$win" "$seeks" "$back"
	run "$size ascii" patterns "$ASCII" 0 "$win" "$seeks" "$back"
	[ "$mode" = stock ] && return
	for b in $(banks); do
		alg=${b%%:*}
		run "$size binary_$alg" patterns "${BIN}_$alg" "${b#*:}" \
		    "$win" "$seeks" "$back"
		run "$size ascii_$alg" patterns "${ASCII}_$alg" 0 "$win" \
		    "$seeks" "$back"
	done
}

dump() {
	for f in "$IMA"/*runtime_measurements*; do
		name=${f##*/}
		if [ -f "$SAVE/$name" ]; then
			cat "$SAVE/$name" "$f" >"$OUT/$name"
		else
			cat "$f" >"$OUT/$name"
		fi
	done
	for bank in sha1 sha256; do
		i=0
		while [ $i -lt 24 ]; do
			echo "$i $(cat "$TPM/pcr-$bank/$i")"
			i=$((i + 1))
		done >"$OUT/pcrs-$bank"
	done
	cat /proc/cmdline >"$OUT/cmdline"
}

main() {
	# shellcheck disable=SC2013 # the command line is one line of words
	for arg in $(cat /proc/cmdline); do
		case "$arg" in
		imatrust.mode=*) mode=${arg#imatrust.mode=} ;;
		imatrust.sizes=*) sizes=$(echo "${arg#imatrust.sizes=}" | tr , ' ') ;;
		imatrust.only=*) only=${arg#imatrust.only=} ;;
		esac
	done
	: >"$OUT/tap"
	mkdir -p "$DIR"
	tap "# mode $mode, sizes $sizes, kernel $(uname -r)"
	if ! echo "measure func=FILE_CHECK mask=MAY_READ fowner=4242" \
	    >"$IMA/policy"; then
		fail "test policy loaded"
		return
	fi
	pass "test policy loaded"
	if [ "$mode" = patched ]; then
		if [ -n "$(banks)" ]; then
			pass "per-bank lists present: $(banks | tr '\n' ' ')"
		else
			fail "per-bank lists present"
		fi
	fi

	if [ "$mode" = export ] && [ "$only" = bench ]; then
		H=/test/imaexport
		# shellcheck disable=SC2086 # one argument per size
		run "export bench" bench "$DIR" $sizes
		return
	fi
	if [ "$mode" = export ]; then
		mkdir -p "$SAVE"
		H=/test/imaexport
		run "export" "$DIR" "$SAVE" "$sizes"
		H=/test/imastream
		tap "# saved $(wc -c <"$SAVE/binary_runtime_measurements") bytes of binary_runtime_measurements, $(count) records left"
		dump
		count >"$OUT/count"
		return
	fi

	first=1
	for size in $sizes; do
		grow_to "$size"
		tap "# list now $(count) records"
		if [ "$only" = bench ]; then
			run "$size bench" bench "$BIN" "$DIR" 50
			run "$size seekback" seekbench "$BIN" 20 50
			continue
		fi
		patterns_at "$size"
		run "$size bench" bench "$BIN" "$DIR" 20
		[ "$size" -lt 2000 ] || run "$size seekback" seekbench "$BIN" 20 20
		if [ "$mode" = patched ] && [ "$first" = 1 ]; then
			first=0
			run "poll" poll "$BIN" "$DIR" 30 5
			run "poll ascii" poll "$ASCII" "$DIR" 10 2
			run "follow binary" follow "$BIN" "$DIR" 200 20
			run "follow ascii" follow "$ASCII" "$DIR" 200 0
		fi
	done
	dump
	count >"$OUT/count"
}

main
echo "1..$n" >>"$OUT/tap"
touch "$OUT/done"
