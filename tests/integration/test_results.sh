#!/usr/bin/env bash
# test_results.sh - signed attestation results (EAR) with a real verifier,
# imatrust-agent and swtpm, checked by an independent relying party:
# PyJWT and cryptography (result-rp.py), with only the verifier's JWK Set
# (TAP).
#
# Checks: the key is made 0600 on first start, a group-readable or RSA key
# stops the start naming the file; the JWK Set without a token, its kid
# the RFC 7638 thumbprint computed in Python; a trusted machine's result
# with a nonce verifies (profile, affirming, nonce echoed, sub, exp >
# iat), also as printed by imatrust machine ID result; untrusted is
# contraindicated; a payload changed under the signature, a token signed
# by another key, a result asked for another machine or nonce are
# refused; 401 without a token, 404 for an unknown machine, 400 for a bad
# nonce; the key and its kid survive a restart. Rotation (imatrust-verifier
# key rotate while the verifier runs): the JWK Set has the new and the
# previous key, a result signed before verifies by its kid, a new one has
# the new kid; after a second rotation the first key is gone.
set -u

. "$(dirname "$0")/swtpm-lib.sh"
here=$SWTPM_LIB_ROOT/tests/integration
require_tools swtpm swtpm_setup swtpm_localca openssl python3 curl jq
swtpm_test_setup
for b in imatrust imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done
# PyJWT from Debian (python3-jwt): the system's python3, not another one
# first on PATH without it
py=python3
for p in python3 /usr/bin/python3; do
	if "$p" -c 'import jwt, cryptography' 2>/dev/null; then py=$p; break; fi
done
"$py" -c 'import jwt, cryptography' 2>/dev/null ||
	bail "python3-jwt or python3-cryptography not installed (deploy/install-deps.sh)"
rp() { "$py" "$here/result-rp.py" "$@"; }
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
AGENT_PID='' VERIFIER_PID=''
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID' EXIT
swtpm_lab
mkdir -p "$tmp/db"

# --- the key: refused ones stop the start --------------------------------------
vport=$(swtpm_free_ports)
# conf DB [RESULT_KEY]: on PostgreSQL (db_uri) the key has no database
# directory to be made in by default: it is named where it would be
conf() {
	local db key=${2:-}

	db=$(db_uri "$1") || return 1
	cat <<EOC
listen = 127.0.0.1
port = $vport
tls_cert = $tmp/cert.pem
tls_key = $tmp/key.pem
database = $db
ek_ca = $tmp/ek-ca.pem
stale_after = 60
EOC
	if [ -z "$key" ] && [ -n "${IMATRUST_TEST_PG_URI:-}" ]; then
		key=$(dirname "$1")/result-key.pem
	fi
	if [ -n "$key" ]; then echo "result_key = $key"; fi
}
refused_start() {	# refused_start KEYFILE WHY: the verifier exits naming it
	conf "$tmp/db/refused.db" "$1" >"$tmp/refused.conf"
	timeout 20 "$bin/imatrust-verifier" -c "$tmp/refused.conf" \
		>"$tmp/refused.log" 2>&1 && return 1
	grep -q -- "$1: .*$2" "$tmp/refused.log"
}
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
	-out "$tmp/open.pem" 2>/dev/null && chmod 0640 "$tmp/open.pem"
check "a group-readable result key stops the start, naming the file" \
	refused_start "$tmp/open.pem" "group or others"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 \
	-out "$tmp/rsa.pem" 2>/dev/null && chmod 0600 "$tmp/rsa.pem"
check "an RSA result key stops the start, naming the file" \
	refused_start "$tmp/rsa.pem" "not an EC P-256 key"

# --- verifier with its own key ------------------------------------------------
conf "$tmp/db/verifier.db" >"$tmp/verifier.conf" || bail "conf"
"$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add ops \
	>"$tmp/token" 2>"$tmp/token.log" || bail "token add" "$tmp/token.log"
token=$(cat "$tmp/token")
lab_verifier_start || bail "verifier does not start" "$tmp/verifier.log"
check "the result key is made beside the database, mode 0600" \
	[ "$(stat -c %a "$tmp/db/result-key.pem" 2>/dev/null)" = 600 ]
get() {	# get PATH [TOKEN]: the answer, then the status on a line
	curl -s --cacert "$tmp/cert.pem" -w '\n%{http_code}' \
		${2:+-H "Authorization: Bearer $2"} "https://127.0.0.1:$vport$1"
}
status_of() { tail -n 1 <<<"$1"; }
body_of() { sed '$d' <<<"$1"; }

out=$(get /v1/results/jwks)
body_of "$out" >"$tmp/jwks.json"
kid=$(jq -r '.keys[0].kid' "$tmp/jwks.json")
check "GET /v1/results/jwks without a token: 200, one ES256 P-256 key" \
	[ "$(status_of "$out")" = 200 -a \
	  "$(jq -c '[(.keys | length), .keys[0].kty, .keys[0].crv, .keys[0].alg, .keys[0].use]' "$tmp/jwks.json")" = \
	  '[1,"EC","P-256","ES256","sig"]' ]
