#!/usr/bin/env bash
# test_cli_url.sh - the operator CLI never sends its bearer token over
# plain http unless told --insecure-http (or IMATRUST_INSECURE_HTTP=1)
# (TAP). The "verifier" is a plain-HTTP listener on a free loopback port
# that writes down every byte it receives: the network attacker's view.
set -u

. "$(dirname "$0")/lib.sh"

# Nothing reached the listener since the last call of heard_nothing.
heard_nothing() {
	if [ ! -s "$tmp/heard" ]; then ok "$1"; else not_ok "$1" "$tmp/heard"; fi
	: >"$tmp/heard"
}

skip_without python3

# Accepts connections one by one, notes each in heard with what arrives,
# answers one machine as JSON over plain HTTP and closes.
cat >"$tmp/listen.py" <<'EOF'
import socket, sys
heard, portfile = sys.argv[1], sys.argv[2]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(8)
open(portfile, "w").write("%d\n" % s.getsockname()[1])
body = b'{"machine":{"id":"node-1","state":"trusted"},"boot":null}'
while True:
    c, _ = s.accept()
    with open(heard, "ab") as f:
        f.write(b"# a connection\n")
    c.settimeout(5)
    got = b""
    try:
        while b"\r\n\r\n" not in got:
            d = c.recv(4096)
            if not d:
                break
            got += d
    except OSError:
        pass
    with open(heard, "ab") as f:
        f.write(got)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
              b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body)
              + body)
    c.close()
EOF
: >"$tmp/heard"
python3 "$tmp/listen.py" "$tmp/heard" "$tmp/port" &
pid=$!
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
port=$(cat "$tmp/port")
url="http://127.0.0.1:$port"
token=cafe0123456789secrettoken
printf '%s\n' "$token" >"$tmp/token"
unset IMATRUST_URL IMATRUST_CA IMATRUST_TOKEN IMATRUST_INSECURE_HTTP
export IMATRUST_TOKEN_FILE=$tmp/token

expect 2 "--url http:// is refused with exit 2" \
	"$imatrust" machine node-1 --url "$url"
contains "$tmp/err" "refusing http://127\.0\.0\.1:$port.*--insecure-http" \
	"the message names the URL and --insecure-http"
heard_nothing "nothing reached the listener"

expect 2 "IMATRUST_URL=http:// is refused" \
	env IMATRUST_URL="$url" "$imatrust" machines
heard_nothing "nothing reached the listener (machines)"

expect 2 "HTTP:// in capitals is refused" \
	"$imatrust" ref ls --url "HTTP://127.0.0.1:$port"
heard_nothing "nothing reached the listener (ref ls)"

expect 2 "a POST command over http:// is refused" \
	"$imatrust" approve node-1 --url "$url"
heard_nothing "nothing reached the listener (approve)"

expect 2 "IMATRUST_INSECURE_HTTP=0 does not allow http://" \
	env IMATRUST_INSECURE_HTTP=0 "$imatrust" machine node-1 --url "$url"
heard_nothing "nothing reached the listener (INSECURE_HTTP=0)"

expect 2 "a URL without a scheme is refused (libcurl would guess http)" \
	"$imatrust" machine node-1 --url "127.0.0.1:$port"
contains "$tmp/err" "not an https:// URL" "the message says https:// is wanted"
heard_nothing "nothing reached the listener (no scheme)"

expect 2 "http:// is refused before the token file is read" \
	"$imatrust" machine node-1 --url "$url" --token-file "$tmp/absent"
if grep -q absent "$tmp/err"; then not_ok "no word about the token file" "$tmp/err"
else ok "no word about the token file"; fi

expect 0 "--insecure-http allows http://" \
	"$imatrust" machine node-1 --url "$url" --insecure-http
contains "$tmp/out" '^state +trusted$' "the answer is printed"
contains "$tmp/heard" "^Authorization: Bearer $token" \
	"the token went out over http (as asked)"
: >"$tmp/heard"

expect 0 "IMATRUST_INSECURE_HTTP=1 allows http://" \
	env IMATRUST_INSECURE_HTTP=1 IMATRUST_URL="$url" \
	"$imatrust" machine node-1
contains "$tmp/heard" "^GET /v1/machines/node-1 HTTP/1.1" \
	"the request reached the listener"

echo "1..$n"
