#!/usr/bin/env bash
# test_http_limits.sh - the network attacker with nothing against the real
# imatrust-verifier on loopback (TAP): bounded before authenticated.
#
#  - unauthenticated 60 MB uploads to /v1/references are answered 401 from
#    the headers, and the verifier's memory does not grow (the body was
#    buffered whole before the token check: 8 uploads took it to ~480 MB);
#  - authenticated big uploads in parallel stay within max_inflight_body
#    (503 + Retry-After beyond it: from the headers when what was received
#    and held leaves too little free);
#  - one address holding idle connections gets max_connections_per_ip of
#    them, not every slot: a second address (127.0.0.2) is still served,
#    and idle connections are closed after connection_timeout;
#  - TLS 1.2 offers AEAD suites with ECDHE only (no CBC, no SHA-1 MAC, no
#    static RSA key exchange); TLS 1.3 works;
#  - requests two readers could read two ways are 400: "%2F" in the path
#    or "%00" in the target (decoded before routing), Content-Length
#    headers that differ, Content-Length beside Transfer-Encoding, a
#    Transfer-Encoding other than chunked, a bare CR inside a header.
#
# A verifier that does not know the keys used here runs with its defaults
# (IMATRUST_BIN=<old build>/bin shows which of these attacks it lets in).
set -u

. "$(dirname "$0")/../cli/lib.sh"
holder=""
reserver=""
cleanup_more() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "$reserver" ] && kill "$reserver" 2>/dev/null
}
check() {	# check DESCRIPTION CONDITION... (a test(1) expression)
	local d=$1
	shift
	if [ "$@" ]; then ok "$d"; else not_ok "$d"; fi
}

skip_without openssl curl python3
if ! python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.2", 0))' \
	2>/dev/null; then
	echo "1..0 # SKIP no 127.0.0.2 on the loopback interface"
	exit 0
fi

# --- the verifier: an RSA certificate, so that static RSA and CBC suites
# are possible at all and refused only by the priority string -------------
port=$(free_port)
self_cert rsa
write_verifier_conf "threads = 1" "max_connections = 48"
max_per_ip=16
timeout=11
if "$bin/imatrust-verifier" -H | grep -q '^max_connections_per_ip '; then
	cat >>"$tmp/verifier.conf" <<EOF
max_connections_per_ip = $max_per_ip
connection_timeout = $timeout
max_inflight_body = 134217728
EOF
fi
# idle connections are closed by connection_timeout here, not by the
# deadline for headers (test_http_flood.sh has that)
if "$bin/imatrust-verifier" -H | grep -q '^header_timeout '; then
	echo "header_timeout = 30" >>"$tmp/verifier.conf"
fi
token_add alice
verifier_start
c() { curl -s --cacert "$tmp/cert.pem" "$@"; }

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$pid/status"; }
# the peak (VmHWM) from now on: "5" resets it to the current RSS
reset_peak() { echo 5 >"/proc/$pid/clear_refs"; }
head -c 60000000 /dev/zero | tr '\0' ' ' >"$tmp/big.json"

# parallel K ARGS...: K uploads of big.json at once, their statuses in
# $tmp/codes (one a line, 000: no answer) and counted in $codes
parallel() {
	local k=$1 i p=()
	shift
	for i in $(seq "$k"); do
		c -o /dev/null -w '%{http_code}\n' -X POST \
			-H 'Content-Type: application/json' \
			--data-binary @"$tmp/big.json" "$@" \
			"$url/v1/references" >"$tmp/par.$i" &
		p+=($!)
	done
	wait "${p[@]}"
	cat "$tmp"/par.* >"$tmp/codes"
	rm -f "$tmp"/par.*
	codes=$(sort "$tmp/codes" | uniq -c | tr -s ' \n' ' ')
}
only() { ! grep -qvxE "$1" "$tmp/codes"; }	# only REGEX: every status

# --- 1. unauthenticated 60 MB uploads: 401 from the headers -----------------
rss0=$(kb VmRSS)
reset_peak
# curl as it is (Expect: 100-continue): the answer comes before the body
parallel 8
check "8 parallel unauthenticated 60 MB POSTs: all 401 ($codes)" \
	"$codes" = " 8 401 "
# a client that sends without waiting: answered or cut off, never read
parallel 8 -H 'Expect:'
only '401|000'
check "8 more that do not wait for 100 Continue: 401 or reset ($codes)" \
	$? -eq 0
peak=$(kb VmHWM)
rss1=$(kb VmRSS)
echo "# VmRSS before ${rss0} kB, peak during ${peak} kB, after ${rss1} kB"
check "memory did not grow: peak $((peak - rss0)) kB over the start" \
	$((peak - rss0)) -lt 10240

hdr=$(c -D - -o /dev/null -X DELETE -H 'Content-Type: application/json' \
	--data-binary @"$tmp/big.json" "$url/v1/references")
