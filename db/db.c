// SPDX-License-Identifier: GPL-2.0-only
/*
 * db.c - open and close the verifier database: connection settings and
 * the schema migrations.
 */
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

/* "imat": set by 0001_initial.sql, checked before touching a file. */
#define DB_APPLICATION_ID 1768776052

int db_schema_version(void)
{
	return db_migrations[db_migration_count - 1].version;
}

/* Run a statement that yields one integer (a PRAGMA read). */
static int db_int_query(struct db *db, const char *sql, int64_t *out,
			struct imt_error *err)
{
	sqlite3_stmt *st = db_stmt(db, sql, err);
	int rc;

	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		db_fail(db, err, sql);
		sqlite3_reset(st);
		return -1;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return 0;
}

static const char sql_journal_wal[] = "PRAGMA journal_mode = WAL";
static const char sql_foreign_keys[] = "PRAGMA foreign_keys";
static const char sql_user_version[] = "PRAGMA user_version";
static const char sql_application_id[] = "PRAGMA application_id";

/*
 * The connection settings, applied on every open (none of them is stored
 * in the file except journal_mode, and that one is cheap to repeat).
 *
 * synchronous = NORMAL in WAL mode: a commit appends to the WAL without
 * an fsync; the WAL is synced at checkpoints. A process crash (SIGKILL,
 * abort) loses nothing that was committed, since the WAL is in the page
 * cache. A power loss or kernel crash may lose the last transactions
 * committed since the previous checkpoint, but never corrupts the
 * database: recovery replays the WAL up to the last intact commit frame.
 * For the verifier that means at worst re-receiving a few batches of
 * evidence after a power cut (the agent resumes from the index we have),
 * in exchange for not paying an fsync on every evidence batch.
 *
 * trusted_schema = ON: the events table CHECKs json_valid(), which SQLite
 * 3.40 does not mark innocuous, so a build defaulting to OFF would reject
 * our own schema. The file is the verifier's own (in its private state
 * directory); whoever can rewrite its schema can rewrite its data anyway.
 */
static const char sql_settings[] =
	"PRAGMA foreign_keys = ON;"
	"PRAGMA synchronous = NORMAL;"
	"PRAGMA trusted_schema = ON;";

static int db_configure(struct db *db, struct imt_error *err)
{
	int64_t fk;

	sqlite3_extended_result_codes(db->sql, 1);
	sqlite3_busy_timeout(db->sql, DB_BUSY_TIMEOUT_MS);
	/* Defensive mode: no writable_schema tricks that corrupt the file. */
	sqlite3_db_config(db->sql, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	if (sqlite3_exec(db->sql, sql_settings, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, err, "connection settings");

	/* The pragma is silently ignored where unsupported: check it took. */
	if (db_int_query(db, sql_foreign_keys, &fk, err) < 0)
		return -1;
	if (fk != 1) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "foreign keys cannot be enabled");
		return -1;
	}
	return 0;
}

/* Switch to WAL (stored in the file) once we know the file is ours. */
static int db_wal(struct db *db, struct imt_error *err)
{
	sqlite3_stmt *st;
	const unsigned char *mode;
	int rc;

	st = db_stmt(db, sql_journal_wal, err);
	if (st == NULL)
		return -1;
	rc = sqlite3_step(st);
	mode = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
	if (mode == NULL || strcmp((const char *)mode, "wal") != 0) {
		if (rc == SQLITE_ROW)
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "journal_mode is %s, not wal",
				      mode ? (const char *)mode : "?");
		else
			db_fail(db, err, "journal_mode");
		sqlite3_reset(st);
		return -1;
	}
	sqlite3_reset(st);

	return 0;
}

/*
 * A migration carrying this line rebuilds a table others reference
 * (SQLite's twelve-step ALTER): it runs with foreign keys off, which can
 * only change outside a transaction, and they are checked before commit.
 */
#define DB_MIGRATION_FK_OFF "\n-- imatrust-migration: foreign_keys off\n"

static int count_row(void *arg, int n, char **v, char **names)
{
	(void)n;
	(void)v;
	(void)names;
	(*(int *)arg)++;
	return 0;
}

/* Fail unless PRAGMA foreign_key_check finds nothing. */
static int db_fk_check(struct db *db, const struct db_migration *m,
		       struct imt_error *err)
{
	int rows = 0;

	if (sqlite3_exec(db->sql, "PRAGMA foreign_key_check", count_row,
			 &rows, NULL) != SQLITE_OK)
		return db_fail(db, err, m->name);
	if (rows == 0)
		return 0;
	imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
		      "%s left %d foreign key violations", m->name, rows);
	return -1;
}

