#!/usr/bin/env bash
# test_kernel_lint.sh - the kernel lint tier (kernel/lint.sh) can fail:
# through tests/run-suite.sh, its stock/patched comparison on planted
# make logs (a warning only the patched tree has, one it has twice,
# another sparse "got" type: fail, printed without line numbers; the
# same warnings at other lines: pass), --trees without sparse on PATH
# (fails naming the Debian package, even in the inner loop), and
# --patches on a planted series (a checkpatch --strict finding fails,
# named; the clean twin passes).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runner=$root/tests/run-suite.sh
lint=$root/kernel/lint.sh
tarball=${IMATRUST_KERNEL_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[ -f "$tmp/out" ] && sed 's/^/# /' "$tmp/out"
}

# gate WANT PATTERN DESC CMD: the runner on the command line CMD passes
# (WANT pass) or fails (fail) with no TAP plan error, and prints lines
# matching each PATTERN (ERE; several separated by " && "); for a pass,
# which the runner shows as one line, CMD's own TAP is searched too.
gate() {
	local want=$1 pats=$2 desc=$3 rc p good=1

	shift 3
	env -u CI IMATRUST_STRICT=0 "$runner" planted "$*" >"$tmp/out" 2>&1
	rc=$?
	[ "$want" = fail ] || bash -c "$*" >>"$tmp/out" 2>&1
	case $want in
	pass) [ "$rc" -eq 0 ] && grep -q '^PASS ' "$tmp/out" || good=0 ;;
	fail) [ "$rc" -ne 0 ] && grep -q '^FAIL ' "$tmp/out" || good=0 ;;
	esac
	grep -qE 'TAP plan|planned [0-9]+ tests' "$tmp/out" && good=0
	while [ -n "$pats" ]; do
		p=${pats%% && *}
		[ "$p" = "$pats" ] && pats="" || pats=${pats#* && }
		grep -qE -- "$p" "$tmp/out" || good=0
	done
	if [ "$good" -eq 1 ]; then ok "$desc"; else not_ok "$desc"; fi
}

# --- the comparison (--compare), on make logs as kbuild prints them ---
cat >"$tmp/stock.log" <<'EOS'
make: Entering directory '/cache/tree-stock/src'
  CHECK   security/integrity/ima/ima_kexec.c
security/integrity/ima/ima_kexec.c:60:30: warning: incorrect type in assignment (different base types)
security/integrity/ima/ima_kexec.c:60:30:    expected unsigned short [usertype] version
security/integrity/ima/ima_kexec.c:60:30:    got restricted __le16 [usertype]
  CC      security/integrity/ima/ima_fs.o
security/integrity/ima/ima_fs.c: In function 'ima_open':
security/integrity/ima/ima_fs.c:120:13: warning: unused variable 'x' [-Wunused-variable]
  120 |         int x;
      |             ^
./include/linux/list.h:33:1: warning: no previous prototype for 'f' [-Wmissing-prototypes]
security/integrity/ima/ima_policy.c:1942: warning: expecting prototype for ima_delete_rules()
security/integrity/ima/ima_queue.o: warning: objtool: ima_add()+0x1a: unreachable instruction
make[4]: *** [scripts/Makefile.build:250: security/integrity/ima/ima_x.o] Error 1
EOS
# the same warnings, moved by the series
sed -e 's/:60:30:/:75:30:/' -e 's/:120:13:/:180:9:/' -e 's/:1942:/:2001:/' \
	-e 's|^\./include|include|' "$tmp/stock.log" >"$tmp/moved.log"
# a warning the stock tree does not have
cp "$tmp/moved.log" "$tmp/extra.log"
echo "security/integrity/ima/ima_fs.c:410:2: warning: symbol 'ima_planted' was not declared. Should it be static?" \
	>>"$tmp/extra.log"
# a warning the stock tree has once, twice
cp "$tmp/moved.log" "$tmp/twice.log"
echo "security/integrity/ima/ima_fs.c:300:13: warning: unused variable 'x' [-Wunused-variable]" \
	>>"$tmp/twice.log"
