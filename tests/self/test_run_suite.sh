#!/usr/bin/env bash
# test_run_suite.sh - the runner cannot be fooled: tests/run-suite.sh on
# planted scripts (a whole-file skip, a wrong or missing plan, a crash, a
# cmocka skip), in the inner loop and in strict mode (CI=true, make check),
# and the PostgreSQL legs with no server.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runner=$root/tests/run-suite.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	[ -f "$tmp/out" ] && sed 's/^/# /' "$tmp/out"
}

# plant NAME BODY: an executable script printing BODY
plant() {
	printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1"
	chmod +x "$tmp/$1"
}

# run_as MODE WANT_RC PATTERN DESC SCRIPT...: the runner in MODE (loose:
# the inner loop; strict: IMATRUST_STRICT=1; ci: CI=true) exits WANT_RC
# (0 or 1: non-zero) and prints a line matching PATTERN.
run_as() {
	local mode=$1 want=$2 pat=$3 desc=$4 rc env=(env -u CI IMATRUST_STRICT=0)

	shift 4
	case $mode in
	strict) env=(env -u CI IMATRUST_STRICT=1) ;;
	ci) env=(env CI=true IMATRUST_STRICT=0) ;;
	esac
	"${env[@]}" "$runner" planted "$@" >"$tmp/out" 2>&1
	rc=$?
	[ "$rc" -ne 0 ] && rc=1
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pat" "$tmp/out"; then
		ok "$desc"
	else
		echo "# exit $rc, wanted $want; pattern $pat"
		not_ok "$desc"
	fi
}

plant good 'echo 1..2; echo "ok 1 - a"; echo "ok 2 - b"'
plant wholeskip 'echo "1..0 # SKIP frob not installed (Debian package frob)"'
plant lateplan 'echo "ok 1 - a"; echo 1..5'
plant noplan 'echo "ok 1 - a"; echo "ok 2 - b"'
plant twoplans 'echo 1..1; echo "ok 1 - a"; echo 1..1'
plant bareplan 'echo 1..0'
plant crash 'echo 1..1; echo "ok 1 - a"; exit 3'
plant tapskip 'echo 1..2; echo "ok 1 - a"; echo "ok 2 - b # SKIP no frob"'
plant failing 'echo 1..2; echo "ok 1 - a"; echo "not ok 2 - b"'
plant cmocka 'cat <<"X"
[==========] tests: Running 2 test(s).
[ RUN      ] test_a
[       OK ] test_a
[ RUN      ] test_b
[  SKIPPED ] test_b
[==========] tests: 2 test(s) run.
[  PASSED  ] 1 test(s).
[  SKIPPED ] 1 test(s), listed below:
[  SKIPPED ] test_b
X'

run_as loose 0 '^planted: 2 passed, 0 failed$' \
	"a script that runs its plan passes" "$tmp/good"
run_as loose 0 'skipped whole: .*wholeskip: frob not installed' \
	"a whole-file skip is listed by name in the inner loop" "$tmp/wholeskip"
run_as loose 0 '^planted: 0 passed, 0 failed, 1 skipped$' \
	"a whole-file skip is counted" "$tmp/wholeskip"
run_as strict 1 'FAIL .*wholeskip.*strict mode.*Debian package frob' \
	"IMATRUST_STRICT=1 fails a whole-file skip, naming the package" \
	"$tmp/wholeskip"
run_as ci 1 'FAIL .*wholeskip' "CI=true fails a whole-file skip" \
	"$tmp/wholeskip"
run_as loose 1 'planned 5 tests, ran 1' \
	"a plan of 5 after 1 test fails" "$tmp/lateplan"
run_as loose 1 '0 TAP plans' "a script with no plan fails" "$tmp/noplan"
run_as loose 1 '2 TAP plans' "a script with two plans fails" "$tmp/twoplans"
run_as loose 1 '1\.\.0 without a # SKIP reason' \
	"an empty plan with no reason fails" "$tmp/bareplan"
run_as loose 1 'FAIL .*crash \(exit 3' \
	"a script that exits non-zero after its plan fails" "$tmp/crash"
run_as loose 1 '^planted: 1 passed, 1 failed$' \
	"a not ok fails the suite" "$tmp/failing"
run_as loose 0 '^planted: 1 passed, 0 failed, 1 skipped$' \
	"a TAP skip directive is counted in the inner loop" "$tmp/tapskip"
run_as strict 1 'FAIL .*tapskip.*no frob' \
	"strict mode fails a TAP skip directive, with its reason" "$tmp/tapskip"
run_as loose 0 '^planted: 1 passed, 0 failed, 1 skipped$' \
	"a cmocka skip is counted in the inner loop" "$tmp/cmocka"
run_as ci 1 'FAIL .*cmocka.*test_b' \
	"CI=true fails a cmocka skip, naming the test" "$tmp/cmocka"
run_as loose 1 'no test ran' "a suite of nothing fails"

# The PostgreSQL legs with the server hidden: they fail and name it.
for leg in tests/unit/db/run-pg.sh tests/integration/run-pg.sh; do
	IMATRUST_PG_BINDIR=$tmp/nowhere "$root/$leg" "$tmp/good" \
		>"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'Debian package.*postgresql' "$tmp/out"
	then
		ok "$leg fails without a PostgreSQL server, naming the package"
	else
		echo "# exit $rc"
		not_ok "$leg fails without a PostgreSQL server"
	fi
done

# need.sh: the skip line names the Debian package.
(
	# shellcheck source=tests/lib/need.sh
	. "$root/tests/lib/need.sh"
	need sh tpm2_nosuchtool
) >"$tmp/out"
if grep -qx '1\.\.0 # SKIP tpm2_nosuchtool not installed (Debian package tpm2-tools: deploy/install-deps.sh)' "$tmp/out"; then
	ok "need names the Debian package of a missing tool"
else
	not_ok "need names the Debian package of a missing tool"
fi
echo "1..$n"
