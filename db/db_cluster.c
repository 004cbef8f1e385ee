// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_cluster.c - what several verifiers on one PostgreSQL database
 * coordinate through it (proto/DESIGN.md §6, "Several verifiers"):
 *
 *  - one machine's writes at a time: a transaction-scoped advisory lock
 *    on the machine id, taken first in every transaction that moves its
 *    state, so a writer re-reads what another instance committed;
 *  - one leader, for the housekeeping clock (stale machines, retention,
 *    webhook delivery): a session advisory lock, so it moves to another
 *    instance when the leader's session ends (a crash, a kill, a cut);
 *  - one reference, policy or key change at a time across instances (a
 *    second session lock), announced with NOTIFY so every instance reads
 *    its policies again.
 *
 * On SQLite one process owns the file and its mutex already orders all
 * of this: the locks are no-ops and the one process is the leader.
 *
 * The advisory locks use the two-key form, class IMT_LOCK_CLASS (the
 * application id, "imat") for the session locks and the next class for
 * machines; the schema lock of db_pg_open.c uses the one-key form, so
 * the three never meet.
 */
#include "db_cluster.h"
#include "db_internal.h"

#define LOCK_CLASS "1768776052"
#define MACHINE_CLASS "1768776053"
#define LEADER_KEY "1"
#define CHANGE_KEY "2"

/* The session lock on LOCK_CLASS, KEY: held already, or taken now. */
#define SQL_SESSION_LOCK(key) \
	"SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_locks " \
	"WHERE locktype = 'advisory' AND pid = pg_backend_pid() " \
	"AND classid = " LOCK_CLASS " AND objid = " key " " \
	"AND objsubid = 2 AND granted) THEN 1 " \
	"WHEN pg_try_advisory_lock(" LOCK_CLASS ", " key ") THEN 1 " \
	"ELSE 0 END"

static const char sql_machine_lock[] =
	"SELECT pg_advisory_xact_lock(" MACHINE_CLASS ", hashtext(?1))";
static const char sql_leader[] = SQL_SESSION_LOCK(LEADER_KEY);
static const char sql_change_lock[] = SQL_SESSION_LOCK(CHANGE_KEY);
static const char sql_change_unlock[] = "SELECT pg_advisory_unlock(" LOCK_CLASS
					", " CHANGE_KEY ")";
static const char sql_announce[] = "SELECT pg_notify('" DB_CHANGE_CHANNEL
				   "', '')";

static int is_pg(struct db *db)
{
	return db_dialect(db) == DB_DIALECT_PG;
}

/* Run @sql (one row, one integer column) into *@v. */
static int scalar(struct db *db, const char *sql, const char *what, int64_t *v,
		  struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);
	int rc = -1;

	if (st == NULL)
		return -1;
	if (db_step(st) == DB_ROW) {
		*v = db_col_int64(st, 0);
		rc = 0;
	} else {
		db_fail(db, err, what);
	}
	db_reset(st);
	return rc;
}

int db_machine_lock(struct db *db, const char *id, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (!is_pg(db))
		return 0;
	if (db_check_id(id, err) < 0)
		return -1;
	if (!db_in_transaction(db))
		return db_err(err, IMT_ERR_INTERNAL,
			      "a machine lock outside a transaction");
	/* the lock's one row, or an error */
	return db_text_exists(db, sql_machine_lock, id, "machine lock", err) <
			       0 ?
		       -1 :
		       0;
}

static int session_lock(struct db *db, const char *sql, const char *what,
			int *held, struct imt_error *err)
{
	int64_t v = 0;

	*held = 0;
	if (db == NULL)
		return db_bad(err, "no database");
	if (!is_pg(db)) {
		*held = 1;
		return 0;
	}
	if (scalar(db, sql, what, &v, err) < 0)
		return -1;
	*held = v == 1;
	return 0;
}

int db_leader(struct db *db, int *leader, struct imt_error *err)
{
	return session_lock(db, sql_leader, "leader lock", leader, err);
}

int db_change_lock(struct db *db, int *got, struct imt_error *err)
{
	return session_lock(db, sql_change_lock, "change lock", got, err);
}

void db_change_unlock(struct db *db)
{
	struct imt_error err;
	int64_t v;

	if (db != NULL && is_pg(db))
		(void)scalar(db, sql_change_unlock, "change unlock", &v, &err);
}

int db_change_announce(struct db *db, struct imt_error *err)
{
	struct db_stmt *st;
	int rc = -1;

	if (db == NULL)
		return db_bad(err, "no database");
	if (!is_pg(db))
		return 0;
	st = db_stmt(db, sql_announce, err);
	if (st == NULL)
		return -1;
	if (db_step(st) == DB_ROW)
		rc = 0;
	else
		db_fail(db, err, "change announcement");
	db_reset(st);
	return rc;
}

int db_changed_elsewhere(struct db *db)
{
	int changed;

	if (db == NULL)
		return 0;
	changed = db->changed_elsewhere;
	db->changed_elsewhere = 0;
	return changed;
}
