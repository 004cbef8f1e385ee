// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_sqlite_open.c - the SQLite backend's connection: open the file,
 * connection settings, the checks that it is ours and not newer, the
 * schema migrations (PRAGMA user_version), durable commits.
 *
 * A PostgreSQL backend keeps its schema version elsewhere and has its own
 * settings; what it shares with this file is db_sql.h's db_conn_*().
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db_internal.h"
#include "db_sqlite.h"

/* "imat": set by 0001_initial.sql, checked before touching a file. */
#define DB_APPLICATION_ID 1768776052

/* Run a statement that yields one integer (a PRAGMA read). */
static int db_int_query(struct db *db, const char *sql, int64_t *out,
			struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	if (db_step(st) != DB_ROW) {
		db_fail(db, err, sql);
		db_reset(st);
		return -1;
	}
	*out = db_col_int64(st, 0);
	db_reset(st);
	return 0;
}

static const char sql_journal_wal[] = "PRAGMA journal_mode = WAL";
static const char sql_foreign_keys[] = "PRAGMA foreign_keys";
static const char sql_user_version[] = "PRAGMA user_version";
static const char sql_application_id[] = "PRAGMA application_id";

/*
 * The connection settings, applied on every open (none of them is stored
 * in the file except journal_mode, and that one is cheap to repeat).
 *
 * synchronous = NORMAL in WAL mode: a commit appends to the WAL without
 * an fsync; the WAL is synced at checkpoints. A process crash (SIGKILL,
 * abort) loses nothing that was committed, since the WAL is in the page
 * cache. A power loss or kernel crash may lose the last transactions
 * committed since the previous checkpoint, but never corrupts the
 * database: recovery replays the WAL up to the last intact commit frame.
 * For the verifier that means at worst re-receiving a few batches of
 * evidence after a power cut (the agent resumes from the index we have),
 * in exchange for not paying an fsync on every evidence batch.
 *
 * trusted_schema = ON: the events table CHECKs json_valid(), which SQLite
 * 3.40 does not mark innocuous, so a build defaulting to OFF would reject
 * our own schema. The file is the verifier's own (in its private state
 * directory); whoever can rewrite its schema can rewrite its data anyway.
 * cache_size: 64 MiB of pages at most (the default is 2 MiB), so the
 * reference tables a lookup walks stay in the process rather than being
 * read from the kernel again: judging a record took 10.7 us against
 * 200,000 references and 7.2 us with it (tests/bench/replay). mmap_size
 * gained another 1.3 us but turns a read error into SIGBUS, so it is off.
 * wal_autocheckpoint = 8000 pages (32 MiB; SQLite's default is 1,000):
 * evidence rewrites the same few pages (the nonce rows, each boot's last
 * page of records), and a checkpoint copies a page once however often
 * the WAL holds it, so fewer checkpoints copy less. The verifier's CPU
 * per attestation fell about 10 % with it, heartbeats and 50-record
 * evidence alike (tests/bench/verifier, eight alternating pairs,
 * tests/bench/README.md). The price: the WAL file keeps 32 MiB, one request in
 * 8,000 pages pays the longer checkpoint, and a power cut may lose the
 * commits of a longer span (still never corrupting the file).
 */
static const char sql_settings[] = "PRAGMA foreign_keys = ON;"
				   "PRAGMA synchronous = NORMAL;"
				   "PRAGMA trusted_schema = ON;"
				   "PRAGMA cache_size = -65536;"
				   "PRAGMA wal_autocheckpoint = 8000;";

static int db_configure(struct db *db, struct imt_error *err)
{
	sqlite3 *sql = db_sqlite_handle(db);
	int64_t fk;

	sqlite3_extended_result_codes(sql, 1);
	sqlite3_busy_timeout(sql, DB_BUSY_TIMEOUT_MS);
	/* Defensive mode: no writable_schema tricks that corrupt the file. */
	sqlite3_db_config(sql, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	if (db_exec(db, sql_settings, "connection settings", err) < 0)
		return -1;

	/* The pragma is silently ignored where unsupported: check it took. */
	if (db_int_query(db, sql_foreign_keys, &fk, err) < 0)
		return -1;
	if (fk != 1) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "foreign keys cannot be enabled");
		return -1;
	}
	return 0;
}

/* Switch to WAL (stored in the file) once we know the file is ours. */
static int db_wal(struct db *db, struct imt_error *err)
{
	struct db_stmt *st;
	const char *mode;
	enum db_step_result rc;

	st = db_stmt(db, sql_journal_wal, err);
	if (st == NULL)
		return -1;
	rc = db_step(st);
	mode = rc == DB_ROW ? db_col_text(st, 0) : NULL;
	if (mode == NULL || strcmp(mode, "wal") != 0) {
		if (rc == DB_ROW)
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "journal_mode is %s, not wal",
				      mode ? mode : "?");
		else
			db_fail(db, err, "journal_mode");
		db_reset(st);
		return -1;
	}
	db_reset(st);

	return 0;
}

