// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_pg_open.c - the PostgreSQL backend's connection: connect, session
 * settings, the checks that the database is ours and not newer, the
 * schema (db/schema/pg/, embedded in migrations_pg.c).
 *
 * PostgreSQL has no user_version or application_id: the one-row table
 * schema_version holds both (db/schema/pg/README.md). Several verifiers
 * may open one database at once: each migration runs in a transaction that
 * first takes the advisory lock DB_PG_LOCK, then reads the version, so one
 * applies it and the others see it applied.
 */
#include <stdlib.h>
#include <string.h>

#include "db_backend.h"
#include "db_cluster.h"
#include "db_pg.h"

/* "imat": the application id, also the key of the migration lock. */
#define DB_APPLICATION_ID 1768776052
#define DB_PG_LOCK "1768776052"

/*
 * synchronous_commit off, as SQLite's synchronous NORMAL: a commit does
 * not wait for its WAL flush (at most three wal_writer_delay later). A
 * crash of the server or the machine may lose the last commits, never
 * corrupts; the agents send again from the index the verifier has.
 * Evidence that must survive asks for db_durable_commits() (on).
 * client_encoding UTF8: the text the verifier binds; paths are bytea.
 * plan_cache_mode force_generic_plan: every statement finds rows by key,
 * so one plan per prepared statement serves every parameter; left to
 * choose, PostgreSQL plans the reference lookup (a CASE of four EXISTS)
 * again at each run, and a lookup took 2.2 ms instead of 0.29 ms
 * (test_db_ref, 100 000 references, on the loaded 2-core VM).
 * LISTEN (the writer): the changes other instances announce
 * (db_cluster.c).
 */
static const char sql_settings[] = "SET synchronous_commit = off;"
				   "SET client_encoding = 'UTF8';"
				   "SET client_min_messages = warning;"
				   "SET plan_cache_mode = force_generic_plan";
static const char sql_listen_change[] = "LISTEN " DB_CHANGE_CHANNEL;

/*
 * A reader's session (db_open_reader()): every transaction READ ONLY, so
 * a read route cannot write whatever it calls; applied again with the
 * other settings when the session is made again (db_pg.c, reconnect()).
 * It does not LISTEN: it reads policies and keys again at each snapshot
 * (verifier/engine/reader.c), and notifications nobody reads would only pile up
 * on its socket.
 */
static const char sql_read_only[] =
	"SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY";

int db_pg_settings(struct db *db, struct imt_error *err)
{
	PGconn *pg = db_pg_handle(db);
	const char *enc;

	if (db_pg_result(db, PQexec(pg, sql_settings), PGRES_COMMAND_OK,
			 "connection settings", err) < 0)
		return -1;
	if (db_pg_result(db,
			 PQexec(pg,
				db->reader ? sql_read_only : sql_listen_change),
			 PGRES_COMMAND_OK, db->reader ? "read only" : "listen",
			 err) < 0)
		return -1;
	enc = PQparameterStatus(pg, "client_encoding");
	if (enc == NULL || strcmp(enc, "UTF8") != 0)
		return db_err(err, IMT_ERR_INTERNAL,
			      "client_encoding is %s, not UTF8",
			      enc != NULL ? enc : "unknown");
	return 0;
}

/* One integer (or NULL: *null set) from a query without parameters. */
static int query_int(struct db *db, const char *sql, int64_t *out, int *null,
		     struct imt_error *err)
{
	PGresult *res = PQexec(db_pg_handle(db), sql);

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 ||
	    PQnfields(res) < 1) {
		if (PQresultStatus(res) == PGRES_TUPLES_OK) {
			PQclear(res);
			return db_err(err, IMT_ERR_INTERNAL, "%s: no row", sql);
		}
		return db_pg_result(db, res, PGRES_TUPLES_OK, sql, err);
	}
	*null = PQgetisnull(res, 0, 0);
	*out = *null ? 0 : strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return 0;
}

static const char sql_begin[] = "BEGIN";
static const char sql_commit[] = "COMMIT";
static const char sql_rollback[] = "ROLLBACK";
static const char sql_lock[] = "SELECT pg_advisory_xact_lock(" DB_PG_LOCK ")";
static const char sql_has_version[] =
	"SELECT (to_regclass('schema_version') IS NOT NULL)::int";
static const char sql_version[] = "SELECT version FROM schema_version";
static const char sql_app_id[] = "SELECT application_id FROM schema_version";
/* Tables in the schema we would create ours in. */
static const char sql_tables[] = "SELECT count(*) FROM pg_catalog.pg_tables "
				 "WHERE schemaname = current_schema()";

