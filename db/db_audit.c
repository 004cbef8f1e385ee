// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_audit.c - the audit trail of identities: approvals,
 * pre-registrations, enrollments, removals, pending expiry. Entries name
 * a machine without referring to it, so they outlive it.
 */
#include <stdlib.h>
#include <string.h>

#include "db_audit.h"
#include "db_internal.h"
#include "db_machine.h"

/*
 * The role beside the operator's name is the token's as stored, read in
 * the transaction that writes the change (issue #36): every change an
 * operator makes is audited here with the name of the token that passed
 * the guard, and a token's role changes only by its removal, so this is
 * the role the guard let through. The verifier's own entries have none.
 */
static const char sql_audit_insert[] =
	"INSERT INTO audit (time, operator, action, machine_id, ek_fpr, "
	"detail, role) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	"(SELECT role FROM tokens WHERE name = ?2))";
static const char sql_audit_list[] =
	"SELECT id, time, operator, action, machine_id, ek_fpr, detail, role "
	"FROM audit WHERE id > ?1 "
	"AND (CAST(?2 AS TEXT) IS NULL OR machine_id = ?2) "
	"ORDER BY id LIMIT ?3";

char *db_json_text(struct db *db, struct db_stmt *st, struct imt_error *err)
{
	const char *text;
	char *out = NULL;

	if (db_step(st) != DB_ROW) {
		db_fail(db, err, "JSON");
	} else {
		text = db_col_text(st, 0);
		out = strdup(text != NULL ? text : "null");
		if (out == NULL)
			db_err(err, IMT_ERR_INTERNAL, "out of memory");
	}
	db_reset(st);
	return out;
}

int db_audit_insert_json(struct db *db, const struct db_audit *a,
			 struct db_stmt *st, struct imt_error *err)
{
	struct db_audit e = *a;
	char *detail = db_json_text(db, st, err);
	int rc;

	if (detail == NULL)
		return -1;
	e.detail = detail;
	rc = db_audit_insert(db, &e, err);
	free(detail);
	return rc;
}

static int check_audit(const struct db_audit *a, struct imt_error *err)
{
	if (a == NULL)
		return db_bad(err, "no audit entry");
	if (db_check_str(a->action, DB_NAME_MAX, "audit action", err) < 0 ||
	    (a->op_name != NULL &&
	     db_check_str(a->op_name, DB_NAME_MAX, "operator", err) < 0) ||
	    (a->machine_id != NULL && db_check_id(a->machine_id, err) < 0) ||
	    (a->detail != NULL &&
	     db_check_str(a->detail, DB_REASON_MAX, "audit detail", err) < 0))
		return -1;
	return 0;
}

int db_audit_insert(struct db *db, const struct db_audit *a,
		    struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_audit_insert, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, a->time);
	db_bind_text(st, 2, a->op_name);
	db_bind_text(st, 3, a->action);
	db_bind_text(st, 4, a->machine_id);
	if (a->ek_fpr != NULL)
		db_bind_blob(st, 5, a->ek_fpr, DB_FPR_SIZE);
	db_bind_text(st, 6, a->detail);
	return db_step_done(db, st, err, "audit");
}

int db_audit_add(struct db *db, const struct db_audit *a, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (check_audit(a, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (db_audit_insert(db, a, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

int db_audit_list(struct db *db, const char *machine_id, int64_t after,
		  unsigned int limit, db_audit_cb cb, void *arg,
		  struct imt_error *err)
{
	struct db_audit a;
	struct db_stmt *st;
	int rc = -1, step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	if ((machine_id != NULL && db_check_id(machine_id, err) < 0) ||
	    db_check_limit(limit, err) < 0)
		return -1;
	st = db_stmt(db, sql_audit_list, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, after);
	db_bind_text(st, 2, machine_id);
	db_bind_int(st, 3, (int)limit);
	while ((step = db_step(st)) == DB_ROW) {
		a.id = db_col_int64(st, 0);
		a.time = db_col_int64(st, 1);
		a.op_name = db_col_text(st, 2);
		a.action = db_col_text(st, 3);
		a.machine_id = db_col_text(st, 4);
		a.ek_fpr = db_col_bytes(st, 5) == DB_FPR_SIZE ?
				   db_col_blob(st, 5) :
				   NULL;
		a.detail = db_col_text(st, 6);
		a.role = db_col_text(st, 7);
		if (cb(&a, arg) != 0)
			break;
	}
	if (step != DB_ROW && step != DB_DONE) {
		db_fail(db, err, "list audit");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	return rc;
}
