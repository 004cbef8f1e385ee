#!/usr/bin/env bash
# test_operator.sh - the operator CLI and REST API against a real
# imatrust-verifier on a free loopback port (TAP). The fleet is planted in
# the database with sqlite3 (as the evidence path leaves it: an untrusted
# machine with an unknown record), then the operator fixes it by importing
# the missing reference; every answer fetched with curl is checked against
# verifier/api/openapi.json.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
tools=${IMATRUST_TOOLS:-$here/../../build/tests/tools}
spec="$here/../../verifier/api/openapi.json"

skip_without openssl sqlite3 curl jq python3

port=$(free_port)
self_cert
write_verifier_conf "stale_after = 86400"
token_add alice
printf '%s\n' "$token" >"$tmp/token"
contains "$tmp/token" '^[0-9a-f]{64}$' \
	"imatrust-verifier token add prints a token of 32 random bytes in hex"

# A file in the guest image whose digest the machine measured as unknown.
mkdir -p "$tmp/image/sbin" "$tmp/image/lib"
printf 'the tool\n' >"$tmp/image/sbin/tool"
printf 'a library\n' >"$tmp/image/lib/libx.so"
ln -s tool "$tmp/image/sbin/link"
mkfifo "$tmp/image/fifo"
tool_hex=$(sha256sum "$tmp/image/sbin/tool" | cut -d' ' -f1)
now=$(date +%s)
fpr1=$(printf 'ek of node-1' | sha256sum | cut -d' ' -f1)
fpr2=$(printf 'ek of node-2' | sha256sum | cut -d' ' -f1)
# its two records in one chunk, as the verifier stores one evidence's
rec0=$(record_body_hex 10 ima-ng boot_aggregate sha256 "$(printf '%064d' 0)") &&
	rec1=$(record_body_hex 10 ima-ng /usr/sbin/tool sha256 "$tool_hex") ||
	{ echo "Bail out! record_body_hex"; exit 1; }
sqlite3 "$tmp/verifier.db" <<SQL
INSERT INTO machines (id, ek_pub, ak_pub, ak_name, state, state_reason,
	created_at, last_seen, activated, ek_fpr)
VALUES ('node-1', x'0001', x'0001', x'000b01', 'untrusted',
	'{"check":"record","index":1,"path":"/usr/sbin/tool","verdict":"unknown"}',
	$now, $now, 1, x'$fpr1'),
       ('node-2', x'0002', x'0002', x'000b02', 'pending', NULL, $now, NULL, 1,
	x'$fpr2');
INSERT INTO boots (machine_id, reset_count, restart_count, started_at,
	next_record_index, pcr10_sha1, pcr10_sha256)
VALUES ('node-1', 1, 0, $now, 2, zeroblob(20), zeroblob(32));
INSERT INTO record_chunks (boot_id, first_idx, verdicts, body)
VALUES (1, 0, 'xu', x'$rec0$rec1');
SQL

verifier_start

export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token

expect 0 "imatrust machines" "$imatrust" machines
contains "$tmp/out" '^ID +STATE +TNC +LAST-SEEN +EK-FINGERPRINT +EK-SUBJECT +REASON' "the table has a header"
contains "$tmp/out" "^node-1 +untrusted +isolate +[0-9]+s ago +$fpr1 +- +record unknown /usr/sbin/tool" \
	"node-1 is untrusted, isolate, shows its EK and says why"
contains "$tmp/out" '^node-2 +pending +no_recommendation +never' "node-2 is pending"
expect 0 "imatrust machines --json" "$imatrust" machines --json
[ "$(jq length "$tmp/out")" = 2 ] && ok "--json lists both" || not_ok "--json lists both" "$tmp/out"
expect 0 "imatrust machine node-1" "$imatrust" machine node-1
contains "$tmp/out" '^boot.next_record_index +2$' "the detail shows the boot"
expect 1 "an unknown machine is a failed answer" "$imatrust" machine nobody
contains "$tmp/err" 'verifier answered 404: no machine "nobody"' "the 404 is explained"
expect 2 "a bad machine id is a usage error" "$imatrust" machine 'a/b'
expect 2 "machine without ID is a usage error" "$imatrust" machine

