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
#   guest5  as guest1, but booting the stock kernel (signed with the lab
#           db key, so Secure Boot lets it run): a kernel nobody referenced
#
#   - guests 1-3 are trusted; each machine holds its boot's log, and the
#     log the verifier decodes is the one the guest's kernel exposes;
#   - guest1's log shows Secure Boot on and, among the EFI applications
#     it booted, the kernel with its Authenticode digest (`pesign -h` of
#     the image); guest2's shows Secure Boot off; guest3's has none;
#   - guest4 is failed, the reason naming the PCR whose replay differs;
#   - the boot policy: `imatrust ref import-efi` of the lab's signed
#     systemd-boot and patched kernel, then a policy "measured" (log and
#     Secure Boot required, every EFI application referenced) for guests
#     1, 2 and 5: guest1 stays trusted, guest2 turns untrusted naming the
#     secure_boot rule and PCR 7, guest5 untrusted naming the applications
#     rule, PCR 4, the event, the stock kernel's Authenticode digest
#     (pesign -h) and its path; importing the stock kernel makes guest5
#     trusted again (the import's re-judge alone); guest3 (SeaBIOS, the
#     default policy, no boot rules) stays trusted.
#
# The time from start to trusted of each guest is printed (the cost of a
# UEFI boot under TCG against SeaBIOS). TAP on stdout, last line
# "N passed, N failed". Environment as run.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly FORGED="$ROOT/tests/fixtures/eventlog/patched-sb/binary_bios_measurements"

declare -A started=()
STOCK_KERNEL=

# The stock kernel (kernel/build.sh --stock, cached like the patched one).
stock_kernel() {
	STOCK_KERNEL=${IMATRUST_STOCK_KERNEL:-$("$ROOT/kernel/build.sh" --stock | tail -n 1)}
	[ -f "$STOCK_KERNEL" ]
}

start_guest() {
	local n=$1 firmware=$2

	shift 2
	started[$n]=$(date +%s.%N)
	"$FLEET_LAB" guest "$n" --image "$FLEET_IMAGE" --kernel "$FLEET_KERNEL" \
	    --firmware "$firmware" "$@" >>"$run_dir/up.log" 2>&1 &&
	    fleet_refs_site "$n" >>"$run_dir/up.log" 2>&1
}

# The boot-log of machine $1 decoded by the verifier (the REST JSON).
boot_log() { fleet_cli api GET "/v1/machines/$1/boot-log"; }

test_trusted() {
	local g id t

	for g in 1 2 3 5; do
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
	if [ "$sb" = true ]; then
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
	    [ "$(boot_log guest2 | jq -r .facts.secure_boot)" = false ]
	sb3=$(boot_log guest3 | jq -r '[.events[] | select(.type_name | startswith("EV_EFI"))] | length')
	check "guest3 (SeaBIOS): a log without any UEFI event" [ "$sb3" = 0 ]
}

# wait_untrusted_for ID FILTER [DIGEST]: ID turns untrusted with a
# reason FILTER accepts (jq, $d bound to DIGEST).
wait_untrusted_for() {
	local r

	wait_state "$1" untrusted 120 0.5 >/dev/null 2>&1 || return 1
	r=$(jq_machine "$1" .machine.state_reason)
	jq -e --arg d "${3:-}" "$2" <<<"$r" >/dev/null 2>&1
}

