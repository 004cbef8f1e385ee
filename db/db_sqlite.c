// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_sqlite.c - the SQLite backend of db_sql.h: the statement cache,
 * binders, steps, columns, error mapping, and the hooks that tell the
 * webhook thread a commit queued messages.
 *
 * With db_sqlite_open.c this is the only place that includes <sqlite3.h>.
 * Every function here is a thin pass-through: the modules' statements cost
 * what they cost when they called SQLite directly (no allocation per
 * statement run; the cache is an array inside the connection).
 */
#include <stdlib.h>
#include <string.h>

#include "db_backend.h"
#include "db_sqlite.h"

/* One prepared statement, keyed by the address of its static SQL text. */
struct lite_stmt {
	struct db_stmt head; /* first: db_sql.c's view */
	sqlite3_stmt *st;
};

struct lite_conn {
	struct db_conn head; /* first: db_sql.c's view */
	sqlite3 *sql;
	struct db_stmt_cache stmts;
};

static struct lite_conn *lite(struct db *db)
{
	return (struct lite_conn *)db->conn;
}

static sqlite3_stmt *lst(struct db_stmt *st)
{
	return ((struct lite_stmt *)st)->st;
}

sqlite3 *db_sqlite_handle(struct db *db)
{
	if (db->conn == NULL || db->conn->be != &db_sqlite_backend)
		return NULL;
	return lite(db)->sql;
}

int db_sqlite_conn_new(struct db *db, sqlite3 *sql)
{
	struct lite_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return -1;
	c->head.be = &db_sqlite_backend;
	c->sql = sql;
	db->conn = &c->head;
	return 0;
}

/* Finalize and free @st (finalizing NULL, a failed prepare's, is a no-op). */
static void lite_stmt_free(struct db_stmt *st)
{
	sqlite3_finalize(lst(st));
	free(st);
}

static void lite_close(struct db *db)
{
	struct lite_conn *c = lite(db);

	db_stmt_cache_release(&c->stmts, lite_stmt_free);
	/* sqlite3_close (not _v2): every statement is finalized above. */
	if (c->sql != NULL && sqlite3_close(c->sql) != SQLITE_OK)
		sqlite3_close_v2(c->sql);
	free(c);
	db->conn = NULL;
}

static struct db_stmt *lite_stmt(struct db *db, const char *sql,
				 struct imt_error *err)
{
	struct lite_conn *c = lite(db);
	struct db_stmt *hit = db_stmt_cache_find(&c->stmts, sql);
	struct lite_stmt *slot;

	if (hit != NULL) {
		sqlite3_reset(lst(hit));
		sqlite3_clear_bindings(lst(hit));
		return hit;
	}
	slot = calloc(1, sizeof(*slot));
	if (slot == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return NULL;
	}
	slot->head.be = &db_sqlite_backend;
	/* Persistent: the statement lives as long as the connection. */
	if (sqlite3_prepare_v3(c->sql, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &slot->st, NULL) != SQLITE_OK) {
		db_fail(db, err, "prepare");
		lite_stmt_free(&slot->head);
		return NULL;
	}
	if (db_stmt_cache_add(&c->stmts, sql, &slot->head, err) < 0) {
		lite_stmt_free(&slot->head);
		return NULL;
	}
	return &slot->head;
}

/*
 * A bind SQLite refuses (a value past SQLITE_LIMIT_LENGTH) leaves the
 * parameter NULL; the callers checked every length against the DB_*_MAX
 * limits of db.h first, so none is ever refused.
 */
static void lite_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	sqlite3_bind_int64(lst(st), i, v);
}

static void lite_bind_text(struct db_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(lst(st), i, s, -1, SQLITE_STATIC);
}

static void lite_bind_blob(struct db_stmt *st, int i, const void *p, size_t len)
{
	sqlite3_bind_blob64(lst(st), i, p, len, SQLITE_STATIC);
}

static void lite_bind_null(struct db_stmt *st, int i)
{
	sqlite3_bind_null(lst(st), i);
}

static enum db_step_result lite_step(struct db_stmt *st)
{
	switch (sqlite3_step(lst(st))) {
	case SQLITE_ROW:
		return DB_ROW;
	case SQLITE_DONE:
		return DB_DONE;
	default:
		return DB_ERROR;
	}
}

static void lite_reset(struct db_stmt *st)
{
	sqlite3_reset(lst(st));
}

