#!/usr/bin/env bash
# scale-out.sh - several verifiers on one PostgreSQL behind HAProxy, under
# a simulated fleet, while things break (issue 13):
#
#   PostgreSQL (a private cluster, tests/lib/pg.sh) + 3 imatrust-verifiers
#   on it + HAProxy (mode tcp, leastconn, /v1/health checks, tests/lib/
#   haproxy.sh) + SOAK_AGENTS simulated agents (build/bin/soak-agents,
#   software P-256 AKs, SOAK_RECORDS new records per evidence) streaming
#   for SOAK_SECONDS through HAProxy. A third of the way in, the verifier
#   that leads the housekeeping is killed (SIGKILL); two thirds in,
#   PostgreSQL is restarted.
#
# Two attackers ride along (soak_agents.c): one on the network replays a
# captured quote to two verifiers at once (at most one may accept it),
# one with a TPM of its own signs a machine's evidence with its AK (it
# must be refused). What must hold at the end:
#   - every agent went on through the others: soak-agents saw no verdict
#     but trusted, no lost record, and each agent's last heartbeat was
#     accepted;
#   - the database holds each agent's records exactly once: for every
#     machine, records 0 .. n-1 of its boot, n the index the verifier
#     confirmed last to the agent;
#   - no nonce accepted twice, no impostor accepted;
#   - the agents saw the failures (connection errors after the kill,
#     503 or connection errors around the restart) and resumed;
#   - the leader lock moved to a surviving verifier;
#   - every machine is trusted, and each surviving verifier's operator
#     API (directly and through HAProxy) says the same;
#   - a reference withdrawn through one verifier turns every machine that
#     ran it untrusted, as the other verifier's API says at once; added
#     back through the other, they are trusted again.
#
# Environment: SOAK_AGENTS (1000), SOAK_SECONDS (60), SOAK_RECORDS (5),
# SOAK_THREADS (8), SOAK_KEEP=1 keeps the work directory. TAP output.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../lib/pg.sh
. "$root/tests/lib/pg.sh"
# shellcheck source=../lib/haproxy.sh
. "$root/tests/lib/haproxy.sh"
# shellcheck source=../lib/verifiers.sh
. "$root/tests/lib/verifiers.sh"
bin=$root/build/bin
agents=${SOAK_AGENTS:-1000}
seconds=${SOAK_SECONDS:-60}
records=${SOAK_RECORDS:-5}
threads=${SOAK_THREADS:-8}