check "DELETE too: 401 with WWW-Authenticate: Bearer" \
	"$(echo "$hdr" | grep -ciE '^(HTTP/1.1 401|WWW-Authenticate: Bearer realm="imatrust")')" = 2

# --- 2. the operator still gets in --------------------------------------------
digest=$(printf 'x' | sha256sum | cut -d' ' -f1)
out=$(c -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
	--data-binary "{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":\"t\"},\"refs\":[{\"path\":\"/x\",\"algo\":\"sha256\",\"digest\":\"$digest\"}]}" \
	"$url/v1/references")
check "an authenticated import works ($out)" \
	"$(echo "$out" | grep -c '"added":1')" = 1
code=$(c -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" \
	"$url/v1/references")
check "an authenticated list works" "$code" = 200

# --- 3. authenticated big uploads: within max_inflight_body -------------------
# reserve.py PORT CA TOKEN K: K authenticated uploads that declare 60 MB,
# send 50 MB and wait (what they sent stays held); "ready" once sent
cat >"$tmp/reserve.py" <<'EOF'
import socket, ssl, sys, time
port, ca, token, k = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
ctx = ssl.create_default_context(cafile=ca)
conns = []
for _ in range(k):
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                        server_hostname="127.0.0.1")
    s.sendall(("POST /v1/references HTTP/1.1\r\nHost: x\r\n"
               "Authorization: Bearer %s\r\n"
               "Content-Type: application/json\r\n"
               "Content-Length: 60000000\r\n\r\n" % token).encode())
    s.sendall(b" " * 50000000)
    conns.append(s)
time.sleep(0.5)
print("ready", flush=True)
sys.stdin.read()
EOF
mkfifo "$tmp/reserve.in"
python3 "$tmp/reserve.py" "$port" "$tmp/cert.pem" "$token" 2 \
	<"$tmp/reserve.in" >"$tmp/reserve.out" 2>&1 &
reserver=$!
exec 3>"$tmp/reserve.in"
for _ in $(seq 300); do
	grep -q '^ready' "$tmp/reserve.out" && break
	sleep 0.1
done
hdr=$(c -D - -o /dev/null -H "Authorization: Bearer $token" \
	-H 'Content-Type: application/json' --data-binary @"$tmp/big.json" \
	--max-time 10 "$url/v1/references")
check "with 2 x 50 MB received and held, a third 60 MB upload is 503 + Retry-After" \
	"$(echo "$hdr" | grep -cE '^(HTTP/1.1 503|Retry-After: 2)')" = 2
exec 3>&-
wait "$reserver"
reserver=""
rss0=$(kb VmRSS)
reset_peak
parallel 8 -H "Authorization: Bearer $token"
peak=$(kb VmHWM)
echo "# 8 authenticated 60 MB bodies: $codes; peak $((peak - rss0)) kB over ${rss0} kB"
only '400|503'
check "8 parallel authenticated 60 MB uploads: read and judged (400) or 503 ($codes)" \
	$? -eq 0
check "8 authenticated 60 MB uploads held at most ~128 MiB (peak +$((peak - rss0)) kB)" \
	$((peak - rss0)) -lt $((200 * 1024))
hdr=$(c -D - -o /dev/null -X POST -H "Authorization: Bearer $token" \
	-H 'Content-Type: application/json' -H 'Content-Length: 134217729' \
	--max-time 5 "$url/v1/references" 2>/dev/null)
check "a body larger than the route's is 413 from the headers alone" \
	"$(echo "$hdr" | grep -c '^HTTP/1.1 413')" = 1

# --- 4. TLS: AEAD with ECDHE only ---------------------------------------------
tls() {	# tls ARGS...: the negotiated cipher, or "none"
	local out
	out=$(openssl s_client -connect "127.0.0.1:$port" -brief "$@" \
		</dev/null 2>&1)
	echo "$out" | awk '/^Ciphersuite:/ { print $2; f = 1 } END { if (!f) print "none" }'
}
for suite in AES128-SHA ECDHE-RSA-AES128-SHA ECDHE-RSA-AES256-SHA \
	AES128-GCM-SHA256 AES256-SHA256; do
	got=$(tls -tls1_2 -cipher "$suite")
	check "TLS 1.2 $suite refused (got $got)" "$got" = none
done
got=$(tls -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256)
check "TLS 1.2 ECDHE-RSA-AES128-GCM-SHA256 accepted" \
	"$got" = ECDHE-RSA-AES128-GCM-SHA256
got=$(tls -tls1_2 -cipher ECDHE-RSA-CHACHA20-POLY1305)
check "TLS 1.2 ECDHE-RSA-CHACHA20-POLY1305 accepted" \
	"$got" = ECDHE-RSA-CHACHA20-POLY1305
got=$(tls -tls1_3)
check "TLS 1.3 accepted ($got)" "$got" != none

