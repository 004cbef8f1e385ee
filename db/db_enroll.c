// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_enroll.c - credential challenges and machine activation.
 */
#include <string.h>

#include "db_internal.h"

static const char sql_challenge_put[] =
	"INSERT OR REPLACE INTO challenges (machine_id, secret, ak_pub, "
	"ak_name, ek_chained, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
static const char sql_challenge_get[] =
	"SELECT secret, ak_pub, ak_name, ek_chained, expires_at "
	"FROM challenges WHERE machine_id = ?1";
static const char sql_challenge_delete[] =
	"DELETE FROM challenges WHERE machine_id = ?1";
static const char sql_activate[] =
	"UPDATE machines SET ak_pub = ?2, ak_name = ?3, activated = 1 "
	"WHERE id = ?1 RETURNING approved";

static int check_challenge(const struct db_challenge *c,
			   struct imt_error *err)
{
	if (c == NULL)
		return db_bad(err, "no challenge");
	if (db_check_blob(c->secret, c->secret_len, DB_SECRET_MIN,
			  DB_SECRET_MAX, "secret", err) < 0 ||
	    db_check_blob(c->ak_pub, c->ak_pub_len, 1, DB_KEY_MAX, "AK",
			  err) < 0 ||
	    db_check_blob(c->ak_name, c->ak_name_len, 1, DB_AK_NAME_MAX,
			  "AK name", err) < 0)
		return -1;
	return 0;
}

int db_challenge_put(struct db *db, const char *machine_id,
		     const struct db_challenge *c, struct imt_error *err)
{
	sqlite3_stmt *st;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_id(machine_id, err) < 0 || check_challenge(c, err) < 0)
		return -1;
	st = db_stmt(db, sql_challenge_put, err);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, machine_id, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, c->secret, (int)c->secret_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, c->ak_pub, (int)c->ak_pub_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 4, c->ak_name, (int)c->ak_name_len,
			  SQLITE_STATIC);
	sqlite3_bind_int(st, 5, c->ek_chained ? 1 : 0);
	sqlite3_bind_int64(st, 6, c->expires_at);
	return db_step_done(db, st, err, "challenge");
}

/* Copy a blob column into @dst of @max bytes; -1 when it does not fit. */
static int column_copy(sqlite3_stmt *st, int col, uint8_t *dst, size_t max,
		       size_t *len)
{
	int n = sqlite3_column_bytes(st, col);

	if (n < 0 || (size_t)n > max)
		return -1;
	if (n > 0)
		memcpy(dst, sqlite3_column_blob(st, col), (size_t)n);
	*len = (size_t)n;
	return 0;
}

int db_challenge_get(struct db *db, const char *machine_id,
		     struct db_challenge *out, int *found,
		     struct imt_error *err)
{
	sqlite3_stmt *st;
	int rc = -1, step;

	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	*found = 0;
	if (db_check_id(machine_id, err) < 0)
		return -1;
	st = db_stmt(db, sql_challenge_get, err);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, machine_id, -1, SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step == SQLITE_DONE) {
		rc = 0;
	} else if (step != SQLITE_ROW) {
		db_fail(db, err, "challenge");
	} else if (column_copy(st, 0, out->secret, DB_SECRET_MAX,
			       &out->secret_len) < 0 ||
		   column_copy(st, 1, out->ak_pub, DB_KEY_MAX,
			       &out->ak_pub_len) < 0 ||
		   column_copy(st, 2, out->ak_name, DB_AK_NAME_MAX,
			       &out->ak_name_len) < 0) {
		db_err(err, IMT_ERR_INTERNAL, "corrupt challenge row");
	} else {
		out->ek_chained = sqlite3_column_int(st, 3);
		out->expires_at = sqlite3_column_int64(st, 4);
		*found = 1;
		rc = 0;
	}
	sqlite3_reset(st);
	return rc;
}

int db_challenge_delete(struct db *db, const char *machine_id,
			struct imt_error *err)
{
	sqlite3_stmt *st;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_id(machine_id, err) < 0)
		return -1;
	st = db_stmt(db, sql_challenge_delete, err);
	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, machine_id, -1, SQLITE_STATIC);
	return db_step_done(db, st, err, "challenge");
}

/* The machine's approved flag after binding the AK; -1 when not there. */
static int bind_ak(struct db *db, const char *id, const struct db_challenge *c,
		   int *approved, struct imt_error *err)
{
	sqlite3_stmt *st = db_stmt(db, sql_activate, err);
	int step, rc = -1;

	if (st == NULL)
		return -1;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, c->ak_pub, (int)c->ak_pub_len, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, c->ak_name, (int)c->ak_name_len,
			  SQLITE_STATIC);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		*approved = sqlite3_column_int(st, 0);
		step = sqlite3_step(st);
	} else if (step == SQLITE_DONE) {
		db_err(err, IMT_ERR_MISMATCH, "no machine %s", id);
		goto out;
	}
	if (step != SQLITE_DONE) {
		db_fail(db, err, "activate");
		goto out;
	}
	rc = 0;
out:
	sqlite3_reset(st);
	return rc;
}

static int activate(struct db *db, const char *id,
		    const struct db_challenge *c, int64_t now,
		    enum db_machine_state *state, struct imt_error *err)
{
	enum db_machine_state to;
	int approved = 0;

	if (bind_ak(db, id, c, &approved, err) < 0 ||
	    db_challenge_delete(db, id, err) < 0 ||
	    db_event_insert(db, id, now, "activated", NULL, NULL, NULL,
			    err) < 0)
		return -1;
	to = c->ek_chained || approved ? DB_STATE_ENROLLING : DB_STATE_PENDING;
	if (db_state_set(db, id, db_machine_state_name(to), NULL, now,
			 err) < 0)
		return -1;
	if (state != NULL)
		*state = to;
	return 0;
}

int db_machine_activate(struct db *db, const char *machine_id,
			const struct db_challenge *c, int64_t now,
			enum db_machine_state *state, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_id(machine_id, err) < 0 || check_challenge(c, err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (activate(db, machine_id, c, now, state, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}
