# shellcheck shell=bash
# lib.sh - what the issue-11 fleet tests (sig.sh, apt.sh) share: a run
# directory and lab namespace of their own, deploy/lab/fleet.sh sourced,
# the test body in a child (a signal reaches the cleanup at once), the
# lab torn down on exit, helpers over the verifier's REST API and the
# guests' control channel. Sourced; the test defines tests() and calls
# fleet_test_main "$@".

# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
readonly ROOT
# shellcheck disable=SC2034 # used by the tests that source this
readonly TIMEOUT="${IMATRUST_FLEET_TIMEOUT:-900}"
readonly IMA_LIST=/sys/kernel/security/ima/ascii_runtime_measurements

keep=0
run_dir=
child=

log() { printf '[%s] %s\n' "$(basename "$0" .sh)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

check() {
	local desc=$1

	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# (Never "local n": n is tap.sh's test counter.)

# Processes below pid $1, deepest first (the test body and what it runs).
descendants() {
	local c

	for c in $(pgrep -P "$1" 2>/dev/null); do
		descendants "$c"
		echo "$c"
	done
}

fleet_test_cleanup() {
	local rc=$? p

	trap - EXIT INT TERM
	if [ -n "$child" ]; then
		for p in $(descendants "$child") "$child"; do
			kill "$p" 2>/dev/null || true
		done
		wait "$child" 2>/dev/null || true
	fi
	if [ -n "$run_dir" ]; then
		"$ROOT/deploy/lab/apt-archive.sh" stop >/dev/null 2>&1 || true
		"$ROOT/deploy/lab/lab.sh" down >/dev/null 2>&1 || log "lab down failed"
		if [ "$keep" = 1 ] || [ "$failed" != 0 ] || [ "$rc" != 0 ]; then
			log "run directory kept: $run_dir"
		else
			rm -rf "$run_dir"
		fi
	fi
	exit "$rc"
}

gexec() { "$ROOT/deploy/lab/guest-exec" "$@"; }

# JSON of /v1/machines/$1 (the "machine" and "boot" objects).
machine() { fleet_cli api GET "/v1/machines/$1"; }

jq_machine() { machine "$1" | jq -r "$2"; }

# wait ID STATE TIMEOUT [INTERVAL]: prints host time seen, then the JSON.
wait_state() {
	fleet_cli wait "$1" "$2" --timeout "$3" --interval "${4:-0.2}"
}

# The state reason of machine $1, as compact JSON (it is a JSON text).
reason_of() {
	jq_machine "$1" '.machine.state_reason' | jq -c . 2>/dev/null ||
		jq_machine "$1" '.machine.state_reason'
}

# caught_up N ID: wait until the verifier holds every record guest N has
# (at the moment of the call) and has judged them; prints the state.
caught_up() {
	local g=$1 id=$2 count stored st

	count=$(gexec "$g" "wc -l < $IMA_LIST" 2>/dev/null | tr -d ' \r')
	for _ in $(seq 120); do
		stored=$(jq_machine "$id" .boot.next_record_index 2>/dev/null || echo 0)
		st=$(jq_machine "$id" .machine.state 2>/dev/null || echo absent)
		[ "${stored:-0}" -lt "${count:-1}" ] || break
		sleep 1
	done
	echo "$st"
}

# rejudged_alone N ID DESC CMD...: with guest N's agent stopped (nothing
# more reaches the verifier), CMD (an operator action) must bring ID to
# trusted with the verifier's record count unchanged: the re-judge of
# the stored records alone, no agent round trip. The agent restarts.
rejudged_alone() {
	local g=$1 id=$2 desc=$3 before after log=$run_dir/rejudge-$2.log

	shift 3
	gexec --quiet "$g" 'systemctl stop imatrust-agent' || true
	before=$(jq_machine "$id" .boot.next_record_index)
	if "$@" >"$log" 2>&1 && wait_state "$id" trusted 20 0.2 >/dev/null 2>&1; then
		after=$(jq_machine "$id" .boot.next_record_index)
		if [ "$after" = "$before" ]; then
			ok "$desc makes $id trusted again: the re-judge alone (agent stopped, $before records before and after)"
		else
			not_ok "$desc: the re-judge alone" "records $before -> $after"
		fi
	else
		not_ok "$desc makes $id trusted again (agent stopped)" \
		    "$(cat "$log")" "$(machine "$id" | jq -c .machine)"
	fi
	gexec --quiet "$g" 'systemctl start imatrust-agent' || true
}

# reboot_guest N: reboot guest N and wait until the verifier records its
# new boot (resetCount up); prints "boot A -> B, resetCount R -> S".
reboot_guest() {
	local g=$1 id=guest$1 b0 r0 b1 r1

	b0=$(jq_machine "$id" .boot.id)
	r0=$(jq_machine "$id" .boot.reset_count)
	gexec --quiet -t 10 "$g" 'systemctl --no-block reboot' || true
	for _ in $(seq "$TIMEOUT"); do
		b1=$(jq_machine "$id" .boot.id 2>/dev/null || echo "$b0")
		[ "$b1" = "$b0" ] || break
		sleep 1
	done
	r1=$(jq_machine "$id" .boot.reset_count)
	echo "boot $b0 -> $b1, resetCount $r0 -> $r1"
	[ "$b1" != "$b0" ] && [ "${r1:-0}" -gt "${r0:-0}" ]
}

# The id of machine $1's newest event (0 if none).
last_event() {
	fleet_cli api GET "/v1/machines/$1/events?limit=1000" |
	    jq -r '[.events[].id] | max // 0'
}

# The events of machine $1 after id $2 that turned it to state $3.
events_to() {
	fleet_cli api GET "/v1/machines/$1/events?limit=1000" |
	    jq -c --argjson a "$2" --arg s "$3" \
	    '[.events[] | select(.id > $a and .to == $s)]'
}

# fleet_test_main [--keep]: the run directory, namespace, fleet.sh, the
# child running tests(); its status is ours.
fleet_test_main() {
	local rc=0 t

	case "${1:-}" in
	--keep) keep=1 ;;
	"") ;;
	*) die "usage: $0 [--keep]" ;;
	esac
	[ "$(id -u)" = 0 ] || die "fleet tests need root (lab namespace, taps)"
	for t in qemu-system-x86_64 qemu-img swtpm swtpm_setup mkfs.ext4 jq \
	    python3 openssl evmctl getfattr setfattr dpkg-deb dpkg-scanpackages; do
		command -v "$t" >/dev/null || die "missing $t (deploy/install-deps.sh)"
	done
	start=$(date +%s)
	run_dir=$(mktemp -d /tmp/imatrust-fleet.XXXXXX)
	export IMATRUST_LAB_NS="imatrust-f$$"
	export IMATRUST_LAB_RUN="$run_dir/lab"
	# shellcheck source=../../../deploy/lab/fleet.sh
	. "$ROOT/deploy/lab/fleet.sh"
	trap fleet_test_cleanup EXIT
	trap 'exit 130' INT TERM
	tests &
	child=$!
	wait "$child" || rc=$?
	child=
	[ "$failed" = 0 ] && [ "$rc" = 0 ] || failed=1
	return "$rc"
}

# The end of tests(): plan, time, summary, status.
fleet_test_done() {
	tap_end
	echo "1..$n"
	echo "# total $(($(date +%s) - start))s"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
