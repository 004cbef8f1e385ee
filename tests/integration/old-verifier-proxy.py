#!/usr/bin/env python3
"""old-verifier-proxy.py - a verifier from before framed evidence, for tests.

Listens with TLS on 127.0.0.1:PORT and passes every request on to the
real verifier at UPSTREAM (https://127.0.0.1:N, trusted through CA),
except a body of the framed evidence type (wire.h), which it refuses as
an older verifier does: 415, "Content-Type must be application/json".
MODE "old": the answers lose their Accept-Post header, as an older
verifier sends none; "strict": they keep it, so the agent is told
framed evidence is taken and then refused (something in between that
filters media types). Counts what it refused and passed in COUNTS (a
file rewritten per request: "refused N passed M").

    old-verifier-proxy.py MODE PORT UPSTREAM CERT KEY CA COUNTS
"""
import http.client
import http.server
import json
import ssl
import sys
import threading
import urllib.parse

FRAMED = "application/vnd.imatrust.evidence"

mode, port, upstream, cert, key, ca, counts_path = sys.argv[1:8]
target = urllib.parse.urlsplit(upstream)
upstream_tls = ssl.create_default_context(cafile=ca)
lock = threading.Lock()
counts = {"refused": 0, "passed": 0}


def note(what):
    with lock:
        counts[what] += 1
        with open(counts_path, "w") as f:
            f.write("refused %d passed %d\n" % (counts["refused"],
                                                 counts["passed"]))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, status, body, ctype="application/json",
               accept_post=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if accept_post is not None and mode == "strict":
            self.send_header("Accept-Post", accept_post)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def relay(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        ctype = self.headers.get("Content-Type") or ""
        if ctype.split(";")[0].strip().lower() == FRAMED:
            note("refused")
            msg = {"v": 1, "error": {"status": 415, "message":
                   "Content-Type must be application/json"}}
            self.answer(415, json.dumps(msg).encode())
            return
        conn = http.client.HTTPSConnection(target.hostname, target.port,
                                           context=upstream_tls,
                                           timeout=30)
        headers = {k: v for k, v in self.headers.items()
                   if k.lower() in ("content-type", "authorization",
                                    "accept")}
        conn.request(self.command, self.path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        conn.close()
        note("passed")
        self.answer(r.status, data,
                    r.getheader("Content-Type") or "application/json",
                    r.getheader("Accept-Post"))

    do_GET = do_POST = do_DELETE = relay


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Handler)
tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
tls.load_cert_chain(cert, key)
server.socket = tls.wrap_socket(server.socket, server_side=True)
print("listening on 127.0.0.1:%s" % port, flush=True)
server.serve_forever()
