#!/usr/bin/env bash
# test_webhook_ca.sh - a webhook's CA bundle only from webhook_ca_dir
# (issue 33), with a real verifier, imatrust-agent, swtpm and a receiver
# over TLS (TAP).
#
# POST /v1/webhooks used to take any absolute path as "ca", so an
# operator token made the verifier (root) read any file as a CA bundle.
# Checks: "ca" of /etc/passwd, ../x, a symbolic link out of the
# directory and a file there that holds no certificate are 400 naming
# the rule, and -n refuses the same in the config file; a CA file in the
# directory is taken, from the config file and the API, and the
# receiver's messages arrive over TLS verified by it; an endpoint with
# another CA file of the directory fails (only the named file is
# trusted, not the system's bundle beside it).
set -u

. "$(dirname "$0")/swtpm-lib.sh"
here=$SWTPM_LIB_ROOT/tests/integration
require_tools swtpm swtpm_setup swtpm_localca openssl python3 curl jq
swtpm_test_setup
for b in imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
AGENT_PID='' VERIFIER_PID='' RECEIVER_PID=''
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID $RECEIVER_PID' EXIT
has() { grep -qE -- "$2" "$1"; }
state_is() { [ "$(state_of "$1")" = "$2" ]; }
swtpm_lab

# --- the CA directory: the receiver's CA, another CA, traps ----------------
cadir=$tmp/webhook-ca
mkdir -p "$cadir"
cp "$tmp/cert.pem" "$cadir/receiver.pem"	# the receiver uses the verifier's certificate
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/other-key.pem" -out "$cadir/other.pem" -days 2 \
	-subj /CN=other -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
cp "$tmp/cert.pem" "$tmp/outside.pem"
ln -s ../outside.pem "$cadir/link-out.pem"
echo "not a certificate" >"$cadir/notes.txt"

rport=$(swtpm_free_ports)
rlog=$tmp/received.jsonl
: >"$rlog"
printf 'whsec_%s\n' "$(openssl rand -base64 32)" >"$tmp/conf.secret"
vport=$(swtpm_free_ports)
conf_with() {	# conf_with FILE CA: a config whose endpoint has ca=CA
	verifier_conf "$1" "$vport" "$tmp/verifier.db" \
		"ek_ca = $tmp/ek-ca.pem" "webhook_ca_dir = $cadir" \
		"webhook = conf https://127.0.0.1:$rport/conf secret=$tmp/conf.secret ca=$2"
}
for bad in /etc/passwd ../outside.pem; do
	conf_with "$tmp/bad.conf" "$bad" || bail "verifier_conf"
	if ! "$bin/imatrust-verifier" -n -c "$tmp/bad.conf" >"$tmp/check.log" 2>&1 &&
	   has "$tmp/check.log" "webhook conf: ca: want a file name in webhook_ca_dir"; then
		ok "-n refuses ca=$bad, naming the rule"
	else fail "-n refuses ca=$bad, naming the rule" "$tmp/check.log"; fi
done
conf_with "$tmp/verifier.conf" receiver.pem || bail "verifier_conf"
"$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add ops --role admin \
	>"$tmp/token" 2>"$tmp/token.log" || bail "token add" "$tmp/token.log"
token=$(cat "$tmp/token")
api_url=https://127.0.0.1:$vport
RECEIVER_TLS_CERT=$tmp/cert.pem RECEIVER_TLS_KEY=$tmp/key.pem \
	python3 "$here/webhook-receiver.py" serve "$rport" "$rlog" 0 \
	"/conf=$tmp/conf.secret" 2>>"$tmp/receiver.log" &
RECEIVER_PID=$!
within 10 curl -s -o /dev/null --cacert "$tmp/cert.pem" "https://127.0.0.1:$rport/" ||
	bail "receiver does not start" "$tmp/receiver.log"
lab_verifier_start || bail "verifier does not start" "$tmp/verifier.log"

# --- POST /v1/webhooks: the rule ---------------------------------------------
add() {	# add NAME CA: the status, then the message on a line
	curl -s --cacert "$tmp/cert.pem" -X POST -w '\n%{http_code}' \
		-H "Authorization: Bearer $token" -H "Content-Type: application/json" \
		--data-binary "{\"v\":1,\"name\":\"$1\",\"url\":\"https://127.0.0.1:$rport/$1\",\"ca\":\"$2\"}" \
		"$api_url/v1/webhooks"
}
refused() {	# refused CA WANT: 400 whose message holds WANT
	local out
	out=$(add x "$1")
	[ "$(tail -n 1 <<<"$out")" = 400 ] &&
		sed '$d' <<<"$out" | jq -re .error.message | grep -qF -- "$2"
}
rule="a file name in webhook_ca_dir (no '/', not starting with '.', not a symbolic link)"
check "ca /etc/passwd: 400 naming the rule" refused /etc/passwd "$rule"
check "ca ../outside.pem: 400 naming the rule" refused ../outside.pem "$rule"
check "ca $cadir/receiver.pem (an absolute path, even into the directory): 400" \
	refused "$cadir/receiver.pem" "$rule"
check "ca link-out.pem (a symbolic link out of the directory): 400" \
	refused link-out.pem "a symbolic link, not followed"
check "ca notes.txt (no certificate): 400, its contents not shown" \
	refused notes.txt "holds no PEM certificate"
check "ca missing.pem: 400" refused missing.pem "missing.pem in webhook_ca_dir"
out=$(add api receiver.pem)
check "ca receiver.pem, a file of the directory: 201" [ "$(tail -n 1 <<<"$out")" = 201 ]
check "... listed as its name" [ "$(sed '$d' <<<"$out" | jq -r .webhook.ca)" = receiver.pem ]
add wrong other.pem >/dev/null
check "an endpoint with another CA file of the directory: 201" \
	[ "$(api GET /v1/webhooks | jq -r '.webhooks[] | select(.name == "wrong") | .ca')" = other.pem ]

# --- delivery over TLS, verified by the named file only -------------------------
lab_agent_start ca-1
check "the agent enrolls and its machine is trusted" within 30 state_is ca-1 trusted
delivered() {	# delivered NAME: its messages all delivered, at least one
	api GET /v1/webhooks | jq -e --arg n "$1" '.webhooks[] |
		select(.name == $n) | .pending == 0 and .delivered > 0' >/dev/null
}
check "the config file's endpoint (ca=receiver.pem) delivers over TLS" within 30 delivered conf
check "the API's endpoint (ca receiver.pem) delivers over TLS" within 30 delivered api
check "the receiver took /conf's messages, each signature verified, and /api's" \
	[ "$(jq -s 'map(select(.path == "/conf" and (.verified | not))) | length' "$rlog")" = 0 -a \
	  "$(jq -s 'map(select(.path == "/api")) | length' "$rlog")" -gt 0 ]
failing() {
	api GET /v1/webhooks | jq -e '.webhooks[] | select(.name == "wrong") |
		.failed_attempts > 0 and .delivered == 0' >/dev/null
}
check "the endpoint trusting other.pem fails the receiver's certificate" within 30 failing
rm "$cadir/receiver.pem"
ln -s ../outside.pem "$cadir/receiver.pem"
kernel file /usr/bin/ca-evil "evil"
check "an unknown file turns it untrusted" within 20 state_is ca-1 untrusted
gone() {
	api GET /v1/webhooks | jq -e '.webhooks[] | select(.name == "api") |
		.pending > 0 and (.last_error | test("symbolic link"))' >/dev/null
}
check "receiver.pem turned into a symbolic link: delivery refuses it, saying why" \
	within 30 gone
echo "1..$tap_n"
[ "$failures" = 0 ]