/*
 * A migration carrying this line rebuilds a table others reference
 * (SQLite's twelve-step ALTER): it runs with foreign keys off, which can
 * only change outside a transaction, and they are checked before commit.
 */
#define DB_MIGRATION_FK_OFF "\n-- imatrust-migration: foreign_keys off\n"

/* The rows PRAGMA foreign_key_check finds, and the first of them. */
struct fk_rows {
	int n;
	char first[160];
};

/* A row of foreign_key_check: table, rowid (NULL: WITHOUT ROWID),
 * parent, fkid. */
static int fk_row(void *arg, int n, char **v, char **names)
{
	struct fk_rows *f = arg;

	(void)names;
	if (f->n++ == 0 && n >= 3)
		snprintf(f->first, sizeof(f->first),
			 "%s row %s refers to "
			 "no %s row",
			 v[0] ? v[0] : "?", v[1] ? v[1] : "(without rowid)",
			 v[2] ? v[2] : "?");
	return 0;
}

/*
 * Fail unless PRAGMA foreign_key_check finds nothing; name the first row
 * found (one of a machine deleted with foreign keys off, as the sqlite3
 * shell has them, is older than the migration: delete such rows first).
 */
static int db_fk_check(struct db *db, const struct db_migration *m,
		       struct imt_error *err)
{
	struct fk_rows f = { 0 };

	if (sqlite3_exec(db_sqlite_handle(db), "PRAGMA foreign_key_check",
			 fk_row, &f, NULL) != SQLITE_OK)
		return db_fail(db, err, m->name);
	if (f.n == 0)
		return 0;
	imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
		      "%s left %d foreign key violations, the first: %s",
		      m->name, f.n, f.first);
	return -1;
}

/* Apply migration @m inside one transaction; the caller checked order. */
static int db_migrate_txn(struct db *db, const struct db_migration *m,
			  int fk_off, struct imt_error *err)
{
	int64_t version;
	int rc = -1;

	if (db_begin(db, err) < 0)
		return -1;
	/* Another process may have migrated between our read and the lock. */
	if (db_int_query(db, sql_user_version, &version, err) < 0)
		goto out;
	if (version >= m->version) {
		rc = 0; /* nothing to do: roll back the empty txn */
		goto out;
	}
	if (version != m->version - 1) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "schema version %lld, cannot apply %s",
			      (long long)version, m->name);
		goto out;
	}
	if (db_migration_exec(db, m, err) < 0)
		goto out;
	if (fk_off && db_fk_check(db, m, err) < 0)
		goto out;
	if (db_int_query(db, sql_user_version, &version, err) < 0)
		goto out;
	if (version != m->version) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s left user_version %lld, not %d", m->name,
			      (long long)version, m->version);
		goto out;
	}
	return db_commit(db, err);
out:
	db_rollback(db);
	return rc;
}

static int db_migrate_one(struct db *db, const struct db_migration *m,
			  struct imt_error *err)
{
	int fk_off = strstr(m->sql, DB_MIGRATION_FK_OFF) != NULL;
	int rc;

	if (fk_off &&
	    db_exec(db, "PRAGMA foreign_keys = OFF", m->name, err) < 0)
		return -1;
	rc = db_migrate_txn(db, m, fk_off, err);
	if (fk_off && db_exec(db, "PRAGMA foreign_keys = ON", m->name, err) < 0)
		return -1;
	return rc;
}

/* Refuse files that are not ours or that a newer imatrust wrote. */
static int db_check_version(struct db *db, struct imt_error *err)
{
	int64_t version, app_id;

	if (db_int_query(db, sql_user_version, &version, err) < 0 ||
	    db_int_query(db, sql_application_id, &app_id, err) < 0)
		return -1;
	if (app_id != 0 && app_id != DB_APPLICATION_ID) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "not an imatrust database (application_id %lld)",
			      (long long)app_id);
		return -1;
	}
	if (version > db_schema_version()) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "database schema version %lld is newer than this "
			      "imatrust supports (%d): upgrade imatrust",
			      (long long)version, db_schema_version());
		return -1;
	}
	return 0;
}

static int db_migrate(struct db *db, struct imt_error *err)
{
	int64_t version;
	size_t i;

	if (db_int_query(db, sql_user_version, &version, err) < 0)
		return -1;
	for (i = 0; i < db_migration_count; i++) {
		if (db_migrations[i].version <= version)
			continue;
		if (db_migrate_one(db, &db_migrations[i], err) < 0)
			return -1;
	}
	return 0;
}

/*
 * Process-wide, before SQLite initializes: no memory statistics, which
 * nothing reads and which take a global mutex on every allocation.
 * SQLITE_MISUSE when something in the process initialized SQLite first;
 * then the statistics stay on, which costs speed only.
 */
