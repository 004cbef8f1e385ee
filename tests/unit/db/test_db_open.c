// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_open.c - opening, connection settings and schema migrations.
 */
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db_machine.h"
#include "db_nonce.h"
#include "db_test.h"

#define SCHEMA_DIR FIXTURE_DIR "/../../db/schema"

/* What a new PostgreSQL database holds after db_open(). */
static void check_pg_opened(struct tdb *t)
{
	assert_int_equal(tdb_int(t, "SELECT version FROM schema_version"),
			 db_schema_version());
	assert_int_equal(tdb_int(t, "SELECT application_id FROM "
				    "schema_version"),
			 1768776052);
	assert_int_equal(tdb_int(t,
				 "SELECT count(*) FROM pg_tables WHERE "
				 "schemaname = current_schema() AND "
				 "tablename IN ('sources', 'files', 'digests', "
				 "'refs', 'machines', 'boots', 'record_chunks', "
				 "'events', 'nonces', 'tokens')"),
			 10);
	/* as SQLite's synchronous NORMAL (db_pg_open.c) */
	assert_int_equal(tdb_int(t, "SELECT setting = 'off' FROM pg_settings "
				    "WHERE name = 'synchronous_commit'"),
			 1);
}

static void test_open_empty_migrates(void **state)
{
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_true(db_schema_version() >= 1);
	if (tdb_pg_uri() != NULL) {
		check_pg_opened(&t);
		tdb_remove(&t);
		return;
	}
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sqlite_master "
				     "WHERE type = 'table' AND name IN "
				     "('sources', 'files', 'digests', 'refs', "
				     "'machines', 'boots', 'record_chunks', "
				     "'events', 'nonces', 'tokens')"),
			 10);
	assert_int_equal(tdb_int(&t, "PRAGMA foreign_keys"), 1);
	assert_int_equal(tdb_int(&t, "PRAGMA synchronous"), 1); /* NORMAL */
	/* fewer, larger checkpoints (db_sqlite_open.c) */
	assert_int_equal(tdb_int(&t, "PRAGMA wal_autocheckpoint"), 8000);
	assert_int_equal(tdb_int(&t, "PRAGMA busy_timeout"),
			 DB_BUSY_TIMEOUT_MS);
	assert_int_equal(tdb_int(&t, "SELECT journal_mode = 'wal' FROM "
				     "pragma_journal_mode"),
			 1);
	/* one thread at a time (db.h): SQLite's own mutex is not taken on
	 * every call, nor its allocation statistics kept */
	assert_null(sqlite3_db_mutex(db_sqlite_handle(t.db)));
	assert_int_equal(sqlite3_memory_used(), 0);
	tdb_remove(&t);
}

static void test_reopen_idempotent(void **state)
{
	struct db_machine m;
	struct tdb t;
	int found, i;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	for (i = 0; i < 3; i++) {
		tdb_close(&t);
		tdb_open(&t);
		assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
				 db_schema_version());
	}
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, NULL), 0);
	assert_int_equal(found, 1);
	db_machine_release(&m);
	tdb_remove(&t);
}

/* Set a pragma with a raw connection, as another program might. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *s;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

static int64_t raw_int(const char *path, const char *sql)
{
	sqlite3_stmt *st;
	sqlite3 *s;
	int64_t v;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(s, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(s);
	return v;
}

/*
 * PostgreSQL: change schema_version (or make a foreign table) as another
 * program might, then open: refused, and untouched.
 */
static void pg_refused(const char *change, const char *what)
{
	struct imt_error err;
	struct db *db = (struct db *)1;
	struct tdb t;

	tdb_path(&t);
	if (change[0] != '\0') {
		tdb_open(&t);
		tdb_exec(&t, change);
		tdb_close(&t);
	} else {
		tdb_open(&t);
		tdb_exec(&t, "DROP TABLE schema_version");
		tdb_close(&t);
	}
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_null(db);
	assert_int_equal(err.status, IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, what));
	print_message("refused: %s\n", err.msg);
	tdb_remove(&t);
}

static void test_newer_schema_refused(void **state)
{
	struct imt_error err;
	struct db *db = (struct db *)1;
	struct tdb t;

	(void)state;
	if (tdb_pg_uri() != NULL) {
		pg_refused("UPDATE schema_version SET version = 999", "newer");
		return;
	}
	tdb_new(&t);
	tdb_close(&t);
	raw_exec(t.path, "PRAGMA user_version = 999");
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_null(db);
	assert_int_equal(err.status, IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "newer"));
	print_message("refused: %s\n", err.msg);
	/* Refused means untouched. */
	assert_int_equal(raw_int(t.path, "PRAGMA user_version"), 999);
	tdb_remove(&t);
}

