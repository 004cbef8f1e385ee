// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_reader.c - db_open_reader() (issue #33): a read-only second
 * connection that sees what the writer committed, keeps one snapshot
 * between db_read_begin() and db_read_end() while the writer commits
 * beside it without waiting, and cannot write; on SQLite, the file must
 * be the writer's, private and in WAL mode, and opening the reader must
 * not drop the writer's locks on it.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "db_test.h"
#include "db_token.h"

#define TOK_A "token-of-alice-0123456789"
#define TOK_B "token-of-bob-0123456789ab"

static int token_ok(struct db *db, const char *tok)
{
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	int ok = -1;

	if (db_token_check(db, (const uint8_t *)tok, strlen(tok), name, &ok,
			   &err) < 0)
		fail_msg("db_token_check: %s", err.msg);
	return ok;
}

static void add_token(struct db *db, const char *name, const char *tok)
{
	struct imt_error err;

	if (db_token_add(db, name, (const uint8_t *)tok, strlen(tok), T_NOW,
			 &err) < 0)
		fail_msg("db_token_add: %s", err.msg);
}

static void test_reader_sees_commits(void **state)
{
	struct tdb t;
	struct db *r;
	struct imt_error err;

	(void)state;
	tdb_new(&t);
	if (db_open_reader(t.path, &r, &err) < 0)
		fail_msg("db_open_reader: %s", err.msg);
	assert_int_equal(token_ok(r, TOK_A), 0);
	add_token(t.db, "alice", TOK_A);
	assert_int_equal(token_ok(r, TOK_A), 1);
	db_close(r);
	tdb_remove(&t);
}

/* One snapshot: the writer commits beside it, the reader sees it after. */
static void test_reader_snapshot(void **state)
{
	struct tdb t;
	struct db *r;
	struct imt_error err;

	(void)state;
	tdb_new(&t);
	add_token(t.db, "alice", TOK_A);
	if (db_open_reader(t.path, &r, &err) < 0)
		fail_msg("db_open_reader: %s", err.msg);
	assert_int_equal(db_read_begin(r, &err), 0);
	assert_int_equal(token_ok(r, TOK_A), 1);
	assert_int_equal(token_ok(r, TOK_B), 0);
	add_token(t.db, "bob", TOK_B); /* does not wait for the reader */
	assert_int_equal(token_ok(r, TOK_B), 0);
	db_read_end(r);
	assert_int_equal(token_ok(r, TOK_B), 1);
	db_read_end(r); /* none open: nothing */
	db_close(r);
	tdb_remove(&t);
}

