// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_retention.c - bounded deletion of old boots, their records and
 * events, of nonces nobody can use any more, of delivered webhook
 * messages, and of audit entries past their age.
 *
 * Each call deletes at most max_rows rows in one transaction, oldest
 * first, so the single writer is never held for long; the caller repeats
 * while *more says so (e.g. once a minute, or in a loop at start-up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_audit.h"
#include "db_internal.h"
#include "db_machine.h"
#include "db_retention.h"

static const char sql_nonce_purge[] =
	"DELETE FROM nonces WHERE machine_id IN (SELECT machine_id "
	"FROM nonces WHERE used = 1 OR expires_at <= ?1 LIMIT ?2)";
/* The oldest boot that has at least keep newer boots of its machine. */
static const char sql_old_boot[] =
	"SELECT b.id FROM boots b WHERE (SELECT count(*) FROM boots n "
	"WHERE n.machine_id = b.machine_id AND n.id > b.id) >= ?1 "
	"ORDER BY b.id LIMIT 1";
/* A row is a chunk of up to DB_CHUNK_MAX records: the budget counts rows */
static const char sql_records_purge[] =
	"DELETE FROM record_chunks WHERE boot_id = ?1 AND first_idx IN "
	"(SELECT first_idx FROM record_chunks WHERE boot_id = ?1 "
	"ORDER BY first_idx LIMIT ?2)";
static const char sql_events_purge[] =
	"DELETE FROM events WHERE id IN (SELECT id FROM events "
	"WHERE boot_id = ?1 ORDER BY id LIMIT ?2)";
static const char sql_boot_delete[] = "DELETE FROM boots WHERE id = ?1";
/* A machine over its event cap, and by how much. */
static const char sql_events_over[] =
	"SELECT machine_id, count(*) - ?1 FROM events GROUP BY machine_id "
	"HAVING count(*) > ?1 LIMIT 1";
static const char sql_events_trim[] =
	"DELETE FROM events WHERE id IN (SELECT id FROM events "
	"WHERE machine_id = ?1 ORDER BY id LIMIT ?2)";

/* Webhook messages delivered at or before ?1. */
static const char sql_webhook_purge[] =
	"DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM "
	"webhook_outbox WHERE delivered_at IS NOT NULL AND delivered_at <= ?1 "
	"ORDER BY delivered_at LIMIT ?2)";
/*
 * Audit entries written before ?1, among the oldest ?2 by id: ids grow
 * with time, so the primary key finds them without an index on time
 * (and a pass never scans the table). A younger row among the oldest
 * only slows it: each pass looks past it.
 */
static const char sql_audit_purge[] =
	"DELETE FROM audit WHERE id IN (SELECT o.id FROM (SELECT id, time "
	"FROM audit ORDER BY id LIMIT ?2) o WHERE o.time < ?1)";
/* Events the same way (not by machine: a machine's boot may last). */
static const char sql_event_age_purge[] =
	"DELETE FROM events WHERE id IN (SELECT o.id FROM (SELECT id, time "
	"FROM events ORDER BY id LIMIT ?2) o WHERE o.time < ?1)";
static const char sql_enroll_purge[] =
	"DELETE FROM enrollments WHERE id IN (SELECT id FROM enrollments "
	"WHERE expires_at <= ?1 LIMIT ?2)";
/* A pending machine nobody approved, that never sent evidence. */
static const char sql_pending_old[] =
	"SELECT id, ek_fpr, created_at FROM machines m WHERE state = 'pending' "
	"AND approved = 0 AND created_at <= ?1 AND NOT EXISTS "
	"(SELECT 1 FROM boots b WHERE b.machine_id = m.id) "
	"ORDER BY created_at, id LIMIT 1";
static const char sql_pending_delete[] = "DELETE FROM machines WHERE id = ?1";
static const struct db_sql sql_pending_detail = {
	.sqlite = "SELECT json_object('created_at', ?1, 'pending_expire', ?2)",
	.pg = "SELECT json_build_object('created_at', ?1::bigint, "
	      "'pending_expire', ?2::bigint)",
};

/* Run a purge statement bound to (@key, @budget); subtract what it did. */
static int purge(struct db *db, const char *sql, int64_t key, size_t *budget,
		 struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, key);
	db_bind_int64(st, 2, (int64_t)*budget);
	if (db_step_done(db, st, err, "retention") < 0)
		return -1;
	*budget -= (size_t)db_changes(db);
	return 0;
}

/* Find the next doomed boot: 1 found, 0 none, -1 error. */
static int old_boot(struct db *db, unsigned int keep, int64_t *id,
		    struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_old_boot, err);
	int step;

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, keep);
	step = db_step(st);
	if (step == DB_ROW)
		*id = db_col_int64(st, 0);
	else if (step != DB_DONE)
		db_fail(db, err, "old boots");
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return -1;
	return step == DB_ROW;
}

/* Delete one boot's records, then events, then the boot, within budget. */
static int purge_boot(struct db *db, int64_t boot, size_t *budget,
		      struct imt_error *err)
{
	struct db_stmt *st;

	if (purge(db, sql_records_purge, boot, budget, err) < 0)
		return -1;
	if (*budget > 0 && purge(db, sql_events_purge, boot, budget, err) < 0)
		return -1;
	if (*budget == 0)
		return 0;
	st = db_stmt(db, sql_boot_delete, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, boot);
	if (db_step_done(db, st, err, "delete boot") < 0)
		return -1;
	*budget -= (size_t)db_changes(db);
	return 0;
}

