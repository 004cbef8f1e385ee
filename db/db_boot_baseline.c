// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_boot_baseline.c - a machine's boot baseline (db_boot.h, schema 0009): the
 * firmware event log its later boots are compared with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_boot.h"
#include "db_internal.h"

#define SQL_GET \
	"SELECT sha256, set_at, approved_by, approved_at, length(log), " \
	"CASE WHEN ?2 THEN log END FROM boot_baselines "
static const char sql_get[] = SQL_GET "WHERE machine_id = ?1";
static const char sql_get_of_boot[] = SQL_GET
	"WHERE machine_id = (SELECT machine_id FROM boots WHERE id = ?1)";
/* the first log only: a baseline taken on first use is never replaced */
static const char sql_keep[] =
	"INSERT INTO boot_baselines (machine_id, log, sha256, set_at) "
	"VALUES (?1, ?2, ?3, ?4) ON CONFLICT (machine_id) DO NOTHING";
static const char sql_approve[] =
	"INSERT INTO boot_baselines (machine_id, log, sha256, set_at, "
	"approved_by, approved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?4) "
	"ON CONFLICT (machine_id) DO UPDATE SET log = ?2, sha256 = ?3, "
	"set_at = ?4, approved_by = ?5, approved_at = ?4";

static int from_row(struct db_stmt *st, int with_log,
		    struct db_boot_baseline *out, struct imt_error *err)
{
	const char *by = db_col_text(st, 2);

	out->set_at = db_col_int64(st, 1);
	if (by != NULL)
		snprintf(out->approved_by, sizeof(out->approved_by), "%s", by);
	out->approved_at = db_col_int64(st, 3);
	return db_log_columns(st, 0, 4, with_log, out->sha256, &out->len,
			      &out->data, err);
}

/* The row of @sql, ?1 bound to @machine_id or, when NULL, @boot_id. */
static int get(struct db *db, const char *sql, const char *machine_id,
	       int64_t boot_id, int with_log, struct db_boot_baseline *out,
	       int *found, struct imt_error *err)
{
	struct db_stmt *st;
	int rc = -1, step;

	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	memset(out, 0, sizeof(*out));
	*found = 0;
	st = db_stmt(db, sql, err);
	if (st == NULL)
		return -1;
	if (machine_id != NULL)
		db_bind_text(st, 1, machine_id);
	else
		db_bind_int64(st, 1, boot_id);
	db_bind_int(st, 2, with_log != 0);
	step = db_step(st);
	if (step == DB_ROW) {
		if (from_row(st, with_log, out, err) < 0)
			goto out;
		*found = 1;
	} else if (step != DB_DONE) {
		db_fail(db, err, "boot baseline");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	if (rc < 0)
		db_boot_baseline_release(out);
	return rc;
}

int db_boot_baseline_get(struct db *db, const char *machine_id, int with_log,
			 struct db_boot_baseline *out, int *found,
			 struct imt_error *err)
{
	if (machine_id == NULL)
		return db_bad(err, "no machine");
	return get(db, sql_get, machine_id, 0, with_log, out, found, err);
}

int db_boot_baseline_of_boot(struct db *db, int64_t boot_id, int with_log,
			     struct db_boot_baseline *out, int *found,
			     struct imt_error *err)
{
	return get(db, sql_get_of_boot, NULL, boot_id, with_log, out, found,
		   err);
}

void db_boot_baseline_release(struct db_boot_baseline *b)
{
	if (b == NULL)
		return;
	free(b->data);
	b->data = NULL;
}

/* keep (@op_name NULL) or approve (@op_name set) @log for @machine_id */
static int write_baseline(struct db *db, const char *sql,
			  const char *machine_id, const uint8_t *log,
			  size_t len, const char *op_name, int64_t now,
			  struct imt_error *err)
{
	uint8_t sha[DB_BOOT_LOG_SHA256_SIZE];
	struct db_stmt *st;

	if (db == NULL || machine_id == NULL || log == NULL)
		return db_bad(err, "no database, machine or log");
	if (len == 0 || len > DB_BOOT_LOG_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "boot log of %zu bytes: needs 1 to %u", len,
			      DB_BOOT_LOG_MAX);
	if (db_boot_log_sha256(log, len, sha) < 0)
		return db_err(err, IMT_ERR_INTERNAL, "sha256 unavailable");
	st = db_stmt(db, sql, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, machine_id);
	db_bind_blob(st, 2, log, len);
	db_bind_blob(st, 3, sha, sizeof(sha));
	db_bind_int64(st, 4, now);
	if (op_name != NULL)
		db_bind_text(st, 5, op_name);
	return db_step_done(db, st, err, "boot baseline");
}

int db_boot_baseline_keep(struct db *db, const char *machine_id,
			  const uint8_t *log, size_t len, int64_t now,
			  struct imt_error *err)
{
	return write_baseline(db, sql_keep, machine_id, log, len, NULL, now,
			      err);
}

int db_boot_baseline_approve(struct db *db, const char *machine_id,
			     const uint8_t *log, size_t len,
			     const char *op_name, int64_t now,
			     struct imt_error *err)
{
	if (op_name == NULL)
		return db_bad(err, "no operator");
	return write_baseline(db, sql_approve, machine_id, log, len, op_name,
			      now, err);
}
