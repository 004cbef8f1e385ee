/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_test.h - temporary databases and small fixtures for the db tests.
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
/* The tests inspect and damage the file with SQLite itself. */
#include "db_sqlite.h"

#define T_NOW 1700000000	/* a fixed "now" for every test */

struct tdb {
	char path[512];
	struct db *db;
};

/* Make a fresh file in $TMPDIR (SQLite takes an empty file as a new db). */
static inline void tdb_path(struct tdb *t)
{
	const char *dir = getenv("TMPDIR");
	int fd;

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
	unlink(t->path);
	snprintf(side, sizeof(side), "%s-wal", t->path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", t->path);
	unlink(side);
}

/* One integer from a query on the handle's own connection. */
static inline int64_t tdb_int(struct tdb *t, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db_sqlite_handle(t->db), sql, -1,
					    &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
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
		.ek_pub = ek, .ek_pub_len = sizeof(ek),
		.ek_fpr = fpr, .activated = 1,
		.ak_pub = ak, .ak_pub_len = sizeof(ak),
		.ak_name = name, .ak_name_len = sizeof(name),
		.state = state,
	};
	struct imt_error err;

	test_fpr_of(id, fpr);
	if (db_machine_create(t->db, &m, T_NOW, &err) < 0)
		fail_msg("db_machine_create %s: %s", id, err.msg);
}

#endif /* IMATRUST_TEST_DB_H */
