#!/usr/bin/env bash
# test_agent_daemon.sh - imatrust-agent against a real imatrust-verifier
# and a real swtpm (TAP).
#
# A swtpm manufactured with an EK certificate from a local CA (the lab's
# way), shared through tests/tools/tpm_mux by the agent and
# tests/tools/fake_kernel, which appends records to a list file and
# extends PCR 10 as IMA does. The verifier runs with a temporary config,
# database (SQLite, or PostgreSQL: run-pg.sh) and self-signed TLS
# certificate on a free port. Checks:
# enrollment with credential activation, verdicts arriving for new records
# (sent framed: bytes after the JSON text) and heartbeats, a restart of
# the agent that reuses its AK without enrolling again, an agent that
# survives a verifier stop and start, and one that sends JSON evidence
# to a verifier that predates the framed form, or refuses it after all
# (old-verifier-proxy.py).
# Every process is killed on every exit path; logs are shown on failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/swtpm-lib.sh
. "$here/swtpm-lib.sh"
root=$SWTPM_LIB_ROOT
bin=${IMATRUST_BIN:-$root/build/bin}

# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need swtpm swtpm_setup swtpm_localca openssl python3 tpm2_getcap
mux=$(tool_path tpm_mux) || exit 1
kern=$(tool_path fake_kernel) || exit 1
for b in imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done

tmp=$(mktemp -d)
pids=()
AGENT_PID=
VERIFIER_PID=
MUX_PID=
PROXY_PID=
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID $MUX_PID $PROXY_PID' EXIT
trap 'exit 130' INT TERM

