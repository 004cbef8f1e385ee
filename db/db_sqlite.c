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

#include "db_internal.h"
#include "db_sqlite.h"

/* One prepared statement, keyed by the address of its static SQL text. */
struct db_stmt {
	const char *sql;
	sqlite3_stmt *st;
};

struct db_conn {
	sqlite3 *sql;
	struct db_stmt stmts[DB_STMT_CACHE_MAX];
	size_t nstmts;
};

sqlite3 *db_sqlite_handle(struct db *db)
{
	return db->conn != NULL ? db->conn->sql : NULL;
}

int db_sqlite_conn_new(struct db *db, sqlite3 *sql)
{
	db->conn = calloc(1, sizeof(*db->conn));
	if (db->conn == NULL)
		return -1;
	db->conn->sql = sql;
	return 0;
}

void db_conn_close(struct db *db)
{
	struct db_conn *c = db->conn;
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->nstmts; i++)
		sqlite3_finalize(c->stmts[i].st);
	/* sqlite3_close (not _v2): every statement is finalized above. */
	if (c->sql != NULL && sqlite3_close(c->sql) != SQLITE_OK)
		sqlite3_close_v2(c->sql);
	free(c);
	db->conn = NULL;
}

struct db_stmt *db_stmt(struct db *db, const char *sql,
			struct imt_error *err)
{
	struct db_conn *c = db->conn;
	struct db_stmt *slot;
	size_t i;

	for (i = 0; i < c->nstmts; i++) {
		slot = &c->stmts[i];
		if (slot->sql == sql) {
			sqlite3_reset(slot->st);
			sqlite3_clear_bindings(slot->st);
			return slot;
		}
	}
	if (c->nstmts == DB_STMT_CACHE_MAX) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "statement cache full (%d)", DB_STMT_CACHE_MAX);
		return NULL;
	}
	slot = &c->stmts[c->nstmts];
	/* Persistent: the statement lives as long as the connection. */
	if (sqlite3_prepare_v3(c->sql, sql, -1, SQLITE_PREPARE_PERSISTENT,
			       &slot->st, NULL) != SQLITE_OK) {
		db_fail(db, err, "prepare");
		return NULL;
	}
	slot->sql = sql;
	c->nstmts++;
	return slot;
}

/*
 * A bind SQLite refuses (a value past SQLITE_LIMIT_LENGTH) leaves the
 * parameter NULL; the callers checked every length against the DB_*_MAX
 * limits of db.h first, so none is ever refused.
 */
void db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	sqlite3_bind_int64(st->st, i, v);
}

void db_bind_int(struct db_stmt *st, int i, int v)
{
	sqlite3_bind_int(st->st, i, v);
}

void db_bind_text(struct db_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st->st, i, s, -1, SQLITE_STATIC);
}

void db_bind_blob(struct db_stmt *st, int i, const void *p, size_t len)
{
	sqlite3_bind_blob64(st->st, i, p, len, SQLITE_STATIC);
}

void db_bind_null(struct db_stmt *st, int i)
{
	sqlite3_bind_null(st->st, i);
}

enum db_step_result db_step(struct db_stmt *st)
{
	switch (sqlite3_step(st->st)) {
	case SQLITE_ROW:
		return DB_ROW;
	case SQLITE_DONE:
		return DB_DONE;
	default:
		return DB_ERROR;
	}
}

void db_reset(struct db_stmt *st)
{
	sqlite3_reset(st->st);
}

int64_t db_col_int64(struct db_stmt *st, int col)
{
	return sqlite3_column_int64(st->st, col);
}

int db_col_int(struct db_stmt *st, int col)
{
	return sqlite3_column_int(st->st, col);
}

const char *db_col_text(struct db_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st->st, col);
}

const void *db_col_blob(struct db_stmt *st, int col)
{
	return sqlite3_column_blob(st->st, col);
}

int db_col_bytes(struct db_stmt *st, int col)
{
	return sqlite3_column_bytes(st->st, col);
}

int db_col_is_null(struct db_stmt *st, int col)
{
	return sqlite3_column_type(st->st, col) == SQLITE_NULL;
}

int64_t db_changes(struct db *db)
{
	return sqlite3_changes64(db->conn->sql);
}

int64_t db_last_insert_id(struct db *db)
{
	return sqlite3_last_insert_rowid(db->conn->sql);
}

int db_in_transaction(struct db *db)
{
	return !sqlite3_get_autocommit(db->conn->sql);
}

int db_exec(struct db *db, const char *sql, const char *what,
	    struct imt_error *err)
{
	if (sqlite3_exec(db->conn->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
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
int db_fail(struct db *db, struct imt_error *err, const char *what)
{
	sqlite3 *sql = db->conn->sql;

	imt_error_set(err, db_status(sqlite3_extended_errcode(sql)),
		      IMT_NO_POS, IMT_NO_POS, "%s: %s", what,
		      sqlite3_errmsg(sql));
	return -1;
}

int db_failed_unique(struct db *db)
{
	return sqlite3_extended_errcode(db->conn->sql) ==
	       SQLITE_CONSTRAINT_UNIQUE;
}

/*
 * The webhook outbox's notification. Rows are queued by triggers, inside
 * whatever statement wrote the event, so only the update hook (which
 * trigger changes reach too) sees them; the commit hook then tells the
 * delivery thread once per transaction, and a rollback forgets the rows.
 */
static void on_update(void *arg, int op, const char *dbname,
		      const char *table, sqlite3_int64 rowid)
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
	return 0;	/* the commit goes on */
}

static void on_rollback(void *arg)
{
	((struct db *)arg)->queued = 0;
}

void db_conn_watch_outbox(struct db *db, int on)
{
	sqlite3 *sql = db->conn->sql;

	sqlite3_update_hook(sql, on ? on_update : NULL, db);
	sqlite3_commit_hook(sql, on ? on_commit : NULL, db);
	sqlite3_rollback_hook(sql, on ? on_rollback : NULL, db);
}
