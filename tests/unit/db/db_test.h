/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_test.h - temporary databases and small fixtures for the db tests.
 *
 * With IMATRUST_TEST_PG_URI set (tests/unit/db/run-pg.sh sets it) every
 * "new" database is that PostgreSQL database with its schema emptied, so
 * each test starts from nothing as with a fresh SQLite file; tests that
 * work on the SQLite file itself skip there (tdb_sqlite_only()).
 */
#ifndef IMATRUST_TEST_DB_H
#define IMATRUST_TEST_DB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "db.h"
#include "db_internal.h"
#include "db_machine.h"
#include "db_nonce.h"
/* The tests inspect and damage the database with the engine itself. */
#include "db_pg.h"
#include "db_sqlite.h"

#define T_NOW 1700000000 /* a fixed "now" for every test */

struct tdb {
	char path[512];
	struct db *db;
};

/* The PostgreSQL database the tests run against, or NULL: SQLite. */
static inline const char *tdb_pg_uri(void)
{
	const char *uri = getenv("IMATRUST_TEST_PG_URI");

	return uri != NULL && uri[0] != '\0' ? uri : NULL;
}

/*
 * A test that applies to one backend only (an SQLite file at an old
 * schema, PostgreSQL's leader election) is registered for that backend
 * alone, never skipped: a skip fails the suite in CI (tests/run-suite.sh).
 * tdb_run() runs the tests every backend runs, then the backend's own.
 */
#define tdb_run(common, sqlite_tests) \
	(cmocka_run_group_tests_name("all backends", common, NULL, NULL) | \
	 (tdb_pg_uri() == NULL ? \
		  cmocka_run_group_tests_name("SQLite", sqlite_tests, NULL, \
					      NULL) : \
		  0))
#define tdb_run3(common, sqlite_tests, pg_tests) \
	(cmocka_run_group_tests_name("all backends", common, NULL, NULL) | \
	 (tdb_pg_uri() == NULL ? \
		  cmocka_run_group_tests_name("SQLite", sqlite_tests, NULL, \
					      NULL) : \
		  cmocka_run_group_tests_name("PostgreSQL", pg_tests, NULL, \
					      NULL)))

/* Empty the PostgreSQL test database: a new database for db_open(). */
static inline void tdb_pg_reset(const char *uri)
{
	PGconn *pg = PQconnectdb(uri);
	PGresult *res;

	if (PQstatus(pg) != CONNECTION_OK)
		fail_msg("%s: %s", uri, PQerrorMessage(pg));
	res = PQexec(pg, "SET client_min_messages = warning;"
			 "DROP SCHEMA public CASCADE; CREATE SCHEMA public");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("reset %s: %s", uri, PQerrorMessage(pg));
	PQclear(res);
	PQfinish(pg);
}

/* Make a fresh file in $TMPDIR (SQLite takes an empty file as a new db). */
static inline void tdb_path(struct tdb *t)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (tdb_pg_uri() != NULL) {
		snprintf(t->path, sizeof(t->path), "%s", tdb_pg_uri());
		tdb_pg_reset(t->path);
		return;
	}
	snprintf(t->path, sizeof(t->path), "%s/imatrust-db-XXXXXX",
		 dir && dir[0] ? dir : "/tmp");
	fd = mkstemp(t->path);
	assert_true(fd >= 0);
	close(fd);
}

static inline void tdb_open(struct tdb *t)
{
	struct imt_error err;

	if (db_open(t->path, &t->db, &err) < 0)
		fail_msg("db_open %s: %s", t->path, err.msg);
}

static inline void tdb_new(struct tdb *t)
{
	tdb_path(t);
	tdb_open(t);
}

/* A second connection to @t's database: another verifier instance, or
 * the command line; db_close() it. */
static inline struct db *tdb_other(struct tdb *t)
{
	struct imt_error err;
	struct db *db;

	if (db_open(t->path, &db, &err) < 0)
		fail_msg("db_open %s: %s", t->path, err.msg);
	return db;
}

