#!/usr/bin/env bash
# test_http_flood.sh - the network attacker with nothing but slow
# connections, against the real imatrust-verifier on loopback (TAP;
# issue 33):
#
#  - slow bodies: 24 connections from 127.0.0.1 declare 4 MiB of evidence
#    each and send a byte a second. Declared lengths used to be taken
#    from max_inflight_body (64 MiB here) at once, so 16 of them took it
#    all and a small POST from another address got 503; now bytes are taken as they come, the POST
#    is served, and the slow bodies are closed when they fall behind
#    body_min_rate after header_timeout;
#  - slow headers: 24 connections from 127.0.0.3 send a header byte a
#    second: closed after header_timeout, however busy;
#  - an enrollment or activation declaring more than its route takes is
#    413 from the headers (they took 6 MiB, as evidence does);
#  - a connection flood from two addresses (max_connections_per_ip each,
#    together max_connections) leaves a third address served: the last
#    quarter of the connections is kept for addresses holding few;
#  - /v1/metrics counts every refusal and close.
#
# IMATRUST_BIN=<old build>/bin shows which of these attacks it lets in.
set -u

. "$(dirname "$0")/../cli/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
flood=()
cleanup_more() {
	local p

	for p in "${flood[@]}"; do
		kill "$p" 2>/dev/null
	done
}
check() {	# check DESCRIPTION CONDITION... (a test(1) expression)
	local d=$1
	shift
	if [ "$@" ]; then ok "$d"; else not_ok "$d"; fi
}

skip_without openssl curl python3
for a in 127.0.0.2 127.0.0.3 127.0.0.4; do
	if ! python3 -c "import socket; socket.socket().bind(('$a', 0))" \
		2>/dev/null; then
		echo "1..0 # SKIP no $a on the loopback interface"
		exit 0
	fi
done

c() { curl -s --cacert "$tmp/cert.pem" "$@"; }
# slow MODE SRC N MAXTIME [PATH LENGTH]: slow-client.py in the background,
# its output in $tmp/slow.SRC
slow() {
	local mode=$1 src=$2
	shift 2
	python3 "$here/slow-client.py" "$mode" 127.0.0.1 "$port" \
		"$tmp/cert.pem" "$src" "$@" >"$tmp/slow.$src" 2>&1 &
	flood+=($!)
}
# opened SRC: how many connections the slow client from SRC kept
opened() {
	for _ in $(seq 200); do
		grep -q '^open' "$tmp/slow.$1" && break
		sleep 0.1
	done
	awk '$1 == "open" { print $2 }' "$tmp/slow.$1"
}
# closed SRC: seconds until all its connections were closed, or 999
closed() {
	for _ in $(seq 600); do
		grep -q '^closed' "$tmp/slow.$1" && break
		sleep 0.1
	done
	awk '$1 == "closed" && $2 == "ALL" { print $3; f = 1 }
	     END { if (!f) print 999 }' "$tmp/slow.$1"
}
metric() {	# metric 'NAME{LABEL}': its value in /v1/metrics, or -1
	c --interface 127.0.0.2 "$url/v1/metrics" | awk -v m="$1" '$1 == m { print $2; f = 1 }
		END { if (!f) print -1 }'
}
# with_known KEY = VALUE: the line, if this verifier knows the key
with_known() {
	if "$bin/imatrust-verifier" -H | grep -q "^$1 "; then
		echo "$*" >>"$tmp/verifier.conf"
	fi
}

port=$(free_port)
self_cert

# --- 1. slow bodies, slow headers: deadlines and bytes received ----------
write_verifier_conf "threads = 2" "max_connections = 100" "connection_timeout = 11" \
	"max_inflight_body = 67108864"
with_known max_connections_per_ip = 32
with_known header_timeout = 5
with_known body_min_rate = 16384
verifier_start

slow body 127.0.0.1 24 40 /v1/agents/m1/evidence 4194304
held=$(opened 127.0.0.1)
check "24 slow 4 MiB evidence bodies from 127.0.0.1 are read (${held:-?} held)" \
	"${held:-0}" -ge 20
out=$(c -o /dev/null -w '%{http_code} %{time_total}' --interface 127.0.0.2 \
	--max-time 20 -H 'Content-Type: application/json' --data-binary '{}' \
	"$url/v1/agents")
echo "# a small enrollment from 127.0.0.2 during the flood: $out (status s)"
check "meanwhile a small enrollment from 127.0.0.2 is read and judged, not refused (${out%% *})" \
	"${out%% *}" = 400
