#!/bin/bash
# Fleet test of issue 12: guests boot through UEFI and their firmware event
# log is checked against their quotes.
#
#   tests/guest/fleet/uefi.sh [--keep]
#
#   guest1  OVMF, Secure Boot on (the lab's PK/KEK/db), systemd-boot and
#           the kernel signed with the lab db key (deploy/lab/uefi.sh)
#   guest2  OVMF in setup mode (Secure Boot off), unsigned chain
#   guest3  SeaBIOS and QEMU's -kernel (its log has no UEFI events)
#   guest4  as guest1, but its agent sends another boot's log (a real
#           OVMF log of tests/fixtures/eventlog/: what an attacker with a
#           TPM of their own would present to hide their own boot)
#
#   - guests 1-3 are trusted; each machine holds its boot's log, and the
#     log the verifier decodes is the one the guest's kernel exposes;
#   - guest1's log shows Secure Boot on and, among the EFI applications
#     it booted, the kernel with its Authenticode digest (`pesign -h` of
#     the image); guest2's shows Secure Boot off; guest3's has none;
#   - guest4 is failed, the reason naming the PCR whose replay differs.
#
# The time from start to trusted of each guest is printed (the cost of a
# UEFI boot under TCG against SeaBIOS). TAP on stdout, last line
# "N passed, N failed". Environment as run.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly FORGED="$ROOT/tests/fixtures/eventlog/patched-sb/binary_bios_measurements"

declare -A started=()

start_guest() {
	local n=$1 firmware=$2

	shift 2
	started[$n]=$(date +%s.%N)
	"$FLEET_LAB" guest "$n" --image "$FLEET_IMAGE" --kernel "$FLEET_KERNEL" \
	    --firmware "$firmware" "$@" >>"$run_dir/up.log" 2>&1 &&
	    fleet_refs_site "$n" >>"$run_dir/up.log" 2>&1
}

# The boot-log of machine $1 decoded by the verifier (the REST JSON).
boot_log() { fleet_api get "/v1/machines/$1/boot-log"; }

test_trusted() {
	local g id t

	for g in 1 2 3; do
		id=guest$g
		if wait_state "$id" trusted "$TIMEOUT" 1 >/dev/null 2>&1; then
			t=$(fleet_since "${started[$g]}")
			ok "$id ($(cat "$run_dir/lab/$id/firmware")) is trusted, ${t}s after its start"
		else
			not_ok "$id ($(cat "$run_dir/lab/$id/firmware")) is trusted" \
			    "state: $(jq_machine "$id" .machine.state 2>/dev/null)" \
			    "reason: $(reason_of "$id" 2>/dev/null)" \
			    "console: $run_dir/lab/$id/console.log"
		fi
	done
}

# The verifier holds guest $1's log, byte for byte what its kernel serves.
test_log_stored() {
	local g=$1 id=guest$1 want got

	want=$(gexec "$g" 'sha256sum /sys/kernel/security/tpm0/binary_bios_measurements' 2>/dev/null |
	    cut -d' ' -f1)
	got=$(jq_machine "$id" '.machine.boot_log.sha256 // .boot_log.sha256 // empty')
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		ok "$id: the verifier holds the boot's firmware event log (sha256 ${want:0:16}.. as the guest's securityfs)"
	else
		not_ok "$id: the verifier holds the boot's firmware event log" \
		    "guest: $want" "verifier: $got"
	fi
}