/* Trim the oldest events of one machine over @cap: 1 done, 0 none, -1. */
static int trim_events(struct db *db, unsigned int cap, size_t *budget,
		       struct imt_error *err)
{
	struct db_stmt *over = db_stmt(db, sql_events_over, err), *trim;
	int64_t excess;
	int rc = -1, step;

	if (over == NULL)
		return -1;
	db_bind_int64(over, 1, cap);
	step = db_step(over);
	if (step == DB_DONE) {
		rc = 0;
		goto out;
	}
	if (step != DB_ROW) {
		db_fail(db, err, "events over cap");
		goto out;
	}
	trim = db_stmt(db, sql_events_trim, err);
	if (trim == NULL)
		goto out;
	excess = db_col_int64(over, 1);
	/* Borrowed from @over's row, which stays until trim has run. */
	db_bind_text(trim, 1, db_col_text(over, 0));
	db_bind_int64(trim, 2,
		      excess < (int64_t)*budget ? excess : (int64_t)*budget);
	if (db_step_done(db, trim, err, "trim events") < 0)
		goto out;
	*budget -= (size_t)db_changes(db);
	rc = 1;
out:
	db_reset(over);
	return rc;
}

/* The audit entry of an expired pending machine; 0 or -1. */
static int expired_audit(struct db *db, const char *id, const uint8_t *fpr,
			 int64_t created, const struct db_retention *r,
			 int64_t now, struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_pending_detail, err);
	struct db_audit a = { .time = now,
			      .action = "pending-expired",
			      .machine_id = id,
			      .ek_fpr = fpr };

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, created);
	db_bind_int64(st, 2, r->pending_expire);
	return db_audit_insert_json(db, &a, st, err);
}

/* Remove the oldest expired pending machine: 1 done, 0 none, -1. */
static int expire_pending(struct db *db, const struct db_retention *r,
			  int64_t now, size_t *budget, struct imt_error *err)
{
	struct db_stmt *old = db_stmt(db, sql_pending_old, err), *del;
	char id[DB_MACHINE_ID_MAX + 1];
	uint8_t fpr[DB_FPR_SIZE];
	int64_t created;
	int step, has_fpr;

	if (old == NULL)
		return -1;
	db_bind_int64(old, 1, now - r->pending_expire);
	step = db_step(old);
	if (step != DB_ROW) {
		db_reset(old);
		return step == DB_DONE ?
			       0 :
			       db_fail(db, err, "expired pending machines");
	}
	snprintf(id, sizeof(id), "%s", db_col_text(old, 0));
	has_fpr = db_col_bytes(old, 1) == DB_FPR_SIZE;
	if (has_fpr)
		memcpy(fpr, db_col_blob(old, 1), DB_FPR_SIZE);
	created = db_col_int64(old, 2);
	db_reset(old);
	if (expired_audit(db, id, has_fpr ? fpr : NULL, created, r, now, err) <
	    0)
		return -1;
	del = db_stmt(db, sql_pending_delete, err);
	if (del == NULL)
		return -1;
	db_bind_text(del, 1, id);
	/* TRANSITION: pending expiry (the machine is removed) */
	if (db_step_done(db, del, err, "expire pending") < 0)
		return -1;
	(*budget)--;
	return 1;
}

static int retention(struct db *db, const struct db_retention *r, int64_t now,
		     size_t *budget, struct imt_error *err)
{
	int64_t boot;
	int found;

	if (purge(db, sql_nonce_purge, now, budget, err) < 0)
		return -1;
	if (*budget > 0 && purge(db, sql_enroll_purge, now, budget, err) < 0)
		return -1;
	if (*budget > 0 && purge(db, sql_webhook_purge, now - r->webhook_keep,
				 budget, err) < 0)
		return -1;
	if (r->audit_keep > 0 && *budget > 0 &&
	    purge(db, sql_audit_purge, now - r->audit_keep, budget, err) < 0)
		return -1;
	if (r->event_keep > 0 && *budget > 0 &&
	    purge(db, sql_event_age_purge, now - r->event_keep, budget, err) <
		    0)
		return -1;
	while (r->pending_expire > 0 && *budget > 0) {
		found = expire_pending(db, r, now, budget, err);
		if (found < 0)
			return -1;
		if (found == 0)
			break;
	}
	while (*budget > 0) {
		found = old_boot(db, r->keep_boots, &boot, err);
		if (found < 0)
			return -1;
		if (found == 0)
			break;
		if (purge_boot(db, boot, budget, err) < 0)
			return -1;
	}
	while (r->max_events > 0 && *budget > 0) {
		found = trim_events(db, r->max_events, budget, err);
		if (found <= 0)
			return found;
	}
	return 0;
}

int db_retention_run(struct db *db, const struct db_retention *r, int64_t now,
		     size_t *deleted, int *more, struct imt_error *err)
{
	size_t budget;

	if (db == NULL || r == NULL)
		return db_bad(err, "no database or retention settings");
	if (r->keep_boots < 1 || r->max_rows < 1)
		return db_bad(err, "retention must keep a boot and delete "
				   "a row");
	budget = r->max_rows;
	if (db_begin(db, err) < 0)
		return -1;
	if (retention(db, r, now, &budget, err) < 0) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	if (deleted != NULL)
		*deleted = r->max_rows - budget;
	/* Out of budget: there may be more (a last call finds nothing). */
	if (more != NULL)
		*more = budget == 0;
	return 0;
}
