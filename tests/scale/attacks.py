#!/usr/bin/env python3
# attacks.py - the network attacker with nothing, for attack-load.sh: one
# flood from one loopback source address for SECONDS, reconnecting as the
# verifier closes its connections. Loopback only, bounded in count.
#
#   attacks.py MODE HOST PORT CA SRC N SECONDS
#
# MODE slowbody: N TLS connections each POST evidence declaring 6 MiB of
#   JSON, then drip a byte a second.
# MODE holdbody: the same, each sending 5 MiB of it at once first (bytes
#   to hold, not only a length declared).
# MODE slowhead: N connections, half TLS dripping a header byte a second,
#   half TCP dripping a TLS ClientHello's first bytes a byte a second
#   (the handshake never ends).
# MODE bigbody: N threads each POST 6 MiB of JSON (no token, no valid
#   evidence) to an agent route as fast as answered.
#
# Prints "MODE SRC opened K closed C answers {status: count}" at the end.
import socket
import ssl
import sys
import threading
import time

mode, host, port, ca, src = sys.argv[1:6]
port, n, seconds = int(port), int(sys.argv[6]), float(sys.argv[7])
assert host.startswith("127.") and src.startswith("127."), "loopback only"
assert n <= 256 and seconds <= 600
BIG = 6 * 1024 * 1024
FRONT = b" " * (5 * 1024 * 1024)
ctx = ssl.create_default_context(cafile=ca)
stats = {"opened": 0, "closed": 0, "answers": {}}
lock = threading.Lock()
end = time.monotonic() + seconds


def tcp():
    s = socket.socket()
    s.settimeout(5)
    s.bind((src, 0))
    s.connect((host, port))
    return s


def open_slow(i):
    """One slow connection and what it drips; None when refused."""
    try:
        s = tcp()
        if mode == "slowhead" and i % 2:
            s.sendall(b"\x16")	# a TLS record header, never finished
            return s, b"\x03"
        s = ctx.wrap_socket(s, server_hostname="127.0.0.1")
        if mode in ("slowbody", "holdbody"):
            s.sendall(("POST /v1/agents/x/evidence HTTP/1.1\r\nHost: x\r\n"
                       "Content-Type: application/json\r\n"
                       "Content-Length: %d\r\n\r\n" % BIG).encode())
            if mode == "holdbody":
                s.settimeout(30)
                s.sendall(FRONT)
            return s, b" "
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
        return s, b"X"
    except OSError:
        return None


def slow():
    conns = {}
    while time.monotonic() < end:
        for i in range(n):
            if i not in conns:
                c = open_slow(i)
                if c is not None:
                    conns[i] = c
                    stats["opened"] += 1
        time.sleep(1)
        for i, (s, byte) in list(conns.items()):
            try:
                s.settimeout(1)
                s.sendall(byte)
            except OSError:
                stats["closed"] += 1
                s.close()
                del conns[i]


def big_one(body):
    try:
        s = ctx.wrap_socket(tcp(), server_hostname="127.0.0.1")
        s.settimeout(30)
        s.sendall(("POST /v1/agents/soak-000001/evidence HTTP/1.1\r\n"
                   "Host: x\r\nContent-Type: application/json\r\n"
                   "Content-Length: %d\r\n\r\n" % len(body)).encode())
        s.sendall(body)
        head = s.recv(64)
        s.close()
        status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/") \
            else "none"
    except OSError:
        status = "reset"
    with lock:
        stats["opened"] += 1
        stats["answers"][status] = stats["answers"].get(status, 0) + 1


def big():
    body = b'{"v":1,"pad":"' + b"a" * (BIG - 16) + b'"}'

    def loop():
        while time.monotonic() < end:
            big_one(body)
    threads = [threading.Thread(target=loop) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


if mode == "bigbody":
    big()
else:
    slow()
print(mode, src, "opened", stats["opened"], "closed", stats["closed"],
      "answers", stats["answers"], flush=True)
