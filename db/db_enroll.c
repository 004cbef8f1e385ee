// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_enroll.c - open credential challenges, and the activation that
 * turns a verified one into a machine (or a new AK for a known one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_audit.h"
#include "db_enroll.h"
#include "db_identity.h"
#include "db_internal.h"
#include "db_machine.h"

static const char sql_purge[] =
	"DELETE FROM enrollments WHERE expires_at <= ?1";
static const char sql_count_ek[] =
	"SELECT count(*) FROM enrollments WHERE ek_fpr = ?1";
static const char sql_count_all[] =
	"SELECT count(*) FROM enrollments WHERE expires_at > ?1";
/* The oldest challenge of an EK nobody vouched for. */
static const char sql_evict[] =
	"DELETE FROM enrollments WHERE id = (SELECT e.id FROM enrollments e "
	"WHERE e.ek_chained = 0 AND NOT EXISTS (SELECT 1 FROM registrations r "
	"WHERE r.ek_fpr = e.ek_fpr) ORDER BY e.id LIMIT 1)";
static const char sql_insert[] =
	"INSERT INTO enrollments (proof_hash, machine_id, ek_fpr, ek_pub, "
	"ek_cert, ek_chained, ak_pub, ak_name, secret, created_at, expires_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
static const char sql_find[] =
	"SELECT id, ek_fpr, ek_pub, ek_cert, ek_chained, ak_pub, ak_name, "
	"secret, created_at, expires_at FROM enrollments "
	"WHERE proof_hash = ?1 AND machine_id = ?2 AND expires_at > ?3";
static const char sql_drop_ek[] = "DELETE FROM enrollments WHERE ek_fpr = ?1";

static int check_challenge(const struct db_challenge *c, struct imt_error *err)
{
	if (c == NULL)
		return db_bad(err, "no challenge");
	if (db_check_id(c->machine_id, err) < 0 ||
	    db_check_blob(c->secret, c->secret_len, DB_SECRET_MIN,
			  DB_SECRET_MAX, "secret", err) < 0 ||
	    db_check_blob(c->ek_pub, c->ek_pub_len, 1, DB_KEY_MAX, "EK", err) <
		    0 ||
	    db_check_blob(c->ak_pub, c->ak_pub_len, 1, DB_KEY_MAX, "AK", err) <
		    0 ||
	    db_check_blob(c->ak_name, c->ak_name_len, 1, DB_AK_NAME_MAX,
			  "AK name", err) < 0)
		return -1;
	if (c->ek_cert_len > DB_CERT_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "EK certificate longer "
			      "than %d bytes",
			      DB_CERT_MAX);
	return 0;
}

/*
 * One integer from @sql bound to @blob or *@n, or to nothing when both are
 * NULL (binding a parameter the SQL lacks is an error in PostgreSQL); -1
 * on failure.
 */
static int64_t count_of(struct db *db, const char *sql, const uint8_t *blob,
			const int64_t *n, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);
	int64_t v = -1;

	if (st == NULL)
		return -1;
	if (blob != NULL)
		db_bind_blob(st, 1, blob, DB_FPR_SIZE);
	else if (n != NULL)
		db_bind_int64(st, 1, *n);
	if (db_step(st) == DB_ROW)
		v = db_col_int64(st, 0);
	else
		db_fail(db, err, "count");
	db_reset(st);
	return v;
}

/* Run @sql bound to *@n, or to nothing when @n is NULL. */
static int run1(struct db *db, const char *sql, const int64_t *n,
		struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	if (n != NULL)
		db_bind_int64(st, 1, *n);
	return db_step_done(db, st, err, "enrollments");
}

