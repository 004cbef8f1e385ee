#!/bin/bash
# test_attest.sh - the verifier end to end against a real swtpm, TLS and
# SQLite (or PostgreSQL: run-pg.sh), one protocol step at a time
# (tests/tools/attest_probe), with a harness that plays the kernel
# (tests/tools/fake_kernel: append a record, extend PCR 10). Covers what a
# real agent never sends: evidence signed by another AK, replayed and
# expired nonces, altered/removed/reordered lists, malformed requests. The
# real imatrust-agent runs in test_agent_daemon.sh.
set -u
. "$(dirname "$0")/swtpm-lib.sh"
require_tools swtpm swtpm_setup swtpm_localca openssl curl sqlite3 jq

swtpm_test_setup

# --- a CA for EK certificates, as the lab has --------------------------------
ca=$tmp/ca
swtpm_ca_init "$ca"

# manufacture DIR [uncertified]: a TPM state, with EK certificate or without
manufacture() {
	swtpm_manufacture "$1" "$ca" ${2:+"$2"} "$1.setup.log"
}

# machine NAME [uncertified]: its own swtpm behind a tpm_mux, its state dir
machine() {
	local d=$tmp/$1
	manufacture "$d/tpm" ${2:+"$2"} || bail "swtpm_setup $1" "$d/tpm.setup.log"
	start_tpm "$1"
}
# stop_tpm NAME: the swtpm and tpm_mux start_tpm started for NAME
stop_tpm() {
	local s m
	s=$(eval echo "\$swtpm_$1")
	m=$(eval echo "\$mux_$1")
	kill "$m" "$s" 2>/dev/null
	wait "$m" "$s" 2>/dev/null
}
# kernel NAME ARGS...: fake_kernel on NAME's TPM and list
kernel() { local n=$1; shift; as "$n" "$kern" "$tmp/$n/list" "$@"; }
# evidence NAME [ARGS]: with a fresh nonce, as an agent does when its
# nonce is older than half the TTL; evidence_again reuses the saved one
evidence() { as "$1" "$probe" nonce >/dev/null; evidence_again "$@"; }
evidence_again() { local n=$1; shift; as "$n" "$probe" evidence "$tmp/$n/list" "$@"; }

# --- the verifier -------------------------------------------------------------
verifier_cert
port=$(swtpm_free_ports)
manufacture "$tmp/ca-init" || bail "EK CA" "$tmp/ca-init.setup.log"
swtpm_ca_bundle "$ca" "$ca/bundle.pem"
verifier_conf "$tmp/v.conf" "$port" "$tmp/v.db" "ek_ca = $ca/bundle.pem" \
	"nonce_ttl = 2"
token=$("$bin/imatrust-verifier" -c "$tmp/v.conf" token add test) ||
	bail "token add"
verifier_start() { verifier_run "$tmp/v.conf" "$port" "$tmp/verifier.log"; }
verifier_start
export PROBE_URL=https://127.0.0.1:$port PROBE_CA=$tmp/cert.pem TSS2_LOG=all+none

api_url=https://127.0.0.1:$port

# --- clean machine -> trusted ------------------------------------------------
machine good
out=$(as good "$probe" enroll)
expect "enrollment with an EK certificate from the CA: activated, enrolling" \
	"status=200 state=enrolling next_index=0" "$out"
add_ref /usr/bin/true-ok "fine"
kernel good boot
kernel good file /usr/bin/true-ok fine
out=$(evidence good)
expect "a clean machine is trusted, both records stored" \
	"state=trusted next_index=2" "$out"
out=$(evidence good -f 2)
expect "heartbeat evidence (no new records) keeps it trusted" \
	"state=trusted next_index=2" "$out"

# --- unknown file, wrong digest ---------------------------------------------
kernel good file /usr/bin/evil "not in any image"
out=$(evidence good -f 2)
expect "an unknown file makes it untrusted" "state=untrusted next_index=3" "$out"
r=$(reason_of good)
expect "the reason names the path" '/usr/bin/evil' "$r"
expect "... and the digest" "sha256:$(sha256_hex "not in any image")" "$r"
expect "... and the verdict unknown" '\"verdict\":\"unknown\"' "$r"

machine mm
as mm "$probe" enroll >/dev/null
kernel mm boot
kernel mm file /usr/bin/true-ok "tampered"
out=$(evidence mm)
expect "a known path with another digest makes it untrusted" "state=untrusted" "$out"
expect "... judged mismatch" '\"verdict\":\"mismatch\"' "$(reason_of mm)"