# the CLI for scripts: records by verdict, wait, api, --boot, --watch
expect 0 "records --verdict unknown" "$imatrust" records --verdict unknown node-1
contains "$tmp/out" '^ +1  unknown +/usr/sbin/tool' "records --verdict shows the unknown record"
if grep -q boot_aggregate "$tmp/out"; then not_ok "records --verdict leaves the others out" "$tmp/out"
else ok "records --verdict leaves the others out"; fi
expect 0 "records without a filter" "$imatrust" records node-1
[ "$(wc -l <"$tmp/out")" = 2 ] && ok "records lists both records" || not_ok "records lists both records" "$tmp/out"
expect 1 "records --verdict of no verdict" "$imatrust" records --verdict frob node-1
contains "$tmp/err" 'verdict' "the refusal names ?verdict="
expect 0 "wait for a state it is in" "$imatrust" wait node-1 trusted,untrusted --timeout 5
contains "$tmp/out" '^[0-9]{10}\.[0-9]{6}$' "wait prints when it saw the state"
[ "$(tail -n 1 "$tmp/out" | jq -r .machine.state)" = untrusted ] &&
	ok "wait prints the machine" || not_ok "wait prints the machine" "$tmp/out"
rm -f "$tmp/ready"
expect 1 "wait for a state it never reaches" "$imatrust" wait node-1 trusted --timeout 0.3 --interval 0.05 --ready "$tmp/ready"
contains "$tmp/err" 'node-1: not trusted after 0.3 s \(state untrusted\)' "the timeout says what the state was"
[ -e "$tmp/ready" ] && ok "wait --ready made its file after the first answer" || not_ok "wait --ready made its file"
expect 2 "wait for a state that is no state" "$imatrust" wait node-1 'Trusted;x'
expect 2 "wait without a state" "$imatrust" wait node-1
expect 1 "wait with a wrong token" "$imatrust" wait node-1 untrusted --timeout 0.2 --token-file /dev/null
expect 0 "api GET" "$imatrust" api GET /v1/machines/node-2
[ "$(jq -r .machine.state "$tmp/out")" = pending ] && ok "api GET prints the answer" || not_ok "api GET prints the answer" "$tmp/out"
expect 1 "api GET of nothing" "$imatrust" api GET /v1/machines/nobody
expect 2 "api only GETs" "$imatrust" api DELETE /v1/machines/node-1
expect 0 "machines --boot" "$imatrust" machines --boot
contains "$tmp/out" '^ID +STATE +TNC +BOOT +LAST-SEEN' "--boot adds a BOOT column"
contains "$tmp/out" '^node-1 +untrusted +isolate +no log +' "a machine without a firmware log says so"
touch "$tmp/until"
printf 'line one\nthe story so far\n' >"$tmp/story"
expect 0 "machines --watch ends when --until-file exists" timeout 10 "$imatrust" machines --watch --until-file "$tmp/until" --footer "$tmp/story"
contains "$tmp/out" '^2 machines:  untrusted 1  pending 1$|^2 machines:  pending 1  untrusted 1$' "--watch counts the machines of each state"
contains "$tmp/out" '^the story so far$' "--watch shows the footer's last lines"
"$imatrust" machines --watch >"$tmp/watch" 2>&1 &
watcher=$!
sleep 1.5
kill -INT "$watcher"
if wait "$watcher"; then ok "machines --watch ends cleanly on Ctrl-C"
else not_ok "machines --watch ends cleanly on Ctrl-C" "$tmp/watch"; fi

# the missing reference: node-1 is trusted at once
expect 0 "ref import-dir" "$imatrust" ref import-dir --prefix /usr \
	--algo sha256,sha1 --source guest-image "$tmp/image"
contains "$tmp/out" '^imported 2 files \(4 references\) .* as dir-tree:guest-image in .* files/s' \
	"import-dir counts files and references"
contains "$tmp/out" 'now trusted 1, now untrusted 0; skipped 2 \(not regular files\)' \
	"node-1 became trusted; the symlink and fifo were skipped"
expect 0 "machines after the import" "$imatrust" machines
contains "$tmp/out" '^node-1 +trusted +allow' "node-1 is trusted, allow"
expect 0 "imatrust events node-1" "$imatrust" events node-1
contains "$tmp/out" 'state +untrusted->trusted +rejudge +alice' \
	"the event says re-judged, by alice"
expect 0 "events --json" "$imatrust" events --json node-1
[ "$(jq -r '.[-1].reason.source.name' "$tmp/out")" = guest-image ] &&
	ok "the event names the import" || not_ok "the event names the import" "$tmp/out"

