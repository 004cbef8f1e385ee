#!/usr/bin/env bash
# test_webhooks.sh - webhooks that lose nothing, with a real verifier,
# imatrust-agent and swtpm (TAP).
#
# A receiver on 127.0.0.1 (webhook-receiver.py) checks the signature of
# every message, for two endpoints: one of the config file, one added
# through REST. It refuses its first 3 requests with 503, then is stopped
# while the machine changes state and the verifier is killed with SIGKILL
# and started again, then comes back. Checks: every state change the
# verifier recorded (GET /v1/machines/{id}/events) arrives at each
# endpoint exactly once by webhook-id, in order, every signature
# verifies, and the check does fail for a wrong secret or body; no token
# is 401; the figures in GET /v1/webhooks and /v1/metrics. A rotation of
# an endpoint's secret (imatrust webhook rotate): the messages sent
# during it verify under the old secret and under the new one (two
# signatures), after rotate --finish only under the new one.
set -u

. "$(dirname "$0")/swtpm-lib.sh"
here=$SWTPM_LIB_ROOT/tests/integration
require_tools swtpm swtpm_setup swtpm_localca openssl python3 curl jq
swtpm_test_setup
for b in imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done
# the receiver is on loopback: no proxy between
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
AGENT_PID='' VERIFIER_PID='' RECEIVER_PID=''
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID $RECEIVER_PID' EXIT
has() { grep -qE -- "$2" "$1"; }
swtpm_lab

# --- receiver ---------------------------------------------------------------
rport=$(swtpm_free_ports)
rlog=$tmp/received.jsonl
: >"$rlog"
printf 'whsec_%s\n' "$(openssl rand -base64 32)" >"$tmp/conf.secret"
start_receiver() {	# start_receiver REFUSE
	python3 "$here/webhook-receiver.py" serve "$rport" "$rlog" "$1" \
		"/conf=$tmp/conf.secret" "/nac=$tmp/nac.secret" \
		2>>"$tmp/receiver.log" &
	RECEIVER_PID=$!
	within 10 curl -s -o /dev/null "http://127.0.0.1:$rport/"
}
stop_receiver() { kill "$RECEIVER_PID"; wait "$RECEIVER_PID" 2>/dev/null; RECEIVER_PID=; }

# --- verifier ----------------------------------------------------------------
vport=$(swtpm_free_ports)
verifier_conf "$tmp/verifier.conf" "$vport" "$tmp/verifier.db" \
	"ek_ca = $tmp/ek-ca.pem" \
	"webhook = conf http://127.0.0.1:$rport/conf secret=$tmp/conf.secret" ||
	bail "verifier_conf"
verifier_conf "$tmp/bad.conf" "$vport" "$tmp/verifier.db" \
	"ek_ca = $tmp/ek-ca.pem" \
	"webhook = nac http://nac.example/ secret=$tmp/conf.secret" ||
	bail "verifier_conf"
if ! "$bin/imatrust-verifier" -n -c "$tmp/bad.conf" >"$tmp/check.log" 2>&1 &&
   has "$tmp/check.log" "webhook nac: http:// only to loopback"; then
	ok "-n refuses a webhook over http:// to another host than loopback"
else fail "-n refuses a webhook over http:// to another host than loopback" "$tmp/check.log"; fi

"$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add ops --role admin \
	>"$tmp/token" 2>"$tmp/token.log" || bail "token add" "$tmp/token.log"
token=$(cat "$tmp/token")
lab_verifier_start || bail "verifier does not start" "$tmp/verifier.log"
api() {	# api METHOD PATH [BODY]: the answer, then the status on a line
	curl -s --cacert "$tmp/cert.pem" -X "$1" -w '\n%{http_code}' \
		-H "Authorization: Bearer $token" \
		-H "Content-Type: application/json" \
		${3:+--data-binary "$3"} "https://127.0.0.1:$vport$2"
}
status_of() { tail -n 1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }
anon() {	# anon METHOD PATH: the status without a token
	curl -s --cacert "$tmp/cert.pem" -X "$1" -o /dev/null -w '%{http_code}' \
		-H "Content-Type: application/json" --data-binary '{"v":1}' \
		"https://127.0.0.1:$vport$2"
}

