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
	"(SELECT role FROM tokens WHERE name = ?2)) RETURNING id, role";
static const char sql_audit_list[] =
	"SELECT id, time, operator, action, machine_id, ek_fpr, detail, role "
	"FROM audit WHERE id > ?1 "
	"AND (CAST(?2 AS TEXT) IS NULL OR machine_id = ?2) AND time >= ?4 "
	"ORDER BY id LIMIT ?3";

/* An entry held for db_audit_on_commit(): its own copy of the strings. */
struct db_audit_held {
	struct db_audit a;
	uint8_t fpr[DB_FPR_SIZE];
	char *op_name, *role, *action, *machine_id, *detail;
};

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

static void held_clear(struct db_audit_held *h)
{
	free(h->op_name);
	free(h->role);
	free(h->action);
	free(h->machine_id);
	free(h->detail);
	memset(h, 0, sizeof(*h));
}

/* strdup(@s), NULL for NULL; sets *@oom when it cannot. */
static char *dup_or_null(const char *s, int *oom)
{
	char *d;

	if (s == NULL)
		return NULL;
	d = strdup(s);
	if (d == NULL)
		*oom = 1;
	return d;
}

/* Room for one more held entry, up to DB_AUDIT_HELD_MAX: 0 or -1. */
static int grow_held(struct db *db)
{
	size_t cap = db->audit_cap == 0 ? 16 : 2 * db->audit_cap;
	struct db_audit_held *p;

	if (db->audit_cap == DB_AUDIT_HELD_MAX)
		return -1;
	if (cap > DB_AUDIT_HELD_MAX)
		cap = DB_AUDIT_HELD_MAX;
	p = realloc(db->audit_held, cap * sizeof(*p));
	if (p == NULL)
		return -1;
	db->audit_held = p;
	db->audit_cap = cap;
	return 0;
}

/* Hold a copy of @a (written as @id by @role) until the commit. */
static void hold(struct db *db, const struct db_audit *a, int64_t id,
		 const char *role)
{
	struct db_audit_held *h;
	int oom = 0;

	if (db->audit_n == db->audit_cap && grow_held(db) < 0) {
		db->audit_lost = 1;
		return;
	}
	h = &db->audit_held[db->audit_n];
	h->a = *a;
	h->a.id = id;
	h->a.op_name = h->op_name = dup_or_null(a->op_name, &oom);
	h->a.role = h->role = dup_or_null(role, &oom);
	h->a.action = h->action = dup_or_null(a->action, &oom);
	h->a.machine_id = h->machine_id = dup_or_null(a->machine_id, &oom);
	h->a.detail = h->detail = dup_or_null(a->detail, &oom);
	if (a->ek_fpr != NULL) {
		memcpy(h->fpr, a->ek_fpr, DB_FPR_SIZE);
		h->a.ek_fpr = h->fpr;
	}
	if (oom) {
		held_clear(h);
		db->audit_lost = 1;
		return;
	}
	db->audit_n++;
}

void db_audit_held_mark(struct db *db)
{
	db->audit_mark = db->audit_n;
}

void db_audit_held_drop(struct db *db, int all)
{
	size_t keep = all ? 0 : db->audit_mark;

	while (db->audit_n > keep)
		held_clear(&db->audit_held[--db->audit_n]);
	db->audit_mark = db->audit_n;
	if (all)
		db->audit_lost = 0;
}

void db_audit_held_flush(struct db *db)
{
	size_t i;

	for (i = 0; db->audit_fn != NULL && i < db->audit_n; i++)
		db->audit_fn(&db->audit_held[i].a, db->audit_arg);
	if (db->audit_fn != NULL && db->audit_lost)
		db->audit_fn(NULL, db->audit_arg);
	db_audit_held_drop(db, 1);
}

void db_audit_on_commit(struct db *db, db_audit_committed_fn fn, void *arg)
{
	db->audit_fn = fn;
	db->audit_arg = arg;
}

void db_audit_held_free(struct db *db)
{
	db_audit_held_drop(db, 1);
	free(db->audit_held);
	db->audit_held = NULL;
	db->audit_cap = 0;
}

int db_audit_insert(struct db *db, const struct db_audit *a,
		    struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_audit_insert, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, a->time);
	db_bind_text(st, 2, a->op_name);
	db_bind_text(st, 3, a->action);
	db_bind_text(st, 4, a->machine_id);
	if (a->ek_fpr != NULL)
		db_bind_blob(st, 5, a->ek_fpr, DB_FPR_SIZE);
	db_bind_text(st, 6, a->detail);
	step = db_step(st);
	if (step != DB_ROW) {
		db_fail(db, err, "audit");
		db_reset(st);
		return -1;
	}
	if (db->audit_fn != NULL)
		hold(db, a, db_col_int64(st, 0), db_col_text(st, 1));
	db_reset(st);
	return 0;
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
	return db_audit_list_since(db, machine_id, 0, after, limit, cb, arg,
				   err);
}

int db_audit_list_since(struct db *db, const char *machine_id, int64_t since,
			int64_t after, unsigned int limit, db_audit_cb cb,
			void *arg, struct imt_error *err)
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
	db_bind_int64(st, 4, since);
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
