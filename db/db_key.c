// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_key.c - signature keys for IMA signatures: X.509 certificates with
 * the key id signatures name them by. A key added on its own is the
 * source "key:NAME" of policies; one that came with an import (inside
 * db_ref_import_begin()) belongs to that source and goes with it.
 */
#include <string.h>

#include "db_internal.h"
#include "db_key.h"

static const char sql_key_add[] =
	"INSERT INTO keys (name, keyid, fpr, subject, der, source_id, "
	"added_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
/* UNIQUE (fpr, source_id) does not hold for NULL source ids */
static const char sql_key_alone[] =
	"SELECT name FROM keys WHERE source_id IS NULL AND (fpr = ?1 "
	"OR name = ?2)";

static int key_taken(struct db *db, const struct db_key *k,
		     struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_key_alone, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, k->fpr, 32);
	db_bind_text(st, 2, k->name);
	step = db_step(st);
	if (step == DB_ROW)
		db_err(err, IMT_ERR_MISMATCH, "key %s is there already",
		       db_col_text(st, 0));
	db_reset(st);
	if (step == DB_ROW)
		return -1;
	return step == DB_DONE ? 0 : db_fail(db, err, "key");
}

static int key_insert(struct db *db, const struct db_key *k, int64_t now,
		      struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_key_add, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, k->name);
	db_bind_blob(st, 2, k->keyid, 4);
	db_bind_blob(st, 3, k->fpr, 32);
	db_bind_text(st, 4, k->subject);
	db_bind_blob(st, 5, k->der, k->der_len);
	if (db->import_open)
		db_bind_int64(st, 6, db->import_source);
	db_bind_int64(st, 7, now);
	if (db_step(st) != DB_DONE) {
		int dup = db_failed_unique(db);

		db_reset(st);
		if (dup)
			return db_err(err, IMT_ERR_MISMATCH,
				      "key %s is there already", k->name);
		return db_fail(db, err, "key");
	}
	db_reset(st);
	return 0;
}

int db_key_add(struct db *db, const struct db_key *k, int64_t now,
	       struct imt_error *err)
{
	if (db == NULL || k == NULL)
		return db_bad(err, "no database or key");
	if (db_check_str(k->name, DB_NAME_MAX, "key name", err) < 0 ||
	    db_check_str(k->subject, DB_PATH_MAX, "key subject", err) < 0 ||
	    db_check_blob(k->der, k->der_len, 1, DB_KEY_DER_MAX, "key", err) <
		    0)
		return -1;
	if (db->import_open)
		return key_insert(db, k, now, err);
	if (db_begin(db, err) < 0)
		return -1;
	if (key_taken(db, k, err) < 0 || key_insert(db, k, now, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

static const char sql_key_list[] =
	"SELECT k.id, k.name, k.keyid, k.fpr, k.subject, k.der, "
	"coalesce(s.kind || ':' || s.name, 'key:' || k.name), k.added_at "
	"FROM keys k LEFT JOIN sources s ON s.id = k.source_id ORDER BY k.id";

int db_key_list(struct db *db, db_key_cb cb, void *arg, struct imt_error *err)
{
	struct db_key k;
	struct db_stmt *st;
	int step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	st = db_stmt(db, sql_key_list, err);
	if (st == NULL)
		return -1;
	while ((step = db_step(st)) == DB_ROW) {
		memset(&k, 0, sizeof(k));
		k.id = db_col_int64(st, 0);
		k.name = db_col_text(st, 1);
		if (db_col_bytes(st, 2) == 4)
			memcpy(k.keyid, db_col_blob(st, 2), 4);
		if (db_col_bytes(st, 3) == 32)
			memcpy(k.fpr, db_col_blob(st, 3), 32);
		k.subject = db_col_text(st, 4);
		k.der = db_col_blob(st, 5);
		k.der_len = (size_t)db_col_bytes(st, 5);
		k.source = db_col_text(st, 6);
		k.added_at = db_col_int64(st, 7);
		if (cb(&k, arg) != 0)
			break;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "keys");
	return 0;
}

static const char sql_key_delete[] =
	"DELETE FROM keys WHERE name = ?1 AND source_id IS NULL";

int db_key_delete(struct db *db, const char *name, int *found,
		  struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || found == NULL)
		return db_bad(err, "no database");
	if (db_check_str(name, DB_NAME_MAX, "key name", err) < 0)
		return -1;
	st = db_stmt(db, sql_key_delete, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	if (db_step_done(db, st, err, "delete key") < 0)
		return -1;
	*found = db_changes(db) > 0;
	return 0;
}
