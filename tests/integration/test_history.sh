#!/bin/bash
# test_history.sh - machines whose kernel deleted its oldest measurement
# records (protocol v3 list_start, list_start_pcr, export; verifier
# history.h), end to end: the real verifier, one swtpm per machine, the
# kernel played by tests/tools/fake_kernel and the agent by
# tests/tools/attest_probe (-L START: the list starts there, list_start_pcr
# replayed from the records before it; -N without it, -X a wrong one;
# -e "export"). Checks stored_records in the answers (held records not
# counted), an "export" answer, a boot first seen past deleted records
# under history_incomplete = refuse (untrusted, with the reason in the
# operator API and "imatrust machine") and accept (trusted with a note), a
# gap in a boot the verifier followed (untrusted under accept), a wrong
# list_start_pcr (failed, replay) and a stranger's quote (rejected).
set -u
. "$(dirname "$0")/swtpm-lib.sh"
require_tools swtpm swtpm_setup swtpm_localca openssl curl sqlite3 jq

swtpm_test_setup
ca=$tmp/ca
swtpm_ca_init "$ca"

machine() {	# machine NAME: its own swtpm behind a tpm_mux
	swtpm_manufacture "$tmp/$1/tpm" "$ca" "$tmp/$1/tpm.setup.log" ||
		bail "swtpm_setup $1" "$tmp/$1/tpm.setup.log"
	start_tpm "$1"
}
kernel() { local n=$1; shift; as "$n" "$kern" "$tmp/$n/list" "$@" >/dev/null; }
evidence() {
	local n=$1
	shift
	as "$n" "$probe" nonce >/dev/null
	as "$n" "$probe" evidence "$tmp/$n/list" "$@"
}

# --- the verifier -------------------------------------------------------------
verifier_cert
port=$(swtpm_free_ports)
swtpm_manufacture "$tmp/ca-init" "$ca" "$tmp/ca-init.setup.log" ||
	bail "EK CA" "$tmp/ca-init.setup.log"
swtpm_ca_bundle "$ca" "$ca/bundle.pem"
verifier_conf "$tmp/v.conf" "$port" "$tmp/v.db" "ek_ca = $ca/bundle.pem"
token=$("$bin/imatrust-verifier" -c "$tmp/v.conf" token add test) ||
	bail "token add"
verifier_run "$tmp/v.conf" "$port" "$tmp/verifier.log"
export PROBE_URL=https://127.0.0.1:$port PROBE_CA=$tmp/cert.pem TSS2_LOG=all+none

api_url=https://127.0.0.1:$port
policy() {	# policy refuse|accept: the default policy's history_incomplete
	api PUT /v1/policies/default "{\"default\":true,\"sources\":[\"*\"],\"history_incomplete\":\"$1\"}" >/dev/null
}
add_ref /usr/bin/ok fine
add_ref /usr/bin/evil "not fine"

# --- stored_records, held records, export ------------------------------------
machine good
as good "$probe" enroll >/dev/null
kernel good boot
for _ in 1 2 3 4 5; do kernel good file /usr/bin/ok fine; done
out=$(evidence good -n 3 -m -L 0)
expect "v1 evidence held ('more'): next_index 3, no stored_records (v1)" \
	"state=enrolling next_index=3" "$out"
out=$(evidence good -f 3 -e)
expect "v3 export evidence: all six stored, stored_records=6" \
	"state=trusted next_index=6 stored_records=6" "$out"
kernel good file /usr/bin/ok fine
kernel good file /usr/bin/ok fine
out=$(evidence good -f 6 -n 1 -m -e)
expect "records held past the quote are not in stored_records" \
	"next_index=7 stored_records=6" "$out"
out=$(evidence good -f 7 -e)
expect "... until a quote proves them" "next_index=8 stored_records=8" "$out"
# the agent deleted 0..7 (confirmed): list_start 8, nothing changes
kernel good file /usr/bin/ok fine
out=$(evidence good -f 8 -L 8 -e)
expect "list_start at the stored index: trusted, stored_records=9" \
	"state=trusted next_index=9 stored_records=9" "$out"