static int insert(struct db *db, const struct db_challenge *c, int64_t now,
		  struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_insert, err);

	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, c->proof_hash, DB_PROOF_HASH_SIZE);
	db_bind_text(st, 2, c->machine_id);
	db_bind_blob(st, 3, c->ek_fpr, DB_FPR_SIZE);
	db_bind_blob(st, 4, c->ek_pub, c->ek_pub_len);
	if (c->ek_cert_len > 0)
		db_bind_blob(st, 5, c->ek_cert, c->ek_cert_len);
	db_bind_int(st, 6, c->ek_chained ? 1 : 0);
	db_bind_blob(st, 7, c->ak_pub, c->ak_pub_len);
	db_bind_blob(st, 8, c->ak_name, c->ak_name_len);
	db_bind_blob(st, 9, c->secret, c->secret_len);
	db_bind_int64(st, 10, now);
	db_bind_int64(st, 11, c->expires_at);
	return db_step_done(db, st, err, "enrollment");
}

static int open_one(struct db *db, const struct db_challenge *c, int vouched,
		    const struct db_enroll_limits *lim, int64_t now,
		    enum db_open_result *res, struct imt_error *err)
{
	int64_t n;

	if (run1(db, sql_purge, &now, err) < 0)
		return -1;
	n = count_of(db, sql_count_ek, c->ek_fpr, NULL, err);
	if (n < 0)
		return -1;
	if (n >= lim->max_per_ek) {
		*res = DB_OPEN_EK_FULL;
		return 0;
	}
	n = count_of(db, sql_count_all, NULL, &now, err);
	if (n < 0)
		return -1;
	*res = DB_OPEN_OK;
	if (n >= lim->max_open) {
		if (vouched && run1(db, sql_evict, NULL, err) < 0)
			return -1;
		if (!vouched || db_changes(db) != 1) {
			*res = DB_OPEN_FULL;
			return 0;
		}
		*res = DB_OPEN_EVICTED;
	}
	return insert(db, c, now, err);
}

