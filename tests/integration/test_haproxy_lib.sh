#!/usr/bin/env bash
# test_haproxy_lib.sh - tests/lib/haproxy.sh: HAProxy in mode tcp in front
# of two TLS servers on loopback (openssl s_server -www, certificates
# CN=backend-a and CN=backend-b) (TAP).
#
# Checks: it listens; TLS passes through (the client sees each backend's
# own certificate, an HTTPS GET through it is answered 200); successive
# connections reach both backends; with one backend killed, every
# connection reaches the other; HTTPS health checks (GET /v1/health, as
# deploy/haproxy/haproxy.cfg.example) mark the killed one down; stopped,
# nothing listens. Every process is killed on every exit path.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/swtpm-lib.sh"
# shellcheck source=SCRIPTDIR/../lib/haproxy.sh
. "$SWTPM_LIB_ROOT/tests/lib/haproxy.sh"
require_tools haproxy openssl curl python3

tmp=$(mktemp -d)
A_PID='' B_PID=''
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	haproxy_stop
	for p in $A_PID $B_PID; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	if [ "$failures" -gt 0 ]; then
		for f in "$tmp"/*.log "$tmp"/hap/*.log; do
			[ -s "$f" ] && sed "s|^|# $(basename "$f"): |" "$f"
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

backend() {	# backend NAME PORT: s_server with its own certificate
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$tmp/$1.key" -out "$tmp/$1.pem" -days 1 \
		-subj "/CN=backend-$1" >/dev/null 2>&1 || bail "certificate $1"
	openssl s_server -accept "127.0.0.1:$2" -cert "$tmp/$1.pem" \
		-key "$tmp/$1.key" -www -quiet </dev/null >>"$tmp/$1.log" 2>&1 &
}
# who: the CN of the certificate the server at the front shows
who() {
	openssl s_client -connect "127.0.0.1:$front" </dev/null 2>/dev/null |
		sed -n 's/^subject=.*CN *= *\(backend-[a-z]*\).*/\1/p'
}
# seen N: the backends N connections reached, sorted, unique
seen() {
	local i
	for ((i = 0; i < $1; i++)); do who; done | sort -u | tr '\n' ' '
}
# shellcheck disable=SC2317 # called through check, within, fails
listens() { haproxy_listens "127.0.0.1:$1"; }
# shellcheck disable=SC2317
down_in_log() { grep -q 'b1 is DOWN' "$tmp/hap/haproxy.log"; }

pa=$(swtpm_free_ports) pb=$(swtpm_free_ports) front=$(swtpm_free_ports)
backend a "$pa"
A_PID=$!
backend b "$pb"
B_PID=$!
within 5 listens "$pa" || bail "backend a does not listen" "$tmp/a.log"
within 5 listens "$pb" || bail "backend b does not listen" "$tmp/b.log"

# shellcheck disable=SC2317
wide() { haproxy_start "$tmp/bad" "0.0.0.0:$front" "127.0.0.1:$pa" 2>/dev/null; }
check "a frontend that is not loopback is refused" fails wide
export HAPROXY_CHECK=https
if haproxy_start "$tmp/hap" "127.0.0.1:$front" "127.0.0.1:$pa" \
	"127.0.0.1:$pb" 2>"$tmp/start.log"; then
	ok "haproxy listens on 127.0.0.1:$front"
else
	bail "haproxy_start" "$tmp/start.log"
fi
out=$(seen 4)
expect "TLS passes through: 4 connections reach both backends, each with its certificate" \
	"backend-a backend-b " "$out"
code=$(curl -sk -o /dev/null -w '%{http_code}' "https://127.0.0.1:$front/v1/health")
expect "an HTTPS request through it is answered" 200 "$code"

kill "$A_PID"
wait "$A_PID" 2>/dev/null
A_PID=''
out=$(seen 4)
expect "backend a killed: every connection reaches backend b" "backend-b " "$out"
check "the health check marks backend a down" within 5 down_in_log

haproxy_stop
check "stopped: nothing listens on the frontend" fails listens "$front"

echo "1..$tap_n"
exit $((failures > 0))
