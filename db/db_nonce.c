// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_nonce.c - quote nonces: issued to one machine, valid until they
 * expire, usable once.
 */
#include <string.h>

#include "db_internal.h"
#include "db_nonce.h"

static const char *const nonce_results[] = {
	[DB_NONCE_OK] = "ok",
	[DB_NONCE_UNKNOWN] = "unknown nonce",
	[DB_NONCE_USED] = "nonce already used",
	[DB_NONCE_EXPIRED] = "nonce expired",
};

const char *db_nonce_result_name(enum db_nonce_result r)
{
	if ((size_t)r >= sizeof(nonce_results) / sizeof(nonce_results[0]))
		return "invalid";
	return nonce_results[r];
}

/*
 * One outstanding nonce per machine (0003), the machine's row (0015): a
 * new one replaces the old. This call takes no savepoint in a batch:
 * where SQLite undoes just the statement that fails, PostgreSQL aborts
 * the batch's transaction. So there the statement does not fail for a
 * missing machine: it inserts nothing (db_changes() 0), which reports
 * the same MISMATCH.
 */
#define SQL_NONCE_UPSERT \
	" ON CONFLICT (machine_id) DO UPDATE SET " \
	"value = excluded.value, expires_at = excluded.expires_at, used = 0 " \
	"WHERE nonces.value != excluded.value"
static const struct db_sql sql_nonce_insert = {
	.sqlite = "INSERT INTO nonces (value, machine_id, expires_at) "
		  "VALUES (?1, ?2, ?3)" SQL_NONCE_UPSERT,
	.pg = "INSERT INTO nonces (value, machine_id, expires_at) "
	      "SELECT ?1::bytea, ?2::text, ?3::bigint "
	      "WHERE EXISTS (SELECT 1 FROM machines WHERE id = ?2)" SQL_NONCE_UPSERT,
};
static const char sql_nonce_outstanding[] =
	"SELECT value, expires_at FROM nonces WHERE machine_id = ?1 "
	"AND used = 0 AND ?2 < expires_at";

int db_nonce_issue(struct db *db, const char *machine_id, const uint8_t *value,
		   size_t len, int64_t expires_at, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_id(machine_id, err) < 0 ||
	    db_check_blob(value, len, DB_NONCE_MIN, DB_NONCE_MAX, "nonce",
			  err) < 0)
		return -1;
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	st = db_stmt_sql(db, &sql_nonce_insert, err);
	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, value, len);
	db_bind_text(st, 2, machine_id);
	db_bind_int64(st, 3, expires_at);
	/* One statement: atomic without an explicit transaction. */
	if (db_step_done(db, st, err, "nonce") < 0 || db_changes(db) != 1) {
		if (err != NULL &&
		    (err->status == IMT_ERR_MISMATCH || db_changes(db) != 1))
			db_err(err, IMT_ERR_MISMATCH,
			       "no machine %s, or "
			       "that nonce is outstanding already",
			       machine_id);
		return -1;
	}
	return 0;
}

int db_nonce_columns(struct db_stmt *st, int col, uint8_t *value, size_t *len,
		     int64_t *expires_at)
{
	int n = db_col_bytes(st, col);

	if (n < DB_NONCE_MIN || n > DB_NONCE_MAX)
		return 1; /* no nonce db_nonce_issue() wrote */
	memcpy(value, db_col_blob(st, col), (size_t)n);
	*len = (size_t)n;
	*expires_at = db_col_int64(st, col + 1);
	return 0;
}

int db_nonce_outstanding(struct db *db, const char *machine_id, int64_t now,
			 uint8_t *value, size_t *len, int64_t *expires_at,
			 int *found, struct imt_error *err)
{
	struct db_stmt *st;
	int step, rc = -1;

	if (db == NULL || found == NULL || len == NULL)
		return db_bad(err, "no database or result");
	*found = 0;
	if (db_check_id(machine_id, err) < 0)
		return -1;
	st = db_stmt(db, sql_nonce_outstanding, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, machine_id);
	db_bind_int64(st, 2, now);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
	} else if (step != DB_ROW) {
		db_fail(db, err, "nonce");
	} else {
		*found = db_nonce_columns(st, 0, value, len, expires_at) == 0;
		rc = 0;
	}
	db_reset(st);
	return rc;
}

