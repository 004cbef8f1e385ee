#!/bin/bash
# The imatrust fleet demo (make demo): on a Debian 12 machine, as root,
#
#   deploy/demo.sh [--no-deps] [--exit]
#
# 1. installs missing Debian packages (deploy/install-deps.sh), builds the
#    programs (make all), the patched kernel (kernel/build.sh) and the
#    golden Debian image with the agent (deploy/image/build-debian.sh),
#    showing their progress;
# 2. starts imatrust-verifier on 10.77.0.1:8443 in the lab namespace with a
#    fresh database, imports the golden image's files as references
#    (imatrust ref import-dir) and boots three guests (QEMU + swtpm each,
#    agent under systemd): guests 1 and 2 through OVMF with Secure Boot on
#    (the lab's keys, signed systemd-boot and kernel), guest 3 through
#    SeaBIOS;
# 3. shows the fleet table, refreshed every second, while the machines go
#    enrolling -> trusted, with each one's boot (BOOT: what its firmware
#    event log says, UEFI with Secure Boot on or off, or BIOS); then runs an unapproved binary in guest2 over the
#    lab-only control channel (virtio-serial, deploy/lab/guest-exec), shows
#    guest2 turn untrusted with the binary's path and digest, adds the
#    digest with `imatrust ref add` and shows guest2 trusted again.
#
# The fleet console is forwarded to https://127.0.0.1:8443/ on this host
# (IMATRUST_CONSOLE_PORT), its URL and operator token printed.
#
# Ctrl-C (or SIGTERM) stops the verifier, the guests and their swtpm and
# deletes the lab namespace, also when the output is piped (make demo |
# tee demo.log). --exit ends by itself after the last step
# (for unattended runs); --no-deps skips the package check. Environment:
# IMATRUST_LAB_NS (default imatrust-lab), IMATRUST_KERNEL, IMATRUST_IMAGE
# (skip those builds), IMATRUST_ACCEL, IMATRUST_FIRMWARE (default
# uefi,uefi,bios; deploy/lab/fleet.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly ROOT
# shellcheck source=lab/fleet.sh
. "$ROOT/deploy/lab/fleet.sh"

readonly GUESTS=3
readonly VICTIM=2
export IMATRUST_FIRMWARE="${IMATRUST_FIRMWARE:-uefi,uefi,bios}"
deps=1
auto_exit=0
story_pid=
viewer_pid=
console_pid=
readonly CONSOLE_PORT="${IMATRUST_CONSOLE_PORT:-8443}"
t_start=$(date +%s.%N)

# Never fatal: when the demo's output is piped (make demo | tee log), Ctrl-C
# ends the reader first, and cleanup must still run to its end.
say() { printf '[demo] %s\n' "$*" >&2 2>/dev/null || true; }

# Narration under the live table (and in $FLEET_DIR/story.log).
story() { printf '%s  %s\n' "$(date +%H:%M:%S)" "$*" >>"$FLEET_DIR/story.log"; }

# Processes below pid $1, deepest first.
descendants() {
	local c

	for c in $(pgrep -P "$1" 2>/dev/null); do
		descendants "$c"
		echo "$c"
	done
}

cleanup() {
	local rc=$? p

	trap - EXIT INT TERM
	# A write to a closed pipe must fail, not kill the cleanup.
	trap '' PIPE INT
	for p in $story_pid $viewer_pid $console_pid; do
		# shellcheck disable=SC2046 # a list of pids
		kill $(descendants "$p") "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	say "stopping: verifier, guests, swtpm, lab namespace"
	"$FLEET_LAB" down >/dev/null 2>&1 || say "lab down failed"
	say "stopped (logs kept in $FLEET_RUN)"
	exit "$rc"
}