out=$(c -o /dev/null -w '%{http_code} %{time_total}' --interface 127.0.0.2 \
	--max-time 20 -H 'Content-Type: application/json' \
	--data-binary '{"v":1}' "$url/v1/agents/m2/evidence")
echo "# a small evidence from 127.0.0.2 during the flood: $out (status s)"
check "and a small evidence body (${out%% *})" "${out%% *}" = 400
code=$(c -o /dev/null -w '%{http_code}' --interface 127.0.0.2 \
	--max-time 20 "$url/v1/health")
check "and GET /v1/health ($code)" "$code" = 200
# the three above were asked while the slow bodies were all held
grep -q '^closed' "$tmp/slow.127.0.0.1"
check "... while the slow bodies were still held" $? -ne 0

slow headers 127.0.0.3 24 40
held=$(opened 127.0.0.3)
check "24 connections from 127.0.0.3 dripping header bytes are accepted (${held:-?})" \
	"${held:-0}" -ge 20
t=$(closed 127.0.0.1)
check "the slow bodies are all closed, though a byte comes every second (after ${t} s; header_timeout 5)" \
	"$t" -le 30
t=$(closed 127.0.0.3)
check "the slow headers are all closed, though a byte comes every second (after ${t} s; header_timeout 5)" \
	"$t" -le 30
flood=()

hdr=$(c -D - -o /dev/null -X POST --interface 127.0.0.2 \
	-H 'Content-Type: application/json' -H 'Content-Length: 100000' \
	--max-time 5 "$url/v1/agents" 2>/dev/null)
check "an enrollment declaring 100000 bytes is 413 from the headers" \
	"$(echo "$hdr" | grep -c '^HTTP/1.1 413')" = 1
hdr=$(c -D - -o /dev/null -X POST --interface 127.0.0.2 \
	-H 'Content-Type: application/json' -H 'Content-Length: 8192' \
	--max-time 5 "$url/v1/agents/m1/activate" 2>/dev/null)
check "an activation declaring 8192 bytes is 413 from the headers" \
	"$(echo "$hdr" | grep -c '^HTTP/1.1 413')" = 1

v=$(metric 'imatrust_http_closed_total{deadline="body"}')
check "metrics: slow bodies closed ($v)" "$v" -ge 20
v=$(metric 'imatrust_http_closed_total{deadline="headers"}')
check "metrics: slow headers closed ($v)" "$v" -ge 20
v=$(metric 'imatrust_http_refused_total{reason="body_too_large"}')
check "metrics: bodies too large ($v)" "$v" -ge 2
kill -0 "$pid" 2>/dev/null
check "the verifier is still running" $? -eq 0
kill "$pid"
wait "$pid" 2>/dev/null
pid=""

# --- 2. a connection flood from two addresses ----------------------------
# idle TCP connections, held longer than the test (no deadline frees them)
port=$(free_port)
write_verifier_conf "threads = 2" "max_connections = 32" "connection_timeout = 60"
with_known max_connections_per_ip = 16
with_known header_timeout = 60
verifier_start
slow idle 127.0.0.1 20 30
a=$(opened 127.0.0.1)
slow idle 127.0.0.3 20 30
b=$(opened 127.0.0.3)
echo "# held: 127.0.0.1 ${a:-?}, 127.0.0.3 ${b:-?} of max_connections 32"
check "127.0.0.1 holds at most max_connections_per_ip (${a:-?} <= 16)" \
	"${a:-99}" -le 16
code=$(c -o /dev/null -w '%{http_code}' --interface 127.0.0.4 \
	--max-time 10 "$url/v1/health")
check "a third address (127.0.0.4) is still served ($code)" "$code" = 200
code=$(c -o /dev/null -w '%{http_code}' --interface 127.0.0.2 \
	--max-time 10 "$url/v1/health")
check "and a fourth (127.0.0.2) ($code)" "$code" = 200
v=$(metric 'imatrust_http_refused_total{reason="address_connections"}')
check "metrics: connections refused for their address ($v)" "$v" -ge 1
v=$(metric 'imatrust_http_refused_total{reason="connections_reserved"}')
check "metrics: connections refused for the reserve ($v)" "$v" -ge 1
cleanup_more
flood=()
kill -0 "$pid" 2>/dev/null
check "the verifier is still running" $? -eq 0
echo "1..$n"
