/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_plan.h - the plans of the statements a db call runs, for the tests
 * that insist on keys (test_db_evidence, test_db_ref_origin). SQLite: a
 * statement trace while the call runs (trace_sql()), then EXPLAIN QUERY
 * PLAN of each text (sqlite_explain()). PostgreSQL: the statements a
 * fresh connection prepared for it (pg_prepared_statements), then
 * EXPLAIN EXECUTE of each as a generic plan (pg_explain()), either with
 * sequential scans off, so that a plan that still scans a table has no
 * index to use whatever the parameters, or on the tables' statistics.
 */
#ifndef IMATRUST_TEST_DB_PLAN_H
#define IMATRUST_TEST_DB_PLAN_H

#include "db_test.h"

#define PLAN_TEXT_MAX 65536
struct plans {
	char sql[64][4096]; /* SQLite: the distinct statement texts */
	size_t nsql;
	char text[PLAN_TEXT_MAX]; /* every plan, one after the other */
	size_t len;
	size_t nplans;
};

static inline void plans_add(struct plans *p, const char *text)
{
	int n = snprintf(p->text + p->len, sizeof(p->text) - p->len, "%s\n",
			 text);

	if (n > 0 && (size_t)n < sizeof(p->text) - p->len)
		p->len += (size_t)n;
	p->nplans++;
}

static inline int trace_sql(unsigned int type, void *arg, void *stmt, void *x)
{
	struct plans *p = arg;
	const char *sql = sqlite3_sql(stmt);
	size_t i;

	(void)type;
	(void)x;
	if (sql == NULL)
		return 0;
	for (i = 0; i < p->nsql; i++) {
		if (strncmp(p->sql[i], sql, sizeof(p->sql[i]) - 1) == 0)
			return 0;
	}
	if (p->nsql < sizeof(p->sql) / sizeof(p->sql[0]))
		snprintf(p->sql[p->nsql++], sizeof(p->sql[0]), "%s", sql);
	return 0;
}

/* The names of the statements prepared on @pg, comma separated. */
static inline void pg_prepared_names(PGconn *pg, char *out, size_t cap)
{
	PGresult *res = PQexec(pg, "SELECT string_agg(name, ',') "
				   "FROM pg_prepared_statements");

	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	snprintf(out, cap, ",%s,", PQgetvalue(res, 0, 0));
	PQclear(res);
}

static inline void pg_run(PGconn *pg, const char *sql)
{
	PGresult *res = PQexec(pg, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(pg));
	PQclear(res);
}

/*
 * EXPLAIN EXECUTE of every statement prepared on @pg but not in @before,
 * as generic plans; @seqscan_off: with sequential scans off.
 */
static inline void pg_explain(PGconn *pg, const char *before, int seqscan_off,
			      struct plans *p)
{
	PGresult *res, *plan;
	char q[2048], key[128], line[512];
	int i, k, r, nparams;
	size_t len;

	pg_run(pg, "SET plan_cache_mode = force_generic_plan");
	if (seqscan_off)
		pg_run(pg, "SET enable_seqscan = off");
	res = PQexec(pg, "SELECT name, cardinality(parameter_types), "
			 "left(statement, 48) FROM pg_prepared_statements");
	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	for (i = 0; i < PQntuples(res); i++) {
		snprintf(key, sizeof(key), ",%s,", PQgetvalue(res, i, 0));
		if (strstr(before, key) != NULL)
			continue;
		nparams = atoi(PQgetvalue(res, i, 1));
		len = (size_t)snprintf(q, sizeof(q), "EXPLAIN EXECUTE %s",
				       PQgetvalue(res, i, 0));
		for (k = 0; k < nparams && len < sizeof(q) - 8; k++)
			len += (size_t)snprintf(q + len, sizeof(q) - len,
						"%sNULL", k > 0 ? "," : "(");
		if (nparams > 0)
			snprintf(q + len, sizeof(q) - len, ")");
		plan = PQexec(pg, q);
		if (PQresultStatus(plan) != PGRES_TUPLES_OK)
			fail_msg("%s: %s", q, PQerrorMessage(pg));
		for (r = 0; r < PQntuples(plan); r++) {
			snprintf(line, sizeof(line), "%s | %s",
				 PQgetvalue(res, i, 2), PQgetvalue(plan, r, 0));
			plans_add(p, line);
		}
		PQclear(plan);
	}
	PQclear(res);
	pg_run(pg, "RESET enable_seqscan");
	pg_run(pg, "RESET plan_cache_mode");
}

/* EXPLAIN QUERY PLAN of every statement text traced, into @p->text. */
static inline void sqlite_explain(struct tdb *t, struct plans *p)
{
	char q[4200], line[512];
	sqlite3_stmt *st;
	size_t i;

	for (i = 0; i < p->nsql; i++) {
		snprintf(q, sizeof(q), "EXPLAIN QUERY PLAN %s", p->sql[i]);
		if (sqlite3_prepare_v2(db_sqlite_handle(t->db), q, -1, &st,
				       NULL) != SQLITE_OK)
			fail_msg("%s: %s", q,
				 sqlite3_errmsg(db_sqlite_handle(t->db)));
		while (sqlite3_step(st) == SQLITE_ROW) {
			/* the statement's start names it well enough */
			snprintf(line, sizeof(line), "%.48s | %s", p->sql[i],
				 (const char *)sqlite3_column_text(st, 3));
			plans_add(p, line);
		}
		sqlite3_finalize(st);
	}
}

/* Fail on the first plan line that reads a whole table or runs a
 * subquery per row. A multi-row VALUES list is SQLite's "SCAN n CONSTANT
 * ROWS": no table. */
static inline void assert_plans_use_keys(const char *text)
{
	static const char *const bad[] = {
		"Seq Scan",
		"SubPlan",
		"| SCAN ",
		"CORRELATED",
	};
	const char *line = text, *end;
	char one[512];
	size_t i;

	for (; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		snprintf(one, sizeof(one), "%.*s", (int)(end - line), line);
		if (strstr(one, "CONSTANT ROW") != NULL)
			continue;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (strstr(one, bad[i]) != NULL)
				fail_msg("plan: %s\n(all plans:\n%s)", one,
					 text);
		}
		/* SQLite's SEARCH without an index walks the table's rowids
		 * (max() of a column with no index on the WHERE) */
		if (strstr(one, "| SEARCH ") != NULL &&
		    strstr(one, " USING ") == NULL)
			fail_msg("plan: %s\n(all plans:\n%s)", one, text);
	}
}

#endif /* IMATRUST_TEST_DB_PLAN_H */