# --- adding the reference re-judges at once ---------------------------------
add_ref /usr/bin/evil "not in any image"
expect "adding the missing reference makes the machine trusted again" \
	trusted "$(state_of good)"

# --- violations follow the policy (default: allow, with an event) ------------
kernel good violation /var/log/syslog
out=$(evidence good -f 3)
expect "a violation record is accepted under violations = allow" \
	"state=trusted next_index=4" "$out"
ev=$(api GET /v1/machines/good/events)
expect "... and recorded as a violation event" '"violation"' "$ev"

# --- invalid evidence -> failed with the check named -------------------------
kernel good file /usr/bin/true-ok fine
out=$(evidence good -f 4 -t alter:4)
expect "a record altered in transit: failed" "state=failed next_index=4" "$out"
expect "... reason: replay" '\"check\":\"replay\"' "$(reason_of good)"
out=$(evidence good -f 4)
expect "the honest list afterwards is trusted again" "state=trusted next_index=5" "$out"

kernel good file /usr/bin/true-ok fine
kernel good file /usr/bin/evil "not in any image"
out=$(evidence good -f 5 -t drop:5)
expect "a record removed: failed" "state=failed" "$out"
out=$(evidence good -f 5 -t swap:5)
expect "two records reordered: failed" "state=failed" "$out"
expect "... reason: replay" '\"check\":\"replay\"' "$(reason_of good)"
out=$(evidence good -f 5)
expect "the honest list: trusted" "state=trusted next_index=7" "$out"

# --- evidence that proves nothing changes nothing ---------------------------
# A rejection is a 403 naming the check, no nonce, no state change, and at
# most one "rejected" event a minute.
events_of() { db_query "$tmp/v.db" "select count(*) from events where machine_id='$1' and kind='$2'"; }
mkdir -p "$tmp/other-ak"
out=$(evidence good -f 7 -a "$tmp/other-ak")
expect "a quote signed by a key that is not the enrolled AK: rejected (403)" \
	'status=403 error={"v":1,"error":{"status":403,"message":"rejected: signature' "$out"
expect "... the machine stays trusted" trusted "$(state_of good)"
expect "... and is written down once as a rejected event" 1 "$(events_of good rejected)"

out=$(evidence good -f 7 -k)
expect "fresh nonce: trusted" "state=trusted" "$out"
out=$(evidence_again good -f 7)
expect "the same nonce again (a replayed genuine quote): rejected (403)" \
	'"message":"nonce: ' "$out"
expect "... the machine stays trusted" trusted "$(state_of good)"

as good "$probe" nonce >/dev/null
sleep 3	# nonce_ttl = 2
out=$(evidence_again good -f 7)
expect "an expired nonce: rejected (403)" '"message":"nonce: ' "$out"
expect "... the machine stays trusted" trusted "$(state_of good)"
expect "... and within the minute no second rejected event" 1 "$(events_of good rejected)"
out=$(evidence good -f 7)
expect "a fresh nonce afterwards: trusted" "state=trusted next_index=7" "$out"