# --- endpoints: no token, add, list ----------------------------------------
codes="$(anon GET /v1/webhooks) $(anon POST /v1/webhooks) $(anon DELETE /v1/webhooks/conf)"
check "no token: 401 on GET, POST and DELETE /v1/webhooks ($codes)" \
	[ "$codes" = "401 401 401" ]
out=$(api POST /v1/webhooks "{\"v\":1,\"name\":\"nac\",\"url\":\"http://127.0.0.1:$rport/nac\"}")
body_of "$out" | jq -r .secret >"$tmp/nac.secret"
check "POST /v1/webhooks: 201 with a whsec_ secret of 32 bytes" \
	[ "$(status_of "$out")" = 201 -a \
	  "$(sed 's/^whsec_//' "$tmp/nac.secret" | base64 -d | wc -c)" = 32 ]
out=$(api POST /v1/webhooks "{\"v\":1,\"name\":\"nac\",\"url\":\"http://127.0.0.1:$rport/x\"}")
check "the same name again is 409" [ "$(status_of "$out")" = 409 ]
out=$(api POST /v1/webhooks '{"v":1,"name":"far","url":"http://nac.example/"}')
check "http:// to another host is 400" [ "$(status_of "$out")" = 400 ]
out=$(api DELETE /v1/webhooks/conf)
check "the config file's endpoint cannot be deleted through REST (409)" \
	[ "$(status_of "$out")" = 409 ]
out=$(api GET /v1/webhooks)
check "GET /v1/webhooks lists both, with their sources, and no secret" \
	[ "$(body_of "$out" | jq -c '[.webhooks[] | [.name, .source]]')" = \
	  '[["conf","config"],["nac","api"]]' -a \
	  "$(body_of "$out" | grep -c whsec_)" = 0 ]

# --- the same through the CLI ---------------------------------------------------
cli() { IMATRUST_URL=https://127.0.0.1:$vport IMATRUST_CA=$tmp/cert.pem \
	IMATRUST_TOKEN_FILE=$tmp/token "$bin/imatrust" "$@"; }
out=$(cli webhook add pager "http://127.0.0.1:$rport/pager" 2>&1)
check "imatrust webhook add prints the new secret once" \
	grep -qE '^secret \(shown this once.*\): whsec_[A-Za-z0-9+/=]{44}$' <<<"$out"
cli webhook add paged "http://127.0.0.1:$rport/paged" \
	--secret-file "$tmp/conf.secret" >"$tmp/cli.out" 2>&1
kid=$(body_of "$(api GET /v1/webhooks)" | jq -r '.webhooks[] | select(.name == "conf") | .key_id')
check "--secret-file: the receiver's own secret (same key id $kid), not printed" \
	[ "$(grep -c whsec_ "$tmp/cli.out")" = 0 -a \
	  "$(body_of "$(api GET /v1/webhooks)" | jq -r '.webhooks[] | select(.name == "paged") | .key_id')" = "$kid" ]
out=$(cli webhook ls)
check "imatrust webhook ls: a row per endpoint with its figures" \
	[ "$(awk 'NR > 1 {print $1, $2, $3}' <<<"$out" | tr '\n' ' ')" = \
	  "conf config 0 nac api 0 paged api 0 pager api 0 " ]
check "imatrust webhook ls --json: no secret" \
	[ "$(cli webhook ls --json | jq length)" = 4 -a \
	  "$(cli webhook ls --json | grep -c whsec_)" = 0 ]
cli webhook rm conf >"$tmp/cli.out" 2>&1
check "imatrust webhook rm of the config file's endpoint: exit 1, says why" \
	[ $? = 1 ] && has "$tmp/cli.out" 'config file'
check "imatrust webhook rm pager, paged" cli webhook rm pager
cli webhook rm paged >/dev/null
check "imatrust webhook add with a bad name: usage error (2)" \
	fails cli webhook add 'a b' "http://127.0.0.1:$rport/x"
[ "$(cli webhook ls --json | jq -c '[.[].name]')" = '["conf","nac"]' ] ||
	fail "the CLI's endpoints are gone again"

