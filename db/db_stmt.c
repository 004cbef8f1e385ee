// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_stmt.c - SQLite plumbing shared by the db/ modules: the per-connection
 * prepared-statement cache, error reports, argument checks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db_internal.h"
#include "hash_algo.h"

sqlite3_stmt *db_stmt(struct db *db, const char *sql, struct imt_error *err)
{
	struct db_stmt_slot *slot;
	size_t i;

	for (i = 0; i < db->nstmts; i++) {
		slot = &db->stmts[i];
		if (slot->sql == sql) {
			sqlite3_reset(slot->stmt);
			sqlite3_clear_bindings(slot->stmt);
			return slot->stmt;
		}
	}
	if (db->nstmts == DB_STMT_CACHE_MAX) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "statement cache full (%d)", DB_STMT_CACHE_MAX);
		return NULL;
	}
	slot = &db->stmts[db->nstmts];
	/* Persistent: the statement lives as long as the connection. */
	if (sqlite3_prepare_v3(db->sql, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &slot->stmt, NULL) != SQLITE_OK) {
		db_fail(db, err, "prepare");
		return NULL;
	}
	slot->sql = sql;
	db->nstmts++;
	return slot->stmt;
}

/* Which imt_result a failed SQLite call becomes, by extended code. */
static enum imt_result db_status(int code)
{
	switch (code) {
	case SQLITE_CONSTRAINT_UNIQUE:
	case SQLITE_CONSTRAINT_PRIMARYKEY:
	case SQLITE_CONSTRAINT_FOREIGNKEY:
		return IMT_ERR_MISMATCH;
	case SQLITE_CONSTRAINT_CHECK:
	case SQLITE_CONSTRAINT_NOTNULL:
	case SQLITE_CONSTRAINT_DATATYPE:
		return IMT_ERR_MALFORMED;
	case SQLITE_TOOBIG:
		return IMT_ERR_LIMIT;
	default:
		return IMT_ERR_INTERNAL;
	}
}

int db_fail(struct db *db, struct imt_error *err, const char *what)
{
	int code = sqlite3_extended_errcode(db->sql);

	imt_error_set(err, db_status(code), IMT_NO_POS, IMT_NO_POS,
		      "%s: %s", what, sqlite3_errmsg(db->sql));
	return -1;
}

static void db_verr(struct imt_error *err, enum imt_result status,
		    const char *fmt, va_list ap)
{
	if (err == NULL)
		return;
	err->status = status;
	err->record = IMT_NO_POS;
	err->offset = IMT_NO_POS;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
}

int db_err(struct imt_error *err, enum imt_result status, const char *fmt,
	   ...)
{
	va_list ap;

	va_start(ap, fmt);
	db_verr(err, status, fmt, ap);
	va_end(ap);
	return -1;
}

int db_bad(struct imt_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	db_verr(err, IMT_ERR_MALFORMED, fmt, ap);
	va_end(ap);
	return -1;
}

int db_step_done(struct db *db, sqlite3_stmt *st, struct imt_error *err,
		 const char *what)
{
	int rc = sqlite3_step(st);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		/* Report before reset: the reset keeps the error code. */
		db_fail(db, err, what);
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);
	return 0;
}

int db_text_exists(struct db *db, const char *sql, const char *key,
		   const char *what, struct imt_error *err)
{
	sqlite3_stmt *st = db_stmt(db, sql, err);
	int step;

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	step = sqlite3_step(st);
	sqlite3_reset(st);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return db_fail(db, err, what);
	return step == SQLITE_ROW;
}

int db_check_str(const char *s, size_t max, const char *what,
		 struct imt_error *err)
{
	size_t len;

	if (s == NULL)
		return db_bad(err, "%s missing", what);
	len = strnlen(s, max + 1);
	if (len == 0)
		return db_bad(err, "%s empty", what);
	if (len > max) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "%s longer than %zu bytes", what, max);
		return -1;
	}
	return 0;
}

int db_check_blob(const uint8_t *p, size_t len, size_t min, size_t max,
		  const char *what, struct imt_error *err)
{
	if (p == NULL || len == 0)
		return db_bad(err, "%s missing", what);
	if (len < min)
		return db_bad(err, "%s shorter than %zu bytes", what, min);
	if (len > max) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "%s longer than %zu bytes", what, max);
		return -1;
	}
	return 0;
}

int db_check_id(const char *machine_id, struct imt_error *err)
{
	return db_check_str(machine_id, DB_MACHINE_ID_MAX, "machine id", err);
}

int db_check_digest(const char *algo, const uint8_t *digest, size_t len,
		    struct imt_error *err)
{
	const struct hash_algo *h;

	if (algo == NULL)
		return db_bad(err, "digest algorithm missing");
	h = hash_algo_by_name(algo, strnlen(algo, 32));
	if (h == NULL)
		return db_bad(err, "unknown digest algorithm \"%.32s\"", algo);
	if (digest == NULL)
		return db_bad(err, "digest missing");
	if (len != h->size)
		return db_bad(err, "%s digest of %zu bytes, expected %zu",
			      h->name, len, h->size);
	return 0;
}

int db_check_limit(unsigned int limit, struct imt_error *err)
{
	if (limit == 0 || limit > DB_LIST_MAX)
		return db_bad(err, "list limit %u not in 1..%d", limit,
			      DB_LIST_MAX);
	return 0;
}

void db_hook(struct db *db, const char *point)
{
	if (db->hook != NULL)
		db->hook(point, db->hook_arg);
}

void db_set_hook(struct db *db, db_hook_fn fn, void *arg)
{
	db->hook = fn;
	db->hook_arg = arg;
}
