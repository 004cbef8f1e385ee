#!/bin/bash
# test_read_latency.sh - reads never hold the writer (issue #33): the real
# verifier (TLS, SQLite or PostgreSQL, 4 worker threads) with 250,000
# references and 50 software agents heartbeating every 100 ms; for 5 s
# nobody reads, then for 5 s an operator's console reads a 20,000-record
# machine's records with their explanation, page after page on "next",
# each page followed by its ?verdict=violation filter, back to back
# (build/bin/bench-read-latency, as tests/bench/read-latency runs it).
# Prints the heartbeat latency of both windows and the pages' times.
#
# The bound, asserted from that measurement: the reader may raise the
# heartbeats' median by at most one page's time (the run's median page)
# plus 20 ms of slack for the shared 2-core host this runs on (its p99
# moves by more than a page from run to run, so it is printed, not
# bounded); every answer 200, every machine trusted. 4 workers, not the
# default 2: with 2 the console's page occupies one of them and the
# heartbeats queue behind the other, lock or no lock; with 4 a verifier
# whose reads took v->lock raised the median by 191 ms on PostgreSQL and
# failed the bound, the read view by none. Figures: tests/bench/README.md,
# "Reads beside the writer". The lock itself is tested by
# test_route_machines and test_route_verify (test_reads_beside_writer,
# test_beside_writer): every read route answering while v->lock is held.
set -u
. "$(dirname "$0")/swtpm-lib.sh"
require_tools openssl curl python3
swtpm_test_setup
echo "1..2"

bench=$bin/bench-read-latency
[ -x "$bench" ] || bail "no $bench: make build/bin/bench-read-latency"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
	-subj /CN=verifier \
	-addext "subjectAltName=IP:127.0.0.1,DNS:*.agents.bench" \
	>/dev/null 2>&1 || bail "openssl"
# run_bench DB: the bench on a fresh DB and a free port; its status. The
# port is picked a minute before the verifier binds it (the seeding of
# PostgreSQL): on a host that runs other tests it may be taken meanwhile.
run_bench() {
	local dbfile=$1 db port

	port=$(swtpm_free_ports)
	db=$(db_uri "$dbfile") || bail "database"
	verifier_conf "$tmp/v.conf" "$port" "$dbfile" "nonce_ttl = 600" \
		"stale_after = 86400" "max_connections = 128" "threads = 4" \
		"log_level = warning"
	"$bench" -n 50 -i 100 -s 5 -R 250000 -L 20 -D "$db" -p "$port" \
		-C "$tmp/cert.pem" -o "$tmp" -- "$bin/imatrust-verifier" \
		-c "$tmp/v.conf" >"$tmp/out" 2>&1
}
t0=$SECONDS
dbfile=$tmp/v.db
run_bench "$dbfile"
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'the verifier did not start' "$tmp/out" &&
	[ ! -s "$tmp/verifier.log" ]; then
	sed 's/^/# /' "$tmp/out"
	echo "# the verifier never answered on its port, and said nothing: again on another"
	dbfile=$tmp/v2.db
	run_bench "$dbfile"
	rc=$?
fi
sed 's/^/# /' "$tmp/out"
if [ "$rc" -eq 0 ]; then
	ok "evidence median within one page + 20 ms of the quiet window's while the console reads ($((SECONDS - t0)) s)"
else
	fail "the console's reads delayed evidence, or an answer was wrong" \
		"$tmp/verifier.log"
fi
states=$(db_query "$dbfile" \
	"SELECT state || ' ' || count(*) FROM machines WHERE id LIKE 'bench-%' GROUP BY state")
check "every agent trusted ($states)" [ "$states" = "trusted 50" ]
exit $((failures > 0))