# --- the machine: state changes while the receiver refuses, then takes --------
start_receiver 3 || bail "receiver does not start" "$tmp/receiver.log"
lab_agent_start hook-1
state_is() { [ "$(body_of "$(api GET /v1/machines/hook-1)" | jq -r .machine.state)" = "$1" ]; }
add_ref() {	# add_ref PATH CONTENT
	local d
	d=$(printf '%s' "$2" | sha256sum | cut -d' ' -f1)
	api POST /v1/references "{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":\"t\"},\"refs\":[{\"path\":\"$1\",\"algo\":\"sha256\",\"digest\":\"$d\"}]}" >/dev/null
}
untrusted_by() {	# untrusted_by N: an unknown file N turns it untrusted
	kernel file "/usr/bin/evil$1" "evil $1" && within 20 state_is untrusted
}
trusted_again() { add_ref "/usr/bin/evil$1" "evil $1" && within 20 state_is trusted; }
check "the agent enrolls and its machine is trusted" within 30 state_is trusted
check "an unknown file turns it untrusted" untrusted_by 1
check "its reference turns it trusted again" trusted_again 1
pending_is() {	# pending_is N: N messages undelivered over both endpoints
	[ "$(body_of "$(api GET /v1/webhooks)" | jq '[.webhooks[].pending] | add')" = "$1" ]
}
check "everything is delivered in spite of the 3 refusals" within 30 pending_is 0
failed=$(body_of "$(api GET /v1/webhooks)" | jq '[.webhooks[].failed_attempts] | add')
check "the 3 refusals are counted as failed attempts ($failed)" [ "$failed" = 3 ]

# --- receiver gone, verifier killed, more changes ------------------------------
stop_receiver
check "with the receiver gone: untrusted" untrusted_by 2
check "... and trusted again" trusted_again 2
check "the messages wait in the outbox" within 10 pending_is 4
metrics=$(curl -s --cacert "$tmp/cert.pem" "https://127.0.0.1:$vport/v1/metrics")
check "metrics: pending and lag per endpoint" \
	grep -qE '^imatrust_webhook_pending\{endpoint="nac"\} 2$' <<<"$metrics"
check "metrics: delivered and failed attempts per endpoint" \
	grep -qE '^imatrust_webhook_(delivered_total|failed_attempts_total|lag_seconds|dropped_total)\{endpoint="conf"\}' <<<"$metrics"
kill -KILL "$VERIFIER_PID"
wait "$VERIFIER_PID" 2>/dev/null
VERIFIER_PID=
check "the verifier starts again after SIGKILL" lab_verifier_start
check "after the restart: untrusted again (the agent reconnected)" untrusted_by 3
check "the outbox survived the kill" pending_is 6
start_receiver 0 || bail "receiver does not start again" "$tmp/receiver.log"
check "the receiver back: everything is delivered" within 90 pending_is 0

# --- what arrived: every change exactly once, in order, signed ------------------
api GET "/v1/machines/hook-1/events?limit=1000" | sed '$d' |
	jq -c '[.events[] | select(.to != null) | .id]' >"$tmp/changes.json"
verdict=$(python3 - "$rlog" "$tmp/changes.json" <<'PY'
import json, sys
log = [json.loads(l) for l in open(sys.argv[1])]
changes = json.load(open(sys.argv[2]))
bad = [e for e in log if not e["verified"]]
if bad:
    sys.exit("%d of %d requests do not verify" % (len(bad), len(log)))
for path in ("/conf", "/nac"):
    taken = [e for e in log if e["path"] == path and e["status"] == 204]
    ids = [e["id"] for e in taken]
    if len(ids) != len(set(ids)):
        sys.exit("%s: a message taken twice" % path)
    events = [e["body"]["event"] for e in taken]
    if events != changes:
        sys.exit("%s: got events %s, the verifier recorded %s" %
                 (path, events, changes))
    if any(e["body"]["machine"] != "hook-1" or
           e["body"]["type"] != "machine.state" or
           e["id"] != e["body"]["id"] for e in taken):
        sys.exit("%s: a body without its fields" % path)
print("ok %d changes, %d requests" % (len(changes), len(log)))
PY
)
check "every recorded state change arrived once per endpoint, in order, each signature verified ($verdict)" \
	[ "${verdict%% *}" = ok ]
