#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# webhook-receiver.py - a webhook receiver for test_webhooks.sh that
# checks what a real one must: every message's Standard Webhooks
# signature, under the secret of the path it was posted to.
#
#   webhook-receiver.py serve PORT LOG REFUSE PATH=SECRETFILE...
#       answer 204 to POST PATH, after refusing the first REFUSE
#       requests with 503; one JSON line per request in LOG (headers,
#       body, whether the signature verified, the answer)
#       (over TLS when RECEIVER_TLS_CERT and RECEIVER_TLS_KEY name a
#       PEM certificate and key)
#   webhook-receiver.py check SECRETFILE < LINE
#       exit 0 when the logged request LINE verifies under SECRETFILE
import base64
import hashlib
import hmac
import json
import os
import ssl
import time
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer


def secret_bytes(path):
    text = open(path).read().strip()
    if text.startswith("whsec_"):
        text = text[len("whsec_"):]
    return base64.b64decode(text, validate=True)


def verifies(key, msg_id, timestamp, body, signatures):
    """The Standard Webhooks check: any v1 signature of id.timestamp.body"""
    signed = msg_id.encode() + b"." + timestamp.encode() + b"." + body
    want = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest())
    for sig in signatures.split():
        version, _, value = sig.partition(",")
        if version == "v1" and hmac.compare_digest(value.encode(), want):
            return True
    return False


def check(entry, key):
    body = base64.b64decode(entry["body_b64"])
    if not verifies(key, entry["id"], entry["timestamp"], body,
                    entry["signature"]):
        return False
    # the signed id is the body's: a replayed body under another id fails
    return json.loads(body).get("id") == entry["id"]


def serve(port, log, refuse, secrets):
    state = {"seen": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            n = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(n)
            entry = {
                "path": self.path,
                "id": self.headers.get("webhook-id", ""),
                "timestamp": self.headers.get("webhook-timestamp", ""),
                "signature": self.headers.get("webhook-signature", ""),
                "key_id": self.headers.get("webhook-key-id", ""),
                "body_b64": base64.b64encode(body).decode(),
                "received_at": time.time(),
            }
            key = secrets.get(self.path)
            entry["verified"] = key is not None and check(entry, key)
            state["seen"] += 1
            status = 503 if state["seen"] <= refuse else 204
            entry["status"] = status
            try:
                entry["body"] = json.loads(body)
            except ValueError:
                entry["body"] = None
            with open(log, "a") as f:
                f.write(json.dumps(entry) + "\n")
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    HTTPServer.allow_reuse_address = True
    server = HTTPServer(("127.0.0.1", port), Handler)
    cert = os.environ.get("RECEIVER_TLS_CERT")
    if cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, os.environ["RECEIVER_TLS_KEY"])
        server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


def main():
    if sys.argv[1] == "serve":
        secrets = {}
        for arg in sys.argv[5:]:
            path, _, file = arg.partition("=")
            secrets[path] = secret_bytes(file)
        serve(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), secrets)
    elif sys.argv[1] == "check":
        entry = json.loads(sys.stdin.readline())
        sys.exit(0 if check(entry, secret_bytes(sys.argv[2])) else 1)
    else:
        sys.exit("usage: webhook-receiver.py serve|check ...")


if __name__ == "__main__":
    main()
