// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_machine.c - machines (enrolled TPMs and their trust state) and the
 * events that record what happened to them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_audit.h"
#include "db_internal.h"
#include "db_machine.h"

static const char *const state_names[] = {
	[DB_STATE_ENROLLING] = "enrolling", [DB_STATE_PENDING] = "pending",
	[DB_STATE_TRUSTED] = "trusted",	    [DB_STATE_UNTRUSTED] = "untrusted",
	[DB_STATE_FAILED] = "failed",	    [DB_STATE_STALE] = "stale",
};

#define STATE_COUNT (sizeof(state_names) / sizeof(state_names[0]))

const char *db_machine_state_name(enum db_machine_state state)
{
	if ((size_t)state >= STATE_COUNT)
		return "invalid";
	return state_names[state];
}

int db_machine_state_parse(const char *name, enum db_machine_state *state)
{
	size_t i;

	for (i = 0; name != NULL && i < STATE_COUNT; i++) {
		if (strcmp(state_names[i], name) == 0) {
			*state = (enum db_machine_state)i;
			return 0;
		}
	}
	return -1;
}

static const char *const event_kind_names[] = {
	[DB_EVENT_ENROLLED] = "enrolled", [DB_EVENT_ACTIVATED] = "activated",
	[DB_EVENT_STATE] = "state",	  [DB_EVENT_APPROVED] = "approved",
	[DB_EVENT_REJECTED] = "rejected", [DB_EVENT_REBOOT] = "reboot",
};

const char *db_event_kind_name(enum db_event_kind kind)
{
	if ((size_t)kind >=
	    sizeof(event_kind_names) / sizeof(event_kind_names[0]))
		return NULL;
	return event_kind_names[kind];
}

static int check_id(const char *id, struct imt_error *err)
{
	return db_check_str(id, DB_MACHINE_ID_MAX, "machine id", err);
}

static int check_state(enum db_machine_state state, struct imt_error *err)
{
	if ((size_t)state >= STATE_COUNT)
		return db_bad(err, "unknown machine state %d", (int)state);
	return 0;
}

/* A reason is optional JSON text; the schema checks it parses. */
static int check_reason(const char *reason, struct imt_error *err)
{
	if (reason == NULL)
		return 0;
	return db_check_str(reason, DB_REASON_MAX, "reason", err);
}

static int check_new(const struct db_machine_new *m, struct imt_error *err)
{
	if (m == NULL)
		return db_bad(err, "machine missing");
	if (check_id(m->id, err) < 0 ||
	    db_check_blob(m->ek_pub, m->ek_pub_len, 1, DB_KEY_MAX, "EK public",
			  err) < 0 ||
	    db_check_blob(m->ak_pub, m->ak_pub_len, 1, DB_KEY_MAX, "AK public",
			  err) < 0 ||
	    db_check_blob(m->ak_name, m->ak_name_len, 1, DB_AK_NAME_MAX,
			  "AK name", err) < 0 ||
	    db_check_blob(m->ek_fpr, DB_FPR_SIZE, DB_FPR_SIZE, DB_FPR_SIZE,
			  "EK fingerprint", err) < 0 ||
	    check_state(m->state, err) < 0)
		return -1;
	if (m->ek_cert != NULL &&
	    db_check_blob(m->ek_cert, m->ek_cert_len, 1, DB_CERT_MAX,
			  "EK certificate", err) < 0)
		return -1;
	return 0;
}

/*
 * The event insert every writer here shares. The boot is the machine's
 * current one, looked up in the same statement.
 */
static const char sql_event_insert[] =
	"INSERT INTO events (machine_id, boot_id, time, kind, from_state, "
	"to_state, reason) VALUES (?1, (SELECT max(id) FROM boots "
	"WHERE machine_id = ?1), ?2, ?3, ?4, ?5, ?6)";

int db_event_insert(struct db *db, const char *id, int64_t now,
		    const char *kind, const char *from, const char *to,
		    const char *reason, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_event_insert, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_int64(st, 2, now);
	db_bind_text(st, 3, kind);
	db_bind_text(st, 4, from);
	db_bind_text(st, 5, to);
	db_bind_text(st, 6, reason);
	return db_step_done(db, st, err, "event");
}

static const char sql_machine_insert[] =
	"INSERT INTO machines (id, ek_pub, ek_cert, ak_pub, ak_name, state, "
	"created_at, ek_fpr, activated, approved) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

