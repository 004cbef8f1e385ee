#!/bin/bash
# Fleet test of issue 12: guests boot through UEFI and their firmware event
# log is checked against their quotes.
#
#   tests/guest/fleet/uefi.sh [--keep]
#
#   guest1  OVMF, Secure Boot on (the lab's PK/KEK/db), systemd-boot and
#           the kernel signed with the lab db key (deploy/lab/uefi.sh)
#   guest2  OVMF in setup mode (Secure Boot off), unsigned chain
#   guest3  SeaBIOS and QEMU's -kernel (its log has no UEFI events); its
#           swtpm has the banks sha256 and sha384 (no sha1), the kernel
#           ima_hash=sha384, its agent bank = sha384 (lab.sh --bank sha384)
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
#   - baselines across reboots (issue 34): policy measured with
#     "baseline": "first-boot"; `imatrust machine guest1 boot-baseline
#     approve`; guest1 rebooted is trusted again (a new boot, resetCount
#     up); a dbx entry (the stock kernel's Authenticode hash, signed with
#     the lab's KEK) written through efivarfs and a reboot: guest1 is
#     untrusted, rule baseline, PCR 7, the dbx event of the new boot, its
#     description "dbx: 1 entry" and the baseline's "dbx: 0 entries";
#   - SHA-384 (guest3): the guest's TPM has a sha384 bank and no sha1, the
#     kernel's per-bank list has sha384 template digests, the verifier
#     holds the machine as trusted and pinned to sha384, its boot_aggregate
#     the kernel's sha384 one; an unapproved executable turns it untrusted,
#     the reason naming its path and sha384 digest.
#
# The time from start to trusted of each guest is printed (the cost of a
# UEFI boot under TCG against SeaBIOS). TAP on stdout, last line
# "N passed, N failed". Environment as run.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly FORGED="$ROOT/tests/fixtures/eventlog/patched-sb/binary_bios_measurements"
# EFI_IMAGE_SECURITY_DATABASE_GUID (db, dbx) and the lab's owner GUID
# (deploy/lab/uefi.sh)
readonly IMAGE_SECURITY=d719b2cb-3d3a-4596-a3bc-dad00e67656f
readonly LAB_GUID=6d1a7e00-1ab0-4c1a-9e5e-696d61747275

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

# Issue 34, first half: guest1's approved baseline holds across a reboot.
test_baseline_reboot() {
	local out t0 log0 log1

	cat >"$run_dir/measured-baseline.json" <<-EOF
	{"machines": ["guest1", "guest2", "guest5"], "sources": ["*"],
	 "boot": {"log": "required", "secure_boot": "required",
	          "applications": "references", "baseline": "first-boot"}}
	EOF
	if fleet_cli policy put measured "$run_dir/measured-baseline.json" \
	    >"$run_dir/policy-baseline.log" 2>&1 &&
	    [ "$(jq_machine guest1 .machine.state)" = trusted ]; then
		ok "policy measured with \"baseline\": \"first-boot\": guest1 (its first boot is its baseline) stays trusted"
	else
		not_ok "policy measured with a baseline: guest1 stays trusted" \
		    "$(tail -n 3 "$run_dir/policy-baseline.log")" "reason: $(reason_of guest1)"
	fi
	if out=$(fleet_cli machine guest1 boot-baseline approve 2>&1) &&
	    [ "$(jq_machine guest1 .machine.state)" = trusted ]; then
		ok "imatrust machine guest1 boot-baseline approve: $out"
	else
		not_ok "imatrust machine guest1 boot-baseline approve" "$out"
	fi
	log0=$(jq_machine guest1 .boot_log.sha256)
	t0=$(date +%s.%N)
	if out=$(reboot_guest 1); then
		ok "guest1 rebooted: a new boot ($out)"
	else
		not_ok "guest1 rebooted: a new boot" "$out"
	fi
	if wait_state guest1 trusted "$TIMEOUT" 1 >/dev/null 2>&1; then
		log1=$(jq_machine guest1 .boot_log.sha256)
		ok "guest1 trusted after the reboot against its approved baseline, $(fleet_since "$t0")s after the reboot (log sha256 ${log0:0:12}.. -> ${log1:0:12}..)"
	else
		not_ok "guest1 trusted after the reboot against its approved baseline" \
		    "state: $(jq_machine guest1 .machine.state)" "reason: $(reason_of guest1)"
	fi
}