# wait_for SECONDS FILE REGEX: FILE gets a line matching REGEX in time
wait_for() {
	local i
	for i in $(seq $(($1 * 10))); do
		grep -qE -- "$3" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
count() { grep -cE -- "$2" "$1" 2>/dev/null || true; }

# --- PKI: an EK CA (swtpm-localca) and a TLS CA with a server cert -------
ca="$tmp/ekca"
mkdir -p "$ca" "$tmp/tpm" "$tmp/state"
swtpm_ca_init "$ca"
if swtpm_manufacture "$tmp/tpm" "$ca" "$tmp/swtpm_setup.log"; then
	swtpm_ca_bundle "$ca" "$tmp/ek-ca.pem"
	ok "swtpm manufactured with an EK certificate from a local CA"
else
	fail "swtpm manufactured with an EK certificate from a local CA"
	bail "no TPM" "$tmp/swtpm_setup.log"
fi
if openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	>"$tmp/openssl.log" 2>&1; then
	ok "self-signed TLS certificate for 127.0.0.1"
else
	fail "self-signed TLS certificate for 127.0.0.1" "$tmp/openssl.log"
fi

# --- TPM behind the mux ---------------------------------------------------
swtpm_start "$tmp/tpm" "$tmp/swtpm.log" || bail "swtpm does not start" "$tmp/swtpm.log"
swtpm_port=${TPM2TOOLS_TCTI##*port=}
mux_port=$(swtpm_free_ports)
"$mux" "$mux_port" "$swtpm_port" >"$tmp/mux.log" 2>&1 &
MUX_PID=$!
export IMATRUST_TCTI="swtpm:host=127.0.0.1,port=$mux_port"
list="$tmp/binary_runtime_measurements"
: >"$list"
for i in $(seq 50); do
	"$kern" "$list" boot >"$tmp/kernel.log" 2>&1 && break
	sleep 0.1
done
if [ -s "$list" ]; then ok "fake kernel wrote boot_aggregate through the mux"
else fail "fake kernel wrote boot_aggregate through the mux" "$tmp/kernel.log"; fi

# --- verifier -------------------------------------------------------------
vport=$(swtpm_free_ports)
verifier_conf "$tmp/verifier.conf" "$vport" "$tmp/verifier.db" \
	"ek_ca = $tmp/ek-ca.pem" "nonce_ttl = 30" || bail "verifier_conf"
start_verifier() {
	"$bin/imatrust-verifier" -d -c "$tmp/verifier.conf" \
		>>"$tmp/verifier.log" 2>&1 &
	VERIFIER_PID=$!
	wait_for 10 "$tmp/verifier.log" "listening on"
}
if start_verifier; then ok "verifier listens on 127.0.0.1:$vport"
else fail "verifier listens on 127.0.0.1:$vport"; fi

# --- agent ----------------------------------------------------------------
cat >"$tmp/agent.conf" <<EOC
# written by test_agent_daemon.sh
verifier_url = https://127.0.0.1:$vport
ca_cert = $tmp/cert.pem
id = test-agent-1
tcti = $IMATRUST_TCTI
state_dir = $tmp/state
measurement_list = $list
heartbeat = 1
poll_fallback_ms = 100
backoff_max = 2
log_level = debug
EOC
if "$bin/imatrust-agent" -n -c "$tmp/agent.conf" >"$tmp/check.log" 2>&1; then
	ok "imatrust-agent -n accepts the config"
else fail "imatrust-agent -n accepts the config" "$tmp/check.log"; fi
printf 'heartbeat = 0\n' >"$tmp/bad.conf"
if ! "$bin/imatrust-agent" -n -c "$tmp/bad.conf" >"$tmp/check.log" 2>&1 &&
   grep -q "bad.conf:1: '0' is not a number from 1 to 3600" "$tmp/check.log"; then
	ok "imatrust-agent -n names file and line of a bad value"
else fail "imatrust-agent -n names file and line of a bad value" "$tmp/check.log"; fi

start_agent() {
	"$bin/imatrust-agent" -c "$tmp/agent.conf" >>"$tmp/agent.log" 2>&1 &
	AGENT_PID=$!
}
stop_agent() {
	kill "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID"
	local rc=$?
	AGENT_PID=
	return $rc
}

start_agent
if wait_for 20 "$tmp/agent.log" "enrolled as 'test-agent-1'"; then
	ok "the agent enrolls (credential activated)"
else fail "the agent enrolls (credential activated)"; fi
if [ -f "$tmp/state/ak.blob" ]; then ok "the AK blob is kept in state_dir"
else fail "the AK blob is kept in state_dir"; fi
if wait_for 20 "$tmp/agent.log" "verdict (trusted|untrusted), next_index 1"; then
	ok "a verdict for the boot_aggregate arrives (next_index 1)"
else fail "a verdict for the boot_aggregate arrives (next_index 1)"; fi

"$kern" "$list" file /usr/bin/tool1 "one" >>"$tmp/kernel.log" 2>&1
"$kern" "$list" file /usr/bin/tool2 "two" >>"$tmp/kernel.log" 2>&1
if wait_for 10 "$tmp/agent.log" "next_index 3"; then
	ok "new records are streamed and proven (next_index 3)"
else fail "new records are streamed and proven (next_index 3)"; fi
framed=$(curl -s --cacert "$tmp/cert.pem" "https://127.0.0.1:$vport/v1/metrics" |
	awk '$1 == "imatrust_evidence_framed_total" { print $2 }')
if [ "${framed:-0}" -ge 2 ]; then
	ok "the agent sends its evidence framed ($framed bodies)"
else fail "the agent sends its evidence framed (${framed:-no} bodies)"; fi
if grep -q "failed" "$tmp/agent.log"; then
	fail "no evidence judged failed"
else ok "no evidence judged failed"; fi
beats=$(count "$tmp/agent.log" "evidence: records 3-3 ")
sleep 3
if [ "$(count "$tmp/agent.log" "evidence: records 3-3 ")" -ge $((beats + 2)) ]; then
	ok "heartbeat evidence without new records (heartbeat = 1 s)"
else fail "heartbeat evidence without new records (heartbeat = 1 s)"; fi

# --- agent restart: same AK, no enrollment --------------------------------
enrolls=$(count "$tmp/verifier.log" "enrollment")
if stop_agent; then ok "SIGTERM: the agent exits 0"
else fail "SIGTERM: the agent exits 0"; fi
"$kern" "$list" file /usr/bin/tool3 "three" >>"$tmp/kernel.log" 2>&1
: >"$tmp/agent.log.2"
mv "$tmp/agent.log" "$tmp/agent-1.log"
start_agent
if wait_for 20 "$tmp/agent.log" "next_index 4"; then
	ok "after a restart the agent resumes and streams record 3"
else fail "after a restart the agent resumes and streams record 3"; fi
if grep -q "AK loaded" "$tmp/agent.log" &&
   ! grep -q "enrolling" "$tmp/agent.log" &&
   [ "$(count "$tmp/verifier.log" "enrollment")" = "$enrolls" ]; then
	ok "the restart reuses the AK and does not enroll again"
else fail "the restart reuses the AK and does not enroll again"; fi
if grep -q "resuming at record 3" "$tmp/agent.log"; then
	ok "the restarted agent skips to the index the verifier asks for"
else fail "the restarted agent skips to the index the verifier asks for"; fi

# --- verifier outage ------------------------------------------------------
kill "$VERIFIER_PID"
wait "$VERIFIER_PID" 2>/dev/null
VERIFIER_PID=
"$kern" "$list" file /usr/bin/tool4 "four" >>"$tmp/kernel.log" 2>&1
if wait_for 10 "$tmp/agent.log" "retrying in [0-9]+ ms"; then
	ok "verifier down: the agent backs off"
else fail "verifier down: the agent backs off"; fi
sleep 3
if kill -0 "$AGENT_PID" 2>/dev/null; then ok "the agent survives the outage"
else fail "the agent survives the outage"; fi
if start_verifier; then ok "verifier restarted on its database"
else fail "verifier restarted on its database"; fi
if wait_for 20 "$tmp/agent.log" "next_index 5"; then
	ok "after the outage the record added meanwhile is proven (next_index 5)"
else fail "after the outage the record added meanwhile is proven (next_index 5)"; fi
# --- SIGKILL mid-stream: nothing stored is lost, the agent resumes --------
q() { db_query "$tmp/verifier.db" "$1"; }
events_before=$(q "select count(*) from events")
(for i in $(seq 20); do
	"$kern" "$list" file "/usr/bin/burst$i" "b$i"
	sleep 0.05
done) >>"$tmp/kernel.log" 2>&1 &
burst=$!
sleep 0.5
kill -9 "$VERIFIER_PID"
wait "$VERIFIER_PID" 2>/dev/null
VERIFIER_PID=
sleep 1
if start_verifier; then ok "verifier restarted after SIGKILL mid-stream"
else fail "verifier restarted after SIGKILL mid-stream"; fi
wait "$burst"
for _ in $(seq 100); do
	[ "$(q "select max(next_record_index) from boots")" = 25 ] && break
	sleep 0.2
done
if [ "$(q "select max(next_record_index) from boots")" = 25 ] &&
   [ "$(q "$(records_once_sql "$(q "select id from machines")")")" = "25|0" ]; then
	ok "after SIGKILL every record is stored exactly once (25 of 25)"
else fail "after SIGKILL every record is stored exactly once (25 of 25)"; fi
if [ "$(q "select count(*) from machines where activated = 1")" = 1 ] &&
   [ "$(q "select count(*) from events")" -ge "$events_before" ]; then
	ok "the enrolled machine and its events survive the SIGKILL"
else fail "the enrolled machine and its events survive the SIGKILL"; fi
# --- heartbeats that each need a fresh nonce still count as seen ----------
# nonce_ttl 2 and heartbeat 2: past half its life (1 s) every heartbeat
# asks a new nonce; a probe after it would store nothing, and an idle
# machine would go stale
stop_agent
kill "$VERIFIER_PID"
wait "$VERIFIER_PID" 2>/dev/null
VERIFIER_PID=
sed -i 's/^nonce_ttl = .*/nonce_ttl = 2/' "$tmp/verifier.conf"
sed -i 's/^heartbeat = .*/heartbeat = 2/' "$tmp/agent.conf"
start_verifier
start_agent
wait_for 20 "$tmp/agent.log" "next_index 25" >/dev/null
sleep 1
fresh=$(count "$tmp/agent.log" "nonce: asking for a fresh one")
# last seen: the later of the machine row and its nonce row (db_machine.c)
seen_q="select case when n.seen_at > coalesce(m.last_seen, 0) then n.seen_at else m.last_seen end from machines m left join nonces n on n.machine_id = m.id"
seen0=$(q "$seen_q")
sleep 7
seen1=$(q "$seen_q")
fresh=$(($(count "$tmp/agent.log" "nonce: asking for a fresh one") - fresh))
if [ "$fresh" -ge 2 ] && [ -n "$seen0" ] && [ "$seen1" -ge $((seen0 + 4)) ]; then
	ok "heartbeats after a fresh nonce each are seen ($fresh nonces, last_seen +$((seen1 - seen0)) s in 7 s)"
else fail "heartbeats after a fresh nonce each are seen ($fresh nonces, last_seen $seen0 -> $seen1 in 7 s)"; fi

if stop_agent; then ok "SIGTERM after the outage: exit 0"
else fail "SIGTERM after the outage: exit 0"; fi
if [ "$(count "$tmp/agent.log" "evidence for records .* judged failed")" = 0 ]; then
	ok "no evidence judged failed across restart and outage"
else fail "no evidence judged failed across restart and outage"; fi

# --- a verifier older than the agent: evidence goes as JSON ---------------
# the proxy refuses framed bodies with 415 as such a verifier does and
# passes the rest on. "old": its answers say nothing of framed evidence,
# so the agent never sends one; "strict": they say it is taken, and the
# one refused turns the agent to JSON. Nothing may be lost either way.
behind() { # MODE RECORD NEXT_INDEX: a record proven through the proxy
	local pport
	pport=$(swtpm_free_ports)
	python3 "$here/old-verifier-proxy.py" "$1" "$pport" \
		"https://127.0.0.1:$vport" "$tmp/cert.pem" "$tmp/key.pem" \
		"$tmp/cert.pem" "$tmp/proxy-$1.counts" >"$tmp/proxy-$1.log" 2>&1 &
	PROXY_PID=$!
	wait_for 10 "$tmp/proxy-$1.log" "listening on" ||
		fail "the $1 proxy listens" "$tmp/proxy-$1.log"
	sed -i "s|^verifier_url = .*|verifier_url = https://127.0.0.1:$pport|" \
		"$tmp/agent.conf"
	mv "$tmp/agent.log" "$tmp/agent-before-$1.log"
	start_agent
	"$kern" "$list" file "$2" "$1" >>"$tmp/kernel.log" 2>&1
	if wait_for 20 "$tmp/agent.log" "next_index $3"; then
		ok "$1 proxy: the new record is proven (next_index $3)"
	else fail "$1 proxy: the new record is proven (next_index $3)"; fi
	sleep 3	# heartbeats too
	if stop_agent; then ok "$1 proxy: SIGTERM, exit 0"
	else fail "$1 proxy: SIGTERM, exit 0"; fi
	kill "$PROXY_PID" 2>/dev/null
	wait "$PROXY_PID" 2>/dev/null
	PROXY_PID=
}
behind old /usr/bin/tool5 26
if grep -q "^refused 0 passed [1-9]" "$tmp/proxy-old.counts"; then
	ok "old proxy: no framed evidence is sent to it ($(cat "$tmp/proxy-old.counts"))"
else fail "old proxy: no framed evidence is sent to it ($(cat "$tmp/proxy-old.counts" 2>/dev/null))"; fi
behind strict /usr/bin/tool6 27
if grep -q "evidence goes as JSON" "$tmp/agent.log" &&
   grep -q "^refused 1 passed [1-9]" "$tmp/proxy-strict.counts"; then
	ok "strict proxy: one framed evidence refused, then JSON ($(cat "$tmp/proxy-strict.counts"))"
else fail "strict proxy: one framed evidence refused, then JSON ($(cat "$tmp/proxy-strict.counts" 2>/dev/null))"; fi

echo "1..$tap_n"
[ "$failures" -eq 0 ]