int db_machine_insert(struct db *db, const struct db_machine_new *m,
		      int64_t now, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_machine_insert, err);
	const char *state = db_machine_state_name(m->state);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, m->id);
	db_bind_blob(st, 2, m->ek_pub, m->ek_pub_len);
	if (m->ek_cert != NULL)
		db_bind_blob(st, 3, m->ek_cert, m->ek_cert_len);
	db_bind_blob(st, 4, m->ak_pub, m->ak_pub_len);
	db_bind_blob(st, 5, m->ak_name, m->ak_name_len);
	db_bind_text(st, 6, state);
	db_bind_int64(st, 7, now);
	db_bind_blob(st, 8, m->ek_fpr, DB_FPR_SIZE);
	db_bind_int(st, 9, m->activated ? 1 : 0);
	db_bind_int(st, 10, m->approved ? 1 : 0);
	if (db_step_done(db, st, err, "machine") < 0) {
		if (err != NULL && err->status == IMT_ERR_MISMATCH)
			imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				      IMT_NO_POS, "machine %s or its EK exists",
				      m->id);
		return -1;
	}
	return db_event_insert(db, m->id, now,
			       db_event_kind_name(DB_EVENT_ENROLLED), NULL,
			       state, NULL, err);
}

int db_machine_create(struct db *db, const struct db_machine_new *m,
		      int64_t now, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (check_new(m, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (db_machine_insert(db, m, now, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

#define SQL_MACHINE_COLUMNS "SELECT " DB_MACHINE_SELECT " " DB_MACHINE_FROM

static const char sql_machine_get[] = SQL_MACHINE_COLUMNS "WHERE m.id = ?1";
static const char sql_machine_list[] = SQL_MACHINE_COLUMNS
	"WHERE m.id > ?1 ORDER BY m.id LIMIT ?2";
/*
 * The candidates are the rows of TR_DEADLINE in verifier/engine/transition.c:
 * failed machines are not (going stale would turn their "no access" into
 * "no recommendation" without any valid evidence), nor pending ones
 * (they expire instead). An enrolling machine that never sent evidence
 * counts from its creation.
 */
/* SQLite sorts NULL first, PostgreSQL last unless told. */
#define SQL_MACHINE_SILENT(nulls_first) \
	SQL_MACHINE_COLUMNS \
	"WHERE m.state IN ('enrolling', 'trusted', " \
	"'untrusted') AND coalesce(m.last_seen, m.created_at) < ?1 " \
	"AND (n.seen_at IS NULL OR n.seen_at < ?1) " \
	"ORDER BY " DB_MACHINE_SEEN nulls_first ", m.id LIMIT ?2"
static const struct db_sql sql_machine_silent = {
	.sqlite = SQL_MACHINE_SILENT(""),
	.pg = SQL_MACHINE_SILENT(" NULLS FIRST"),
};
/*
 * The candidates' seen_at, moved into machines.last_seen when it is
 * recent: the value read does not change, and a machine heartbeating
 * through its nonce row leaves the candidates (machines_state's range)
 * until it is silent for a while again, rather than being looked at on
 * every tick. One row per machine per stale_after, not per heartbeat.
 */
static const char sql_machine_seen_fold[] =
	"UPDATE machines SET last_seen = (SELECT n.seen_at FROM nonces n "
	"WHERE n.machine_id = machines.id) "
	"WHERE state IN ('enrolling', 'trusted', 'untrusted') "
	"AND coalesce(last_seen, created_at) < ?1 AND EXISTS (SELECT 1 "
	"FROM nonces n WHERE n.machine_id = machines.id AND n.seen_at >= ?1)";

/* Fill @m from the current row with borrowed pointers; -1 if corrupt. */
static int machine_from_row(struct db_stmt *st, int b, struct db_machine *m)
{
	const char *id = db_col_text(st, b + 0);
	int ak_len = db_col_bytes(st, b + 4);

	memset(m, 0, sizeof(*m));
	if (id == NULL || strlen(id) > DB_MACHINE_ID_MAX ||
	    ak_len > DB_AK_NAME_MAX ||
	    db_machine_state_parse(db_col_text(st, b + 5), &m->state) < 0)
		return -1;
	strcpy(m->id, id);
	m->ek_pub = (uint8_t *)db_col_blob(st, b + 1);
	m->ek_pub_len = (size_t)db_col_bytes(st, b + 1);
	m->ek_cert = (uint8_t *)db_col_blob(st, b + 2);
	m->ek_cert_len = (size_t)db_col_bytes(st, b + 2);
	m->ak_pub = (uint8_t *)db_col_blob(st, b + 3);
	m->ak_pub_len = (size_t)db_col_bytes(st, b + 3);
	if (ak_len > 0)
		memcpy(m->ak_name, db_col_blob(st, b + 4), (size_t)ak_len);
	m->ak_name_len = (size_t)ak_len;
	m->state_reason = (char *)db_col_text(st, b + 6);
	m->created_at = db_col_int64(st, b + 7);
	m->last_seen = db_col_int64(st, b + 8);
	m->approved = db_col_int(st, b + 9);
	m->activated = db_col_int(st, b + 10);
	snprintf(m->bank, sizeof(m->bank), "%s",
		 db_col_is_null(st, b + 11) ? "" : db_col_text(st, b + 11));
	m->rejected_at = db_col_int64(st, b + 12);
	if (db_col_bytes(st, b + 13) == DB_FPR_SIZE) {
		memcpy(m->ek_fpr, db_col_blob(st, b + 13), DB_FPR_SIZE);
		m->has_ek_fpr = 1;
	}
	return 0;
}

static void *dup_mem(const void *p, size_t len)
{
	void *q;

	if (p == NULL)
		return NULL;
	q = malloc(len + 1); /* + 1: never malloc(0); room for a NUL */
	if (q != NULL) {
		memcpy(q, p, len);
		((char *)q)[len] = '\0';
	}
	return q;
}

/* Replace the borrowed pointers of @m by owned copies. */
static int machine_own(struct db_machine *m)
{
	struct db_machine b = *m;

	m->ek_pub = dup_mem(b.ek_pub, b.ek_pub_len);
	m->ek_cert = dup_mem(b.ek_cert, b.ek_cert_len);
	m->ak_pub = dup_mem(b.ak_pub, b.ak_pub_len);
	m->state_reason = b.state_reason ? dup_mem(b.state_reason,
						   strlen(b.state_reason)) :
					   NULL;
	if (m->ek_pub == NULL || m->ak_pub == NULL ||
	    (b.ek_cert != NULL && m->ek_cert == NULL) ||
	    (b.state_reason != NULL && m->state_reason == NULL)) {
		db_machine_release(m);
		return -1;
	}
	return 0;
}

int db_machine_from_row(struct db_stmt *st, int base, struct db_machine *m)
{
	return machine_from_row(st, base, m) < 0 || machine_own(m) < 0 ? -1 : 0;
}

void db_machine_release(struct db_machine *m)
{
	if (m == NULL)
		return;
	free(m->ek_pub);
	free(m->ek_cert);
	free(m->ak_pub);
	free(m->state_reason);
	m->ek_pub = m->ek_cert = m->ak_pub = NULL;
	m->state_reason = NULL;
}

int db_machine_get(struct db *db, const char *id, struct db_machine *out,
		   int *found, struct imt_error *err)
{
	struct db_machine m;
	struct db_stmt *st;
	int rc = -1, step;

	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	*found = 0;
	if (check_id(id, err) < 0)
		return -1;
	st = db_stmt(db, sql_machine_get, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
		goto out;
	}
	if (step != DB_ROW) {
		db_fail(db, err, "machine");
		goto out;
	}
	if (db_machine_from_row(st, 0, &m) < 0) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "machine %s: corrupt row or out of memory", id);
		goto out;
	}
	*out = m;
	*found = 1;
	rc = 0;
out:
	db_reset(st);
	return rc;
}

/* Call @cb for each row of the bound statement @st. */
static int machine_rows(struct db *db, struct db_stmt *st, db_machine_cb cb,
			void *arg, struct imt_error *err)
{
	struct db_machine m;
	int rc = -1, step;

	while ((step = db_step(st)) == DB_ROW) {
		if (machine_from_row(st, 0, &m) < 0) {
			db_err(err, IMT_ERR_INTERNAL, "corrupt machine row");
			goto out;
		}
		if (cb(&m, arg) != 0)
			break;
	}
	if (step != DB_ROW && step != DB_DONE) {
		db_fail(db, err, "list machines");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	return rc;
}

int db_machine_list(struct db *db, const char *after, unsigned int limit,
		    db_machine_cb cb, void *arg, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	if (db_check_limit(limit, err) < 0)
		return -1;
	if (after != NULL &&
	    strnlen(after, DB_MACHINE_ID_MAX + 1) > DB_MACHINE_ID_MAX)
		return db_bad(err, "cursor longer than a machine id");
	st = db_stmt(db, sql_machine_list, err);
	if (st == NULL)
		return -1;
	/* Every id sorts after the empty string. */
	db_bind_text(st, 1, after ? after : "");
	db_bind_int(st, 2, (int)limit);
	return machine_rows(db, st, cb, arg, err);
}

int db_machine_list_silent(struct db *db, int64_t before, unsigned int limit,
			   db_machine_cb cb, void *arg, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	if (db_check_limit(limit, err) < 0)
		return -1;
	st = db_stmt(db, sql_machine_seen_fold, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, before);
	if (db_step_done(db, st, err, "last seen") < 0)
		return -1;
	st = db_stmt_sql(db, &sql_machine_silent, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, before);
	db_bind_int(st, 2, (int)limit);
	return machine_rows(db, st, cb, arg, err);
}

static const char sql_state_update[] =
	"UPDATE machines SET state = ?2, state_reason = ?3 WHERE id = ?1";
static const char sql_state_get[] = "SELECT state FROM machines WHERE id = ?1";

/* Read the current state name into @buf; 0 not found, 1 found, -1. */
static int state_get(struct db *db, const char *id, char *buf, size_t size,
		     struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_state_get, err);
	const char *s;
	int rc = -1, step;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
	} else if (step == DB_ROW) {
		s = db_col_text(st, 0);
		snprintf(buf, size, "%s", s ? s : "");
		rc = 1;
	} else {
		db_fail(db, err, "machine state");
	}
	db_reset(st);
	return rc;
}

static int no_machine(const char *id, struct imt_error *err)
{
	imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS, IMT_NO_POS,
		      "no machine %s", id);
	return -1;
}

int db_state_set(struct db *db, const char *id, const char *to,
		 const char *reason, int64_t now, struct imt_error *err)
{
	struct db_stmt *st;
	char from[16];
	int found;

	found = state_get(db, id, from, sizeof(from), err);
	if (found <= 0)
		return found < 0 ? -1 : no_machine(id, err);
	st = db_stmt(db, sql_state_update, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_text(st, 2, to);
	db_bind_text(st, 3, reason);
	if (db_step_done(db, st, err, "machine state") < 0)
		return -1;
	if (strcmp(from, to) == 0)
		return 0;
	return db_event_insert(db, id, now, db_event_kind_name(DB_EVENT_STATE),
			       from, to, reason, err);
}

int db_machine_set_state(struct db *db, const char *id,
			 enum db_machine_state state, const char *reason,
			 int64_t now, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (check_id(id, err) < 0 || check_state(state, err) < 0 ||
	    check_reason(reason, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (db_state_set(db, id, db_machine_state_name(state), reason, now,
			 err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

static const char sql_approve[] =
	"UPDATE machines SET approved = 1 WHERE id = ?1";
/* json_object() builds the reason: no JSON assembled by hand. */
static const struct db_sql sql_approve_reason = {
	.sqlite = "SELECT json_object('operator', ?1)",
	.pg = "SELECT json_build_object('operator', ?1::text)",
};
static const char sql_machine_fpr[] =
	"SELECT ek_fpr FROM machines WHERE id = ?1";

/* The machine's fingerprint in @fpr: 1, 0 no machine, 2 none stored, -1. */
static int machine_fpr(struct db *db, const char *id, uint8_t *fpr,
		       struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_machine_fpr, err);
	int step, rc = -1;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
	} else if (step != DB_ROW) {
		db_fail(db, err, "machine EK");
	} else if (db_col_bytes(st, 0) != DB_FPR_SIZE) {
		rc = 2;
	} else {
		memcpy(fpr, db_col_blob(st, 0), DB_FPR_SIZE);
		rc = 1;
	}
	db_reset(st);
	return rc;
}

static int mark_approved(struct db *db, const char *id, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_approve, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	if (db_step_done(db, st, err, "approve") < 0)
		return -1;
	if (db_changes(db) != 1)
		return no_machine(id, err);
	return 0;
}

/* The approval event's reason, {"operator": NAME}; malloc'ed or NULL. */
static char *approve_reason(struct db *db, const char *op_name,
			    struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_approve_reason, err);

	if (st == NULL)
		return NULL;
	db_bind_text(st, 1, op_name);
	return db_json_text(db, st, err);
}

static int approve(struct db *db, const char *id, const uint8_t *ek_fpr,
		   const char *op_name, int64_t now,
		   enum db_approve_result *res, struct imt_error *err)
{
	static const enum db_approve_result by_found[] = {
		[0] = DB_APPROVE_NO_MACHINE,
		[2] = DB_APPROVE_NO_FPR,
	};
	struct db_audit a = { .time = now,
			      .op_name = op_name,
			      .action = "approve",
			      .machine_id = id,
			      .ek_fpr = ek_fpr };
	uint8_t fpr[DB_FPR_SIZE];
	char *reason = NULL;
	int rc = -1, found;

	found = machine_fpr(db, id, fpr, err);
	if (found < 0)
		return -1;
	if (found != 1) {
		*res = by_found[found];
		return 0;
	}
	/* constant time is not needed: the fingerprint is public */
	if (memcmp(fpr, ek_fpr, DB_FPR_SIZE) != 0) {
		*res = DB_APPROVE_WRONG_EK;
		return 0;
	}
	if (mark_approved(db, id, err) < 0)
		goto out;
	reason = approve_reason(db, op_name, err);
	if (reason == NULL ||
	    db_event_insert(db, id, now, db_event_kind_name(DB_EVENT_APPROVED),
			    NULL, NULL, reason, err) < 0)
		goto out;
	a.detail = reason;
	if (db_audit_insert(db, &a, err) < 0)
		goto out;
	/* the state follows in the caller's transaction: engine_approve() */
	*res = DB_APPROVE_OK;
	rc = 0;
out:
	free(reason);
	return rc;
}

int db_machine_approve(struct db *db, const char *id, const uint8_t *ek_fpr,
		       const char *op_name, int64_t now,
		       enum db_approve_result *res, struct imt_error *err)
{
	if (db == NULL || res == NULL)
		return db_bad(err, "no database or result");
	if (check_id(id, err) < 0 ||
	    db_check_blob(ek_fpr, DB_FPR_SIZE, DB_FPR_SIZE, DB_FPR_SIZE,
			  "EK fingerprint", err) < 0 ||
	    db_check_str(op_name, DB_NAME_MAX, "operator", err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (approve(db, id, ek_fpr, op_name, now, res, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

int db_event_add(struct db *db, const char *machine_id, const char *kind,
		 const char *reason, int64_t now, struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (check_id(machine_id, err) < 0 ||
	    db_check_str(kind, DB_NAME_MAX, "event kind", err) < 0 ||
	    check_reason(reason, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (db_event_insert(db, machine_id, now, kind, NULL, NULL, reason,
			    err) < 0) {
		if (err != NULL && err->status == IMT_ERR_MISMATCH)
			no_machine(machine_id, err);
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

static const char sql_event_list[] =
	"SELECT id, machine_id, boot_id, time, kind, from_state, to_state, "
	"reason FROM events WHERE machine_id = ?1 AND id > ?2 "
	"ORDER BY id LIMIT ?3";

int db_event_list(struct db *db, const char *machine_id, int64_t after,
		  unsigned int limit, db_event_cb cb, void *arg,
		  struct imt_error *err)
{
	struct db_event ev;
	struct db_stmt *st;
	int rc = -1, step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	if (check_id(machine_id, err) < 0 || db_check_limit(limit, err) < 0)
		return -1;
	st = db_stmt(db, sql_event_list, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, machine_id);
	db_bind_int64(st, 2, after);
	db_bind_int(st, 3, (int)limit);
	while ((step = db_step(st)) == DB_ROW) {
		ev.id = db_col_int64(st, 0);
		ev.machine_id = db_col_text(st, 1);
		ev.boot_id = db_col_int64(st, 2);
		ev.time = db_col_int64(st, 3);
		ev.kind = db_col_text(st, 4);
		ev.from_state = db_col_text(st, 5);
		ev.to_state = db_col_text(st, 6);
		ev.reason = db_col_text(st, 7);
		if (cb(&ev, arg) != 0)
			break;
	}
	if (step != DB_ROW && step != DB_DONE) {
		db_fail(db, err, "list events");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	return rc;
}
