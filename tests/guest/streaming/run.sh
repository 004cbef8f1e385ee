#!/bin/bash
# Guest tests of the streaming measurement list series (issue 4).
#
#   tests/guest/streaming/run.sh [--keep] [--quick] [--only NAME,...]
#
# Boots, in a private lab namespace, one guest per entry of BOOTS and lets
# tests/guest/streaming/guest.sh run inside each:
#   ng256  patched kernel, ima-ng/sha256: poll wake-ups and idle wake-ups,
#          tail -f with poll(), read/seek patterns on the legacy and
#          per-bank lists at 10, 10,000 and 100,000 records, resume bench
#   ima1   patched kernel, 'ima' template/sha1: the same at 10 and 10,000
#   stock  stock kernel: the same read/seek patterns and bench
#   export patched kernel (CONFIG_IMA_STAGING, as kernel/config/guest.config
#          sets it): export and delete (imaexport.c), 20,000 records added
#          and deleted for the memory figure; its lists are replayed as the
#          records it saved before deleting them plus the list left
# then, on the host, replays each per-bank list against its bank's PCRs
# (bankcheck) and the legacy lists with `imatrust log check`.
# --quick tests at 10 and 2,000 records only; --only boots the named
# guests only (e.g. --only export).
#
# Prints TAP and a last line "N passed, N failed"; exits 1 on a failure.
# Environment: see lib.sh; IMATRUST_BIN (default build/bin/imatrust),
# IMATRUST_GUEST_TIMEOUT (seconds per guest, default 2700: the stock
# guest's seeks over 100,000 records take most of that on a loaded host).
set -euo pipefail

# shellcheck source=tests/guest/streaming/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# shellcheck source=../boots.sh
. "$(dirname "${BASH_SOURCE[0]}")/../boots.sh"
readonly IMATRUST="${IMATRUST_BIN:-$ROOT/build/bin/imatrust}"
readonly TIMEOUT="${IMATRUST_GUEST_TIMEOUT:-2700}"

# name | kernel and guest mode (export: the patched kernel) | kernel
# command line | list sizes
BOOTS=(
	"ng256|patched|ima_hash=sha256 ima_template=ima-ng|10,10000,100000"
	"ima1|patched|ima_hash=sha1 ima_template=ima|10,10000"
	"stock|stock|ima_hash=sha256 ima_template=ima-ng|10,10000,100000"
	"export|export|ima_hash=sha256 ima_template=ima-ng|20000"
)

keep=0
run_dir=



cleanup() {
	local rc=$?

	trap - EXIT INT TERM
	if [ -n "$run_dir" ]; then
		"$LAB" down >/dev/null 2>&1 || st_log "lab down failed"
		if [ "$keep" = 1 ] || [ "$failed" != 0 ] || [ "$rc" != 0 ]; then
			st_log "run directory kept: $run_dir"
		else
			rm -rf "$run_dir"
		fi
	fi
	exit "$rc"
}

import_guest_tap() {
	local name=$1 line

	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok "$name: ${line#ok * - }" ;;
		"not ok "*) not_ok "$name: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$2"
}

# bankcheck's RESULT lines as TAP.
import_results() {
	local name=$1 line

	while IFS= read -r line; do
		case "$line" in
		"RESULT ok "*) ok "$name: ${line#RESULT ok }" ;;
		"RESULT fail: "*) not_ok "$name: ${line#RESULT fail: }" ;;
		*) echo "# $name: $line" ;;
		esac
	done
}

