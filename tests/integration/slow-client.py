#!/usr/bin/env python3
# slow-client.py - many slow connections from one loopback address, for
# test_http_flood.sh. Bounded in count and time, loopback only.
#
#   slow-client.py MODE HOST PORT CA SRC N MAXTIME [PATH LENGTH]
#
# MODE body: N TLS connections each send the headers of a POST to PATH
#   declaring LENGTH bytes of JSON, then one body byte a second.
# MODE headers: N TLS connections each send a request line, then one
#   header byte a second (the headers never end).
# MODE idle: N TCP connections that send nothing.
#
# Prints "open K" once the N were tried (K: the server kept them a
# second later), then "closed ALL S" when the server closed them all
# (S: seconds since the first was opened), or "closed K of N S" at
# MAXTIME seconds. A connection the server refused or closed counts as
# closed.
import socket
import ssl
import sys
import time

mode, host, port, ca, src = sys.argv[1:6]
port, n, maxtime = int(port), int(sys.argv[6]), float(sys.argv[7])
path = sys.argv[8] if len(sys.argv) > 8 else "/v1/health"
length = int(sys.argv[9]) if len(sys.argv) > 9 else 0
assert host.startswith("127.") and src.startswith("127."), "loopback only"
assert n <= 200 and maxtime <= 120

ctx = ssl.create_default_context(cafile=ca)
t0 = time.monotonic()


def connect():
    s = socket.socket()
    s.settimeout(5)
    s.bind((src, 0))
    s.connect((host, port))
    if mode == "idle":
        return s
    s = ctx.wrap_socket(s, server_hostname="127.0.0.1")
    if mode == "body":
        s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\n"
                   "Content-Type: application/json\r\n"
                   "Content-Length: %d\r\n\r\n" % (path, length)).encode())
    else:
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n" % path).encode())
    return s


def alive(s):
    """Drain what the server sent; False once it closed (or answered)."""
    s.setblocking(False)
    try:
        while True:
            if not s.recv(4096):
                return False
            if mode != "idle":
                return False	# an answer (503, 413 ...): not held
    except (BlockingIOError, ssl.SSLWantReadError):
        return True
    except OSError:
        return False


def drip(s):
    """One more byte of body or header; False when it cannot go."""
    s.setblocking(True)
    s.settimeout(2)
    try:
        s.sendall(b" " if mode == "body" else b"X")
        return True
    except OSError:
        return False


socks = []
for _ in range(n):
    try:
        socks.append(connect())
    except OSError:
        pass
time.sleep(1)
socks = [s for s in socks if alive(s)]
print("open", len(socks), flush=True)
last = time.monotonic()
while socks and time.monotonic() - t0 < maxtime:
    if mode != "idle" and time.monotonic() - last >= 1:
        socks = [s for s in socks if drip(s)]
        last = time.monotonic()
    socks = [s for s in socks if alive(s)]
    time.sleep(0.2)
if socks:
    print("closed %d of %d %d" % (n - len(socks), n,
                                  round(time.monotonic() - t0)), flush=True)
else:
    print("closed ALL %d" % round(time.monotonic() - t0), flush=True)
for s in socks:
    s.close()