tap_n=0
failures=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
not_ok() { tap_n=$((tap_n + 1)); failures=$((failures + 1)); echo "not ok $tap_n - $1"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
bail() { echo "Bail out! $1"; [ -f "${2:-}" ] && tail -30 "$2" | sed 's/^/# /'; exit 1; }

for t in haproxy openssl curl jq psql python3; do
	command -v "$t" >/dev/null || bail "$t not installed (deploy/install-deps.sh)"
done
pg_bindir >/dev/null || bail "no PostgreSQL server (deploy/install-deps.sh)"
{ [ -x "$bin/soak-agents" ] && [ -x "$bin/imatrust-verifier" ]; } ||
	bail "build first: make all"

tmp=$(mktemp -d /tmp/imatrust-scale.XXXXXX)
soak_pid=
cleanup() {
	[ -n "$soak_pid" ] && kill "$soak_pid" 2>/dev/null
	verifiers_stop
	haproxy_stop
	pg_stop
	if [ "${SOAK_KEEP:-0}" = 1 ] || [ "$failures" -gt 0 ]; then
		echo "# kept $tmp"
	else
		pg_cleanup
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

# one descriptor per agent connection, in soak-agents and in HAProxy
need=$((2 * agents + 512))
[ "$(ulimit -n)" = unlimited ] || [ "$(ulimit -n)" -ge "$need" ] ||
	ulimit -n "$need" 2>/dev/null || ulimit -n "$(ulimit -Hn)"

pg_start "$tmp/pg" off || bail "PostgreSQL did not start" "$tmp/pg/postgres.log"
echo "# PostgreSQL: $PG_URI"

verifiers_pki "$tmp" || bail "openssl: no certificate or key"
verifiers_start "$tmp" 3 "$PG_URI" "$agents" "threads = 2" \
	"nonce_ttl = 600" "stale_after = 600" "log_level = info" ||
	bail "the verifiers did not start"
ports=("${VERIFIER_PORTS[@]}")
vpids=("${VERIFIER_PIDS[@]}")
p1=${ports[0]} p2=${ports[1]} p3=${ports[2]}
read -r front < <(free_ports 1)	# after: the verifiers' are taken
token=$("$bin/imatrust-verifier" -c "$tmp/v1.conf" token add soak) ||
	bail "token add"
leads() { grep -l "this instance now runs the housekeeping" "$tmp"/v[123].log 2>/dev/null; }
leader_log=$(leads | head -1)
[ -n "$leader_log" ] || bail "no verifier took the leader lock" "$tmp/v1.log"
leader=${leader_log##*/v}
leader=${leader%.log}
check "exactly one verifier leads the housekeeping (v$leader)" \
	test "$(leads | wc -l)" -eq 1

HAPROXY_BALANCE=leastconn HAPROXY_CHECK=https \
	HAPROXY_MAXCONN=$((2 * agents + 256)) \
	haproxy_start "$tmp/haproxy" "127.0.0.1:$front" "127.0.0.1:$p1" \
	"127.0.0.1:$p2" "127.0.0.1:$p3" || bail "HAProxy" "$tmp/haproxy/haproxy.log"

"$bin/soak-agents" -n "$agents" -t "$threads" -s "$seconds" -r "$records" \
	-R "$p1,$p2,$p3" -D "$PG_URI" -p "$front" -C "$tmp/cert.pem" \
	-o "$tmp" >"$tmp/soak.log" 2>"$tmp/soak.err" &
soak_pid=$!

# progress lines come every 5 s of streaming: "soak: t=N s ..."
streamed() { grep -o '^soak: t=[0-9]*' "$tmp/soak.log" 2>/dev/null | tail -1 | tr -dc 0-9; }
wait_streamed() {
	while kill -0 "$soak_pid" 2>/dev/null; do
		[ "$(streamed || true)" -ge "$1" ] 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

kill_at=$((seconds / 3 / 5 * 5))
restart_at=$((2 * seconds / 3 / 5 * 5))
# the counts of the progress line at T s: accepted, connection errors, 5xx
counts_at() {
	awk -v t="$1" '$1 == "soak:" && $2 == "t=" t { print $5, $9, $11; exit }' "$tmp/soak.log"
}
wait_streamed "$kill_at" || bail "soak-agents stopped early" "$tmp/soak.err"
victim=${vpids[$((leader - 1))]}
kill -KILL "$victim"
wait "$victim" 2>/dev/null
echo "# t=${kill_at} s: verifier v$leader (the leader, pid $victim) killed"

wait_streamed "$restart_at" || bail "soak-agents stopped early" "$tmp/soak.err"
t0=$(date +%s.%N)
pg_restart || bail "PostgreSQL did not restart" "$tmp/pg/postgres.log"
echo "# t=${restart_at} s: PostgreSQL restarted in $(echo "$(date +%s.%N) - $t0" | bc) s"
wait "$soak_pid"
soak_rc=$?
soak_pid=
sed 's/^/# /' "$tmp/soak.log"
[ -s "$tmp/soak.err" ] && head -20 "$tmp/soak.err" | sed 's/^/# stderr: /'
n_of() { awk -v k="$1" '$1 == "soak:" && $2 == k { print $3 }' "$tmp/soak.log"; }

check "every agent went on through the others and ended trusted (soak-agents exit 0)" \
	test "$soak_rc" -eq 0
check "evidence was accepted ($(n_of accepted) answers, $(n_of records) records)" \
	test "$(n_of accepted)" -gt "$agents"
read -r acc_kill _ _ < <(counts_at "$kill_at")
read -r acc_restart conn_restart unav_restart < <(counts_at "$restart_at")
check "after the kill the others went on: $acc_kill -> $acc_restart accepted by t=$restart_at s" \
	test "$acc_restart" -ge $((acc_kill + agents / 2))
check "the restart was felt and survived: $(($(n_of unavailable) - unav_restart)) answers 502/503/504 and $(($(n_of connection_errors) - conn_restart)) connection errors after it, then $(($(n_of accepted) - acc_restart)) accepted" \
	test $(($(n_of unavailable) - unav_restart + $(n_of connection_errors) - conn_restart)) -gt 0 -a \
	$(($(n_of accepted) - acc_restart)) -ge "$agents"
check "no evidence accepted by two verifiers ($(n_of races) races, $(n_of races_one_accepted) won by one)" \
	test "$(n_of races_accepted_twice)" = 0 -a "$(n_of races)" -gt 0
check "evidence signed by another TPM never accepted ($(n_of impostors) sent, $(n_of impostors_refused) refused, the rest unanswered)" \
	test "$(n_of impostors)" -gt 0 -a "$(n_of fatal)" = 0

# The records as stored: each agent's 0 .. next-1, once each: its chunks
# (a verdict letter a record) follow one another from index 0, each
# starting where the one before ends (a break is a gap or a record stored
# twice), and the last ends at next.
pg_psql -c "CREATE TABLE soak_expected (id text PRIMARY KEY, next bigint)" \
	-c "\\copy soak_expected FROM '$tmp/agents.tsv'" || bail "loading agents.tsv"
bad=$(pg_psql -At -c "
	SELECT count(*) FROM soak_expected e
	LEFT JOIN (SELECT machine_id, sum(n) AS n, max(first_idx + n) AS m,
			  count(*) FILTER (WHERE first_idx <> prev_end) AS breaks
		   FROM (SELECT b.machine_id, c.first_idx,
				length(c.verdicts) AS n,
				lag(c.first_idx + length(c.verdicts), 1, 0::bigint)
				OVER (PARTITION BY b.machine_id
				      ORDER BY c.first_idx, c.boot_id) AS prev_end
			 FROM record_chunks c JOIN boots b ON b.id = c.boot_id) r
		   GROUP BY machine_id) s ON s.machine_id = e.id
	WHERE coalesce(s.n, 0) <> e.next OR s.breaks <> 0 OR s.m <> e.next")
stored=$(pg_psql -At -c "SELECT coalesce(sum(length(verdicts)), 0) FROM record_chunks")
expected=$(awk '{ s += $2 } END { print s }' "$tmp/agents.tsv")
check "every record stored exactly once: $stored records, $expected confirmed to the agents, $bad machines differ" \
	test "$bad" = 0 -a "$stored" = "$expected"
boots=$(pg_psql -At -c "SELECT count(*) FROM boots")
check "one boot per machine ($boots)" test "$boots" = "$agents"
states=$(pg_psql -At -c "SELECT state || ' ' || count(*) FROM machines GROUP BY state")
check "every machine trusted in the database ($states)" test "$states" = "trusted $agents"

survivors=()
for i in 1 2 3; do [ "$i" = "$leader" ] || survivors+=("$i"); done
check "the leader lock moved to a surviving verifier" \
	grep -q "this instance now runs the housekeeping" \
	"$tmp/v${survivors[0]}.log" "$tmp/v${survivors[1]}.log"

trusted_via() {
	curl -sf --cacert "$tmp/cert.pem" "https://127.0.0.1:$1/v1/metrics" |
		awk '/^imatrust_machines\{state="trusted"\}/ { print $2 }'
}
machine_via() {
	curl -sf --cacert "$tmp/cert.pem" -H "Authorization: Bearer $token" \
		"https://127.0.0.1:$1/v1/machines/soak-000000" | jq -r '.state // .machine.state'
}
for i in "${survivors[@]}" front; do
	if [ "$i" = front ]; then port=$front; name="HAProxy"; else port=${ports[$((i - 1))]}; name="v$i"; fi
	check "$name's operator API answers: $(trusted_via "$port") trusted, soak-000000 $(machine_via "$port")" \
		test "$(trusted_via "$port")" = "$agents" -a "$(machine_via "$port")" = trusted
done

# The fleet's records repeat across machines (soak-agents draws them from
# one pool): each verifier answers most reference lookups from memory.
lookups_via() {	# lookups_via PORT memory|database
	curl -sf --cacert "$tmp/cert.pem" "https://127.0.0.1:$1/v1/metrics" |
		awk -v f="$2" '$1 == "imatrust_reference_lookups_total{from=\"" f "\"}" { print $2 }'
}
for i in "${survivors[@]}"; do
	port=${ports[$((i - 1))]}
	mem=$(lookups_via "$port" memory) dbl=$(lookups_via "$port" database)
	check "v$i answered $mem reference lookups from memory, $dbl from the database" \
		test "${mem:-0}" -gt "${dbl:-0}"
done

# A reference change on one instance re-judges every machine, whichever
# instance serves it, and the others' APIs say so at once.
api_at() {	# api_at PORT METHOD PATH [BODY]
	curl -sf --cacert "$tmp/cert.pem" -X "$2" -H "Authorization: Bearer $token" \
		-H "Content-Type: application/json" ${4:+--data-binary "$4"} \
		"https://127.0.0.1:$1$3"
}
state_count() {
	curl -sf --cacert "$tmp/cert.pem" "https://127.0.0.1:$1/v1/metrics" |
		awk -v s="$2" '$1 == "imatrust_machines{state=\"" s "\"}" { print $2 }'
}
pa=${ports[$((survivors[0] - 1))]}
pb=${ports[$((survivors[1] - 1))]}
# record 1 of a machine, as the operator API lists it
read -r rpath ralgo rdigest < <(api_at "$pa" GET \
	"/v1/machines/soak-000000/records?from=1&limit=1" |
	jq -r '.records[0] | select(.index == 1) | "\(.path) \(.algo) \(.digest)"')
[ -n "${rpath:-}" ] && [ "${ralgo:-}" = sha256 ] &&
	[[ ${rdigest:-} =~ ^[0-9a-f]{64}$ ]] ||
	bail "no sha256 record 1 of soak-000000 from v${survivors[0]}'s API"
# the machines that ran its digest: a chunk's body holds a record's
# algorithm and digest as 06 "sha256" 00, 20 (32) and the 32 bytes
affected=$(pg_psql -At -c "SELECT count(DISTINCT b.machine_id) FROM record_chunks c JOIN boots b ON b.id = c.boot_id WHERE position(decode('06' || encode('sha256', 'hex') || '0020$rdigest', 'hex') IN c.body) > 0")
ref="{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":\"bench\"},\"refs\":[{\"path\":\"$rpath\",\"algo\":\"sha256\",\"digest\":\"$rdigest\"}]}"
withdrawn=$(api_at "$pa" DELETE /v1/references "$ref" | jq -r .machines_now_untrusted)
check "a reference withdrawn on v${survivors[0]}: $withdrawn machines untrusted, v${survivors[1]} counts $(state_count "$pb" untrusted) of the $affected that ran it" \
	test "$withdrawn" = "$affected" -a "$(state_count "$pb" untrusted)" = "$affected"
readded=$(api_at "$pb" POST /v1/references "$ref" | jq -r .machines_now_trusted)
check "added back on v${survivors[1]}: $readded trusted again, v${survivors[0]} counts $(state_count "$pa" trusted) trusted" \
	test "$readded" = "$affected" -a "$(state_count "$pa" trusted)" = "$agents"

for i in "${survivors[@]}"; do
	echo "# v$i: $(cpu_of "${vpids[$((i - 1))]}") CPU ticks ($(getconf CLK_TCK)/s), $(grep -c . "$tmp/v$i.log") log lines"
done
echo "1..$tap_n"
[ "$failures" -eq 0 ]
