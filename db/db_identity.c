// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_identity.c - who holds a machine id and an EK: the identity check
 * enrollment and activation share, pre-registrations, removal of a
 * machine, and the EK fingerprints of databases older than schema 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_audit.h"
#include "db_identity.h"
#include "db_internal.h"
#include "db_machine.h"

static const char sql_id_holder[] =
	"SELECT ek_fpr, ek_pub FROM machines WHERE id = ?1";
static const char sql_ek_holder[] =
	"SELECT id FROM machines WHERE ek_fpr = ?1 AND id <> ?2";
static const char sql_reg_holders[] =
	"SELECT machine_id, ek_fpr FROM registrations "
	"WHERE machine_id = ?1 OR ek_fpr = ?2";

static int blob_is(struct db_stmt *st, int col, const uint8_t *p, size_t len)
{
	return p != NULL && (size_t)db_col_bytes(st, col) == len &&
	       memcmp(db_col_blob(st, col), p, len) == 0;
}

/* Fill the machine part of @out; 0 or -1. */
static int id_holder(struct db *db, const char *id, const uint8_t *ek_fpr,
		     const uint8_t *ek_pub, size_t ek_pub_len,
		     struct db_identity *out, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_id_holder, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	step = db_step(st);
	if (step == DB_ROW) {
		out->machine = 1;
		/* an older machine without fingerprint: compare the EK */
		out->machine_same_ek =
			!db_col_is_null(st, 0) ?
				blob_is(st, 0, ek_fpr, DB_FPR_SIZE) :
				blob_is(st, 1, ek_pub, ek_pub_len);
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "machine of the id");
	return 0;
}

static int ek_holder(struct db *db, const char *id, const uint8_t *ek_fpr,
		     struct db_identity *out, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_ek_holder, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, ek_fpr, DB_FPR_SIZE);
	db_bind_text(st, 2, id);
	step = db_step(st);
	out->ek_elsewhere = step == DB_ROW;
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "machine of the EK");
	return 0;
}

static int reg_holders(struct db *db, const char *id, const uint8_t *ek_fpr,
		       struct db_identity *out, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_reg_holders, err);
	int step, same_id, same_ek;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_blob(st, 2, ek_fpr, DB_FPR_SIZE);
	while ((step = db_step(st)) == DB_ROW) {
		same_id = strcmp(db_col_text(st, 0), id) == 0;
		same_ek = blob_is(st, 1, ek_fpr, DB_FPR_SIZE);
		out->registered |= same_id && same_ek;
		out->id_registered_other |= same_id && !same_ek;
		out->ek_registered_other |= same_ek && !same_id;
	}
	db_reset(st);
	if (step != DB_DONE)
		return db_fail(db, err, "registrations");
	return 0;
}

int db_identity_get(struct db *db, const char *id, const uint8_t *ek_fpr,
		    const uint8_t *ek_pub, size_t ek_pub_len,
		    struct db_identity *out, struct imt_error *err)
{
	memset(out, 0, sizeof(*out));
	if (id_holder(db, id, ek_fpr, ek_pub, ek_pub_len, out, err) < 0 ||
	    ek_holder(db, id, ek_fpr, out, err) < 0 ||
	    reg_holders(db, id, ek_fpr, out, err) < 0)
		return -1;
	return 0;
}

static int check_fpr(const uint8_t *ek_fpr, struct imt_error *err)
{
	return db_check_blob(ek_fpr, DB_FPR_SIZE, DB_FPR_SIZE, DB_FPR_SIZE,
			     "EK fingerprint", err);
}

int db_identity_check(struct db *db, const char *id, const uint8_t *ek_fpr,
		      const uint8_t *ek_pub, size_t ek_pub_len,
		      struct db_identity *out, struct imt_error *err)
{
	if (db == NULL || out == NULL)
		return db_bad(err, "no database or result");
	if (db_check_id(id, err) < 0 || check_fpr(ek_fpr, err) < 0)
		return -1;
	return db_identity_get(db, id, ek_fpr, ek_pub, ek_pub_len, out, err);
}