/*
 * Only when the renewal (below) changed nothing do we read the row to
 * say why. Another machine's nonce is unknown to this one: no index
 * finds a nonce by its value (0015), and none is needed to refuse it.
 */
static const char sql_nonce_why[] =
	"SELECT value = ?1, used, ?3 < expires_at FROM nonces "
	"WHERE machine_id = ?2";

static int nonce_why(struct db *db, struct db_stmt *st,
		     enum db_nonce_result *res, struct imt_error *err)
{
	int step = db_step(st);

	if (step == DB_DONE)
		*res = DB_NONCE_UNKNOWN;
	else if (step != DB_ROW)
		return db_fail(db, err, "nonce");
	else if (!db_col_int(st, 0))
		*res = DB_NONCE_UNKNOWN;
	else if (db_col_int(st, 1))
		*res = DB_NONCE_USED;
	else if (!db_col_int(st, 2))
		*res = DB_NONCE_EXPIRED;
	else
		return db_err(err, IMT_ERR_INTERNAL,
			      "nonce neither usable "
			      "nor refused");
	return 0;
}

/* Why the renewal of @value changed no row. */
static int nonce_refused(struct db *db, const char *machine_id,
			 const uint8_t *value, size_t len, int64_t now,
			 enum db_nonce_result *res, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_nonce_why, err);
	int rc;

	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, value, len);
	db_bind_text(st, 2, machine_id);
	db_bind_int64(st, 3, now);
	rc = nonce_why(db, st, res, err);
	db_reset(st);
	return rc;
}

/*
 * The use of a nonce and the next one in one row write: one UPDATE whose
 * WHERE states every condition of the use, so "check then mark" cannot
 * race with another evidence; the SET is the issue's (used stays 0: the
 * new value is unused). The row is the machine's, found by its key, and
 * no index holds what the SET changes: the write is one page (0015).
 */
static const char sql_nonce_renew[] =
	"UPDATE nonces SET value = ?4, expires_at = ?5, "
	"seen_at = coalesce(?6, seen_at) "
	"WHERE machine_id = ?2 AND value = ?1 AND used = 0 "
	"AND ?3 < expires_at";

int db_nonce_renew(struct db *db, const char *machine_id, const uint8_t *value,
		   size_t len, int64_t now, const struct db_nonce_next *nx,
		   enum db_nonce_result *res, struct imt_error *err)
{
	const uint8_t *next = nx != NULL ? nx->value : NULL;
	size_t next_len = nx != NULL ? nx->len : 0;
	struct db_stmt *st;

	if (db == NULL || res == NULL || nx == NULL)
		return db_bad(err, "no database, next nonce or result");
	if (db_check_id(machine_id, err) < 0 ||
	    db_check_blob(value, len, DB_NONCE_MIN, DB_NONCE_MAX, "nonce",
			  err) < 0 ||
	    db_check_blob(next, next_len, DB_NONCE_MIN, DB_NONCE_MAX,
			  "next nonce", err) < 0)
		return -1;
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	st = db_stmt(db, sql_nonce_renew, err);
	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, value, len);
	db_bind_text(st, 2, machine_id);
	db_bind_int64(st, 3, now);
	db_bind_blob(st, 4, next, next_len);
	db_bind_int64(st, 5, nx->expires);
	if (nx->seen_at != 0)
		db_bind_int64(st, 6, nx->seen_at);
	else
		db_bind_null(st, 6);
	if (db_step_done(db, st, err, "renew nonce") < 0)
		return -1;
	if (db_changes(db) == 1) {
		*res = DB_NONCE_OK;
		return 0;
	}
	return nonce_refused(db, machine_id, value, len, now, res, err);
}