test_guest1_log() {
	local j sb kernel_digest apps

	j=$(boot_log guest1)
	sb=$(jq -r '.facts.secure_boot' <<<"$j")
	if [ "$sb" = 1 ]; then
		ok "guest1: the decoded log says Secure Boot is on"
	else
		not_ok "guest1: the decoded log says Secure Boot is on" \
		    "facts: $(jq -c .facts <<<"$j" | head -c 600)"
	fi
	kernel_digest=$(pesign -h -i "$FLEET_KERNEL" | awk '{ print $2 }')
	apps=$(jq -r '[.events[] | select(.type_name == "EV_EFI_BOOT_SERVICES_APPLICATION") | .digests.sha256] | join(" ")' <<<"$j")
	if [ -n "$kernel_digest" ] && [[ " $apps " == *" $kernel_digest "* ]]; then
		ok "guest1: the log's EFI applications include the kernel, Authenticode ${kernel_digest:0:16}.. (pesign -h)"
	else
		not_ok "guest1: the log's EFI applications include the kernel" \
		    "pesign -h: $kernel_digest" "applications: $apps"
	fi
	if fleet_cli machine guest1 boot-log >"$run_dir/boot-log-guest1.txt" 2>&1 &&
	    grep -q 'EV_EFI_BOOT_SERVICES_APPLICATION' "$run_dir/boot-log-guest1.txt" &&
	    grep -q 'EV_SEPARATOR' "$run_dir/boot-log-guest1.txt"; then
		ok "imatrust machine guest1 boot-log lists the events ($(grep -c . "$run_dir/boot-log-guest1.txt") lines)"
	else
		not_ok "imatrust machine guest1 boot-log lists the events" \
		    "$(head -n 5 "$run_dir/boot-log-guest1.txt")"
	fi
}

test_other_logs() {
	local sb3

	check "guest2: the decoded log says Secure Boot is off" \
	    [ "$(boot_log guest2 | jq -r .facts.secure_boot)" = 0 ]
	sb3=$(boot_log guest3 | jq -r '[.events[] | select(.type_name | startswith("EV_EFI"))] | length')
	check "guest3 (SeaBIOS): a log without any UEFI event" [ "$sb3" = 0 ]
}

test_forged() {
	local reason

	if wait_state guest4 failed "$TIMEOUT" 1 >/dev/null 2>&1; then
		ok "guest4 (its agent sends another boot's log) is failed"
	else
		not_ok "guest4 (its agent sends another boot's log) is failed" \
		    "state: $(jq_machine guest4 .machine.state 2>/dev/null)" \
		    "reason: $(reason_of guest4 2>/dev/null)"
	fi
	reason=$(reason_of guest4)
	if grep -Eq 'PCR [0-9]' <<<"$reason"; then
		ok "guest4: the reason names the PCR that disagrees ($(head -c 160 <<<"$reason"))"
	else
		not_ok "guest4: the reason names the PCR that disagrees" "reason: $reason"
	fi
}

tests() {
	local g

	set +e	# a failing step is a "not ok", never the end of the run
	echo "TAP version 13"
	tap_guard "$run_dir/up.log"
	if ! fleet_prepare >"$run_dir/up.log" 2>&1 ||
	    ! fleet_fresh_verifier 30 >>"$run_dir/up.log" 2>&1 ||
	    ! fleet_refs_image >>"$run_dir/up.log" 2>&1; then
		not_ok "kernel, golden image, PKI, verifier" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	mkdir -p "$run_dir/site4/lab"
	cp "$FORGED" "$run_dir/site4/lab/boot-log"
	{ cat "$ROOT/deploy/config/agent.conf"
	  echo "boot_log = /srv/site/lab/boot-log"; } >"$run_dir/agent4.conf"
	if start_guest 1 uefi && start_guest 2 uefi-nosb &&
	    start_guest 3 bios && start_guest 4 uefi \
	    --agent-conf "$run_dir/agent4.conf" --site "$run_dir/site4"; then
		ok "guests started: 1 uefi, 2 uefi-nosb, 3 bios, 4 uefi with a forged log"
	else
		not_ok "guests started" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	fleet_ref_add /srv/site/lab/boot-log "sha256:$(sha256sum "$FORGED" | cut -d' ' -f1)"
	fleet_ref_add /srv/site/lab/boot-log "sha1:$(sha1sum "$FORGED" | cut -d' ' -f1)"
	log "waiting for the guests (accelerator $("$FLEET_LAB" accel "$FLEET_KERNEL"))"
	test_trusted
	for g in 1 2 3; do
		test_log_stored "$g"
	done
	test_guest1_log
	test_other_logs
	test_forged
	fleet_test_done
}

fleet_test_main "$@"