static int64_t lite_col_int64(struct db_stmt *st, int col)
{
	return sqlite3_column_int64(lst(st), col);
}

static const char *lite_col_text(struct db_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(lst(st), col);
}

static const void *lite_col_blob(struct db_stmt *st, int col)
{
	return sqlite3_column_blob(lst(st), col);
}

static int lite_col_bytes(struct db_stmt *st, int col)
{
	return sqlite3_column_bytes(lst(st), col);
}

static int lite_col_is_null(struct db_stmt *st, int col)
{
	return sqlite3_column_type(lst(st), col) == SQLITE_NULL;
}

static int64_t lite_changes(struct db *db)
{
	return sqlite3_changes64(lite(db)->sql);
}

static int64_t lite_last_insert_id(struct db *db)
{
	return sqlite3_last_insert_rowid(lite(db)->sql);
}

static int lite_in_transaction(struct db *db)
{
	return !sqlite3_get_autocommit(lite(db)->sql);
}

static int lite_exec(struct db *db, const char *sql, const char *what,
		     struct imt_error *err)
{
	if (sqlite3_exec(lite(db)->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, err, what);
	return 0;
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

/*
 * With sqlite3_prepare_v3 a failed step sets the connection's error at
 * once, and the reset that follows keeps it; the next call that succeeds
 * clears it, so the callers report before they run anything else.
 */
static int lite_fail(struct db *db, struct imt_error *err, const char *what)
{
	sqlite3 *sql = lite(db)->sql;

	imt_error_set(err, db_status(sqlite3_extended_errcode(sql)), IMT_NO_POS,
		      IMT_NO_POS, "%s: %s", what, sqlite3_errmsg(sql));
	return -1;
}

static int lite_failed_unique(struct db *db)
{
	return sqlite3_extended_errcode(lite(db)->sql) ==
	       SQLITE_CONSTRAINT_UNIQUE;
}

/* One writer, waiting up to DB_BUSY_TIMEOUT_MS: nothing to run again. */
static int lite_failed_retryable(struct db *db)
{
	(void)db;
	return 0;
}

/*
 * The webhook outbox's notification. Rows are queued by triggers, inside
 * whatever statement wrote the event, so only the update hook (which
 * trigger changes reach too) sees them; the commit hook then tells the
 * delivery thread once per transaction, and a rollback forgets the rows.
 */
static void on_update(void *arg, int op, const char *dbname, const char *table,
		      sqlite3_int64 rowid)
{
	struct db *db = arg;

	(void)dbname;
	(void)rowid;
	if (op == SQLITE_INSERT && strcmp(table, "webhook_outbox") == 0)
		db->queued = 1;
}

static int on_commit(void *arg)
{
	struct db *db = arg;

	if (db->queued && db->queued_fn != NULL)
		db->queued_fn(db->queued_arg);
	db->queued = 0;
	return 0; /* the commit goes on */
}

static void on_rollback(void *arg)
{
	((struct db *)arg)->queued = 0;
}

static void lite_watch_outbox(struct db *db, int on)
{
	sqlite3 *sql = lite(db)->sql;

	sqlite3_update_hook(sql, on ? on_update : NULL, db);
	sqlite3_commit_hook(sql, on ? on_commit : NULL, db);
	sqlite3_rollback_hook(sql, on ? on_rollback : NULL, db);
}

const struct db_backend db_sqlite_backend = {
	.name = "sqlite",
	.dialect = DB_DIALECT_SQLITE,
	.open = db_sqlite_open,
	.close = lite_close,
	.durable = db_sqlite_durable,
	.watch_outbox = lite_watch_outbox,
	.stmt = lite_stmt,
	.bind_int64 = lite_bind_int64,
	.bind_text = lite_bind_text,
	.bind_blob = lite_bind_blob,
	.bind_null = lite_bind_null,
	.step = lite_step,
	.reset = lite_reset,
	.col_int64 = lite_col_int64,
	.col_text = lite_col_text,
	.col_blob = lite_col_blob,
	.col_bytes = lite_col_bytes,
	.col_is_null = lite_col_is_null,
	.changes = lite_changes,
	.last_insert_id = lite_last_insert_id,
	.in_transaction = lite_in_transaction,
	.exec = lite_exec,
	.fail = lite_fail,
	.failed_unique = lite_failed_unique,
	.failed_retryable = lite_failed_retryable,
};
