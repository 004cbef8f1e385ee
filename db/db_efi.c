// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_efi.c - EFI application digests: sources of kind 'efi' and their
 * efi_digests rows (0008_efi.sql).
 */
#include <stdio.h>
#include <string.h>

#include "db_efi.h"
#include "db_internal.h"
#include "hash_algo.h"

static const char sql_efi_source[] =
	"INSERT INTO sources (kind, name, imported_at) VALUES ('efi', ?1, ?2) "
	"ON CONFLICT (kind, name) DO UPDATE SET kind = sources.kind "
	"RETURNING id";
static const struct db_sql sql_efi_version = {
	.sqlite = "UPDATE sources SET version = ?2 WHERE id = ?1 "
		  "AND version IS NOT ?2",
	.pg = "UPDATE sources SET version = ?2 WHERE id = ?1 "
	      "AND version IS DISTINCT FROM ?2",
};
static const char sql_efi_insert[] =
	"INSERT INTO efi_digests (source_id, algo, digest, file_name) "
	"VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING";
static const char sql_efi_find[] =
	"SELECT s.name, coalesce(s.version, ''), e.file_name "
	"FROM efi_digests e JOIN sources s ON s.id = e.source_id "
	"WHERE e.algo = ?1 AND e.digest = ?2 ORDER BY s.id LIMIT 1";

static int check_entry(const struct db_efi_entry *e, struct imt_error *err)
{
	if (e->file_name == NULL || e->file_name[0] == 0 ||
	    strlen(e->file_name) > DB_NAME_MAX)
		return db_bad(err, "EFI file name of 1 to %d bytes required",
			      DB_NAME_MAX);
	if (e->algo == NULL || e->digest == NULL || e->digest_len == 0 ||
	    e->digest_len > HASH_ALGO_MAX_SIZE)
		return db_bad(err, "%s: no digest", e->file_name);
	return 0;
}

/* The source's id, created if new, inside the caller's transaction. */
static int efi_source(struct db *db, const char *name, const char *version,
		      int64_t now, int64_t *id, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_efi_source, err);
	int rc;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int64(st, 2, now);
	rc = db_step(st);
	if (rc == DB_ROW)
		*id = db_col_int64(st, 0);
	db_reset(st);
	if (rc != DB_ROW)
		return db_fail(db, err, "efi source");
	if (version == NULL)
		return 0;
	st = db_stmt_sql(db, &sql_efi_version, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, *id);
	db_bind_text(st, 2, version);
	rc = db_step(st);
	db_reset(st);
	return rc == DB_DONE ? 0 : db_fail(db, err, "efi version");
}

static int efi_insert(struct db *db, int64_t id, const struct db_efi_entry *e,
		      size_t *added, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_efi_insert, err);
	int rc;

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, id);
	db_bind_text(st, 2, e->algo);
	db_bind_blob(st, 3, e->digest, e->digest_len);
	db_bind_text(st, 4, e->file_name);
	rc = db_step(st);
	db_reset(st);
	if (rc != DB_DONE)
		return db_fail(db, err, "efi digest");
	*added += (size_t)db_changes(db);
	return 0;
}

int db_efi_import(struct db *db, const char *name, const char *version,
		  const struct db_efi_entry *entries, size_t n, int64_t now,
		  size_t *added, struct imt_error *err)
{
	int64_t id = 0;
	size_t i;

	*added = 0;
	if (name == NULL || name[0] == 0 || strlen(name) > DB_NAME_MAX)
		return db_bad(err, "source name of 1 to %d bytes required",
			      DB_NAME_MAX);
	if (version != NULL && strlen(version) > DB_NAME_MAX)
		return db_bad(err, "version longer than %d bytes", DB_NAME_MAX);
	for (i = 0; i < n; i++)
		if (check_entry(&entries[i], err) < 0)
			return -1;
	if (db_begin(db, err) < 0)
		return -1;
	if (efi_source(db, name, version, now, &id, err) < 0)
		goto fail;
	for (i = 0; i < n; i++)
		if (efi_insert(db, id, &entries[i], added, err) < 0)
			goto fail;
	return db_commit(db, err);
fail:
	db_rollback(db);
	*added = 0;
	return -1;
}

static void copy_text(char *dst, struct db_stmt *st, int col)
{
	const char *t = db_col_text(st, col);

	snprintf(dst, DB_NAME_MAX + 1, "%s", t ? t : "");
}

int db_efi_find(struct db *db, const char *algo, const uint8_t *digest,
		size_t len, struct db_efi_hit *hit, struct imt_error *err)
{
	struct db_stmt *st;
	int rc;

	if (algo == NULL || digest == NULL || len == 0 ||
	    len > HASH_ALGO_MAX_SIZE)
		return db_bad(err, "algorithm and digest required");
	st = db_stmt(db, sql_efi_find, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, algo);
	db_bind_blob(st, 2, digest, len);
	rc = db_step(st);
	if (rc == DB_ROW) {
		copy_text(hit->source, st, 0);
		copy_text(hit->version, st, 1);
		copy_text(hit->file_name, st, 2);
	}
	db_reset(st);
	if (rc == DB_ROW)
		return 1;
	return rc == DB_DONE ? 0 : db_fail(db, err, "efi lookup");
}
