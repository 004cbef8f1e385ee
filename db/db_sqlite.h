/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_sqlite.h - what the two SQLite backend files (db_sqlite.c,
 * db_sqlite_open.c) share, and the one accessor the db unit tests use to
 * inspect or damage the file behind the library's back. No module
 * includes it: they see db_sql.h only.
 */
#ifndef IMATRUST_DB_SQLITE_H
#define IMATRUST_DB_SQLITE_H

#include <sqlite3.h>

#include "result.h"

struct db;

/* db_sqlite_conn_new() - hang the opened @sql on @db; 0, or -1 (memory). */
int db_sqlite_conn_new(struct db *db, sqlite3 *sql);

/* The connection functions of db_sqlite_open.c, in db_sqlite_backend. */
int db_sqlite_open(struct db *db, const char *path, struct imt_error *err);
int db_sqlite_durable(struct db *db, int on, struct imt_error *err);

/* db_sqlite_handle() - for tests only: the connection of @db (NULL when
 * @db is not an SQLite database). */
sqlite3 *db_sqlite_handle(struct db *db);

#endif /* IMATRUST_DB_SQLITE_H */