n=$(jq length "$tmp/changes.json")
check "the changes are the seven made ($n)" [ "$n" = 7 ]
tnc=$(jq -r 'select(.path == "/nac" and .status == 204) | .body.tnc' "$rlog" | tr '\n' ' ')
check "the TNC recommendation follows the state ($tnc)" \
	[ "$tnc" = "no_recommendation allow isolate allow isolate allow isolate " ]
line=$(grep -m1 '"path": "/nac"' "$rlog")
check "the receiver's check passes with the right secret" \
	python3 "$here/webhook-receiver.py" check "$tmp/nac.secret" <<<"$line"
check "... and fails with another secret" \
	fails python3 "$here/webhook-receiver.py" check "$tmp/conf.secret" <<<"$line"
forged=$(jq -c '.body_b64 = ("{\"to\":\"trusted\"}" | @base64)' <<<"$line")
check "... and with another body under the same signature" \
	fails python3 "$here/webhook-receiver.py" check "$tmp/nac.secret" <<<"$forged"
kid=$(jq -r .key_id <<<"$line")
check "webhook-key-id names the endpoint's key ($kid)" \
	[ "$kid" = "$(body_of "$(api GET /v1/webhooks)" | jq -r '.webhooks[] | select(.name == "nac") | .key_id')" ]

# --- rotation: both secrets sign until it is finished ---------------------------
# The receiver still holds the old secret of /nac; a second one the new.
out=$(cli webhook rotate nac 2>&1)
sed -n 's/^secret (shown this once.*): //p' <<<"$out" >"$tmp/nac-new.secret"
check "imatrust webhook rotate nac prints the new secret once" \
	grep -qE '^whsec_[A-Za-z0-9+/=]{44}$' "$tmp/nac-new.secret"
kids=$(body_of "$(api GET /v1/webhooks)" | jq -r '.webhooks[] | select(.name == "nac") | "\(.key_id) \(.key_id_previous)"')
check "GET /v1/webhooks: the new key id, the old one as key_id_previous ($kids)" \
	[ "${kids#* }" = "$kid" -a "${kids%% *}" != "$kid" -a "${kids%% *}" != null ]
codes="$(status_of "$(api POST /v1/webhooks/nac/rotate '{"v":1}')")"
codes="$codes $(status_of "$(api POST /v1/webhooks/conf/rotate '{"v":1}')")"
codes="$codes $(status_of "$(api POST /v1/webhooks/nobody/rotate '{"v":1}')")"
codes="$codes $(anon POST /v1/webhooks/nac/rotate)"
check "rotate again while under way, the config file's, an unknown one, no token: 409 409 404 401 ($codes)" \
	[ "$codes" = "409 409 404 401" ]
n0=$(wc -l <"$rlog")
check "during the rotation: trusted" trusted_again 3
check "... and untrusted" untrusted_by 4
check "... delivered" within 30 pending_is 0
nac_since() { tail -n +"$(($1 + 1))" "$rlog" | grep '"path": "/nac"'; }
all_verify() {	# all_verify LINES SECRETFILE: each one verifies under it
	local l
	[ -n "$1" ] || return 1
	while IFS= read -r l; do
		python3 "$here/webhook-receiver.py" check "$2" <<<"$l" || return 1
	done <<<"$1"
}
none_verify() {	# none_verify LINES SECRETFILE
	local l
	[ -n "$1" ] || return 1
	while IFS= read -r l; do
		python3 "$here/webhook-receiver.py" check "$2" <<<"$l" && return 1
	done <<<"$1"
	return 0
}
during=$(nac_since "$n0")
check "the messages sent during it ($(wc -l <<<"$during")) verify under the old secret" \
	all_verify "$during" "$tmp/nac.secret"
check "... and under the new one" all_verify "$during" "$tmp/nac-new.secret"
check "... with two signatures, webhook-key-id naming both keys" \
	[ "$(head -n 1 <<<"$during" | jq -r '.signature | split(" ") | length')" = 2 -a \
	  "$(head -n 1 <<<"$during" | jq -r .key_id)" = "$kids" ]
