#!/usr/bin/env bash
# test_token.sh - scoped, expiring operator tokens (issue #36) through
# `imatrust-verifier token add|set|list|rm` and the imatrust CLI against a real
# verifier (TAP): a new token is operator unless --role says otherwise,
# --expires takes a duration or a future date, token list shows role,
# expiry and last use; the CLI says which role a refusal needed, and that
# a token expired.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

skip_without openssl sqlite3 curl

port=$(free_port)
self_cert
write_verifier_conf "stale_after = 86400"
v() { "$bin/imatrust-verifier" -c "$tmp/verifier.conf" token "$@"; }

expect 0 "token add without --role" v add olga
contains "$tmp/err" 'role operator, the default' "the default role is said"
[ "$(wc -l <"$tmp/out")" = 1 ] && grep -qE '^[0-9a-f]{64}$' "$tmp/out" &&
	ok "stdout is the token alone" || not_ok "stdout is the token alone" "$tmp/out"
cp "$tmp/out" "$tmp/olga"
expect 0 "token add --role reader" v add rita --role reader
cp "$tmp/out" "$tmp/rita"
expect 0 "token add --role admin --expires 90d" v add adam --role admin \
	--expires 90d
cp "$tmp/out" "$tmp/adam"
expect 0 "token add --expires DATE" v add dora --expires 2099-01-31
expect 0 "token add --expires DATETIME" v add tim --role reader \
	--expires 2099-01-31T12:30:00Z
expect 2 "--role root is refused" v add x --role root
expect 2 "--expires in the past is refused" v add x --expires 2001-01-01
contains "$tmp/err" 'not in the future' "the past is named"
expect 2 "--expires junk is refused" v add x --expires soon
contains "$tmp/err" 'not a DURATION' "a bad expiry is explained"
expect 2 "--expires -5d is refused" v add x --expires -5d
expect 2 "an unknown option is refused" v add x --colour red
expect 1 "no token x was made" v rm x

expect 0 "token list" v list
contains "$tmp/out" '^NAME +ROLE +CREATED +EXPIRES +LAST USED$' "the list has a header"
contains "$tmp/out" '^olga +operator +[0-9T:-]+Z +never +never$' "olga: operator, never expires, never used"
contains "$tmp/out" '^rita +reader ' "rita: reader"
contains "$tmp/out" '^dora +operator +[0-9T:-]+Z +2099-01-31T00:00:00Z +never$' "dora: expires at the date, UTC"
contains "$tmp/out" '^tim +reader +[0-9T:-]+Z +2099-01-31T12:30:00Z ' "tim: expires at the time"
want=$(date -u -d "@$(($(date +%s) + 90 * 86400))" +%Y-%m-%d)
contains "$tmp/out" "^adam +admin +[0-9T:-]+Z +${want}T" "adam: expires in 90 days"

verifier_start
export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem

export IMATRUST_TOKEN_FILE=$tmp/rita
expect 0 "imatrust whoami" "$imatrust" whoami
contains "$tmp/out" '^rita: role reader, expires never, last used ' "whoami names the token and its role"
expect 0 "imatrust whoami --json" "$imatrust" whoami --json
[ "$(jq -r '.name + "/" + .role + "/" + (.expires_at | tostring)' "$tmp/out")" = rita/reader/null ] &&
	ok "whoami --json: name, role, no expiry" || not_ok "whoami --json" "$tmp/out"
expect 0 "a reader lists the policies" "$imatrust" policy ls
expect 1 "a reader cannot remove a policy" "$imatrust" policy rm nope
contains "$tmp/err" "refused this token's role: this token's role reader cannot DELETE /v1/policies/nope: needs operator" \
	"the CLI names the role needed"
export IMATRUST_TOKEN_FILE=$tmp/olga
expect 1 "an operator reaches policy rm (no such policy)" "$imatrust" policy rm nope
lacks "$tmp/err" "role" "not refused for its role"
expect 1 "an operator cannot add a key" "$imatrust" key add "$tmp/cert.pem"
contains "$tmp/err" "needs admin" "the CLI says admin is needed"
printf '{"machines":["web-*"],"sources":["*"]}\n' >"$tmp/web.json"
expect 0 "an operator puts a policy" "$imatrust" policy put web "$tmp/web.json"
expect 0 "imatrust audit" "$imatrust" audit
contains "$tmp/out" 'policy-put +- +olga/operator ' "the write is audited with the token's name and role"

sqlite3 "$tmp/verifier.db" "UPDATE tokens SET expires_at = 1000000000 WHERE
	name = 'olga'" || { echo "Bail out! expire olga"; exit 1; }
expect 1 "an expired token reads nothing" "$imatrust" policy ls
contains "$tmp/err" "refused the operator token: token expired at 2001-09-09T01:46:40Z" \
	"the CLI says since when it expired"

# token set: the role and expiry change in place, the secret stays
expect 2 "token set without a change" v set olga
expect 2 "token set --role nobody" v set olga --role nobody
expect 1 "token set of no such token" v set x --role reader
contains "$tmp/err" "no token named x" "token set names the missing token"
expect 0 "token set --expires never" v set olga --expires never
expect 0 "olga reads again with the same secret" "$imatrust" policy ls
export IMATRUST_TOKEN_FILE=$tmp/rita
expect 0 "token set rita --role operator" v set rita --role operator
expect 0 "whoami after the change" "$imatrust" whoami
contains "$tmp/out" '^rita: role operator, expires never' "rita is an operator now"
expect 1 "rita reaches policy rm (no such policy)" "$imatrust" policy rm nope
lacks "$tmp/err" "role" "rita is not refused for her role any more"
expect 0 "token set rita --expires 2099-01-31" v set rita --expires 2099-01-31
expect 0 "whoami after the expiry set" "$imatrust" whoami
contains "$tmp/out" '^rita: role operator, expires 2099-01-31T00:00:00Z' "the role stays when the expiry changes"
export IMATRUST_TOKEN_FILE=$tmp/olga
sqlite3 "$tmp/verifier.db" "UPDATE tokens SET expires_at = 1000000000 WHERE
	name = 'olga'" || { echo "Bail out! expire olga"; exit 1; }

expect 0 "token list after use" v list
contains "$tmp/out" '^rita +operator +[0-9T:-]+Z +2099-01-31T00:00:00Z +[0-9T:-]+Z$' "rita's last use is kept"
contains "$tmp/out" '^olga .*\(expired\)$' "olga is marked expired"
expect 0 "token rm" v rm olga
expect 0 "token list" v list
lacks "$tmp/out" '^olga ' "olga is gone"
echo "1..$n"