int db_challenge_open(struct db *db, const struct db_challenge *c, int vouched,
		      const struct db_enroll_limits *lim, int64_t now,
		      enum db_open_result *res, struct imt_error *err)
{
	if (db == NULL || lim == NULL || res == NULL)
		return db_bad(err, "no database, limits or result");
	if (lim->max_open < 1 || lim->max_per_ek < 1)
		return db_bad(err, "enrollment caps must be at least 1");
	if (check_challenge(c, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (open_one(db, c, vouched, lim, now, res, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

/* Copy a blob column into @dst of @max bytes; -1 when it does not fit. */
static int column_copy(struct db_stmt *st, int col, uint8_t *dst, size_t max,
		       size_t *len)
{
	int n = db_col_bytes(st, col);

	if (n < 0 || (size_t)n > max)
		return -1;
	if (n > 0)
		memcpy(dst, db_col_blob(st, col), (size_t)n);
	*len = (size_t)n;
	return 0;
}

static int challenge_from_row(struct db_stmt *st, struct db_challenge *out)
{
	size_t fpr_len;

	out->id = db_col_int64(st, 0);
	if (column_copy(st, 1, out->ek_fpr, DB_FPR_SIZE, &fpr_len) < 0 ||
	    fpr_len != DB_FPR_SIZE ||
	    column_copy(st, 2, out->ek_pub, DB_KEY_MAX, &out->ek_pub_len) < 0 ||
	    column_copy(st, 3, out->ek_cert, DB_CERT_MAX, &out->ek_cert_len) <
		    0 ||
	    column_copy(st, 5, out->ak_pub, DB_KEY_MAX, &out->ak_pub_len) < 0 ||
	    column_copy(st, 6, out->ak_name, DB_AK_NAME_MAX,
			&out->ak_name_len) < 0 ||
	    column_copy(st, 7, out->secret, DB_SECRET_MAX, &out->secret_len) <
		    0)
		return -1;
	out->ek_chained = db_col_int(st, 4);
	out->created_at = db_col_int64(st, 8);
	out->expires_at = db_col_int64(st, 9);
	return 0;
}

int db_challenge_find(struct db *db, const char *machine_id,
		      const uint8_t proof_hash[DB_PROOF_HASH_SIZE], int64_t now,
		      struct db_challenge *out, int *found,
		      struct imt_error *err)
{
	struct db_stmt *st;
	int rc = -1, step;

	if (db == NULL || out == NULL || found == NULL || proof_hash == NULL)
		return db_bad(err, "no database, proof or result");
	*found = 0;
	if (db_check_id(machine_id, err) < 0)
		return -1;
	st = db_stmt(db, sql_find, err);
	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, proof_hash, DB_PROOF_HASH_SIZE);
	db_bind_text(st, 2, machine_id);
	db_bind_int64(st, 3, now);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
	} else if (step != DB_ROW) {
		db_fail(db, err, "challenge");
	} else if (challenge_from_row(st, out) < 0) {
		db_err(err, IMT_ERR_INTERNAL, "corrupt challenge row");
	} else {
		snprintf(out->machine_id, sizeof(out->machine_id), "%s",
			 machine_id);
		memcpy(out->proof_hash, proof_hash, DB_PROOF_HASH_SIZE);
		*found = 1;
		rc = 0;
	}
	db_reset(st);
	return rc;
}

int db_challenge_count(struct db *db, int64_t now, uint64_t *n,
		       struct imt_error *err)
{
	int64_t v;

	if (db == NULL || n == NULL)
		return db_bad(err, "no database or result");
	v = count_of(db, sql_count_all, NULL, &now, err);
	if (v < 0)
		return -1;
	*n = (uint64_t)v;
	return 0;
}

/* ---- activation --------------------------------------------------------- */

static const char sql_rebind[] =
	"UPDATE machines SET ak_pub = ?2, ak_name = ?3, activated = 1, "
	"ek_fpr = ?4, ek_cert = ?5 WHERE id = ?1 RETURNING approved";
static const char sql_count_pending[] =
	"SELECT count(*) FROM machines WHERE state = 'pending'";
static const struct db_sql sql_enroll_detail = {
	.sqlite = "SELECT json_object('state', ?1, 'ek_chained', json(?2), "
		  "'registered', json(?3), 'ak_name', lower(hex(?4)))",
	.pg = "SELECT json_build_object('state', ?1::text, "
	      "'ek_chained', ?2::json, 'registered', ?3::json, "
	      "'ak_name', encode(?4::bytea, 'hex'))",
};

/* The verdict on the identity, or -1 when the activation may go on. */
static int identity_verdict(const struct db_identity *w,
			    const struct db_activate_opts *o)
{
	if (w->machine)
		return !w->machine_same_ek ? DB_ACT_ID_TAKEN :
		       w->ek_elsewhere	   ? DB_ACT_EK_TAKEN :
					     -1;
	if (w->id_registered_other)
		return DB_ACT_ID_TAKEN;
	if (w->ek_elsewhere || w->ek_registered_other)
		return DB_ACT_EK_TAKEN;
	if (o->registered_only && !w->registered)
		return DB_ACT_NOT_REGISTERED;
	return -1;
}

/* Bind the new AK to the known machine; its approved flag in @approved. */
static int rebind(struct db *db, const struct db_challenge *c, int *approved,
		  struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_rebind, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, c->machine_id);
	db_bind_blob(st, 2, c->ak_pub, c->ak_pub_len);
	db_bind_blob(st, 3, c->ak_name, c->ak_name_len);
	db_bind_blob(st, 4, c->ek_fpr, DB_FPR_SIZE);
	if (c->ek_cert_len > 0)
		db_bind_blob(st, 5, c->ek_cert, c->ek_cert_len);
	step = db_step(st);
	if (step == DB_ROW) {
		*approved = db_col_int(st, 0);
		step = db_step(st);
	}
	db_reset(st);
	return step == DB_DONE ? 0 : db_fail(db, err, "bind the AK");
}

static int create(struct db *db, const struct db_challenge *c,
		  enum db_machine_state to, int registered, int64_t now,
		  struct imt_error *err)
{
	struct db_machine_new m = {
		.id = c->machine_id,
		.ek_pub = c->ek_pub,
		.ek_pub_len = c->ek_pub_len,
		.ek_cert = c->ek_cert_len > 0 ? c->ek_cert : NULL,
		.ek_cert_len = c->ek_cert_len,
		.ek_fpr = c->ek_fpr,
		.ak_pub = c->ak_pub,
		.ak_pub_len = c->ak_pub_len,
		.ak_name = c->ak_name,
		.ak_name_len = c->ak_name_len,
		.state = to,
		.activated = 1,
		.approved = registered,
	};

	/* the state is the verifier's table's (db_activate_opts) */
	return db_machine_insert(db, &m, now, err);
}

static int enroll_audit(struct db *db, const struct db_challenge *c,
			const char *state, int registered, int64_t now,
			struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_enroll_detail, err);
	struct db_audit a = { .time = now,
			      .action = "enroll",
			      .machine_id = c->machine_id,
			      .ek_fpr = c->ek_fpr };

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, state);
	db_bind_text(st, 2, c->ek_chained ? "true" : "false");
	db_bind_text(st, 3, registered ? "true" : "false");
	db_bind_blob(st, 4, c->ak_name, c->ak_name_len);
	return db_audit_insert_json(db, &a, st, err);
}

