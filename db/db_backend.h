/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_backend.h - what a storage backend hands db_sql.c: one table of
 * functions per engine (db_sqlite.c, db_pg.c), chosen when the database
 * is opened (db_backend_of()). db_sql.c's functions are one indirect call
 * into it; only the db/ backend files and db_sql.c include this.
 *
 * Each backend's connection and statement structs start with the common
 * head below, so the dispatch needs no more than the pointer it is given.
 */
#ifndef IMATRUST_DB_BACKEND_H
#define IMATRUST_DB_BACKEND_H

#include "db_internal.h"

struct db_backend;

/* The head of every backend's connection (db->conn). */
struct db_conn {
	const struct db_backend *be;
};

/* The head of every backend's cached statement. */
struct db_stmt {
	const struct db_backend *be;
};

/*
 * The statements a connection prepared (db_stmt_cache.c). Each is
 * allocated alone by its backend, so the pointer a caller holds survives
 * the array growing; the keys sit in the array beside them, so a lookup
 * reads one run of memory, not every statement. At most
 * DB_STMT_CACHE_MAX: the library has fewer than 200 texts, and a text
 * assembled at run time (a new address per call) fills the rest within
 * minutes instead of growing without end.
 */
struct db_stmt_slot {
	const char *sql; /* the key: its static text's address */
	struct db_stmt *st;
};

struct db_stmt_cache {
	struct db_stmt_slot *slots;
	size_t n;
	size_t cap; /* bytes allocated for slots */
};

/* db_stmt_cache_find() - the statement keyed @sql, NULL when none yet. */
struct db_stmt *db_stmt_cache_find(const struct db_stmt_cache *c,
				   const char *sql);

/*
 * db_stmt_cache_add() - keep @st under @sql in @c. -1 with @err
 * IMT_ERR_LIMIT past DB_STMT_CACHE_MAX or IMT_ERR_INTERNAL out of memory;
 * @st is then still the caller's.
 */
int db_stmt_cache_add(struct db_stmt_cache *c, const char *sql,
		      struct db_stmt *st, struct imt_error *err);

/*
 * db_stmt_cache_release() - hand each statement to @destroy (its
 * backend's), then free the array.
 */
void db_stmt_cache_release(struct db_stmt_cache *c,
			   void (*destroy)(struct db_stmt *st));

struct db_backend {
	const char *name;	 /* "sqlite", "postgresql" */
	enum db_dialect dialect; /* which text of a struct db_sql */
	/* The connection: db_conn_*() of db_sql.h. open sets db->conn. */
	int (*open)(struct db *db, const char *path, struct imt_error *err);
	void (*close)(struct db *db);
	int (*durable)(struct db *db, int on, struct imt_error *err);
	void (*watch_outbox)(struct db *db, int on);
	/* Statements, binders, steps and columns: as in db_sql.h. */
	struct db_stmt *(*stmt)(struct db *db, const char *sql,
				struct imt_error *err);
	void (*bind_int64)(struct db_stmt *st, int i, int64_t v);
	void (*bind_text)(struct db_stmt *st, int i, const char *s);
	void (*bind_blob)(struct db_stmt *st, int i, const void *p, size_t len);
	void (*bind_null)(struct db_stmt *st, int i);
	enum db_step_result (*step)(struct db_stmt *st);
	void (*reset)(struct db_stmt *st);
	int64_t (*col_int64)(struct db_stmt *st, int col);
	const char *(*col_text)(struct db_stmt *st, int col);
	const void *(*col_blob)(struct db_stmt *st, int col);
	int (*col_bytes)(struct db_stmt *st, int col);
	int (*col_is_null)(struct db_stmt *st, int col);
	/* The connection's state and last error. */
	int64_t (*changes)(struct db *db);
	int64_t (*last_insert_id)(struct db *db);
	int (*in_transaction)(struct db *db);
	int (*exec)(struct db *db, const char *sql, const char *what,
		    struct imt_error *err);
	int (*fail)(struct db *db, struct imt_error *err, const char *what);
	int (*failed_unique)(struct db *db);
	int (*failed_retryable)(struct db *db);
};

extern const struct db_backend db_sqlite_backend; /* db_sqlite.c */
extern const struct db_backend db_pg_backend;	  /* db_pg.c */

#endif /* IMATRUST_DB_BACKEND_H */
