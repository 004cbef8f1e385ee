/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_sql.h - the statement interface between the db/ modules and the SQL
 * engine: what a storage backend implements. Two do: SQLite (db_sqlite.c,
 * db_sqlite_open.c) and PostgreSQL (db_pg.c, db_pg_open.c, over libpq),
 * the only files that include an engine's header; db_sql.c forwards each
 * call to the one db_open() chose (db_backend.h). The modules stay as they
 * are; the few statements whose SQL differs are struct db_sql below.
 *
 * The shape follows what both engines can do without copying:
 *
 * - A statement is prepared once per connection and kept (db_stmt(): the
 *   cache keyed by the address of the static SQL text). Parameters are
 *   positional and 1-based, written ?1, ?2 ... in the SQL; a PostgreSQL
 *   backend rewrites them to $1, $2 ... when it prepares.
 * - Bound memory is borrowed, not copied (SQLite's SQLITE_STATIC): text
 *   and blobs must stay valid and unchanged until the statement is reset
 *   (db_reset(), db_step_done(), or the next db_stmt() of the same SQL).
 *   A NULL text or blob pointer binds SQL NULL; an unbound parameter is
 *   NULL too.
 * - A step returns a row, the end, or an error; after an error, db_fail()
 *   reports it and must be called before the statement is reset.
 * - A column's text or blob is valid until the next step or reset of its
 *   statement: copy what must outlive it.
 *
 * Not thread-safe: one connection, the caller serializes (db.h).
 */
#ifndef IMATRUST_DB_SQL_H
#define IMATRUST_DB_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

struct db;
struct db_stmt; /* one cached prepared statement (backend-owned) */

/* The SQL dialect of the open database's engine. */
enum db_dialect {
	DB_DIALECT_SQLITE,
	DB_DIALECT_PG,
};

/*
 * struct db_sql - one statement written twice, for the few call sites whose
 * SQL is not the same in both engines (json_object, GLOB, INSERT OR IGNORE,
 * integers as booleans ...). It stays one object next to the function that
 * runs it: db_stmt_sql() takes the text of the open database's dialect,
 * and that text's address is the cache key as for db_stmt(). Both members
 * are string literals.
 */
struct db_sql {
	const char *sqlite;
	const char *pg;
};

/* What db_step() found. */
enum db_step_result {
	DB_ROW = 1, /* a row: read it with db_col_*() */
	DB_DONE,    /* no (more) rows; a write has been done */
	DB_ERROR,   /* failed: db_fail() says why, before db_reset() */
};

/*
 * db_stmt() - the cached statement for @sql (prepared on first use), reset
 * and with its bindings cleared. @sql must be a string literal: its
 * address is the cache key, which also means SQL is never assembled at run
 * time. NULL (and @err filled) on failure; IMT_ERR_LIMIT past
 * DB_STMT_CACHE_MAX statements (db_backend.h).
 */
struct db_stmt *db_stmt(struct db *db, const char *sql, struct imt_error *err);

/* db_stmt_sql() - db_stmt() of the text of @sql the open engine speaks. */
struct db_stmt *db_stmt_sql(struct db *db, const struct db_sql *sql,
			    struct imt_error *err);

/* db_dialect() - the dialect of @db's engine. */
enum db_dialect db_dialect(struct db *db);

/* Binders: parameter @i (1-based) of @st; memory borrowed (see above). */
void db_bind_int64(struct db_stmt *st, int i, int64_t v);
void db_bind_int(struct db_stmt *st, int i, int v);
/* NUL-terminated text; the bytes need not be UTF-8 (paths are stored as
 * the kernel gave them). */
void db_bind_text(struct db_stmt *st, int i, const char *s);
/* @len bytes at @p; @len 0 with @p not NULL is an empty blob, not NULL. */
void db_bind_blob(struct db_stmt *st, int i, const void *p, size_t len);
void db_bind_null(struct db_stmt *st, int i);

/* db_step() - run @st to its next row (or its end). */
enum db_step_result db_step(struct db_stmt *st);

/* db_reset() - end @st's run; its bindings stay until the next db_stmt() */
void db_reset(struct db_stmt *st);

/*
 * Columns of the current row, 0-based. SQL NULL reads as 0, a NULL text
 * or blob pointer, and a length of 0; db_col_is_null() tells it apart.
 * Text and blob pointers are valid until the next step or reset.
 */
int64_t db_col_int64(struct db_stmt *st, int col);
int db_col_int(struct db_stmt *st, int col);
const char *db_col_text(struct db_stmt *st, int col);
const void *db_col_blob(struct db_stmt *st, int col);
/* The length in bytes of a blob or text column. */
int db_col_bytes(struct db_stmt *st, int col);
int db_col_is_null(struct db_stmt *st, int col);

/*
 * db_changes() - the rows the last finished INSERT, UPDATE or DELETE of
 * the connection changed, not counting what its triggers changed.
 */
int64_t db_changes(struct db *db);

/*
 * db_last_insert_id() - the id (INTEGER PRIMARY KEY) of the row the last
 * successful INSERT of the connection created. Only right after a
 * db_changes() of 1. Why not INSERT ... RETURNING id: intern_row() in
 * db_ref.c (ten times slower imports with SQLite). A PostgreSQL backend
 * can answer with SELECT lastval() (one more round trip), or keep the id
 * a RETURNING clause of its own dialect's insert gave.
 */
int64_t db_last_insert_id(struct db *db);

/* db_in_transaction() - 1 while a transaction is open, else 0. */
int db_in_transaction(struct db *db);

/*
 * db_exec() - run @sql, constant text of one or more statements without
 * parameters or results (ROLLBACK after a failed one); 0 or -1 + @err
 * naming @what.
 */
int db_exec(struct db *db, const char *sql, const char *what,
	    struct imt_error *err);

/*
 * db_fail() - fill @err from the connection's last error and return -1.
 * The status says what kind: a unique, primary key or foreign key
 * violation is IMT_ERR_MISMATCH, a CHECK, NOT NULL or type violation
 * IMT_ERR_MALFORMED, a value too big IMT_ERR_LIMIT, anything else
 * IMT_ERR_INTERNAL. The message is "@what: <the engine's message>".
 */
int db_fail(struct db *db, struct imt_error *err, const char *what);

/* db_failed_unique() - 1 when the last error was a UNIQUE violation. */
int db_failed_unique(struct db *db);

/*
 * db_failed_retryable() - 1 when the last error says the transaction may
 * succeed if run again (PostgreSQL: a serialization failure or deadlock,
 * SQLSTATE 40001 or 40P01; reported as IMT_ERR_INTERNAL). Always 0 with
 * SQLite, whose one writer waits for the lock instead.
 */
int db_failed_retryable(struct db *db);

/*
 * The connection: open @path into @db (settings, version checks,
 * migrations), close it (every statement with it), and make the following
 * commits durable against a power loss (@on) or not. A @path starting with
 * "postgresql://" or "postgres://" is a libpq URI (db_pg_open.c), anything
 * else an SQLite file (db_sqlite_open.c).
 */
int db_conn_open(struct db *db, const char *path, struct imt_error *err);
void db_conn_close(struct db *db);
int db_conn_durable(struct db *db, int on, struct imt_error *err);

/*
 * db_conn_watch_outbox() - while @on, note in db->queued that the open
 * transaction inserted webhook_outbox rows (the schema's triggers do),
 * call db->queued_fn after its commit and forget it on a rollback.
 */
void db_conn_watch_outbox(struct db *db, int on);

#endif /* IMATRUST_DB_SQL_H */