check "imatrust webhook rotate nac --finish" cli webhook rotate nac --finish
n1=$(wc -l <"$rlog")
check "after it: trusted" trusted_again 4
check "... and untrusted" untrusted_by 5
check "... delivered" within 30 pending_is 0
after=$(nac_since "$n1")
check "the messages sent after it ($(wc -l <<<"$after")) verify under the new secret" \
	all_verify "$after" "$tmp/nac-new.secret"
check "... and not under the old one" none_verify "$after" "$tmp/nac.secret"
check "... with one signature, webhook-key-id the new key's" \
	[ "$(head -n 1 <<<"$after" | jq -r '.signature | split(" ") | length')" = 1 -a \
	  "$(head -n 1 <<<"$after" | jq -r .key_id)" = "${kids%% *}" ]
out=$(api POST /v1/webhooks/nac/rotate '{"v":1,"finish":true}')
check "finishing again: 409" [ "$(status_of "$out")" = 409 ]

# --- an endpoint that resolves to an address no webhook may reach ---------------
# 0.0.0.0 reaches this host (the receiver) on Linux: were the check on the
# connected address missing, the receiver would log /zero.
out=$(api POST /v1/webhooks "{\"v\":1,\"name\":\"zero\",\"url\":\"http://0.0.0.0:$rport/zero\",\"allow_http\":true}")
check "an allow_http endpoint on 0.0.0.0 is taken by the URL check (201)" \
	[ "$(status_of "$out")" = 201 ]

# --- the machine removed: its receivers hear of it --------------------------------
kill "$AGENT_PID" 2>/dev/null
wait "$AGENT_PID" 2>/dev/null
AGENT_PID=
t0=$(date +%s.%N)
out=$(api DELETE /v1/machines/hook-1)
check "DELETE /v1/machines/hook-1: 200" [ "$(status_of "$out")" = 200 ]
removed() {	# the last message taken on /conf says hook-1 went
	jq -se 'map(select(.path == "/conf" and .status == 204)) | last |
		.verified and .body.type == "machine.removed" and
		.body.machine == "hook-1" and .body.from == "untrusted" and
		.body.to == null and .body.tnc == "no_recommendation" and
		.body.reason.action == "remove"' "$rlog" >/dev/null
}
check "machine.removed arrives, signed, after its state changes" \
	within 20 removed
# a figure, not a check: the commit wakes the delivery thread (no 1 s poll)
lat=$(jq -sr --arg t0 "$t0" 'map(select(.path == "/conf" and .status == 204)) |
	last | (.received_at - ($t0 | tonumber)) * 1000 | floor' "$rlog")
echo "# removal to machine.removed received: $lat ms (REST call included)"

zero_refused() {
	body_of "$(api GET /v1/webhooks)" | jq -e '.webhooks[] |
		select(.name == "zero") | .last_error |
		startswith("refused: 0.0.0.0 is link-local")' >/dev/null
}
check "... and refused on the address it connects to, naming it" \
	within 20 zero_refused
check "nothing reached the receiver through it" \
	[ "$(jq -r 'select(.path == "/zero") | .path' "$rlog" | wc -l)" = 0 ]
api DELETE /v1/webhooks/zero >/dev/null

# --- removal, audited ---------------------------------------------------------
out=$(api DELETE /v1/webhooks/nac)
check "DELETE /v1/webhooks/nac: 200" [ "$(status_of "$out")" = 200 ]
out=$(api DELETE /v1/webhooks/nac)
check "... and again: 404" [ "$(status_of "$out")" = 404 ]
actions=$(body_of "$(api GET /v1/audit)" | jq -r '[.audit[] | .action | select(startswith("webhook"))] | join(" ")')
check "every add, delete and rotation (REST and CLI) is in the audit trail ($actions)" \
	[ "$actions" = "webhook-add webhook-add webhook-add webhook-delete webhook-delete webhook-rotate webhook-rotate-finish webhook-add webhook-delete webhook-delete" ]

echo "1..$tap_n"
[ "$failures" = 0 ]
