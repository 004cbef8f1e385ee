/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sql_count.h - count the statements an SQLite connection runs, for the
 * tests that pin how many statements a path costs.
 */
#ifndef IMATRUST_TEST_SQL_COUNT_H
#define IMATRUST_TEST_SQL_COUNT_H

#include <sqlite3.h>

static inline int sql_count_one(unsigned int type, void *ctx, void *p, void *x)
{
	(void)type;
	(void)p;
	(void)x;
	++*(int *)ctx;
	return 0;
}

/* Add one to *@n for every statement @sql starts, until sql_count_stop(). */
static inline void sql_count_start(sqlite3 *sql, int *n)
{
	sqlite3_trace_v2(sql, SQLITE_TRACE_STMT, sql_count_one, n);
}

static inline void sql_count_stop(sqlite3 *sql)
{
	sqlite3_trace_v2(sql, 0, NULL, NULL);
}

#endif