static void test_foreign_database_refused(void **state)
{
	struct imt_error err;
	struct db *db;
	struct tdb t;

	(void)state;
	if (tdb_pg_uri() != NULL) {
		pg_refused("UPDATE schema_version SET application_id = 42",
			   "not an imatrust database");
		/* tables but no schema_version: someone else's */
		pg_refused("", "not an imatrust database");
		return;
	}
	tdb_path(&t);
	raw_exec(t.path, "PRAGMA application_id = 42;"
			 "CREATE TABLE x (y INTEGER)");
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_UNSUPPORTED);
	/* Not switched to WAL either: we did not touch it. */
	assert_int_equal(raw_int(t.path, "SELECT journal_mode = 'delete' "
					 "FROM pragma_journal_mode"),
			 1);
	t.db = NULL;
	tdb_remove(&t);
}

/* A new file is 0600 whatever the umask; one its group or others may
 * read is refused, naming the fix, and left as it was. */
static void test_file_mode(void **state)
{
	struct imt_error err;
	struct stat st;
	struct db *db;
	struct tdb t;
	mode_t old;

	(void)state;
	tdb_path(&t);
	assert_int_equal(unlink(t.path), 0);
	old = umask(022);
	assert_int_equal(db_open(t.path, &db, &err), 0);
	umask(old);
	db_close(db);
	assert_int_equal(stat(t.path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	assert_int_equal(chmod(t.path, 0640), 0);
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_non_null(strstr(err.msg, "mode 0640"));
	assert_non_null(strstr(err.msg, "chmod 600"));
	assert_int_equal(chmod(t.path, 0604), 0);
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_int_equal(chmod(t.path, 0600), 0);
	assert_int_equal(db_open(t.path, &db, &err), 0);
	db_close(db);
	unlink(t.path);
}

/* An unversioned file with tables of its own fails the migration. */
static void test_unversioned_database_fails_cleanly(void **state)
{
	struct imt_error err;
	struct db *db;
	struct tdb t;

	(void)state;
	tdb_path(&t);
	raw_exec(t.path, "CREATE TABLE files (x TEXT)");
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_INTERNAL);
	assert_int_equal(raw_int(t.path, "PRAGMA user_version"), 0);
	assert_int_equal(raw_int(t.path, "SELECT count(*) FROM sqlite_master"),
			 1);
	t.db = NULL;
	tdb_remove(&t);
}

/* What a log line shows of a database: no password. */
static void test_path_for_log(void **state)
{
	static const char *const cases[][2] = {
		{ "/var/lib/imatrust/verifier.db",
		  "/var/lib/imatrust/verifier.db" },
		{ "postgresql://v:s3cret@db.example:5432/imatrust",
		  "postgresql://v:***@db.example:5432/imatrust" },
		{ "postgres://v@db/imatrust?password=s3cret&sslmode=require",
		  "postgres://v@db/imatrust?password=***&sslmode=require" },
		{ "postgresql:///imatrust?host=/run/pg&user=v",
		  "postgresql:///imatrust?host=/run/pg&user=v" },
		{ "postgresql://db/x?password=a&password=b",
		  "postgresql://db/x?password=***&password=***" },
	};
	char out[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		db_path_for_log(cases[i][0], out, sizeof(out));
		assert_string_equal(out, cases[i][1]);
	}
	db_path_for_log("postgresql://u:pw@h/d", out, 12);
	assert_null(strstr(out, "pw"));
	assert_int_equal(db_is_uri("postgres://h/d"), 1);
	assert_int_equal(db_is_uri("/tmp/postgresql://x"), 0);
}

static void test_bad_arguments(void **state)
{
	struct imt_error err;
	struct db *db;

	(void)state;
	assert_int_equal(db_open(NULL, &db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_open("", &db, &err), -1);
	assert_int_equal(db_open("/nonexistent/dir/x.db", &db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_INTERNAL);
	assert_int_equal(db_open("/nonexistent/x.db", NULL, NULL), -1);
	db_close(NULL);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size >= 0);
	rewind(f);
	buf = malloc((size_t)size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	buf[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* db/migrations.c must equal the db/schema files byte for byte. */
static void test_migrations_match_sql_files(void **state)
{
	char path[1024];
	glob_t g;
	size_t i, len;
	char *sql;

	(void)state;
	assert_int_equal(glob(SCHEMA_DIR "/[0-9][0-9][0-9][0-9]_*.sql", 0, NULL,
			      &g),
			 0);
	assert_int_equal(g.gl_pathc, db_migration_count);
	for (i = 0; i < db_migration_count; i++) {
		assert_int_equal(db_migrations[i].version, (int)i + 1);
		snprintf(path, sizeof(path), "%s/%s.sql", SCHEMA_DIR,
			 db_migrations[i].name);
		sql = read_file(path, &len);
		if (len != strlen(db_migrations[i].sql) ||
		    memcmp(sql, db_migrations[i].sql, len) != 0)
			fail_msg("%s differs from db/migrations.c: run "
				 "db/gen-migrations.sh > db/migrations.c",
				 path);
		free(sql);
	}
	globfree(&g);
}

/* db/migrations_pg.c must equal db/schema/pg, and end at SQLite's version. */
static void test_pg_migrations_match_sql_files(void **state)
{
	char path[1024];
	glob_t g;
	size_t i, len;
	char *sql;

	(void)state;
	assert_int_equal(glob(SCHEMA_DIR "/pg/[0-9][0-9][0-9][0-9]_*.sql", 0,
			      NULL, &g),
			 0);
	assert_int_equal(g.gl_pathc, db_pg_migration_count);
	for (i = 0; i < db_pg_migration_count; i++) {
		if (i > 0)
			assert_int_equal(db_pg_migrations[i].version,
					 db_pg_migrations[i - 1].version + 1);
		snprintf(path, sizeof(path), "%s/pg/%s.sql", SCHEMA_DIR,
			 db_pg_migrations[i].name);
		sql = read_file(path, &len);
		if (len != strlen(db_pg_migrations[i].sql) ||
		    memcmp(sql, db_pg_migrations[i].sql, len) != 0)
			fail_msg("%s differs from db/migrations_pg.c: run "
				 "db/gen-migrations.sh pg > db/migrations_pg.c",
				 path);
		free(sql);
	}
	globfree(&g);
	assert_int_equal(db_pg_migrations[db_pg_migration_count - 1].version,
			 db_schema_version());
}

/* Kill @t's server process from another connection, as a restart would. */
static void pg_kill_backend(struct tdb *t)
{
	PGconn *pg = PQconnectdb(t->path);
	char sql[128];
	PGresult *res;

	assert_int_equal(PQstatus(pg), CONNECTION_OK);
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)",
		 PQbackendPID(db_pg_handle(t->db)));
	res = PQexec(pg, sql);
	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	PQclear(res);
	PQfinish(pg);
	usleep(100 * 1000); /* its goodbye reaches our socket */
}

/*
 * A lost connection between calls: the next call reconnects (and prepares
 * its statements again). Lost inside a transaction: that call fails with
 * "connection lost", the batch with it, the call after reconnects.
 */
static void test_pg_reconnect(void **state)
{
	uint8_t n[16] = { 1 };
	struct imt_error err;
	struct db_machine m;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	pg_kill_backend(&t);
	if (db_machine_get(t.db, "m1", &m, &found, &err) < 0)
		fail_msg("after the kill: %s", err.msg);
	assert_int_equal(found, 1);
	db_machine_release(&m);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 9,
					&err),
			 0);

	assert_int_equal(db_batch_begin(t.db, &err), 0);
	pg_kill_backend(&t);
	n[0] = 2;
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 9,
					&err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_INTERNAL);
	print_message("in a batch: %s\n", err.msg);
	assert_non_null(strstr(err.msg, "connection lost"));
	assert_int_equal(db_batch_commit(t.db, &err), -1);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 9,
					&err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM nonces WHERE "
				     "value = '\\x02'::bytea || "
				     "decode(repeat('00', 15), 'hex')"),
			 1);
	tdb_remove(&t);
}

