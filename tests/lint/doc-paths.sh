#!/usr/bin/env bash
# tests/lint/doc-paths.sh [ROOT] - the documents name files that exist
# (TAP; "make lint"): every path under proto/ verifier/ agent/ db/ deploy/
# tests/ that a tracked Markdown file names (in backquotes, or bare with a
# file extension) is a tracked file or folder, or names one with its
# extension left out (`tests/tools/attest_probe` for the .c it builds
# from; `boot_log_json.[ch]`). Placeholders (NNNN, *, <...>, {...}) are
# not paths. One TAP line per document; a stale path is named with its
# line. ROOT (a git work tree) is for the self test.
set -u

root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 1
# shellcheck source=tests/lib/need.sh
. "$(dirname "$0")/../lib/need.sh"
need python3

python3 - <<'PY'
import os, re, subprocess

tracked = set(subprocess.check_output(["git", "ls-files"]).decode().split())
dirs = {t.rsplit("/", i)[0] for t in tracked for i in range(1, t.count("/") + 1)}
docs = sorted(t for t in tracked
              if t.endswith(".md") and not t.startswith("kernel/patches/"))
rooms = "proto|verifier|agent|db|deploy|tests"
quoted = re.compile(r"`((?:%s)/[A-Za-z0-9_./\[\]-]*)`" % rooms)
bare = re.compile(r"(?<![\w/.-])((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9])" % rooms)
exts = ("", ".c", ".h", ".sh", ".py", ".md", ".sql", ".json", ".conf")


def exists(p, doc):
    p = p.rstrip("/.")
    if p.endswith(".[ch]"):
        p = p[:-5]
    for base in (p, os.path.join(os.path.dirname(doc), p)):
        for e in exts:
            if base + e in tracked or base + e in dirs:
                return True
    return False


if not docs:
    print("Bail out! git ls-files listed no Markdown file")
    raise SystemExit(1)
print("1..%d" % len(docs))
for n, doc in enumerate(docs, 1):
    stale = []
    for ln, line in enumerate(open(doc, encoding="utf-8"), 1):
        found = [m.group(1) for m in quoted.finditer(line)]
        found += [m.group(1) for m in bare.finditer(line)
                  if "." in m.group(1).rsplit("/", 1)[-1]]
        for p in found:
            if re.search(r"NNNN|[*<>{}]", p) or exists(p, doc):
                continue
            stale.append("%s:%d: %s" % (doc, ln, p))
    if stale:
        print("not ok %d - %s names %d path(s) that do not exist" %
              (n, doc, len(stale)))
        for s in sorted(set(stale)):
            print("# " + s)
    else:
        print("ok %d - %s" % (n, doc))
PY