expect 0 "ref ls --path" "$imatrust" ref ls --path /usr/sbin/tool
contains "$tmp/out" "^/usr/sbin/tool  sha256:$tool_hex  dir-tree:guest-image" "ref ls shows the digest"
[ "$(wc -l <"$tmp/out")" = 2 ] && ok "both algorithms were imported" || not_ok "both algorithms" "$tmp/out"
expect 0 "ref add" "$imatrust" ref add /etc/motd "sha256:$tool_hex"
expect 0 "ref ls --source manual --json" "$imatrust" ref ls --source manual --json
[ "$(jq -r '.[0].path' "$tmp/out")" = /etc/motd ] && ok "ref add stored it" || not_ok "ref add stored it" "$tmp/out"
expect 2 "ref add with a bad digest" "$imatrust" ref add /etc/motd sha256:abc
expect 0 "ref rm one" "$imatrust" ref rm /etc/motd "sha256:$tool_hex"
contains "$tmp/out" '^deleted 1 references' "ref rm deleted it"
expect 0 "ref rm --source withdraws" "$imatrust" ref rm --source guest-image
contains "$tmp/out" '^deleted 4 references; machines re-judged 1, now untrusted 1' \
	"the whole source went, and node-1 was judged again"
expect 0 "machines after the delete" "$imatrust" machines
contains "$tmp/out" '^node-1 +untrusted +isolate +[0-9]+s ago +[0-9a-f]{64} +- +record unknown /usr/sbin/tool' \
	"withdrawing the reference of a file node-1 ran makes it untrusted, naming the record"
expect 0 "events node-1 after the delete" "$imatrust" events --json node-1
[ "$(jq -r '.[-1].reason.cause.operator + " " + .[-1].reason.cause.change' "$tmp/out")" = "alice delete" ] &&
	ok "the event says who withdrew it" || not_ok "the event says who withdrew it" "$tmp/out"

expect 2 "approve without --ek is a usage error" "$imatrust" approve node-2
expect 1 "approve with another EK's fingerprint is refused" "$imatrust" approve node-2 --ek "$fpr1"
contains "$tmp/err" 'another fingerprint' "the refusal says why"
expect 0 "approve node-2 --ek" "$imatrust" approve node-2 --ek "sha256:$fpr2"
contains "$tmp/out" "^node-2 approved by alice for EK $fpr2; state enrolling" "approval names the operator and the EK"
expect 0 "machine add" "$imatrust" machine add node-3 --ek "$(printf 'ek of node-3' | sha256sum | cut -d' ' -f1)"
contains "$tmp/out" '^node-3 pre-registered for EK [0-9a-f]{64} by alice' "machine add pre-registers"
expect 1 "machine add of an EK that has an id" "$imatrust" machine add node-4 --ek "$fpr1"
expect 0 "machine rm of a pre-registration" "$imatrust" machine rm node-3
contains "$tmp/out" '^node-3 removed: pre-registration' "machine rm says what went"
expect 1 "machine rm of nothing" "$imatrust" machine rm node-3
expect 0 "imatrust audit" "$imatrust" audit
contains "$tmp/out" 'approve +node-2 +alice/admin +'"$fpr2" "the audit shows the approval, by whom and their role"
contains "$tmp/out" 'remove +node-3 +alice' "... and the removal"
expect 0 "imatrust audit --json --machine node-3" "$imatrust" audit --json --machine node-3
[ "$(jq length "$tmp/out")" = 2 ] && ok "--machine filters (register, remove)" ||
	not_ok "--machine filters" "$tmp/out"
[ "$(jq -r '[.[] | .operator + "/" + .role] | unique | join(",")' "$tmp/out")" = alice/admin ] &&
	ok "each entry carries the token's role" ||
	not_ok "each entry carries the token's role" "$tmp/out"

# what goes wrong, said clearly
printf 'not-the-token\n' >"$tmp/bad-token"
expect 1 "a wrong token" "$imatrust" machines --token-file "$tmp/bad-token"
contains "$tmp/err" 'refused the operator token' "401 is explained"
expect 1 "no token at all" env -u IMATRUST_TOKEN_FILE -u IMATRUST_TOKEN "$imatrust" machines
contains "$tmp/err" 'no operator token' "a missing token is explained"
expect 1 "connection refused" "$imatrust" machines --url https://127.0.0.1:1
contains "$tmp/err" 'cannot connect to https://127.0.0.1:1' "connection refused is explained"
expect 1 "an untrusted certificate" env -u IMATRUST_CA "$imatrust" machines --ca /dev/null
contains "$tmp/err" 'TLS with .* failed' "a TLS failure is explained"
expect 2 "an unknown ref command" "$imatrust" ref frob

