#!/usr/bin/env bash
# run-pg.sh TEST... - integration test scripts with the verifier on
# PostgreSQL.
#
# Starts a private cluster (tests/lib/pg.sh, fsync off), creates one
# database per script and runs each with IMATRUST_TEST_PG_URI naming it:
# swtpm-lib.sh's verifier_conf then writes that database into the
# verifier's configuration, db_query reads it with psql, and a second
# database a script asks for is made beside it (the role may CREATEDB).
# The summary line is tests/run-suite.sh's ("integration-pg: N passed, N
# failed"); the cluster's log is shown when something failed. Fails,
# naming the packages, when no PostgreSQL server or psql is installed
# (deploy/install-deps.sh).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=tests/lib/pg.sh
. "$root/tests/lib/pg.sh"

# pg_bindir says what it looked for
if ! pg_bindir >/dev/null || ! command -v psql >/dev/null; then
	echo "integration-pg: no PostgreSQL server or no psql (Debian" \
		"packages postgresql, postgresql-client: deploy/install-deps.sh)" >&2
	echo "integration-pg: 0 passed, 1 failed"
	exit 1
fi

tmp=$(mktemp -d)
# shellcheck disable=SC2317 # the EXIT trap: pg.sh's functions are not
# written for set -e (pg_stop's wait returns the server's status), and the
# status is the tests'
cleanup() {
	local rc=$?

	set +e
	pg_cleanup
	rm -rf "$tmp"
	exit "$rc"
}
trap cleanup EXIT

pg_start "$tmp/pg" off
psql -X -q -v ON_ERROR_STOP=1 -h "$PG_SOCKET" -U postgres -d postgres \
	-c "ALTER ROLE $PG_ROLE CREATEDB"
cmds=()
for t in "$@"; do
	name=$(basename "$t" .sh)
	uri=$(pg_createdb "t_$name")
	cmds+=("IMATRUST_TEST_PG_URI='$uri' $t")
done
rc=0
"$root/tests/run-suite.sh" integration-pg "${cmds[@]}" || rc=$?
if [ "$rc" -ne 0 ] && [ -s "$tmp/pg/postgres.log" ]; then
	sed 's/^/# postgres.log: /' "$tmp/pg/postgres.log" | tail -40
fi
exit "$rc"
