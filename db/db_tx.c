// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_tx.c - transactions: one per API call, or one per batch of calls.
 *
 * Outside a batch every writing call is BEGIN IMMEDIATE ... COMMIT (BEGIN
 * on PostgreSQL). Inside a batch the batch owns the transaction and each
 * call is a savepoint, so a call that fails is undone alone and the batch
 * goes on.
 */
#include "db_internal.h"

/*
 * PostgreSQL has no write lock to take up front: its writers lock the rows
 * they change, and wait for each other there.
 */
static const struct db_sql sql_begin = {
	.sqlite = "BEGIN IMMEDIATE",
	.pg = "BEGIN",
};
static const char sql_commit[] = "COMMIT";
static const char sql_rollback[] = "ROLLBACK";
static const char sql_savepoint[] = "SAVEPOINT db_call";
static const char sql_release[] = "RELEASE db_call";
static const char sql_rollback_to[] = "ROLLBACK TO db_call";

static int run(struct db *db, const char *sql, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	return db_step_done(db, st, err, sql);
}

static int begin(struct db *db, struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_begin, err);

	db->tx_serial++;
	db_audit_held_drop(db, 1); /* nothing is left of an earlier one */
	if (st == NULL)
		return -1;
	return db_step_done(db, st, err, "BEGIN");
}

/*
 * Some errors (disk full, I/O, out of memory) make SQLite roll back the
 * whole transaction. A savepoint taken after that would silently start a
 * new transaction and commit calls one by one, so the batch is over.
 */
static int batch_alive(struct db *db, struct imt_error *err)
{
	if (db_in_transaction(db))
		return 0;
	db->batch_open = 0;
	return db_err(err, IMT_ERR_INTERNAL,
		      "the batch's transaction was "
		      "rolled back by an earlier error");
}

int db_begin(struct db *db, struct imt_error *err)
{
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	if (db->batch_open) {
		/* a write call in the batch: cached lookups re-check */
		db->tx_serial++;
		db_audit_held_mark(db);
		return batch_alive(db, err) < 0 ? -1 :
						  run(db, sql_savepoint, err);
	}
	return begin(db, err);
}

int db_commit(struct db *db, struct imt_error *err)
{
	if (run(db, db->batch_open ? sql_release : sql_commit, err) < 0) {
		db_rollback(db);
		return -1;
	}
	/* a batch's call is told with the batch, once it is committed */
	if (!db->batch_open)
		db_audit_held_flush(db);
	return 0;
}

void db_rollback(struct db *db)
{
	if (!db_in_transaction(db)) {
		/* the engine rolled back already, or never began */
		db_audit_held_drop(db, 1);
		return;
	}
	if (db->batch_open) {
		if (run(db, sql_rollback_to, NULL) == 0 &&
		    run(db, sql_release, NULL) == 0) {
			db_audit_held_drop(db, 0);
			return;
		}
		/* Cannot undo just the call: give up the whole batch. */
		db->batch_open = 0;
	}
	db_audit_held_drop(db, 1);
	if (run(db, sql_rollback, NULL) < 0)
		db_exec(db, "ROLLBACK", "rollback", NULL);
}

int db_batch_begin(struct db *db, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (db->batch_open || db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a batch or import is open already");
	if (begin(db, err) < 0)
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

/* What the backend does, and why only on request: db_conn_durable(). */
int db_durable_commits(struct db *db, int on, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (db_in_transaction(db))
		return db_err(err, IMT_ERR_MISMATCH,
			      "synchronous cannot change in a transaction");
	return db_conn_durable(db, on, err);
}

/* A snapshot for several reads (db_read_begin(): readers only). */
static const struct db_sql sql_read_begin = {
	.sqlite = "BEGIN",
	.pg = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
};

int db_read_begin(struct db *db, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || !db->reader)
		return db_bad(err, "a read snapshot needs a reader connection");
	st = db_stmt_sql(db, &sql_read_begin, err);
	db->tx_serial++; /* the reference cache re-reads the epoch */
	if (st == NULL)
		return -1;
	return db_step_done(db, st, err, "BEGIN (read)");
}

void db_read_end(struct db *db)
{
	if (db == NULL || !db_in_transaction(db))
		return;
	if (run(db, sql_commit, NULL) < 0)
		db_exec(db, "ROLLBACK", "rollback", NULL);
}