/* ---- pre-registration --------------------------------------------------- */

static const char sql_reg_insert[] =
	"INSERT INTO registrations (machine_id, ek_fpr, operator, created_at) "
	"VALUES (?1, ?2, ?3, ?4)";
static const char sql_reg_get[] =
	"SELECT ek_fpr, operator, created_at FROM registrations "
	"WHERE machine_id = ?1";

static enum db_register_result reg_verdict(const struct db_identity *w)
{
	if (w->registered)
		return DB_REG_EXISTS;
	if ((w->machine && !w->machine_same_ek) || w->id_registered_other)
		return DB_REG_ID_TAKEN;
	if (w->ek_elsewhere || w->ek_registered_other)
		return DB_REG_EK_TAKEN;
	return DB_REG_OK;
}

static int reg_add(struct db *db, const char *id, const uint8_t *ek_fpr,
		   const char *op_name, int64_t now,
		   enum db_register_result *res, struct imt_error *err)
{
	struct db_audit a = { .time = now,
			      .op_name = op_name,
			      .action = "register",
			      .machine_id = id,
			      .ek_fpr = ek_fpr };
	struct db_identity w;
	struct db_stmt *st;

	if (db_identity_get(db, id, ek_fpr, NULL, 0, &w, err) < 0)
		return -1;
	*res = reg_verdict(&w);
	if (*res != DB_REG_OK)
		return 0;
	st = db_stmt(db, sql_reg_insert, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_blob(st, 2, ek_fpr, DB_FPR_SIZE);
	db_bind_text(st, 3, op_name);
	db_bind_int64(st, 4, now);
	if (db_step_done(db, st, err, "registration") < 0)
		return -1;
	return db_audit_insert(db, &a, err);
}

int db_registration_add(struct db *db, const char *id, const uint8_t *ek_fpr,
			const char *op_name, int64_t now,
			enum db_register_result *res, struct imt_error *err)
{
	if (db == NULL || res == NULL)
		return db_bad(err, "no database or result");
	if (db_check_id(id, err) < 0 || check_fpr(ek_fpr, err) < 0 ||
	    db_check_str(op_name, DB_NAME_MAX, "operator", err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (reg_add(db, id, ek_fpr, op_name, now, res, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

int db_registration_get(struct db *db, const char *id,
			struct db_registration *out, int *found,
			struct imt_error *err)
{
	const char *op;
	struct db_stmt *st;
	int step;

	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	*found = 0;
	if (db_check_id(id, err) < 0)
		return -1;
	st = db_stmt(db, sql_reg_get, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	step = db_step(st);
	if (step == DB_ROW && db_col_bytes(st, 0) == DB_FPR_SIZE) {
		memset(out, 0, sizeof(*out));
		snprintf(out->machine_id, sizeof(out->machine_id), "%s", id);
		memcpy(out->ek_fpr, db_col_blob(st, 0), DB_FPR_SIZE);
		op = db_col_text(st, 1);
		snprintf(out->op_name, sizeof(out->op_name), "%s",
			 op != NULL ? op : "");
		out->created_at = db_col_int64(st, 2);
		*found = 1;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "registration");
	return 0;
}

/* ---- removal ------------------------------------------------------------ */

static const char sql_rm_counts[] =
	"SELECT (SELECT count(*) FROM boots WHERE machine_id = ?1), "
	"(SELECT coalesce(sum(length(c.verdicts)), 0) FROM record_chunks c "
	"JOIN boots b ON b.id = c.boot_id WHERE b.machine_id = ?1), "
	"(SELECT count(*) FROM enrollments WHERE machine_id = ?1)";
static const char sql_rm_machine[] =
	"DELETE FROM machines WHERE id = ?1 RETURNING state, ek_fpr";
static const char sql_rm_enrollments[] =
	"DELETE FROM enrollments WHERE machine_id = ?1";
static const char sql_rm_registration[] =
	"DELETE FROM registrations WHERE machine_id = ?1 RETURNING ek_fpr";
static const struct db_sql sql_rm_detail = {
	.sqlite = "SELECT json_object('state', nullif(?1, ''), 'boots', ?2, "
		  "'records', ?3, 'enrollments', ?4, 'registration', "
		  "json(CASE ?5 WHEN 1 THEN 'true' ELSE 'false' END))",
	.pg = "SELECT json_build_object('state', nullif(?1::text, ''), "
	      "'boots', ?2::bigint, 'records', ?3::bigint, "
	      "'enrollments', ?4::bigint, 'registration', ?5::bigint = 1)",
};

static int rm_counts(struct db *db, const char *id, struct db_removal *out,
		     struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_rm_counts, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	step = db_step(st);
	if (step == DB_ROW) {
		out->boots = db_col_int64(st, 0);
		out->records = db_col_int64(st, 1);
		out->enrollments = db_col_int64(st, 2);
	}
	db_reset(st);
	return step == DB_ROW ? 0 : db_fail(db, err, "count removal");
}

/*
 * Run a DELETE ... RETURNING [state,] ek_fpr (state when @with_state); 1
 * when a row went.
 */
static int rm_returning(struct db *db, const char *sql, const char *id,
			int with_state, struct db_removal *out,
			struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);
	int step, fcol, gone = 0;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	fcol = with_state ? 1 : 0;
	while ((step = db_step(st)) == DB_ROW) {
		gone = 1;
		if (with_state)
			snprintf(out->state, sizeof(out->state), "%s",
				 db_col_text(st, 0));
		if (db_col_bytes(st, fcol) == DB_FPR_SIZE) {
			memcpy(out->ek_fpr, db_col_blob(st, fcol), DB_FPR_SIZE);
			out->has_ek_fpr = 1;
		}
	}
	db_reset(st);
	if (step != DB_DONE)
		return db_fail(db, err, "remove");
	return gone;
}

static int rm_audit(struct db *db, const char *id, const char *op_name,
		    int64_t now, const struct db_removal *out,
		    struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_rm_detail, err);
	struct db_audit a = { .time = now,
			      .op_name = op_name,
			      .action = "remove",
			      .machine_id = id,
			      .ek_fpr = out->has_ek_fpr ? out->ek_fpr : NULL };

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, out->state);
	db_bind_int64(st, 2, out->boots);
	db_bind_int64(st, 3, out->records);
	db_bind_int64(st, 4, out->enrollments);
	db_bind_int(st, 5, out->registration);
	return db_audit_insert_json(db, &a, st, err);
}

static int rm(struct db *db, const char *id, const char *op_name, int64_t now,
	      struct db_removal *out, struct imt_error *err)
{
	struct db_stmt *st;
	int gone;

	if (rm_counts(db, id, out, err) < 0)
		return -1;
	/* TRANSITION: remove */
	gone = rm_returning(db, sql_rm_machine, id, 1, out, err);
	if (gone < 0)
		return -1;
	out->machine = gone;
	gone = rm_returning(db, sql_rm_registration, id, 0, out, err);
	if (gone < 0)
		return -1;
	out->registration = gone;
	st = db_stmt(db, sql_rm_enrollments, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	if (db_step_done(db, st, err, "remove enrollments") < 0)
		return -1;
	if (!out->machine && !out->registration)
		return 0; /* nothing there: nothing to audit */
	return rm_audit(db, id, op_name, now, out, err);
}

int db_machine_remove(struct db *db, const char *id, const char *op_name,
		      int64_t now, struct db_removal *out,
		      struct imt_error *err)
{
	if (db == NULL || out == NULL)
		return db_bad(err, "no database or result");
	memset(out, 0, sizeof(*out));
	if (db_check_id(id, err) < 0 ||
	    db_check_str(op_name, DB_NAME_MAX, "operator", err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (rm(db, id, op_name, now, out, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

/* ---- fingerprints of older machines ------------------------------------- */

/*
 * The cursor is SQLite's rowid, the order of enrollment. PostgreSQL has
 * none: the machine's place in (created_at, id) order stands in, stable
 * while no machine enrolls with an older time (this runs at start).
 */
static const struct db_sql sql_unfilled = {
	.sqlite = "SELECT rowid, id FROM machines WHERE ek_fpr IS NULL "
		  "AND rowid > ?1 ORDER BY rowid LIMIT 1",
	.pg = "SELECT n, id FROM (SELECT row_number() OVER "
	      "(ORDER BY created_at, id) AS n, id, ek_fpr FROM machines) m "
	      "WHERE ek_fpr IS NULL AND n > ?1 ORDER BY n LIMIT 1",
};
static const char sql_fill[] = "UPDATE machines SET ek_fpr = ?2 WHERE id = ?1";
static const char sql_fpr_holder[] =
	"SELECT id FROM machines WHERE ek_fpr = ?1";
static const struct db_sql sql_dup_detail = {
	.sqlite = "SELECT json_object('holder', ?1)",
	.pg = "SELECT json_build_object('holder', ?1::text)",
};

int db_machine_next_unfingerprinted(struct db *db, int64_t *cursor,
				    struct db_machine *out, int *found,
				    struct imt_error *err)
{
	char id[DB_MACHINE_ID_MAX + 1] = "";
	struct db_stmt *st;
	int step;

	if (db == NULL || cursor == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	*found = 0;
	st = db_stmt_sql(db, &sql_unfilled, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, *cursor);
	step = db_step(st);
	if (step == DB_ROW) {
		*cursor = db_col_int64(st, 0);
		snprintf(id, sizeof(id), "%s", db_col_text(st, 1));
	}
	db_reset(st);
	if (step != DB_ROW)
		return step == DB_DONE ?
			       0 :
			       db_fail(db, err, "unfingerprinted machines");
	return db_machine_get(db, id, out, found, err);
}

static int holder_of(struct db *db, const uint8_t *ek_fpr,
		     char holder[DB_MACHINE_ID_MAX + 1], struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_fpr_holder, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_blob(st, 1, ek_fpr, DB_FPR_SIZE);
	step = db_step(st);
	if (step == DB_ROW)
		snprintf(holder, DB_MACHINE_ID_MAX + 1, "%s",
			 db_col_text(st, 0));
	db_reset(st);
	return step == DB_ROW || step == DB_DONE ?
		       0 :
		       db_fail(db, err, "EK holder");
}

static int duplicate(struct db *db, const char *id, const uint8_t *ek_fpr,
		     int64_t now, const char *holder, struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_dup_detail, err);
	struct db_audit a = { .time = now,
			      .action = "duplicate-ek",
			      .machine_id = id,
			      .ek_fpr = ek_fpr };

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, holder);
	return db_audit_insert_json(db, &a, st, err);
}

static int fill(struct db *db, const char *id, const uint8_t *ek_fpr,
		int64_t now, char holder[DB_MACHINE_ID_MAX + 1],
		struct imt_error *err)
{
	struct db_stmt *st;

	if (holder_of(db, ek_fpr, holder, err) < 0)
		return -1;
	if (strcmp(holder, id) == 0)
		holder[0] = '\0'; /* filled already */
	if (holder[0] != '\0')
		return duplicate(db, id, ek_fpr, now, holder, err);
	st = db_stmt(db, sql_fill, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_blob(st, 2, ek_fpr, DB_FPR_SIZE);
	return db_step_done(db, st, err, "fill EK fingerprint");
}

int db_machine_fill_fpr(struct db *db, const char *id, const uint8_t *ek_fpr,
			int64_t now, char holder[DB_MACHINE_ID_MAX + 1],
			struct imt_error *err)
{
	if (db == NULL || holder == NULL)
		return db_bad(err, "no database or result");
	holder[0] = '\0';
	if (db_check_id(id, err) < 0 || check_fpr(ek_fpr, err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (fill(db, id, ek_fpr, now, holder, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}