check "its kid is the RFC 7638 thumbprint computed in Python ($kid)" \
	[ "$(rp kid "$tmp/jwks.json")" = "$kid" ]

# --- the machine ---------------------------------------------------------------
lab_agent_start res-1
state_is() { [ "$(body_of "$(get /v1/machines/res-1 "$token")" | jq -r .machine.state)" = "$1" ]; }
check "the agent enrolls and its machine is trusted" within 30 state_is trusted

nonce=$(openssl rand 32 | base64 | tr '+/' '-_' | tr -d '=\n')
result() {	# result ID QUERY FILE: the token of the answer into FILE
	local o
	o=$(get "/v1/machines/$1/result$2" "$token")
	[ "$(status_of "$o")" = 200 ] || return 1
	body_of "$o" | jq -r .result >"$3"
}
claim() { jq -r "$1" "$tmp/claims.json"; }
check "GET /v1/machines/res-1/result?nonce=: 200" \
	result res-1 "?nonce=$nonce" "$tmp/trusted.jwt"
if rp verify "$tmp/jwks.json" "$tmp/trusted.jwt" res-1 "$nonce" \
	>"$tmp/claims.json" 2>"$tmp/rp.log"; then
	ok "PyJWT verifies it with the JWK Set (ES256, exp, sub, nonce)"
else fail "PyJWT verifies it with the JWK Set (ES256, exp, sub, nonce)" "$tmp/rp.log"; fi
check "profile $(claim .eat_profile), status $(claim '.submods["res-1"]["ear.status"]')" \
	[ "$(claim .eat_profile)" = "tag:github.com,2023:veraison/ear" -a \
	  "$(claim '.submods["res-1"]["ear.status"]')" = affirming ]
check "the nonce is echoed, sub is the machine, exp > iat" \
	[ "$(claim .eat_nonce)" = "$nonce" -a "$(claim .sub)" = res-1 -a \
	  "$(claim '.exp > .iat')" = true ]
check "trustworthiness vector: identity, executables, hardware 2 (EK chained)" \
	[ "$(claim '.submods["res-1"]["ear.trustworthiness-vector"] | [.["instance-identity"], .executables, .hardware] | join(",")')" = 2,2,2 ]
check "TNC allow, state trusted, the verifier named" \
	[ "$(claim '.submods["res-1"] | [.["imatrust.tnc"], .["imatrust.state"]] | join(",")'),$(claim '.["ear.verifier-id"].developer')" = allow,trusted,imatrust ]
check "the same token fails for another machine id" \
	fails rp verify "$tmp/jwks.json" "$tmp/trusted.jwt" res-2 "$nonce"
check "... and for another nonce" \
	fails rp verify "$tmp/jwks.json" "$tmp/trusted.jwt" res-1 AAAAAAAAAAAAAAAAAAAAAA

IMATRUST_URL=https://127.0.0.1:$vport IMATRUST_CA=$tmp/cert.pem \
	IMATRUST_TOKEN=$token "$bin/imatrust" machine res-1 result \
	--nonce "$nonce" >"$tmp/cli.jwt" 2>"$tmp/cli.log"
check "imatrust machine res-1 result --nonce: a token PyJWT verifies" \
	rp verify "$tmp/jwks.json" "$tmp/cli.jwt" res-1 "$nonce"
IMATRUST_URL=https://127.0.0.1:$vport IMATRUST_CA=$tmp/cert.pem \
	IMATRUST_TOKEN=$token "$bin/imatrust" machine res-1 result --json \
	>"$tmp/cli.json" 2>>"$tmp/cli.log"
check "... --json: header and claims decoded" \
	[ "$(jq -r '[.header.alg, .header.kid, .claims.sub] | join(",")' "$tmp/cli.json")" = "ES256,$kid,res-1" ]

# --- forgeries -------------------------------------------------------------------
kernel file /usr/bin/evil "evil" && within 20 state_is untrusted
check "an unknown file turns the machine untrusted" state_is untrusted
result res-1 "" "$tmp/untrusted.jwt" &&
	rp verify "$tmp/jwks.json" "$tmp/untrusted.jwt" res-1 >"$tmp/claims.json" 2>"$tmp/rp.log"
check "its result verifies and says contraindicated, executables 33, isolate" \
	[ "$(claim '.submods["res-1"] | [.["ear.status"], (.["ear.trustworthiness-vector"].executables | tostring), .["imatrust.tnc"]] | join(",")')" = contraindicated,33,isolate ]
check "the reason names the file" \
	[ "$(claim '.submods["res-1"]["imatrust.state-reason"].path')" = /usr/bin/evil ]
