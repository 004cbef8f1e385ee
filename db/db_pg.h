/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_pg.h - what the two PostgreSQL backend files (db_pg.c, db_pg_open.c)
 * share, and the accessor the db unit tests use to query the database
 * behind the library's back. No module includes it: they see db_sql.h.
 */
#ifndef IMATRUST_DB_PG_H
#define IMATRUST_DB_PG_H

#include <libpq-fe.h>

#include "db_internal.h"

/* The embedded schema/pg/NNNN_name.sql (migrations_pg.c, generated). */
extern const struct db_migration db_pg_migrations[];
extern const size_t db_pg_migration_count;

/* db_pg_conn_new() - hang the connected @pg on @db; 0, or -1 (memory). */
int db_pg_conn_new(struct db *db, PGconn *pg);

/*
 * db_pg_result() - check @res (which it clears) of a PQexec on @db's
 * connection: 0 when it is @want, else -1 with the error noted for
 * db_fail() and @err filled naming @what.
 */
int db_pg_result(struct db *db, PGresult *res, ExecStatusType want,
		 const char *what, struct imt_error *err);

/* db_pg_open() - db_conn_open() of a libpq URI (db_pg_open.c). */
int db_pg_open(struct db *db, const char *path, struct imt_error *err);
/* db_pg_settings() - the session settings, again after a reconnect. */
int db_pg_settings(struct db *db, struct imt_error *err);

/* db_pg_handle() - for tests only: the connection of @db (NULL when @db
 * is not a PostgreSQL database). */
PGconn *db_pg_handle(struct db *db);

#endif /* IMATRUST_DB_PG_H */
