// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_stmt.c - helpers shared by the db/ modules on top of db_sql.h: error
 * reports, statements run for their effect or existence, argument checks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db_internal.h"
#include "hash_algo.h"

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

int db_err(struct imt_error *err, enum imt_result status, const char *fmt, ...)
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

int db_step_done(struct db *db, struct db_stmt *st, struct imt_error *err,
		 const char *what)
{
	if (db_step(st) == DB_ERROR) {
		/* Report before reset (db_sql.h). */
		db_fail(db, err, what);
		db_reset(st);
		return -1;
	}
	db_reset(st);
	return 0;
}

int db_step_exists(struct db *db, struct db_stmt *st, struct imt_error *err,
		   const char *what)
{
	enum db_step_result step = db_step(st);
	int rc = step == DB_ROW;

	if (step == DB_ERROR)
		rc = db_fail(db, err, what); /* before the reset (db_sql.h) */
	db_reset(st);
	return rc;
}

int db_text_exists(struct db *db, const char *sql, const char *key,
		   const char *what, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, key);
	return db_step_exists(db, st, err, what);
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
