#!/usr/bin/env bash
# test_db_statements.sh - the library's SQL texts fit its statement cache
# (TAP).
#
# Every statement db/ runs is a static text (db/README.md), prepared once
# per connection into one of DB_STMT_CACHE_MAX slots; one text more than
# that fails at run time ("statement cache full") in whichever request
# first runs it, which may be long after start. Counted: every
# "static const char sql_*[]", every "static const struct db_sql sql_*"
# (one text per engine) and the multi-row record INSERTs (RECORD_SIZES in
# db/db_boot.c).
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n - $1"; }

cap=$(sed -n 's/^#define DB_STMT_CACHE_MAX \([0-9]*\).*/\1/p' \
	"$root/db/db_internal.h")
texts=$(cat "$root"/db/*.c | grep -c \
	-e '^static const char sql_[a-z0-9_]*\[\] =' \
	-e '^static const struct db_sql sql_[a-z0-9_]* =')
inserts=$(sed -n 's/^#define RECORD_SIZES \([0-9]*\).*/\1/p' \
	"$root/db/db_boot.c")
total=$((texts + ${inserts:-0}))

if [ -n "$cap" ] && [ -n "$inserts" ] && [ "$texts" -gt 100 ]; then
	ok "found the cache size ($cap), the record INSERTs ($inserts) and $texts static SQL texts"
else
	not_ok "found the cache size, the record INSERTs and the SQL texts (cap '${cap}', inserts '${inserts}', texts $texts)"
fi
if [ -n "$cap" ] && [ "$total" -le "$cap" ]; then
	ok "$total statements fit DB_STMT_CACHE_MAX $cap ($((cap - total)) to spare)"
else
	not_ok "$total statements fit DB_STMT_CACHE_MAX ${cap:-?}: raise it in db/db_internal.h"
fi
echo "1..$n"
[ "$bad" -eq 0 ]