static inline void tdb_close(struct tdb *t)
{
	db_close(t->db);
	t->db = NULL;
}

/* Close and remove the database with its -wal and -shm files. */
static inline void tdb_remove(struct tdb *t)
{
	char side[600];

	tdb_close(t);
	if (tdb_pg_uri() != NULL)
		return; /* emptied by the next tdb_path() */
	unlink(t->path);
	snprintf(side, sizeof(side), "%s-wal", t->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", t->path);
	unlink(side);
}

/*
 * A query on PostgreSQL, with one optional integer parameter ($1), its
 * result in binary (@binary) or text. SQLite's user_version is
 * schema_version's version there.
 */
static inline PGresult *tdb_pg_query(struct tdb *t, const char *sql,
				     const int64_t *param, int binary)
{
	PGconn *pg = db_pg_handle(t->db);
	char num[24], text[1024], *q;
	const char *values[1] = { num };
	PGresult *res;

	if (strcmp(sql, "PRAGMA user_version") == 0)
		sql = "SELECT version FROM schema_version";
	/* ?1 is $1 there */
	snprintf(text, sizeof(text), "%s", sql);
	for (q = strstr(text, "?1"); q != NULL; q = strstr(q, "?1"))
		*q = '$';
	sql = text;
	if (param != NULL)
		snprintf(num, sizeof(num), "%lld", (long long)*param);
	res = PQexecParams(pg, sql, param != NULL, NULL, values, NULL, NULL,
			   binary);
	if (PQresultStatus(res) != PGRES_TUPLES_OK &&
	    PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(pg));
	return res;
}

/* Column @col of the one row of @sql (with ?1 = *@param, if given). */
static inline int64_t tdb_int_col(struct tdb *t, const char *sql,
				  const int64_t *param, int col)
{
	sqlite3_stmt *st;
	int64_t v;

	if (tdb_pg_uri() != NULL) {
		PGresult *res = tdb_pg_query(t, sql, param, 0);
		const char *s;

		assert_int_equal(PQntuples(res), 1);
		s = PQgetvalue(res, 0, col);
		v = s[0] == 't' ? 1 : s[0] == 'f' ? 0 : strtoll(s, NULL, 10);
		PQclear(res);
		return v;
	}
	assert_int_equal(sqlite3_prepare_v2(db_sqlite_handle(t->db), sql, -1,
					    &st, NULL),
			 SQLITE_OK);
	if (param != NULL)
		sqlite3_bind_int64(st, 1, *param);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, col);
	sqlite3_finalize(st);
	return v;
}

/* One integer from a query on the handle's own connection. */
static inline int64_t tdb_int(struct tdb *t, const char *sql)
{
	return tdb_int_col(t, sql, NULL, 0);
}

/* How many records are stored: each chunk row holds a letter per record. */
#define TDB_RECORDS \
	"SELECT coalesce(sum(length(verdicts)), 0) FROM record_chunks"

/* tdb_int() of a query written for each engine. */
static inline int64_t tdb_int2(struct tdb *t, const char *sqlite_sql,
			       const char *pg_sql)
{
	return tdb_int(t, tdb_pg_uri() != NULL ? pg_sql : sqlite_sql);
}

/* Run @sql for its effect on the handle's own connection. */
static inline void tdb_exec(struct tdb *t, const char *sql)
{
	if (tdb_pg_uri() != NULL) {
		PQclear(tdb_pg_query(t, sql, NULL, 0));
		return;
	}
	assert_int_equal(sqlite3_exec(db_sqlite_handle(t->db), sql, NULL, NULL,
				      NULL),
			 SQLITE_OK);
}

