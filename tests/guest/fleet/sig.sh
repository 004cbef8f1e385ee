#!/bin/bash
# Fleet test of issue 11: a guest judged by IMA signatures alone.
#
#   tests/guest/fleet/sig.sh [--keep]
#
# The signed golden image (deploy/image/build-debian.sh --signed: every
# regular file carries security.ima, signed with the lab IMA key of
# deploy/pki.sh), one guest booted with ima_template=ima-sig (the kernel
# has CONFIG_IMA_APPRAISE so the records carry the signatures; nothing
# appraises), a verifier with NO digest reference at all: only the lab
# key (`imatrust key add`) and a policy whose sources are `key:*`. The
# guest's site disk holds its agent.conf, signed with the lab key as an
# operator would, and two binaries an attacker brings:
#
#   foreign  a copy of true signed with a key of the attacker's own
#   forged   another copy of true carrying the lab's signature of the
#            image's /usr/bin/true (a real signature, for other bytes)
#
#   - every record of the guest's list but boot_aggregate carries a
#     signature by the lab key, and the machine is trusted;
#   - foreign runs: untrusted, the reason names the file and the foreign
#     key id (a key the policy does not have);
#   - the operator adds the foreign key: trusted again, the re-judge
#     alone (the agent is stopped meanwhile: no new record reaches the
#     verifier);
#   - forged runs: untrusted, verdict bad-signature, the reason names the
#     file and the lab key id: a copied signature does not vouch for other
#     bytes.
#
# TAP on stdout, last line "N passed, N failed". Environment as run.sh:
# IMATRUST_KERNEL, IMATRUST_IMAGE (the unsigned image the signed layer is
# made from), IMATRUST_ACCEL, IMATRUST_FLEET_TIMEOUT.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly POLICY=signed-only

# keyid CERT: the key id evmctl puts in a v2 signature (SKID's last 4 bytes).
keyid() {
	openssl x509 -in "$1" -noout -ext subjectKeyIdentifier | tail -n 1 |
	    tr -d ' :' | tr 'A-F' 'a-f' | tail -c 9
}

prepare_image() {
	local out

	signed=$("$ROOT/deploy/image/build-debian.sh" --signed 2>"$run_dir/signed.log" |
	    tail -n 1) || { not_ok "signed image built" "$(tail -n 3 "$run_dir/signed.log")"; return 1; }
	lab_id=$(keyid "$signed/ima.pem")
	out=$(debugfs -R 'ea_get -x /usr/bin/ls security.ima' "$signed/rootfs.ext4" 2>/dev/null |
	    tr -d ' \n')
	if [[ "$out" == *"=030204$lab_id"* ]]; then
		ok "signed image: $(sed -n 's/^signed_files //p' "$signed/manifest") files signed by key $lab_id, security.ima kept in rootfs.ext4 (debugfs)"
	else
		not_ok "signed image: security.ima of /usr/bin/ls in rootfs.ext4" "$out"
		return 1
	fi
}

# The attacker's files on the site disk: foreign (own key), forged (the
# lab's signature of another file).
prepare_site() {
	local s=$run_dir/site sig

	mkdir -p "$s/lab"
	openssl req -x509 -newkey rsa:2048 -nodes -days 30 \
	    -keyout "$run_dir/foreign.key" -out "$run_dir/foreign.pem" \
	    -subj "/CN=not the lab" -addext subjectKeyIdentifier=hash \
	    2>/dev/null
	foreign_id=$(keyid "$run_dir/foreign.pem")
	{ cat /usr/bin/true; printf '\nimatrust sig test: foreign\n'; } >"$s/lab/foreign"
	{ cat /usr/bin/true; printf '\nimatrust sig test: forged\n'; } >"$s/lab/forged"
	chmod 0755 "$s/lab/foreign" "$s/lab/forged"
	evmctl ima_sign --key "$run_dir/foreign.key" "$s/lab/foreign" >/dev/null 2>&1
	sig=$(getfattr -h -n security.ima -e hex "$signed/root/usr/bin/true" 2>/dev/null |
	    sed -n 's/^security.ima=//p')
	setfattr -h -n security.ima -v "$sig" "$s/lab/forged"
	[ "$(getfattr -h -n security.ima -e hex "$s/lab/foreign" 2>/dev/null | grep -c "=0x030204$foreign_id")" = 1 ] &&
	    [ "$(getfattr -h -n security.ima -e hex "$s/lab/forged" 2>/dev/null | grep -c "=0x030204$lab_id")" = 1 ]
}

