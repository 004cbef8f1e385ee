#!/bin/bash
# test_ref_crash.sh - a reference import and a delete, all or nothing
# across a crash (issue 33): the real verifier (TLS, SQLite or PostgreSQL)
# stores a 100,000-reference JSON import in chunks of 2,000 and is killed
# with SIGKILL once some chunks committed (IMATRUST_TEST_CHUNK_DELAY_MS
# pauses it after each chunk, so "some" is certain and the import is
# certainly unfinished); started again, the source counts 0 or 100,000
# references, and a bundle whose list holds a file of the import's first
# chunk is judged by POST /v1/verify: trusted only when all of it counts. The import sent
# again completes. Then the same for a DELETE of the whole source, killed
# after some of its chunks.
set -u
. "$(dirname "$0")/swtpm-lib.sh"
require_tools swtpm swtpm_setup swtpm_localca openssl curl jq python3 \
	tpm2_createek tpm2_createak tpm2_quote tpm2_flushcontext base64 od
[ -n "${IMATRUST_TEST_PG_URI:-}" ] || require_tools sqlite3
swtpm_test_setup
make_bundle=$SWTPM_LIB_ROOT/deploy/make-bundle.sh
N=100000
echo "1..12"

# --- one TPM, a list holding a file of the import's first chunk -------------
ca=$tmp/ca
swtpm_ca_init "$ca"
d=$tmp/m
mkdir -p "$d"
swtpm_manufacture "$d/tpm" "$ca" uncertified "$d/setup.log" ||
	bail "swtpm_setup" "$d/setup.log"
swtpm_start "$d/tpm" "$d/swtpm.log" || bail "swtpm" "$d/swtpm.log"
pids+=("$SWTPM_PID")
flush() { tpm2_flushcontext -t; }
tpm2_createek -Q -c "$d/ek.ctx" -G rsa -u "$d/ek.pub" || bail "createek"
flush
tpm2_createak -Q -C "$d/ek.ctx" -c "$d/ak.ctx" -G ecc -g sha256 -s ecdsa \
	-u "$d/ak.pub" -f tss || bail "createak"
flush
: >"$d/list"
mk() { IMATRUST_TCTI=$TPM2TOOLS_TCTI "$kern" "$d/list" "$@" || bail "fake_kernel $*"; }
mk boot
mk file /crash/7 c7

# --- the verifier -----------------------------------------------------------
verifier_cert
port=$(swtpm_free_ports)
verifier_conf "$tmp/v.conf" "$port" "$tmp/v.db"
token=$("$bin/imatrust-verifier" -c "$tmp/v.conf" token add crash) ||
	bail "token add"
api_url=https://127.0.0.1:$port
vpid=
# start [DELAY_MS]: the verifier, paused DELAY_MS after every chunk; it
# recovers (and re-judges) before it listens: allow for that, and say
# how long it took
start() {
	local t0=$SECONDS
	IMATRUST_TEST_CHUNK_DELAY_MS=${1:-0} "$bin/imatrust-verifier" \
		-c "$tmp/v.conf" 2>>"$tmp/verifier.log" &
	vpid=$!
	pids+=("$vpid")
	within 180 verifier_up "$port" "$tmp/cert.pem" ||
		bail "verifier did not start" "$tmp/verifier.log"
	echo "# the verifier answered after $((SECONDS - t0)) s"
}
crash() { kill -9 "$vpid"; wait "$vpid" 2>/dev/null; }
# change METHOD PATH BODY: the answer; sent again while a killed
# verifier's PostgreSQL session still holds the change lock (409), as an
# operator would
change() {
	local out tries=120
	while [ $((tries -= 1)) -gt 0 ]; do
		out=$(api "$@")
		grep -q 'another reference, policy or key change' <<<"$out" ||
			break
		sleep 1
	done
	printf '%s\n' "$out"
}
rows() { db_query "$tmp/v.db" "select count(*) from refs"; }
# shellcheck disable=SC2317 # called through within
rows_at_least() { [ "$(rows)" -ge "$1" ]; }
# shellcheck disable=SC2317 # called through within
rows_at_most() { [ "$(rows)" -le "$1" ]; }
# counted: the source's references as GET /v1/sources counts them (0
# when it is not listed)
counted() {
	api GET "/v1/sources?kind=dir-tree" |
		jq '[.sources[] | select(.name == "crash") | .refs] | add // 0'
}
verdict() {
	local nonce
	nonce=$(openssl rand -hex 32)
	"$make_bundle" -l "$d/list" -p crash "$nonce" "$d/ak.ctx" \
		"$d/ak.pub" >"$tmp/bundle.json" || bail "make-bundle.sh"
	flush
	api POST /v1/verify "@$tmp/bundle.json" | jq -r .verdict
}
# all_or_nothing WHAT: 0 or $N counted, judged accordingly
all_or_nothing() {
	local n v want=untrusted
	n=$(counted)
	v=$(verdict)
	[ "$n" = "$N" ] && want=trusted
	if [ "$n" = 0 ] || [ "$n" = "$N" ]; then
		ok "$1: the source counts $n references, not part of $N"
	else
		fail "$1: the source counts $n references, not part of $N"
	fi
	check "$1: a file of it is judged $v ($want with $n counted)" \
		test "$v" = "$want"
}