# A dbx of one entry, the stock kernel's Authenticode hash, signed with the
# lab's KEK (the .auth an authenticated write of dbx takes), written into
# guest1's efivarfs: 4 bytes of attributes (0x27, as deploy/lab/uefi-enroll)
# then the .auth, in one write. Prints the SHA-256 of the dbx efivarfs
# reads back (its data, after the 4 bytes of attributes).
write_dbx() {
	local keys auth=$run_dir/dbx.auth

	keys=$("$ROOT/deploy/lab/uefi.sh" keys) &&
	    hash-to-efi-sig-list "$run_dir/efi/stock.efi" "$run_dir/dbx.esl" >/dev/null &&
	    sign-efi-sig-list -g "$LAB_GUID" -k "$keys/KEK.key" -c "$keys/KEK.crt" \
	    dbx "$run_dir/dbx.esl" "$auth" >/dev/null &&
	    gexec --quiet 1 --put "$auth" /tmp/dbx.auth || return 1
	# shellcheck disable=SC2016 # expanded in the guest
	gexec -t 30 1 'f=/sys/firmware/efi/efivars/dbx-'"$IMAGE_SECURITY"';
	    { printf "\047\000\000\000"; cat /tmp/dbx.auth; } >/tmp/dbx.var &&
	    dd if=/tmp/dbx.var of="$f" bs=65536 2>/dev/null &&
	    cat "$f" | tail -c +5 | sha256sum'
}

# Issue 34, second half: dbx changed, rebooted, untrusted by the baseline,
# the reason naming the event and what it says now and said then.
test_baseline_dbx() {
	local out t0 ev want

	out=$(write_dbx 2>&1)
	want=$(sha256sum "$run_dir/dbx.esl" 2>/dev/null | cut -d' ' -f1)
	if [ -n "$want" ] && [ "${out%% *}" = "$want" ]; then
		ok "guest1: dbx written through efivarfs, signed with the lab's KEK; efivarfs reads back the signature list (sha256 ${want:0:16}..)"
	else
		not_ok "guest1: dbx written through efivarfs, read back as the signature list" \
		    "guest: $out" "dbx.esl: $want"
	fi
	t0=$(date +%s.%N)
	if out=$(reboot_guest 1); then
		ok "guest1 rebooted with the new dbx: a new boot ($out)"
	else
		not_ok "guest1 rebooted with the new dbx: a new boot" "$out"
	fi
	ev=$(boot_log guest1 | jq -r '[.events[] | select(.type_name ==
	    "EV_EFI_VARIABLE_DRIVER_CONFIG" and .data.name == "dbx") | .index][0]')
	# shellcheck disable=SC2016 # $d is jq's variable
	if wait_untrusted_for guest1 '.check == "boot" and .rule == "baseline" and
	    .pcr == 7 and .event == ($d | tonumber) and
	    .type == "EV_EFI_VARIABLE_DRIVER_CONFIG" and
	    .description == "dbx: 1 entry" and
	    .baseline_description == "dbx: 0 entries" and
	    .digest != .baseline_digest and (.approved_by | length) > 0' "$ev"; then
		ok "guest1 untrusted $(fleet_since "$t0")s after the reboot, rule baseline, naming PCR 7, event $ev and what it says now and said then: $(reason_of guest1 | head -c 400)"
	else
		not_ok "guest1 untrusted by its baseline, naming PCR 7, the dbx event $ev, \"dbx: 1 entry\" and \"dbx: 0 entries\"" \
		    "state: $(jq_machine guest1 .machine.state)" "reason: $(reason_of guest1)"
	fi
}