rp tamper "$tmp/untrusted.jwt" >"$tmp/tampered.jwt"
check "a payload changed to affirming under the signature is refused" \
	fails rp verify "$tmp/jwks.json" "$tmp/tampered.jwt" res-1
rp attacker "$tmp/untrusted.jwt" >"$tmp/attacker.jwt"
check "a token an attacker signed with a key of their own is refused" \
	fails rp verify "$tmp/jwks.json" "$tmp/attacker.jwt" res-1

# --- refusals --------------------------------------------------------------------
out=$(get /v1/machines/res-1/result)
check "no token: 401" [ "$(status_of "$out")" = 401 ]
out=$(get /v1/machines/nobody/result "$token")
check "unknown machine: 404" [ "$(status_of "$out")" = 404 ]
codes="$(status_of "$(get '/v1/machines/res-1/result?nonce=AAECAw' "$token")")"
codes="$codes $(status_of "$(get "/v1/machines/res-1/result?nonce=$nonce%3D" "$token")")"
codes="$codes $(status_of "$(get "/v1/machines/res-1/result?nonce=$nonce$nonce$nonce" "$token")")"
check "a nonce of 4 bytes, padded, of 96 bytes: 400 ($codes)" \
	[ "$codes" = "400 400 400" ]

# --- restart: the same key -----------------------------------------------------
kill "$VERIFIER_PID"
wait "$VERIFIER_PID" 2>/dev/null
VERIFIER_PID=
check "the verifier starts again" lab_verifier_start
check "the JWK Set after the restart has the same kid" \
	[ "$(body_of "$(get /v1/results/jwks)" | jq -r '.keys[0].kid')" = "$kid" ]
check "a result issued before the restart still verifies with it" \
	rp verify "$tmp/jwks.json" "$tmp/untrusted.jwt" res-1

# --- rotation: results signed before it keep verifying --------------------------
rotate() { "$bin/imatrust-verifier" -c "$tmp/verifier.conf" key rotate 2>>"$tmp/rotate.log"; }
kid_in() { "$py" -c 'import jwt, sys; print(jwt.get_unverified_header(open(sys.argv[1]).read().strip())["kid"])' "$1"; }
jwks_kids() { jq -r '[.keys[].kid] | join(" ")' "$1"; }
keyfile=$(dirname "$tmp/db/verifier.db")/result-key.pem
kid1=$(rotate)
check "imatrust-verifier key rotate, the verifier running: a new kid ($kid1)" \
	[ -n "$kid1" -a "$kid1" != "$kid" ]
check "the previous key's file: mode 0600, the public key, no private one" \
	[ "$(stat -c %a "$keyfile.prev" 2>/dev/null)" = 600 -a \
	  "$(grep -c 'PRIVATE' "$keyfile.prev")" = 0 -a \
	  "$(grep -c 'BEGIN PUBLIC KEY' "$keyfile.prev")" = 1 ]
body_of "$(get /v1/results/jwks)" >"$tmp/jwks1.json"
check "the JWK Set: the new key, then the previous one" \
	[ "$(jwks_kids "$tmp/jwks1.json")" = "$kid1 $kid" ]
check "a result signed before the rotation verifies with it by its kid" \
	rp verify "$tmp/jwks1.json" "$tmp/untrusted.jwt" res-1
check "a new result: 200" result res-1 "?nonce=$nonce" "$tmp/new.jwt"
check "... signed with the new key (kid $(kid_in "$tmp/new.jwt"))" \
	[ "$(kid_in "$tmp/new.jwt")" = "$kid1" ]
check "... it verifies with the JWK Set" \
	rp verify "$tmp/jwks1.json" "$tmp/new.jwt" res-1 "$nonce"
check "... and not with the JWK Set of before the rotation" \
	fails rp verify "$tmp/jwks.json" "$tmp/new.jwt" res-1 "$nonce"
kid2=$(rotate)
body_of "$(get /v1/results/jwks)" >"$tmp/jwks2.json"
check "a second rotation: the JWK Set has the newest two keys, the first gone" \
	[ -n "$kid2" -a "$(jwks_kids "$tmp/jwks2.json")" = "$kid2 $kid1" ]
check "... a result of the first key no longer verifies" \
	fails rp verify "$tmp/jwks2.json" "$tmp/untrusted.jwt" res-1
check "... one of the second key still does" \
	rp verify "$tmp/jwks2.json" "$tmp/new.jwt" res-1 "$nonce"
key_usage() {
	"$bin/imatrust-verifier" -c "$tmp/verifier.conf" key turn 2>"$tmp/usage.log"
	[ $? = 2 ] && grep -q 'key rotate' "$tmp/usage.log"
}
check "key with another operand: its usage, exit 2" key_usage

echo "1..$tap_n"
[ "$failures" = 0 ]
