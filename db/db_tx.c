// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_tx.c - transactions: one per API call, or one per batch of calls.
 *
 * Outside a batch every writing call is BEGIN IMMEDIATE ... COMMIT. Inside
 * a batch the batch owns the transaction and each call is a savepoint, so
 * a call that fails is undone alone and the batch goes on.
 */
#include "db_internal.h"

static const char sql_begin[] = "BEGIN IMMEDIATE";
static const char sql_commit[] = "COMMIT";
static const char sql_rollback[] = "ROLLBACK";
static const char sql_savepoint[] = "SAVEPOINT db_call";
static const char sql_release[] = "RELEASE db_call";
static const char sql_rollback_to[] = "ROLLBACK TO db_call";

static int run(struct db *db, const char *sql, struct imt_error *err)
{
	sqlite3_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	return db_step_done(db, st, err, sql);
}

/*
 * Some errors (disk full, I/O, out of memory) make SQLite roll back the
 * whole transaction. A savepoint taken after that would silently start a
 * new transaction and commit calls one by one, so the batch is over.
 */
static int batch_alive(struct db *db, struct imt_error *err)
{
	if (!sqlite3_get_autocommit(db->sql))
		return 0;
	db->batch_open = 0;
	return db_err(err, IMT_ERR_INTERNAL, "the batch's transaction was "
		      "rolled back by an earlier error");
}

int db_begin(struct db *db, struct imt_error *err)
{
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	if (db->batch_open)
		return batch_alive(db, err) < 0 ? -1 :
						  run(db, sql_savepoint, err);
	return run(db, sql_begin, err);
}

int db_commit(struct db *db, struct imt_error *err)
{
	if (run(db, db->batch_open ? sql_release : sql_commit, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return 0;
}

void db_rollback(struct db *db)
{
	if (sqlite3_get_autocommit(db->sql))
		return;	/* SQLite rolled back already, or never began */
	if (db->batch_open) {
		if (run(db, sql_rollback_to, NULL) == 0 &&
		    run(db, sql_release, NULL) == 0)
			return;
		/* Cannot undo just the call: give up the whole batch. */
		db->batch_open = 0;
	}
	if (run(db, sql_rollback, NULL) < 0)
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
}

int db_batch_begin(struct db *db, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (db->batch_open || db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a batch or import is open already");
	if (run(db, sql_begin, err) < 0)
		return -1;
	db->batch_open = 1;
	return 0;
}

int db_batch_commit(struct db *db, struct imt_error *err)
{
	if (db == NULL || !db->batch_open)
		return db_bad(err, "no batch open");
	if (batch_alive(db, err) < 0)
		return -1;
	db->batch_open = 0;
	return db_commit(db, err);
}

void db_batch_abort(struct db *db)
{
	if (db == NULL || !db->batch_open)
		return;
	db->batch_open = 0;
	db_rollback(db);
}

/*
 * Why not always FULL: db.c (a sync per evidence batch). An agent that
 * deletes what the verifier confirmed asks for it ("export"), and then
 * its evidence pays one WAL sync; a FULL commit syncs the whole WAL, so
 * the earlier NORMAL commits of the boot are durable with it.
 */
static const char sql_sync_full[] = "PRAGMA synchronous = FULL";
static const char sql_sync_normal[] = "PRAGMA synchronous = NORMAL";

int db_durable_commits(struct db *db, int on, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (!sqlite3_get_autocommit(db->sql))
		return db_err(err, IMT_ERR_MISMATCH,
			      "synchronous cannot change in a transaction");
	return sqlite3_exec(db->sql, on ? sql_sync_full : sql_sync_normal,
			    NULL, NULL, NULL) == SQLITE_OK ? 0 :
	       db_fail(db, err, "synchronous");
}