# --- attacker 1: on the network with nothing ---------------------------------
# Garbage evidence for a real machine, a flood of it: it must neither
# change the state nor hand out a nonce, nor grow the database.
raw() { curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$tmp/cert.pem" "$@"; }
raw_post() { curl -s -o "$tmp/body" -w '%{http_code}' --cacert "$tmp/cert.pem" -X POST -H 'Content-Type: application/json' "$@"; }
quote=$(head -c 145 /dev/urandom | base64 -w0)
sig=$(head -c 262 /dev/urandom | base64 -w0)
pcrs=$(for i in $(seq 0 10); do printf '"%d":"%064d",' "$i" 0; done)
junk="{\"v\":1,\"agent\":\"good\",\"nonce\":\"$(printf '%064d' 7)\",\"bank\":\"sha256\",\"quote\":\"$quote\",\"signature\":\"$sig\",\"pcrs\":{${pcrs%,}},\"first_index\":7,\"records\":\"\"}"
# rows a refusal may not write: events but the rate-limited "rejected" (at
# most one a minute: a slow run may cross a minute), and nonces (an
# expired one may go meanwhile, none may come)
rows_q="select (select count(*) from events where kind != 'rejected'), (select count(*) from events where kind = 'rejected'), (select count(*) from nonces)"
rows_before=$(db_query "$tmp/v.db" "$rows_q")
codes=$(for _ in $(seq 100); do raw_post --data "$junk" "https://127.0.0.1:$port/v1/agents/good/evidence"; echo; done | sort | uniq -c | tr -s ' ')
# each costs a signature check: past 64 at once (then 8 a second) its
# address is answered 429 before the body is read (http_peers.h); how
# many depends on the pace of this host
n403=$(awk '$2 == 403 { print $1 }' <<<"$codes")
n429=$(awk '$2 == 429 { print $1 }' <<<"$codes")
expect "100 garbage evidence posts for a real machine: all refused, the first 64 checked (403), the rest 403 or 429 ($codes)" \
	ok "$([ "${n403:-0}" -ge 64 ] && [ $((${n403:-0} + ${n429:-0})) = 100 ] && echo ok)"
m=$(curl -s --cacert "$tmp/cert.pem" "https://127.0.0.1:$port/v1/metrics")
expect "... the 429s counted as the address's failed checks" \
	"imatrust_http_refused_total{reason=\"address_failed_checks\"} ${n429:-0}" "$m"
expect "... another address is not held back: its garbage is checked (403)" \
	403 "$(raw_post --interface 127.0.0.2 --data "$junk" "https://127.0.0.1:$port/v1/agents/good/evidence")"
expect "... no nonce in the answer" "" "$(grep -o 'nonce":' "$tmp/body")"
expect "... the machine stays trusted" trusted "$(state_of good)"
rows_after=$(db_query "$tmp/v.db" "$rows_q")
IFS='|' read -r ev0 rej0 non0 <<<"$rows_before"
IFS='|' read -r ev1 rej1 non1 <<<"$rows_after"
expect "... and not one row was written (at most the minute's rejected event)" \
	"ok" "$([ "$ev1" = "$ev0" ] && [ "$rej1" -le $((rej0 + 1)) ] &&
		[ "$non1" -le "$non0" ] && echo ok || echo "$rows_before -> $rows_after")"
m=$(curl -s --cacert "$tmp/cert.pem" "https://127.0.0.1:$port/v1/metrics")
expect "... every one counted in the metrics" "imatrust_evidence_rejected_total " "$m"

for _ in $(seq 300); do raw -X POST "https://127.0.0.1:$port/v1/agents/good/nonce" >/dev/null; done 2>/dev/null
n=$(db_query "$tmp/v.db" "select count(*) from nonces where machine_id='good'")
expect "300 nonce requests from a stranger: still one nonce row for the machine" 1 "$n"
raw -X POST "https://127.0.0.1:$port/v1/agents/good/nonce" >/dev/null
expect "... and the answer says nothing about the machine (no state)" "" "$(grep -o '"state"' "$tmp/body")"
expect "... nor where its list stands" "" "$(grep -o next_index "$tmp/body")"
out=$(evidence good -f 7)
expect "the real agent goes on undisturbed: trusted" "state=trusted next_index=7" "$out"

# --- attacker 2: a TPM of their own ------------------------------------------
# mallory enrolls with her own swtpm (so she is a real, activated machine),
# then signs quotes with her AK over good's nonce and claims to be good.
machine mallory
as mallory "$probe" enroll >/dev/null
mallory_as_good() {
	# shellcheck disable=SC2154 # set by machine mallory (eval)
	IMATRUST_TCTI=$tcti_mallory PROBE_ID=good PROBE_STATE=$tmp/mallory/probe "$@"
}
mallory_as_good "$probe" nonce >/dev/null
out=$(mallory_as_good "$probe" evidence "$tmp/good/list" -f 7)
expect "another TPM's quote over good's own nonce: rejected (403)" \
	'"message":"rejected: signature' "$out"
expect "... good stays trusted" trusted "$(state_of good)"

# --- the records the quote cannot prove are refused ---------------------------
kernel good file /usr/bin/true-ok fine
out=$(evidence good -f 7 -t other:7)
expect "a made-up record for PCR 11 appended to a genuine batch: failed" \
	"state=failed" "$out"
expect "... reason names the PCR" '\"check\":\"pcr\"' "$(reason_of good)"
n=$(db_query "$tmp/v.db" "select count(*) from record_chunks c join boots b on b.id = c.boot_id where b.machine_id = 'good' and c.first_idx + length(c.verdicts) > 7")
expect "... and nothing of the batch (records 7 and 8) was stored" 0 "$n"
# the PCR is in the chunk's body: the operator API reads it
pcrs=$(api GET "/v1/machines/good/records?limit=100" |
	jq -r '[.records[].pcr] | "\(length) records, \(map(select(. != 10)) | length) not on PCR 10"')
if [ "$pcrs" = "7 records, 0 not on PCR 10" ]; then
	ok "... good's stored records are all on PCR 10"
