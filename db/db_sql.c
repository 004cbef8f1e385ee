// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_sql.c - db_sql.h over the backend chosen at open: each function is
 * one call through the backend's table (db_backend.h). The choice is the
 * path's scheme: a libpq URI is PostgreSQL, anything else an SQLite file.
 */

#include "db_backend.h"

int db_conn_open(struct db *db, const char *path, struct imt_error *err)
{
	const struct db_backend *be = db_is_uri(path) ? &db_pg_backend :
							&db_sqlite_backend;

	return be->open(db, path, err);
}

void db_conn_close(struct db *db)
{
	if (db->conn != NULL)
		db->conn->be->close(db);
}

int db_conn_durable(struct db *db, int on, struct imt_error *err)
{
	return db->conn->be->durable(db, on, err);
}

void db_conn_watch_outbox(struct db *db, int on)
{
	db->conn->be->watch_outbox(db, on);
}

enum db_dialect db_dialect(struct db *db)
{
	return db->conn->be->dialect;
}

struct db_stmt *db_stmt(struct db *db, const char *sql, struct imt_error *err)
{
	return db->conn->be->stmt(db, sql, err);
}

struct db_stmt *db_stmt_sql(struct db *db, const struct db_sql *sql,
			    struct imt_error *err)
{
	const struct db_backend *be = db->conn->be;

	return be->stmt(db,
			be->dialect == DB_DIALECT_PG ? sql->pg : sql->sqlite,
			err);
}

void db_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	st->be->bind_int64(st, i, v);
}

void db_bind_int(struct db_stmt *st, int i, int v)
{
	st->be->bind_int64(st, i, v);
}

void db_bind_text(struct db_stmt *st, int i, const char *s)
{
	st->be->bind_text(st, i, s);
}

void db_bind_blob(struct db_stmt *st, int i, const void *p, size_t len)
{
	st->be->bind_blob(st, i, p, len);
}

void db_bind_null(struct db_stmt *st, int i)
{
	st->be->bind_null(st, i);
}

enum db_step_result db_step(struct db_stmt *st)
{
	return st->be->step(st);
}

void db_reset(struct db_stmt *st)
{
	st->be->reset(st);
}

int64_t db_col_int64(struct db_stmt *st, int col)
{
	return st->be->col_int64(st, col);
}

int db_col_int(struct db_stmt *st, int col)
{
	return (int)st->be->col_int64(st, col);
}

const char *db_col_text(struct db_stmt *st, int col)
{
	return st->be->col_text(st, col);
}

const void *db_col_blob(struct db_stmt *st, int col)
{
	return st->be->col_blob(st, col);
}

int db_col_bytes(struct db_stmt *st, int col)
{
	return st->be->col_bytes(st, col);
}

int db_col_is_null(struct db_stmt *st, int col)
{
	return st->be->col_is_null(st, col);
}

int64_t db_changes(struct db *db)
{
	return db->conn->be->changes(db);
}

int64_t db_last_insert_id(struct db *db)
{
	return db->conn->be->last_insert_id(db);
}

int db_in_transaction(struct db *db)
{
	return db->conn->be->in_transaction(db);
}

int db_exec(struct db *db, const char *sql, const char *what,
	    struct imt_error *err)
{
	return db->conn->be->exec(db, sql, what, err);
}

int db_fail(struct db *db, struct imt_error *err, const char *what)
{
	return db->conn->be->fail(db, err, what);
}

int db_failed_unique(struct db *db)
{
	return db->conn->be->failed_unique(db);
}

int db_failed_retryable(struct db *db)
{
	return db->conn->be->failed_retryable(db);
}