/* Apply migration @m inside one transaction; the caller checked order. */
static int db_migrate_txn(struct db *db, const struct db_migration *m,
			  int fk_off, struct imt_error *err)
{
	int64_t version;
	int rc = -1;

	if (db_begin(db, err) < 0)
		return -1;
	/* Another process may have migrated between our read and the lock. */
	if (db_int_query(db, sql_user_version, &version, err) < 0)
		goto out;
	if (version >= m->version) {
		rc = 0;	/* nothing to do: roll back the empty txn */
		goto out;
	}
	if (version != m->version - 1) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "schema version %lld, cannot apply %s",
			      (long long)version, m->name);
		goto out;
	}
	if (sqlite3_exec(db->sql, m->sql, NULL, NULL, NULL) != SQLITE_OK) {
		db_fail(db, err, m->name);
		goto out;
	}
	if (fk_off && db_fk_check(db, m, err) < 0)
		goto out;
	if (db_int_query(db, sql_user_version, &version, err) < 0)
		goto out;
	if (version != m->version) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s left user_version %lld, not %d", m->name,
			      (long long)version, m->version);
		goto out;
	}
	return db_commit(db, err);
out:
	db_rollback(db);
	return rc;
}

static int db_migrate_one(struct db *db, const struct db_migration *m,
			  struct imt_error *err)
{
	int fk_off = strstr(m->sql, DB_MIGRATION_FK_OFF) != NULL;
	int rc;

	if (fk_off && sqlite3_exec(db->sql, "PRAGMA foreign_keys = OFF", NULL,
				   NULL, NULL) != SQLITE_OK)
		return db_fail(db, err, m->name);
	rc = db_migrate_txn(db, m, fk_off, err);
	if (fk_off && sqlite3_exec(db->sql, "PRAGMA foreign_keys = ON", NULL,
				   NULL, NULL) != SQLITE_OK)
		return db_fail(db, err, m->name);
	return rc;
}

/* Refuse files that are not ours or that a newer imatrust wrote. */
static int db_check_version(struct db *db, struct imt_error *err)
{
	int64_t version, app_id;

	if (db_int_query(db, sql_user_version, &version, err) < 0 ||
	    db_int_query(db, sql_application_id, &app_id, err) < 0)
		return -1;
	if (app_id != 0 && app_id != DB_APPLICATION_ID) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "not an imatrust database (application_id %lld)",
			      (long long)app_id);
		return -1;
	}
	if (version > db_schema_version()) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "database schema version %lld is newer than this "
			      "imatrust supports (%d): upgrade imatrust",
			      (long long)version, db_schema_version());
		return -1;
	}
	return 0;
}

static int db_migrate(struct db *db, struct imt_error *err)
{
	int64_t version;
	size_t i;

	if (db_int_query(db, sql_user_version, &version, err) < 0)
		return -1;
	for (i = 0; i < db_migration_count; i++) {
		if (db_migrations[i].version <= version)
			continue;
		if (db_migrate_one(db, &db_migrations[i], err) < 0)
			return -1;
	}
	return 0;
}

int db_open(const char *path, struct db **out, struct imt_error *err)
{
	struct db *db;
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
		    SQLITE_OPEN_NOFOLLOW;

	imt_error_clear(err);
	if (out == NULL)
		return db_bad(err, "no handle to fill");
	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return db_bad(err, "database path missing");
	db = calloc(1, sizeof(*db));
	if (db == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return -1;
	}
	if (sqlite3_open_v2(path, &db->sql, flags, NULL) != SQLITE_OK) {
		if (db->sql == NULL)
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "%s: out of memory", path);
		else
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "%s: %s", path,
				      sqlite3_errmsg(db->sql));
		goto fail;
	}
	if (db_configure(db, err) < 0 || db_check_version(db, err) < 0 ||
	    db_wal(db, err) < 0 || db_migrate(db, err) < 0)
		goto fail;
	*out = db;
	return 0;
fail:
	db_close(db);
	return -1;
}

void db_close(struct db *db)
{
	size_t i;

	if (db == NULL)
		return;
	/* Whatever was not committed is dropped, as a crash would. */
	db_ref_import_abort(db);
	db_batch_abort(db);
	for (i = 0; i < db->nstmts; i++)
		sqlite3_finalize(db->stmts[i].stmt);
	/* sqlite3_close (not _v2): every statement is finalized above. */
	if (db->sql != NULL && sqlite3_close(db->sql) != SQLITE_OK)
		sqlite3_close_v2(db->sql);
	free(db);
}