# The SHA-384 guest (guest3): banks, per-bank list, pin, boot_aggregate.
test_sha384() {
	local out ba

	out=$(gexec 3 'ls -d /sys/class/tpm/tpm0/pcr-*; head -n 1 /sys/kernel/security/ima/ascii_runtime_measurements_sha384' 2>&1)
	if grep -qx /sys/class/tpm/tpm0/pcr-sha384 <<<"$out" &&
	    ! grep -qx /sys/class/tpm/tpm0/pcr-sha1 <<<"$out" &&
	    grep -Eq '^10 [0-9a-f]{96} ima-ng sha384:[0-9a-f]{96} boot_aggregate$' <<<"$out"; then
		ok "guest3: its TPM has a sha384 bank and no sha1; record 0 of the kernel's sha384 list: a sha384 template digest, boot_aggregate sha384"
	else
		not_ok "guest3: a sha384 bank, no sha1, the kernel's sha384 list" "$out"
	fi
	check "guest3: the verifier pins the machine to bank sha384" \
	    [ "$(jq_machine guest3 .machine.bank)" = sha384 ]
	ba=$(sed -n 's/.* sha384:\([0-9a-f]*\) boot_aggregate$/\1/p' <<<"$out")
	if [ -n "$ba" ] && [ "$(jq_machine guest3 .boot.boot_aggregate)" = "$ba" ]; then
		ok "guest3: the verifier's boot_aggregate is the kernel's sha384 one (${ba:0:16}..)"
	else
		not_ok "guest3: the verifier's boot_aggregate is the kernel's sha384 one" \
		    "kernel: $ba" "verifier: $(jq_machine guest3 .boot.boot_aggregate)"
	fi
}

# An unapproved executable in guest3: untrusted, its path and sha384.
test_sha384_unapproved() {
	local bin=$run_dir/unapproved-384 path=/srv/site/lab/unapproved-384 d

	{ cat /usr/bin/true; printf '\nimatrust fleet test %s\n' "$(date +%s%N)"; } >"$bin"
	chmod 0755 "$bin"
	d=sha384:$(sha384sum "$bin" | cut -d' ' -f1)
	gexec --quiet 3 --put "$bin" "$path" && gexec --quiet 3 "$path"
	if wait_untrusted_for guest3 ".path == \"$path\" and .digest == \$d" "$d"; then
		ok "guest3 (sha384): an unapproved executable turns it untrusted, the reason naming its path and sha384 digest: $(reason_of guest3 | head -c 300)"
	else
		not_ok "guest3 (sha384): an unapproved executable turns it untrusted naming $path $d" \
		    "state: $(jq_machine guest3 .machine.state)" "reason: $(reason_of guest3)"
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
	    ! fleet_refs_image sha256,sha1,sha384 >>"$run_dir/up.log" 2>&1; then
		not_ok "kernel, golden image, PKI, verifier" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	mkdir -p "$run_dir/site4/lab"
	cp "$FORGED" "$run_dir/site4/lab/boot-log"
	{ cat "$ROOT/deploy/config/agent.conf"
	  echo "boot_log = /srv/site/lab/boot-log"; } >"$run_dir/agent4.conf"
	if start_guest 1 uefi && start_guest 2 uefi-nosb &&
	    start_guest 3 bios --bank sha384 && start_guest 4 uefi \
	    --agent-conf "$run_dir/agent4.conf" --site "$run_dir/site4" &&
	    start_guest 5 uefi --kernel "$STOCK_KERNEL"; then
		ok "guests started: 1 uefi, 2 uefi-nosb, 3 bios (sha384), 4 uefi with a forged log, 5 uefi with the stock kernel"
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
	test_sha384
	test_sha384_unapproved
	test_baseline_reboot
	test_baseline_dbx
	fleet_test_done
}

fleet_test_main "$@"