static int activate(struct db *db, const struct db_challenge *c,
		    const struct db_activate_opts *o, int64_t now,
		    enum db_activation *res, enum db_machine_state *state,
		    struct imt_error *err)
{
	enum db_machine_state to;
	struct db_identity w;
	struct db_stmt *st;
	int approved = 0, verdict;
	int64_t pending;
	const char *name;

	if (db_identity_get(db, c->machine_id, c->ek_fpr, c->ek_pub,
			    c->ek_pub_len, &w, err) < 0)
		return -1;
	verdict = identity_verdict(&w, o);
	if (verdict >= 0) {
		*res = (enum db_activation)verdict;
		return 0;
	}
	if (w.machine && rebind(db, c, &approved, err) < 0)
		return -1;
	to = c->ek_chained || w.registered || approved ? o->to_vouched :
							 o->to_unvouched;
	name = db_machine_state_name(to);
	if (!w.machine && to == o->to_unvouched) {
		pending = count_of(db, sql_count_pending, NULL, NULL, err);
		if (pending < 0)
			return -1;
		if (pending >= o->max_pending) {
			*res = DB_ACT_PENDING_FULL;
			return 0;
		}
	}
	if (!w.machine && create(db, c, to, w.registered, now, err) < 0)
		return -1;
	if (db_event_insert(db, c->machine_id, now,
			    db_event_kind_name(DB_EVENT_ACTIVATED), NULL, NULL,
			    NULL, err) < 0 ||
	    db_state_set(db, c->machine_id, name,
			 to == o->to_unvouched ? o->pending_reason : NULL, now,
			 err) < 0 ||
	    enroll_audit(db, c, name, w.registered, now, err) < 0)
		return -1;
	st = db_stmt(db, sql_drop_ek, err);
	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, c->ek_fpr, DB_FPR_SIZE);
	if (db_step_done(db, st, err, "drop challenges") < 0)
		return -1;
	*res = w.machine ? DB_ACT_REPLACED : DB_ACT_CREATED;
	if (state != NULL)
		*state = to;
	return 0;
}

int db_challenge_activate(struct db *db, const struct db_challenge *c,
			  const struct db_activate_opts *o, int64_t now,
			  enum db_activation *res, enum db_machine_state *state,
			  struct imt_error *err)
{
	if (db == NULL || o == NULL || res == NULL)
		return db_bad(err, "no database, options or result");
	if (check_challenge(c, err) < 0 ||
	    (o->pending_reason != NULL &&
	     db_check_str(o->pending_reason, DB_REASON_MAX, "reason", err) <
		     0) ||
	    db_begin(db, err) < 0)
		return -1;
	if (activate(db, c, o, now, res, state, err) < 0) {
		db_rollback(db);
		return -1;
	}
	/* an outcome that changes nothing leaves nothing behind */
	if (*res != DB_ACT_CREATED && *res != DB_ACT_REPLACED) {
		db_rollback(db);
		return 0;
	}
	return db_commit(db, err);
}