/* A restart of the server (run-pg.sh's script) between two calls. */
static void test_pg_restart(void **state)
{
	const char *restart = getenv("IMATRUST_TEST_PG_RESTART");
	uint8_t n[16] = { 4 };
	struct imt_error err;
	struct tdb t;
	int i;

	(void)state;
	if (restart == NULL)
		fail_msg("IMATRUST_TEST_PG_RESTART is not set: run the "
			 "PostgreSQL tests through tests/unit/db/run-pg.sh");
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	for (i = 0; i < 2; i++) {
		assert_int_equal(system(restart), 0);
		n[1] = (uint8_t)i;
		if (db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 9, &err) <
		    0)
			fail_msg("after restart %d: %s", i, err.msg);
	}
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM nonces"), 1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_empty_migrates),
		cmocka_unit_test(test_reopen_idempotent),
		cmocka_unit_test(test_newer_schema_refused),
		cmocka_unit_test(test_foreign_database_refused),
		cmocka_unit_test(test_path_for_log),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_migrations_match_sql_files),
		cmocka_unit_test(test_pg_migrations_match_sql_files),
	};
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_unversioned_database_fails_cleanly),
		cmocka_unit_test(test_file_mode),
	};
	const struct CMUnitTest pg_tests[] = {
		cmocka_unit_test(test_pg_reconnect),
		cmocka_unit_test(test_pg_restart),
	};

	return tdb_run3(tests, sqlite_tests, pg_tests);
}