start
python3 - "$tmp/refs.json" "$N" <<'EOF'
import hashlib, json, sys
n = int(sys.argv[2])
refs = [{"path": "/crash/%d" % i, "algo": "sha256",
         "digest": hashlib.sha256(b"c%d" % i).hexdigest()} for i in range(n)]
json.dump({"v": 1, "source": {"kind": "dir-tree", "name": "crash"},
           "refs": refs}, open(sys.argv[1], "w"))
EOF
printf '%s' '{"sources":["dir-tree:crash"]}' >"$tmp/policy.json"
api PUT /v1/policies/crash "@$tmp/policy.json" >/dev/null
check "before the import the file is untrusted" test "$(verdict)" = untrusted

# --- an import killed after some chunks ------------------------------------
crash
start 300
change POST /v1/references "@$tmp/refs.json" >"$tmp/import1.out" 2>&1 &
imp=$!
within 120 rows_at_least 4000 || {
	cat "$tmp/import1.out" >>"$tmp/verifier.log"
	bail "no chunk of the import committed" "$tmp/verifier.log"
}
crash
wait "$imp" 2>/dev/null
stored=$(rows)
check "the import was killed half way: $stored of $N rows stored" \
	test "$stored" -gt 0 -a "$stored" -lt "$N"
start
all_or_nothing "after a crash mid-import"
check "the unfinished import's rows are dropped at start ($(rows) left)" \
	test "$(rows)" = 0
out=$(change POST /v1/references "@$tmp/refs.json")
check "the import sent again completes: $(jq -c '{added}' <<<"$out")" \
	test "$(jq .added <<<"$out")" = "$N"
check "... all $N counted" test "$(counted)" = "$N"
check "... and the file is trusted" test "$(verdict)" = trusted

# --- a delete of the whole source killed after some chunks -----------------
crash
start 300
change DELETE /v1/references \
	'{"v":1,"source":{"kind":"dir-tree","name":"crash"}}' \
	>"$tmp/delete.out" 2>&1 &
del=$!
within 120 rows_at_most $((N - 4000)) || {
	cat "$tmp/delete.out" >>"$tmp/verifier.log"
	bail "no chunk of the delete committed" "$tmp/verifier.log"
}
crash
wait "$del" 2>/dev/null
left=$(rows)
check "the delete was killed half way: $left of $N rows left" \
	test "$left" -gt 0 -a "$left" -lt "$N"
start
all_or_nothing "after a crash mid-delete"
check "the delete was completed at start ($(rows) rows left)" \
	test "$(rows)" = 0
crash

[ "$failures" -eq 0 ] || sed 's/^/# verifier.log: /' "$tmp/verifier.log" | tail -30
exit $((failures > 0))
