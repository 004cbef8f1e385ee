#!/bin/bash
# Fleet test of issue 34: the chain Debian boots, shim + MOK + systemd-boot
# + a unified kernel image (deploy/lab/lab.sh guest --chain shim-uki).
#
#   tests/guest/fleet/uki.sh [--keep]
#
#   guest1  OVMF with the lab's keys (Secure Boot on); shim-unsigned's
#           shim signed with the lab db key as EFI/BOOT/BOOTX64.EFI,
#           systemd-boot as its grubx64.efi, a UKI (systemd-stub, the
#           patched kernel, the lab's command line) as EFI/Linux
#
#   - the UKI's PCR 11 is predicted from its sections (uefi.sh uki:
#     systemd-measure); a policy "uki" with "secure_boot": "required" and
#     "uki": [the entry `imatrust ref uki --name lab-a` prints for it: its
#     sections' digests] is put; the guest is trusted under it (one boot);
#   - its firmware log, as the verifier decodes it, has shim's SbatLevel
#     in PCR 7, MokList (and MokListX) in PCR 14, the stub's events in
#     PCR 11 (.linux, .osrel, .cmdline) whose replay is the prediction,
#     Secure Boot on; `imatrust machine guest1 boot-log` lists them;
#   - systemd-pcrphase: the stub set StubPcrKernelImage (the units'
#     condition holds), the units are masked by the UKI's command line,
#     the guest's PCR 11 is the prediction (nothing extended it after the
#     stub);
#   - a UKI with another command line (the same kernel, one word more),
#     written onto the guest's ESP from inside the guest, and a reboot:
#     guest1 is untrusted, rule uki, PCR 11, section .cmdline with the
#     second UKI's digest of it (imatrust ref uki), the reason text "the
#     UKI's .cmdline is <it>";
#   - systemd-pcrphase run by hand: "sysinit" then "ready" extend PCR 11
#     to the log's replay extended by a prefix of systemd 252's phase
#     words, which the verifier accepts (proto/DESIGN.md section 12: the
#     machine stays untrusted by rule uki, not failed); "ready" once more
#     is out of order, and the evidence is failed, naming PCR 11.
#
# TAP on stdout, last line "N passed, N failed". Environment as run.sh.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

UEFI_SH=$ROOT/deploy/lab/uefi.sh
readonly UEFI_SH
PCR11_A=
PCR11_B=

boot_log() { fleet_cli api GET "/v1/machines/$1/boot-log"; }

# uki OUT CMDLINE: a UKI of the lab kernel; prints its PCR 11 (sha256).
uki() {
	"$UEFI_SH" uki "$1" --kernel "$FLEET_KERNEL" --options "$2"
}

# The policy: Secure Boot required, and the UKI named by its sections'
# digests as `imatrust ref uki` gives them for the UKI the guest boots
# (the same bytes: uefi.sh uki signs the kernel once per kernel).
put_policy() {
	local entry

	entry=$(fleet_cli ref uki --name lab-a "$run_dir/uki-a.efi") || return 1
	echo "$entry" >"$run_dir/uki-a.json"
	jq -n --argjson e "$entry" '{machines: ["guest1"], sources: ["*"],
	    boot: {log: "required", secure_boot: "required", uki: [$e]}}' \
	    >"$run_dir/uki.json" &&
	    fleet_cli policy put uki "$run_dir/uki.json" >"$run_dir/policy.log" 2>&1
}

test_trusted() {
	local t0=$1

	if wait_state guest1 trusted "$TIMEOUT" 1 >/dev/null 2>&1; then
		ok "guest1 (shim, systemd-boot, UKI) trusted under policy uki (Secure Boot required, the UKI named by its sections), $(fleet_since "$t0")s after its start"
	else
		not_ok "guest1 (shim, systemd-boot, UKI) trusted under policy uki" \
		    "state: $(jq_machine guest1 .machine.state 2>/dev/null)" \
		    "reason: $(reason_of guest1 2>/dev/null)" \
		    "console: $run_dir/lab/guest1/console.log"
	fi
}