static int run(struct db *db, const char *sql, struct imt_error *err)
{
	return db_pg_result(db, PQexec(db_pg_handle(db), sql), PGRES_COMMAND_OK,
			    sql, err);
}

/*
 * The stored version, 0 for a database without our schema. Refuses one
 * that is not ours (another application_id, or tables but no
 * schema_version) or that a newer imatrust wrote: before anything is
 * written.
 */
static int read_version(struct db *db, int64_t *version, struct imt_error *err)
{
	int64_t has, n, app_id;
	int null;

	*version = 0;
	if (query_int(db, sql_has_version, &has, &null, err) < 0)
		return -1;
	if (!has) {
		if (query_int(db, sql_tables, &n, &null, err) < 0)
			return -1;
		if (n > 0)
			return db_err(err, IMT_ERR_UNSUPPORTED,
				      "not an imatrust database (%lld tables, "
				      "no schema_version)",
				      (long long)n);
		return 0;
	}
	if (query_int(db, sql_app_id, &app_id, &null, err) < 0 ||
	    query_int(db, sql_version, version, &null, err) < 0)
		return -1;
	if (app_id != DB_APPLICATION_ID)
		return db_err(err, IMT_ERR_UNSUPPORTED,
			      "not an imatrust database (application_id %lld)",
			      (long long)app_id);
	if (*version > db_schema_version())
		return db_err(err, IMT_ERR_UNSUPPORTED,
			      "database schema version %lld is newer than "
			      "this imatrust supports (%d): upgrade imatrust",
			      (long long)*version, db_schema_version());
	return 0;
}

/*
 * One step under the lock: apply the first migration above the stored
 * version, or find there is none (*done). The baseline (the first file)
 * applies to an empty database only.
 */
static int migrate_step(struct db *db, int *done, struct imt_error *err)
{
	const struct db_migration *m = NULL;
	int64_t version;
	size_t i;

	if (run(db, sql_begin, err) < 0)
		return -1;
	if (db_pg_result(db, PQexec(db_pg_handle(db), sql_lock),
			 PGRES_TUPLES_OK, "migration lock", err) < 0 ||
	    read_version(db, &version, err) < 0)
		goto fail;
	for (i = 0; i < db_pg_migration_count && m == NULL; i++) {
		if (db_pg_migrations[i].version > version)
			m = &db_pg_migrations[i];
	}
	*done = m == NULL;
	if (m == NULL)
		return run(db, sql_commit, err);
	if (version != 0 && m == &db_pg_migrations[0]) {
		db_err(err, IMT_ERR_INTERNAL,
		       "schema version %lld, below the "
		       "PostgreSQL baseline %d",
		       (long long)version, m->version);
		goto fail;
	}
	if (db_migration_exec(db, m, err) < 0 ||
	    read_version(db, &version, err) < 0)
		goto fail;
	if (version != m->version) {
		db_err(err, IMT_ERR_INTERNAL, "%s left version %lld, not %d",
		       m->name, (long long)version, m->version);
		goto fail;
	}
	return run(db, sql_commit, err);
fail:
	run(db, sql_rollback, NULL);
	return -1;
}

static int migrate(struct db *db, struct imt_error *err)
{
	int done = 0;

	while (!done) {
		if (migrate_step(db, &done, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * A reader (db_open_reader()): the schema the writer migrated to (its
 * session is READ ONLY: db_pg_settings()).
 */
static int pg_reader_check(struct db *db, struct imt_error *err)
{
	int64_t version;

	if (read_version(db, &version, err) < 0)
		return -1;
	return db_reader_version_check(version, err);
}

int db_pg_open(struct db *db, const char *path, struct imt_error *err)
{
	PGconn *pg = PQconnectdb(path);

	if (pg == NULL)
		return db_err(err, IMT_ERR_INTERNAL,
			      "postgresql: out of memory");
	if (PQstatus(pg) != CONNECTION_OK) {
		/* the URI may hold a password: not repeated here */
		db_err(err, IMT_ERR_INTERNAL, "postgresql: %.*s",
		       (int)strcspn(PQerrorMessage(pg), "\n"),
		       PQerrorMessage(pg));
		PQfinish(pg);
		return -1;
	}
	if (db_pg_conn_new(db, pg) < 0) {
		PQfinish(pg);
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	}
	if (db_pg_settings(db, err) < 0)
		return -1; /* db_close() closes what did open */
	return db->reader ? pg_reader_check(db, err) : migrate(db, err);
}
