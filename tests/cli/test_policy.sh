#!/usr/bin/env bash
# test_policy.sh - named policies, signature keys and sources through the
# imatrust CLI against a real imatrust-verifier on a free loopback port
# (TAP): a machine trusted by a deb source loses its trust when a policy
# stops trusting the source and gets it back when the policy trusts it
# again; the default cannot be removed; keys made by openssl are added
# (PEM and DER), listed and removed; ref sources lists what was imported.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

skip_without openssl sqlite3 curl jq

port=$(free_port)
self_cert
write_verifier_conf "stale_after = 86400"
token_add alice
printf '%s\n' "$token" >"$tmp/token"

# node-1 ran /usr/bin/a (unknown until its reference is imported)
a_hex=$(printf 'file a\n' | sha256sum | cut -d' ' -f1)
now=$(date +%s)
fpr1=$(printf 'ek of node-1' | sha256sum | cut -d' ' -f1)
# its two records in one chunk, as the verifier stores one evidence's
rec0=$(record_body_hex 10 ima-ng boot_aggregate sha256 "$(printf '%064d' 0)") &&
	rec1=$(record_body_hex 10 ima-ng /usr/bin/a sha256 "$a_hex") ||
	{ echo "Bail out! record_body_hex"; exit 1; }
sqlite3 "$tmp/verifier.db" <<SQL
INSERT INTO machines (id, ek_pub, ak_pub, ak_name, state, state_reason,
	created_at, last_seen, activated, ek_fpr)
VALUES ('web-1', x'0001', x'0001', x'000b01', 'untrusted',
	'{"check":"record","index":1,"path":"/usr/bin/a","verdict":"unknown"}',
	$now, $now, 1, x'$fpr1');
INSERT INTO boots (machine_id, reset_count, restart_count, started_at,
	next_record_index, pcr10_sha1, pcr10_sha256)
VALUES ('web-1', 1, 0, $now, 2, zeroblob(20), zeroblob(32));
INSERT INTO record_chunks (boot_id, first_idx, verdicts, body)
VALUES (1, 0, 'xu', x'$rec0$rec1');
SQL

verifier_start
export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token

expect 0 "ref add from a deb source" "$imatrust" ref add --kind deb \
	--source a_1.0_amd64 /usr/bin/a "sha256:$a_hex"
contains "$tmp/out" 'now trusted 1' "web-1 became trusted"

# ---- policies ----
expect 0 "policy ls" "$imatrust" policy ls
contains "$tmp/out" '^NAME +DEFAULT +MACHINES +SOURCES' "the table has a header"
contains "$tmp/out" '^default +yes +- +\*$' "the default policy trusts every source"

printf '{"machines":["web-*"],"sources":["dir-tree:*"]}\n' >"$tmp/web.json"
expect 0 "policy put web (dir-tree only)" "$imatrust" policy put web "$tmp/web.json"
contains "$tmp/out" 'policy web stored; .*now untrusted 1' \
	"a policy that stops trusting the deb takes web-1's trust"
expect 0 "machine web-1" "$imatrust" machine web-1
contains "$tmp/out" '^state +untrusted$' "web-1 is untrusted"
contains "$tmp/out" '^policy +web$' "the detail names its policy"
contains "$tmp/out" '"policy":"web"' "the reason names the policy"
expect 0 "machine records web-1" "$imatrust" machine records web-1
contains "$tmp/out" '^ +1 +unknown +/usr/bin/a +-$' "the record is unknown, accepted by nothing"

printf '{"machines":["web-*"],"sources":["deb:*"],"excludes":[{"prefix":"/tmp/"}]}' |
	"$imatrust" policy put web - >"$tmp/out" 2>"$tmp/err"
contains "$tmp/out" 'policy web stored; .*now trusted 1' \
	"policy put from stdin trusts the deb again: web-1 is trusted"
expect 0 "machine records web-1 again" "$imatrust" machine records web-1
contains "$tmp/out" '^ +1 +known +/usr/bin/a +deb:a_1.0_amd64$' \
	"accepted_by names the deb source"
expect 0 "policy show web" "$imatrust" policy show web
[ "$(jq -r '.sources[0]' "$tmp/out")" = "deb:*" ] &&
[ "$(jq -r '.excludes[0].prefix' "$tmp/out")" = "/tmp/" ] &&
[ "$(jq -r '.name // "none"' "$tmp/out")" = none ] &&
	ok "policy show prints the document as put takes it" ||
	not_ok "policy show prints the document as put takes it" "$tmp/out"
"$imatrust" policy put web2 "$tmp/out" >/dev/null 2>&1 &&
	ok "what policy show prints, policy put takes" ||
	not_ok "what policy show prints, policy put takes"
expect 0 "policy ls --json" "$imatrust" policy ls --json
[ "$(jq -r 'map(.name) | join(",")' "$tmp/out")" = "default,web,web2" ] &&
	ok "policies listed in order" || not_ok "policies listed in order" "$tmp/out"

