#!/bin/bash
# Guest tests: boot the imatrust kernel in the QEMU lab and prove the IMA
# behaviours of the 2008 seed patches (issue 3, items 1-7).
#
#   tests/guest/run.sh [--keep] [--only NAME,...]
#
# Builds the kernel (kernel/build.sh) and the minimal image
# (deploy/image/build-minimal.sh) when their cache is cold, boots one guest
# per configuration in BOOTS in a private lab namespace, lets
# tests/guest/ima-tests.sh run inside each, then replays every guest's
# measurement list against its PCRs on the host with `imatrust log check`.
# Prints TAP and a last line "N passed, N failed"; exits 1 on any failure.
# The run directory (consoles, lists, PCRs) is kept on failure or --keep.
# --only boots the named configurations only (e.g. --only kexec).
#
# Environment: IMATRUST_BIN (default build/bin/imatrust), IMATRUST_KERNEL
# (test this bzImage instead of building one), IMATRUST_CACHE,
# IMATRUST_ACCEL, IMATRUST_GUEST_TIMEOUT (seconds per guest, default 300).
set -euo pipefail
# shellcheck source=tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/tap.sh"
# shellcheck source=boots.sh
. "$(dirname "${BASH_SOURCE[0]}")/boots.sh"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
readonly ROOT
readonly HERE="$ROOT/tests/guest"
readonly LAB="$ROOT/deploy/lab/lab.sh"
readonly IMATRUST="${IMATRUST_BIN:-$ROOT/build/bin/imatrust}"
readonly TIMEOUT="${IMATRUST_GUEST_TIMEOUT:-300}"
readonly CFLAGS="-O2 -Wall -Wextra -Werror"

# name | guest test mode | TPM interface | kernel command line
# ng512 and ng384 make ima_hash= decide the digests (ng256 is the default).
BOOTS=(
	"ng256|tcb|tis|ima_policy=tcb ima_hash=sha256 ima_template=ima-ng"
	"ng512|tcb|tis|ima_policy=tcb ima_hash=sha512 ima_template=ima-ng"
	"ng384|tcb|tis|ima_policy=tcb ima_hash=sha384 ima_template=ima-ng"
	"ima1|tcb|tis|ima_policy=tcb ima_hash=sha1 ima_template=ima"
	"runtime-policy|policy|tis|ima_hash=sha256 ima_template=ima-ng"
	"crb|tcb|crb|ima_policy=tcb ima_hash=sha256 ima_template=ima-ng"
	"kexec|kexec|tis|ima_policy=tcb ima_hash=sha256 ima_template=ima-ng"
	"kexec-staged|kexec-staged|tis|ima_policy=tcb ima_hash=sha256 ima_template=ima-ng"
)

keep=0
run_dir=
child=

log() { printf '[guest] %s\n' "$*" >&2; }
die() { printf '[guest] error: %s\n' "$*" >&2; exit 1; }



# Run "$@" in the background and wait for it: a signal reaches our trap at
# once instead of after a long foreground command (kernel build, boots).
run_child() {
	local rc=0

	"$@" &
	child=$!
	wait "$child" || rc=$?
	child=
	return "$rc"
}

cleanup() {
	local rc=$?

	trap - EXIT INT TERM
	if [ -n "$child" ]; then
		kill "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [ -n "$run_dir" ]; then
		"$LAB" down >/dev/null 2>&1 || log "lab down failed"
		if [ "$keep" = 1 ] || [ "$failed" != 0 ] || [ "$rc" != 0 ]; then
			log "run directory kept: $run_dir"
		else
			rm -rf "$run_dir"
		fi
	fi
	exit "$rc"
}