test_boot_policy() {
	local efi=$run_dir/efi sd stock_digest r

	mkdir -p "$efi"
	sd=$("$ROOT/deploy/lab/uefi.sh" sdboot)
	if "$ROOT/deploy/lab/uefi.sh" sign "$sd" "$efi/BOOTX64.EFI" &&
	    "$ROOT/deploy/lab/uefi.sh" sign "$FLEET_KERNEL" "$efi/linux.efi" &&
	    fleet_cli ref import-efi --source lab-chain "$efi/BOOTX64.EFI" \
	    "$efi/linux.efi" >"$run_dir/import-efi.log" 2>&1; then
		ok "imatrust ref import-efi: the lab's signed systemd-boot and patched kernel ($(tail -n 1 "$run_dir/import-efi.log"))"
	else
		not_ok "imatrust ref import-efi of the lab's boot chain" \
		    "$(tail -n 3 "$run_dir/import-efi.log")"
	fi
	cat >"$run_dir/measured.json" <<-EOF
	{"machines": ["guest1", "guest2", "guest5"], "sources": ["*"],
	 "boot": {"log": "required", "secure_boot": "required",
	          "applications": "references"}}
	EOF
	if fleet_cli policy put measured "$run_dir/measured.json" >"$run_dir/policy.log" 2>&1; then
		ok "policy measured stored ($(tail -n 1 "$run_dir/policy.log"))"
	else
		not_ok "policy measured stored" "$(tail -n 3 "$run_dir/policy.log")"
	fi
	check "guest1 (Secure Boot on, referenced chain) stays trusted under the boot policy" \
	    [ "$(jq_machine guest1 .machine.state)" = trusted ]
	if wait_untrusted_for guest2 '.check == "boot" and .rule == "secure_boot" and .pcr == 7'; then
		ok "guest2 (Secure Boot off) untrusted: $(reason_of guest2 | head -c 200)"
	else
		not_ok "guest2 (Secure Boot off) untrusted by the secure_boot rule, PCR 7" \
		    "state: $(jq_machine guest2 .machine.state)" "reason: $(reason_of guest2)"
	fi
	# the digest of the image as the ESP holds it (signed: sbsign pads)
	"$ROOT/deploy/lab/uefi.sh" sign "$STOCK_KERNEL" "$efi/stock.efi"
	stock_digest=sha256:$(pesign -h -i "$efi/stock.efi" | awk '{ print $2 }')
	# shellcheck disable=SC2016 # $d is jq's variable
	if wait_untrusted_for guest5 '.check == "boot" and .rule == "applications" and
	    .pcr == 4 and .type == "EV_EFI_BOOT_SERVICES_APPLICATION" and
	    (.event | type) == "number" and .digest == $d and
	    (.path | test("linux.efi"))' "$stock_digest"; then
		ok "guest5 (the stock kernel, unreferenced) untrusted: PCR 4, the event, its Authenticode digest (pesign -h), the rule: $(reason_of guest5 | head -c 300)"
	else
		not_ok "guest5 (stock kernel) untrusted naming PCR 4, the event, the digest and the rule" \
		    "state: $(jq_machine guest5 .machine.state)" "reason: $(reason_of guest5)" \
		    "pesign -h: $stock_digest"
	fi
	fleet_cli ref import-efi --source stock-kernel "$efi/stock.efi" >>"$run_dir/import-efi.log" 2>&1
	if wait_state guest5 trusted 60 0.5 >/dev/null 2>&1; then
		ok "imatrust ref import-efi of the stock kernel makes guest5 trusted again (the import's re-judge)"
	else
		not_ok "importing the stock kernel makes guest5 trusted again" \
		    "state: $(jq_machine guest5 .machine.state)" "reason: $(reason_of guest5)"
	fi
	check "guest3 (SeaBIOS, default policy without boot rules) stays trusted" \
	    [ "$(jq_machine guest3 .machine.state)" = trusted ]
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
	if ! stock_kernel >"$run_dir/up.log" 2>&1 ||
	    ! fleet_prepare >>"$run_dir/up.log" 2>&1 ||
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
	    --agent-conf "$run_dir/agent4.conf" --site "$run_dir/site4" &&
	    start_guest 5 uefi --kernel "$STOCK_KERNEL"; then
		ok "guests started: 1 uefi, 2 uefi-nosb, 3 bios, 4 uefi with a forged log, 5 uefi with the stock kernel"
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
	test_boot_policy
	fleet_test_done
}

fleet_test_main "$@"