# the same sparse warning with another type on its "got" line
sed 's/got restricted __le16/got restricted __le32/' "$tmp/moved.log" \
	>"$tmp/got.log"

gate pass 'no warning the stock tree does not have \(stock 5, patched 5\)' \
	"--compare passes the same warnings at other lines" \
	"$lint --compare planted $tmp/stock.log $tmp/moved.log"
gate fail "1 warning\\(s\\) the stock tree does not have && #   security/integrity/ima/ima_fs.c: warning: symbol 'ima_planted' was not declared" \
	"--compare fails a planted warning, printed without its line" \
	"$lint --compare planted $tmp/stock.log $tmp/extra.log"
gate fail "#   security/integrity/ima/ima_fs.c: warning: unused variable 'x'" \
	"--compare fails a warning the patched tree has twice, the stock tree once" \
	"$lint --compare planted $tmp/stock.log $tmp/twice.log"
gate fail '#   .*ima_kexec.c: warning: incorrect type .*; got restricted __le32' \
	"--compare fails a sparse warning whose expected/got lines differ" \
	"$lint --compare planted $tmp/stock.log $tmp/got.log"
gate pass 'stock 6, patched 5' \
	"--compare passes a warning the series removed" \
	"$lint --compare planted $tmp/twice.log $tmp/moved.log"

# --- a missing tool fails, naming its package: PATH without sparse ---
mkdir -p "$tmp/bin"
for t in dirname nproc mktemp rm sed make gcc ccache perl flock; do
	p=$(command -v "$t") && ln -s "$p" "$tmp/bin/$t"
done
gate fail 'not ok [0-9]+ - sparse not installed \(Debian package sparse' \
	"--trees fails without sparse, naming the Debian package" \
	"PATH=$tmp/bin $BASH $lint --trees"

# --- --patches on a planted series ---
mkdir -p "$tmp/series-bad" "$tmp/series-clean"
cat >"$tmp/series-clean/0001-clean.patch" <<'EOS'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Lab <lab@example.org>
Date: Mon, 7 Dec 2026 00:00:00 +0000
Subject: [PATCH] ima: planted

A planted patch for the lint self test.

Signed-off-by: Lab <lab@example.org>
---
 security/integrity/ima/ima_planted.c | 7 +++++++
 1 file changed, 7 insertions(+)

diff --git a/security/integrity/ima/ima_planted.c b/security/integrity/ima/ima_planted.c
--- a/security/integrity/ima/ima_planted.c
+++ b/security/integrity/ima/ima_planted.c
@@ -1,0 +1,7 @@
+// SPDX-License-Identifier: GPL-2.0
+#include "ima.h"
+
+int ima_planted(int *p)
+{
+	return p ? *p : 0;
+}
EOS
sed 's/^+\treturn p ? \*p : 0;$/+\treturn p == NULL ? 0 : *p;/' \
	"$tmp/series-clean/0001-clean.patch" >"$tmp/series-bad/0001-clean.patch"
echo 0001-clean.patch >"$tmp/series-clean/series"
echo 0001-clean.patch >"$tmp/series-bad/series"
if [ ! -f "$tarball" ] || ! command -v perl >/dev/null; then
	for d in "a clean patch passes" "a finding fails, named"; do
		ok "--patches: $d # SKIP perl or $tarball not installed (Debian packages perl, linux-source-6.1)"
	done
else
	gate pass 'PASS .*\(1 passed' "--patches: a clean patch passes" \
		"$lint --patches $tmp/series-clean/series"
	gate fail 'not ok 1 - 0001-clean.patch: checkpatch.pl --strict: 1 finding && 0001-clean.patch:[0-9]+: CHECK:COMPARISON_TO_NULL' \
		"--patches: a --strict finding fails, named" \
		"$lint --patches $tmp/series-bad/series"
fi
echo "1..$n"