# the real answers against verifier/api/openapi.json
auth="Authorization: Bearer $(cat "$tmp/token")"
check() {
	local method=$1 path=$2 want=$3 body=${4:-} type=${5:-application/json}
	local args=(-s -o "$tmp/body" -w '%{http_code}' --cacert "$tmp/cert.pem"
		-X "$method" -H "$auth")
	[ -n "$body" ] && args+=(-H "Content-Type: $type" --data-binary "$body")
	[ -z "$body" ] && [ -n "${5:-}" ] && args+=(-H "Content-Type: $type")
	local status
	if [ ! -x "$tools/openapi_check" ]; then
		n=$((n + 1)); echo "ok $n - $method $path # SKIP no $tools/openapi_check"
		return
	fi
	status=$(curl "${args[@]}" "$url$path")
	if [ "$status" != "$want" ]; then
		echo "# $method $path: $status, wanted $want"
		not_ok "$method $path $want" "$tmp/body"
		return
	fi
	if "$tools/openapi_check" "$spec" "$method" "$path" "$status" \
		"$tmp/body" 2>"$tmp/why"; then
		ok "$method $path $want matches openapi.json"
	else
		not_ok "$method $path $want matches openapi.json" "$tmp/why"
	fi
}
check GET /v1/health 200
check GET '/v1/machines?limit=1' 200
check GET '/v1/machines?limit=1&after=node-1' 200
check GET /v1/machines/node-1 200
check GET '/v1/machines/node-1/events?after=0&limit=5' 200
check GET '/v1/machines/node-1/records?verdict=known' 200
check GET /v1/machines/ghost 404
check POST /v1/machines/node-2/approve 200 '{"v":1,"ek":"'"$fpr2"'"}'
check POST "/v1/machines/node-2/approve?ek=$fpr2" 200 '' application/json
check POST /v1/machines/node-2/approve 409 '{"v":1,"ek":"'"$fpr1"'"}'
check POST /v1/machines/node-2/approve 400 '' application/json
check POST /v1/machines 201 '{"v":1,"id":"node-9","ek":"'"$tool_hex"'"}'
check POST /v1/machines 409 '{"v":1,"id":"node-1","ek":"'"$tool_hex"'"}'
check GET '/v1/audit?limit=2' 200
check GET '/v1/audit?machine=node-9' 200
check GET "/v1/audit?since=$now&limit=2" 200
check GET '/v1/audit?since=x' 400
check DELETE /v1/machines/node-9 200
check DELETE /v1/machines/node-9 404
check GET '/v1/machines?limit=0' 400
check GET '/v1/references?path=/usr/sbin/tool' 200
check POST /v1/references 200 '{"v":1,"source":{"kind":"deb","name":"x.deb"},"refs":[{"path":"/bin/x","algo":"sha256","digest":"'"$tool_hex"'"}]}'
check POST /v1/references 400 '{"v":1,"source":{"kind":"deb","name":"x.deb"},"refs":[{"path":"/bin/y","algo":"sha256","digest":"00"}]}'
check POST /v1/references 400 '{"v":1,'
check POST /v1/references 415 '{"v":1}' text/plain
check DELETE /v1/references 200 '{"v":1,"source":{"kind":"deb","name":"x.deb"}}'
check POST /v1/agents/ghost/nonce 404
check POST /v1/agents 400 '{"v":1,"agent":"a"}'
auth="Authorization: Bearer wrong-token-wrong-token"
check GET /v1/machines 401
check POST /v1/references 401 '{"v":1}'
# nothing of the refused requests was stored
"$imatrust" ref ls --json >"$tmp/out" 2>&1
[ "$(jq length "$tmp/out")" = 0 ] && ok "refused requests stored nothing" ||
	not_ok "refused requests stored nothing" "$tmp/out"

curl -s --cacert "$tmp/cert.pem" -D "$tmp/head" -o "$tmp/metrics" "$url/v1/metrics"
contains "$tmp/head" '[Cc]ontent-[Tt]ype: text/plain; version=0.0.4' "metrics are Prometheus text"
contains "$tmp/metrics" '^imatrust_machines\{state="untrusted"\} 1$' "metrics count machines per state"
curl -s --cacert "$tmp/cert.pem" -D "$tmp/head" -o "$tmp/page" "$url/"
contains "$tmp/head" '[Cc]ontent-[Tt]ype: text/html' "the fleet console is HTML"
contains "$tmp/head" "[Cc]ontent-[Ss]ecurity-[Pp]olicy: default-src 'none'" "... under a strict CSP"

echo "1..$n"
