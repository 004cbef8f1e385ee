#!/usr/bin/env bash
# test_route_auth.sh - every operator route of the real verifier, walked
# over HTTPS with no token, a wrong one, a revoked one and an expired one
# (TAP): each answers 401, its body carries none of the secrets sent, and
# the database is the same afterwards. Then the roles (issue #36): a reader
# token is refused every route needing operator or admin, an operator
# token every route needing admin, each 403 naming the role needed, before
# the handler runs (the database stays the same); and each is let through
# the routes its role may use (no 401 or 403). The routes and their roles
# come from the verifier's own table (test_routes --print), so a route
# added later is walked without anyone adding it here; test_routes fails a
# route added without a guard or a role.
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
token_add rita reader
reader=$token
token_add otto operator
operator=$token
# expired long ago, as stored (--expires takes only the future)
token_add eve
expired=$token
sqlite3 "$tmp/verifier.db" "UPDATE tokens SET expires_at = 1000000000
	WHERE name = 'eve'" || { echo "Bail out! token expiry"; exit 1; }
verifier_start
plant_machine node-1 trusted "" \
	"(1, '/usr/bin/tool', x'$(printf '%064d' 1)', 'known')"

# the database but the tokens' last use, which a passing check writes
dump() {
	sqlite3 -batch "$tmp/verifier.db" .dump | grep -v '^INSERT INTO tokens'
}
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
while read -r method path kind _; do
	[ "$kind" = operator ] || continue
	walked=$((walked + 1))
	for auth in "" "$wrong" "$revoked" "$expired"; do
		send "$method" "$path" "$auth"
		what="no token"
		[ "$auth" = "$wrong" ] && what="a wrong token"
		[ "$auth" = "$revoked" ] && what="a revoked token"
		[ "$auth" = "$expired" ] && what="an expired token"
		if [ "$code" != 401 ]; then
			not_ok "$method $path with $what: $code, want 401" "$tmp/body"
		elif [ "$auth" = "$expired" ] &&
			! grep -q 'token expired at 2001-09-09T01:46:40Z' \
				"$tmp/body"; then
			not_ok "$method $path with $what: no expiry said" \
				"$tmp/body"
		elif grep -qF -e "$wrong" -e "$revoked" -e "$good" \
			-e "$expired" "$tmp/body"
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

# rank ROLE: reader 1, operator 2, admin 3
rank() { case $1 in reader) echo 1 ;; operator) echo 2 ;; *) echo 3 ;; esac; }
refused=0
while read -r method path kind need; do
	[ "$kind" = operator ] || continue
	for has in reader operator; do
		[ "$(rank "$has")" -lt "$(rank "$need")" ] || continue
		auth=$reader
		[ "$has" = operator ] && auth=$operator
		send "$method" "$path" "$auth"
		want="this token's role $has cannot $method ${path//\{\}/node-1}: needs $need"
		if [ "$code" = 403 ] && grep -qF "$want" "$tmp/body"; then
			refused=$((refused + 1))
			ok "$method $path with the $has token: 403, needs $need"
		else
			not_ok "$method $path with the $has token: $code, want 403" \
				"$tmp/body"
		fi
	done
done <"$tmp/routes"
[ "$refused" -ge 20 ] && ok "$refused refusals by role" ||
	not_ok "only $refused refusals by role" "$tmp/routes"
after=$(dump)
[ "$before" = "$after" ] && ok "the database is unchanged by the walk" ||
	{ diff <(echo "$before") <(echo "$after") >"$tmp/diff"
	  not_ok "the walk changed the database" "$tmp/diff"; }

# What a role may use it is let through: no 401 or 403. A reader reads
# every GET; an operator and an admin token are let through routes they
# may use, here two whose body is refused, past the guard (413: the route
# takes none; 400: an empty endpoint).
grep -q '^GET .* operator reader$' "$tmp/routes" ||
	{ echo "Bail out! no reader routes"; exit 1; }
passed=0
while read -r method path kind need; do
	[ "$kind" = operator ] && [ "$method" = GET ] || continue
	send "$method" "$path" "$reader"
	case $code in
	401 | 403) not_ok "GET $path with a reader token: $code" "$tmp/body" ;;
	*) passed=$((passed + 1)) ;;
	esac
done <"$tmp/routes"
[ "$passed" -ge 12 ] && ok "a reader token reads all $passed GET routes" ||
	not_ok "a reader token read only $passed GET routes"
send DELETE /v1/policies/nope "$operator"
[ "$code" = 413 ] && ok "an operator token reaches DELETE /v1/policies (413: a body)" ||
	not_ok "an operator token on DELETE /v1/policies: $code" "$tmp/body"
send POST /v1/webhooks "$good"
[ "$code" = 400 ] && ok "an admin token reaches POST /v1/webhooks (400: {})" ||
	not_ok "an admin token on POST /v1/webhooks: $code" "$tmp/body"
used=$(sqlite3 "$tmp/verifier.db" "SELECT count(*) FROM tokens WHERE
	last_used IS NOT NULL AND name IN ('rita', 'otto', 'alice')")
[ "$used" = 3 ] && ok "the tokens that passed have a last use" ||
	not_ok "last use of the tokens that passed: $used of 3"
[ "$(sqlite3 "$tmp/verifier.db" "SELECT count(*) FROM tokens WHERE
	last_used IS NOT NULL AND name = 'eve'")" = 0 ] &&
	ok "the expired token's refusals are no use" ||
	not_ok "the expired token has a last use"
echo "1..$n"