check_replay() {
	local name=$1 res=$2 kind=$3 out alg

	if [ ! -x "$IMATRUST" ]; then
		not_ok "$name: imatrust log check of the legacy list" \
		    "$IMATRUST not built (make all)"
	elif out=$("$IMATRUST" log check "$res/binary_runtime_measurements" \
	    --pcrs "sha1:$res/pcrs-sha1" --pcrs "sha256:$res/pcrs-sha256" 2>&1)
	then
		ok "$name: imatrust log check: legacy list replays to PCR 10 of sha1 and sha256, boot_aggregate matches"
	else
		not_ok "$name: imatrust log check: legacy list replays to PCR 10 of sha1 and sha256, boot_aggregate matches" \
		    "${out//$'\n'/ | }"
	fi
	[ "$kind" != stock ] || return 0
	for alg in sha1 sha256; do
		[ -f "$res/binary_runtime_measurements_$alg" ] || continue
		"$run_dir/bankcheck" "$res/binary_runtime_measurements_$alg" \
		    "$alg" "$res/pcrs-$alg" "$res/binary_runtime_measurements" |
		    import_results "$name: binary_runtime_measurements_$alg"
		if out=$("$IMATRUST" log check \
		    "$res/binary_runtime_measurements_$alg" --list-bank "$alg" \
		    --pcrs "$alg:$res/pcrs-$alg" 2>&1); then
			ok "$name: imatrust log check --list-bank $alg replays to PCR 10 of $alg"
		else
			not_ok "$name: imatrust log check --list-bank $alg replays to PCR 10 of $alg" \
			    "${out//$'\n'/ | }"
		fi
	done
}

check_boot() {
	local i=$1 name=$2 kind=$3 res=$4 console

	console=$(st_console "$i")
	if [ ! -f "$res/done" ]; then
		not_ok "$name: guest ran the tests to the end" \
		    "console tail ($console):" \
		    "$(tail -n 15 "$console" 2>/dev/null || echo '(no console)')"
		return
	fi
	ok "$name: guest ran the tests to the end"
	import_guest_tap "$name" "$res/tap"
	if grep -qE 'BUG:|WARNING:|Kernel panic|Call Trace:' "$console"; then
		not_ok "$name: no kernel BUG, WARNING or panic on the console" \
		    "$(grep -m 3 -E 'BUG:|WARNING:|Kernel panic|Call Trace:' "$console")"
	else
		ok "$name: no kernel BUG, WARNING or panic on the console"
	fi
	check_replay "$name" "$res" "$kind"
	if [ "$kind" != stock ]; then
		if [ -f "$res/binary_runtime_measurements_sha256" ]; then
			ok "$name: per-bank lists copied out"
		else
			not_ok "$name: per-bank lists copied out"
		fi
	fi
}

main() {
	local i name kind cmdline sizes kernel start only=

	while [ $# -gt 0 ]; do
		case "$1" in
		--keep) keep=1 ;;
		--quick) BOOTS=("${BOOTS[@]//10000,100000/2000}")
			 BOOTS=("${BOOTS[@]//,10000/,2000}") ;;
		--only) [ $# -gt 1 ] || st_die "--only needs guest names"
			only=$2
			shift ;;
		*) st_die "usage: $0 [--keep] [--quick] [--only NAME,...]" ;;
		esac
		shift
	done
	[ -z "$only" ] || boots_only "$only" || st_die "--only $only: no such guest"
	[ "$(id -u)" = 0 ] || st_die "guest tests need root (lab namespace, taps)"
	start=$(date +%s)
	run_dir=$(mktemp -d /tmp/imatrust-streaming.XXXXXX)
	export IMATRUST_LAB_NS="imatrust-s$$"
	export IMATRUST_LAB_RUN="$run_dir/lab"
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	st_kernels
	st_image "$run_dir/stage"
	# shellcheck disable=SC2086
	gcc $ST_CFLAGS -o "$run_dir/bankcheck" "$STREAMING/bankcheck.c" -lcrypto
	"$LAB" up
	for i in "${!BOOTS[@]}"; do
		IFS='|' read -r name kind cmdline sizes <<<"${BOOTS[$i]}"
		kernel=$st_patched
		[ "$kind" = stock ] && kernel=$st_stock
		st_start $((i + 1)) "$kernel" "$run_dir/results/$name" \
		    "$cmdline imatrust.mode=$kind imatrust.sizes=$sizes"
	done
	for i in "${!BOOTS[@]}"; do
		st_wait $((i + 1)) "$TIMEOUT" || true
	done

	echo "TAP version 13"
	for i in "${!BOOTS[@]}"; do
		IFS='|' read -r name kind cmdline sizes <<<"${BOOTS[$i]}"
		check_boot $((i + 1)) "$name" "$kind" "$run_dir/results/$name"
	done
	echo "1..$n"
	echo "# total $(($(date +%s) - start))s"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}

main "$@"
