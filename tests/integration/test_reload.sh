#!/usr/bin/env bash
# test_reload.sh - SIGHUP makes imatrust-verifier read its configuration,
# TLS certificate and key and EK CA again while an agent streams evidence
# over its one kept-alive connection, against a real swtpm (TAP; issue 36).
#
# Checks: a reloadable key (log_level) takes effect and a key that needs
# a restart (threads) is named in the log and kept; after the certificate
# and key files are replaced, a new TLS connection is served the new
# certificate while the agent's stream goes on: its verdicts keep coming,
# its machine stays trusted (never stale) and the verifier accepts no new
# connection but the test's own (imatrust_http_connections_total); the
# agent trusts the first certificate only, so a reconnect would fail too.
# A broken key file or a missing EK CA on SIGHUP is logged, naming the
# file, and the certificate in force stays; an EK CA bundle taken again
# vouches for enrollments at once (a CA left out of it no more). Every process is killed on
# every exit path; logs are shown on failure. Around each reload systemd
# is told RELOADING=1, then READY=1 (a listener on NOTIFY_SOCKET).
set -u

. "$(dirname "$0")/swtpm-lib.sh"
require_tools swtpm swtpm_setup swtpm_localca openssl python3 curl jq \
	tpm2_getcap
swtpm_test_setup
for b in imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done
AGENT_PID='' VERIFIER_PID=''
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID' EXIT
has() { grep -qE -- "$2" "$1"; }
count() { grep -cE -- "$2" "$1" 2>/dev/null || true; }

swtpm_lab
cp "$tmp/cert.pem" "$tmp/cert-a.pem"	# what the agent trusts
vport=$(swtpm_free_ports)
conf_lines=("ek_ca = $tmp/ek-ca.pem" "nonce_ttl = 30")
write_conf() {	# write_conf LINE...: the config with these lines more
	verifier_conf "$tmp/verifier.conf" "$vport" "$tmp/verifier.db" \
		"${conf_lines[@]}" "$@" || bail "verifier_conf"
}
write_conf "log_level = warning"
token=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add ops \
	2>"$tmp/token.log") || bail "token add" "$tmp/token.log"
# what the verifier tells systemd (sd_notify), one message a line
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
with open(sys.argv[2], "a") as f:
    while True:
        f.write(s.recv(4096).decode().replace("\n", " | ") + "\n")
        f.flush()
' "$tmp/notify.sock" "$tmp/notify.log" &
pids+=($!)
within 5 test -S "$tmp/notify.sock" || bail "no notify socket"
NOTIFY_SOCKET=$tmp/notify.sock "$bin/imatrust-verifier" -c "$tmp/verifier.conf" \
	>>"$tmp/verifier.log" 2>&1 &
VERIFIER_PID=$!
within 10 verifier_up "$vport" "$tmp/cert-a.pem" ||
	bail "verifier does not start" "$tmp/verifier.log"
api_url=https://127.0.0.1:$vport
ca_now=$tmp/cert-a.pem
api() {	# the operator API, trusting $ca_now
	curl -s --cacert "$ca_now" -H "Authorization: Bearer $token" \
		"$api_url$1"
}
state_is() { [ "$(api "/v1/machines/$1" | jq -r '.state // .machine.state')" = "$2" ]; }
connections() {
	api /v1/metrics | sed -n 's/^imatrust_http_connections_total //p'
}
served_fpr() {	# the SHA-256 fingerprint of the certificate a new TLS connection gets
	openssl s_client -connect "127.0.0.1:$vport" </dev/null 2>/dev/null |
		openssl x509 -noout -fingerprint -sha256
}
fpr_of() { openssl x509 -noout -fingerprint -sha256 -in "$1"; }
hup() {	# hup REGEX: SIGHUP, then the log says REGEX
	kill -HUP "$VERIFIER_PID"
	within 10 has "$tmp/verifier.log" "$1"
}

lab_agent_start reload-1
check "the agent enrolls and its machine is trusted" \
	within 30 state_is reload-1 trusted
check "log_level = warning: no info line (listening on ...)" \
	fails has "$tmp/verifier.log" "listening on"

# --- the configuration: a run-time key taken, a restart-only one kept --------
write_conf "log_level = info" "threads = 3"
check "SIGHUP with threads changed: 'threads changed: needs a restart'" \
	hup "reload: threads changed: needs a restart"
check "... log_level = info taken: the reload's last (info) line is shown" \
	within 10 has "$tmp/verifier.log" "reload: done"