else
	echo "# got: $pcrs"
	not_ok "... good's stored records are all on PCR 10"
fi
out=$(evidence good -f 7)
expect "the honest batch: trusted" "state=trusted next_index=8" "$out"

# --- the quote bank is pinned ------------------------------------------------
out=$(evidence good -f 8 -b sha1)
expect "a machine that quoted sha256 now quotes sha1: failed" "state=failed" "$out"
expect "... reason: bank" '\"check\":\"bank\"' "$(reason_of good)"
out=$(evidence good -f 8)
expect "back on its pinned bank: trusted" "state=trusted next_index=8" "$out"

# --- catching up: a list longer than one message ----------------------------
machine big
as big "$probe" enroll >/dev/null
add_ref /usr/bin/b "b"
kernel big boot
for _ in 1 2 3 4; do kernel big file /usr/bin/b b; done
out=$(evidence big -n 3)
expect "a piece of the list without 'more' that the quote is ahead of: failed" \
	"state=failed" "$out"
out=$(evidence big -n 3 -m)
expect "the same piece marked 'more': held, the rest is asked for" \
	"state=failed next_index=3" "$out"
out=$(evidence big -f 3)
expect "the rest arrives: the quote proves all five records, trusted" \
	"state=trusted next_index=5" "$out"
n=$(db_query "$tmp/v.db" "$(records_once_sql big)")
expect "... and all five are stored, once each" "5|0" "$n"

# --- a TPM reboot is a new boot ----------------------------------------------
stop_tpm good
start_tpm good
rm -f "$tmp/good/list"
kernel good boot
out=$(evidence good)
expect "after swtpm restarts, evidence from index 0 is a new boot: trusted" \
	"state=trusted next_index=1" "$out"
n=$(db_query "$tmp/v.db" "select count(*) from boots where machine_id='good'")
expect "the verifier recorded a second boot (TPM resetCount)" 2 "$n"
expect "... and a reboot event" '"reboot"' "$(api GET /v1/machines/good/events)"

# --- EK without a certificate: pending until approved ------------------------
machine stray uncertified
out=$(as stray "$probe" enroll)
expect "an EK without a certificate: activated but pending" "state=pending" "$out"
kernel stray boot
out=$(evidence stray)
expect "evidence of a pending machine is refused (403)" "status=403" "$out"
out=$(api POST /v1/machines/stray/approve)
expect "approval without the EK fingerprint is refused (400)" '"status":400' "$out"
fp=$(api GET /v1/machines/stray | jq -r .machine.ek_fpr)
api POST "/v1/machines/stray/approve?ek=$fp" >/dev/null
out=$(evidence stray)
expect "approved by an operator: evidence accepted, trusted" "state=trusted" "$out"

# --- bad requests: 4xx with a JSON error, nothing changes ---------------------
before=$(db_query "$tmp/v.db" "select count(*) from events")
code=$(raw -X POST -H 'Content-Type: application/json' --data '{"v":1,' \
	"https://127.0.0.1:$port/v1/agents")
expect "malformed JSON: 400" 400 "$code"
expect "... with a JSON error" '"error"' "$(cat "$tmp/body")"
code=$(raw -X POST -H 'Content-Type: text/plain' --data '{}' \
	"https://127.0.0.1:$port/v1/agents/good/evidence")
expect "wrong content type: 415" 415 "$code"
head -c 7000000 /dev/zero | tr '\0' a >"$tmp/oversized"
code=$(raw -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/oversized" \
	"https://127.0.0.1:$port/v1/agents/good/evidence")
expect "oversized body: 413" 413 "$code"
code=$(raw -X POST "https://127.0.0.1:$port/v1/agents/nobody/nonce")
expect "unknown agent: 404" 404 "$code"
code=$(raw -X POST -H 'Content-Type: application/json' \
	--data '{"v":1,"agent":"good","proof":"00"}' \
	"https://127.0.0.1:$port/v1/agents/good/activate")
expect "activation with a malformed proof: 400" 400 "$code"
code=$(raw -D "$tmp/headers" "https://127.0.0.1:$port/v1/machines")
expect "operator API without a token: 401" 401 "$code"
expect "... naming the Bearer scheme (WWW-Authenticate)" \
	'WWW-Authenticate: Bearer realm="imatrust"' "$(tr -d '\r' <"$tmp/headers")"
after=$(db_query "$tmp/v.db" "select count(*) from events")
expect "none of the bad requests changed anything" "$before" "$after"

echo "1..$tap_n"