expect "... no history reason" '"check":"evidence"' "$(reason_of good)"

# --- a boot first seen past deleted records ----------------------------------
# attacker 2: a TPM of its own, enrolled; its first evidence says records
# 0..2 are gone (one of them unknown), with the PCR value that matches
machine fresh
as fresh "$probe" enroll >/dev/null
kernel fresh boot
kernel fresh file /usr/bin/evil "not fine"
kernel fresh file /usr/bin/ok fine
kernel fresh file /usr/bin/ok fine
kernel fresh file /usr/bin/ok fine
out=$(evidence fresh -f 3 -L 3)
expect "default policy (refuse): untrusted, next_index past the cut" \
	"state=untrusted next_index=5 stored_records=5" "$out"
r=$(reason_of fresh)
expect "... the reason in the operator API names the deleted records" \
	'history incomplete: records 0..2 of this boot were deleted from the machine before the verifier stored them' "$r"
expect "... and the policy's refusal" '"history_incomplete":"refuse"' "$r"
out=$(IMATRUST_URL=https://127.0.0.1:$port IMATRUST_CA=$tmp/cert.pem \
	IMATRUST_TOKEN=$token "$bin/imatrust" machine fresh 2>&1)
expect "... and 'imatrust machine' shows it" "history incomplete" "$out"
ev=$(api GET /v1/machines/fresh/events)
expect "... as the event of the state change" "history incomplete" "$ev"
policy accept
expect "history_incomplete = accept: the re-judge trusts it" trusted \
	"$(state_of fresh)"
out=$(evidence fresh -f 5 -L 3)
expect "... and its evidence" "state=trusted next_index=5" "$out"
expect "... the gap stays as a note" \
	'"history":{"check":"history","from":0,"to":2' "$(reason_of fresh)"
expect "the policy shows the setting" '"history_incomplete":"accept"' \
	"$(api GET /v1/policies/default)"

# --- a gap in a boot the verifier followed: untrusted under accept ----------
kernel good file /usr/bin/evil "not fine"
kernel good file /usr/bin/ok fine
kernel good file /usr/bin/ok fine
out=$(evidence good -f 11 -L 11)
expect "records 9..10 deleted unconfirmed: untrusted under accept" \
	"state=untrusted next_index=12" "$out"
expect "... reason: a history gap in a followed boot" \
	'history gap: records 9..10 of this boot' "$(reason_of good)"

# --- a wrong list_start_pcr, none at all, a stranger ------------------------
machine wrong
as wrong "$probe" enroll >/dev/null
kernel wrong boot
kernel wrong file /usr/bin/ok fine
kernel wrong file /usr/bin/ok fine
out=$(evidence wrong -f 2 -L 2 -X)
expect "a wrong list_start_pcr: failed, next_index at the list start" \
	"state=failed next_index=2 stored_records=0" "$out"
expect "... reason: replay" '"check":"replay"' "$(reason_of wrong)"
out=$(evidence wrong -f 2 -L 2 -N)
expect "no list_start_pcr past deleted records: failed" "state=failed" "$out"
expect "... reason: history" '"check":"history"' "$(reason_of wrong)"
mkdir -p "$tmp/other-ak"
out=$(evidence wrong -f 2 -L 2 -a "$tmp/other-ak")
expect "attacker 1, a quote by another AK with list_start: rejected" \
	'status=403' "$out"
expect "... nothing of the boot stored" 0 \
	"$(db_query "$tmp/v.db" "select count(*) from boots where machine_id='wrong'")"
out=$(evidence wrong -f 2 -L 2)
expect "the right value: trusted (policy accept)" \
	"state=trusted next_index=3 stored_records=3" "$out"

echo "1..$tap_n"
