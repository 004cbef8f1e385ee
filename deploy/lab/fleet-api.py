#!/usr/bin/env python3
"""fleet-api.py - the lab's view of the verifier's operator REST API.

    fleet-api.py get PATH                     GET PATH, print the JSON
    fleet-api.py table [--watch] [--story FILE] [--until-file FILE]
                                              the fleet table (once, or every
                                              second until SIGINT/SIGTERM or
                                              FILE exists), with the last
                                              lines of FILE under it
    fleet-api.py wait ID STATE[,STATE] [--timeout S] [--interval S] [--ready F]
                                              poll /v1/machines/ID until its
                                              state is one of STATE; prints
                                              the host CLOCK_REALTIME it was
                                              seen, then the machine JSON;
                                              F is created once the first
                                              answer came (start the action
                                              being timed after that)

References go through the real CLI (imatrust ref import-dir / ref add).

Connection from the environment, as the imatrust CLI: IMATRUST_URL
(default https://10.77.0.1:8443), IMATRUST_CA (PEM), IMATRUST_TOKEN_FILE.
One keep-alive HTTPS connection; run it inside the lab namespace
(deploy/lab/fleet.sh does). Only the standard library.
"""
import http.client
import json
import os
import signal
import ssl
import sys
import time
import urllib.parse

STATE_COLOURS = {
    "trusted": "32", "untrusted": "31", "failed": "31;1",
    "stale": "33", "enrolling": "36", "pending": "35",
}


class Api:
    def __init__(self):
        url = urllib.parse.urlsplit(os.environ.get("IMATRUST_URL", "https://10.77.0.1:8443"))
        self.host, self.port = url.hostname, url.port or 443
        self.ctx = ssl.create_default_context(cafile=os.environ.get("IMATRUST_CA"))
        tok = os.environ.get("IMATRUST_TOKEN_FILE")
        self.token = open(tok).read().strip() if tok else ""
        self.conn = None

    def request(self, method, path, body=None, timeout=10):
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPSConnection(
                    self.host, self.port, context=self.ctx, timeout=timeout)
            headers = {"Authorization": "Bearer " + self.token}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            try:
                self.conn.request(method, path, body=data, headers=headers)
                res = self.conn.getresponse()
                text = res.read()
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
                continue
            try:
                return res.status, json.loads(text or b"null")
            except ValueError:
                return res.status, {"raw": text.decode(errors="replace")}
        raise OSError("unreachable")

    def get(self, path):
        return self.request("GET", path)


def machines(api):
    rows, after = [], None
    while True:
        q = "/v1/machines?limit=500" + ("&after=" + urllib.parse.quote(after) if after else "")
        status, page = api.get(q)
        if status != 200:
            raise OSError("GET %s: %s %s" % (q, status, page))
        rows += page.get("machines", page.get("items", []))
        after = page.get("next")
        if not after:
            return rows


def reason_text(r):
    if not r:
        return ""
    if isinstance(r, dict):
        if r.get("path") is not None or r.get("digest"):
            return "%s %s %s" % (r.get("verdict", r.get("check", "")),
                                 r.get("path", ""), r.get("digest", ""))
        return " ".join("%s=%s" % (k, v if isinstance(v, (str, int)) else
                                   json.dumps(v, separators=(",", ":")))
                        for k, v in r.items())
    return str(r)


BOOT_CACHE = {}


def boot_text(api, ident):
    """The machine's boot beside its IMA state: what its firmware event
    log says (the verifier's decoded view), a found log refreshed every
    15 s."""
    hit = BOOT_CACHE.get(ident)
    if hit and time.time() - hit[0] < 15:
        return hit[1]
    status, j = api.get("/v1/machines/%s/boot-log" % urllib.parse.quote(ident))
    if status != 200:
        # not cached: the log comes with the first evidence of a boot
        return "no log" if status == 404 else "log %s" % status
    else:
        facts = j.get("facts", {})
        sb = facts.get("secure_boot")
        apps = len(facts.get("applications", []))
        if sb is None and not apps:
            text = "BIOS"
        else:
            text = "UEFI SB %s" % ("on" if sb else "off")
    BOOT_CACHE[ident] = (time.time(), text)
    return text


def table(api, colour):
    now = time.time()
    out = ["%-10s %-10s %-18s %-11s %-9s %s" % ("MACHINE", "STATE", "TNC", "BOOT", "SEEN",
                                              "REASON")]
    for m in machines(api):
        seen = m.get("last_seen")
        seen = "%.0fs ago" % (now - seen) if seen else "-"
        state = m.get("state", "?")
        st = "%-10s" % state
        if colour and state in STATE_COLOURS:
            st = "\033[%sm%s\033[0m" % (STATE_COLOURS[state], st)
        out.append("%-10s %s %-18s %-11s %-9s %s" % (m.get("id"), st, m.get("tnc", ""),
                                                     boot_text(api, m.get("id")), seen,
                                                     reason_text(m.get("state_reason"))[:100]))
    return "\n".join(out)


def story_tail(path, n=14):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def cmd_table(api, args):
    watch = "--watch" in args
    story = args[args.index("--story") + 1] if "--story" in args else None
    until = args[args.index("--until-file") + 1] if "--until-file" in args else None
    colour = sys.stdout.isatty()
    if not watch:
        print(table(api, False))
        return 0
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    try:
        while True:
            try:
                text = table(api, colour)
            except OSError as e:
                text = "verifier unreachable: %s" % e
            stamp = time.strftime("%H:%M:%S")
            if colour:
                sys.stdout.write("\033[H\033[J")
            print("imatrust fleet  %s  (Ctrl-C ends the demo)\n%s\n" % (stamp, text))
            if story:
                print(story_tail(story))
            sys.stdout.flush()
            if until and os.path.exists(until):
                return 0
            time.sleep(1)
    except KeyboardInterrupt:
        return 0


def cmd_wait(api, args):
    ident, states = args[0], set(args[1].split(","))
    timeout, interval, ready = 120.0, 0.02, None
    i = 2
    while i < len(args):
        if args[i] == "--timeout":
            timeout = float(args[i + 1])
        elif args[i] == "--interval":
            interval = float(args[i + 1])
        elif args[i] == "--ready":
            ready = args[i + 1]
        i += 2
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            status, m = api.get("/v1/machines/" + urllib.parse.quote(ident))
        except OSError:
            status, m = 0, None
        t = time.time()
        if ready and status == 200:
            # Connected and polling: the caller may start what it measures.
            open(ready, "w").close()
            ready = None
        if status == 200:
            last = m
            if m["machine"]["state"] in states:
                print("%.6f" % t)
                print(json.dumps(m))
                return 0
        time.sleep(interval)
    print("timeout", file=sys.stderr)
    print(json.dumps(last), file=sys.stderr)
    return 1


def main(argv):
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    api = Api()
    cmd, args = argv[0], argv[1:]
    if cmd == "get":
        status, body = api.get(args[0])
        print(json.dumps(body, indent=1))
        return 0 if status == 200 else 1
    if cmd == "table":
        return cmd_table(api, args)
    if cmd == "wait":
        return cmd_wait(api, args)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
