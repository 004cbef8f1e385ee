#!/usr/bin/env bash
# test_audit_journal.sh - each audit entry the verifier commits also goes
# to the systemd journal with its fields, and `imatrust audit --since`
# pages from a time (issue #36) (TAP).
#
# The journal's socket has a fixed path, /run/systemd/journal/socket: the
# verifier runs in a mount namespace of its own (unshare -m; as another
# user than root, in a user namespace too) where a tmpfs covers the
# journal's directory and tests/tools/journal_sink listens at that path,
# writing each datagram it receives as KEY=value lines.
set -u

. "$(dirname "$0")/../cli/lib.sh"
tools=${IMATRUST_TOOLS:-$CLI_LIB_ROOT/build/tests/tools}
msgid=56d7833bceb94d8f80ac20ddf470e119 # ENGINE_JOURNAL_AUDIT_ID

skip_without openssl sqlite3 curl jq unshare
sink_pid=""
cleanup_more() {
	[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null
}

port=$(free_port)
self_cert
write_verifier_conf
token_add alice
printf '%s\n' "$token" >"$tmp/token"
now=$(date +%s)
fpr2=$(printf 'ek of node-2' | sha256sum | cut -d' ' -f1)
fpr3=$(printf 'ek of node-3' | sha256sum | cut -d' ' -f1)
# a pending machine to approve, and an entry two days old
sqlite3 "$tmp/verifier.db" <<SQL
INSERT INTO machines (id, ek_pub, ak_pub, ak_name, state, state_reason,
	created_at, last_seen, activated, ek_fpr)
VALUES ('node-2', x'0002', x'0002', x'000b02', 'pending', NULL, $now, NULL, 1,
	x'$fpr2');
INSERT INTO audit (time, operator, action, machine_id, detail)
VALUES ($((now - 2 * 86400)), NULL, 'pending-expired', 'node-old', NULL);
SQL

ns=(unshare -m)
[ "$(id -u)" -ne 0 ] && ns=(unshare -r -m)
# shellcheck disable=SC2016 # expanded by the namespace's shell
"${ns[@]}" -- bash -c '
	set -e
	if [ -d /run/systemd/journal ]; then
		mount -t tmpfs tmpfs /run/systemd/journal
	else
		mount -t tmpfs tmpfs /run
		mkdir -p /run/systemd/journal
	fi
	"$1" /run/systemd/journal/socket "$2" &
	echo $! >"$3"
	for _ in $(seq 50); do
		[ -S /run/systemd/journal/socket ] && break
		sleep 0.1
	done
	exec "$4" -c "$5"' sh "$tools/journal_sink" "$tmp/journal" \
	"$tmp/sink.pid" "$bin/imatrust-verifier" "$tmp/verifier.conf" \
	>"$tmp/verifier.log" 2>&1 &
pid=$!
url="https://127.0.0.1:$port"
if health_wait; then
	ok "the verifier serves in its own mount namespace"
else
	not_ok "the verifier serves in its own mount namespace" "$tmp/verifier.log"
	exit 1
fi
sink_pid=$(cat "$tmp/sink.pid")

export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token

expect 0 "machine add node-3" "$imatrust" machine add node-3 --ek "$fpr3"
expect 1 "approve with another EK: refused, nothing audited" \
	"$imatrust" approve node-2 --ek "$fpr3"
expect 0 "approve node-2" "$imatrust" approve node-2 --ek "$fpr2"
expect 0 "machine rm node-3" "$imatrust" machine rm node-3

# The datagram of ACTION, its fields one a line.
entry() {
	awk -v RS= -v want="IMATRUST_ACTION=$1" \
		'index($0, "\n" want "\n") { print; exit }' "$tmp/journal"
}
for _ in $(seq 50); do
	[ "$(grep -c '^IMATRUST_ACTION=' "$tmp/journal" 2>/dev/null)" -ge 3 ] && break
	sleep 0.1
done
[ "$(grep -c '^IMATRUST_ACTION=' "$tmp/journal")" -eq 3 ] &&
	ok "three entries written, three sent to the journal" ||
	not_ok "three entries written, three sent to the journal" "$tmp/journal"
entry approve >"$tmp/approve"
audit_id=$(curl -sf --cacert "$tmp/cert.pem" -H "Authorization: Bearer $token" \
	"$url/v1/audit?machine=node-2" | jq -r '.audit[] | select(.action == "approve") | .id')
for f in "MESSAGE=audit: approve node-2 by alice \\(admin\\)" \
	"MESSAGE_ID=$msgid" PRIORITY=5 SYSLOG_IDENTIFIER=imatrust-verifier \
	"IMATRUST_AUDIT_ID=$audit_id" IMATRUST_MACHINE_ID=node-2 \
	IMATRUST_OPERATOR=alice IMATRUST_ROLE=admin "IMATRUST_EK_FPR=$fpr2" \
	'IMATRUST_TIME=[0-9]+' 'IMATRUST_DETAIL=\{.+\}'; do
	contains "$tmp/approve" "^$f\$" "the approval's journal entry has $f"
done
entry remove >"$tmp/remove"
contains "$tmp/remove" '^IMATRUST_MACHINE_ID=node-3$' "the removal's entry names the machine"
contains "$tmp/remove" '^IMATRUST_EK_FPR='"$fpr3"'$' "the removal's entry names its EK"
lacks "$tmp/journal" '^(MALFORMED|MEMFD)$' "every datagram is the native protocol"
lacks "$tmp/journal" '^IMATRUST_ACTION=pending-expired$' \
	"an entry the verifier did not write is not sent"

expect 0 "imatrust audit --since 24h" "$imatrust" audit --since 24h
lacks "$tmp/out" 'node-old' "--since 24h leaves out the entry two days old"
contains "$tmp/out" 'approve +node-2' "--since 24h has the approval"
expect 0 "imatrust audit --since 3d" "$imatrust" audit --since 3d
contains "$tmp/out" 'pending-expired +node-old' "--since 3d has the entry two days old"
expect 0 "imatrust audit --json --since DATE" "$imatrust" audit --json \
	--since "$(date -u -d @$((now - 86400)) +%Y-%m-%dT%H:%M:%SZ)"
[ "$(jq length "$tmp/out")" -eq 3 ] && ok "--since DATE: the three entries since" ||
	not_ok "--since DATE: the three entries since" "$tmp/out"
expect 0 "imatrust audit --since 2099-01-01" "$imatrust" audit --json --since 2099-01-01
[ "$(jq length "$tmp/out")" -eq 0 ] && ok "--since a future date: nothing" ||
	not_ok "--since a future date: nothing" "$tmp/out"
expect 2 "--since yesterday is a usage error" "$imatrust" audit --since yesterday
contains "$tmp/err" "not a DURATION" "the error says what TIME is"
# paging: --since goes on through the cursor
curl -sf --cacert "$tmp/cert.pem" -H "Authorization: Bearer $token" \
	"$url/v1/audit?since=$((now - 86400))&limit=1" >"$tmp/page1"
next=$(jq -r .next "$tmp/page1")
curl -sf --cacert "$tmp/cert.pem" -H "Authorization: Bearer $token" \
	"$url/v1/audit?since=$((now - 86400))&limit=10&after=$next" >"$tmp/page2"
[ "$(jq '.audit | length' "$tmp/page2")" -eq 2 ] &&
	ok "the next page of ?since= has the rest" ||
	not_ok "the next page of ?since= has the rest" "$tmp/page2"
curl -s -o "$tmp/out" -w '%{http_code}' --cacert "$tmp/cert.pem" \
	-H "Authorization: Bearer $token" "$url/v1/audit?since=-1" >"$tmp/code"
contains "$tmp/code" '^400$' "?since=-1 is a 400"

echo "1..$n"