/* The blob in the one row of @sql, copied into @buf; its length. */
static inline size_t tdb_blob(struct tdb *t, const char *sql, void *buf,
			      size_t cap)
{
	sqlite3_stmt *st;
	size_t n;

	if (tdb_pg_uri() != NULL) {
		PGresult *res = tdb_pg_query(t, sql, NULL, 1);

		assert_int_equal(PQntuples(res), 1);
		n = (size_t)PQgetlength(res, 0, 0);
		assert_true(n <= cap);
		memcpy(buf, PQgetvalue(res, 0, 0), n);
		PQclear(res);
		return n;
	}
	assert_int_equal(sqlite3_prepare_v2(db_sqlite_handle(t->db), sql, -1,
					    &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = (size_t)sqlite3_column_bytes(st, 0);
	assert_true(n <= cap);
	memcpy(buf, sqlite3_column_blob(st, 0), n);
	sqlite3_finalize(st);
	return n;
}

/*
 * @json without the blanks outside its strings: SQLite's json_object()
 * writes none, PostgreSQL's json_build_object() and jsonb some. In one of
 * four static buffers (enough for the arguments of one assertion).
 */
static inline const char *tdb_json(const char *json)
{
	static char bufs[4][4096];
	static int next;
	char *out = bufs[next++ % 4];
	int in_str = 0;
	size_t i, n = 0;

	if (json == NULL)
		return NULL;
	for (i = 0; json[i] != '\0' && n + 1 < sizeof(bufs[0]); i++) {
		if (in_str && json[i] == '\\' && json[i + 1] != '\0') {
			out[n++] = json[i++];
		} else if (json[i] == '"') {
			in_str = !in_str;
		} else if (!in_str && (json[i] == ' ' || json[i] == '\n')) {
			continue;
		}
		out[n++] = json[i];
	}
	out[n] = '\0';
	return out;
}

/* A made-up EK fingerprint of machine @id: one EK per id. */
static inline void test_fpr_of(const char *id, uint8_t fpr[DB_FPR_SIZE])
{
	size_t i, n = strlen(id);

	for (i = 0; i < DB_FPR_SIZE; i++)
		fpr[i] = i < n ? (uint8_t)id[i] : (uint8_t)(0xf0 + (i & 0xf));
}

static inline void tdb_machine(struct tdb *t, const char *id,
			       enum db_machine_state state)
{
	static const uint8_t ek[] = { 0x00, 0x01, 0xde, 0xad };
	static const uint8_t ak[] = { 0x00, 0x01, 0xbe, 0xef };
	static const uint8_t name[] = { 0x00, 0x0b, 1, 2, 3 };
	uint8_t fpr[DB_FPR_SIZE];
	struct db_machine_new m = {
		.id = id,
		.ek_pub = ek,
		.ek_pub_len = sizeof(ek),
		.ek_fpr = fpr,
		.activated = 1,
		.ak_pub = ak,
		.ak_pub_len = sizeof(ak),
		.ak_name = name,
		.ak_name_len = sizeof(name),
		.state = state,
	};
	struct imt_error err;

	test_fpr_of(id, fpr);
	if (db_machine_create(t->db, &m, T_NOW, &err) < 0)
		fail_msg("db_machine_create %s: %s", id, err.msg);
}

/*
 * A heartbeat's nonce: db_nonce_renew() of @n (32 bytes) to the @i-th
 * next value, valid until T_NOW + 60, which @n becomes.
 */
static inline void tdb_nonce_next(struct tdb *t, const char *id, uint8_t n[32],
				  uint32_t i)
{
	enum db_nonce_result res;
	struct imt_error err;
	uint8_t next[32] = { 0 };

	memcpy(next, &i, sizeof(i));
	next[31] = 1;
	if (db_nonce_renew(t->db, id, n, 32, T_NOW,
			   &(struct db_nonce_next){ next, 32, T_NOW + 60, 0 },
			   &res, &err) < 0)
		fail_msg("db_nonce_renew: %s", err.msg);
	assert_int_equal(res, DB_NONCE_OK);
	memcpy(n, next, 32);
}

#endif /* IMATRUST_TEST_DB_H */