test_trusted() {
	local out total signed_n

	if out=$(wait_state guest1 trusted "$TIMEOUT" 1 2>&1); then
		ok "guest1 (signed image, ima-sig, no digest references) is trusted"
	else
		not_ok "guest1 (signed image, ima-sig, no digest references) is trusted" \
		    "state: $(jq_machine guest1 .machine.state 2>/dev/null)" \
		    "reason: $(reason_of guest1 2>/dev/null)" \
		    "console: $run_dir/lab/guest1/console.log"
	fi
	out=$(gexec 1 "grep -v ' boot_aggregate' $IMA_LIST" 2>/dev/null)
	total=$(grep -c . <<<"$out")
	signed_n=$(awk -v k="030204$lab_id" '$3 == "ima-sig" && index($6, k) == 1' <<<"$out" | wc -l)
	if [ "$total" -gt 100 ] && [ "$signed_n" = "$total" ]; then
		ok "guest1: all $total records but boot_aggregate carry a signature by key $lab_id"
	else
		not_ok "guest1: every record carries a signature by key $lab_id" \
		    "$signed_n of $total" "$(awk -v k="030204$lab_id" 'index($6, k) != 1' <<<"$out" | head -n 3)"
	fi
	out=$(gexec 1 "grep -c appraise /sys/kernel/security/ima/policy" 2>/dev/null || true)
	check "guest1: no appraise rule in the IMA policy (appraisal stays off)" [ "$out" = 0 ]
}

# run_attacker NAME: exec /srv/site/lab/NAME, wait for untrusted; sets reason.
run_attacker() {
	gexec --quiet 1 "/srv/site/lab/$1" || true
	wait_state guest1 untrusted 120 0.2 >/dev/null 2>&1 || return 1
	reason=$(reason_of guest1)
}

test_foreign() {
	local p=/srv/site/lab/foreign

	reason=
	if run_attacker foreign; then
		ok "guest1: a binary signed with a foreign key turns it untrusted"
	else
		not_ok "guest1: a binary signed with a foreign key turns it untrusted" \
		    "$(machine guest1 | jq -c .machine)"
	fi
	if jq -e --arg p "$p" --arg k "$foreign_id" \
	    '.path == $p and .keyid == $k and (.why | test($k))' <<<"$reason" >/dev/null; then
		ok "guest1: the reason names $p and key $foreign_id"
	else
		not_ok "guest1: the reason names $p and key $foreign_id" "reason: $reason"
	fi
	rejudged_alone 1 guest1 "imatrust key add of the foreign key" \
	    fleet_cli key add --name foreign "$run_dir/foreign.pem"
	check "guest1 trusted once its agent streams again" \
	    [ "$(caught_up 1 guest1)" = trusted ]
}

test_forged() {
	local p=/srv/site/lab/forged

	reason=
	if run_attacker forged; then
		ok "guest1: a binary carrying a copied lab signature turns it untrusted"
	else
		not_ok "guest1: a binary carrying a copied lab signature turns it untrusted" \
		    "$(machine guest1 | jq -c .machine)"
	fi
	if jq -e --arg p "$p" --arg k "$lab_id" \
	    '.path == $p and .verdict == "bad-signature" and .keyid == $k' <<<"$reason" >/dev/null; then
		ok "guest1: verdict bad-signature, the reason names $p and key $lab_id"
	else
		not_ok "guest1: verdict bad-signature naming $p and key $lab_id" "reason: $reason"
	fi
}

tests() {
	set +e	# a failing step is a "not ok", never the end of the run
	echo "TAP version 13"
	tap_guard "$run_dir/up.log"
	if ! fleet_prepare >"$run_dir/up.log" 2>&1; then
		not_ok "kernel, golden image, PKI" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	prepare_image || { fleet_test_done; exit 1; }
	if ! prepare_site; then
		not_ok "attacker files signed (foreign key, copied signature)"
		fleet_test_done
		exit 1
	fi
	cat >"$run_dir/policy.json" <<-EOF
	{"machines": ["guest*"], "default": false, "sources": ["key:*"],
	 "excludes": [], "violations": "allow", "any_path": "deny"}
	EOF
	if fleet_fresh_verifier 30 >>"$run_dir/up.log" 2>&1 &&
	    fleet_cli key add --name lab "$signed/ima.pem" >>"$run_dir/up.log" 2>&1 &&
	    fleet_cli policy put "$POLICY" "$run_dir/policy.json" >>"$run_dir/up.log" 2>&1 &&
	    "$FLEET_LAB" guest 1 --image "$signed" --kernel "$FLEET_KERNEL" \
	    --template ima-sig --site "$run_dir/site" \
	    --sign-site "$FLEET_PKI/ima.key" >>"$run_dir/up.log" 2>&1; then
		ok "verifier (lab key $lab_id, policy $POLICY: key:* only, no references), guest1 from the signed image"
	else
		not_ok "verifier, lab key, policy, guest1" "$(tail -n 5 "$run_dir/up.log")"
		fleet_test_done
		exit 1
	fi
	log "waiting for guest1 (accelerator $("$FLEET_LAB" accel "$FLEET_KERNEL"))"
	test_trusted
	test_foreign
	test_forged
	fleet_test_done
}

fleet_test_main "$@"