check "... and the verifier still serves" verifier_up "$vport" "$ca_now"
told() {	# told TEXT: the last message to systemd ends with TEXT
	[[ "$(tail -n 1 "$tmp/notify.log")" == *"$1" ]]
}
reloaded_told() {	# RELOADING=1, then READY=1 with the status serving
	grep -A1 "^RELOADING=1" "$tmp/notify.log" |
		grep -qx "READY=1 | STATUS=serving"
}
check "systemd was told RELOADING=1, then READY=1 with the status serving" \
	within 5 reloaded_told

# --- a new certificate and key, the agent's stream going on ------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key-b.pem" -out "$tmp/cert-b.pem" -days 2 \
	-subj /CN=verifier-b -addext "subjectAltName=IP:127.0.0.1" \
	>/dev/null 2>&1 || bail "openssl req"
check "before: a new connection gets the first certificate" \
	[ "$(served_fpr)" = "$(fpr_of "$tmp/cert-a.pem")" ]
verdicts=$(count "$tmp/agent.log" "verdict trusted")
before=$(connections)
cp "$tmp/cert-b.pem" "$tmp/cert.pem.new" && mv "$tmp/cert.pem.new" "$tmp/cert.pem"
cp "$tmp/key-b.pem" "$tmp/key.pem.new" && mv "$tmp/key.pem.new" "$tmp/key.pem"
check "SIGHUP after the files were replaced: logged" \
	hup "reload: new connections get the certificate of $tmp/cert.pem"
check "a new TLS connection gets the new certificate" \
	[ "$(served_fpr)" = "$(fpr_of "$tmp/cert-b.pem")" ]
ca_now=$tmp/cert-b.pem
sleep 4	# heartbeat = 1: a few rounds of evidence
after=$(connections)
# between the two counts: served_fpr's connection and the second count's
check "no new connection but the test's two (agent: none; $before -> $after)" \
	[ "$((after - before))" = 2 ]
check "the agent's verdicts kept coming on its connection" \
	[ "$(count "$tmp/agent.log" "verdict trusted")" -ge $((verdicts + 3)) ]
check "its machine is trusted, never stale" state_is reload-1 trusted
api /v1/machines/reload-1/events >"$tmp/events.json"
check "no stale state in its history (its events)" \
	jq -e '(.events | length) > 0 and
		([.events[] | select(.to == "stale")] | length) == 0' \
	"$tmp/events.json"

# --- a broken key, a missing EK CA: logged, the certificate in force stays ---
printf 'not a key\n' >"$tmp/key.pem"
check "SIGHUP with a broken key file: logged, naming the file" \
	hup "tls_key $tmp/key.pem: the key: .*the certificate in force stays"
check "... and a new connection still gets the new certificate" \
	[ "$(served_fpr)" = "$(fpr_of "$tmp/cert-b.pem")" ]
check "... systemd's status says the last reload kept what was in force" \
	within 5 told "the last reload kept what was in force (see the log)"
cp "$tmp/key-b.pem" "$tmp/key.pem"
conf_lines=("ek_ca = $tmp/missing-ca.pem" "nonce_ttl = 30")
write_conf "log_level = info" "threads = 3"
check "SIGHUP with ek_ca a missing file: logged, naming it" \
	hup "$tmp/missing-ca.pem: No such file or directory"
ca_kept() {
	has "$tmp/verifier.log" "reload: the EK CA in force stays" &&
		fails has "$tmp/verifier.log" "reload: ek_ca changed"
}
check "... the EK CA in force stays, ek_ca keeps naming its file" \
	within 10 ca_kept
check "the agent's machine is still trusted" state_is reload-1 trusted

# --- an EK CA taken again: a CA no longer in the bundle vouches no more -----
pids+=("$SWTPM_PID")	# the lab's swtpm: start_tpm starts another
swtpm_manufacture "$tmp/m2/tpm" "$ca" "$tmp/m2-setup.log" ||
	bail "swtpm_setup m2" "$tmp/m2-setup.log"
start_tpm m2
# shellcheck disable=SC2154 # start_tpm sets tcti_m2
probe_m2() {
	IMATRUST_TCTI=$tcti_m2 PROBE_ID=m2 PROBE_STATE=$tmp/m2/probe \
		PROBE_URL=$api_url PROBE_CA=$ca_now "$probe" "$@"
}
conf_lines=("ek_ca = $tmp/cert-a.pem" "nonce_ttl = 30")	# not the EK CA
write_conf "log_level = info" "threads = 3"
check "SIGHUP with ek_ca a bundle without the EK CA: taken" \
	hup "reload: ek_ca changed"
pending_now() { [[ "$(probe_m2 enroll)" == *state=pending* ]]; }
check "a TPM that CA certified enrolls, unvouched: pending" pending_now
check "the verifier runs" kill -0 "$VERIFIER_PID"
echo "1..$tap_n"
[ "$failures" = 0 ]