static void sqlite_process_config(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/*
 * A reader's file is the writer's, already open in this process: it must
 * be there and private, and is looked at with lstat(), never opened.
 * Closing any descriptor of a file drops every POSIX lock the process
 * holds on it, the writer's included: another process would then find
 * the database unused, checkpoint and delete the WAL on its close, and
 * the writer's later commits would go to the unlinked WAL, where no other
 * process sees them (test_db_reader, test_reader_keeps_locks).
 */
static int reader_file_private(const char *path, struct imt_error *err)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return db_err(err, IMT_ERR_INTERNAL, "%s: %s", path,
			      strerror(errno));
	if (!S_ISREG(st.st_mode))
		return db_err(err, IMT_ERR_INTERNAL, "%s: not a regular file",
			      path);
	if ((st.st_mode & 077) != 0)
		return db_err(err, IMT_ERR_INTERNAL,
			      "%s: mode %04o lets its group or others read "
			      "webhook secrets and token hashes: chmod 600 %s",
			      path, (unsigned int)(st.st_mode & 07777), path);
	return 0;
}

/*
 * The database holds webhook secrets and the hashes of operator tokens:
 * a new file is made 0600 whatever the umask (outside systemd's UMask=),
 * and a file that its group or others may read or write is refused, so a
 * copy or a restore with the wrong mode is found at start, not later.
 * SQLite gives its -wal and -shm files the database file's mode.
 */
static int sqlite_file_private(const char *path, int reader,
			       struct imt_error *err)
{
	struct stat st;
	int fd, rc;

	if (strcmp(path, ":memory:") == 0)
		return 0;
	if (reader)
		return reader_file_private(path, err);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = fstat(fd, &st);
	close(fd);
	if (rc < 0) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((st.st_mode & 077) != 0) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s: mode %04o lets its group or others read "
			      "webhook secrets and token hashes: chmod 600 %s",
			      path, (unsigned int)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

static const char sql_journal_mode[] = "PRAGMA journal_mode";
static const char sql_query_only[] = "PRAGMA query_only = 1";

/*
 * A reader (db_open_reader()): the schema the writer migrated to, WAL
 * (without it a reader's lock would hold the writer's commit), and no
 * statement that writes, whatever the caller asks.
 */
static int db_reader_check(struct db *db, struct imt_error *err)
{
	int64_t version;
	struct db_stmt *st;
	int wal;

	if (db_check_version(db, err) < 0 ||
	    db_int_query(db, sql_user_version, &version, err) < 0 ||
	    db_reader_version_check(version, err) < 0)
		return -1;
	st = db_stmt(db, sql_journal_mode, err);
	if (st == NULL)
		return -1;
	wal = db_step(st) == DB_ROW && db_col_text(st, 0) != NULL &&
	      strcmp(db_col_text(st, 0), "wal") == 0;
	db_reset(st);
	if (!wal)
		return db_err(err, IMT_ERR_INTERNAL,
			      "reader: journal_mode is not wal: readers would "
			      "block the writer");
	return db_exec(db, sql_query_only, "query_only", err);
}

/*
 * SQLITE_OPEN_NOMUTEX: a connection is used by one thread at a time
 * (db.h: a multi-threaded caller holds its own lock around every db_*
 * call, and the statement cache relies on it anyway), so SQLite's own
 * mutex on every bind, step and column read buys nothing.
 */
int db_sqlite_open(struct db *db, const char *path, struct imt_error *err)
{
	static pthread_once_t config_once = PTHREAD_ONCE_INIT;
	sqlite3 *sql = NULL;
	int flags = (db->reader ? SQLITE_OPEN_READONLY :
				  SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		    SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX;
	int rc;

	pthread_once(&config_once, sqlite_process_config);
	if (sqlite_file_private(path, db->reader, err) < 0)
		return -1;
	rc = sqlite3_open_v2(path, &sql, flags, NULL);

	if (sql != NULL && db_sqlite_conn_new(db, sql) < 0) {
		sqlite3_close(sql);
		sql = NULL;
	}
	if (rc != SQLITE_OK || sql == NULL) {
		if (sql == NULL)
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "%s: out of memory", path);
		else
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "%s: %s", path,
				      sqlite3_errmsg(sql));
		return -1; /* db_close() closes what did open */
	}
	if (db_configure(db, err) < 0)
		return -1;
	if (db->reader)
		return db_reader_check(db, err);
	if (db_check_version(db, err) < 0 || db_wal(db, err) < 0 ||
	    db_migrate(db, err) < 0)
		return -1;
	return 0;
}

/*
 * Why not always FULL: the comment above db_configure() (a sync per
 * evidence batch). An agent that deletes what the verifier confirmed asks
 * for it ("export"), and then its evidence pays one WAL sync; a FULL
 * commit syncs the whole WAL, so the earlier NORMAL commits of the boot
 * are durable with it.
 */
static const char sql_sync_full[] = "PRAGMA synchronous = FULL";
static const char sql_sync_normal[] = "PRAGMA synchronous = NORMAL";

int db_sqlite_durable(struct db *db, int on, struct imt_error *err)
{
	return db_exec(db, on ? sql_sync_full : sql_sync_normal, "synchronous",
		       err);
}