static void test_reader_cannot_write(void **state)
{
	struct tdb t;
	struct db *r;
	struct imt_error err;

	(void)state;
	tdb_new(&t);
	if (db_open_reader(t.path, &r, &err) < 0)
		fail_msg("db_open_reader: %s", err.msg);
	assert_int_equal(db_token_add(r, "mallory", (const uint8_t *)TOK_B,
				      strlen(TOK_B), T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_INTERNAL);
	assert_int_equal(token_ok(t.db, TOK_B), 0);
	/* a snapshot is a reader's only */
	assert_int_equal(db_read_begin(t.db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	db_close(r);
	tdb_remove(&t);
}

/* SQLite: the writer's file, private, migrated, in WAL mode. */
static void test_reader_file_checks(void **state)
{
	struct tdb t;
	struct db *r = NULL;
	struct imt_error err;
	char missing[600];

	(void)state;
	tdb_path(&t);
	/* an empty file no writer migrated */
	assert_int_equal(db_open_reader(t.path, &r, &err), -1);
	assert_null(r);
	assert_non_null(strstr(err.msg, "open the writer first"));
	tdb_open(&t);
	assert_int_equal(chmod(t.path, 0644), 0);
	assert_int_equal(db_open_reader(t.path, &r, &err), -1);
	assert_non_null(strstr(err.msg, "chmod 600"));
	assert_int_equal(chmod(t.path, 0600), 0);
	snprintf(missing, sizeof(missing), "%s-none", t.path);
	assert_int_equal(db_open_reader(missing, &r, &err), -1);
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	assert_int_equal(access(missing, F_OK), -1); /* not made */
	if (db_open_reader(t.path, &r, &err) < 0)
		fail_msg("db_open_reader: %s", err.msg);
	db_close(r);
	tdb_remove(&t);
}

/* PostgreSQL: end @r's session from another one, as a restart would. */
static void pg_kill_session(const char *uri, struct db *r)
{
	PGconn *pg = PQconnectdb(uri);
	char sql[128];
	PGresult *res;

	assert_int_equal(PQstatus(pg), CONNECTION_OK);
	snprintf(sql, sizeof(sql), "SELECT pg_terminate_backend(%d)",
		 PQbackendPID(db_pg_handle(r)));
	res = PQexec(pg, sql);
	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	PQclear(res);
	PQfinish(pg);
	usleep(100 * 1000); /* its goodbye reaches our socket */
}

/* PostgreSQL: the channels @db's session LISTENs on. */
static int pg_listening(struct db *db)
{
	PGresult *res = PQexec(db_pg_handle(db), "SELECT count(*) FROM "
						 "pg_listening_channels()");
	int n;

	assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
	n = atoi(PQgetvalue(res, 0, 0));
	PQclear(res);
	return n;
}

/*
 * PostgreSQL: a reader's session made again (a restart, a session ended)
 * is read-only again, and the next snapshot is taken on it; the reader
 * listens to nothing, before and after.
 */
static void test_reader_reconnect_read_only(void **state)
{
	struct tdb t;
	struct db *r;
	struct imt_error err;

	(void)state;
	tdb_new(&t);
	add_token(t.db, "alice", TOK_A);
	if (db_open_reader(t.path, &r, &err) < 0)
		fail_msg("db_open_reader: %s", err.msg);
	assert_int_equal(pg_listening(r), 0);
	assert_int_equal(pg_listening(t.db), 1);
	pg_kill_session(t.path, r);
	assert_int_equal(token_ok(r, TOK_A), 1); /* reconnected */
	assert_int_equal(db_token_add(r, "mallory", (const uint8_t *)TOK_B,
				      strlen(TOK_B), T_NOW, &err),
			 -1);
	assert_non_null(strstr(err.msg, "read-only"));
	assert_int_equal(token_ok(t.db, TOK_B), 0);
	assert_int_equal(pg_listening(r), 0);
	/* a snapshot begun on a session that has gone */
	pg_kill_session(t.path, r);
	if (db_read_begin(r, &err) < 0)
		fail_msg("db_read_begin after a lost session: %s", err.msg);
	assert_int_equal(token_ok(r, TOK_A), 1);
	add_token(t.db, "bob", TOK_B);
	assert_int_equal(token_ok(r, TOK_B), 0); /* one snapshot */
	db_read_end(r);
	assert_int_equal(token_ok(r, TOK_B), 1);
	db_close(r);
	tdb_remove(&t);
}

/* The other process (main(): --other PATH TOKEN): 0 stored, 1 not. */
static int other_main(const char *path, const char *tok)
{
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	struct db *db;
	int ok = 0;

	if (db_open(path, &db, &err) < 0)
		return 2;
	if (db_token_check(db, (const uint8_t *)tok, strlen(tok), name, &ok,
			   &err) < 0)
		return 3;
	db_close(db);
	return ok ? 0 : 1;
}

/*
 * A process of its own (this binary again, not a fork: a fork shares
 * SQLite's record of this process's locks): open @path, read whether
 * token @tok is stored there, close it; 0 when it is, 1 when not.
 */
static int other_process(const char *path, const char *tok)
{
	char *const argv[] = { "test_db_reader", "--other", (char *)path,
			       (char *)tok, NULL };
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * Opening the reader keeps the writer's locks: another process that
 * opens and closes the database must not find it unused (and delete the
 * WAL under the writer), so what the writer commits next is what the
 * next process reads.
 */
static void test_reader_keeps_locks(void **state)
{
	struct tdb t;
	struct db *r;
	struct imt_error err;

	(void)state;
	tdb_new(&t);
	if (db_open_reader(t.path, &r, &err) < 0)
		fail_msg("db_open_reader: %s", err.msg);
	assert_int_equal(other_process(t.path, TOK_A), 1);
	add_token(t.db, "alice", TOK_A);
	assert_int_equal(other_process(t.path, TOK_A), 0);
	add_token(t.db, "bob", TOK_B);
	assert_int_equal(other_process(t.path, TOK_B), 0);
	db_close(r);
	tdb_remove(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest common[] = {
		cmocka_unit_test(test_reader_sees_commits),
		cmocka_unit_test(test_reader_snapshot),
		cmocka_unit_test(test_reader_cannot_write),
	};
	const struct CMUnitTest sqlite_only[] = {
		cmocka_unit_test(test_reader_file_checks),
		cmocka_unit_test(test_reader_keeps_locks),
	};
	const struct CMUnitTest pg_only[] = {
		cmocka_unit_test(test_reader_reconnect_read_only),
	};

	if (argc == 4 && strcmp(argv[1], "--other") == 0)
		return other_main(argv[2], argv[3]);
	return tdb_run3(common, sqlite_only, pg_only);
}
