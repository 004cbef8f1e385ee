#!/usr/bin/env bash
# run-pg.sh BIN... - the db unit tests against PostgreSQL.
#
# Starts a private cluster (tests/lib/pg.sh, fsync off), creates one
# database per test binary and runs each with IMATRUST_TEST_PG_URI naming
# it: db_test.h then opens that database instead of an SQLite file and
# empties its schema before every test. Tests that work on the SQLite file
# itself skip there. The summary line is tests/run-suite.sh's
# ("unit-pg: N passed, N failed, N skipped"); IMATRUST_TEST_PG_RESTART
# names a script that restarts the server; the cluster's log is shown
# when something failed. Fails, naming the package, when no PostgreSQL
# server is installed (deploy/install-deps.sh): this leg exists to test the
# second backend, and passing without one would say it was.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
# shellcheck source=../../lib/pg.sh
. "$root/tests/lib/pg.sh"

if ! pg_bindir >/dev/null 2>&1; then
	echo "unit-pg: no PostgreSQL server (Debian package postgresql:" \
		"deploy/install-deps.sh)" >&2
	echo "unit-pg: 0 passed, 1 failed"
	exit 1
fi

tmp=$(mktemp -d)
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	pg_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

pg_start "$tmp/pg" off || exit 1
# test_db_open restarts the server (pg_ctl restart) to see the library
# reconnect: the command it runs
restart=(cd / '&&' exec)
[ "$(id -u)" -eq 0 ] && restart+=(setpriv --reuid="$PG_OWNER"
	--regid="$(id -g "$PG_OWNER")" --init-groups --)
restart+=("$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast -w -t 30
	-l "$PG_DIR/postgres.log" restart '>/dev/null')
printf '#!/bin/sh\n%s\n' "${restart[*]}" >"$tmp/restart.sh"
chmod 0755 "$tmp/restart.sh"
export IMATRUST_TEST_PG_RESTART=$tmp/restart.sh
cmds=()
for bin in "$@"; do
	uri=$(pg_createdb "t_$(basename "$bin")") || exit 1
	cmds+=("IMATRUST_TEST_PG_URI='$uri' $bin")
done
"$root/tests/run-suite.sh" unit-pg "${cmds[@]}"
rc=$?
if [ "$rc" -ne 0 ] && [ -s "$tmp/pg/postgres.log" ]; then
	sed 's/^/# postgres.log: /' "$tmp/pg/postgres.log" | tail -40
fi
exit "$rc"