# --- 5. one address holding idle connections ----------------------------------
cat >"$tmp/hold.py" <<'EOF'
# hold.py HOST PORT N SRC: N idle TCP connections from SRC; print how many
# the server kept after a second, then when it closed the last one.
import socket, sys, time
host, port, n, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
socks = []
for _ in range(n):
    s = socket.socket()
    s.bind((src, 0))
    s.connect((host, port))
    socks.append(s)
t0 = time.monotonic()

def alive(s):
    # drain what the server sent (a TLS alert) and look for the end
    try:
        while True:
            if s.recv(4096, socket.MSG_DONTWAIT) == b'':
                return False
    except BlockingIOError:
        return True
    except OSError:
        return False

time.sleep(1)
socks = [s for s in socks if alive(s)]
print("held", len(socks), flush=True)
while time.monotonic() - t0 < 40 and socks:
    socks = [s for s in socks if alive(s)]
    time.sleep(0.2)
print("closed", "never" if socks else round(time.monotonic() - t0),
      flush=True)
EOF
python3 "$tmp/hold.py" 127.0.0.1 "$port" 64 127.0.0.1 >"$tmp/hold.out" &
holder=$!
for _ in $(seq 50); do
	grep -q '^held' "$tmp/hold.out" && break
	sleep 0.1
done
held=$(awk '$1 == "held" { print $2 }' "$tmp/hold.out")
check "127.0.0.1 opening 64 idle connections keeps at most $max_per_ip (${held:-?})" \
	"${held:-999}" -le "$max_per_ip"
code=$(c -o /dev/null -w '%{http_code}' --interface 127.0.0.2 \
	--max-time 5 "$url/v1/health")
check "a second address (127.0.0.2) is still served ($code)" "$code" = 200
code=$(c -o /dev/null -w '%{http_code}' --max-time 5 "$url/v1/health")
check "the holding address itself gets no more ($code)" "$code" = 000
wait "$holder"
holder=""
closed=$(awk '$1 == "closed" { print $2 }' "$tmp/hold.out")
case ${closed:-never} in never) closed=999 ;; esac
check "idle connections closed after connection_timeout ${timeout} s (${closed} s)" \
	"$closed" -ge $((timeout - 2)) -a "$closed" -le $((timeout + 4))
code=$(c -o /dev/null -w '%{http_code}' --max-time 5 "$url/v1/health")
check "then the address is served again ($code)" "$code" = 200

# --- 6. one request, one reading ---------------------------------------------
cat >"$tmp/raw.py" <<'EOF'
# raw.py PORT CA: send stdin's bytes as they are, print the status code and
# the error message of the answer ("none" when there was none)
import json, socket, ssl, sys
port, ca = int(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context(cafile=ca)
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5),
                    server_hostname="127.0.0.1")
s.sendall(sys.stdin.buffer.read())
data = b""
try:
    while b"}" not in data:
        d = s.recv(4096)
        if not d:
            break
        data += d
except OSError:
    pass
head, _, body = data.partition(b"\r\n\r\n")
code = head.split(b" ")[1].decode() if head.startswith(b"HTTP/") else "none"
try:
    msg = json.loads(body)["error"]["message"]
except (ValueError, KeyError, TypeError):
    msg = ""
print(code, msg)
EOF
# shellcheck disable=SC2059 # the request is a format: \r\n and %% in it
raw() { printf "$1" | python3 "$tmp/raw.py" "$port" "$tmp/cert.pem"; }
out=$(raw 'GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n')
check "a plain raw GET /v1/health: 200 ($out)" "$out" = "200 "
out=$(raw 'GET /v1/health%%00x HTTP/1.1\r\nHost: x\r\n\r\n')
check "GET /v1/health%00x: 400, not /v1/health ($out)" "${out%% *}" = 400
out=$(raw 'GET /v1%%2Fhealth HTTP/1.1\r\nHost: x\r\n\r\n')
check "GET /v1%2Fhealth: 400, not /v1/health ($out)" "${out%% *}" = 400
out=$(raw 'GET /v1/health?x=%%2F HTTP/1.1\r\nHost: x\r\n\r\n')
check "an encoded / in the query is data: 200 ($out)" "${out%% *}" = 200
out=$(raw 'POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\n{}')
check "two Content-Length headers that differ: 400 before the handler ($out)" \
	"$out" = "400 Content-Length headers that differ"
out=$(raw 'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n')
check "a bare CR inside a header value: 400 ($out)" "${out%% *}" = 400
out=$(raw 'POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}')
check "Content-Length beside Transfer-Encoding: 400 ($out)" "${out%% *}" = 400
out=$(raw 'POST /v1/agents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n')
check "a Transfer-Encoding other than chunked: 4xx or closed unanswered ($out)" \
	"$(grep -cE '^(4[0-9][0-9]|5[0-9][0-9]|none) ' <<<"$out")" = 1

kill -0 "$pid" 2>/dev/null
check "the verifier is still running" $? -eq 0
echo "1..$n"