# Tools the run needs, with the Debian package that has each.
check_tools() {
	local t missing=()

	for t in qemu-system-x86_64:qemu-system-x86 swtpm:swtpm \
	    swtpm_setup:swtpm-tools ip:iproute2 gcc:gcc mkfs.ext4:e2fsprogs \
	    cpio:cpio /bin/busybox:busybox-static ccache:ccache; do
		command -v "${t%%:*}" >/dev/null || missing+=("${t#*:}")
	done
	[ ${#missing[@]} = 0 ] ||
		die "missing packages: ${missing[*]} (deploy/install-deps.sh)"
}

# A copy of $1 with a tag appended: a distinct file digest, still runnable.
tagged_copy() {
	{ cat "$1"; printf '\nimatrust-guest-test %s\n' "$3"; } >"$2"
	chmod 0755 "$2"
}

stage_overlay() {
	local dir=$1

	mkdir -p "$dir/test"
	# shellcheck disable=SC2086 # CFLAGS is a list of words
	gcc -static $CFLAGS -o "$dir/test/imatest" "$HERE/imatest.c"
	install -m 0755 "$HERE/ima-tests.sh" "$dir/test/ima-tests.sh"
}

stage_data() {
	local dir=$1 f

	mkdir -p "$dir/bin" "$dir/lib"
	for f in bb1 pre pol-exec pol-exec2; do
		tagged_copy /bin/busybox "$dir/bin/$f" "$f"
	done
	printf '#!/bin/sh\necho hello from /data/hello.sh\n' >"$dir/hello.sh"
	chmod 0755 "$dir/hello.sh"
	printf 'setting = 1\n' >"$dir/app.conf"
	for f in libx pol-mmap; do
		printf 'not really a library: %s\n' "$f" >"$dir/lib/$f.so"
	done
	for f in unpriv pol-read pol-unpriv; do
		printf 'data file %s\n' "$f" >"$dir/$f.txt"
	done
	chmod 0644 "$dir"/*.txt "$dir"/*.conf "$dir"/lib/*
	chmod 0755 "$dir" "$dir/bin" "$dir/lib"
}

build_inputs() {
	local stage=$run_dir/stage

	if [ -n "${IMATRUST_KERNEL:-}" ]; then
		kernel=$IMATRUST_KERNEL
		[ -f "$kernel" ] || die "IMATRUST_KERNEL=$kernel: no such file"
		log "kernel $kernel (IMATRUST_KERNEL)"
	else
		log "kernel"
		run_child "$ROOT/kernel/build.sh" >"$run_dir/kernel.out"
		kernel=$(tail -n 1 "$run_dir/kernel.out")
		[ -f "$kernel" ] || die "kernel/build.sh gave no bzImage"
	fi
	log "minimal image"
	stage_overlay "$stage/overlay"
	stage_data "$stage/data"
	image=$("$ROOT/deploy/image/build-minimal.sh" \
	    --overlay "$stage/overlay" --data "$stage/data" | tail -n 1)
	[ -f "$image/initramfs.cpio.gz" ] || die "no minimal image in '$image'"
	# shellcheck disable=SC2086
	gcc $CFLAGS -o "$run_dir/imatest" "$HERE/imatest.c"
}

boot_all() {
	local i entry name mode tpm cmdline

	"$LAB" up
	for i in "${!BOOTS[@]}"; do
		IFS='|' read -r name mode tpm cmdline <<<"${BOOTS[$i]}"
		mkdir -p "$run_dir/results/$name"
		# the kexec modes load the same kernel and initramfs from
		# their share
		[ "${mode#kexec}" = "$mode" ] || cp "$kernel" "$image/initramfs.cpio.gz" \
		    "$run_dir/results/$name/"
		"$LAB" start $((i + 1)) --kernel "$kernel" --tpm "$tpm" \
		    --initrd "$image/initramfs.cpio.gz" \
		    --disk "$image/data.ext4" --share "$run_dir/results/$name" \
		    --append "$cmdline imatrust.run=/test/ima-tests.sh imatrust.mode=$mode"
		date +%s.%N >"$run_dir/results/$name.start"
	done
	for i in "${!BOOTS[@]}"; do
		entry=${BOOTS[$i]}
		name=${entry%%|*}
		if ! run_child "$LAB" wait $((i + 1)) "$TIMEOUT"; then
			log "$name: timeout after ${TIMEOUT}s"
			"$LAB" stop $((i + 1))
		fi
		date +%s.%N >"$run_dir/results/$name.end"
	done
}

console_of() { echo "$run_dir/lab/guest$1/console.log"; }

# Re-number the guest's TAP lines into ours, prefixed with the boot name.
import_guest_tap() {
	local name=$1 tap=$2 line desc

	while IFS= read -r line; do
		case "$line" in
		"ok "*)
			desc=${line#ok * - }
			ok "$name: $desc"
			;;
		"not ok "*)
			desc=${line#not ok * - }
			not_ok "$name: $desc"
			;;
		"#"*) echo "$line" ;;
		esac
	done <"$tap"
}

# PCR 10 of both banks replays the binary list (violations as 0xff) and
# boot_aggregate matches PCR 0-9/0-7: the foundation's `imatrust log check`.
check_replay() {
	local name=$1 res=$2 out desc

	desc="$name: imatrust log check: PCR 10 (sha1, sha256) replays the list"
	desc+=", boot_aggregate matches"
	if [ ! -x "$IMATRUST" ]; then
		not_ok "$desc" "$IMATRUST not built (make all)"
		return
	fi
	if out=$(log_check "$res" "$res/pcrs-sha256" 2>&1); then
		ok "$desc"
	else
		not_ok "$desc" "exit $?: ${out//$'\n'/ | }"
	fi
	# Negative control: the same list against a PCR 10 with one bit flipped.
	awk '$1 == 10 { $2 = (substr($2, 1, 1) == "0" ? "1" : "0") substr($2, 2) }
	    { print }' "$res/pcrs-sha256" >"$res/pcrs-sha256.tampered"
	desc="$name: imatrust log check rejects a tampered sha256 PCR 10 (exit 1)"
	if log_check "$res" "$res/pcrs-sha256.tampered" >/dev/null 2>&1; then
		not_ok "$desc" "exit 0"
	else
		check_status "$desc" 1 "$?"
	fi
}

# The file digests the guest measured are the host's ${algo}sum of the
# files it staged: ima_hash= (SHA-1 in the "ima" template) decided them,
# and the host tool, not the guest's, computed what they must be.
check_file_digests() {
	local name=$1 res=$2 cmdline=$3 algo f want got

	algo=$(sed -n 's/.*ima_hash=\([a-z0-9]*\).*/\1/p' <<<"$cmdline")
	[ -n "$algo" ] || return 0
	[ "$(sed -n 's/.*ima_template=\([a-z-]*\).*/\1/p' <<<"$cmdline")" != ima ] ||
		algo=sha1
	for f in bin/bb1 hello.sh lib/libx.so; do
		want=$("${algo}sum" "$run_dir/stage/data/$f" | cut -d' ' -f1)
		got=$(awk -v p="/data/$f" '$5 == p && $2 !~ /^0+$/ { print $4; exit }' \
		    "$res/ascii_runtime_measurements")
		[ "$algo" = sha1 ] && [[ "$got" != *:* ]] && got="sha1:$got"
		if [ "$got" = "$algo:$want" ]; then
			ok "$name: /data/$f measured as the host's ${algo}sum"
		else
			not_ok "$name: /data/$f measured as the host's ${algo}sum" \
			    "list: ${got:-none}, ${algo}sum: $want"
		fi
	done
}

# The kexec boot saved and deleted every record after the kexec: its
# per-bank lists (saved records, then the list left) replay to PCR 10 of
# their own bank, as the streaming export guest's do.
check_bank_replay() {
	local name=$1 res=$2 alg out desc

	for alg in sha1 sha256; do
		desc="$name: imatrust log check --list-bank $alg: saved + left"
		desc+=" binary_runtime_measurements_$alg replays to PCR 10 of $alg"
		if [ ! -f "$res/binary_runtime_measurements_$alg" ]; then
			not_ok "$desc" "list not copied out"
		elif out=$("$IMATRUST" log check \
		    "$res/binary_runtime_measurements_$alg" --list-bank "$alg" \
		    --pcrs "$alg:$res/pcrs-$alg" 2>&1); then
			ok "$desc"
		else
			not_ok "$desc" "${out//$'\n'/ | }"
		fi
	done
}

log_check() {
	"$IMATRUST" log check "$1/binary_runtime_measurements" \
	    --pcrs "sha1:$1/pcrs-sha1" --pcrs "sha256:$2"
}

check_status() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "exit $3"; fi
}

check_boot() {
	local i=$1 name=$2 res=$3 mode=$4 cmdline=$5 console up wall

	console=$(console_of "$i")
	if [ ! -f "$res/done" ]; then
		not_ok "$name: guest ran the tests to the end" \
		    "console tail ($console):" \
		    "$(tail -n 15 "$console" 2>/dev/null || echo '(no console)')"
		return
	fi
	ok "$name: guest ran the tests to the end"
	import_guest_tap "$name" "$res/tap"
	if grep -q '^1\.\.[0-9]*$' "$res/tap"; then
		ok "$name: guest TAP plan complete"
	else
		not_ok "$name: guest TAP plan complete"
	fi
	if grep -qE 'BUG:|WARNING:|Kernel panic|Call Trace:' "$console"; then
		not_ok "$name: no kernel BUG, WARNING or panic on the console" \
		    "$(grep -m 3 -E 'BUG:|WARNING:|Kernel panic|Call Trace:' "$console")"
	else
		ok "$name: no kernel BUG, WARNING or panic on the console"
	fi
	check_replay "$name" "$res"
	[ "$mode" != tcb ] || check_file_digests "$name" "$res" "$cmdline"
	[ "$mode" != kexec ] || check_bank_replay "$name" "$res"
	if [ "$("$run_dir/imatest" count "$res/binary_runtime_measurements")" \
	    = "$(cat "$res/count")" ]; then
		ok "$name: host count of binary records = runtime_measurements_count"
	else
		not_ok "$name: host count of binary records = runtime_measurements_count"
	fi
	up=$(sed -n 's/^init: up after \([0-9.]*\)s.*/\1/p' "$console" | head -n 1)
	wall=$(awk -v a="$(cat "$res.start")" -v b="$(cat "$res.end")" \
	    'BEGIN { printf "%.1f", b - a }')
	echo "# $name: init started at ${up:-?}s guest uptime;" \
	    "${wall}s wall from QEMU start to power-off"
}

main() {
	local i name mode tpm cmdline start only=

	while [ $# -gt 0 ]; do
		case "$1" in
		--keep) keep=1 ;;
		--only) [ $# -gt 1 ] || die "--only needs boot names"
			only=$2
			shift ;;
		*) die "usage: $0 [--keep] [--only NAME,...]" ;;
		esac
		shift
	done
	[ -z "$only" ] || boots_only "$only" || die "--only $only: no such boot"
	[ "$(id -u)" = 0 ] || die "guest tests need root (lab namespace, taps)"
	check_tools
	start=$(date +%s)
	run_dir=$(mktemp -d /tmp/imatrust-guest.XXXXXX)
	export IMATRUST_LAB_NS="imatrust-t$$"
	export IMATRUST_LAB_RUN="$run_dir/lab"
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	build_inputs
	log "booting ${#BOOTS[@]} guests (accelerator $("$LAB" accel "$kernel"))"
	boot_all
	echo "TAP version 13"
	for i in "${!BOOTS[@]}"; do
		IFS='|' read -r name mode tpm cmdline <<<"${BOOTS[$i]}"
		check_boot $((i + 1)) "$name" "$run_dir/results/$name" \
		    "$mode" "$cmdline"
	done
	echo "1..$n"
	echo "# total $(($(date +%s) - start))s"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}

main "$@"
