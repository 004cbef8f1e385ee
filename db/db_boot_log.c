// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_boot_log.c - the firmware event log of a boot (db_boot.h, schema 0007).
 *
 * Stored once per boot: the same bytes again change nothing, other bytes
 * are refused, since firmware measures a boot once.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "db_boot.h"
#include "db_internal.h"

static const char sql_log_get[] =
	"SELECT sha256, received_at, length(log), "
	"CASE WHEN ?2 THEN log END FROM boot_logs WHERE boot_id = ?1";
static const char sql_log_insert[] =
	"INSERT INTO boot_logs (boot_id, log, sha256, received_at) "
	"VALUES (?1, ?2, ?3, ?4)";

int db_log_columns(struct db_stmt *st, int sha_col, int len_col, int with_log,
		   uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE], size_t *len,
		   uint8_t **data, struct imt_error *err)
{
	int64_t n = db_col_int64(st, len_col);

	if (db_col_bytes(st, sha_col) != DB_BOOT_LOG_SHA256_SIZE || n < 0)
		return db_err(err, IMT_ERR_INTERNAL, "corrupt boot log row");
	memcpy(sha256, db_col_blob(st, sha_col), DB_BOOT_LOG_SHA256_SIZE);
	*len = (size_t)n;
	if (!with_log)
		return 0;
	if (db_col_bytes(st, len_col + 1) != n)
		return db_err(err, IMT_ERR_INTERNAL, "corrupt boot log row");
	*data = malloc(*len > 0 ? *len : 1);
	if (*data == NULL)
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	memcpy(*data, db_col_blob(st, len_col + 1), *len);
	return 0;
}

/* Fill @out from the row; the bytes only when @with_log. */
static int log_from_row(struct db_stmt *st, int with_log,
			struct db_boot_log *out, struct imt_error *err)
{
	out->received_at = db_col_int64(st, 1);
	return db_log_columns(st, 0, 2, with_log, out->sha256, &out->len,
			      &out->data, err);
}

int db_boot_log_get(struct db *db, int64_t boot_id, int with_log,
		    struct db_boot_log *out, int *found, struct imt_error *err)
{
	struct db_stmt *st;
	int rc = -1, step;

	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	memset(out, 0, sizeof(*out));
	*found = 0;
	st = db_stmt(db, sql_log_get, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, boot_id);
	db_bind_int(st, 2, with_log != 0);
	step = db_step(st);
	if (step == DB_ROW) {
		if (log_from_row(st, with_log, out, err) < 0)
			goto out;
		*found = 1;
	} else if (step != DB_DONE) {
		db_fail(db, err, "boot log");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	if (rc < 0)
		db_boot_log_release(out);
	return rc;
}

void db_boot_log_release(struct db_boot_log *log)
{
	if (log == NULL)
		return;
	free(log->data);
	log->data = NULL;
}

int db_boot_log_sha256(const uint8_t *log, size_t len,
		       uint8_t out[DB_BOOT_LOG_SHA256_SIZE])
{
	unsigned int n = 0;

	if (!EVP_Digest(log, len, out, &n, EVP_sha256(), NULL) ||
	    n != DB_BOOT_LOG_SHA256_SIZE)
		return -1;
	return 0;
}

int db_boot_log_store(struct db *db, int64_t boot_id, const uint8_t *log,
		      size_t len, int64_t now, enum db_boot_log_result *res,
		      struct imt_error *err)
{
	uint8_t sha[DB_BOOT_LOG_SHA256_SIZE];
	struct db_boot_log cur;
	struct db_stmt *st;
	int found;

	if (db == NULL || res == NULL || (log == NULL && len > 0))
		return db_bad(err, "no database, result or log");
	if (len == 0 || len > DB_BOOT_LOG_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "boot log of %zu bytes: needs 1 to %u", len,
			      DB_BOOT_LOG_MAX);
	if (db_boot_log_sha256(log, len, sha) < 0)
		return db_err(err, IMT_ERR_INTERNAL, "sha256 unavailable");
	if (db_boot_log_get(db, boot_id, 0, &cur, &found, err) < 0)
		return -1;
	if (found) {
		*res = cur.len == len && memcmp(cur.sha256, sha, sizeof(sha)) ==
						 0 ?
			       DB_BOOT_LOG_SAME :
			       DB_BOOT_LOG_DIFFERENT;
		return 0;
	}
	st = db_stmt(db, sql_log_insert, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, boot_id);
	db_bind_blob(st, 2, log, len);
	db_bind_blob(st, 3, sha, sizeof(sha));
	db_bind_int64(st, 4, now);
	if (db_step_done(db, st, err, "boot log") < 0)
		return -1;
	*res = DB_BOOT_LOG_STORED;
	return 0;
}