# count_events JSON PCR JQ-FILTER: the events of PCR that FILTER selects.
count_events() {
	jq --argjson p "$2" "[.events[] | select(.pcr == \$p) | select($3)] | length" <<<"$1"
}

test_log() {
	local j sbat mok stub pcr11

	j=$(boot_log guest1)
	echo "$j" >"$run_dir/boot-log-guest1.json"
	check "guest1: the decoded log says Secure Boot is on" \
	    [ "$(jq -r .facts.secure_boot <<<"$j")" = true ]
	sbat=$(count_events "$j" 7 '.data.name? == "SbatLevel"')
	if [ "$sbat" -ge 1 ]; then
		ok "guest1: shim's SbatLevel in PCR 7 ($sbat event)"
	else
		not_ok "guest1: shim's SbatLevel in PCR 7" \
		    "PCR 7: $(jq -c '[.events[] | select(.pcr == 7) | [.type_name, .data.name?]]' <<<"$j")"
	fi
	mok=$(jq -r '[.events[] | select(.pcr == 14) | .description // .data.text? // .type_name] | join(", ")' <<<"$j")
	if grep -q 'MokList' <<<"$mok"; then
		ok "guest1: shim's MOK lists in PCR 14 ($mok)"
	else
		not_ok "guest1: shim's MokList in PCR 14" "PCR 14: $mok"
	fi
	stub=$(jq -r '[.events[] | select(.pcr == 11) | .description // .type_name] | join(", ")' <<<"$j")
	pcr11=$(jq -r '.pcrs.sha256["11"] // .pcrs["11"].sha256 // empty' <<<"$j")
	if grep -q '\.linux' <<<"$stub" && grep -q '\.cmdline' <<<"$stub" &&
	    [ "$pcr11" = "$PCR11_A" ]; then
		ok "guest1: the stub's events in PCR 11 ($stub), replayed to the prediction ${PCR11_A:0:16}.."
	else
		not_ok "guest1: the stub's events in PCR 11, replayed to the prediction" \
		    "PCR 11: $stub" "replay: $pcr11" "systemd-measure: $PCR11_A"
	fi
	if fleet_cli machine guest1 boot-log >"$run_dir/boot-log-guest1.txt" 2>&1 &&
	    grep -q 'SbatLevel' "$run_dir/boot-log-guest1.txt" &&
	    grep -q 'MokList' "$run_dir/boot-log-guest1.txt" &&
	    grep -q '\.cmdline' "$run_dir/boot-log-guest1.txt"; then
		ok "imatrust machine guest1 boot-log shows SbatLevel, MokList and the UKI's .cmdline"
	else
		not_ok "imatrust machine guest1 boot-log shows SbatLevel, MokList and .cmdline" \
		    "$(grep -E ' (7|11|14) ' "$run_dir/boot-log-guest1.txt" | head -n 20)"
	fi
}

