#!/usr/bin/env bash
# test_route_auth.sh - every operator route of the real verifier, walked
# over HTTPS with no token, a wrong one and a revoked one (TAP): each
# answers 401, its body carries none of the secrets sent, and the database
# is the same afterwards. The routes come from the verifier's own table
# (test_routes --print), so a route added later is walked without anyone
# adding it here; test_routes fails a route added without a guard.
set -u

. "$(dirname "$0")/../cli/lib.sh"
skip_without openssl sqlite3 curl

units=${IMATRUST_TOOLS:-$CLI_LIB_ROOT/build/tests/tools}
table=${units%/tools}/unit/verifier/api/test_routes
[ -x "$table" ] || { echo "Bail out! no $table: run make check-fast"; exit 1; }

port=$(free_port)
self_cert
write_verifier_conf "stale_after = 86400"
token_add alice
good=$token
token_add bob
revoked=$token
"$bin/imatrust-verifier" -c "$tmp/verifier.conf" token rm bob \
	>/dev/null 2>"$tmp/err" || { echo "Bail out! token rm"; exit 1; }
verifier_start
plant_machine node-1 trusted "" \
	"(1, '/usr/bin/tool', x'$(printf '%064d' 1)', 'known')"

dump() { sqlite3 -batch "$tmp/verifier.db" .dump; }
# one request: METHOD PATH [AUTH]; the status in $code, the body in
# $tmp/body
send() {
	local hdr=() data=()

	[ -n "${3:-}" ] && hdr=(-H "Authorization: Bearer $3")
	[ "$1" = GET ] || data=(--data-binary '{}')
	code=$(curl -s --cacert "$tmp/cert.pem" -o "$tmp/body" \
		-w '%{http_code}' -X "$1" "${hdr[@]}" \
		-H 'Content-Type: application/json' "${data[@]}" \
		"$url${2//\{\}/node-1}")
}

send GET /v1/machines "$good"
[ "$code" = 200 ] && ok "a valid token reads the fleet (the walk can tell)" ||
	not_ok "a valid token reads the fleet: $code" "$tmp/body"

"$table" --print >"$tmp/routes" || { echo "Bail out! $table --print"; exit 1; }
walked=0
before=$(dump)
wrong=$(printf '%064d' 7)
while read -r method path kind; do
	[ "$kind" = operator ] || continue
	walked=$((walked + 1))
	for auth in "" "$wrong" "$revoked"; do
		send "$method" "$path" "$auth"
		what="no token"
		[ "$auth" = "$wrong" ] && what="a wrong token"
		[ "$auth" = "$revoked" ] && what="a revoked token"
		if [ "$code" != 401 ]; then
			not_ok "$method $path with $what: $code, want 401" "$tmp/body"
		elif grep -qF -e "$wrong" -e "$revoked" -e "$good" "$tmp/body"
		then
			not_ok "$method $path with $what: a token in the body" \
				"$tmp/body"
		else
			ok "$method $path with $what: 401, no secret in the body"
		fi
	done
done <"$tmp/routes"
[ "$walked" -ge 30 ] && ok "walked $walked operator routes" ||
	not_ok "walked only $walked operator routes" "$tmp/routes"
after=$(dump)
[ "$before" = "$after" ] && ok "the database is unchanged by the walk" ||
	{ diff <(echo "$before") <(echo "$after") >"$tmp/diff"
	  not_ok "the walk changed the database" "$tmp/diff"; }
echo "1..$n"