# The story told under the table; runs in the background.
run_story() {
	local n bin digest out seen started poller

	story "verifier up; golden image references: $(tail -n 1 "$FLEET_DIR/refs-image.log")"
	story "booting $GUESTS guests (QEMU $("$FLEET_LAB" accel "$FLEET_KERNEL"), swtpm each): agents enroll with TPM credential activation"
	for n in $(seq "$GUESTS"); do
		if fleet_cli wait "guest$n" trusted --timeout 900 --interval 0.5 \
		    >/dev/null 2>&1; then
			story "guest$n trusted $(fleet_since "$t_start")s after the demo started ($(fleet_firmware "$n"); boot log: $(fleet_cli api GET "/v1/machines/guest$n/boot-log" 2>/dev/null | jq -c '{secure_boot: .facts.secure_boot, efi_applications: (.facts.applications // [] | length)}' 2>/dev/null))"
		else
			story "guest$n did not reach trusted (see $FLEET_RUN/guest$n/console.log)"
		fi
	done
	sleep 3
	bin=$FLEET_DIR/unapproved
	{ cat /usr/bin/true; printf '\nimatrust demo unapproved binary %s\n' "$(date +%s%N)"; } >"$bin"
	chmod 0755 "$bin"
	digest=sha256:$(sha256sum "$bin" | cut -d' ' -f1)
	story "guest$VICTIM: copying an unapproved binary over the lab control channel (not the agent) to /srv/site/lab/unapproved"
	"$ROOT/deploy/lab/guest-exec" --quiet "$VICTIM" --put "$bin" /srv/site/lab/unapproved ||
		story "copy failed"
	story "guest$VICTIM: exec /srv/site/lab/unapproved ($digest)"
	rm -f "$FLEET_DIR/ready"
	fleet_cli wait "guest$VICTIM" untrusted --timeout 120 --interval 0.02 \
	    --ready "$FLEET_DIR/ready" >"$FLEET_DIR/seen" 2>/dev/null &
	poller=$!
	for _ in $(seq 200); do [ -e "$FLEET_DIR/ready" ] && break; sleep 0.05; done
	"$ROOT/deploy/lab/guest-exec" --quiet --started "$FLEET_DIR/started" \
	    "$VICTIM" /srv/site/lab/unapproved || true
	if wait "$poller"; then
		out=$(cat "$FLEET_DIR/seen")
		seen=$(head -n 1 <<<"$out")
		started=$(cut -d' ' -f1 "$FLEET_DIR/started")
		story "guest$VICTIM untrusted $(awk -v a="$started" -v b="$seen" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms after the exec: $(tail -n 1 <<<"$out" | jq -c .machine.state_reason)"
	else
		story "guest$VICTIM did not turn untrusted"
	fi
	sleep 5
	story "operator: imatrust ref add /srv/site/lab/unapproved $digest"
	if ! out=$(fleet_cli ref add /srv/site/lab/unapproved "$digest" 2>&1); then
		story "ref add failed: $out"
	fi
	if fleet_cli wait "guest$VICTIM" trusted --timeout 120 --interval 0.1 >/dev/null; then
		story "guest$VICTIM trusted again: the stored records were judged again"
	else
		story "guest$VICTIM did not return to trusted"
	fi
	story "demo complete; the fleet keeps streaming (heartbeats). Ctrl-C stops everything."
	touch "$FLEET_DIR/story.done"
}

# The fleet console on the host's loopback: socat hands each connection to
# a socat inside the lab namespace (TLS passes through; the verifier's
# certificate names 127.0.0.1, signed by the lab CA).
console_forward() {
	socat "TCP-LISTEN:$CONSOLE_PORT,bind=127.0.0.1,reuseaddr,fork" \
	    "EXEC:ip netns exec $FLEET_NS socat STDIO TCP\:10.77.0.1\:8443" \
	    2>>"$FLEET_RUN/console-forward.log" &
	console_pid=$!
	say "fleet console: https://127.0.0.1:$CONSOLE_PORT/ (trust the lab CA $FLEET_PKI/ca.pem, or accept its warning); operator token: $(cat "$FLEET_DIR/token")"
	story "fleet console: https://127.0.0.1:$CONSOLE_PORT/ (token in $FLEET_DIR/token)"
}

main() {
	while [ $# -gt 0 ]; do
		case "$1" in
		--no-deps) deps=0 ;;
		--exit) auto_exit=1 ;;
		*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
		   exit 2 ;;
		esac
		shift
	done
	[ "$(id -u)" = 0 ] || { say "run as root: the lab needs a network namespace"; exit 1; }
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	if [ "$deps" = 1 ]; then
		say "step 1/4: Debian packages (deploy/install-deps.sh)"
		"$ROOT/deploy/install-deps.sh"
	fi
	say "step 2/4: programs (make all)"
	make -C "$ROOT" --no-print-directory all >&2
	say "step 3/4: kernel, PKI, golden image"
	"$FLEET_LAB" down >/dev/null 2>&1 || true
	rm -rf "$FLEET_DIR"
	say "step 4/4: verifier, references, $GUESTS guests"
	fleet_up --guests "$GUESTS" --stale-after 60
	: >"$FLEET_DIR/story.log"
	console_forward
	run_story &
	story_pid=$!
	if [ "$auto_exit" = 1 ]; then
		fleet_cli machines --boot --watch --footer "$FLEET_DIR/story.log" \
		    --until-file "$FLEET_DIR/story.done" &
	else
		fleet_cli machines --boot --watch --footer "$FLEET_DIR/story.log" &
	fi
	viewer_pid=$!
	wait "$viewer_pid" || true
	viewer_pid=
	[ "$auto_exit" = 0 ] || { wait "$story_pid" || true; story_pid=; }
	fleet_cli machines --boot
	cat "$FLEET_DIR/story.log"
}

main "$@"