printf '{"sources":["deb:*"],"colour":"red"}\n' >"$tmp/bad.json"
expect 1 "a bad policy is refused" "$imatrust" policy put web "$tmp/bad.json"
contains "$tmp/err" 'colour' "the message names the field"
printf '{"sources":' >"$tmp/notjson.json"
expect 2 "a file that is not JSON is a usage error" "$imatrust" policy put web "$tmp/notjson.json"
expect 1 "the default cannot be removed" "$imatrust" policy rm default
contains "$tmp/err" '409.*default' "the 409 says why"
expect 0 "policy rm web2" "$imatrust" policy rm web2
expect 1 "policy rm of an unknown policy" "$imatrust" policy rm web2
contains "$tmp/err" '404' "it is a 404"
expect 2 "a bad policy name is a usage error" "$imatrust" policy show 'a/b'

# ---- keys ----
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/ima.key" -out "$tmp/ima.pem" -days 2 \
	-subj /CN=ima-signer -addext subjectKeyIdentifier=hash 2>/dev/null
openssl x509 -in "$tmp/ima.pem" -outform DER -out "$tmp/ima.der"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/v.key" \
	-out "$tmp/v.pem" -days 2 -subj /CN=vendor 2>/dev/null
openssl x509 -in "$tmp/v.pem" -outform DER -out "$tmp/v.der"
skid=$(openssl x509 -in "$tmp/ima.pem" -noout -ext subjectKeyIdentifier |
	tail -1 | tr -d ' :' | tr 'A-F' 'a-f')
keyid=${skid: -8}
fpr=$(sha256sum "$tmp/ima.der" | cut -d' ' -f1)

expect 0 "key add a PEM certificate" "$imatrust" key add "$tmp/ima.pem"
contains "$tmp/out" "^key $keyid \\(keyid $keyid, CN=ima-signer\\) added as source key:$keyid" \
	"the default name is the key id (subjectKeyIdentifier)"
expect 0 "key add --name a DER certificate" "$imatrust" key add --name vendor "$tmp/v.der"
contains "$tmp/out" '^key vendor .* added as source key:vendor' "named vendor"
expect 1 "the same certificate again" "$imatrust" key add --name again "$tmp/ima.der"
contains "$tmp/err" '409' "is a 409"
expect 1 "a private key is not a certificate" "$imatrust" key add "$tmp/ima.key"
contains "$tmp/err" 'not an X.509 certificate' "the message says so"
expect 0 "key ls" "$imatrust" key ls
contains "$tmp/out" '^NAME +KEYID +SOURCE +SUBJECT +FINGERPRINT' "the table has a header"
contains "$tmp/out" "^$keyid +$keyid +key:$keyid +CN=ima-signer +$fpr\$" \
	"the key, its id, source, subject and fingerprint"
expect 0 "key ls --json" "$imatrust" key ls --json
[ "$(jq length "$tmp/out")" = 2 ] && ok "two keys" || not_ok "two keys" "$tmp/out"
expect 0 "key rm vendor" "$imatrust" key rm vendor
contains "$tmp/out" 'key vendor removed; machines re-judged' "removal re-judges"
expect 1 "key rm of an unknown key" "$imatrust" key rm vendor
expect 0 "key ls after rm" "$imatrust" key ls --json
[ "$(jq length "$tmp/out")" = 1 ] && ok "one key left" || not_ok "one key left" "$tmp/out"

# ---- sources ----
expect 0 "ref sources" "$imatrust" ref sources
contains "$tmp/out" '^deb +a_1.0_amd64 +1 refs' "the deb source and its reference count"
expect 0 "ref sources --kind deb --json" "$imatrust" ref sources --kind deb --json
[ "$(jq -r '.[0].name' "$tmp/out")" = a_1.0_amd64 ] &&
[ "$(jq -r '.[0].retire_at' "$tmp/out")" = null ] &&
	ok "--json: name, retire_at null" || not_ok "--json: name, retire_at null" "$tmp/out"
expect 0 "ref sources --kind dir-tree" "$imatrust" ref sources --kind dir-tree --json
[ "$(jq length "$tmp/out")" = 0 ] && ok "no dir-tree source" || not_ok "no dir-tree source" "$tmp/out"
expect 1 "an unknown kind is refused" "$imatrust" ref sources --kind rpm

# ---- the audit trail and the token ----
expect 0 "audit" "$imatrust" audit --json
for act in policy-put policy-delete key-add key-delete; do
	[ "$(jq --arg a "$act" '[.[] | select(.action == $a and .operator == "alice")] | length > 0' "$tmp/out")" = true ] &&
		ok "audit has $act by alice" || not_ok "audit has $act by alice" "$tmp/out"
done
for r in "GET /v1/policies" "PUT /v1/policies/x" "DELETE /v1/policies/web" \
	 "GET /v1/keys" "POST /v1/keys" "DELETE /v1/keys/$keyid" "GET /v1/sources"; do
	# "METHOD PATH" into $1 $2 (read: no glob of the ? in a path)
	read -r -a words <<<"$r"
	set -- "${words[@]}"
	code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$tmp/cert.pem" \
		-X "$1" -H 'Content-Type: application/json' -d '{}' "$url$2")
	[ "$code" = 401 ] && ok "$r without a token: 401" ||
		not_ok "$r without a token: $code"
done

echo "1..$n"