# What systemd-pcrphase would do on this boot, and what it did.
test_pcrphase() {
	local out

	# shellcheck disable=SC2016 # expanded in the guest
	out=$(gexec 1 'ls /sys/firmware/efi/efivars | grep -c "^StubPcrKernelImage-";
	    systemctl is-enabled systemd-pcrphase.service systemd-pcrphase-sysinit.service;
	    cat /sys/class/tpm/tpm0/pcr-sha256/11' 2>&1)
	echo "$out" >"$run_dir/pcrphase.txt"
	if [ "$(sed -n 1p <<<"$out")" = 1 ] &&
	    [ "$(sed -n 2,3p <<<"$out" | sort -u)" = masked-runtime ] &&
	    [ "$(sed -n 4p <<<"$out" | tr 'A-F' 'a-f')" = "$PCR11_A" ]; then
		ok "guest1: the stub set StubPcrKernelImage (pcrphase's condition), the pcrphase units are masked by the UKI's command line, the guest's PCR 11 is the prediction"
	else
		not_ok "guest1: StubPcrKernelImage set, pcrphase masked, PCR 11 the prediction" \
		    "guest: $(tr '\n' ' ' <<<"$out")" "systemd-measure: $PCR11_A"
	fi
}

# The second UKI onto guest1's ESP (/EFI/Linux/imatrust.efi), from inside:
# fetched over HTTP from the lab's address (apt-archive.sh serve; a 6 MB
# file through the control channel's line protocol takes minutes under
# TCG), its sha256 checked by apt-helper, copied onto the mounted ESP.
# shellcheck disable=SC2016 # expanded in the guest
write_uki() {
	local sum

	mkdir -p "$run_dir/serve"
	cp "$1" "$run_dir/serve/imatrust.efi"
	sum=$(sha256sum "$1" | cut -d' ' -f1)
	"$ROOT/deploy/lab/apt-archive.sh" serve "$run_dir/serve" >&2 || return 1
	gexec -t 120 1 '/usr/lib/apt/apt-helper download-file \
	    http://10.77.0.1:8080/imatrust.efi /tmp/uki.efi SHA256:'"$sum"' >/dev/null &&
	    esp=$(blkid -t PARTLABEL=ESP -o device) &&
	    mkdir -p /run/esp && mount -t vfat "$esp" /run/esp &&
	    cp /tmp/uki.efi /run/esp/EFI/Linux/imatrust.efi && sync &&
	    sha256sum /run/esp/EFI/Linux/imatrust.efi | cut -c1-16 &&
	    umount /run/esp && echo "$esp"'
	"$ROOT/deploy/lab/apt-archive.sh" stop
}

test_other_cmdline() {
	local cmdline out t0 r cmd_b

	cmdline="$(cat "$run_dir/lab/guest1/uki-cmdline") imatrust.lab=another-uki"
	PCR11_B=$(uki "$run_dir/uki-b.efi" "$cmdline" 2>>"$run_dir/up.log")
	if out=$(write_uki "$run_dir/uki-b.efi" 2>"$run_dir/write-uki.log") &&
	    [ "${out%%$'\n'*}" = "$(sha256sum "$run_dir/uki-b.efi" | cut -c1-16)" ]; then
		ok "guest1: a UKI with another command line (PCR 11 ${PCR11_B:0:16}..) fetched and written onto its ESP ($(tr '\n' ' ' <<<"$out"))"
	else
		not_ok "guest1: a UKI with another command line written onto its ESP" \
		    "$out" "$(tail -n 3 "$run_dir/write-uki.log")"
	fi
	t0=$(date +%s.%N)
	if out=$(reboot_guest 1); then
		ok "guest1 rebooted into the other UKI: a new boot ($out)"
	else
		not_ok "guest1 rebooted into the other UKI: a new boot" "$out"
	fi
	# the other UKI's .cmdline digest, as imatrust ref uki gives it
	cmd_b=$(fleet_cli ref uki "$run_dir/uki-b.efi" | jq -r '.[".cmdline"]')
	# shellcheck disable=SC2016 # $d is jq's variable
	if wait_untrusted_for guest1 '.check == "boot" and .rule == "uki" and
	    .pcr == 11 and .section == ".cmdline" and .uki == "lab-a" and
	    .digest == $d' "$cmd_b"; then
		r=$(reason_of guest1)
		if grep -q "the UKI's .cmdline is $cmd_b" <<<"$r"; then
			ok "guest1 untrusted $(fleet_since "$t0")s after the reboot, rule uki, PCR 11, the changed section .cmdline named with its digest: $(head -c 400 <<<"$r")"
		else
			not_ok "guest1's reason text names the UKI's .cmdline and its digest" "reason: $r"
		fi
	else
		not_ok "guest1 untrusted by the uki rule, PCR 11, section .cmdline ${cmd_b:0:16}.." \
		    "state: $(jq_machine guest1 .machine.state)" "reason: $(reason_of guest1)"
	fi
}

# wait_untrusted_for ID FILTER [DIGEST], as uefi.sh.
wait_untrusted_for() {
	local r

	wait_state "$1" untrusted 120 0.5 >/dev/null 2>&1 || return 1
	r=$(jq_machine "$1" .machine.state_reason)
	jq -e --arg d "${3:-}" "$2" <<<"$r" >/dev/null 2>&1
}

# pcrphase's extend of PCR 11 is in no firmware-log event: the verifier
# accepts the log's replay extended by a prefix of systemd 252's phase
# words ("sysinit", then "ready" on a boot without an initrd), and no
# more: "ready" once again is none.
test_pcrphase_words() {
	local r seen moved=0 i

	seen=$(jq_machine guest1 .machine.last_seen)
	gexec --quiet -t 30 1 '/lib/systemd/systemd-pcrphase sysinit &&
	    /lib/systemd/systemd-pcrphase ready' || true
	# evidence verified twice since (the first may have been quoted
	# before the extends): the second quoted the new PCR 11
	for i in $(seq 120); do
		r=$(jq_machine guest1 .machine.last_seen)
		[ "$r" = "$seen" ] || { moved=$((moved + 1)); seen=$r; }
		[ "$moved" -ge 2 ] && break
		sleep 0.5
	done
	r=$(reason_of guest1)
	if [ "$moved" -ge 2 ] &&
	    [ "$(jq_machine guest1 .machine.state)" = untrusted ] &&
	    jq -e '.rule == "uki"' <<<"$r" >/dev/null 2>&1; then
		ok "systemd-pcrphase sysinit, ready run by hand: PCR 11 is the log's extended by the phase words, accepted (guest1 still untrusted by rule uki, not failed, after evidence $i half-seconds on)"
	else
		not_ok "systemd-pcrphase sysinit, ready: accepted as phase words" \
		    "evidence since: $moved" \
		    "state: $(jq_machine guest1 .machine.state)" "reason: $r"
	fi
	gexec --quiet -t 30 1 '/lib/systemd/systemd-pcrphase ready' || true
	if wait_state guest1 failed 120 0.5 >/dev/null 2>&1 &&
	    r=$(reason_of guest1) && grep -q 'PCR 11' <<<"$r"; then
		ok "systemd-pcrphase ready once more, out of its order: PCR 11 past what the log and the phase words explain, guest1 failed: $(head -c 300 <<<"$r")"
	else
		not_ok "systemd-pcrphase run by hand: guest1 failed naming PCR 11" \
		    "state: $(jq_machine guest1 .machine.state)" "reason: $(reason_of guest1)"
	fi
}

tests() {
	local t0

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
	t0=$(date +%s.%N)
	if "$FLEET_LAB" guest 1 --image "$FLEET_IMAGE" --kernel "$FLEET_KERNEL" \
	    --chain shim-uki >>"$run_dir/up.log" 2>&1 &&
	    fleet_refs_site 1 >>"$run_dir/up.log" 2>&1 &&
	    PCR11_A=$(uki "$run_dir/uki-a.efi" \
	    "$(cat "$run_dir/lab/guest1/uki-cmdline")" 2>>"$run_dir/up.log") &&
	    put_policy; then
		ok "guest1 started (lab.sh guest --chain shim-uki); policy uki: Secure Boot required, the UKI lab-a by its sections ($(jq -c . "$run_dir/uki-a.json" | head -c 200)); PCR 11 predicted ${PCR11_A:0:16}.. (systemd-measure)"
	else
		not_ok "guest1 started, policy uki" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	log "waiting for guest1 (accelerator $("$FLEET_LAB" accel "$FLEET_KERNEL"))"
	test_trusted "$t0"
	test_log
	test_pcrphase
	test_other_cmdline
	test_pcrphase_words
	fleet_test_done
}

fleet_test_main "$@"
